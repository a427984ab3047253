/* rmtp-emu: the RMTP receiver emulator (the paper's Lares, section 4, with
 * the whole receiver protocol). One process runs N RmtpReceiver cores
 * against a real rmtpsink over real UDP. Each multicast datagram is read
 * once from one socket and handed to every core, each with its own seeded
 * random loss; each core answers from a UDP socket of its own, so the
 * server sees N distinct addresses. The sink runs in this process (its
 * own threads, its own socket), so its counters are read directly.
 *
 * Usage: rmtp-emu [--receivers=N] [--loss=P] [--size=BYTES] [--rate=BIT/S]
 *   [--seed=S] [--group=ADDR] [--port=PORT] [--timeout=SECONDS]
 *   [--stall=AT:SECONDS] [--parity=BLOCK] [--sink=PROPS] [--sim] [--sim-only]
 * Prints one table row (docs/protocols/rmtp.md, Emulator); --sim adds the
 * simulator's row at the same N, loss, size and rate, --sim-only prints
 * just that row. --stall stops the cores (not the sink) for SECONDS from
 * AT s after the start, as a loaded machine does. --sink sets more
 * rmtpsink properties ("delta=500000 recv-buffer-size=212992"). --parity
 * repairs by parity over blocks of BLOCK data packets, in the sink and in
 * the simulator's row (0, the default: retransmission). Exits 0 only if every
 * core verified the data set, the server counts every member complete
 * and it dropped no response.
 *
 * The group must be routable on loopback: run it in a network namespace
 * (tests/emu/run-rmtp-emu.sh sets one up). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <gst/gst.h>

#include "rmtpcore.h"
#include "rmtpsim.h"
#include "gstnetsocket.h"
#include "gstnetudp.h"
#include "gstnettime.h"

#define EMU_GROUP_INDEX G_MAXUINT32
#define EMU_MAX_DATAGRAM 65536
#define EMU_GROUP_BUFFER (16 * 1024 * 1024)

typedef struct
{
  guint n;
  gdouble loss;
  guint64 size;
  guint64 rate;
  guint64 seed;
  const gchar *group;
  const gchar *sink_props;      /* more rmtpsink properties, or "" */
  guint port;
  guint timeout_s;
  guint parity_block;           /* repair=parity over blocks this long;
                                 * 0: retransmission */
  gdouble stall_at, stall_s;    /* the cores' loop stops then, this long */
  gboolean sim;
  gboolean sim_only;
} EmuOptions;

typedef struct
{
  guint32 member;
  RmtpReceiver *core;
  RandomSeeded backoff_state;
  RandomSource backoff;
  RandomSeeded loss_state;
  RandomSource loss;
  GstNetUdp *udp;
  gint64 deadline;
  guint64 delivered;            /* bytes of DATA events, in order */
  gboolean out_of_order;
  gboolean done;
  gboolean failed;
  gint64 cack_at;               /* its last CACK left, ns (0: none) */
} EmuReceiver;

typedef struct
{
  EmuOptions opt;
  EmuReceiver *rx;
  GstNetUdp *group_udp;
  GSocketAddress *server;
  gint epfd;
  guint8 digest[RMTP_DIGEST_SIZE];
  guint finished;               /* cores DONE or FAILED */
  guint64 responses_sent, send_errors;
  /* the most responses the cores sent within one ms of their clock: an
   * implosion the backoff failed to prevent shows here, whether or not
   * the sink's socket held it */
  gint64 burst_ms;
  guint burst, max_burst;
  guint64 group_datagrams, losses_injected;
  gint64 last_done;
  gint64 start;
  guint64 cacks_sent;
  /* the loop's own delays: a core's timer fired this long after its
   * deadline, and one group datagram took this long to hand to every core
   * (a parity block decoded by all N cores shows there) */
  gint64 max_timer_lag, max_fanout;
  guint64 timers_late;          /* fired over a turn-around (100 ms) late */
} Emu;

typedef struct
{
  guint64 data_sent, data_resent, unicast_data, polls, responses;
  guint64 late, duplicates, forged, malformed, out_of_window;
  guint rounds, max_per_round, slow, taken_back, gone_complete;
  guint64 gone_rel_sent;
  guint complete;               /* members the server counts complete */
  guint64 conn_sent;            /* CONNs, group copies and retries */
  guint64 parity_sent, empty_rounds;
} SinkCounters;

/* ------------------------------------------------------------------ */
/* The cores */

