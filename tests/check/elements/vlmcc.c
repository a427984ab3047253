/* vlmccsink and vlmccsrc (issue 19) on loopback multicast: the paper's
 * constants as properties with units and defaults, URIs with clear
 * errors, a sink and a source in one process where the source becomes
 * leader, acks flow and the rate moves, and forged or truncated control
 * packets counted and dropped on both sides; with SRTP (issue 21) the
 * media protected end to end, and dropped under another key. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>

#include "checkutil.h"
#include "gstlayerrates.h"
#include "gstnettime.h"
#include "gstnetudp.h"
#include "vlmcccore.h"
#include "core/random.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define RTP_CAPS "application/x-rtp,media=video,clock-rate=90000," \
  "encoding-name=H264"
#define PAYLOAD 900

/* ------------------------------------------------------------------ */
/* Properties, URIs, documentation */

static const gchar *
blurb_of (GstElement * e, const gchar * prop)
{
  return g_param_spec_get_blurb (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), prop));
}

GST_START_TEST (test_defaults_and_units)
{
  GstElement *sink = gst_element_factory_make ("vlmccsink", NULL);
  GstElement *src = gst_element_factory_make ("vlmccsrc", NULL);
  VlmccConfig cfg;
  gdouble g, alpha, beta, n_extra;
  guint burst, mult, size, ext_id, window;
  guint64 rtt, probe, leave, floor;
  gchar *address;
  gint port;

  vlmcc_config_init (&cfg);
  g_object_get (sink, "g", &g, "burst", &burst, "rto-var-mult", &mult,
      "packet-size", &size, "alpha", &alpha, "beta", &beta, "ext-id",
      &ext_id, "initial-window", &window, "initial-rtt", &rtt, "rate-floor",
      &floor, "address", &address, "port", &port, NULL);
  fail_unless (g == 0.1 && burst == 2 && mult == 4 && size == 1000);
  fail_unless (alpha == cfg.alpha && beta == cfg.beta);
  fail_unless_equals_int (ext_id, cfg.ext_id);
  fail_unless_equals_int (window, cfg.initial_window);
  fail_unless_equals_uint64 (rtt, (guint64) cfg.initial_rtt);
  fail_unless_equals_uint64 (floor, 0);
  fail_unless_equals_string (address, "239.3.3.3");
  fail_unless_equals_int (port, 5200);
  g_free (address);
  /* the loss timeout's floor, dup_thresh and the START budget */
  {
    guint64 rto_min, start_gap;
    guint dup, start_rate;

    g_object_get (sink, "rto-min", &rto_min, "dup-thresh", &dup,
        "start-rate", &start_rate, "start-gap", &start_gap, NULL);
    fail_unless_equals_uint64 (rto_min, (guint64) cfg.rto_min);
    fail_unless_equals_int (dup, cfg.dup_thresh);
    fail_unless_equals_int (start_rate, cfg.start_rate);
    fail_unless_equals_uint64 (start_gap, (guint64) cfg.start_gap);
    fail_unless (strstr (blurb_of (sink, "start-rate"), "packets/s") != NULL);
  }
  g_object_get (src, "n-extra", &n_extra, "probe-interval", &probe,
      "leave-time", &leave, NULL);
  fail_unless (n_extra == cfg.n_extra);
  fail_unless_equals_uint64 (probe, (guint64) cfg.probe_interval);
  fail_unless_equals_uint64 (leave, (guint64) cfg.leave_time);
  /* sender-only constants are the sink's */
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (src),
          "burst") == NULL);
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (src),
          "vegas-delay") == NULL);
  /* the Vegas delay input: the paper's by default, forward by name */
  {
    gint delay;

    g_object_get (sink, "vegas-delay", &delay, NULL);
    fail_unless_equals_int (delay, VLMCC_VEGAS_DELAY_RTT);
    g_object_set (sink, "uri", "vlmcc://239.3.3.3:5200?vegas-delay=forward",
        NULL);
    g_object_get (sink, "vegas-delay", &delay, NULL);
    fail_unless_equals_int (delay, VLMCC_VEGAS_DELAY_FORWARD);
  }
  /* the loss-based mode's rule: cubic by default, on the sink and the
   * sources (their follower windows decide challenges) */
  {
    gint sink_mode, src_mode;

    g_object_get (sink, "plus-loss-mode", &sink_mode, NULL);
    g_object_get (src, "plus-loss-mode", &src_mode, NULL);
    fail_unless_equals_int (sink_mode, VLMCC_PLUS_LOSS_CUBIC);
    fail_unless_equals_int (src_mode, VLMCC_PLUS_LOSS_CUBIC);
    g_object_set (sink, "uri",
        "vlmcc://239.3.3.3:5200?plus-loss-mode=reno", NULL);
    g_object_set (src, "uri",
        "vlmcc://239.3.3.3:5200?plus-loss-mode=reno", NULL);
    g_object_get (sink, "plus-loss-mode", &sink_mode, NULL);
    g_object_get (src, "plus-loss-mode", &src_mode, NULL);
    fail_unless_equals_int (sink_mode, VLMCC_PLUS_LOSS_RENO);
    fail_unless_equals_int (src_mode, VLMCC_PLUS_LOSS_RENO);
    g_object_set (sink, "uri",
        "vlmcc://239.3.3.3:5200?plus-loss-mode=cubic-linux", NULL);
    g_object_get (sink, "plus-loss-mode", &sink_mode, NULL);
    fail_unless_equals_int (sink_mode, VLMCC_PLUS_LOSS_CUBIC_LINUX);
  }
  /* the challenge echo: off by default, the sink's switch, the delay the
   * sources' */
  {
    gboolean echo;
    guint echo_id, src_echo_id;
    gdouble delay;

    g_object_get (sink, "challenge-echo", &echo, "echo-ext-id", &echo_id,
        NULL);
    g_object_get (src, "challenge-delay", &delay, "echo-ext-id",
        &src_echo_id, NULL);
    fail_unless (!echo && echo == cfg.challenge_echo);
    fail_unless_equals_int (echo_id, cfg.echo_ext_id);
    fail_unless_equals_int (src_echo_id, cfg.echo_ext_id);
    fail_unless (delay == cfg.challenge_delay);
    fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (src),
            "challenge-echo") == NULL);
    fail_unless (strstr (blurb_of (src, "challenge-delay"), "RTTs") != NULL);
    g_object_set (sink, "uri", "vlmcc://239.3.3.3:5200?challenge-echo=true",
        NULL);
    g_object_get (sink, "challenge-echo", &echo, NULL);
    fail_unless (echo);
  }
  fail_unless (strstr (blurb_of (sink, "rate-floor"), "bit/s") != NULL);
  fail_unless (strstr (blurb_of (sink, "initial-rtt"), "ns") != NULL);
  fail_unless (strstr (blurb_of (sink, "packet-size"), "bytes") != NULL);
  fail_unless (strstr (blurb_of (sink, "bitrate"), "bit/s") != NULL);
  fail_unless (strstr (blurb_of (src, "leave-time"), "ns") != NULL);
  check_inspect_docs ("vlmccsink");
  check_inspect_docs ("vlmccsrc");
  check_stats_documented (sink);
  check_stats_documented (src);
  gst_object_unref (sink);
  gst_object_unref (src);
}

