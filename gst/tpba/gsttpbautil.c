/* Shared by tpbasink and tpbasrc (see gsttpbautil.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gsttpbautil.h"

GType
gst_tpba_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TPBA_MODE_TPBA, "TPBA: TCP rate probing, then UDP at the probed rate "
          "(section 4)", "tpba"},
    {TPBA_MODE_LDA, "LDA baseline: UDP only, loss-delay adjustment "
          "(section 3)", "lda"},
    {TPBA_MODE_LDAF, "LDA with a fixed AIR (section 6.2)", "ldaf"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTpbaMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_tpba_end_criterion_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TPBA_END_ABSOLUTE, "|r[i-k] - r[i]| < epsilon, k = 1, 2 (section 4)",
        "absolute"},
    {TPBA_END_PROPORTIONAL, "|r[i-k] - r[i]| < z r[i], k = 1, 2 (section 7)",
        "proportional"},
    {TPBA_END_CONFIDENCE, "95 % confidence interval of the mean r over the "
          "last cycles narrower than ci-width; keeps the mean (not in the "
          "paper)", "confidence"},
    {TPBA_END_SETTLED, "r no longer climbs by ci-width across the last "
          "settle-window cycles, or ci-max-cycles reached; keeps their "
          "median (not in the paper)", "settled"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTpbaEndCriterion", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_tpba_probe_interval_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TPBA_PROBE_INTERVAL_FIXED, "Cycles of t-tcp (section 4)", "fixed"},
    {TPBA_PROBE_INTERVAL_CWND, "Cycles between cwnd reductions (section 7)",
        "cwnd"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTpbaProbeInterval", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_tpba_kept_rate_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TPBA_KEPT_PROBE, "The rate the end criterion takes from the probe's "
          "cycles (section 4)", "probe"},
    {TPBA_KEPT_EQUATION, "TCP's throughput equation (RFC 5348 section 3.1) "
          "on the loss event rate, RTT and segment size TCP_INFO showed over "
          "the cycles after the first; the probe's rate without a loss "
          "event (not in the paper)", "equation"},
    {TPBA_KEPT_EQUATION_EPISODES, "The same equation at the rate where a "
          "TCP flow sees the loss events per second the probe saw (congestion "
          "episodes every flow at a drop-tail queue shares); the probe's rate "
          "without a loss event (not in the paper)", "equation-episodes"},
    {TPBA_KEPT_EQUATION_SAWTOOTH, "The mean rate of one flow of the probe's "
          "own congestion control (reno if tcp-congestion is reno, else "
          "cubic) whose window is cut at each of the loss events per second "
          "the probe saw and held sawtooth-hold RTTs after each cut, at the "
          "probe's RTT; the probe's rate without a loss event (not in the "
          "paper)", "equation-sawtooth"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTpbaKeptRate", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define S GST_TPBA_PARAM_SINK
#define R GST_TPBA_PARAM_SRC
#define H (1e12 * 3600)
/* name, blurb, kind, enum type, config field, min, max, elements */
#define P(name, blurb, kind, type, field, min, max, elements) \
  { name, NULL, blurb, GST_PARAM_KIND_ ## kind, type, min, max, \
    G_STRUCT_OFFSET (TpbaConfig, field), elements }

