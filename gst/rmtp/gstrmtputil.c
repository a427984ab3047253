/* Shared by rmtpsink and rmtpsrc (see gstrmtputil.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstrmtputil.h"
#include "gstnetsocket.h"

GType
gst_rmtp_repair_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {RMTP_REPAIR_RETRANSMIT, "The NACKed packets again (the paper)",
        "retransmit"},
    {RMTP_REPAIR_PARITY, "Reed-Solomon parity over blocks, as many rows as "
          "the worst receiver lacks in each (ours)", "parity"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRmtpRepair", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define S GST_RMTP_PARAM_SINK
#define R GST_RMTP_PARAM_SRC
#define H (1e12 * 3600)
#define P(name, blurb, kind, field, min, max, elements) \
  { name, NULL, blurb, GST_PARAM_KIND_ ## kind, NULL, min, max, \
    G_STRUCT_OFFSET (RmtpConfig, field), elements }

static const GstParamEntry params[] = {
  P ("packet-size", "Payload bytes of each DATA packet, bytes (paper: "
        "1024)", UINT, packet_size, 1, RMTP_MAX_PACKET_SIZE, S),
  P ("delta", "Backoff per receiver: answers are spread over delta x the "
        "receivers expected to answer, ns (paper: 2 ms)", TIME, delta, 0,
      1e10, S),
  P ("tat", "Turn-around time allowed for an answer; a receiver answers "
        "POLLs at most once per tat, ns (paper's LAN: 100 ms)", TIME, tat, 0,
      6e10, S | R),
  P ("alpha", "Surplus on every response timer, ns (ours: 50 ms)", TIME,
      alpha, 0, 6e10, S),
  P ("max-polls", "POLLs to a silent receiver before it is slow and served "
        "by unicast after the rounds, POLLs (ours: 3)", UINT, max_polls, 0,
      1000, S),
  P ("max-conn-retries", "Unicast CONN retries to a silent receiver, "
        "retries (ours: 3)", UINT, max_conn_retries, 0, 1000, S),
  P ("max-rel-retries", "Unicast REL retries to a receiver that has not "
        "released, retries (ours: 3)", UINT, max_rel_retries, 0, 1000, S),
  P ("empty-round-wait", "With receivers decoding apart "
        "(parity-decode-thread): the k-th round of an EOR alone running waits "
        "this times 2^(k-1), at most busy-poll-interval, after the "
        "answers of the round before; 0: at once, every window and "
        "turn-around while a decode lasts, ns (ours: 0)", TIME,
      empty_round_wait, 0, 1e10, S),
  P ("gone-rel-retries", "Unicast RELs to each receiver given up (silent "
        "in its unicast turn, or BUSY too long) that has not RACKed, after "
        "the group REL's window; the waits after them are tat + alpha, then "
        "twice, four times that; a complete receiver RACKs and counts "
        "complete, RELs (ours: 3; 0: none)", UINT, gone_rel_retries, 0, 16,
      S),
  P ("max-separate-rounds", "Unicast rounds for each slow receiver before "
        "it is given up, rounds (ours: 20)", UINT, max_separate_rounds, 1,
      100000, S),
  P ("slow-loss", "A receiver that lost more than this share of the "
        "packets it needed, in slow-rounds rounds running, is slow and "
        "served by unicast after the rounds, fraction 0..1 (ours: 0.5)",
      DOUBLE, slow_loss, 0, 1, S),
  P ("slow-factor", "... and more than this many times the other "
        "receivers' mean loss, factor (ours: 3)", DOUBLE, slow_factor, 0,
      1000, S),
  P ("slow-rounds", "Multicast rounds running a receiver must lose that "
        "much to be slow, rounds (ours: 2; 0: never)", UINT, slow_rounds, 0,
      1000, S),
  P ("slow-min-packets", "Rounds where a receiver needed fewer packets are "
        "not judged, packets (ours: 16)", UINT, slow_min_packets, 1, 1e9, S),
  { "repair", NULL, "How the rounds after the first repair losses: "
        "retransmit (the paper) or parity (ours)", GST_PARAM_KIND_ENUM,
      gst_rmtp_repair_get_type, 0, 0, G_STRUCT_OFFSET (RmtpConfig, repair),
      S },
  P ("parity-block", "Data packets a parity block holds, packets (ours: "
        "128); up to 255 by Reed-Solomon over GF(2^8) (256 - this rows), "
        "over 255 by GF(2^16) (65536 - this rows; about 32 x the receivers' "
        "decoding CPU at 2048)", UINT, parity_block, 1, 65535, S),
  P ("parity-surplus", "Size a block's parity to a receiver's losses over "
        "(1 - its loss share), not just its losses (ours: on)", BOOLEAN,
      parity_surplus, 0, 0, S),
  P ("release-on-ack", "A receiver that ACKs is released at once by "
        "unicast, not after the round by a group REL with a window of "
        "delta x N (ours; off: the paper)", BOOLEAN, release_on_ack, 0, 0, S),
  P ("early-repair", "The next multicast round's repairs for a NACK go "
        "out as it arrives, while the round's other answers still come in "
        "(ours; off: the paper)", BOOLEAN, early_repair, 0, 0, S),
  P ("conn-retry-backoff", "A CONN retried by unicast carries the answer "
        "window delta x the members retried with it, and its CACK is drawn "
        "over it (the paper's backoff for every CACK); off: window 0, "
        "answered at once (ours: the connection phase waits less)", BOOLEAN,
      conn_retry_backoff, 0, 0, S),
  P ("conn-retry-storm", "With conn-retry-backoff, the members retried "
        "together from which their CONN retries carry the window; fewer are "
        "answered at once, members (ours; 0: every batch, the paper)", UINT,
      conn_retry_storm, 0, 65535, S),
  P ("control-copies", "Each CONN, EOR and REL to the group is sent this "
        "many times back to back, copies (ours: 3)", UINT, control_copies,
      1, 10, S),
  P ("rate", "Send rate (the start rate with rate-control), bit/s (ours: "
        "8 Mbit/s)", UINT64, rate, 1000, 1e11, S),
  P ("min-rate", "Least rate of the rate control, bit/s (ours: 256 kbit/s)",
      UINT64, min_rate, 1000, 1e11, S),
  P ("max-rate", "Greatest rate of the rate control, bit/s (ours: "
        "100 Mbit/s)", UINT64, max_rate, 1000, 1e11, S),
  P ("rate-control", "Monitor-based rate control (section 3.2.3): the rate "
        "follows the receipt counts the representatives report", BOOLEAN,
      rate_control, 0, 0, S),
  P ("monitor-packets", "DATA packets per monitor period, packets (ours: "
        "256)", UINT, monitor_packets, 2, 1e6, S),
  P ("reporters", "Representatives: the first this many members report "
        "their receipt counts, members (ours: 32)", UINT, reporters, 0,
      RMTP_MAX_MEMBERS, S),
  P ("decrease-below", "The rate falls when the mean receipt ratio is "
        "below this, fraction 0..1 (ours: 0.95)", DOUBLE, decrease_below, 0,
      1, S),
  P ("increase-above", "The rate rises when the mean receipt ratio is "
        "above this, fraction 0..1 (ours: 0.995)", DOUBLE, increase_above,
      0, 1, S),
  P ("decrease-factor", "Factor of a fall of the rate (ours: 0.8)", DOUBLE,
      decrease_factor, 0.01, 1, S),
  P ("increase-factor", "Factor of a rise of the rate (ours: 1.05)", DOUBLE,
      increase_factor, 1, 10, S),
  P ("receiver-timeout", "Receiver: fail when the server is silent this "
        "long (plus 4 answer windows); server: the longest wait for BUSY "
        "receivers, ns (ours: 30 s)", TIME, receiver_timeout, 1e6, H, S | R),
  P ("connect-timeout", "Receiver: fail when no CONN that lists this "
        "member has come this long after the start (the server not running, "
        "another group or port, a member not in the list), ns (ours: 60 s; "
        "0: wait for ever)", TIME, connect_timeout, 0, H, R),
  P ("busy-poll-interval", "How often BUSY receivers are POLLed once only "
        "they are left, ns (ours: 1 s)", TIME, busy_poll_interval, 1e6, H,
      S),
  P ("send-burst", "Credit of the send pacer: how far it catches up after "
        "a late wake-up, ns (ours: 20 ms in the element; the simulator: 0)",
      TIME, send_burst, 0, 1e9, S),
  P ("max-total-size", "Largest data set this receiver accepts, its packet "
        "index included, bytes (ours: 128 MiB; a larger CONN is refused)",
      UINT64, max_total_size, 1, G_MAXUINT64, R),
  P ("parity-incremental", "Receiver: a parity block over 255 packets "
        "(GF(2^16)), and at least parity-incremental-min-block, is decoded "
        "as its packets and rows arrive (rows in "
        "batches of parity-incremental-batch), so the last needed row "
        "leaves at most its batch's work; off: the whole decode then; "
        "unused with parity-decode-thread (ours: on)", BOOLEAN,
      parity_incremental, 0, 0, R),
  P ("parity-expect-rows", "Receiver, with parity-incremental: the rows a "
        "block will need (its losses so far x 1.25 + 4) have their sums "
        "over the packets held made as the DATA come, so a row that comes "
        "costs 2 x the block's losses in products, not the block's size "
        "(ours: off)", BOOLEAN, parity_expect_rows, 0, 0, R),
  P ("parity-incremental-batch", "Receiver, with parity-incremental: rows "
        "are reduced this many at a time, each packet held read once a "
        "batch instead of once a row (many receivers on one machine's "
        "cache); a batch goes as soon as its rows may be all that is "
        "missing; 1: each row as it comes, rows (ours: 16)", UINT,
      parity_incremental_batch, 1, 1024, R),
  P ("parity-incremental-min-block", "Receiver, with parity-incremental: "
        "only parity blocks of at least this many packets are decoded as "
        "their rows arrive; smaller ones (down to 256) all at once, which "
        "costs less CPU there; 256: every GF(2^16) block, packets (ours: "
        "1024)", UINT, parity_incremental_min_block, 1, 65535, R),
  P ("parity-decode-thread", "Receiver: a parity block's decode runs "
        "one-shot (parity-incremental unused) on a worker thread, so the loop "
        "thread keeps taking packets and answering the server meanwhile; "
        "the rebuilt packets are handed back and output in order; off: it "
        "runs on the loop thread (ours: off)", BOOLEAN, parity_decode_apart,
      0, 0, R),
  P ("window-size", "Streaming mode: the sink sends the stream in windows "
        "of this many bytes as it comes, holding at most two windows and "
        "blocking upstream when they are full; each window is a data set "
        "of its own (0: data-set mode, the whole stream until EOS), bytes",
      UINT64, window_size, 0, 1073741824, S),
};

/* The element's defaults: the core's, and a pacer that catches up when
 * the loop thread wakes late (it runs on a shared machine's scheduler). */