GST_END_TEST;

GST_START_TEST (test_uri_round_trip_and_errors)
{
  const gchar *factories[] = { "vlmccsink", "vlmccsrc" };

  for (guint i = 0; i < G_N_ELEMENTS (factories); i++) {
    GstElement *e = gst_element_factory_make (factories[i], NULL);
    guint64 floor;
    guint ext_id;
    gchar *uri;

    check_uri_refused (e, "vlmcc://239.3.3.3?ext-id=5", "no port");
    check_uri_refused (e, "vlmcc://239.3.3.3:5200?window=3",
        "unknown parameter \"window\"");
    check_uri_refused (e, "vlmcc://239.3.3.3:5200?ext-id=5&rate-floor=lots",
        "bad value \"lots\" for rate-floor");
    /* all or nothing: ext-id of the bad URI was not set */
    g_object_get (e, "ext-id", &ext_id, NULL);
    fail_unless_equals_int (ext_id, 7);
    g_object_set (e, "uri", "vlmcc://239.4.4.4:6000?ext-id=5&"
        "rate-floor=200000", NULL);
    g_object_get (e, "uri", &uri, "ext-id", &ext_id, "rate-floor", &floor,
        NULL);
    fail_unless_equals_int (ext_id, 5);
    fail_unless_equals_uint64 (floor, 200000);
    fail_unless (g_str_has_prefix (uri, "vlmcc://239.4.4.4:6000?"), "%s",
        uri);
    fail_unless (strstr (uri, "ext-id=5") && strstr (uri, "rate-floor="
            "200000"), "%s", uri);
    g_free (uri);
    gst_object_unref (e);
  }
}

GST_END_TEST;

GST_START_TEST (test_start_errors_clear)
{
  struct
  {
    const gchar *desc, *text;
  } cases[] = {
    {"vlmccsrc uri=vlmcc://239.3.3.3 ! fakesink", "no port"},
    {"fakesrc ! vlmccsink uri=vlmcc://239.3.3.3", "no port"},
    {"fakesrc ! vlmccsink uri=\"vlmcc://239.3.3.3:5200?stats-interval=soon\"",
        "bad value \"soon\" for stats-interval"},
    {"fakesrc ! vlmccsink address=10.0.0.1", "\"10.0.0.1\" is not a "
          "multicast group"},
    {"vlmccsrc address=192.168.1.1 ! fakesink", "\"192.168.1.1\" is not a "
          "multicast group"},
    {"vlmccsrc source-address=nowhere ! fakesink", "source-address: "
          "\"nowhere\" is not an IP address"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check_start_error (cases[i].desc, cases[i].text);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* A sink and a source in one process */

static GstBuffer *
rtp_packet (guint16 seq, guint32 ts)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (PAYLOAD, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, ts);
  gst_rtp_buffer_set_ssrc (&rtp, 0x1234abcd);
  memset (gst_rtp_buffer_get_payload (&rtp), seq & 0xff, PAYLOAD);
  gst_rtp_buffer_unmap (&rtp);
  return buf;
}

/* The highest rate of the GstLayerRates events upstream of @h so far,
 * in *@rate; counts them in *@events. */
static void
take_rate_events (GstHarness * h, guint * rate, guint * events)
{
  GstEvent *ev;
  guint rates[GST_LAYER_RATES_MAX_LAYERS], n;

  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    if (gst_layer_rates_event_parse (ev, rates, &n) && n == 1) {
      *rate = MAX (*rate, rates[0]);
      (*events)++;
    }
    gst_event_unref (ev);
  }
}

/* The first element message named @name on @bus, or NULL. */
static GstMessage *
pop_element_message (GstBus * bus, const gchar * name)
{
  GstMessage *m;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    if (gst_message_has_name (m, name))
      return m;
    gst_message_unref (m);
  }
  return NULL;
}

/* A checked buffer of the source: our payload, the RTP header kept. */
static void
check_output (GstBuffer * buf)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  gpointer ext;
  guint size;

  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp));
  fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), 0x1234abcd);
  fail_unless_equals_int (gst_rtp_buffer_get_payload_len (&rtp), PAYLOAD);
  fail_unless (((guint8 *) gst_rtp_buffer_get_payload (&rtp))[0] ==
      (gst_rtp_buffer_get_seq (&rtp) & 0xff));
  fail_unless (gst_rtp_buffer_get_extension_onebyte_header (&rtp, 7, 0, &ext,
          &size));
  fail_unless_equals_int (size, VLMCC_EXT_SIZE);
  gst_rtp_buffer_unmap (&rtp);
}

/* Whether @buf carries the challenge echo (default id 8). */
static gboolean
has_echo (GstBuffer * buf)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  gpointer ext;
  guint size = 0;
  gboolean found;

  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp));
  found = gst_rtp_buffer_get_extension_onebyte_header (&rtp, 8, 0, &ext,
      &size);
  gst_rtp_buffer_unmap (&rtp);
  return found && size == VLMCC_ECHO_SIZE;
}

/* A vlmccsink and a vlmccsrc on one loopback group, each with @props
 * added. */
typedef struct
{
  GstHarness *hs, *hr;
  GstElement *sink, *src;
  guint rate, events, pulled, echoed;
} Pair;

static void
pair_init (Pair * p, const gchar * group, const gchar * sink_props,
    const gchar * src_props)
{
  guint port = free_udp_port ();
  gchar *sink_desc = g_strdup_printf ("vlmccsink address=%s port=%u "
      "multicast-iface=lo stats-interval=0 %s", group, port, sink_props);
  gchar *src_desc = g_strdup_printf ("vlmccsrc address=%s port=%u "
      "multicast-iface=lo stats-interval=0 %s", group, port, src_props);

  memset (p, 0, sizeof (*p));
  p->hs = gst_harness_new_parse (sink_desc);
  p->hr = gst_harness_new_parse (src_desc);
  p->sink = gst_harness_find_element (p->hs, "vlmccsink");
  p->src = gst_harness_find_element (p->hr, "vlmccsrc");
  g_free (sink_desc);
  g_free (src_desc);
}

/* Pulls and checks what the source has output so far. */
static void
pair_pull (Pair * p)
{
  GstBuffer *out;

  while ((out = gst_harness_try_pull (p->hr))) {
    check_output (out);
    p->echoed += has_echo (out);
    gst_buffer_unref (out);
    p->pulled++;
  }
}