static const GstParamEntry params[] = {
  P ("mode", "Sender scheme: tpba (the paper's), lda or ldaf (baselines)",
      ENUM, gst_tpba_mode_get_type, mode, 0, 0, S),
  P ("end-criterion", "End of the probing period: absolute (epsilon, "
        "section 4), proportional (z, section 7), confidence (ci-width, "
        "ci-max-cycles) or settled (settle-window, ci-width, ci-max-cycles; "
        "not in the paper)", ENUM, gst_tpba_end_criterion_get_type,
      end_criterion, 0, 0, S),
  P ("probe-interval", "Probing cycles: fixed (t-tcp, section 4) or cwnd "
        "(between cwnd reductions, section 7)", ENUM, gst_tpba_probe_interval_get_type,
      probe_interval, 0, 0, S),
  P ("reprobe-on-reductions", "Probe again at once after reprobe-count "
        "successive cuts of at least reprobe-cut (section 4, T_running)",
      BOOLEAN, NULL, reprobe_on_reductions, 0, 1, S),
  P ("allow-probe-loss", "Running period: cut the rate only for the loss "
        "above what TCP had while measuring r_s (p-probe in stats; not in "
        "the paper)", BOOLEAN, NULL, allow_probe_loss, 0, 1, S),
  P ("t-tcp", "T_tcp: length of a probing cycle, ns (paper: 1 s, Table 2)",
      TIME, NULL, t_tcp, 1e6, H, S),
  P ("epsilon", "epsilon: end-of-probing threshold, bits/s (paper: 30 kbit/s, "
        "Table 2)", UINT64, NULL, epsilon, 0, 1e12, S),
  P ("z", "z: proportional end criterion, fraction of r[i] (paper: 0.05, "
        "section 7)", DOUBLE, NULL, z, 0, 1, S),
  P ("ci-width", "Confidence end criterion: probing ends when the 95 % "
        "confidence interval of the mean r is narrower than this fraction "
        "of it on each side (not in the paper)", DOUBLE, NULL, ci_width, 0, 1,
      S),
  P ("ci-max-cycles", "Confidence end criterion: the most cycles averaged; "
        "probing ends with their mean when this many gave no narrower "
        "interval. Settled criterion: the longest probing period, in cycles "
        "(not in the paper)", UINT, NULL, ci_max_cycles, 3, 32, S),
  P ("settle-window", "Settled end criterion: probing ends when the rate "
        "of the last this many cycles no longer climbs by ci-width across "
        "them, and keeps their median (not in the paper)", UINT, NULL,
      settle_window, 3, 16, S),
  P ("running-increase", "Running period: the rate grows by this at every "
        "adaptation point without loss, at most by TCP's growth (LDA's line "
        "C), bits/s (0: never, the paper's)", UINT64, NULL, running_increase,
      0, 1e12, S),
  P ("running-increase-fraction", "Running period: the rate grows by this "
        "fraction of itself at every adaptation point without loss when that "
        "is more than running-increase, at most by TCP's growth (LDA's line "
        "C) (0: never, the paper's)", DOUBLE, NULL, running_increase_fraction,
      0, 1, S),
  P ("running-ceiling", "Running period: a loss-free adaptation point never "
        "raises the rate above this multiple of r_s, the rate the last "
        "probing period kept (0: no ceiling; not in the paper)", DOUBLE, NULL,
      running_ceiling, 0, 100, S),
  P ("running-ceiling-peak", "With running-ceiling, the ceiling multiplies "
        "the last probing period's largest cycle after its first (never below "
        "r_s) instead of r_s (FALSE: r_s; not in the paper)", BOOLEAN, NULL,
      running_ceiling_peak, 0, 1, S),
  P ("running-queue-margin", "Running period: a loss-free adaptation point "
        "takes no step while the RTT of the last RTCP RR is more than this "
        "above the probe's RTT (the mean TCP_INFO RTT of the last probing "
        "period), ns (0: off; not in the paper)", TIME, NULL,
      running_queue_margin, 0, H, S),
  P ("running-hold-on-loss", "With allow-probe-loss and a running step, an "
        "adaptation point whose loss allow-probe-loss tolerates holds the "
        "rate; only a point without loss takes the step (FALSE: it steps; "
        "not in the paper)", BOOLEAN, NULL, running_hold_on_loss, 0, 1, S),
  P ("running-queue-cut", "Running period: an adaptation point that would "
        "step while the RTT of the last RTCP RR is more than this above the "
        "probe's RTT (the mean TCP_INFO RTT of the last probing period) "
        "instead cuts the rate halfway back to r_s, the rate the last probe "
        "kept (at or below r_s it holds), ns (0: off; not in the paper)",
      TIME, NULL, running_queue_cut, 0, H, S),
  P ("t-running", "T_running: length of the running period, ns (paper: 10 s, "
        "section 6.1)", TIME, NULL, t_running, 1e6, H, S),
  P ("t-adapt", "T_adapt: between adaptation points, ns (paper: 3 s)",
      TIME, NULL, t_adapt, 1e6, H, S),
  P ("t-rtcp", "T_rtcp: between RTCP reports (SR / RR), ns (paper: 1 s)",
      TIME, NULL, t_rtcp, 1e6, H, S | R),
  P ("r-f", "R_f: rate reduction factor, r = r (1 - p_loss R_f) (paper: 3.0, "
        "Table 2)", DOUBLE, NULL, r_f, 0, 1000, S),
  P ("r-0", "LDA initial rate, bits/s (paper: 10 kbit/s, section 6.2)",
      UINT64, NULL, r_0, 1, 1e12, S),
  P ("r-min", "Minimum rate after a reduction, bits/s (not in the paper: "
        "10 kbit/s)", UINT64, NULL, r_min, 1, 1e12, S),
  P ("air-0", "LDA AIR_0, bits/s (paper: 10 kbit/s, section 3)", UINT64, NULL,
      air_0, 0, 1e12, S),
  P ("packet-size", "LDA packet size P of line (C), bytes (0: the mean sent)",
      UINT, NULL, packet_size, 0, 65535, S),
  P ("probe-initial-rate", "Rate offered to the encoder in the first probing "
        "period, bits/s (not in the paper: 1 Mbit/s)", UINT64, NULL,
      probe_initial_rate, 1, 1e12, S),
  P ("probe-headroom", "While probing the encoder is offered r[i] (1 + this) "
        "(not in the paper: 0.25)", DOUBLE, NULL, probe_headroom, 0, 100,
      S),
  P ("pace-burst", "UDP pacing: how far behind its schedule the sender may "
        "catch up at once after a late wake-up, ns (0: never, every packet "
        "one packet time after the last, and each late wake-up is rate lost; "
        "not in the paper: 5 ms)", TIME, NULL,
      pace_burst, 0, 1e9, S),
  P ("max-rate", "Cap of every rate, bits/s (100 Mbit/s)", UINT64, NULL,
      max_rate, 1, 1e12, S),
  P ("max-probe-cycles", "End probing after this many cycles (0: never, the "
        "paper)", UINT, NULL, max_probe_cycles, 0, G_MAXUINT, S),
  P ("max-probe-median", "A probing period ended by max-probe-cycles keeps "
        "the median of its cycles after the first, not the last cycle "
        "(FALSE: the last; not in the paper)", BOOLEAN, NULL, max_probe_median,
      0, 1, S),
  P ("max-probe-after-loss", "With max-probe-median, the median is over the "
        "cycles after the first that saw a loss (TCP retransmitted or cut "
        "cwnd), leaving out the climb from the UDP rate; without one, the last "
        "cycle (FALSE: every cycle after the first; not in the paper)", BOOLEAN,
      NULL, max_probe_after_loss, 0, 1, S),
  P ("max-probe-peak", "A probing period ended by max-probe-cycles keeps "
        "the largest of its cycles after the first, bits/s as measured, "
        "before max-probe-median (FALSE: the last or the median; not in the "
        "paper)", BOOLEAN, NULL, max_probe_peak, 0, 1, S),
  P ("max-probe-peak-if-rising", "With max-probe-peak, the largest cycle is "
        "kept only when the cycles after the first rise or hold (least-squares "
        "slope >= 0); when they fall, the median of their later half, bits/s "
        "(FALSE: always the largest; not in the paper)", BOOLEAN, NULL,
      max_probe_peak_if_rising, 0, 1, S),
  P ("kept-rate", "What a probing period keeps as r_s, bits/s: probe (from "
        "its cycles, the end criterion's), equation (TCP's throughput "
        "equation, RFC 5348 3.1, on the loss event rate and RTT of the "
        "cycles after the first), equation-episodes (the same at the "
        "probe's loss events per second) or equation-sawtooth (the mean rate "
        "of the probe's own reno or cubic cut at those loss events); "
        "TCP_INFO sampled every "
        "tcp-sample-interval while probing with any of the three (not in the paper)", ENUM, gst_tpba_kept_rate_get_type,
      kept_rate, 0, 0, S),
  P ("episodes-factor", "kept-rate=equation-episodes: the rate kept is the "
        "per-second rule's times this (1.0: the rule's; not in the paper)",
      DOUBLE, NULL, episodes_factor, 0.05, 20, S),
  P ("sawtooth-hold", "kept-rate=equation-sawtooth: RTTs the modelled window "
        "is held after each cut before it grows again (loss detection and "
        "recovery; 1.4, fitted on the bed's TCP flows; not in the paper)",
      DOUBLE, NULL, sawtooth_hold, 0, 100, S),
  P ("run-probe-ratio", "A running period lasts at least this multiple of "
        "the probing period before it (first TCP to first UDP packet), or "
        "t-running if longer (0: t-running only, the paper's; not in the "
        "paper)", DOUBLE, NULL, run_probe_ratio, 0, 1000, S),
  P ("t-tcp-min", "probe-interval=cwnd: shortest cycle, ns (100 ms)", TIME, NULL,
      t_tcp_min, 0, H, S),
  P ("t-tcp-max", "probe-interval=cwnd: longest cycle, ns (4 s)", TIME, NULL,
      t_tcp_max, 1e6, H, S),
  P ("tcp-sample-interval", "probe-interval=cwnd or kept-rate other than "
        "probe: TCP_INFO sampling while probing, ns (10 ms)", TIME, NULL,
      tcp_sample_interval, 1e5, H, S),
  P ("reprobe-count", "reprobe-on-reductions: successive large cuts (2)",
      UINT, NULL, reprobe_count, 1, 1000, S),
  P ("reprobe-cut", "reprobe-on-reductions: a large cut is at least this "
        "fraction of r (0.2)", DOUBLE, NULL, reprobe_cut, 0, 1, S),
  P ("reprobe-below", "Probe again at once when a running period's cut "
        "takes the rate below this fraction of the probed rate r_s (0: off; "
        "not in the paper: section 4 suggests successive large cuts, "
        "reprobe-on-reductions)", DOUBLE, NULL, reprobe_below, 0, 1, S),
  P ("reorder-wait", "How long a gap after a UDP packet is waited for, ns "
        "(50 ms)", TIME, NULL, reorder_wait, 0, H, R),
  P ("switch-wait", "How long a gap after a TCP packet is waited for (the "
        "rest of the TCP stream at a switch), ns (1 s)", TIME, NULL,
      switch_wait, 0, H, R),
  P ("max-held", "Reorder buffer bound, packets (4096)", UINT, NULL,
      max_held, 16, 1 << 20, R),
  P ("key-unit-holdoff", "After a PLI (RFC 4585) has asked upstream for a key "
        "unit, further PLIs are ignored for this long or twice the RTT "
        "measured from the RRs, whichever is larger, ns (500 ms)", TIME, NULL,
      key_unit_holdoff, 0, H, S),
  P ("switch-max-delay", "A decided transport switch waits at most this long "
        "for an ADU boundary, then applies inside the ADU (tpbasrc merges "
        "both transports in sequence order); 0: only at a boundary, the "
        "paper's rule, ns (1 s)", TIME, NULL, switch_max_delay, 0, H, S),
};

