/* Shared by vlmccsink and vlmccsrc (see gstvlmccutil.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstvlmccutil.h"
#include "gstnetsocket.h"

static const GEnumValue vegas_delay_values[] = {
  {VLMCC_VEGAS_DELAY_RTT, "The smoothed RTT of equation (1) (the paper)",
      "rtt"},
  {VLMCC_VEGAS_DELAY_MIN_RTT, "The least RTT sample of each RTT, as TCP "
        "Vegas takes it (ours)", "min-rtt"},
  {VLMCC_VEGAS_DELAY_FORWARD, "The forward queueing delay from the "
        "leader's arrival stamps: blind to delay on the ack path (ours)",
      "forward"},
  {0, NULL, NULL}
};

GType
gst_vlmcc_vegas_delay_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstVlmccVegasDelay",
            vegas_delay_values));
  return (GType) type;
}

static const GEnumValue plus_loss_mode_values[] = {
  {VLMCC_PLUS_LOSS_RENO, "One packet more per RTT, halved on loss (ours)",
      "reno"},
  {VLMCC_PLUS_LOSS_CUBIC, "RFC 9438's cubic growth with its Reno-friendly "
        "region, x 0.7 on loss (ours)", "cubic"},
  {VLMCC_PLUS_LOSS_CUBIC_LINUX, "As cubic, the Reno-friendly region growing "
        "3(1-0.7)/(1+0.7) packets per RTT throughout as Linux's (ours)",
      "cubic-linux"},
  {0, NULL, NULL}
};

GType
gst_vlmcc_plus_loss_mode_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstVlmccPlusLossMode",
            plus_loss_mode_values));
  return (GType) type;
}

#define S GST_VLMCC_PARAM_SINK
#define R GST_VLMCC_PARAM_SRC
#define H (1e12 * 3600)
#define P(name, blurb, kind, field, min, max, elements) \
  { name, NULL, blurb, GST_PARAM_KIND_ ## kind, NULL, min, max, \
    G_STRUCT_OFFSET (VlmccConfig, field), elements }

static const GstParamEntry params[] = {
  P ("g", "Gain of the RTT estimator, equation (1) (paper: 0.1)", DOUBLE, g,
      0.001, 1, S | R),
  P ("g-var", "Gain of the RTT deviation estimator, equation (2) (paper: "
        "0.1)", DOUBLE, g_var, 0.001, 1, S | R),
  P ("burst", "Packets sent back to back before pacing at rtt/W, packets "
        "(paper: 2)", UINT, burst, 1, 64, S),
  P ("rto-var-mult", "A packet is lost when not acked within rtt + this x "
        "the deviation (paper: 4, TCP's RTO)", UINT, rto_var_mult, 0, 64, S),
  P ("packet-size", "MaxSegment: bytes per packet in every rate in bit/s, "
        "bytes (paper: 1000; set the payloader's mtu to it)", UINT,
      packet_size, 64, 65000, S | R),
  P ("alpha", "Vegas lower threshold on the expected minus actual "
        "throughput, packets (ours: 1)", DOUBLE, alpha, 0, 1000, S | R),
  P ("beta", "Vegas upper threshold, packets (ours: 3)", DOUBLE, beta, 0,
      1000, S | R),
  P ("n-extra", "N_extra of the challenge condition, equation (6), packets "
        "(ours: 2)", DOUBLE, n_extra, 0, 1000, R),
  P ("diff-avg-gain", "Gain of the follower's moving average of the rate "
        "difference (ours: 0.1)", DOUBLE, diff_avg_gain, 0.001, 1, R),
  P ("rto-granularity", "Least margin of the loss timeout over the RTT, ns "
        "(ours: 10 ms, RFC 6298's G)", TIME, rto_granularity, 0, H, S),
  P ("rto-min", "The loss timeout is never under this, ns (ours: 200 ms, "
        "RFC 6298's floor as Linux has it; a late ack undoes the halving)",
      TIME, rto_min, 0, H, S),
  P ("dup-thresh", "A packet is lost when one sent this many after it is "
        "acked, packets (ours: 3, RFC 5681's duplicate acks)", UINT,
      dup_thresh, 1, 1000, S),
  P ("start-rate", "STARTs answering join probes, at most this many a "
        "second overall (a bucket of one second), packets/s (ours: 200)",
      UINT, start_rate, 1, 100000, S),
  P ("start-gap", "And one per address per this, or per RTT when longer "
        "(up to 1 s), ns (ours: 100 ms)", TIME, start_gap, 0, H, S),
  P ("initial-window", "Window before any feedback, packets (ours: 2)", UINT,
      initial_window, 1, 10000, S | R),
  P ("initial-rtt", "RTT before any sample, ns (ours: 100 ms)", TIME,
      initial_rtt, 1e6, H, S | R),
  P ("election-holdoff", "Challenges are refused this many RTTs after an "
        "election, RTTs (ours: 4)", UINT, election_holdoff, 0, 1000, S),
  P ("election-holdoff-min", "And never less than this after an election, "
        "whatever RTT the challenger claimed: at most one election per this "
        "time, key or none, ns (ours: 100 ms)", TIME, election_holdoff_min,
      1e6, H, S),
  P ("rate-floor", "Rate floor, bit/s: the sink refuses challenges below "
        "it and keeps W >= floor x rtt; a receiver below it for leave-time "
        "leaves (0: none)", UINT64, rate_floor, 0, G_MAXUINT64, S | R),
  P ("leave-time", "A receiver below the rate floor this long leaves, ns "
        "(ours: 2 s)", TIME, leave_time, 0, H, R),
  P ("probe-interval", "A receiver repeats its join probe this often until "
        "the sender answers, ns (ours: 1 s)", TIME, probe_interval, 1e6, H,
      R),
  P ("max-queue", "Packets the sink holds for pacing; upstream waits while "
        "it is full, packets (ours: 512)", UINT, max_queue, 1, 65536, S),
  P ("ext-id", "RFC 8285 one-byte header extension id of the data fields, "
        "1..14 (ours: 7; sender and receivers must agree)", UINT, ext_id, 1,
      14, S | R),
  P ("vegas-plus", "Vegas+ fallback (ours, off: the paper's Vegas): when "
        "the queue holds more packets than the window, grow the window by "
        "one packet per RTT, halved on loss (or as CUBIC: plus-loss-mode), "
        "until a halving finds the queue back within the window", BOOLEAN, vegas_plus, 0, 1, S | R),
  P ("plus-epochs", "Vegas+: RTTs in a row the queue must hold more "
        "packets than the window before the window turns loss-based "
        "(ours: 2)", UINT, plus_epochs, 1, 1000, S | R),
  P ("plus-loss-epochs", "Vegas+ on an AQM: a halving while the window "
        "is Vegas turns it loss-based too, and it goes back to Vegas only "
        "after this many RTTs without a halving, or sooner when its packets "
        "alone fill the link (ours: 16; 0: the held-queue "
        "test alone)", UINT, plus_loss_epochs, 0, 1000, S | R),
  P ("plus-recovery-hold", "Vegas+ loss-based mode: after a reduction the "
        "window grows nothing for one RTT and its cubic epoch starts then, "
        "as a TCP's cwnd stays put through its fast recovery (ours, off: "
        "grow from the next RTT)", BOOLEAN, plus_recovery_hold, 0, 1, S | R),
  P ("plus-loss-segment", "Vegas+ loss-based mode: a reduction leaves a "
        "whole number of segments of this size, at least 2, as Linux's TCP "
        "floors 0.7 cwnd in segments, bytes (ours: 0, off; 1448 is TCP's "
        "segment on Ethernet)", UINT, plus_loss_segment, 0, 65000, S | R),
  P ("challenge-echo", "Challenge echo (ours, off: the paper's): every "
        "data packet also tells the group how long the election hold-off "
        "lasts, so followers keep back the challenges it would refuse",
      BOOLEAN, challenge_echo, 0, 1, S),
  P ("echo-ext-id", "RFC 8285 one-byte header extension id of the "
        "challenge echo, 1..14 (ours: 8; sender and receivers must agree, "
        "and it must differ from ext-id)", UINT, echo_ext_id, 1, 14, S | R),
  P ("challenge-delay", "Under the sender's challenge echo, a follower "
        "waits a random time of up to this many of its RTTs (biased late) "
        "before it challenges, RTTs (ours: 0, none; it costs rate, "
        "docs/results.md)", DOUBLE, challenge_delay, 0, 100, R),
  P ("leaderless-growth-limit", "After a leadership loss, section 2.4's "
        "growth of one packet per RTT stops at this many times the window "
        "the last leader left, x window (ours: 0, no bound, the paper's; "
        "pair it with the receivers' volunteer-after)", DOUBLE,
      leaderless_growth_limit, 0, 1000, S),
  P ("volunteer-after", "A follower whose path could carry more offers "
        "to lead when the data has named no leader for this many of its "
        "RTTs, after a wait of up to this many times 50 ms ranked by its "
        "path's headroom (tightest first), RTTs (ours: 0, never, the "
        "paper's)", DOUBLE, volunteer_after, 0, 1000, R),
  P ("start-anchor", "Move the START's RTT by the data's one-way delay over "
        "the START's (both stamped by the sender), so a follower's RTT and "
        "base RTT include the data packet's serialisation (ours: false, the "
        "paper's: the small START's RTT as is)", BOOLEAN, start_anchor, 0, 1,
      R),
  P ("take-start-hold", "Take the time the sender held the probe, which "
        "its START reports, out of the START's RTT, so a follower's RTT and "
        "base RTT are the path's (true: the paper's START RTT made right; "
        "false: the RTT as it came, as before the field)", BOOLEAN,
      start_hold, 0, 1, R),
  P ("own-base", "A challenger's base RTT is the least of the sender's "
        "own RTT samples over its first RTT as leader less the queueing it "
        "claimed (its RTT less its base RTT), not its claimed base RTT "
        "(ours: false, the claimed base)", BOOLEAN, own_base, 0, 1, S),
  P ("rtt-min-window", "A follower's RTT sample enters its RTT estimate "
        "as the least of the samples over the last this many of its RTTs, "
        "so packets held late by a loaded host are not taken for queueing, "
        "RTTs (ours: 0, each sample as is, the paper's)", DOUBLE,
      rtt_min_window, 0, 100, R),
  P ("challenge-confirm", "A follower challenges only once equation (6) "
        "has held over the last this many of its RTTs, so a jitter spike "
        "in its RTT is not taken for a worse path, RTTs (ours: 0, at once, "
        "the paper's)", DOUBLE, challenge_confirm, 0, 100, R),
  P ("vegas-ack-clock", "Vegas' actual rate is the packets in travel over "
        "the RTT estimate plus the hosts' time per ack (the leader's hold "
        "and the sink's wait to read the ack, which the RTT estimate leaves "
        "out) (ours: false, the paper's)", BOOLEAN,
      vegas_ack_clock, 0, 1, S),
  P ("window-covers-hold", "The sink lets W (1 + h / rtt) packets travel, "
        "h the hosts' time per ack (the leader's hold and the sink's wait "
        "to read the ack, at most one RTT), so the window's W / rtt flows on "
        "a loaded host; Vegas counts W of them (ours: false, W in travel, "
        "the paper's)", BOOLEAN, window_covers_hold, 0, 1, S),
  P ("pacing-catch-up", "After a late turn of the sink's loop the pace "
        "keeps its schedule and makes up at most this much of the lateness, "
        "ns (ours: 10 ms; 0 turns it off: the next burst waits a whole gap "
        "from the late send, the paper's)", TIME, pacing_catch_up, 0, H, S),
  {"vegas-delay", NULL, "What the Vegas step compares with the base RTT "
        "(default rtt, the paper's; forward ignores jitter and queueing on "
        "the ack path; docs/protocols/vlmcc.md)", GST_PARAM_KIND_ENUM,
      gst_vlmcc_vegas_delay_get_type, 0, 0, G_STRUCT_OFFSET (VlmccConfig,
          vegas_delay), S},
  {"plus-loss-mode", NULL, "Vegas+: the window rule of the loss-based "
        "mode (default cubic, RFC 9438's CUBIC; reno: one packet more per "
        "RTT, halved on loss; cubic-linux: cubic with Linux's Reno-friendly "
        "region; the Vegas mode is the same either way)", GST_PARAM_KIND_ENUM,
      gst_vlmcc_plus_loss_mode_get_type, 0, 0, G_STRUCT_OFFSET (VlmccConfig,
          plus_loss_mode), S | R},
};

static void
config_init (gpointer cfg)
{
  vlmcc_config_init (cfg);
}

const GstParamTable gst_vlmcc_params = {
  params, G_N_ELEMENTS (params), sizeof (VlmccConfig), config_init
};

void
gst_vlmcc_addr_from_socket (GSocketAddress * from, VlmccAddr * addr)
{
  memset (addr, 0, sizeof (*addr));
  addr->len = gst_net_address_to_native (from, addr->bytes,
      sizeof (addr->bytes));
}

GSocketAddress *
gst_vlmcc_addr_to_socket (const VlmccAddr * addr)
{
  if (addr->len == 0)
    return NULL;
  return g_socket_address_new_from_native ((gpointer) addr->bytes,
      addr->len);
}

GstMessage *
gst_vlmcc_leader_message (GstElement * element, guint32 leader,
    guint64 changes)
{
  return gst_message_new_element (GST_OBJECT (element),
      gst_structure_new ("vlmcc-leader", "leader", G_TYPE_UINT, leader,
          "leader-changes", G_TYPE_UINT64, changes, NULL));
}

gboolean
gst_vlmcc_run_key_load (GstElement * element,
    const GstNetKeySettings * settings, GstVlmccRunKey * run, GError ** err)
{
  GstNetKeySettings copy;
  gboolean ok;

  GST_OBJECT_LOCK (element);
  gst_net_key_settings_copy (&copy, settings);
  GST_OBJECT_UNLOCK (element);
  gst_vlmcc_run_key_clear (run);
  ok = gst_net_key_load (&copy, &run->key, &run->set, err);
  gst_net_key_settings_clear (&copy);
  if (!ok)
    gst_vlmcc_run_key_clear (run);
  return ok;
}

void
gst_vlmcc_run_key_clear (GstVlmccRunKey * run)
{
  gst_net_key_wipe (&run->key, sizeof (run->key));
  run->set = FALSE;
}