/* Packets @from to @to (1000 bytes, 100 per second); what the source
 * outputs meanwhile is pulled and checked. */
static void
pair_push (Pair * p, guint from, guint to)
{
  for (guint i = from; i < to; i++) {
    fail_unless_equals_int (gst_harness_push (p->hs, rtp_packet (i,
                i * 900)), GST_FLOW_OK);
    g_usleep (10 * 1000);
    take_rate_events (p->hs, &p->rate, &p->events);
    pair_pull (p);
  }
}

static void
pair_play (Pair * p)
{
  gst_harness_play (p->hr);
  gst_harness_set_src_caps_str (p->hs, RTP_CAPS);
  gst_harness_play (p->hs);
}

/* After @n packets were pushed: pulls until the sink holds none and the
 * source has output all it took in (30 s at most, a guard). */
static void
pair_drain (Pair * p, guint n)
{
  gint64 end;

  g_usleep (300 * 1000);
  take_rate_events (p->hs, &p->rate, &p->events);
  end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  do {
    pair_pull (p);
    if (check_stat_u64 (p->sink, "sent") +
        check_stat_u64 (p->sink, "queue-dropped") >= n &&
        p->pulled >= check_stat_u64 (p->src, "pushed"))
      break;
    g_usleep (10 * 1000);
  } while (g_get_monotonic_time () < end);
}

/* @n 1000-byte packets at 100 per second, the output checked. The sink
 * may still hold some at the end (its rate starts low, and a loaded host
 * delays its loop): they are pulled once sent, until the sink holds none
 * and the source has output every packet it took in (30 s at most, a
 * guard), so that the count does not depend on the host's speed. */
static void
pair_run (Pair * p, guint n)
{
  pair_play (p);
  pair_push (p, 0, n);
  pair_drain (p, n);
}

/* Every packet the sink sent came out of the source, checked: pulls for
 * those still on their way (10 s at most, a guard). */
static void
pair_check_all_out (Pair * p)
{
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  guint64 sent = check_stat_u64 (p->sink, "sent");

  for (pair_pull (p); p->pulled < sent && g_get_monotonic_time () < end;
      pair_pull (p))
    g_usleep (10 * 1000);
  fail_unless_equals_uint64 (p->pulled, sent);
}

static void
pair_clear (Pair * p)
{
  gst_object_unref (p->sink);
  gst_object_unref (p->src);
  gst_harness_teardown (p->hs);
  gst_harness_teardown (p->hr);
}

/* test_pair_leader_acks_rate_moves: at least this many packets, more (a
 * hundred at a time, up to the most) until the rate moved: a loaded host
 * delays the acks and the rate's climb with them. */
#define RATE_MOVES_PACKETS 300
#define RATE_MOVES_PACKETS_MAX 1500
#define RATE_MOVES_BITRATE 160000

GST_START_TEST (test_pair_leader_acks_rate_moves)
{
  Pair p;
  GstElement *sink, *src;
  GstBus *bus = gst_bus_new ();
  GstStructure *st;
  GstMessage *m;
  guint rate, events, pulled, leader, sink_leader, bitrate, n;
  const gchar *role;

  pair_init (&p, "239.255.91.1", "", "");
  sink = p.sink;
  src = p.src;
  gst_element_set_bus (sink, bus);
  /* 1000-byte packets at 100 per second, 3 s or more */
  pair_play (&p);
  pair_push (&p, 0, RATE_MOVES_PACKETS);
  for (n = RATE_MOVES_PACKETS; n < RATE_MOVES_PACKETS_MAX &&
      (p.events < 2 || p.rate <= RATE_MOVES_BITRATE); n += 100)
    pair_push (&p, n, n + 100);
  pair_drain (&p, n);
  rate = p.rate;
  events = p.events;
  pulled = p.pulled;

  g_object_get (src, "stats", &st, NULL);
  role = gst_structure_get_string (st, "role");
  fail_unless_equals_string (role, "leader");
  gst_structure_get_uint (st, "leader", &leader);
  fail_unless (check_stat_u64 (src, "acks-sent") > 200, "%" GST_PTR_FORMAT,
      st);
  fail_unless_equals_uint64 (check_stat_u64 (src, "starts"), 1);
  /* the START's hold: the sink's time from the probe's kernel stamp to
   * its answer, sound and taken out of the START's RTT */
  fail_unless (check_stat_u64 (src, "start-hold") < GST_SECOND);
  fail_unless_equals_uint64 (check_stat_u64 (src, "start-holds-invalid"), 0);
  check_stats_documented (src);
  gst_structure_free (st);
  g_object_get (sink, "stats", &st, NULL);
  gst_structure_get_uint (st, "leader", &sink_leader);
  fail_unless_equals_int (sink_leader, leader);
  fail_unless (check_stat_u64 (sink, "acked") > 200, "%" GST_PTR_FORMAT, st);
  fail_unless (check_stat_u64 (sink, "sent") >= n - n / 30, "%"
      GST_PTR_FORMAT, st);
  gst_structure_free (st);
  check_loop_ran_without_spins (sink);
  check_loop_ran_without_spins (src);
  fail_unless (pulled >= n - n / 6, "only %u of %u packets came out", pulled,
      n);
  pair_check_all_out (&p);
  /* the rate moved from the initial window over the initial RTT */
  fail_unless (events >= 2, "%u rate events in %u packets", events, n);
  fail_unless (rate > RATE_MOVES_BITRATE, "rate %u bit/s", rate);
  /* the notifying bitrate property an application binds to an encoder */
  g_object_get (sink, "bitrate", &bitrate, NULL);
  fail_unless (bitrate > RATE_MOVES_BITRATE && bitrate <= MAX (rate, bitrate),
      "bitrate %u bit/s", bitrate);
  /* counted by the sink: these and the proposals before the harness ran */
  fail_unless (check_stat_u64 (sink, "rate-events") >= events);
  m = pop_element_message (bus, "vlmcc-leader");
  fail_unless (m != NULL, "no vlmcc-leader message");
  gst_message_unref (m);
  /* without a key: no auth, nothing sealed */
  fail_unless_equals_uint64 (check_stat_u64 (sink, "auth-sealed") +
      check_stat_u64 (src, "auth-sealed"), 0);

  pair_clear (&p);
  gst_object_unref (bus);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* The group key */

#define HEX_KEY "00112233445566778899aabbccddeeff" \
  "00112233445566778899aabbccddeeff"
#define SRTP_KEY "000102030405060708090a0b0c0d0e0f" \
  "101112131415161718191a1b1c1d"
#define SRTP_OTHER_KEY "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff" \
  "e0e1e2e3e4e5e6e7e8e9eaebeced"

/* Whether the stats' @field, as text ("true", "leader"), is @want. */
static gboolean
stat_is (GstElement * e, const gchar * field, const gchar * want)
{
  GstStructure *s;
  const GValue *v;
  gchar *text;
  gboolean same;

  g_object_get (e, "stats", &s, NULL);
  v = gst_structure_get_value (s, field);
  text = v ? gst_value_serialize (v) : NULL;
  same = g_strcmp0 (text, want) == 0;
  g_free (text);
  gst_structure_free (s);
  return same;
}

/* With the same key the session runs as without: the source leads and acks, and
 * every control packet is sealed and opened. */
/* With challenge-echo on the sink every packet carries the echo, the
 * source plays leader as before; without it none does. */
GST_START_TEST (test_pair_challenge_echo)
{
  Pair p;

  pair_init (&p, "239.255.91.9", "challenge-echo=true", "");
  pair_run (&p, 150);
  fail_unless (stat_is (p.src, "role", "leader"));
  fail_unless (check_stat_u64 (p.sink, "acked") > 100);
  fail_unless (p.pulled >= 120, "only %u packets came out", p.pulled);
  pair_check_all_out (&p);
  fail_unless_equals_int (p.echoed, p.pulled);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "challenges-suppressed"),
      0);
  pair_clear (&p);

  pair_init (&p, "239.255.91.9", "", "");
  pair_run (&p, 50);
  fail_unless (p.pulled > 0);
  fail_unless_equals_int (p.echoed, 0);
  pair_clear (&p);
}

