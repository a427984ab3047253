/* rlmsink and rlmsrc (issue 18) on loopback multicast: the sink stamps and
 * routes each layer to its group and port; the source joins and leaves as
 * its core says, merges the layers into one continuous stream, counts bad
 * packets; URIs, units and examples are documented. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <unistd.h>

#include "checkutil.h"
#include "gstnetudp.h"
#include "gsttemporallayermeta.h"
#include "rlmcore.h"
#include "core/rtp.h"
#include "core/wire.h"

#define MS (G_GINT64_CONSTANT (1000000))
#define EXT_ID 6
#define RTP_CAPS "application/x-rtp,media=video,clock-rate=90000," \
  "encoding-name=H264"

/* ------------------------------------------------------------------ */
/* Sockets */

/* A socket on @port (any address, reusable) joined to @group on lo. */
static GSocket *
group_socket (guint port, const gchar * group)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *any = g_inet_address_new_any (G_SOCKET_FAMILY_IPV4);
  GInetAddress *g = g_inet_address_new_from_string (group);
  GSocketAddress *a = g_inet_socket_address_new (any, port);
  GError *err = NULL;

  if (!g_socket_bind (s, a, TRUE, NULL)) {
    g_clear_object (&s);
  } else {
    fail_unless (g_socket_join_multicast_group (s, g, FALSE, "lo", &err),
        "%s", err ? err->message : "");
    g_socket_set_timeout (s, 5);
  }
  g_object_unref (a);
  g_object_unref (g);
  g_object_unref (any);
  return s;
}

/* Three sockets on base, base + 2, base + 4 joined to @groups. */
static guint
three_group_sockets (const gchar * groups[3], GSocket * out[3])
{
  for (guint attempt = 0; attempt < 50; attempt++) {
    guint base = 20000 + g_random_int_range (0, 20000) * 2, i;

    for (i = 0; i < 3; i++)
      if (!(out[i] = group_socket (base + 2 * i, groups[i])))
        break;
    if (i == 3)
      return base;
    while (i-- > 0)
      g_clear_object (&out[i]);
  }
  fail ("no three free ports");
  return 0;
}

/* The test's sender of datagrams to a group (multicast on lo). */
static GstNetUdp *
group_sender (void)
{
  GstNetUdpSettings s = GST_NET_UDP_SETTINGS_INIT;
  GError *err = NULL;
  GstNetUdp *u;

  s.address = "239.255.79.1";
  s.multicast_iface = "lo";
  s.join_later = TRUE;
  u = gst_net_udp_new (&s, G_SOCKET_FAMILY_IPV4, &err);
  fail_unless (u != NULL, "%s", err ? err->message : "");
  return u;
}

static void
send_to_group (GstNetUdp * u, const gchar * group, guint port,
    const guint8 * data, gsize len)
{
  GInetAddress *g = g_inet_address_new_from_string (group);
  GSocketAddress *a = g_inet_socket_address_new (g, port);

  fail_unless (gst_net_transport_send_to (GST_NET_TRANSPORT (u), data, len,
          a, NULL));
  g_object_unref (a);
  g_object_unref (g);
}

/* ------------------------------------------------------------------ */
/* Packets */

static gsize
plain_rtp (guint8 * out, guint16 seq)
{
  memset (out, 0, 40);
  out[0] = 0x80;
  out[1] = 96;
  write16 (out + 2, seq);
  write32 (out + 4, seq * 3000u);
  write32 (out + 8, 0xfeed);
  out[12] = seq & 0xff;
  return 40;
}

/* What an rlmsink sends: RTP @seq stamped as packet @lseq of @layer. */
static gsize
stamped_rtp (guint8 * out, guint16 seq, guint layer, guint16 lseq)
{
  guint8 plain[40];
  guint8 ext[3] = { layer, lseq >> 8, lseq & 0xff };
  RtpExtElement el = { EXT_ID, ext, sizeof (ext) };

  plain_rtp (plain, seq);
  return rtp_ext_add (plain, sizeof (plain), &el, out, 128);
}

static GstBuffer *
layer_buffer (guint16 seq, gint layer)
{
  guint8 pkt[40];
  GstBuffer *b = gst_buffer_new_memdup (pkt, plain_rtp (pkt, seq));

  if (layer >= 0)
    gst_buffer_add_temporal_layer_meta (b, layer, 3, 4, layer == 2);
  return b;
}

/* ------------------------------------------------------------------ */
/* rlmsink */

/* Each layer to its own group and port, stamped with its layer and a
 * sequence of its own; a packet without a layer goes with the base layer,
 * a packet that is not RTP is counted and dropped. */