static void
emu_take_events (Emu * emu, EmuReceiver * r, gint64 now)
{
  RmtpEvent ev;

  while (rmtp_receiver_poll_event (r->core, &ev)) {
    if (ev.type == RMTP_EVENT_DATA) {
      if (ev.offset != r->delivered)
        r->out_of_order = TRUE;
      r->delivered += g_bytes_get_size (ev.data);
      g_bytes_unref (ev.data);
    } else if (ev.type == RMTP_EVENT_DONE && !r->done && !r->failed) {
      r->done = TRUE;
      emu->finished++;
      emu->last_done = now;
    } else if (ev.type == RMTP_EVENT_FAILED && !r->done && !r->failed) {
      r->failed = TRUE;
      emu->finished++;
      g_printerr ("member %u failed: reason %d\n", r->member, ev.reason);
    }
  }
}

static void
emu_count_burst (Emu * emu, gint64 now)
{
  gint64 ms = now / GST_MSECOND;

  if (ms != emu->burst_ms) {
    emu->burst_ms = ms;
    emu->burst = 0;
  }
  emu->max_burst = MAX (emu->max_burst, ++emu->burst);
}

/* Sends what the core has to say from its own socket, takes its events
 * and notes its next deadline. */
static void
emu_flush (Emu * emu, EmuReceiver * r, gint64 now)
{
  RmtpDatagram d;

  while (rmtp_receiver_poll_datagram (r->core, &d)) {
    gsize len;
    const guint8 *b = g_bytes_get_data (d.bytes, &len);

    if (emu->server && gst_net_transport_send_to (GST_NET_TRANSPORT (r->udp),
            b, len, emu->server, NULL)) {
      emu->responses_sent++;
      emu_count_burst (emu, now);
      if (len > 3 && b[3] == RMTP_CACK) {
        r->cack_at = now;
        emu->cacks_sent++;
      }
    } else
      emu->send_errors++;
    g_bytes_unref (d.bytes);
  }
  emu_take_events (emu, r, now);
  r->deadline = rmtp_receiver_next_deadline (r->core);
}

static gboolean
emu_lost (Emu * emu, EmuReceiver * r)
{
  if (emu->opt.loss <= 0.0 || random_source_double (&r->loss) >= emu->opt.loss)
    return FALSE;
  emu->losses_injected++;
  return TRUE;
}

static void
emu_deliver (Emu * emu, EmuReceiver * r, GBytes * bytes, gint64 now)
{
  if (emu_lost (emu, r))
    return;
  rmtp_receiver_handle_bytes (r->core, bytes, now);
  emu_flush (emu, r, now);
}

static void
emu_run_timers (Emu * emu, gint64 now)
{
  for (guint i = 0; i < emu->opt.n; i++) {
    EmuReceiver *r = &emu->rx[i];

    if (r->deadline > now)
      continue;
    emu->max_timer_lag = MAX (emu->max_timer_lag, now - r->deadline);
    if (now - r->deadline > 100 * GST_MSECOND)
      emu->timers_late++;
    rmtp_receiver_handle_timeout (r->core, now);
    emu_flush (emu, r, now);
  }
}

static gint64
emu_next_deadline (Emu * emu)
{
  gint64 next = G_MAXINT64;

  for (guint i = 0; i < emu->opt.n; i++)
    next = MIN (next, emu->rx[i].deadline);
  return next;
}

/* ------------------------------------------------------------------ */
/* Sockets */

static GstNetUdp *
emu_udp_new (const gchar * address, guint port, gint buffer_size)
{
  GstNetUdpSettings s = GST_NET_UDP_SETTINGS_INIT;
  GError *err = NULL;
  GstNetUdp *udp;

  s.address = address;
  s.port = port;
  s.buffer_size = buffer_size;
  udp = gst_net_udp_new (&s, G_SOCKET_FAMILY_IPV4, &err);
  if (!udp) {
    g_printerr ("socket %s:%u: %s\n", address, port, err->message);
    g_clear_error (&err);
  }
  return udp;
}

static gboolean
emu_watch (Emu * emu, GstNetUdp * udp, guint32 index)
{
  struct epoll_event ev = { .events = EPOLLIN, .data.u32 = index };
  gint fd = g_socket_get_fd (gst_net_udp_get_socket (udp));

  g_socket_set_blocking (gst_net_udp_get_socket (udp), FALSE);
  return epoll_ctl (emu->epfd, EPOLL_CTL_ADD, fd, &ev) == 0;
}