GST_END_TEST;

GST_START_TEST (test_keyed_pair)
{
  Pair p;

  pair_init (&p, "239.255.91.5", "key=" HEX_KEY, "key=" HEX_KEY);
  pair_run (&p, 150);
  fail_unless (stat_is (p.sink, "auth", "true"));
  fail_unless (stat_is (p.src, "auth", "true"));
  fail_unless (stat_is (p.src, "role", "leader"));
  fail_unless (check_stat_u64 (p.sink, "acked") > 100);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "starts"), 1);
  /* every ack and probe opened at the sink, the START at the source */
  fail_unless (check_stat_u64 (p.sink, "auth-accepted") >=
      check_stat_u64 (p.sink, "acked") + 1);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "auth-accepted"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (p.sink, "auth-sealed"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "auth-sealed"),
      check_stat_u64 (p.src, "acks-sent") +
      check_stat_u64 (p.src, "probes-sent"));
  fail_unless_equals_uint64 (check_stat_u64 (p.sink, "auth-bad-tag") +
      check_stat_u64 (p.src, "auth-bad-tag"), 0);
  fail_unless (p.pulled >= 120, "only %u packets came out", p.pulled);
  pair_check_all_out (&p);
  pair_clear (&p);
}

GST_END_TEST;

/* Under different keys (or a key on one side only) control fails, and
 * visibly: the sink counts the probes as bad tags (or as too short), never
 * answers them and has no leader; the media still flows, at the rate of
 * a session without feedback. */
GST_START_TEST (test_key_mismatch)
{
  const struct
  {
    const gchar *sink, *src, *field;
  } cases[] = {
    {"key=" HEX_KEY, "key=another-passphrase", "auth-bad-tag"},
    {"key=" HEX_KEY, "", "auth-bad-tag"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    Pair p;

    pair_init (&p, "239.255.91.6", cases[i].sink, cases[i].src);
    pair_run (&p, 150);
    fail_unless (check_stat_u64 (p.sink, cases[i].field) >= 1, "case %u", i);
    fail_unless_equals_uint64 (check_stat_u64 (p.sink, "probes"), 0);
    fail_unless_equals_uint64 (check_stat_u64 (p.sink, "leader-changes"), 0);
    fail_unless_equals_uint64 (check_stat_u64 (p.src, "starts"), 0);
    fail_unless (stat_is (p.src, "role", "none"), "case %u", i);
    fail_unless (check_stat_u64 (p.src, "probes-sent") >= 1);
    /* at the initial window over the initial RTT: 20 packets/s */
    fail_unless (p.pulled >= 10, "only %u packets came out", p.pulled);
    pair_clear (&p);
  }
}

GST_END_TEST;

/* `key` and `srtp-key` are write-only and never in the URI, on both
 * elements; as URI parameters they are taken (a keyed sink's stats say so
 * once started). */
GST_START_TEST (test_key_properties_and_uri)
{
  const gchar *factories[] = { "vlmccsink", "vlmccsrc" };

  for (guint i = 0; i < G_N_ELEMENTS (factories); i++) {
    GstElement *e = gst_element_factory_make (factories[i], NULL);
    GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        "key");
    GParamSpec *srtp = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        "srtp-key");
    gchar *uri;

    fail_if (ps == NULL || (ps->flags & G_PARAM_READABLE));
    fail_if (srtp == NULL || (srtp->flags & G_PARAM_READABLE));
    fail_unless (strstr (g_param_spec_get_blurb (ps), "acks and "
            "challenges") != NULL);
    fail_unless (strstr (g_param_spec_get_blurb (srtp), "data packet") !=
        NULL);
    fail_unless (stat_is (e, "srtp", "false"));
    fail_unless (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
            "vlmcc://239.3.3.9:5200?key=" HEX_KEY "&srtp-key=" SRTP_KEY
            "&packet-size=900", NULL));
    uri = gst_uri_handler_get_uri (GST_URI_HANDLER (e));
    fail_unless (g_strrstr (uri, "8899aabb") == NULL, "%s", uri);
    fail_unless (g_strrstr (uri, "0a0b0c0d") == NULL, "%s", uri);
    g_free (uri);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* Bad key settings (group and SRTP) fail the start with an error naming
 * the setting. */