static void
config_init (gpointer data)
{
  RmtpConfig *cfg = data;

  rmtp_config_init (cfg);
  cfg->send_burst = GST_RMTP_DEFAULT_SEND_BURST;
}

static const GstParamTable rmtp_params = {
  params, G_N_ELEMENTS (params), sizeof (RmtpConfig), config_init
};

void
gst_rmtp_settings_init (GstRmtpSettings * s, const GstNetUdpProps * udp)
{
  memset (s, 0, sizeof (*s));
  gst_net_udp_props_init_settings (udp, &s->net);
  config_init (&s->cfg);
  s->stats_interval = GST_RMTP_DEFAULT_STATS_INTERVAL;
}

void
gst_rmtp_settings_clear (GstRmtpSettings * s)
{
  gst_net_udp_settings_clear (&s->net);
}

void
gst_rmtp_settings_install (GObjectClass * klass, guint first_id,
    const GstNetUdpProps * udp, guint elements, const gchar * stats_name)
{
  gchar *blurb = g_strdup_printf ("Post the stats as an %s element message "
      "this often, ns (0: only at the end)", stats_name);

  g_object_class_install_property (klass,
      first_id + GST_RMTP_PROP_STATS_INTERVAL,
      g_param_spec_uint64 ("stats-interval", "Stats interval (ns)", blurb, 0,
          G_MAXINT64, GST_RMTP_DEFAULT_STATS_INTERVAL, G_PARAM_READWRITE |
          G_PARAM_STATIC_NAME | G_PARAM_STATIC_NICK |
          GST_PARAM_MUTABLE_READY));
  g_free (blurb);
  gst_net_udp_props_install (udp, klass, first_id + GST_RMTP_PROP_UDP);
  gst_param_table_install (&rmtp_params, klass,
      first_id + GST_RMTP_PROP_CONFIG, elements);
}