/* A descriptor per core, the group's, the sink's and a margin. */
static gboolean
emu_raise_file_limit (guint n)
{
  struct rlimit rl;
  rlim_t want = (rlim_t) n + 256;

  if (getrlimit (RLIMIT_NOFILE, &rl) != 0)
    return FALSE;
  if (rl.rlim_cur >= want)
    return TRUE;
  rl.rlim_cur = MIN (want, rl.rlim_max);
  return setrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur >= want;
}

static gboolean
emu_setup (Emu * emu)
{
  RmtpConfig cfg;

  emu->epfd = epoll_create1 (EPOLL_CLOEXEC);
  emu->group_udp = emu_udp_new (emu->opt.group, emu->opt.port,
      EMU_GROUP_BUFFER);
  if (emu->epfd < 0 || !emu->group_udp
      || !emu_watch (emu, emu->group_udp, EMU_GROUP_INDEX))
    return FALSE;
  rmtp_config_init (&cfg);
  emu->rx = g_new0 (EmuReceiver, emu->opt.n);
  for (guint i = 0; i < emu->opt.n; i++) {
    EmuReceiver *r = &emu->rx[i];

    r->member = i + 1;
    random_source_init_seeded (&r->backoff, &r->backoff_state,
        emu->opt.seed * 2654435761u + r->member);
    random_source_init_seeded (&r->loss, &r->loss_state,
        (emu->opt.seed ^ 0x5eed) * 40503u + r->member * 7919u);
    r->core = rmtp_receiver_new (&cfg, r->member, TRUE, &r->backoff);
    r->deadline = rmtp_receiver_next_deadline (r->core);
    r->udp = emu_udp_new ("127.0.0.1", 0, 0);
    if (!r->udp || !emu_watch (emu, r->udp, i))
      return FALSE;
  }
  return TRUE;
}

static void
emu_teardown (Emu * emu)
{
  for (guint i = 0; emu->rx && i < emu->opt.n; i++) {
    g_clear_pointer (&emu->rx[i].core, rmtp_receiver_free);
    g_clear_object (&emu->rx[i].udp);
  }
  g_free (emu->rx);
  g_clear_object (&emu->group_udp);
  g_clear_object (&emu->server);
  if (emu->epfd >= 0)
    close (emu->epfd);
}

/* Reads every datagram waiting on @udp; the group's go to every core. */
static void
emu_drain (Emu * emu, GstNetUdp * udp, guint32 index)
{
  static guint8 buf[EMU_MAX_DATAGRAM];
  GSocket *sock = gst_net_udp_get_socket (udp);

  for (;;) {
    GSocketAddress *from = NULL;
    gssize len = g_socket_receive_from (sock, emu->server ? NULL : &from,
        (gchar *) buf, sizeof buf, NULL, NULL);
    GBytes *bytes;
    gint64 now = gst_net_now ();

    if (len < 0)
      return;
    if (from && !emu->server)
      emu->server = from;
    else
      g_clear_object (&from);
    bytes = g_bytes_new (buf, len);
    if (index == EMU_GROUP_INDEX) {
      emu->group_datagrams++;
      for (guint i = 0; i < emu->opt.n; i++)
        emu_deliver (emu, &emu->rx[i], bytes, now);
      emu->max_fanout = MAX (emu->max_fanout, gst_net_now () - now);
      /* a receiver's timers do not wait for the others to read: N cores
       * take a backlog (as after a stall) for a while */
      emu_run_timers (emu, gst_net_now ());
    } else {
      emu_deliver (emu, &emu->rx[index], bytes, now);
    }
    g_bytes_unref (bytes);
  }
}

/* ------------------------------------------------------------------ */
/* The data set and the sink */

static gchar *
emu_write_data_set (Emu * emu)
{
  RandomSeeded st;
  RandomSource src;
  guint8 *data = g_malloc (emu->opt.size);
  GChecksum *ck = g_checksum_new (G_CHECKSUM_SHA256);
  gsize dlen = RMTP_DIGEST_SIZE;
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("rmtp-emu-XXXXXX", &path, NULL);

  random_source_init_seeded (&src, &st, emu->opt.seed);
  for (guint64 i = 0; i < emu->opt.size; i++)
    data[i] = (guint8) random_source_u64 (&src);
  g_checksum_update (ck, data, emu->opt.size);
  g_checksum_get_digest (ck, emu->digest, &dlen);
  g_checksum_free (ck);
  if (fd < 0 || !g_file_set_contents (path, (gchar *) data, emu->opt.size,
          NULL))
    g_clear_pointer (&path, g_free);
  if (fd >= 0)
    close (fd);
  g_free (data);
  return path;
}