GST_START_TEST (test_key_errors_clear)
{
  check_start_error ("vlmccsrc key=hunter2 ! fakesink", "key: a key is 64 "
      "hex digits or a passphrase of 10");
  check_start_error ("fakesrc ! vlmccsink key=" HEX_KEY " key-file=/tmp/k",
      "key and key-file are both set");
  check_start_error ("fakesrc ! vlmccsink key-file=/nonexistent/vlmcc.key",
      "key-file \"/nonexistent/vlmcc.key\":");
  check_start_error ("vlmccsrc srtp-key=00112233 ! fakesink", "srtp-key");
  check_start_error ("fakesrc ! vlmccsink srtp-key=00112233", "srtp-key");
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Bad control packets */

static GSocket *
loopback_socket (guint * port)
{
  GSocket *s = check_udp_socket_local (port);

  g_socket_set_timeout (s, 5);
  return s;
}

static void
send_bytes (GSocket * s, const guint8 * data, gsize len, GSocketAddress * to)
{
  fail_unless_equals_int (g_socket_send_to (s, to, (const gchar *) data, len,
          NULL, NULL), len);
}

/* The sink counts truncated and malformed feedback and acks from no
 * leader, and keeps sending. */
GST_START_TEST (test_sink_drops_bad_feedback)
{
  guint port = free_udp_port (), sock_port, tx_port;
  GSocket *sock = loopback_socket (&sock_port), *tx = loopback_socket
      (&tx_port);
  gchar *desc = g_strdup_printf ("address=239.255.91.2 port=%u "
      "multicast-iface=lo stats-interval=0", port);
  GstElement *sink = check_make_element ("vlmccsink", desc);
  GstHarness *h;
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *to = g_inet_socket_address_new (lo, sock_port);
  guint8 buf[VLMCC_MAX_PACKET];
  VlmccMsg ack = { 0 }, challenge = { 0 };
  gsize n;

  /* the application's socket: the test knows where feedback goes */
  g_object_set (sink, "socket", sock, NULL);
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  gst_harness_play (h);
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (1, 0)),
      GST_FLOW_OK);
  g_usleep (50 * 1000);

  ack.type = VLMCC_MSG_ACK;
  ack.id = 0x5151;
  n = vlmcc_msg_write (&ack, buf, sizeof (buf));
  fail_unless_equals_int (n, VLMCC_ACK_SIZE);
  send_bytes (tx, buf, n - 3, to);      /* truncated */
  send_bytes (tx, (const guint8 *) "not a VLMCC packet at all", 25, to);
  send_bytes (tx, buf, n, to);  /* an ack while there is no leader */
  challenge.type = VLMCC_MSG_CHALLENGE;
  challenge.id = 0x6262;
  n = vlmcc_msg_write (&challenge, buf, sizeof (buf));
  buf[1] = 200;                 /* an SR's packet type, not APP */
  send_bytes (tx, buf, n, to);
  /* one socket, taken in order: the last is the third malformed */
  check_stat_u64_reaches (sink, "malformed", 3, 10);

  fail_unless_equals_uint64 (check_stat_u64 (sink, "malformed"), 3);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "forged") +
      check_stat_u64 (sink, "stale"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "challenges-accepted"),
      0);
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (2, 900)),
      GST_FLOW_OK);
  check_stat_u64_reaches (sink, "sent", 2, 10);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "sent"), 2);

  gst_harness_teardown (h);
  gst_object_unref (sink);
  g_object_unref (to);
  g_object_unref (lo);
  g_object_unref (tx);
  g_object_unref (sock);
  g_free (desc);
}

GST_END_TEST;

/* The test's sender to @group on lo, from an ephemeral port. */
static GstNetUdp *
group_sender (const gchar * group)
{
  GstNetUdpSettings s = GST_NET_UDP_SETTINGS_INIT;
  GError *err = NULL;
  GstNetUdp *udp;

  s.address = group;
  s.multicast_iface = "lo";
  s.join_later = TRUE;
  udp = gst_net_udp_new (&s, G_SOCKET_FAMILY_IPV4, &err);
  fail_unless (udp != NULL, "%s", err ? err->message : "");
  g_socket_set_blocking (gst_net_udp_get_socket (udp), TRUE);
  g_socket_set_timeout (gst_net_udp_get_socket (udp), 5);
  return udp;
}

/* The test plays the sender with the real core: its data reaches the
 * source, whose probe tells the test where the source's feedback socket
 * is; forged and truncated STARTs and junk data are then counted and
 * dropped, and a real START makes the source a member. */
GST_START_TEST (test_src_drops_bad_control)
{
  guint port = free_udp_port ();
  GstNetUdp *udp = group_sender ("239.255.91.3");
  GSocket *tx = gst_net_udp_get_socket (udp);
  gchar *desc = g_strdup_printf ("vlmccsrc address=239.255.91.3 port=%u "
      "multicast-iface=lo stats-interval=0", port);
  GstHarness *h = gst_harness_new_parse (desc);
  GstElement *src = gst_harness_find_element (h, "vlmccsrc");
  GInetAddress *group = g_inet_address_new_from_string ("239.255.91.3");
  GSocketAddress *to_group = g_inet_socket_address_new (group, port);
  GSocketAddress *from = NULL;
  RandomSeeded seed;
  RandomSource rng;
  VlmccConfig cfg;
  VlmccSender *core;
  VlmccMsg probe, start = { 0 };
  VlmccAddr addr;
  guint8 buf[2048], pkt[2048];
  gssize got = 0;
  gsize n;
  GstMapInfo map;
  GstBuffer *b;
  const gchar *role;
  GstStructure *st;

  gst_harness_play (h);
  vlmcc_config_init (&cfg);
  random_source_init_seeded (&rng, &seed, 7);
  core = vlmcc_sender_new (&cfg, 0x1234abcd, &rng, 0);
  b = rtp_packet (1, 0);
  gst_buffer_map (b, &map, GST_MAP_READ);
  fail_unless (vlmcc_sender_push (core, map.data, map.size, 0));
  gst_buffer_unmap (b, &map);
  gst_buffer_unref (b);
  n = vlmcc_sender_pop_transmit (core, pkt, sizeof (pkt), &addr);
  fail_unless (n > 0 && addr.len == 0);

  /* junk to the group: counted before the core starts, never output */
  send_bytes (tx, (const guint8 *) "junk", 4, to_group);
  send_bytes (tx, pkt, n, to_group);
  while (got <= 0 || !vlmcc_msg_parse (buf, got, &probe)) {
    g_clear_object (&from);
    got = g_socket_receive_from (tx, &from, (gchar *) buf, sizeof (buf),
        NULL, NULL);
    fail_unless (got > 0, "no probe from vlmccsrc");
  }
  fail_unless (probe.type == VLMCC_MSG_CHALLENGE && probe.probe);

  start.type = VLMCC_MSG_START;
  start.id = 0x1234abcd;
  start.target = probe.id ^ 1;  /* another receiver's */
  start.tstamp = probe.tstamp;
  start.win = 2 * 256;
  n = vlmcc_msg_write (&start, buf, sizeof (buf));
  send_bytes (tx, buf, n, from);
  send_bytes (tx, buf, n - 4, from);    /* truncated */
  start.target = probe.id;
  start.tstamp = probe.tstamp - 3600u * 1000000u;   /* no probe of ours */
  n = vlmcc_msg_write (&start, buf, sizeof (buf));
  send_bytes (tx, buf, n, from);
  check_stat_u64_reaches (src, "forged", 2, 10);
  check_stat_u64_reaches (src, "malformed", 2, 10);
  fail_unless_equals_uint64 (check_stat_u64 (src, "forged"), 2);
  fail_unless_equals_uint64 (check_stat_u64 (src, "malformed"), 2);
  g_object_get (src, "stats", &st, NULL);
  role = gst_structure_get_string (st, "role");
  fail_unless_equals_string (role, "none");
  gst_structure_free (st);

  /* the answer to the probe (its tstamp echoed) makes it a follower */
  start.tstamp = probe.tstamp;
  start.leader = 0x77;
  n = vlmcc_msg_write (&start, buf, sizeof (buf));
  send_bytes (tx, buf, n, from);
  check_stat_u64_reaches (src, "starts", 1, 10);
  g_object_get (src, "stats", &st, NULL);
  role = gst_structure_get_string (st, "role");
  fail_unless_equals_string (role, "follower");
  gst_structure_free (st);
  fail_unless_equals_uint64 (check_stat_u64 (src, "starts"), 1);
  /* the one data packet came out, the junk did not */
  b = gst_harness_pull (h);
  check_output (b);
  gst_buffer_unref (b);
  fail_unless_equals_uint64 (check_stat_u64 (src, "pushed"), 1);

  vlmcc_sender_free (core);
  gst_object_unref (src);
  gst_harness_teardown (h);
  g_clear_object (&from);
  g_object_unref (to_group);
  g_object_unref (group);
  g_object_unref (udp);
  g_free (desc);
}