GST_START_TEST (test_sink_routes_layers)
{
  const gchar *groups[3] = { "239.255.77.1", "239.255.77.2", "239.255.77.3" };
  GSocket *socks[3];
  guint base = three_group_sockets (groups, socks), first_seq[3] = { 0, };
  guint got[3] = { 0, };
  gchar *desc = g_strdup_printf ("rlmsink address=239.255.77.1 port=%u "
      "port-per-layer=true layers=3 multicast-iface=lo", base);
  GstHarness *h = gst_harness_new_parse (desc);
  GstElement *sink = gst_harness_find_element (h, "rlmsink");
  GstStructure *st;
  const GValue *packets;

  gst_harness_set_src_caps_str (h, RTP_CAPS);
  for (guint i = 0; i < 12; i++)
    fail_unless_equals_int (gst_harness_push (h, layer_buffer (i, i % 3)),
        GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, layer_buffer (12, -1)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_memdup ("no",
              2)), GST_FLOW_OK);

  /* layer 0 gets 4 + 1 packets, layers 1 and 2 four each */
  for (guint l = 0; l < 3; l++) {
    guint want = l == 0 ? 5 : 4;
    for (guint k = 0; k < want; k++) {
      guint8 buf[256];
      gssize n = g_socket_receive (socks[l], (gchar *) buf, sizeof (buf),
          NULL, NULL);
      guint layer;
      guint16 lseq;
      RtpHeader rtp;

      fail_unless (n > 0, "layer %u: packet %u did not come", l, k);
      fail_unless (rtp_header_parse (buf, n, &rtp));
      fail_unless (rlm_layer_ext_parse (buf, n, EXT_ID, &layer, &lseq));
      fail_unless_equals_int (layer, l);
      if (k == 0)
        first_seq[l] = lseq;
      /* the layer's own sequence counts its packets only */
      fail_unless_equals_int ((guint16) (lseq - first_seq[l]), k);
      /* the stream's own RTP sequence is kept */
      fail_unless_equals_int (rtp.seq, k < 4 ? 3 * k + l : 12);
      got[l]++;
    }
  }
  g_object_get (sink, "stats", &st, NULL);
  packets = gst_structure_get_value (st, "packets");
  fail_unless_equals_int (gst_value_array_get_size (packets), 3);
  fail_unless_equals_uint64 (g_value_get_uint64 (gst_value_array_get_value
          (packets, 0)), 5);
  fail_unless_equals_uint64 (g_value_get_uint64 (gst_value_array_get_value
          (packets, 2)), 4);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "refused"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (sink, "no-layer"), 1);
  gst_structure_free (st);
  gst_object_unref (sink);
  gst_harness_teardown (h);
  for (guint l = 0; l < 3; l++)
    g_object_unref (socks[l]);
  g_free (desc);
}

GST_END_TEST;

/* One port for every group (the default): layer i goes to address + i; a
 * socket joined to layer 1's group only gets layer 1. */
GST_START_TEST (test_sink_one_port)
{
  guint port = free_udp_port ();
  GSocket *sock = group_socket (port, "239.255.76.2");
  gchar *desc = g_strdup_printf ("rlmsink address=239.255.76.1 port=%u "
      "layers=3 multicast-iface=lo", port);
  GstHarness *h = gst_harness_new_parse (desc);
  guint8 buf[256];
  guint layer;
  guint16 lseq;
  gssize n;

  fail_unless (sock != NULL);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  fail_unless_equals_int (gst_harness_push (h, layer_buffer (0, 0)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, layer_buffer (1, 1)),
      GST_FLOW_OK);
  n = g_socket_receive (sock, (gchar *) buf, sizeof (buf), NULL, NULL);
  fail_unless (n > 0);
  fail_unless (rlm_layer_ext_parse (buf, n, EXT_ID, &layer, &lseq));
  fail_unless_equals_int (layer, 1);
  gst_harness_teardown (h);
  g_object_unref (sock);
  g_free (desc);
}

GST_END_TEST;

/* The sink proposes its layers and layer rates in the caps query (what
 * x264layerenc fixates to). */
GST_START_TEST (test_sink_proposes_rates)
{
  GstHarness *h = gst_harness_new_parse ("rlmsink layers=3 "
      "multicast-iface=lo");
  GstCaps *caps;
  GstStructure *s;
  const GValue *rates;

  caps = gst_pad_peer_query_caps (h->srcpad, NULL);
  s = gst_caps_get_structure (caps, 0);
  rates = gst_structure_get_value (s, "layer-rates");
  fail_unless (rates != NULL);
  fail_unless_equals_int (gst_value_array_get_size (rates), 3);
  /* doubling cumulative rates: 250, 500, 1000 kbit/s */
  fail_unless_equals_int (g_value_get_int (gst_value_array_get_value (rates,
              2)), 500000);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* rlmsrc */

typedef struct
{
  GstHarness *h;
  GstElement *src;
  GstBus *bus;
  GstNetUdp *tx;
  guint port;
} SrcRig;

static void
src_rig_init (SrcRig * r, const gchar * group, const gchar * props)
{
  gchar *desc;

  r->port = free_udp_port ();
  desc = g_strdup_printf ("rlmsrc address=%s port=%u multicast-iface=lo "
      "caps=\"" RTP_CAPS "\" %s", group, r->port, props);
  r->h = gst_harness_new_parse (desc);
  g_free (desc);
  r->src = gst_harness_find_element (r->h, "rlmsrc");
  r->bus = gst_bus_new ();
  gst_element_set_bus (r->src, r->bus);
  r->tx = group_sender ();
  gst_harness_play (r->h);
}

static void
src_rig_clear (SrcRig * r)
{
  gst_element_set_bus (r->src, NULL);
  gst_object_unref (r->bus);
  gst_object_unref (r->src);
  gst_harness_teardown (r->h);
  g_object_unref (r->tx);
}

/* Waits (at most 5 s) until stats field @field is at least @v. */
static void
wait_stat (SrcRig * r, const gchar * field, guint64 v)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  guint64 now = 0;

  while (g_get_monotonic_time () < end) {
    GstStructure *s;
    guint u;

    g_object_get (r->src, "stats", &s, NULL);
    if (!gst_structure_get_uint64 (s, field, &now) &&
        gst_structure_get_uint (s, field, &u))
      now = u;
    gst_structure_free (s);
    if (now >= v)
      return;
    g_usleep (10000);
  }
  fail ("stats %s stayed at %" G_GUINT64_FORMAT " (want %" G_GUINT64_FORMAT
      ")", field, now, v);
}