#undef S
#undef R
#undef P
#undef H

static void
config_init (gpointer cfg)
{
  tpba_config_init (cfg);
}

const GstParamTable gst_tpba_params = {
  params, G_N_ELEMENTS (params), sizeof (TpbaConfig), config_init
};


gboolean
gst_tpba_auth_new (GstElement * element, const GstNetKeySettings * settings,
    AuthSession ** auth, GError ** error)
{
  GstNetKeySettings keys;
  AuthKey key;
  gboolean have_key, ok;

  GST_OBJECT_LOCK (element);
  gst_net_key_settings_copy (&keys, settings);
  GST_OBJECT_UNLOCK (element);
  /* outside the lock: it may read a file */
  ok = gst_net_key_load (&keys, &key, &have_key, error);
  gst_net_key_settings_clear (&keys);
  *auth = ok && have_key ? auth_session_new (&key, g_random_int (),
      AUTH_DEFAULT_MAX_SENDERS) : NULL;
  gst_net_key_wipe (&key, sizeof (key));
  return ok;
}

void
gst_tpba_auth_stats (GstStructure * s, const AuthSession * auth)
{
  AuthStats st;

  memset (&st, 0, sizeof (st));
  if (auth)
    auth_session_get_stats (auth, &st);
  gst_net_key_stats (s, auth != NULL, &st);
}