GST_END_TEST;

/* The test as a sender with the real core, on the real clock: it answers
 * the source's probe and sends paced, stamped data. */
typedef struct
{
  GstNetUdp *udp;
  GSocketAddress *group;
  RandomSeeded seed;
  RandomSource rng;
  VlmccSender *core;
  guint16 seq;
} TestSender;

static void
test_sender_init (TestSender * ts, const gchar * group, guint port)
{
  GInetAddress *ia = g_inet_address_new_from_string (group);
  VlmccConfig cfg;

  ts->udp = group_sender (group);
  ts->group = g_inet_socket_address_new (ia, port);
  g_object_unref (ia);
  vlmcc_config_init (&cfg);
  random_source_init_seeded (&ts->rng, &ts->seed, 11);
  ts->core = vlmcc_sender_new (&cfg, 0x1234abcd, &ts->rng,
      g_get_monotonic_time () * 1000);
  ts->seq = 0;
}

static void
test_sender_clear (TestSender * ts)
{
  vlmcc_sender_free (ts->core);
  g_object_unref (ts->group);
  g_object_unref (ts->udp);
}

/* One step: feedback in, one more packet queued, what is due out. */
static void
test_sender_step (TestSender * ts)
{
  GSocket *s = gst_net_udp_get_socket (ts->udp);
  gint64 now = g_get_monotonic_time () * 1000;
  guint8 buf[2048];
  GSocketAddress *from = NULL, *to;
  GstMapInfo map;
  GstBuffer *b;
  VlmccAddr addr;
  gssize got;
  gsize n;

  g_socket_set_blocking (s, FALSE);
  while ((got = g_socket_receive_from (s, &from, (gchar *) buf, sizeof (buf),
              NULL, NULL)) > 0) {
    addr.len = g_socket_address_get_native_size (from);
    memset (addr.bytes, 0, sizeof (addr.bytes));
    g_socket_address_to_native (from, addr.bytes, addr.len, NULL);
    vlmcc_sender_on_feedback (ts->core, buf, got, &addr, now);
    g_clear_object (&from);
  }
  b = rtp_packet (ts->seq, ts->seq * 900);
  ts->seq++;
  gst_buffer_map (b, &map, GST_MAP_READ);
  vlmcc_sender_push (ts->core, map.data, map.size, now);
  gst_buffer_unmap (b, &map);
  gst_buffer_unref (b);
  vlmcc_sender_advance (ts->core, now);
  while ((n = vlmcc_sender_pop_transmit (ts->core, buf, sizeof (buf), &addr))) {
    to = addr.len ? g_socket_address_new_from_native (addr.bytes, addr.len)
        : g_object_ref (ts->group);
    g_socket_send_to (s, to, (const gchar *) buf, n, NULL, NULL);
    g_object_unref (to);
  }
}

/* A receiver whose own rate stays under the floor (here any rate: the
 * floor is 100 Gbit/s) for leave-time leaves: it says so on the bus,
 * ends its stream with EOS and takes nothing more. */
GST_START_TEST (test_src_below_floor_leaves)
{
  guint port = free_udp_port ();
  gchar *desc = g_strdup_printf ("vlmccsrc address=239.255.91.4 port=%u "
      "multicast-iface=lo stats-interval=0 rate-floor=100000000000 "
      "leave-time=300000000", port);
  GstHarness *h = gst_harness_new_parse (desc);
  GstElement *src = gst_harness_find_element (h, "vlmccsrc");
  GstBus *bus = gst_bus_new ();
  gboolean eos = FALSE;
  TestSender ts;
  GstStructure *st;
  GstMessage *m;
  guint64 received;

  gst_element_set_bus (src, bus);
  test_sender_init (&ts, "239.255.91.4", port);
  gst_harness_play (h);
  for (guint i = 0; i < 200 && !eos; i++) {
    GstEvent *ev;
    GstBuffer *b;

    test_sender_step (&ts);
    g_usleep (5000);
    while ((b = gst_harness_try_pull (h)))
      gst_buffer_unref (b);
    while ((ev = gst_harness_try_pull_event (h))) {
      eos |= GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
      gst_event_unref (ev);
    }
  }
  fail_unless (eos, "no EOS after leaving");
  m = pop_element_message (bus, "vlmcc-left");
  fail_unless (m != NULL, "no vlmcc-left message");
  gst_message_unref (m);
  g_object_get (src, "stats", &st, NULL);
  fail_unless_equals_string (gst_structure_get_string (st, "role"), "left");
  gst_structure_free (st);
  fail_unless_equals_uint64 (check_stat_u64 (src, "join-errors"), 0);
  /* what arrives after the leave is not taken */
  received = check_stat_u64 (src, "received");
  for (guint i = 0; i < 20; i++) {
    test_sender_step (&ts);
    g_usleep (5000);
  }
  fail_unless_equals_uint64 (check_stat_u64 (src, "received"), received);

  test_sender_clear (&ts);
  /* the teardown's messages would stay on the bus, holding the element */
  gst_element_set_bus (src, NULL);
  gst_object_unref (src);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  g_free (desc);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* SRTP */

/* With the same SRTP key the session runs as without: every data packet
 * leaves protected and comes out whole, extension and payload (checked),
 * and the feedback that the extension drives still flows. */
GST_START_TEST (test_srtp_pair)
{
  Pair p;
  guint64 sent;

  pair_init (&p, "239.255.91.7", "srtp-key=" SRTP_KEY,
      "srtp-key=" SRTP_KEY);
  pair_run (&p, 150);
  fail_unless (stat_is (p.sink, "srtp", "true"));
  fail_unless (stat_is (p.src, "srtp", "true"));
  sent = check_stat_u64 (p.sink, "sent");
  fail_unless (sent >= 140, "only %" G_GUINT64_FORMAT " sent", sent);
  fail_unless_equals_uint64 (check_stat_u64 (p.sink, "srtp-protected"),
      sent);
  fail_unless_equals_uint64 (check_stat_u64 (p.sink, "srtp-protect-failed"),
      0);
  /* as many packets out as test_keyed_pair's plain session gives */
  fail_unless (p.pulled >= 120, "only %u packets came out", p.pulled);
  pair_check_all_out (&p);
  fail_unless (check_stat_u64 (p.src, "srtp-accepted") >= p.pulled);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "srtp-auth-failed") +
      check_stat_u64 (p.src, "srtp-replayed") +
      check_stat_u64 (p.src, "srtp-malformed"), 0);
  /* the control stays plain RTCP: the source leads, the sink sees acks */
  fail_unless (stat_is (p.src, "role", "leader"));
  fail_unless (check_stat_u64 (p.sink, "acked") > 100);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "starts"), 1);
  pair_clear (&p);
}