static gint
pull_seq (SrcRig * r, guint * layer)
{
  GstBuffer *b = NULL;
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  GstMapInfo map;
  RtpHeader rtp;
  guint16 lseq;

  while (!b && g_get_monotonic_time () < end)
    if (!(b = gst_harness_try_pull (r->h)))
      g_usleep (2000);
  fail_unless (b != NULL, "no packet came out");
  gst_buffer_map (b, &map, GST_MAP_READ);
  fail_unless (rtp_header_parse (map.data, map.size, &rtp));
  fail_unless (rlm_layer_ext_parse (map.data, map.size, EXT_ID, layer,
          &lseq));
  gst_buffer_unmap (b, &map);
  gst_buffer_unref (b);
  return rtp.seq;
}

static void
send_layer (SrcRig * r, const gchar * group, guint16 seq, guint layer,
    guint16 lseq)
{
  guint8 buf[128];
  gsize n = stamped_rtp (buf, seq, layer, lseq);

  send_to_group (r->tx, group, r->port, buf, n);
}

/* Whether the bus had an rlm-level message of @level for @reason. */
static gboolean
saw_level (SrcRig * r, guint level, const gchar * reason)
{
  GstMessage *m;
  gboolean found = FALSE;

  while (!found && (m = gst_bus_timed_pop_filtered (r->bus, GST_SECOND,
              GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (m);
    guint l;

    found = gst_structure_has_name (s, "rlm-level") &&
        gst_structure_get_uint (s, "level", &l) && l == level &&
        g_str_equal (gst_structure_get_string (s, "reason"), reason);
    gst_message_unref (m);
  }
  return found;
}

/* At level 1 only the base group is joined: its packets come out numbered
 * without the gaps of layer 1's; a lost base-layer packet leaves a gap;
 * datagrams that are neither stamped RTP nor RLM control are counted. */
/* @n packets of layer 0 to @group0 and of layer 1 to @group1 in turn:
 * RTP sequence 0, 1, 2 ..., layer sequences from 100 and 900. */
static void
send_interleaved (SrcRig * r, const gchar * group0, const gchar * group1,
    guint n)
{
  for (guint i = 0; i < n; i++) {
    send_layer (r, group0, 2 * i, 0, 100 + i);
    send_layer (r, group1, 2 * i + 1, 1, 900 + i);
  }
}

GST_START_TEST (test_src_level_one_continuous)
{
  SrcRig r;
  guint layer;
  gint seq0, seq;

  src_rig_init (&r, "239.255.78.1", "layers=2 t-join-min=3600000000000 "
      "t-join-max=3600000000000");
  wait_stat (&r, "joins", 1);
  fail_unless (saw_level (&r, 1, "start"));
  send_interleaved (&r, "239.255.78.1", "239.255.78.2", 10);
  seq0 = pull_seq (&r, &layer);
  for (guint i = 1; i < 10; i++) {
    seq = pull_seq (&r, &layer);
    fail_unless_equals_int (layer, 0);
    fail_unless_equals_int ((guint16) (seq - seq0), i);
  }
  /* layer 0's packet 110 is lost: one number left out */
  send_layer (&r, "239.255.78.1", 22, 0, 111);
  seq = pull_seq (&r, &layer);
  fail_unless_equals_int ((guint16) (seq - seq0), 11);
  wait_stat (&r, "layer-received", 0);
  {
    guint8 buf[64];
    send_to_group (r.tx, "239.255.78.1", r.port, (const guint8 *) "junk", 4);
    send_to_group (r.tx, "239.255.78.1", r.port, buf, plain_rtp (buf, 30));
  }
  wait_stat (&r, "malformed", 2);
  fail_unless_equals_uint64 (check_stat_u64 (r.src, "unsubscribed"), 0);
  src_rig_clear (&r);
}

GST_END_TEST;

/* A join timer of about 100 ms: the source joins layer 1 (a real group
 * join, in stats and on the bus), merges both layers in the source's order
 * into one continuous stream (a pair swapped on the way is put back), and
 * when layer 1 loses a packet during the experiment, leaves it again. */
GST_START_TEST (test_src_joins_merges_leaves)
{
  SrcRig r;
  guint layer;
  gint seq0, seq;

  src_rig_init (&r, "239.255.78.11", "layers=2 t-join-min=100000000");
  wait_stat (&r, "joins", 2);
  fail_unless (saw_level (&r, 2, "join-experiment"));
  for (guint i = 0; i < 10; i++) {
    gboolean swap = i == 4;
    if (swap)
      send_layer (&r, "239.255.78.12", 2 * i + 1, 1, 500 + i);
    send_layer (&r, "239.255.78.11", 2 * i, 0, 100 + i);
    if (!swap)
      send_layer (&r, "239.255.78.12", 2 * i + 1, 1, 500 + i);
  }
  seq0 = pull_seq (&r, &layer);
  fail_unless_equals_int (layer, 0);
  for (guint i = 1; i < 20; i++) {
    seq = pull_seq (&r, &layer);
    fail_unless_equals_int ((guint16) (seq - seq0), i);
    fail_unless_equals_int (layer, i % 2);
  }
  /* layer 1 loses packet 510 during the experiment: it failed */
  send_layer (&r, "239.255.78.12", 21, 1, 511);
  send_layer (&r, "239.255.78.11", 22, 0, 110);
  wait_stat (&r, "leaves", 1);
  fail_unless_equals_uint64 (check_stat_u64 (r.src, "experiments-failed"), 1);
  fail_unless (saw_level (&r, 1, "experiment-failed"));
  check_loop_ran_without_spins (r.src);
  src_rig_clear (&r);
}

GST_END_TEST;

/* source-address: the groups are joined source-specifically (SSM) and the
 * sender's packets come through. */
GST_START_TEST (test_src_source_specific)
{
  SrcRig r;
  guint layer;

  GSocket *tx = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *g = g_inet_address_new_from_string ("232.1.7.1");
  GSocketAddress *to;
  guint8 buf[128];
  gsize n = stamped_rtp (buf, 7, 0, 70);

  src_rig_init (&r, "232.1.7.1", "layers=1 source-address=127.0.0.1");
  wait_stat (&r, "joins", 1);
  fail_unless_equals_uint64 (check_stat_u64 (r.src, "join-errors"), 0);
  /* sent from 127.0.0.1: IP_MULTICAST_IF by address picks the source */
  fail_unless (g_socket_set_option (tx, IPPROTO_IP, IP_MULTICAST_IF,
          (gint) g_htonl (0x7f000001), NULL));
  to = g_inet_socket_address_new (g, r.port);
  fail_unless (g_socket_send_to (tx, to, (const gchar *) buf, n, NULL,
          NULL) == (gssize) n);
  pull_seq (&r, &layer);
  g_object_unref (to);
  g_object_unref (g);
  g_object_unref (tx);
  fail_unless_equals_int (layer, 0);
  src_rig_clear (&r);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* The group key */

#define HEX_KEY "00112233445566778899aabbccddeeff" \
  "00112233445566778899aabbccddeeff"
#define PEER_ID 0x5eed1234u

/* The first RLM control packet the rig's rlmsrc sends to @group (its
 * JOIN: t-join-min is short), read on a socket of the test's. */
static gsize
capture_announcement (SrcRig * r, const gchar * group, guint8 * buf,
    gsize max)
{
  GSocket *s = group_socket (r->port, group);
  gssize n;

  fail_unless (s != NULL);
  do {
    n = g_socket_receive (s, (gchar *) buf, max, NULL, NULL);
    fail_unless (n > 0, "no announcement within 5 s");
  } while (n < 2 || buf[1] != 204);
  g_object_unref (s);
  return n;
}

/* Sends an announcement of PEER_ID, sealed by @seal (NULL: not sealed);
 * @out (RLM_CTRL_MAX_SIZE bytes) keeps it. */
static gsize
send_ctrl (SrcRig * r, const gchar * group, AuthSession * seal,
    guint8 type, guint8 level, guint8 * out)
{
  RlmCtrl c = { type, PEER_ID, level };
  gsize n = rlm_ctrl_write (&c, out, RLM_CTRL_MAX_SIZE);

  if (seal)
    n = auth_seal (seal, out, n, RLM_CTRL_MAX_SIZE);
  send_to_group (r->tx, group, r->port, out, n);
  return n;
}

static AuthSession *
hex_session (const gchar * hex, guint32 id)
{
  AuthKey k;

  fail_unless (auth_key_from_string (hex, &k, NULL));
  return auth_session_new (&k, id, 4);
}

static gboolean
stat_bool (GstElement * e, const gchar * field)
{
  GstStructure *s;
  gboolean v = FALSE;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (gst_structure_get_boolean (s, field, &v), "no %s", field);
  gst_structure_free (s);
  return v;
}

/* With a key: the JOIN goes out sealed (40 bytes, opening under the key
 * as the receiver's id, the first 16 bytes an RLM JOIN); an unsealed JOIN,
 * one under another key and a replay of a sound one are dropped and
 * counted by verdict; the sound one is taken. */
GST_START_TEST (test_src_key_seals_and_checks)
{
  SrcRig r;
  AuthSession *peer = hex_session (HEX_KEY, PEER_ID), *check =
      hex_session (HEX_KEY, 1), *other;
  AuthKey wrong;
  GstStructure *st;
  guint ssrc = 0;
  guint8 buf[256], sound[RLM_CTRL_MAX_SIZE];
  gsize n, plen, nsound;
  guint32 sender;
  RlmCtrl c;

  memset (wrong.bytes, 0x42, sizeof (wrong.bytes));
  other = auth_session_new (&wrong, PEER_ID, 4);
  src_rig_init (&r, "239.255.78.21", "layers=2 t-join-min=100000000 "
      "key=" HEX_KEY);
  n = capture_announcement (&r, "239.255.78.21", buf, sizeof (buf));
  fail_unless_equals_int (n, RLM_CTRL_MAX_SIZE);
  fail_unless_equals_int (auth_open (check, buf, n, 0, &plen, &sender),
      AUTH_OK);
  fail_unless (rlm_ctrl_parse (buf, plen, &c));
  fail_unless_equals_int (c.type, RLM_CTRL_JOIN);
  fail_unless_equals_int (sender, c.ssrc);
  g_object_get (r.src, "stats", &st, NULL);
  fail_unless (gst_structure_get_uint (st, "ssrc", &ssrc));
  gst_structure_free (st);
  fail_unless_equals_int (ssrc, c.ssrc);
  fail_unless (stat_bool (r.src, "auth"));

  send_ctrl (&r, "239.255.78.21", NULL, RLM_CTRL_JOIN, 2, buf);
  send_ctrl (&r, "239.255.78.21", other, RLM_CTRL_JOIN, 2, buf);
  nsound = send_ctrl (&r, "239.255.78.21", peer, RLM_CTRL_REPORT, 1, sound);
  send_to_group (r.tx, "239.255.78.21", r.port, sound, nsound);
  wait_stat (&r, "auth-truncated", 1);
  wait_stat (&r, "auth-bad-tag", 1);
  wait_stat (&r, "auth-replayed", 1);
  wait_stat (&r, "control-received", 1);
  fail_unless_equals_uint64 (check_stat_u64 (r.src, "control-received"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (r.src, "malformed"), 0);
  fail_unless (check_stat_u64 (r.src, "auth-sealed") >= 1);
  src_rig_clear (&r);
  auth_session_free (peer);
  auth_session_free (check);
  auth_session_free (other);
}

GST_END_TEST;

/* Without a key: the JOIN is the 16-byte APP packet as before, and an
 * unsealed announcement of another receiver is taken. */
GST_START_TEST (test_src_without_key_unchanged)
{
  SrcRig r;
  guint8 buf[256];
  RlmCtrl c;
  gsize n;

  src_rig_init (&r, "239.255.78.31", "layers=2 t-join-min=100000000");
  n = capture_announcement (&r, "239.255.78.31", buf, sizeof (buf));
  fail_unless_equals_int (n, RLM_CTRL_SIZE);
  fail_unless (rlm_ctrl_parse (buf, n, &c));
  fail_unless_equals_int (c.type, RLM_CTRL_JOIN);
  fail_unless_equals_int (c.level, 2);
  fail_if (stat_bool (r.src, "auth"));
  send_ctrl (&r, "239.255.78.31", NULL, RLM_CTRL_REPORT, 1, buf);
  wait_stat (&r, "control-received", 1);
  fail_unless_equals_uint64 (check_stat_u64 (r.src, "auth-truncated"), 0);
  src_rig_clear (&r);
}

GST_END_TEST;

/* The key is write-only and never in the URI; key-file round-trips; a
 * key and a key file given as URI parameters are taken. */
GST_START_TEST (test_key_properties_and_uri)
{
  GstElement *e = gst_element_factory_make ("rlmsrc", NULL);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "key");
  gchar *uri, *file;

  fail_unless (ps != NULL);
  fail_unless (ps->flags & G_PARAM_WRITABLE);
  fail_if (ps->flags & G_PARAM_READABLE);
  fail_unless (strstr (g_param_spec_get_blurb (ps), "64 hex digits"));
  g_object_set (e, "uri", "rlm://239.1.1.9:5004?key=correct%20horse%20"
      "battery&key-file=%2Ftmp%2Fk", NULL);
  g_object_get (e, "uri", &uri, "key-file", &file, NULL);
  fail_unless_equals_string (file, "/tmp/k");
  fail_unless (strstr (uri, "key-file=") != NULL, "%s", uri);
  fail_unless (strstr (uri, "key=") == NULL, "%s", uri);
  fail_unless (strstr (uri, "horse") == NULL, "%s", uri);
  g_free (uri);
  g_free (file);
  gst_object_unref (e);
}

GST_END_TEST;

/* Bad keys fail the start with an error naming the setting, without the
 * key; a key file with the hex key and a newline works. */
GST_START_TEST (test_key_errors_clear)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "rlm-key-XXXXXX", NULL);
  gchar *desc;
  gint fd = g_mkstemp (path);
  struct
  {
    const gchar *props, *text;
  } cases[] = {
    {"key=hunter2", "key: a key is 64 hex digits or a passphrase of 10"},
    {"key=" HEX_KEY " key-file=/nonexistent", "key and key-file are both "
          "set"},
    {"key-file=/nonexistent/rlm.key", "key-file \"/nonexistent/rlm.key\":"},
    {NULL, "key-file \""},
  };

  fail_unless (fd >= 0);
  fail_unless (write (fd, "short\n", 6) == 6);
  close (fd);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstElement *p;
    GstBus *bus;
    GstMessage *m;
    GError *err = NULL;

    desc = g_strdup_printf ("rlmsrc address=239.255.78.41 port=%u %s%s ! "
        "fakesink", free_udp_port (), cases[i].props ? cases[i].props :
        "key-file=", cases[i].props ? "" : path);
    p = gst_parse_launch (desc, NULL);
    g_free (desc);
    bus = gst_element_get_bus (p);
    fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    m = gst_bus_timed_pop_filtered (bus, GST_SECOND, GST_MESSAGE_ERROR);
    fail_unless (m != NULL);
    gst_message_parse_error (m, &err, NULL);
    fail_unless (strstr (err->message, cases[i].text) != NULL, "%s",
        err->message);
    fail_unless (strstr (err->message, "hunter2") == NULL);
    fail_unless (strstr (err->message, "short") == NULL);
    fail_unless (strstr (err->message, "8899aabb") == NULL);
    g_error_free (err);
    gst_message_unref (m);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (p);
  }
  fail_unless (g_file_set_contents (path, HEX_KEY "\n", -1, NULL));
  {
    SrcRig r;
    gchar *props = g_strdup_printf ("layers=1 key-file=%s", path);

    src_rig_init (&r, "239.255.78.42", props);
    wait_stat (&r, "joins", 1);
    fail_unless (stat_bool (r.src, "auth"));
    src_rig_clear (&r);
    g_free (props);
  }
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* URIs, documentation */

GST_START_TEST (test_uri_errors_clear)
{
  const gchar *factories[] = { "rlmsink", "rlmsrc" };

  for (guint i = 0; i < G_N_ELEMENTS (factories); i++) {
    GstElement *e = gst_element_factory_make (factories[i], NULL);
    GError *err = NULL;
    gchar *uri;
    guint layers;

    fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
            "rlm://239.1.1.1?layers=2", &err));
    fail_unless (strstr (err->message, "no port") != NULL, "%s",
        err->message);
    g_clear_error (&err);
    fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
            "rlm://239.1.1.1:5000?bogus=1", &err));
    fail_unless (strstr (err->message, "unknown parameter \"bogus\"") !=
        NULL, "%s", err->message);
    g_clear_error (&err);
    fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
            "rlm://239.1.1.1:5000?layers=99", &err));
    fail_unless (strstr (err->message, "bad value \"99\" for layers") !=
        NULL, "%s", err->message);
    g_clear_error (&err);
    /* nothing of the bad ones was set; a good one round-trips */
    g_object_get (e, "layers", &layers, NULL);
    fail_unless_equals_int (layers, 4);
    g_object_set (e, "uri", "rlm://239.1.1.9:5004?layers=3&ext-id=7", NULL);
    g_object_get (e, "uri", &uri, "layers", &layers, NULL);
    fail_unless_equals_int (layers, 3);
    fail_unless (g_str_has_prefix (uri, "rlm://239.1.1.9:5004?"), "%s", uri);
    fail_unless (strstr (uri, "layers=3") && strstr (uri, "ext-id=7"), "%s",
        uri);
    g_free (uri);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* A bad uri property, or an address that is no multicast group, fails the
 * start with an error that names it. */