gboolean
gst_rmtp_settings_set (GstRmtpSettings * s, const GstNetUdpProps * udp,
    guint first_id, guint prop_id, const GValue * value)
{
  if (prop_id == first_id + GST_RMTP_PROP_STATS_INTERVAL) {
    s->stats_interval = g_value_get_uint64 (value);
    return TRUE;
  }
  return gst_net_udp_props_set (udp, &s->net, first_id + GST_RMTP_PROP_UDP,
      prop_id, value) || gst_param_table_set (&rmtp_params, &s->cfg,
      first_id + GST_RMTP_PROP_CONFIG, prop_id, value);
}

gboolean
gst_rmtp_settings_get (const GstRmtpSettings * s, guint first_id,
    guint prop_id, GValue * value)
{
  if (prop_id == first_id + GST_RMTP_PROP_STATS_INTERVAL) {
    g_value_set_uint64 (value, s->stats_interval);
    return TRUE;
  }
  return gst_net_udp_props_get (&s->net, first_id + GST_RMTP_PROP_UDP,
      prop_id, value) || gst_param_table_get (&rmtp_params, &s->cfg,
      first_id + GST_RMTP_PROP_CONFIG, prop_id, value);
}

GSocketAddress *
gst_rmtp_group_address (const GstNetUdpSettings * s, GError ** error)
{
  GSocketAddress *a;

  if (!s->address || !*s->address) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "address: no multicast group");
    return NULL;
  }
  a = gst_net_resolve ("address", s->address, s->port, NULL, error);
  if (a && !g_inet_address_get_is_multicast (g_inet_socket_address_get_address
          (G_INET_SOCKET_ADDRESS (a)))) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "address: \"%s\" is not a multicast address", s->address);
    g_clear_object (&a);
  }
  return a;
}