GST_END_TEST;

/* A source under another SRTP key outputs nothing: every data packet fails
 * its tag, is counted and never reaches the core, which never starts (no
 * probe, no role). */
GST_START_TEST (test_srtp_key_mismatch)
{
  Pair p;

  pair_init (&p, "239.255.91.8", "srtp-key=" SRTP_KEY,
      "srtp-key=" SRTP_OTHER_KEY);
  pair_run (&p, 100);
  fail_unless (check_stat_u64 (p.sink, "srtp-protected") >= 1);
  fail_unless_equals_int (p.pulled, 0);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "pushed"), 0);
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "srtp-accepted"), 0);
  fail_unless (check_stat_u64 (p.src, "srtp-auth-failed") >=
      check_stat_u64 (p.sink, "srtp-protected") / 2,
      "%" G_GUINT64_FORMAT " auth failures",
      check_stat_u64 (p.src, "srtp-auth-failed"));
  fail_unless (stat_is (p.src, "role", "none"));
  fail_unless_equals_uint64 (check_stat_u64 (p.src, "probes-sent"), 0);
  fail_unless_equals_uint64 (check_stat_u64 (p.sink, "probes"), 0);
  pair_clear (&p);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Stamps taken as the packets leave */

/* The sink's loop, held in a sync handler of its stats message: the
 * streaming thread pushes meanwhile. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean hold, holding, release;
} LoopHold;

static GstBusSyncReply
hold_loop (GstBus * bus, GstMessage * m, gpointer user_data)
{
  LoopHold *lh = user_data;

  g_mutex_lock (&lh->lock);
  if (lh->hold && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT) {
    gint64 give_up = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;

    lh->hold = FALSE;
    lh->holding = TRUE;
    g_cond_broadcast (&lh->cond);
    /* held until the test lets go, however late it is scheduled */
    while (!lh->release)
      if (!g_cond_wait_until (&lh->cond, &lh->lock, give_up))
        break;
    lh->holding = FALSE;
  }
  g_mutex_unlock (&lh->lock);
  return GST_BUS_DROP;
}

/* The time in a data packet from the group, µs (its tstamp), and when it
 * was read, on gst_net_now ()'s clock. */
static guint32
read_tstamp (GSocket * s, gint64 * read_at)
{
  guint8 buf[2048];
  gssize n = g_socket_receive (s, (gchar *) buf, sizeof (buf), NULL, NULL);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstBuffer *b;
  gpointer ext;
  guint size;
  guint32 tstamp;

  *read_at = gst_net_now ();
  fail_unless (n > 0);
  b = gst_buffer_new_memdup (buf, n);
  fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
  fail_unless (gst_rtp_buffer_get_extension_onebyte_header (&rtp, 7, 0, &ext,
          &size));
  /* seq (16), leader (32), tstamp (32) */
  /* the element's offset is odd: no 32-bit load from it (UBSan) */
  memcpy (&tstamp, (guint8 *) ext + 6, sizeof (tstamp));
  tstamp = GUINT32_FROM_BE (tstamp);
  gst_rtp_buffer_unmap (&rtp);
  gst_buffer_unref (b);
  return tstamp;
}

/* A packet pushed while the sink's loop cannot run (a loaded host: its
 * thread not scheduled for 80 ms) leaves when the loop runs again, and
 * carries that time: stamped when pushed, every RTT and one-way delay
 * measured from it would hold the wait, which VLMCC's Vegas takes for a
 * queue and a follower anchors its RTT on (the base RTT 5.7 to 13 ms
 * under the 20 ms path on the loaded namespace bed, docs/results.md,
 * "VLMCC: stamps under load"). */
GST_START_TEST (test_sink_stamps_as_sent)
{
  guint port = free_udp_port ();
  gchar *desc = g_strdup_printf ("vlmccsink address=239.255.91.7 port=%u "
      "multicast-iface=lo stats-interval=20000000", port);
  GstHarness *h = gst_harness_new_parse (desc);
  GstElement *sink = gst_harness_find_element (h, "vlmccsink");
  GstBus *bus = gst_bus_new ();
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *group = g_inet_address_new_from_string ("239.255.91.7");
  GSocketAddress *bind = g_inet_socket_address_new (group, port);
  LoopHold lh = { 0 };
  gint64 pushed, read_at;
  guint32 tstamp, late_us;

  g_free (desc);
  g_socket_set_timeout (s, 5);
  fail_unless (g_socket_bind (s, bind, TRUE, NULL));
  fail_unless (g_socket_join_multicast_group (s, group, FALSE, "lo", NULL));
  g_mutex_init (&lh.lock);
  g_cond_init (&lh.cond);
  gst_bus_set_sync_handler (bus, hold_loop, &lh, NULL);
  gst_element_set_bus (sink, bus);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  gst_harness_play (h);
  /* the first packet starts the core */
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (0, 0)),
      GST_FLOW_OK);
  read_tstamp (s, &read_at);
  /* past the pacing gap: the next packet may leave as soon as it comes */
  g_usleep (600 * 1000);

  g_mutex_lock (&lh.lock);
  lh.hold = TRUE;
  while (!lh.holding)
    g_cond_wait (&lh.cond, &lh.lock);
  g_mutex_unlock (&lh.lock);
  pushed = gst_net_now ();
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (1, 900)),
      GST_FLOW_OK);
  g_usleep (80 * 1000);
  g_mutex_lock (&lh.lock);
  lh.release = TRUE;
  g_cond_broadcast (&lh.cond);
  g_mutex_unlock (&lh.lock);
  tstamp = read_tstamp (s, &read_at);
  late_us = (guint32) (read_at / 1000) - tstamp;
  GST_INFO ("read %" G_GINT64_FORMAT " us after the push, %u us after its "
      "stamp", (read_at - pushed) / 1000, late_us);
  fail_unless (read_at - pushed >= 50 * MS, "read %" G_GINT64_FORMAT
      " us after the push: the loop was not held", (read_at - pushed) / 1000);
  /* stamped at the push it would be 80 ms or more; the slack is for a
   * loaded host's scheduling of the reader */
  fail_unless (late_us <= 40 * 1000, "read %u us after its stamp", late_us);

  gst_element_set_bus (sink, NULL);
  gst_object_unref (sink);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  g_object_unref (bind);
  g_object_unref (group);
  g_object_unref (s);
  g_mutex_clear (&lh.lock);
  g_cond_clear (&lh.cond);
}