static GstElement *
emu_sink_pipeline (Emu * emu, const gchar * path)
{
  GError *err = NULL;
  gchar *parity = emu->opt.parity_block ?
      g_strdup_printf ("repair=parity parity-block=%u",
      emu->opt.parity_block) : g_strdup ("");
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! rmtpsink "
      "name=sink stats-interval=0 uri=\"rmtp://%s:%u?receivers=%u&rate=%"
      G_GUINT64_FORMAT "&rate-control=false\" %s %s", path, emu->opt.group,
      emu->opt.port, emu->opt.n, emu->opt.rate, parity, emu->opt.sink_props);
  GstElement *p = gst_parse_launch (desc, &err);

  /* without the plugin the parser returns what it could build and an
   * error: a lone filesrc, which would wait for the timeout */
  if (err) {
    g_printerr ("pipeline: %s\n", err->message);
    g_clear_error (&err);
    if (p)
      gst_object_unref (gst_object_ref_sink (p));
    p = NULL;
  }
  g_free (desc);
  g_free (parity);
  return p;
}

static guint64
field_u64 (const GstStructure * s, const gchar * name)
{
  guint64 v = 0;
  guint u = 0;

  if (gst_structure_get_uint64 (s, name, &v))
    return v;
  if (gst_structure_get_uint (s, name, &u))
    return u;
  return 0;
}

static void
emu_sink_counters (GstElement * pipeline, SinkCounters * c)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstStructure *s = NULL;

  g_object_get (sink, "stats", &s, NULL);
  c->data_sent = field_u64 (s, "data-sent");
  c->data_resent = field_u64 (s, "data-resent");
  c->unicast_data = field_u64 (s, "unicast-data-sent");
  c->polls = field_u64 (s, "polls-sent");
  c->responses = field_u64 (s, "responses");
  c->late = field_u64 (s, "late");
  c->duplicates = field_u64 (s, "duplicates");
  c->forged = field_u64 (s, "forged");
  c->malformed = field_u64 (s, "malformed");
  c->out_of_window = field_u64 (s, "out-of-window");
  c->rounds = (guint) field_u64 (s, "rounds");
  c->max_per_round = (guint) field_u64 (s, "max-responses-per-round");
  c->slow = (guint) field_u64 (s, "slow-receivers");
  c->taken_back = (guint) field_u64 (s, "taken-back");
  c->gone_complete = (guint) field_u64 (s, "gone-complete");
  c->gone_rel_sent = field_u64 (s, "gone-rel-sent");
  c->complete = (guint) field_u64 (s, "receivers-complete");
  c->conn_sent = field_u64 (s, "conn-sent");
  c->parity_sent = field_u64 (s, "parity-sent");
  c->empty_rounds = field_u64 (s, "empty-rounds");
  gst_structure_free (s);
  gst_object_unref (sink);
}

/* The namespace's UDP receive-buffer overflows (/proc/net/snmp): a
 * response the kernel dropped before the sink saw it counts here. */
static guint64
udp_rcvbuf_errors (void)
{
  gchar *text = NULL;
  gchar **lines;
  guint64 v = 0;

  if (!g_file_get_contents ("/proc/net/snmp", &text, NULL, NULL))
    return 0;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] && lines[i + 1]; i++) {
    gchar **names, **values;

    if (!g_str_has_prefix (lines[i], "Udp: ")
        || !g_str_has_prefix (lines[i + 1], "Udp: "))
      continue;
    names = g_strsplit (lines[i], " ", -1);
    values = g_strsplit (lines[i + 1], " ", -1);
    for (guint k = 0; names[k] && values[k]; k++)
      if (g_str_equal (names[k], "RcvbufErrors"))
        v = g_ascii_strtoull (values[k], NULL, 10);
    g_strfreev (names);
    g_strfreev (values);
    break;
  }
  g_strfreev (lines);
  g_free (text);
  return v;
}

/* One line of /proc/net/udp: FALSE unless it is a socket on @port other
 * than inode @ours; else its drops in @drops. */