GST_START_TEST (test_start_errors_clear)
{
  struct
  {
    const gchar *desc, *text;
  } cases[] = {
    {"rlmsrc uri=rlm://239.1.1.1 ! fakesink", "no port"},
    {"fakesrc ! rlmsink uri=rlm://239.1.1.1", "no port"},
    {"fakesrc ! rlmsink uri=\"rlm://239.1.1.1:5000?layers=many\"",
        "bad value \"many\" for layers"},
    {"fakesrc ! rlmsink address=10.0.0.1", "\"10.0.0.1\" is not a multicast"},
    {"rlmsrc groups=239.1.1.1,10.1.1.1 layers=2 ! fakesink",
        "groups: \"10.1.1.1\" is not a multicast address"},
    {"fakesrc ! rlmsink groups=239.1.1.1 layers=2", "groups: 1 group(s) for "
          "2 layers"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check_start_error (cases[i].desc, cases[i].text);
}

GST_END_TEST;

static const gchar *
blurb (const gchar * factory, const gchar * prop)
{
  GstElementFactory *f = gst_element_factory_find (factory);
  GstElement *e = gst_element_factory_create (f, NULL);
  const gchar *b = g_param_spec_get_blurb (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), prop));

  gst_object_unref (e);
  gst_object_unref (f);
  return b;
}