GST_END_TEST;

/* A probe that reaches the sink while its loop cannot run (held 80 ms):
 * the START that answers it reports the time from the probe's kernel
 * stamp, so the prober takes the wait out of its RTT (docs/protocols/
 * vlmcc.md, "START hold"). */
GST_START_TEST (test_sink_start_reports_hold)
{
  guint port = free_udp_port ();
  gchar *desc = g_strdup_printf ("vlmccsink address=239.255.91.8 port=%u "
      "multicast-iface=lo stats-interval=20000000", port);
  GstHarness *h = gst_harness_new_parse (desc);
  GstElement *sink = gst_harness_find_element (h, "vlmccsink");
  GstBus *bus = gst_bus_new ();
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GSocket *prober = g_socket_new (G_SOCKET_FAMILY_IPV4,
      G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *group = g_inet_address_new_from_string ("239.255.91.8");
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *bind = g_inet_socket_address_new (group, port);
  GSocketAddress *any = g_inet_socket_address_new (lo, 0);
  GSocketAddress *from = NULL, *to;
  LoopHold lh = { 0 };
  VlmccMsg probe = { 0 }, start;
  guint8 buf[2048];
  gssize n;
  gint64 sent, answered;

  g_free (desc);
  g_socket_set_timeout (s, 5);
  g_socket_set_timeout (prober, 5);
  fail_unless (g_socket_bind (s, bind, TRUE, NULL));
  fail_unless (g_socket_join_multicast_group (s, group, FALSE, "lo", NULL));
  fail_unless (g_socket_bind (prober, any, FALSE, NULL));
  g_mutex_init (&lh.lock);
  g_cond_init (&lh.cond);
  gst_bus_set_sync_handler (bus, hold_loop, &lh, NULL);
  gst_element_set_bus (sink, bus);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  gst_harness_play (h);
  /* the first packet starts the core; it comes from the feedback port */
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (0, 0)),
      GST_FLOW_OK);
  fail_unless (g_socket_receive_from (s, &from, (gchar *) buf, sizeof (buf),
          NULL, NULL) > 0);
  to = g_inet_socket_address_new (lo,
      g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (from)));

  g_mutex_lock (&lh.lock);
  lh.hold = TRUE;
  while (!lh.holding)
    g_cond_wait (&lh.cond, &lh.lock);
  g_mutex_unlock (&lh.lock);
  probe.type = VLMCC_MSG_CHALLENGE;
  probe.id = 0x1234;
  probe.probe = TRUE;
  n = vlmcc_msg_write (&probe, buf, sizeof (buf));
  sent = gst_net_now ();
  fail_unless (g_socket_send_to (prober, to, (gchar *) buf, n, NULL,
          NULL) == n);
  g_usleep (80 * 1000);
  g_mutex_lock (&lh.lock);
  lh.release = TRUE;
  g_cond_broadcast (&lh.cond);
  g_mutex_unlock (&lh.lock);
  n = g_socket_receive (prober, (gchar *) buf, sizeof (buf), NULL, NULL);
  answered = gst_net_now ();
  fail_unless (vlmcc_msg_parse (buf, n, &start));
  fail_unless_equals_int (start.type, VLMCC_MSG_START);
  fail_unless_equals_int (start.target, 0x1234);
  GST_INFO ("hold %u us, answered %" G_GINT64_FORMAT " us after the probe",
      start.hold, (answered - sent) / 1000);
  /* the loop was held 80 ms (50 ms: a loaded host's slack), and the hold
   * cannot be longer than the exchange */
  fail_unless (start.hold >= 50 * 1000, "hold %u us", start.hold);
  fail_unless (start.hold <= (answered - sent) / 1000, "hold %u us, "
      "exchange %" G_GINT64_FORMAT " us", start.hold, (answered - sent) /
      1000);

  gst_element_set_bus (sink, NULL);
  gst_object_unref (sink);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  g_object_unref (bind);
  g_object_unref (any);
  g_object_unref (from);
  g_object_unref (to);
  g_object_unref (group);
  g_object_unref (lo);
  g_object_unref (s);
  g_object_unref (prober);
  g_mutex_clear (&lh.lock);
  g_cond_clear (&lh.cond);
}

GST_END_TEST;

/* A source's stats after its stop count every turn its loop ran, also
 * those after the work last took the counts. */
GST_START_TEST (test_loop_turns_final_at_stop)
{
  GstElement *src = check_make_element ("vlmccsrc", "address=239.255.91.12 "
      "multicast-iface=lo");

  g_object_set (src, "port", free_udp_port (), NULL);
  check_src_loop_turns_final (src, GST_STATE_PAUSED);
}

GST_END_TEST;

static Suite *
vlmcc_suite (void)
{
  Suite *s = suite_create ("vlmcc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_defaults_and_units);
  tcase_add_test (tc, test_uri_round_trip_and_errors);
  tcase_add_test (tc, test_start_errors_clear);
  tcase_add_test (tc, test_pair_challenge_echo);
  tcase_add_test (tc, test_pair_leader_acks_rate_moves);
  tcase_add_test (tc, test_sink_stamps_as_sent);
  tcase_add_test (tc, test_sink_start_reports_hold);
  tcase_add_test (tc, test_sink_drops_bad_feedback);
  tcase_add_test (tc, test_keyed_pair);
  tcase_add_test (tc, test_key_mismatch);
  tcase_add_test (tc, test_key_properties_and_uri);
  tcase_add_test (tc, test_key_errors_clear);
  tcase_add_test (tc, test_src_drops_bad_control);
  tcase_add_test (tc, test_src_below_floor_leaves);
  tcase_add_test (tc, test_srtp_pair);
  tcase_add_test (tc, test_srtp_key_mismatch);
  tcase_add_test (tc, test_loop_turns_final_at_stop);
  return s;
}

GST_CHECK_MAIN (vlmcc);