static gboolean
udp_line_drops (const gchar * line, gint port, guint64 ours, guint64 * drops)
{
  /* sl local rem st queues tr retrnsmt uid timeout inode ref ptr drops */
  gchar **w = g_strsplit_set (line, " ", -1);
  const gchar *field[13];
  const gchar *colon;
  guint n = 0;
  gboolean match = FALSE;

  for (guint i = 0; w[i] && n < G_N_ELEMENTS (field); i++)
    if (w[i][0])
      field[n++] = w[i];
  if (n == G_N_ELEMENTS (field) && (colon = strchr (field[1], ':'))
      && g_ascii_strtoull (colon + 1, NULL, 16) == (guint64) port
      && g_ascii_strtoull (field[9], NULL, 10) != ours) {
    *drops = g_ascii_strtoull (field[12], NULL, 10);
    match = TRUE;
  }
  g_strfreev (w);
  return match;
}

/* Receive-buffer drops of the sockets on the server's port other than
 * ours: the sink's socket, where an implosion of answers would overflow.
 * @n_sockets: how many such sockets were found. */
static guint64
server_socket_drops (Emu * emu, guint * n_sockets)
{
  struct stat st;
  gchar *text = NULL;
  gchar **lines;
  guint64 total = 0, drops;
  gint port = emu->server ? gst_net_address_get_port (emu->server) : -1;
  gint fd = g_socket_get_fd (gst_net_udp_get_socket (emu->group_udp));

  if (port < 0 || fstat (fd, &st) != 0
      || !g_file_get_contents ("/proc/net/udp", &text, NULL, NULL))
    return 0;
  lines = g_strsplit (text, "\n", -1);
  g_free (text);
  for (guint i = 1; lines[i]; i++)
    if (udp_line_drops (lines[i], port, st.st_ino, &drops)) {
      total += drops;
      (*n_sockets)++;
    }
  g_strfreev (lines);
  return total;
}

/* ------------------------------------------------------------------ */
/* Appendix A */

/* Expected retransmitted packets by the recurrence (a1)-(a2) of the
 * paper's Appendix A: sum over k >= 1 of M_k. */
static gdouble
appendix_a_resent (guint m, guint n, gdouble e)
{
  gdouble mk = m, total = 0.0;

  if (e <= 0.0)
    return 0.0;
  for (guint k = 1; k < 64 && mk >= 1e-3; k++) {
    gdouble s_prev = pow (e, k - 1) * (gdouble) m * n;

    mk = (1.0 - pow (1.0 - e, s_prev / mk)) * mk;
    total += mk;
  }
  return total;
}

/* The same count from the exact expectation: each packet is sent until all
 * n hold it, E[max of n geometric] times (the simulator's ARQ bound over
 * the line time). */
static gdouble
exact_resent (guint64 size, guint64 rate, guint n, gdouble e)
{
  gdouble sends = rmtp_sim_arq_bound (size, rate, n, e) /
      rmtp_sim_line_time (size, rate);

  return (sends - 1.0) * ((size + 1023) / 1024);
}

/* ------------------------------------------------------------------ */