gboolean
gst_rmtp_send_datagram (GstNetUdp * udp, RmtpDatagram * d,
    GSocketAddress * to)
{
  gsize n;
  const guint8 *b = g_bytes_get_data (d->bytes, &n);
  GError *err = NULL;
  gboolean ok = to && gst_net_transport_send_to (GST_NET_TRANSPORT (udp), b,
      n, to, &err);

  if (!ok)
    GST_DEBUG ("datagram not sent: %s", err ? err->message : "no address");
  g_clear_error (&err);
  g_bytes_unref (d->bytes);
  d->bytes = NULL;
  return ok;
}

void
gst_rmtp_input_stats (GstStructure * s, const RmtpInputStats * in)
{
  gst_structure_set (s,
      "accepted", G_TYPE_UINT64, in->accepted,
      "malformed", G_TYPE_UINT64, in->malformed,
      "foreign", G_TYPE_UINT64, in->foreign,
      "forged", G_TYPE_UINT64, in->forged,
      "out-of-window", G_TYPE_UINT64, in->out_of_window,
      "duplicates", G_TYPE_UINT64, in->duplicates,
      "late", G_TYPE_UINT64, in->late, NULL);
}

const gchar *
gst_rmtp_fail_reason_name (RmtpFailReason reason)
{
  switch (reason) {
    case RMTP_FAIL_NONE:
      return "none";
    case RMTP_FAIL_REFUSED:
      return "refused";
    case RMTP_FAIL_DIGEST:
      return "digest";
    case RMTP_FAIL_SERVER_SILENT:
      return "server-silent";
    case RMTP_FAIL_INCOMPLETE:
      return "incomplete";
    case RMTP_FAIL_DROPPED:
      return "dropped";
    case RMTP_FAIL_STREAM_DIGEST:
      return "stream-digest";
    case RMTP_FAIL_NO_CONN:
      return "no-conn";
  }
  return "unknown";
}