/* Units in the blurbs, the paper's values as defaults, examples and the
 * URI syntax in what gst-inspect shows. */
/* start-level=2: the source joins both groups at once (level 2, reason
 * start) and passes layer 1's packets with no experiment run. */
GST_START_TEST (test_src_start_level)
{
  SrcRig r;
  guint layer;
  gboolean saw_layer1 = FALSE;

  src_rig_init (&r, "239.255.78.41", "layers=2 start-level=2 "
      "t-join-min=3600000000000 t-join-max=3600000000000");
  wait_stat (&r, "joins", 2);
  fail_unless (saw_level (&r, 2, "start"));
  send_interleaved (&r, "239.255.78.41", "239.255.78.42", 4);
  for (guint i = 0; i < 8; i++) {
    pull_seq (&r, &layer);
    saw_layer1 |= layer == 1;
  }
  fail_unless (saw_layer1);
  fail_unless_equals_uint64 (check_stat_u64 (r.src, "experiments-run"), 0);
  src_rig_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_docs_units_defaults)
{
  GstElement *src = gst_element_factory_make ("rlmsrc", NULL);
  gdouble alpha, beta;
  guint64 tj_min, tj_max;
  guint start_level;

  fail_unless (strstr (blurb ("rlmsrc", "t-join-min"), "ns") != NULL);
  fail_unless (strstr (blurb ("rlmsrc", "reorder-window"), "ns") != NULL);
  fail_unless (strstr (blurb ("rlmsink", "layer-rates"), "bit/s") != NULL);
  fail_unless (strstr (blurb ("rlmsrc", "loss-threshold"), "fraction"));
  g_object_get (src, "alpha", &alpha, "beta", &beta, "t-join-min", &tj_min,
      "t-join-max", &tj_max, "start-level", &start_level, NULL);
  fail_unless_equals_int (start_level, 1);
  fail_unless (alpha == 2.0 && fabs (beta - 2.0 / 3) < 1e-9);
  fail_unless_equals_uint64 (tj_min, 5 * GST_SECOND);
  fail_unless_equals_uint64 (tj_max, 600 * GST_SECOND);
  gst_object_unref (src);
  check_inspect_docs ("rlmsink");
  check_inspect_docs ("rlmsrc");
  {
    GstElementFactory *f = gst_element_factory_find ("rlmsrc");
    fail_unless (strstr (gst_element_factory_get_metadata (f,
                GST_ELEMENT_METADATA_DESCRIPTION), "rlm://") != NULL);
    gst_object_unref (f);
  }
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* SRTP */

#define SRTP_KEY \
  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
#define SRTP_OTHER \
  "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
#define SRTP_PACKETS 20

typedef struct
{
  guint64 pushed, bytes;        /* what rlmsrc output */
  guint64 protected_packets;    /* by rlmsink */
  guint64 accepted, auth_failed;
  guint8 captured[256];         /* the sink's last datagram on the wire */
  gssize captured_len;
} SrtpRun;

static gchar *
key_prop (const gchar * key)
{
  return key ? g_strdup_printf ("srtp-key=%s", key) : g_strdup ("");
}

/* Sends SRTP_PACKETS base-layer packets rlmsink -> rlmsrc on @group, the
 * sink keyed with @sink_key, the source with @src_key (NULL: none); when
 * @expect_out, waits for them all to come out, else for the source to
 * have refused them all. A socket on the group keeps the last datagram. */
static void
srtp_run (const gchar * group, const gchar * sink_key, const gchar * src_key,
    gboolean expect_out, SrtpRun * res, SrcRig * r)
{
  gchar *sk = key_prop (sink_key), *rk = key_prop (src_key), *props, *desc;
  GstHarness *h;
  GstElement *sink;
  GSocket *wire;
  GstBuffer *b;

  memset (res, 0, sizeof (*res));
  props = g_strdup_printf ("layers=1 t-join-min=3600000000000 "
      "t-join-max=3600000000000 %s", rk);
  src_rig_init (r, group, props);
  wire = group_socket (r->port, group);
  fail_unless (wire != NULL);
  wait_stat (r, "joins", 1);
  desc = g_strdup_printf ("rlmsink address=%s port=%u layers=1 "
      "multicast-iface=lo %s", group, r->port, sk);
  h = gst_harness_new_parse (desc);
  sink = gst_harness_find_element (h, "rlmsink");
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  for (guint i = 0; i < SRTP_PACKETS; i++)
    fail_unless_equals_int (gst_harness_push (h, layer_buffer (i, 0)),
        GST_FLOW_OK);
  for (guint i = 0; i < SRTP_PACKETS; i++)
    res->captured_len = g_socket_receive (wire, (gchar *) res->captured,
        sizeof (res->captured), NULL, NULL);
  if (expect_out) {
    for (guint i = 0; i < SRTP_PACKETS; i++) {
      b = gst_harness_pull (r->h);
      res->bytes += gst_buffer_get_size (b);
      gst_buffer_unref (b);
    }
  } else {
    wait_stat (r, "srtp-auth-failed", SRTP_PACKETS);
    g_usleep (100 * 1000);      /* beyond the reorder window */
    fail_unless ((b = gst_harness_try_pull (r->h)) == NULL);
  }
  res->protected_packets = check_stat_u64 (sink, "srtp-protected");
  res->pushed = check_stat_u64 (r->src, "pushed");
  res->accepted = check_stat_u64 (r->src, "srtp-accepted");
  res->auth_failed = check_stat_u64 (r->src, "srtp-auth-failed");
  gst_object_unref (sink);
  gst_harness_teardown (h);
  g_object_unref (wire);
  g_free (desc);
  g_free (props);
  g_free (sk);
  g_free (rk);
}

static guint64
layer_lost (GstElement * src)
{
  GstStructure *s;
  const GValue *v;
  guint64 lost;

  g_object_get (src, "stats", &s, NULL);
  v = gst_structure_get_value (s, "layer-lost");
  fail_unless (v && gst_value_array_get_size (v) == 1);
  lost = g_value_get_uint64 (gst_value_array_get_value (v, 0));
  gst_structure_free (s);
  return lost;
}

/* With srtp-key on both ends the stream comes out as without a key,
 * packet for packet and byte for byte, and is SRTP on the wire (ten bytes
 * of tag more). A resent copy counts as a replay; a forged packet (plain
 * RTP whose layer sequence jumps ahead) as an authentication failure, and
 * neither counts as loss or comes out. */
GST_START_TEST (test_srtp_end_to_end)
{
  SrtpRun plain, keyed;
  SrcRig r;
  guint8 forged[128];
  gsize n;

  srtp_run ("239.255.80.1", NULL, NULL, TRUE, &plain, &r);
  fail_unless_equals_uint64 (plain.pushed, SRTP_PACKETS);
  fail_unless_equals_uint64 (plain.accepted, 0);
  src_rig_clear (&r);

  srtp_run ("239.255.80.1", SRTP_KEY, SRTP_KEY, TRUE, &keyed, &r);
  fail_unless_equals_uint64 (keyed.pushed, SRTP_PACKETS);
  fail_unless_equals_uint64 (keyed.bytes, plain.bytes);
  fail_unless_equals_uint64 (keyed.accepted, SRTP_PACKETS);
  fail_unless_equals_uint64 (keyed.protected_packets, SRTP_PACKETS);
  fail_unless_equals_int (keyed.captured_len, plain.captured_len + 10);

  send_to_group (r.tx, "239.255.80.1", r.port, keyed.captured,
      keyed.captured_len);
  wait_stat (&r, "srtp-replayed", 1);
  n = stamped_rtp (forged, 40, 0, 5000);
  send_to_group (r.tx, "239.255.80.1", r.port, forged, n);
  wait_stat (&r, "srtp-auth-failed", 1);
  /* a sound packet after them: the layer's loss count is still 0 */
  fail_unless_equals_uint64 (layer_lost (r.src), 0);
  fail_unless_equals_uint64 (check_stat_u64 (r.src, "pushed"), SRTP_PACKETS);
  fail_unless (gst_harness_try_pull (r.h) == NULL);
  src_rig_clear (&r);
}

GST_END_TEST;

/* A source under another key, or a source with a key fed plain RTP,
 * outputs nothing and counts every packet as an authentication failure. */
GST_START_TEST (test_srtp_wrong_key_or_none)
{
  SrtpRun run;
  SrcRig r;

  srtp_run ("239.255.80.11", SRTP_KEY, SRTP_OTHER, FALSE, &run, &r);
  fail_unless_equals_uint64 (run.pushed, 0);
  fail_unless_equals_uint64 (run.auth_failed, SRTP_PACKETS);
  fail_unless_equals_uint64 (run.accepted, 0);
  fail_unless_equals_uint64 (layer_lost (r.src), 0);
  src_rig_clear (&r);

  srtp_run ("239.255.80.11", NULL, SRTP_KEY, FALSE, &run, &r);
  fail_unless_equals_uint64 (run.pushed, 0);
  fail_unless_equals_uint64 (run.auth_failed, SRTP_PACKETS);
  src_rig_clear (&r);
}

GST_END_TEST;

/* srtp-key is write-only and never in the URI, srtp-profile and
 * srtp-key-file are URI parameters; a bad key fails the start without
 * showing it. */
GST_START_TEST (test_srtp_properties)
{
  GstElement *e = check_make_element ("rlmsrc", "");
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "srtp-key");
  gchar *uri;

  fail_unless (ps && !(ps->flags & G_PARAM_READABLE));
  g_object_set (e, "uri", "rlm://239.1.1.9:5004?srtp-key=" SRTP_KEY
      "&srtp-profile=aes-128-cm-hmac-sha1-32", NULL);
  g_object_get (e, "uri", &uri, NULL);
  fail_unless (strstr (uri, "srtp-profile=aes-128-cm-hmac-sha1-32") != NULL,
      "%s", uri);
  fail_unless (strstr (uri, SRTP_KEY) == NULL, "%s", uri);
  g_free (uri);
  gst_object_unref (e);
  check_start_error ("fakesrc ! rlmsink multicast-iface=lo "
      "srtp-key=00112233",
      "srtp-key: the SRTP key of this profile is 30 bytes");
  check_start_error ("rlmsrc multicast-iface=lo srtp-key=00112233 "
      "! fakesink",
      "srtp-key: the SRTP key of this profile is 30 bytes");
}

GST_END_TEST;

static Suite *
rlm_suite (void)
{
  Suite *s = suite_create ("rlm");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_sink_routes_layers);
  tcase_add_test (tc, test_sink_one_port);
  tcase_add_test (tc, test_sink_proposes_rates);
  tcase_add_test (tc, test_src_level_one_continuous);
  tcase_add_test (tc, test_src_start_level);
  tcase_add_test (tc, test_src_joins_merges_leaves);
  tcase_add_test (tc, test_src_source_specific);
  tcase_add_test (tc, test_src_key_seals_and_checks);
  tcase_add_test (tc, test_src_without_key_unchanged);
  tcase_add_test (tc, test_key_properties_and_uri);
  tcase_add_test (tc, test_key_errors_clear);
  tcase_add_test (tc, test_uri_errors_clear);
  tcase_add_test (tc, test_start_errors_clear);
  tcase_add_test (tc, test_docs_units_defaults);
  tcase_add_test (tc, test_srtp_end_to_end);
  tcase_add_test (tc, test_srtp_wrong_key_or_none);
  tcase_add_test (tc, test_srtp_properties);
  return s;
}

GST_CHECK_MAIN (rlm);