static gboolean
emu_bus_failed (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gboolean failed = msg != NULL;

  if (msg) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("sink: %s\n", err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return failed;
}

/* A line on stderr every 10 s, to follow a long run. */
static void
emu_progress (Emu * emu, gint64 now, gint64 start, gint64 * next)
{
  if (now < *next)
    return;
  *next = now + 10 * GST_SECOND;
  g_printerr ("%.0f s: %u/%u finished, %" G_GUINT64_FORMAT " group datagrams, "
      "%" G_GUINT64_FORMAT " responses sent\n", (now - start) / 1e9,
      emu->finished, emu->opt.n, emu->group_datagrams, emu->responses_sent);
}

/* --stall: the cores hear and say nothing for a while (the sink runs on);
 * what fell due meanwhile leaves in one burst after it, as on a loaded
 * machine. */
static void
emu_stall (Emu * emu, gint64 now, gint64 start, gboolean * stalled)
{
  gint64 at = start + (gint64) (emu->opt.stall_at * GST_SECOND);

  if (*stalled || emu->opt.stall_s <= 0 || now < at)
    return;
  *stalled = TRUE;
  g_printerr ("%.1f s: the cores stall for %.1f s\n", (now - start) / 1e9,
      emu->opt.stall_s);
  g_usleep ((gulong) (emu->opt.stall_s * G_USEC_PER_SEC));
}

/* Until every core is DONE or FAILED (or the time is up). */
static void
emu_loop (Emu * emu, GstElement * pipeline, gint64 end)
{
  struct epoll_event evs[256];
  gint64 start = gst_net_now (), next_progress = start + 10 * GST_SECOND;
  gboolean stalled = FALSE;

  while (emu->finished < emu->opt.n && gst_net_now () < end) {
    gint64 now = gst_net_now ();
    gint64 wait = MIN (emu_next_deadline (emu), now + 50 * GST_MSECOND) - now;
    gint n = epoll_wait (emu->epfd, evs, G_N_ELEMENTS (evs),
        wait <= 0 ? 0 : (gint) ((wait + GST_MSECOND - 1) / GST_MSECOND));

    for (gint i = 0; i < n; i++) {
      guint32 index = evs[i].data.u32;

      emu_drain (emu, index == EMU_GROUP_INDEX ? emu->group_udp :
          emu->rx[index].udp, index);
    }
    emu_stall (emu, gst_net_now (), start, &stalled);
    emu_run_timers (emu, gst_net_now ());
    emu_progress (emu, gst_net_now (), start, &next_progress);
    if (emu_bus_failed (pipeline))
      break;
  }
}

static guint
emu_verified (Emu * emu)
{
  guint ok = 0;

  for (guint i = 0; i < emu->opt.n; i++) {
    EmuReceiver *r = &emu->rx[i];
    guint64 size = 0;
    const guint8 *digest = NULL;

    if (r->done && !r->out_of_order && r->delivered == emu->opt.size
        && rmtp_receiver_data_set (r->core, &size, &digest)
        && size == emu->opt.size
        && memcmp (digest, emu->digest, RMTP_DIGEST_SIZE) == 0)
      ok++;
  }
  return ok;
}

/* The cores' own counters, summed: why a POLL went unanswered shows here. */
static void
print_core_counters (const Emu * emu)
{
  RmtpReceiverStats t = { { 0 } };

  for (guint i = 0; i < emu->opt.n; i++) {
    const RmtpReceiverStats *st = rmtp_receiver_stats (emu->rx[i].core);

    t.nack_sent += st->nack_sent;
    t.ack_sent += st->ack_sent;
    t.polls_held += st->polls_held;
    t.answers_redrawn += st->answers_redrawn;
    t.parity_received += st->parity_received;
    t.parity_recovered += st->parity_recovered;
    t.in.late += st->in.late;
    t.in.out_of_window += st->in.out_of_window;
    t.in.duplicates += st->in.duplicates;
  }
  printf ("# cores: nack-sent=%" G_GUINT64_FORMAT " ack-sent=%"
      G_GUINT64_FORMAT " polls-held=%" G_GUINT64_FORMAT " answers-redrawn=%"
      G_GUINT64_FORMAT " parity-received=%" G_GUINT64_FORMAT
      " parity-recovered=%" G_GUINT64_FORMAT " in-late=%" G_GUINT64_FORMAT
      " in-out-of-window=%" G_GUINT64_FORMAT " in-duplicates=%"
      G_GUINT64_FORMAT "\n", t.nack_sent, t.ack_sent, t.polls_held,
      t.answers_redrawn, t.parity_received, t.parity_recovered, t.in.late,
      t.in.out_of_window, t.in.duplicates);
}

static void
emu_wait_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
}

static void
print_sim_row (const EmuOptions * o)
{
  RmtpSimParams p;
  RmtpSimResult r;

  rmtp_sim_params_init (&p, o->n, o->loss);
  p.size = o->size;
  p.cfg.rate = o->rate;
  p.cfg.rate_control = FALSE;
  if (o->parity_block) {
    p.cfg.repair = RMTP_REPAIR_PARITY;
    p.cfg.parity_block = o->parity_block;
  }
  p.seed = o->seed;
  rmtp_sim_run (&p, &r);
  printf ("| %u | %.0f %% | sim | %.2f s | %.2f s | - | %" G_GUINT64_FORMAT
      " | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %u | %u/%u |\n",
      o->n, o->loss * 100, r.transfer_time / 1e9,
      rmtp_sim_line_time (p.size, p.cfg.rate), r.response_drops,
      r.data_resent, r.polls, r.rounds, r.complete, o->n);
}

/* AT:SECONDS */
static gboolean
parse_stall (const gchar * v, EmuOptions * o)
{
  const gchar *colon = strchr (v, ':');

  if (!colon)
    return FALSE;
  o->stall_at = g_ascii_strtod (v, NULL);
  o->stall_s = g_ascii_strtod (colon + 1, NULL);
  return o->stall_at >= 0.0 && o->stall_s >= 0.0;
}

static gboolean
parse_options (int argc, char **argv, EmuOptions * o)
{
  o->n = 200;
  o->loss = 0.01;
  o->size = 2 * 1024 * 1024;
  o->rate = 1000000;
  o->seed = 1;
  o->group = "239.2.2.2";
  o->sink_props = "";
  o->port = 6000;
  o->timeout_s = 600;
  for (int i = 1; i < argc; i++) {
    const gchar *a = argv[i], *v = strchr (a, '=');

    if (g_str_equal (a, "--sim"))
      o->sim = TRUE;
    else if (g_str_equal (a, "--sim-only"))
      o->sim = o->sim_only = TRUE;
    else if (!v)
      return FALSE;
    else if (g_str_has_prefix (a, "--receivers="))
      o->n = (guint) atoi (v + 1);
    else if (g_str_has_prefix (a, "--loss="))
      o->loss = g_ascii_strtod (v + 1, NULL);
    else if (g_str_has_prefix (a, "--size="))
      o->size = g_ascii_strtoull (v + 1, NULL, 10);
    else if (g_str_has_prefix (a, "--rate="))
      o->rate = g_ascii_strtoull (v + 1, NULL, 10);
    else if (g_str_has_prefix (a, "--seed="))
      o->seed = g_ascii_strtoull (v + 1, NULL, 10);
    else if (g_str_has_prefix (a, "--group="))
      o->group = v + 1;
    else if (g_str_has_prefix (a, "--port="))
      o->port = (guint) atoi (v + 1);
    else if (g_str_has_prefix (a, "--sink="))
      o->sink_props = v + 1;
    else if (g_str_has_prefix (a, "--parity="))
      o->parity_block = (guint) atoi (v + 1);
    else if (g_str_has_prefix (a, "--timeout="))
      o->timeout_s = (guint) atoi (v + 1);
    else if (g_str_has_prefix (a, "--stall=")) {
      if (!parse_stall (v + 1, o))
        return FALSE;
    } else
      return FALSE;
  }
  return o->parity_block <= 65535 && o->n > 0 && o->n <= RMTP_MAX_MEMBERS && o->size > 0 && o->rate > 0
      && o->loss >= 0.0 && o->loss < 1.0;
}

static gint
compare_int64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* The connection times, start to each core's last CACK: the median and
 * the 95th percentile, s (cores that sent none are left out). */
static void
connect_times (const Emu * emu, gdouble * median, gdouble * p95)
{
  gint64 *t = g_new (gint64, emu->opt.n);
  guint n = 0;

  for (guint i = 0; i < emu->opt.n; i++)
    if (emu->rx[i].cack_at)
      t[n++] = emu->rx[i].cack_at - emu->start;
  qsort (t, n, sizeof (gint64), compare_int64);
  *median = n ? t[n / 2] / 1e9 : 0.0;
  *p95 = n ? t[MIN (n - 1, (n * 95 + 99) / 100 - 1)] / 1e9 : 0.0;
  g_free (t);
}

static void
print_row (Emu * emu, gint64 elapsed, const SinkCounters * c,
    guint64 kernel_drops, guint64 sink_drops, guint verified)
{
  const EmuOptions *o = &emu->opt;
  guint m = (guint) ((o->size + 1023) / 1024);
  guint64 dropped = c->late + c->duplicates + sink_drops;
  gdouble connect_median, connect_p95;

  connect_times (emu, &connect_median, &connect_p95);

  printf ("| %u | %.0f %% | emu | %.2f s | %.2f s | %" G_GUINT64_FORMAT
      " | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT
      " | %u | %u/%u |\n", o->n, o->loss * 100, elapsed / 1e9,
      rmtp_sim_line_time (o->size, o->rate), emu->responses_sent, dropped,
      c->data_resent, c->polls, c->rounds, verified, o->n);
  printf ("# n=%u loss=%g rate=%" G_GUINT64_FORMAT " time=%.3f packets=%u "
      "responses-sent=%" G_GUINT64_FORMAT " server-responses=%"
      G_GUINT64_FORMAT " late=%" G_GUINT64_FORMAT " duplicates=%"
      G_GUINT64_FORMAT " sink-socket-drops=%" G_GUINT64_FORMAT
      " kernel-drops=%" G_GUINT64_FORMAT " forged=%"
      G_GUINT64_FORMAT " malformed=%" G_GUINT64_FORMAT " data-sent=%"
      G_GUINT64_FORMAT " data-resent=%" G_GUINT64_FORMAT " unicast-data=%"
      G_GUINT64_FORMAT " resent-per-packet=%.4f appendix-a=%.4f exact=%.4f "
      "max-responses-per-round=%u losses-injected=%" G_GUINT64_FORMAT
      " send-errors=%" G_GUINT64_FORMAT " slow=%u taken-back=%u gone-complete=%u"
      " gone-rel-sent=%" G_GUINT64_FORMAT " verified=%u"
      " sink-complete=%u max-responses-per-ms=%u conn-sent=%"
      G_GUINT64_FORMAT " cacks-sent=%" G_GUINT64_FORMAT
      " connect-median=%.3f connect-p95=%.3f parity-block=%u parity-sent=%"
      G_GUINT64_FORMAT " empty-rounds=%" G_GUINT64_FORMAT
      " max-timer-lag=%.3f timers-late=%" G_GUINT64_FORMAT
      " max-fanout=%.3f\n",
      o->n, o->loss,
      o->rate, elapsed / 1e9, m, emu->responses_sent, c->responses, c->late,
      c->duplicates, sink_drops, kernel_drops, c->forged, c->malformed,
      c->data_sent, c->data_resent, c->unicast_data,
      (gdouble) c->data_resent / m,
      appendix_a_resent (m, o->n, o->loss) / m,
      exact_resent (o->size, o->rate, o->n, o->loss) / m, c->max_per_round,
      emu->losses_injected, emu->send_errors, c->slow, c->taken_back,
      c->gone_complete, c->gone_rel_sent, verified, c->complete, emu->max_burst, c->conn_sent, emu->cacks_sent,
      connect_median, connect_p95, o->parity_block, c->parity_sent,
      c->empty_rounds, emu->max_timer_lag / 1e9, emu->timers_late,
      emu->max_fanout / 1e9);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  Emu emu = { .epfd = -1 };
  GstElement *pipeline = NULL;
  SinkCounters c = { 0 };
  gchar *path = NULL;
  guint64 drops_before;
  gint64 start, elapsed;
  guint64 kernel_drops, sink_drops;
  guint sink_sockets = 0;
  guint verified = 0;

  gst_init (&argc, &argv);
  if (!parse_options (argc, argv, &emu.opt)) {
    g_printerr ("usage: rmtp-emu [--receivers=N] [--loss=P] [--size=BYTES] "
        "[--rate=BIT/S] [--seed=S] [--group=ADDR] [--port=PORT] "
        "[--timeout=SECONDS] [--stall=AT:SECONDS] [--parity=BLOCK] "
        "[--sink=PROPS] [--sim] "
        "[--sim-only]\n");
    return 2;
  }
  if (!emu_raise_file_limit (emu.opt.n)) {
    g_printerr ("cannot raise RLIMIT_NOFILE to %u\n", emu.opt.n + 256);
    return 2;
  }
  printf ("| receivers | loss | run | transfer | line time | responses sent "
      "| responses dropped | DATA resent | POLLs | rounds | verified |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n");
  if (emu.opt.sim)
    print_sim_row (&emu.opt);
  if (emu.opt.sim_only)
    return 0;
  path = emu_write_data_set (&emu);
  if (!path || !emu_setup (&emu) || !(pipeline = emu_sink_pipeline (&emu,
              path))) {
    emu_teardown (&emu);
    return 2;
  }
  drops_before = udp_rcvbuf_errors ();
  start = emu.start = gst_net_now ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  emu_loop (&emu, pipeline, start + emu.opt.timeout_s * GST_SECOND);
  elapsed = (emu.last_done ? emu.last_done : gst_net_now ()) - start;
  emu_wait_eos (pipeline);
  emu_sink_counters (pipeline, &c);
  verified = emu_verified (&emu);
  kernel_drops = udp_rcvbuf_errors () - drops_before;
  sink_drops = server_socket_drops (&emu, &sink_sockets);
  if (sink_sockets == 0)
    g_printerr ("the sink's socket was not found in /proc/net/udp\n");
  print_row (&emu, elapsed, &c, kernel_drops, sink_drops, verified);
  print_core_counters (&emu);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  emu_teardown (&emu);
  g_unlink (path);
  g_free (path);
  /* the server must agree: a core it counts failed (its answers taken
   * as forged, say) is not a clean run even though the core verified */
  return verified == emu.opt.n && c.complete == emu.opt.n &&
      c.late + c.duplicates + sink_drops == 0 ? 0 : 1;
}
