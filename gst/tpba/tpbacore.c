/* TPBA: a sans-I/O core (GLib only).
 * See tpbacore.h and docs/protocols/tpba.md. */
#include "tpbacore.h"
#include "core/wire.h"
#include "core/rtp.h"
#include "core/rtpseq.h"
#include "core/rtcp.h"
#include "core/ntp.h"
#include "core/pacer.h"
#include "core/polled.h"

#include <math.h>
#include <string.h>

#define NS_PER_S G_GINT64_CONSTANT (1000000000)
#define MS (G_GINT64_CONSTANT (1000000))


/* ------------------------------------------------------------------ */
/* Arithmetic and bytes */

static guint64
round_rate (gdouble r)
{
  if (!(r > 0))
    return 0;
  if (r >= 1.8e19)
    return G_MAXUINT64;
  return (guint64) llround (r);
}

/* ------------------------------------------------------------------ */
/* Configuration */

void
tpba_config_init (TpbaConfig * cfg)
{
  memset (cfg, 0, sizeof (*cfg));
  cfg->mode = TPBA_MODE_TPBA;
  cfg->end_criterion = TPBA_END_ABSOLUTE;
  cfg->probe_interval = TPBA_PROBE_INTERVAL_FIXED;
  cfg->t_tcp = NS_PER_S;
  cfg->epsilon = 30000;
  cfg->z = 0.05;
  cfg->ci_width = 0.1;
  cfg->ci_max_cycles = 8;
  cfg->settle_window = 4;
  cfg->running_increase = 0;
  cfg->running_increase_fraction = 0;
  cfg->running_ceiling = 0;
  cfg->running_ceiling_peak = FALSE;
  cfg->running_queue_margin = 0;
  cfg->running_hold_on_loss = FALSE;
  cfg->running_queue_cut = 0;
  cfg->t_running = 10 * NS_PER_S;
  cfg->t_adapt = 3 * NS_PER_S;
  cfg->t_rtcp = NS_PER_S;
  cfg->r_f = 3.0;
  cfg->r_0 = 10000;
  cfg->r_min = 10000;
  cfg->air_0 = 10000;
  cfg->packet_size = 0;
  cfg->probe_initial_rate = 1000000;
  cfg->probe_headroom = 0.25;
  cfg->max_rate = 100000000;
  cfg->pace_burst = 5 * MS;
  cfg->max_probe_cycles = 0;
  cfg->max_probe_median = FALSE;
  cfg->max_probe_after_loss = FALSE;
  cfg->max_probe_peak = FALSE;
  cfg->max_probe_peak_if_rising = FALSE;
  cfg->kept_rate = TPBA_KEPT_PROBE;
  cfg->episodes_factor = 1.0;
  cfg->sawtooth_hold = 1.4;
  cfg->run_probe_ratio = 0.0;
  cfg->t_tcp_min = 100 * MS;
  cfg->t_tcp_max = 4 * NS_PER_S;
  cfg->tcp_sample_interval = 10 * MS;
  cfg->reprobe_on_reductions = FALSE;
  cfg->reprobe_count = 2;
  cfg->reprobe_cut = 0.2;
  cfg->reprobe_below = 0.0;
  cfg->allow_probe_loss = FALSE;
  cfg->ntp_offset = 0;
  cfg->clock_rate = 90000;
  cfg->reorder_wait = 50 * MS;
  cfg->switch_wait = NS_PER_S;
  cfg->max_held = 4096;
  cfg->key_unit_holdoff = 500 * MS;
  cfg->switch_max_delay = NS_PER_S;
}

/* ------------------------------------------------------------------ */
/* Wire */

gboolean
tpba_rtp_parse (const guint8 * data, gsize len, TpbaRtpInfo * info)
{
  RtpHeader h;

  if (!rtp_header_parse (data, len, &h))
    return FALSE;
  if (info) {
    info->marker = h.marker;
    info->payload_type = h.payload_type;
    info->seq = h.seq;
    info->timestamp = h.timestamp;
    info->ssrc = h.ssrc;
    info->size = (guint) len;
    info->payload_size = (guint) h.payload_len;
  }
  return TRUE;
}

gboolean
tpba_rtcp_parse (const guint8 * data, gsize len, TpbaRtcpReport * rep,
    gsize * consumed)
{
  RtcpIter it;
  RtcpPacket pkt;

  if (consumed)
    *consumed = 0;
  if (!rtcp_header_parse (data, len, &pkt))
    return FALSE;
  if (consumed)
    *consumed = pkt.len;
  /* one packet on its own: padding is allowed as on a compound's last */
  rtcp_iter_init (&it, data, pkt.len);
  return rtcp_iter_next (&it, &pkt) && rtcp_report_parse (&pkt, rep);
}

gboolean
tpba_rtcp_parse_compound (const guint8 * data, gsize len,
    void (*func) (const TpbaRtcpReport * rep, gpointer user), gpointer user)
{
  RtcpIter it;
  RtcpPacket pkt;
  TpbaRtcpReport rep;

  /* RFC 3550 A.2. Check the whole chain before acting on any of it. */
  if (!rtcp_compound_valid (data, len))
    return FALSE;
  rtcp_iter_init (&it, data, len);
  while (rtcp_iter_next (&it, &pkt))
    if ((pkt.type == RTCP_PT_SR || pkt.type == RTCP_PT_RR) &&
        !rtcp_report_parse (&pkt, &rep))
      return FALSE;
  rtcp_iter_init (&it, data, len);
  while (rtcp_iter_next (&it, &pkt))
    if (rtcp_report_parse (&pkt, &rep) && func)
      func (&rep, user);
  return TRUE;
}

static gboolean
read_token (const RtcpPacket * pkt, guint64 * token)
{
  RtcpApp app;

  if (pkt->len != TPBA_RTCP_TOKEN_SIZE || !rtcp_app_parse (pkt, &app) ||
      app.subtype != 0 || memcmp (app.name, "TPBA", 4) != 0 ||
      app.len != TPBA_TOKEN_SIZE)
    return FALSE;
  *token = read64 (app.data);
  return TRUE;
}

gboolean
tpba_rtcp_scan (const guint8 * data, gsize len, TpbaRtcpExtras * ex)
{
  TpbaRtcpExtras e;
  RtcpIter it;
  RtcpPacket pkt;

  memset (ex, 0, sizeof (*ex));
  if (data == NULL || len < 4)
    return FALSE;
  memset (&e, 0, sizeof (e));
  e.reports = data[1] == RTCP_PT_SR || data[1] == RTCP_PT_RR;
  rtcp_iter_init (&it, data, len);
  while (rtcp_iter_next (&it, &pkt)) {
    guint32 media;

    if (rtcp_pli_parse (pkt.data, pkt.len, NULL, &media)) {
      e.n_pli++;
      e.pli_media_ssrc = media;
    } else if (read_token (&pkt, &e.token))
      e.has_token = TRUE;
  }
  if (it.failed)
    return FALSE;
  *ex = e;
  return TRUE;
}

gsize
tpba_rtcp_write_token (guint32 ssrc, guint64 token, guint8 * out, gsize max)
{
  guint8 data[TPBA_TOKEN_SIZE];

  write64 (data, token);
  return rtcp_app_write (0, ssrc, "TPBA", data, sizeof data, out, max);
}

gsize
tpba_control_seal (AuthSession * auth, guint8 * buf, gsize len, gsize max)
{
  return auth ? auth_seal (auth, buf, len, max) : len;
}

gboolean
tpba_control_open (AuthSession * auth, const guint8 * data, gsize len,
    gint64 now, gsize * payload_len)
{
  *payload_len = len;
  return !auth || auth_open (auth, data, len, now, payload_len, NULL) ==
      AUTH_OK;
}

gsize
tpba_token_message_size (const AuthSession * auth)
{
  return auth ? TPBA_TOKEN_MESSAGE_SIZE : TPBA_TOKEN_SIZE;
}

gsize
tpba_token_message_write (AuthSession * auth, guint64 token, guint8 * out,
    gsize max)
{
  if (max < TPBA_TOKEN_SIZE)
    return 0;
  write64 (out, token);
  return tpba_control_seal (auth, out, TPBA_TOKEN_SIZE, max);
}

AuthVerdict
tpba_token_message_open (AuthSession * auth, const guint8 * data, gsize len,
    gint64 now, guint64 * token)
{
  gsize n;
  AuthVerdict v;

  if (len < tpba_token_message_size (auth))
    return AUTH_TRUNCATED;
  v = auth ? auth_open (auth, data, TPBA_TOKEN_MESSAGE_SIZE, now, &n, NULL) :
      AUTH_OK;
  if (v == AUTH_OK)
    *token = read64 (data);
  return v;
}

gsize
tpba_rtcp_write (const TpbaRtcpReport * rep, const gchar * cname,
    guint8 * out, gsize max)
{
  guint8 sdes[8 + 260];
  gsize len, sdes_len = 0;

  if (cname)
    sdes_len = rtcp_sdes_cname_write (rep->ssrc, cname, sdes, sizeof sdes);
  len = rtcp_report_write (rep, out, max);
  if (len == 0 || len + sdes_len > max)
    return 0;
  memcpy (out + len, sdes, sdes_len);
  return len + sdes_len;
}

/* ------------------------------------------------------------------ */
/* Sender */

struct _TpbaSender {
  TpbaConfig cfg;
  guint32 ssrc;
  GQueue events;

  TpbaPeriod period;            /* decided */
  TpbaTransport transport;      /* in effect */
  gdouble rate;                 /* offered to the encoder */
  gdouble pace_rate;            /* UDP pacing */
  gdouble r_s;

  /* ADU boundaries */
  gboolean have_last, last_marker;
  guint32 last_ts;

  /* Probing */
  gboolean probe_started;       /* first TCP packet of the period written */
  gint64 period_start;
  gboolean have_base;
  gint64 cycle_start;
  guint64 cycle_acked;
  guint n_r;
  gdouble r_hist[TPBA_HISTORY]; /* ring, index n % TPBA_HISTORY */
  gint64 last_cycle;
  /* TCP's data segments sent and retransmitted at cycle boundaries: [k % H]
   * is at the start of cycle k (the end of cycle k - 1) */
  guint32 segs_hist[TPBA_HISTORY], retrans_hist[TPBA_HISTORY];
  gdouble p_probe;              /* behind r_s; -1 unknown */
  gdouble probe_peak;           /* the largest cycle after the first of the
                                 * period that kept r_s */
  gdouble probe_rtt_sum;        /* ns, TCP_INFO RTTs ending or inside this
                                 * probing period's cycles */
  guint probe_rtt_n;
  gint64 probe_rtt;             /* ns, their mean at the period's end; -1 */
  guint64 queue_holds;
  guint64 queue_cuts;
  /* kept_rate EQUATION: TCP_INFO counters at the start of the period's
   * cycle 1 (eq_base) and what the samples since then saw */
  gboolean eq_base;
  gint64 eq_t0;
  guint64 eq_acked0;
  guint32 eq_segs0, eq_retrans0, eq_last_retrans;
  gint64 eq_event_start;        /* the last loss event's first sample */
  guint eq_events;
  gdouble eq_rtt_sum;           /* ns */
  guint eq_rtt_n;
  gdouble eq_p, eq_rtt, eq_rate;        /* the last period's: -1, -1, 0 */

  /* TCP_INFO */
  gboolean have_sample;
  gint64 last_sample;
  guint32 last_cwnd;
  gboolean cwnd_reduced;        /* since the cycle started */
  guint first_loss_cycle;       /* this period's first cycle that saw a
                                 * loss; G_MAXUINT: none yet */
  gint64 tcp_rtt;
  guint64 delivery_rate;
  guint32 cwnd_old, cwnd_new;

  /* Running (and LDA) */
  gint64 next_adapt, run_end;
  guint large_cuts;
  gdouble p_loss;
  gdouble air;
  guint64 b;

  /* RR state */
  gboolean have_rr, rr_new, have_base_rr;
  guint32 rr_ext, base_ext;
  gint32 rr_lost, base_lost;
  guint8 rr_fraction;
  gint64 rtt;

  /* Pacer */
  Pacer pacer;                  /* UDP pacing, burst pace_burst */

  /* SR */
  gint64 next_sr;
  gboolean sr_pending;
  gint64 sr_time;
  guint32 last_rtp_ts;
  guint64 packets_sent, octets_sent;

  /* packet size for line (C) */
  guint64 adapt_bytes, adapt_packets;

  /* counters */
  guint64 switches, mid_adu_switches, probing_periods, running_periods;
  guint64 reductions;
  guint64 running_holds;
  gint64 decided_at;            /* when the period was last decided */
  guint64 stalled_cycles;
  guint64 probe_ends[TPBA_PROBE_END_COUNT];
  guint64 kept_without_loss;
  guint64 kept_falling;
  guint64 kept_by_equation, equation_fallbacks;
  guint64 run_ends_timer, run_ends_reductions, run_ends_below;
  TpbaProbeEnd probe_end;       /* how the last cycle ended the period */
  guint64 packets_udp, packets_tcp, bytes_udp, bytes_tcp;
  guint64 rtcp_received, rtcp_refused;
  KeyUnitHoldoff holdoff;
  guint64 pli_received, pli_ignored, key_unit_requests;
};

static void
push_event (TpbaSender * s, TpbaEventType type)
{
  TpbaEvent *e = polled_push (&s->events, sizeof (TpbaEvent));

  e->type = type;
  e->rate = type == TPBA_EVENT_PERIOD ? round_rate (s->r_s) :
      round_rate (s->rate);
  e->period = s->period;
  e->transport = s->transport;
  e->cwnd_new = s->cwnd_new;
}

static gdouble
clamp_rate (const TpbaSender * s, gdouble r)
{
  if (r > (gdouble) s->cfg.max_rate)
    r = (gdouble) s->cfg.max_rate;
  if (r < (gdouble) s->cfg.r_min)
    r = (gdouble) s->cfg.r_min;
  return r;
}

/* Sets the rate told to the encoder; an event when it changes. */
static void
set_rate (TpbaSender * s, gdouble r)
{
  guint64 old = round_rate (s->rate);

  s->rate = r;
  if (round_rate (r) != old)
    push_event (s, TPBA_EVENT_RATE);
}

static gboolean
is_lda (const TpbaSender * s)
{
  return s->cfg.mode != TPBA_MODE_TPBA;
}

static TpbaTransport
wanted_transport (const TpbaSender * s)
{
  return s->period == TPBA_PERIOD_PROBING ? TPBA_TRANSPORT_TCP :
      TPBA_TRANSPORT_UDP;
}

/* The last packet ended an ADU (or none was sent): a switch may happen now. */
static gboolean
at_boundary (const TpbaSender * s)
{
  return !s->have_last || s->last_marker;
}

/* The packet with timestamp @ts starts a new ADU. */
static gboolean
starts_adu (const TpbaSender * s, guint32 ts)
{
  return at_boundary (s) || ts != s->last_ts;
}

static void
rebase_rr (TpbaSender * s)
{
  s->have_base_rr = s->have_rr;
  s->base_ext = s->rr_ext;
  s->base_lost = s->rr_lost;
  s->rr_new = FALSE;
}

/* A switch the period asks for applies to a packet that starts an ADU, or
 * to any packet once it has waited switch_max_delay: at the rate floor one
 * paced ADU can take tens of seconds (tpbasrc merges both transports in
 * sequence order, so a split ADU still arrives whole). */
static gboolean
switch_due (const TpbaSender * s, guint32 ts, gint64 now)
{
  if (s->transport == wanted_transport (s))
    return FALSE;
  return starts_adu (s, ts) || (s->cfg.switch_max_delay > 0 &&
      now - s->decided_at >= s->cfg.switch_max_delay);
}

/* T_running, or with run_probe_ratio at least that multiple of the probing
 * period that ends at @now, so that a long probe is not followed by a
 * comparatively short run. */
static gint64
running_length (const TpbaSender * s, gint64 now)
{
  gdouble probed;

  if (s->cfg.run_probe_ratio <= 0.0 || !s->probe_started
      || now <= s->period_start)
    return s->cfg.t_running;
  probed = (gdouble) (now - s->period_start) * s->cfg.run_probe_ratio;
  return MAX (s->cfg.t_running,
      (gint64) MIN (probed, (gdouble) G_MAXINT64 / 2));
}

/* The decided period takes effect (at an ADU boundary, at @now). */
static void
apply_switch (TpbaSender * s, gint64 now)
{
  s->transport = wanted_transport (s);
  s->switches++;
  if (s->transport == TPBA_TRANSPORT_UDP) {
    s->running_periods++;
    s->next_adapt = now + s->cfg.t_adapt;
    s->run_end = now + running_length (s, now);
    s->pacer.next_free = now;
    s->pace_rate = s->rate;
    s->large_cuts = 0;
    s->cwnd_old = s->last_cwnd;
    s->adapt_bytes = s->adapt_packets = 0;
    rebase_rr (s);
  } else {
    s->probe_started = FALSE;
  }
  push_event (s, TPBA_EVENT_TRANSPORT);
}

static void
decide (TpbaSender * s, TpbaPeriod period, gint64 now)
{
  s->period = period;
  s->decided_at = now;
  if (period == TPBA_PERIOD_PROBING) {
    /* cwnd_new = max(ceil(cwnd_old r_f / (t_maxseg r_s)), 1) t_maxseg,
     * in segments. */
    if (s->cwnd_old > 0 && round_rate (s->r_s) > 0)
      s->cwnd_new = (guint32) MIN (MAX (muldiv_ceil (s->cwnd_old,
                  round_rate (s->rate), round_rate (s->r_s)), 1), G_MAXUINT32);
    else
      s->cwnd_new = 0;
  }
  push_event (s, TPBA_EVENT_PERIOD);
  if (period == TPBA_PERIOD_RUNNING)
    set_rate (s, clamp_rate (s, s->r_s));
  else
    set_rate (s, clamp_rate (s, s->rate * (1.0 + s->cfg.probe_headroom)));
  if (s->transport != wanted_transport (s) && at_boundary (s))
    apply_switch (s, now);
}

TpbaSender *
tpba_sender_new (const TpbaConfig * cfg, guint32 ssrc, gint64 now)
{
  TpbaSender *s = g_new0 (TpbaSender, 1);

  if (cfg)
    s->cfg = *cfg;
  else
    tpba_config_init (&s->cfg);
  s->ssrc = ssrc;
  g_queue_init (&s->events);
  key_unit_holdoff_init (&s->holdoff);
  s->rtt = -1;
  s->tcp_rtt = -1;
  s->probe_rtt = -1;
  s->p_probe = -1;
  s->eq_p = -1;
  s->eq_rtt = -1;
  s->next_sr = now + s->cfg.t_rtcp;
  /* a burst lets a shell that woke late catch up to the rate, up to it */
  pacer_init (&s->pacer, 1, s->cfg.pace_burst);
  s->pacer.next_free = now;
  s->air = (gdouble) s->cfg.air_0;
  if (is_lda (s)) {
    s->period = TPBA_PERIOD_RUNNING;
    s->transport = TPBA_TRANSPORT_UDP;
    s->rate = s->pace_rate = (gdouble) s->cfg.r_0;
    s->next_adapt = now + s->cfg.t_adapt;
    s->run_end = G_MAXINT64;
    s->running_periods = 1;
  } else {
    s->period = TPBA_PERIOD_PROBING;
    s->transport = TPBA_TRANSPORT_TCP;
    s->rate = s->pace_rate = clamp_rate (s,
        (gdouble) s->cfg.probe_initial_rate);
  }
  push_event (s, TPBA_EVENT_RATE);
  return s;
}

void
tpba_sender_free (TpbaSender * s)
{
  if (!s)
    return;
  polled_clear (&s->events);
  g_free (s);
}

static gboolean
packet_on_udp (const TpbaSender * s, const TpbaRtpInfo * pkt, gint64 now)
{
  if (switch_due (s, pkt->timestamp, now))
    return wanted_transport (s) == TPBA_TRANSPORT_UDP;
  return s->transport == TPBA_TRANSPORT_UDP;
}

gint64
tpba_sender_next_send_time (TpbaSender * s, const TpbaRtpInfo * pkt,
    gint64 now)
{
  gint64 t;

  if (!packet_on_udp (s, pkt, now))
    return now;
  t = pacer_next_send_time (&s->pacer, now);
  /* a pending switch may not wait for the pacer past its deadline */
  if (s->transport != wanted_transport (s) && s->cfg.switch_max_delay > 0)
    t = MIN (t, MAX (now, s->decided_at + s->cfg.switch_max_delay));
  return t;
}

void
tpba_sender_on_send (TpbaSender * s, const TpbaRtpInfo * pkt, gint64 now,
    TpbaSendDecision * d)
{
  TpbaSendDecision dd;

  memset (&dd, 0, sizeof (dd));
  if (switch_due (s, pkt->timestamp, now)) {
    if (!starts_adu (s, pkt->timestamp))
      s->mid_adu_switches++;
    apply_switch (s, now);
    dd.switched = TRUE;
  }
  dd.transport = s->transport;
  if (s->transport == TPBA_TRANSPORT_TCP) {
    if (!s->probe_started) {
      s->probe_started = TRUE;
      s->probing_periods++;
      s->period_start = now;
      s->have_base = FALSE;
      s->n_r = 0;
      s->first_loss_cycle = G_MAXUINT;
      s->eq_base = FALSE;
      s->probe_rtt_sum = 0;
      s->probe_rtt_n = 0;
    }
    /* the last write of the probing period drains the TCP buffer */
    dd.tcp_nodelay = s->period == TPBA_PERIOD_RUNNING && pkt->marker;
    s->packets_tcp++;
    s->bytes_tcp += pkt->size;
  } else {
    dd.tcp_nodelay = TRUE;
    pacer_set_rate (&s->pacer, round_rate (s->pace_rate));
    pacer_on_send (&s->pacer, pkt->size, now);
    s->packets_udp++;
    s->bytes_udp += pkt->size;
    s->adapt_bytes += pkt->size;
    s->adapt_packets++;
  }
  s->have_last = TRUE;
  s->last_marker = pkt->marker;
  s->last_ts = pkt->timestamp;
  s->last_rtp_ts = pkt->timestamp;
  s->packets_sent++;
  s->octets_sent += pkt->payload_size;
  if (d)
    *d = dd;
}

/* TCP's segment counters at the start of cycle n_r. */
static void
store_segments (TpbaSender * s, const TpbaTcpInfo * info)
{
  s->segs_hist[s->n_r % TPBA_HISTORY] = info->data_segs_out;
  s->retrans_hist[s->n_r % TPBA_HISTORY] = info->total_retrans;
}

/* TCP's retransmitted fraction of the data segments it sent over the last
 * @span cycles (the ones the end criterion looked at), at the end of cycle
 * n_r - 1 given by @info; -1 if nothing was counted. */
static gdouble
probe_loss (const TpbaSender * s, const TpbaTcpInfo * info, guint span)
{
  guint k = s->n_r - MIN (s->n_r, span);
  guint32 segs = info->data_segs_out - s->segs_hist[k % TPBA_HISTORY];
  guint32 retrans = info->total_retrans - s->retrans_hist[k % TPBA_HISTORY];

  if (segs == 0 || retrans > segs)
    return -1;
  return (gdouble) retrans / (gdouble) segs;
}

/* Student's t, two-sided 95 %, for @df degrees of freedom. */
static gdouble
t_quantile_975 (guint df)
{
  static const gdouble t[] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447,
    2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042
  };

  return df < G_N_ELEMENTS (t) ? t[df] : 1.96;
}

/* The confidence criterion over the cycles of this period that acked
 * something, newest first, at most ci_max_cycles of them: TRUE when it ends
 * the period, with their mean in *kept and the cycles looked at (stalls
 * included) in *span. */
static gboolean
confidence_end (const TpbaSender * s, gdouble * kept, guint * span,
    gboolean * full)
{
  guint max = MIN (s->cfg.ci_max_cycles, TPBA_HISTORY);
  guint back = MIN (s->n_r, TPBA_HISTORY);
  gdouble sum = 0.0, sq = 0.0, mean, var;
  guint n = 0, i;

  for (i = 1; i <= back && n < max; i++) {
    gdouble r = s->r_hist[(s->n_r - i) % TPBA_HISTORY];
    if (r <= 0.0)
      continue;
    sum += r;
    sq += r * r;
    n++;
  }
  if (n < 3)
    return FALSE;
  mean = sum / n;
  var = MAX (0.0, (sq - n * mean * mean) / (n - 1));
  *kept = mean;
  *span = i - 1;
  if (t_quantile_975 (n - 1) * sqrt (var / n) < s->cfg.ci_width * mean)
    return TRUE;
  *full = n >= max;
  return *full;
}

/* The median of the @n rates at @x, sorted in place (a window of a few
 * cycles: insertion sort). */
static gdouble
median_rate (gdouble * x, guint n)
{
  for (guint i = 1; i < n; i++) {
    gdouble v = x[i];
    guint j = i;

    for (; j > 0 && x[j - 1] > v; j--)
      x[j] = x[j - 1];
    x[j] = v;
  }
  return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
}

/* The rise of the @n rates at @x (oldest first) across them: the
 * least-squares slope per cycle times n - 1. */
static gdouble
rate_rise (const gdouble * x, guint n)
{
  gdouble mi = (n - 1) / 2.0, mx = 0.0, sxy = 0.0, sxx = 0.0;
  guint i;

  for (i = 0; i < n; i++)
    mx += x[i] / n;
  for (i = 0; i < n; i++) {
    sxy += (i - mi) * (x[i] - mx);
    sxx += (i - mi) * (i - mi);
  }
  return sxx > 0 ? sxy / sxx * (n - 1) : 0.0;
}

/* The settled criterion: the newest settle_window cycles of this period
 * that acked something. The probe resumes beside flows that took the link
 * while it ran on UDP and climbs for several cycles; a mean over the whole
 * period keeps the climb. TRUE when the window is full and no longer rises
 * by ci_width of its mean, or when the period has ci_max_cycles cycles;
 * *kept is the window's median, *span the cycles looked at (stalls
 * included). */
static gboolean
settled_end (const TpbaSender * s, gdouble * kept, guint * span,
    gboolean * full)
{
  guint w = CLAMP (s->cfg.settle_window, 2, TPBA_HISTORY);
  guint back = MIN (s->n_r, TPBA_HISTORY);
  gdouble x[TPBA_HISTORY], sorted[TPBA_HISTORY], mean = 0.0;
  gboolean at_max = s->n_r >= s->cfg.ci_max_cycles;
  guint n = 0, i;

  for (i = 1; i <= back && n < w; i++) {
    gdouble r = s->r_hist[(s->n_r - i) % TPBA_HISTORY];
    if (r > 0.0)
      x[w - 1 - n++] = r;       /* newest last: x[w - n .. w) oldest first */
  }
  if (n < w && !at_max)
    return FALSE;
  *span = i - 1;
  memcpy (sorted, x + w - n, n * sizeof (gdouble));
  for (i = 0; i < n; i++)
    mean += sorted[i] / n;
  *kept = median_rate (sorted, n);
  if (n == w && rate_rise (x, w) < s->cfg.ci_width * mean)
    return TRUE;
  *full = at_max;
  return at_max;
}

/* max_probe_median: the median of this period's cycles after its first
 * (the ramp after the switch to TCP) that acked something; the rate of a
 * single cycle rides on the competitors' sawtooth. *span: the cycles
 * looked at, for p_probe. */
static gdouble
median_after_first (const TpbaSender * s, guint * span)
{
  guint back = MIN (s->n_r, TPBA_HISTORY), n = 0, i;
  gdouble x[TPBA_HISTORY];

  if (s->n_r > 1 && back == s->n_r)
    back--;                     /* the period's first cycle is the oldest */
  for (i = 1; i <= back; i++) {
    gdouble r = s->r_hist[(s->n_r - i) % TPBA_HISTORY];
    if (r > 0.0)
      x[n++] = r;
  }
  *span = MAX (back, 1);
  if (n == 0)
    return s->r_hist[(s->n_r - 1) % TPBA_HISTORY];
  return median_rate (x, n);
}

/* max_probe_peak: the largest of this period's cycles after its first.
 * Beside established flows the returning probe stays below its share for
 * every cycle (docs/results.md, fourteenth pass), so its best cycle is
 * nearer the competitors' rate than its median. */
static gdouble
peak_after_first (const TpbaSender * s, guint * span)
{
  guint back = MIN (s->n_r, TPBA_HISTORY), i;
  gdouble peak = 0.0;

  if (s->n_r > 1 && back == s->n_r)
    back--;                     /* the period's first cycle is the oldest */
  for (i = 1; i <= back; i++)
    peak = MAX (peak, s->r_hist[(s->n_r - i) % TPBA_HISTORY]);
  *span = MAX (back, 1);
  return peak;
}

/* max_probe_peak_if_rising: @peak when this period's cycles after its
 * first (those that acked something) rise or hold; when they fall, the
 * median of their later half. A falling probe's largest cycle is an early
 * one, riding the cwnd the running period left (with
 * tcp_slow_start_after_idle=0), not the rate TCP settled at beside the
 * competitors (docs/results.md, sixteenth pass). */
static gdouble
peak_unless_falling (TpbaSender * s, gdouble peak)
{
  guint back = MIN (s->n_r, TPBA_HISTORY), n = 0, i;
  gdouble x[TPBA_HISTORY];

  if (s->n_r > 1 && back == s->n_r)
    back--;                     /* the period's first cycle is the oldest */
  for (i = back; i >= 1; i--) {
    gdouble r = s->r_hist[(s->n_r - i) % TPBA_HISTORY];
    if (r > 0.0)
      x[n++] = r;               /* oldest first */
  }
  if (n < 2 || rate_rise (x, n) >= 0.0)
    return peak;
  s->kept_falling++;
  return median_rate (x + n / 2, n - n / 2);
}

/* max_probe_after_loss: the median of the cycles after the period's first
 * that saw a loss. Until then the probe's cwnd climbs from where the
 * running period left it (the UDP rate) and every cycle is below what TCP
 * gets at the link's limit; without a later cycle the last one is kept. */
static gdouble
median_after_loss (const TpbaSender * s, guint * span)
{
  guint first = s->first_loss_cycle == G_MAXUINT ? s->n_r :
      s->first_loss_cycle + 1;
  guint n = 0, i;
  gdouble x[TPBA_HISTORY];

  first = MAX (first, s->n_r - MIN (s->n_r, TPBA_HISTORY));
  for (i = first; i < s->n_r; i++) {
    gdouble r = s->r_hist[i % TPBA_HISTORY];
    if (r > 0.0)
      x[n++] = r;
  }
  *span = MAX (s->n_r - first, 1);
  if (n == 0)
    return s->r_hist[(s->n_r - 1) % TPBA_HISTORY];
  return median_rate (x, n);
}

/* The TCP throughput equation (RFC 5348 section 3.1, from Padhye et al.),
 * bits/s: segments of @size bytes, round-trip time @rtt s, loss event
 * rate @p, b = 1 packet acknowledged per ACK, t_RTO = 4 R. */
static gdouble
tcp_equation_rate (gdouble size, gdouble rtt, gdouble p)
{
  gdouble t_rto = 4.0 * rtt;
  gdouble d = rtt * sqrt (2.0 * p / 3.0) +
      t_rto * (3.0 * sqrt (3.0 * p / 8.0)) * p * (1.0 + 32.0 * p * p);

  return 8.0 * size / d;
}

/* kept_rate EQUATION: from the start of cycle 1 on, every sample's RTT is
 * summed and a sample whose total_retrans grew starts a loss event unless
 * it is within one RTT of the last event's start (RFC 5348 5.2: losses in
 * one round trip are one event). */
static void
equation_observe (TpbaSender * s, const TpbaTcpInfo * info, gint64 now)
{
  if (!s->eq_base)
    return;
  if (info->rtt_us) {
    s->eq_rtt_sum += (gdouble) info->rtt_us * 1000.0;
    s->eq_rtt_n++;
  }
  if (info->total_retrans != s->eq_last_retrans) {
    if (s->eq_events == 0 || s->tcp_rtt <= 0
        || now - s->eq_event_start >= s->tcp_rtt) {
      s->eq_events++;
      s->eq_event_start = now;
    }
    s->eq_last_retrans = info->total_retrans;
  }
}

/* The counters cycle 1 starts from (the first cycle, the ramp after the
 * switch to TCP, is left out as by the medians). */
static void
equation_take_base (TpbaSender * s, const TpbaTcpInfo * info, gint64 now)
{
  s->eq_base = TRUE;
  s->eq_t0 = now;
  s->eq_acked0 = info->bytes_acked;
  s->eq_segs0 = info->data_segs_out;
  s->eq_retrans0 = s->eq_last_retrans = info->total_retrans;
  s->eq_events = 0;
  s->eq_rtt_sum = 0.0;
  s->eq_rtt_n = 0;
}

/* kept_rate EQUATION_EPISODES: bits/s of a TCP flow that sees @per_s loss
 * events a second, the equation's first term at p = @per_s / x packets:
 * x = 3 / (2 e R^2) packets/s. The timeout term is left out: with p tied to
 * x it can leave no x at which the equation equals x (it did on the bed,
 * e about 1/s at R 0.2 s). */
static gdouble
episodes_rate (gdouble size, gdouble rtt, gdouble per_s)
{
  return 8.0 * size * 3.0 / (2.0 * per_s * rtt * rtt);
}

#define SAWTOOTH_CUBIC_C 0.4
#define SAWTOOTH_CUBIC_BETA 0.7
#define SAWTOOTH_CYCLES 40
#define SAWTOOTH_STEPS 100

/* The window @t seconds into growth from @w0 after a cut: reno adds one
 * packet an RTT; cubic takes the larger of its cubic curve toward @w_last
 * (K seconds away) and its Reno-friendly estimate, which adds
 * 3 (1 - beta) / (1 + beta) packets an RTT. */
static gdouble
sawtooth_window (gboolean reno, gdouble w0, gdouble w_last, gdouble k,
    gdouble rtt, gdouble t)
{
  const gdouble beta = SAWTOOTH_CUBIC_BETA;
  gdouble d = t - k;

  if (reno)
    return w0 + t / rtt;
  return MAX (w0 + 3.0 * (1.0 - beta) / (1.0 + beta) * t / rtt,
      w_last + SAWTOOTH_CUBIC_C * d * d * d);
}

/* kept_rate EQUATION_SAWTOOTH: bits/s of one reno or cubic flow of @size
 * byte packets at RTT @rtt whose window is cut at a loss event every
 * 1 / @per_s seconds and held @hold RTTs after each cut. Iterated from a
 * window of 10 packets until the cycles repeat; the last cycle's mean
 * window (midpoint rule) over the RTT. */
static gdouble
sawtooth_rate (gboolean reno, gdouble hold, gdouble size, gdouble rtt,
    gdouble per_s)
{
  const gdouble beta = SAWTOOTH_CUBIC_BETA;
  gdouble period = 1.0 / per_s, held = MIN (hold * rtt, period);
  gdouble dt = (period - held) / SAWTOOTH_STEPS;
  gdouble w = 10.0, w_last = 10.0, area = 0.0;
  gint c, i;

  for (c = 0; c < SAWTOOTH_CYCLES; c++) {
    gdouble w0, k = 0.0;

    if (reno) {
      w0 = w / 2.0;
    } else {
      /* fast convergence: a cut below the last maximum remembers less */
      w_last = w < w_last ? w * (1.0 + beta) / 2.0 : w;
      w0 = w * beta;
      k = cbrt ((w_last - w0) / SAWTOOTH_CUBIC_C);
    }
    area = held * w0;
    for (i = 0; i < SAWTOOTH_STEPS; i++)
      area += sawtooth_window (reno, w0, w_last, k, rtt, (i + 0.5) * dt) * dt;
    w = sawtooth_window (reno, w0, w_last, k, rtt, period - held);
  }
  return 8.0 * size * area / period / rtt;
}

/* The rate to keep with kept_rate EQUATION, EQUATION_EPISODES or
 * EQUATION_SAWTOOTH at the period's end given by @info at @now: the
 * equation's value, or @probe when cycle 1 on saw no loss event, no RTT or
 * no new data (p = 0 has no finite rate). */
static gdouble
equation_kept (TpbaSender * s, const TpbaTcpInfo * info, gint64 now,
    gdouble probe)
{
  gdouble size, per_s;
  guint32 segs, retrans;
  guint64 acked;

  s->eq_p = -1;
  s->eq_rtt = -1;
  s->eq_rate = 0.0;
  if (!s->eq_base || s->eq_rtt_n == 0 || info->bytes_acked < s->eq_acked0) {
    s->equation_fallbacks++;
    return probe;
  }
  segs = info->data_segs_out - s->eq_segs0;
  retrans = info->total_retrans - s->eq_retrans0;
  acked = info->bytes_acked - s->eq_acked0;
  s->eq_rtt = s->eq_rtt_sum / s->eq_rtt_n;
  if (segs == 0 || retrans >= segs || acked == 0) {
    s->equation_fallbacks++;
    return probe;
  }
  s->eq_p = (gdouble) s->eq_events / (gdouble) segs;
  if (s->eq_events == 0) {
    s->equation_fallbacks++;
    return probe;
  }
  size = (gdouble) acked / (gdouble) (segs - retrans);
  per_s = s->eq_events * (gdouble) NS_PER_S / (gdouble) MAX (now - s->eq_t0, 1);
  if (s->cfg.kept_rate == TPBA_KEPT_EQUATION_EPISODES)
    s->eq_rate = s->cfg.episodes_factor * episodes_rate (size,
        s->eq_rtt / (gdouble) NS_PER_S, per_s);
  else if (s->cfg.kept_rate == TPBA_KEPT_EQUATION_SAWTOOTH)
    s->eq_rate = sawtooth_rate (s->cfg.sawtooth_reno, s->cfg.sawtooth_hold,
        size, s->eq_rtt / (gdouble) NS_PER_S, per_s);
  else
    s->eq_rate = tcp_equation_rate (size, s->eq_rtt / (gdouble) NS_PER_S,
        s->eq_p);
  s->kept_by_equation++;
  return clamp_rate (s, s->eq_rate);
}

/* Stores r[i]; returns TRUE when the probing period ends with it, with the
 * rate to keep in *kept and how many cycles the criterion looked at in
 * *span. A cycle that acked nothing (the connection in retransmission-
 * timeout backoff) is a stall, not a rate: it neither lowers the encoder's
 * offer nor ends the period, which three stalled cycles would otherwise do
 * with r_s = 0. */
static gboolean
push_probe_rate (TpbaSender * s, gdouble r, gdouble * kept, guint * span)
{
  gdouble a, b, lim;

  s->r_hist[s->n_r % TPBA_HISTORY] = r;
  s->n_r++;
  if (r <= 0.0) {
    s->stalled_cycles++;
    return FALSE;
  }
  set_rate (s, clamp_rate (s, r * (1.0 + s->cfg.probe_headroom)));
  *kept = r;
  *span = 3;
  s->probe_end = TPBA_PROBE_END_CRITERION;
  if (s->cfg.max_probe_cycles && s->n_r >= s->cfg.max_probe_cycles) {
    s->probe_end = TPBA_PROBE_END_MAX_CYCLES;
    if (s->cfg.max_probe_peak) {
      *kept = peak_after_first (s, span);
      if (s->cfg.max_probe_peak_if_rising)
        *kept = peak_unless_falling (s, *kept);
    }
    else if (s->cfg.max_probe_median && s->cfg.max_probe_after_loss) {
      *kept = median_after_loss (s, span);
      if (s->first_loss_cycle == G_MAXUINT
          || s->first_loss_cycle + 1 >= s->n_r)
        s->kept_without_loss++;
    }
    else if (s->cfg.max_probe_median)
      *kept = median_after_first (s, span);
    return TRUE;
  }
  if (s->cfg.end_criterion == TPBA_END_CONFIDENCE
      || s->cfg.end_criterion == TPBA_END_SETTLED) {
    gboolean full = FALSE, end;

    end = s->cfg.end_criterion == TPBA_END_CONFIDENCE ?
        confidence_end (s, kept, span, &full) :
        settled_end (s, kept, span, &full);
    if (full)
      s->probe_end = TPBA_PROBE_END_WINDOW;
    return end;
  }
  if (s->n_r < 3)
    return FALSE;
  a = s->r_hist[(s->n_r - 3) % TPBA_HISTORY];
  b = s->r_hist[(s->n_r - 2) % TPBA_HISTORY];
  if (s->cfg.end_criterion == TPBA_END_PROPORTIONAL)
    lim = s->cfg.z * r;
  else
    lim = (gdouble) s->cfg.epsilon;
  return fabs (a - r) < lim && fabs (b - r) < lim;
}

/* running_queue_margin's reference: the samples after the one that starts
 * cycle 0, whose RTT is TCP's estimate from before the running period. */
static void
probe_rtt_observe (TpbaSender * s, const TpbaTcpInfo * info)
{
  if (!info->rtt_us)
    return;
  s->probe_rtt_sum += (gdouble) info->rtt_us * 1000.0;
  s->probe_rtt_n++;
}

void
tpba_sender_on_tcp_info (TpbaSender * s, const TpbaTcpInfo * info,
    gint64 now)
{
  gboolean end = FALSE;
  gint64 len;

  if (info->rtt_us)
    s->tcp_rtt = (gint64) info->rtt_us * 1000;
  if (info->delivery_rate)
    s->delivery_rate = info->delivery_rate * 8;
  if (info->snd_cwnd) {
    if (s->have_sample && s->last_cwnd && info->snd_cwnd < s->last_cwnd)
      s->cwnd_reduced = TRUE;
    s->last_cwnd = info->snd_cwnd;
  }
  s->have_sample = TRUE;
  s->last_sample = now;

  if (is_lda (s) || s->transport != TPBA_TRANSPORT_TCP || !s->probe_started
      || s->period != TPBA_PERIOD_PROBING || now < s->period_start)
    return;
  if (!s->have_base || info->bytes_acked < s->cycle_acked) {
    s->have_base = TRUE;
    s->cycle_start = now;
    s->cycle_acked = info->bytes_acked;
    s->cwnd_reduced = FALSE;
    s->eq_base = FALSE;
    store_segments (s, info);
    return;
  }
  len = now - s->cycle_start;
  if (len <= 0)
    return;
  equation_observe (s, info, now);
  probe_rtt_observe (s, info);
  if (s->cfg.probe_interval == TPBA_PROBE_INTERVAL_CWND) {
    /* a reduction sooner than t_tcp_min after the cycle start is the same
     * congestion event (recovery): ignored */
    if (s->cwnd_reduced && len < s->cfg.t_tcp_min)
      s->cwnd_reduced = FALSE;
    end = s->cwnd_reduced || len >= s->cfg.t_tcp_max;
  }
  else
    end = len >= s->cfg.t_tcp;
  if (!end)
    return;

  {
    gdouble r = 8.0 * (gdouble) (info->bytes_acked - s->cycle_acked) *
        (gdouble) NS_PER_S / (gdouble) len;
    gdouble kept;
    guint span, peak_span;

    if (s->first_loss_cycle == G_MAXUINT && (s->cwnd_reduced ||
            info->total_retrans != s->retrans_hist[s->n_r % TPBA_HISTORY]))
      s->first_loss_cycle = s->n_r;
    s->last_cycle = len;
    s->cycle_start = now;
    s->cycle_acked = info->bytes_acked;
    s->cwnd_reduced = FALSE;
    if (push_probe_rate (s, r, &kept, &span)) {
      s->probe_ends[s->probe_end]++;
      if (s->cfg.kept_rate != TPBA_KEPT_PROBE)
        kept = equation_kept (s, info, now, kept);
      s->r_s = kept;
      s->probe_peak = peak_after_first (s, &peak_span);
      s->probe_rtt = s->probe_rtt_n ?
          (gint64) llround (s->probe_rtt_sum / s->probe_rtt_n) : -1;
      s->p_probe = probe_loss (s, info, span);
      decide (s, TPBA_PERIOD_RUNNING, now);
    } else if (s->n_r == 1)
      equation_take_base (s, info, now);
    store_segments (s, info);
  }
}

static void
on_report_block (TpbaSender * s, const TpbaReportBlock * k, gint64 now)
{
  s->have_rr = TRUE;
  s->rr_new = TRUE;
  s->rr_ext = k->ext_highest_seq;
  s->rr_lost = k->cumulative_lost;
  s->rr_fraction = k->fraction_lost;
  if (k->lsr) {
    ntp_round_trip (ntp_short_from_ns (now + s->cfg.ntp_offset), k->lsr,
        k->dlsr, &s->rtt);
  }
}

typedef struct {
  TpbaSender *s;
  gint64 now;
} SenderRtcpCtx;

static void
sender_rtcp_cb (const TpbaRtcpReport * rep, gpointer user)
{
  SenderRtcpCtx *c = user;

  for (guint i = 0; i < rep->n_blocks; i++)
    if (rep->blocks[i].ssrc == c->s->ssrc)
      on_report_block (c->s, &rep->blocks[i], c->now);
}

/* A PLI about our SSRC: a key unit unless one was asked for within the
 * hold-off, which covers the round trip the key unit needs to arrive. */
static void
on_pli (TpbaSender * s, gint64 now)
{
  gint64 holdoff = s->cfg.key_unit_holdoff;

  s->pli_received++;
  if (s->rtt > 0)
    holdoff = MAX (holdoff, 2 * s->rtt);
  if (!key_unit_holdoff_take (&s->holdoff, now, holdoff)) {
    s->pli_ignored++;
    return;
  }
  s->key_unit_requests++;
  push_event (s, TPBA_EVENT_KEY_UNIT);
}

gboolean
tpba_sender_on_rtcp (TpbaSender * s, const guint8 * data, gsize len,
    gint64 now)
{
  SenderRtcpCtx c = { s, now };
  TpbaRtcpExtras ex;

  if (!tpba_rtcp_scan (data, len, &ex) || (ex.reports &&
          !tpba_rtcp_parse_compound (data, len, sender_rtcp_cb, &c)) ||
      (!ex.reports && ex.n_pli == 0)) {
    s->rtcp_refused++;
    return FALSE;
  }
  s->rtcp_received++;
  if (ex.n_pli > 0 && ex.pli_media_ssrc == s->ssrc)
    on_pli (s, now);
  return TRUE;
}

void
tpba_sender_set_bottleneck (TpbaSender * s, guint64 b)
{
  s->b = b;
}

/* p_loss over the RRs since the previous adaptation point; FALSE if none
 * came. */
static gboolean
interval_loss (TpbaSender * s, gdouble * p)
{
  if (!s->rr_new)
    return FALSE;
  if (s->have_base_rr) {
    guint32 dexp = s->rr_ext - s->base_ext;
    gint64 dlost = (gint64) s->rr_lost - s->base_lost;

    *p = dexp ? CLAMP ((gdouble) dlost / (gdouble) dexp, 0.0, 1.0) : 0.0;
  } else {
    *p = s->rr_fraction / 256.0;
  }
  rebase_rr (s);
  return TRUE;
}

/* Fig. 2 line (C): what TCP's rate grows by until the next adaptation
 * point, P / (2 tau) (T_adapt / tau + 1) with P the packet size in bits and
 * tau the round-trip time @rtt (ns); G_MAXDOUBLE where either is unknown. */
static gdouble
tcp_increase_bound (const TpbaSender * s, gint64 rtt)
{
  gdouble tau = (gdouble) rtt / (gdouble) NS_PER_S, psize = 0;

  if (s->cfg.packet_size)
    psize = 8.0 * s->cfg.packet_size;
  else if (s->adapt_packets)
    psize = 8.0 * (gdouble) s->adapt_bytes / (gdouble) s->adapt_packets;
  if (rtt <= 0 || psize <= 0)
    return G_MAXDOUBLE;
  return psize / (2.0 * tau) *
      ((gdouble) s->cfg.t_adapt / (gdouble) NS_PER_S / tau + 1.0);
}

/* The step of a loss-free adaptation point: the larger of the fixed
 * running_increase and running_increase_fraction of @r, so the fixed step
 * is a floor at low rates and the fraction carries the step where a fixed
 * one is a negligible part of the rate. 0 when both are off. */
static gdouble
running_step (const TpbaSender * s, gdouble r)
{
  return MAX ((gdouble) s->cfg.running_increase,
      s->cfg.running_increase_fraction * r);
}

static gboolean
running_increases (const TpbaSender * s)
{
  return s->cfg.running_increase > 0 || s->cfg.running_increase_fraction > 0;
}

/* The highest rate a running step may reach: running_ceiling times the
 * rate the last probing period kept, which measured the share beside the
 * competing flows; max_rate without a ceiling. With running_ceiling_peak
 * the base is that period's best cycle instead: beside reno a ceiling of
 * 2 r_s let the climb take 2-3 times the TCP flow's rate while running
 * (docs/results.md, issue 17, twenty-second pass). */
static gdouble
running_ceiling (const TpbaSender * s)
{
  gdouble max = (gdouble) s->cfg.max_rate, base = s->r_s;

  if (s->cfg.running_ceiling <= 0)
    return max;
  if (s->cfg.running_ceiling_peak)
    base = MAX (base, s->probe_peak);
  return MIN (s->cfg.running_ceiling * base, max);
}

/* running_queue_margin: the last RR's RTT is more than the margin above the
 * probe's, so the climb is filling the bottleneck's queue. Beside reno at
 * a drop-tail queue the probe saw the queue drain at reno's halvings, and
 * the climb kept it full (docs/results.md, issue 17). */
static gboolean
queue_rising (const TpbaSender * s)
{
  return s->cfg.running_queue_margin > 0 && s->probe_rtt > 0 && s->rtt > 0
      && s->rtt > s->probe_rtt + s->cfg.running_queue_margin;
}

/* A loss-free adaptation point of a running period with a running step:
 * r grows by it, at most by TCP's growth (line (C), with the RTT of the
 * RRs or else TCP's) and at most to the ceiling; a point without loss
 * never lowers r, even when it is above the ceiling. */
static gdouble
running_increase (const TpbaSender * s, gdouble r)
{
  gint64 rtt = s->rtt > 0 ? s->rtt : s->tcp_rtt;
  gdouble nr = r + MIN (running_step (s, r), tcp_increase_bound (s, rtt));

  return MAX (r, MIN (nr, running_ceiling (s)));
}

/* running_hold_on_loss: a point that lost packets, but no more than
 * allow_probe_loss tolerates, holds r. At 10 Mbit/s beside cubic almost
 * every point loses some, and stepping at the tolerated ones took TPBA to
 * 1.5-2.5 times the TCP flow's rate while running (docs/results.md,
 * issue 17, 10 Mbit/s and +160 ms). */
static gboolean
tolerated_loss_holds (const TpbaSender * s)
{
  return s->cfg.running_hold_on_loss && s->p_loss > 0;
}

/* running_queue_cut: while the last RR's RTT is more than the margin above
 * the probe's, r goes halfway back to r_s (never below it; at or below r_s
 * it holds). A hold (running_queue_margin) only refused the next step, and
 * a step of the whole rate had reached 2 r_s before the queue showed
 * (docs/results.md, issue 17). TRUE when the rule acted. */
static gboolean
queue_cut_toward_kept (TpbaSender * s, gdouble r)
{
  gdouble nr;

  if (s->cfg.running_queue_cut <= 0 || s->probe_rtt <= 0 || s->rtt <= 0
      || s->rtt <= s->probe_rtt + s->cfg.running_queue_cut)
    return FALSE;
  nr = MIN (r, 0.5 * (r + (gdouble) s->r_s));
  s->queue_cuts++;
  s->pace_rate = nr;
  set_rate (s, nr);
  return TRUE;
}

/* A running point that may step: held by a tolerated loss, cut back or
 * held by a rising queue (the options), else r takes the running step. */
static void
running_point (TpbaSender * s, gdouble r)
{
  if (tolerated_loss_holds (s))
    s->running_holds++;
  else if (queue_cut_toward_kept (s, r))
    return;
  else if (queue_rising (s))
    s->queue_holds++;
  else {
    s->pace_rate = running_increase (s, r);
    set_rate (s, s->pace_rate);
  }
}

/* reprobe_below (ours, off): a cut that takes r below reprobe_below * r_s
 * ends the running period. Beside cubic flows at a drop-tail queue a
 * running period cuts at most points, joiner or not, and a joiner's cuts
 * seldom come as two large ones in a row (reprobe_on_reductions); but they
 * take r below 0.6 r_s within 3-16 s of the period's start, which steady
 * periods seldom do so early (docs/results.md, issue 17, Table 3 inside a
 * running period). */
static gboolean
cut_below_probe (const TpbaSender * s, gdouble cut)
{
  return s->cfg.reprobe_below > 0 && cut > 0 &&
      s->rate < s->cfg.reprobe_below * s->r_s;
}

static void
tpba_adapt (TpbaSender * s, gint64 t)
{
  gdouble p, r = s->rate, nr, cut = 0.0;

  if (!interval_loss (s, &p)) {
    s->large_cuts = 0;
    return;
  }
  s->p_loss = p;
  if (s->cfg.allow_probe_loss && s->p_probe > 0)
    p = MAX (p - s->p_probe, 0.0);
  if (p > 0) {
    nr = r * (1.0 - p * s->cfg.r_f);
    if (nr < (gdouble) s->cfg.r_min)
      nr = (gdouble) s->cfg.r_min;
    if (nr > r)                 /* never increased while running */
      nr = r;
    cut = r > 0 ? 1.0 - nr / r : 0.0;
    if (nr < r)
      s->reductions++;
    s->pace_rate = nr;
    set_rate (s, nr);
    if (cut >= s->cfg.reprobe_cut)
      s->large_cuts++;
    else
      s->large_cuts = 0;
  } else {
    s->large_cuts = 0;
    if (running_increases (s))
      running_point (s, r);
  }
  s->adapt_bytes = s->adapt_packets = 0;
  if (s->cfg.reprobe_on_reductions && s->large_cuts >= s->cfg.reprobe_count) {
    s->run_ends_reductions++;
    decide (s, TPBA_PERIOD_PROBING, t);
  } else if (cut_below_probe (s, cut)) {
    s->run_ends_below++;
    decide (s, TPBA_PERIOD_PROBING, t);
  }
}

static void
lda_adapt (TpbaSender * s)
{
  gdouble p, r = s->rate, b = (gdouble) s->b;

  if (!interval_loss (s, &p))
    return;
  s->p_loss = p;
  if (p == 0) {
    if (b == 0 || r < b) {      /* (A) */
      if (s->cfg.mode == TPBA_MODE_LDAF)
        s->air = (gdouble) s->cfg.air_0 * (b > 0 ? 1.0 - r / b : 1.0);
      else if (b > 0)
        s->air = s->air * (1.0 - r / b);        /* (B) */
      s->air = MIN (s->air, tcp_increase_bound (s, s->rtt));   /* (C) */
      r = r + s->air;
    }                           /* (A) */
    if (b > 0 && r >= b)        /* (A) */
      r = b;
  } else {
    s->air = (gdouble) s->cfg.air_0;
    r = r * (1.0 - p * s->cfg.r_f);
    if (r < (gdouble) s->cfg.r_min)
      r = (gdouble) s->cfg.r_min;
    s->reductions++;
  }
  if (r > (gdouble) s->cfg.max_rate)
    r = (gdouble) s->cfg.max_rate;
  s->adapt_bytes = s->adapt_packets = 0;
  s->pace_rate = r;
  set_rate (s, r);
}

static gboolean
running (const TpbaSender * s)
{
  return s->transport == TPBA_TRANSPORT_UDP &&
      s->period == TPBA_PERIOD_RUNNING;
}

gint64
tpba_sender_next_deadline (const TpbaSender * s)
{
  gint64 t = s->next_sr;

  if (running (s)) {
    t = MIN (t, s->next_adapt);
    if (!is_lda (s))
      t = MIN (t, s->run_end);
  } else if (s->transport == TPBA_TRANSPORT_TCP && s->probe_started &&
      s->period == TPBA_PERIOD_PROBING) {
    if (!s->have_base)
      t = MIN (t, s->period_start);
    else if (s->cfg.probe_interval == TPBA_PROBE_INTERVAL_CWND
        || s->cfg.kept_rate != TPBA_KEPT_PROBE)
      t = MIN (t, MIN (s->last_sample + s->cfg.tcp_sample_interval,
              s->cycle_start + (s->cfg.probe_interval ==
                  TPBA_PROBE_INTERVAL_CWND ? s->cfg.t_tcp_max :
                  s->cfg.t_tcp)));
    else
      t = MIN (t, s->cycle_start + s->cfg.t_tcp);
  }
  return t;
}

void
tpba_sender_advance (TpbaSender * s, gint64 now)
{
  while (running (s)) {
    if (s->next_adapt <= now && (is_lda (s) || s->next_adapt <= s->run_end)) {
      gint64 t = s->next_adapt;

      s->next_adapt += s->cfg.t_adapt;
      if (is_lda (s))
        lda_adapt (s);
      else
        tpba_adapt (s, t);
    } else if (!is_lda (s) && s->run_end <= now) {
      s->run_ends_timer++;
      decide (s, TPBA_PERIOD_PROBING, s->run_end);
    } else {
      break;
    }
  }
  if (now >= s->next_sr) {
    if (s->packets_sent > 0) {
      s->sr_pending = TRUE;
      s->sr_time = now;
    }
    while (s->next_sr <= now)
      s->next_sr += s->cfg.t_rtcp;
  }
}

gsize
tpba_sender_pop_rtcp (TpbaSender * s, guint8 * out, gsize max)
{
  TpbaRtcpReport rep;

  if (!s->sr_pending)
    return 0;
  s->sr_pending = FALSE;
  memset (&rep, 0, sizeof (rep));
  rep.is_sr = TRUE;
  rep.ssrc = s->ssrc;
  rep.ntp = ntp_from_ns (s->sr_time + s->cfg.ntp_offset);
  rep.rtp_ts = s->last_rtp_ts;
  rep.packet_count = (guint32) s->packets_sent;
  rep.octet_count = (guint32) s->octets_sent;
  return tpba_rtcp_write (&rep, NULL, out, max);
}

gboolean
tpba_sender_pop_event (TpbaSender * s, TpbaEvent * ev)
{
  return polled_pop (&s->events, ev, sizeof (TpbaEvent));
}

void
tpba_sender_get_stats (const TpbaSender * s, TpbaSenderStats * st)
{
  guint n;

  memset (st, 0, sizeof (*st));
  st->mode = s->cfg.mode;
  st->period = s->period;
  st->transport = s->transport;
  st->rate = round_rate (s->transport == TPBA_TRANSPORT_UDP ? s->pace_rate :
      s->rate);
  st->r_s = round_rate (s->r_s);
  st->n_r = s->n_r;
  n = MIN (s->n_r, TPBA_HISTORY);
  for (guint i = 0; i < n; i++)
    st->r[i] = round_rate (s->r_hist[(s->n_r - n + i) % TPBA_HISTORY]);
  st->p_loss = s->p_loss;
  st->p_probe = s->p_probe;
  st->fraction_lost = s->rr_fraction;
  st->cumulative_lost = s->rr_lost;
  st->rtt = s->rtt;
  st->tcp_rtt = s->tcp_rtt;
  st->delivery_rate = s->delivery_rate;
  st->air = round_rate (s->air);
  st->cwnd_new = s->cwnd_new;
  st->last_cycle = s->last_cycle;
  st->switches = s->switches;
  st->mid_adu_switches = s->mid_adu_switches;
  st->probing_periods = s->probing_periods;
  st->running_periods = s->running_periods;
  st->reductions = s->reductions;
  st->running_holds = s->running_holds;
  st->stalled_cycles = s->stalled_cycles;
  memcpy (st->probe_ends, s->probe_ends, sizeof (st->probe_ends));
  st->kept_without_loss = s->kept_without_loss;
  st->kept_falling = s->kept_falling;
  st->probe_peak = round_rate (s->probe_peak);
  st->probe_rtt = s->probe_rtt;
  st->queue_holds = s->queue_holds;
  st->queue_cuts = s->queue_cuts;
  st->kept_by_equation = s->kept_by_equation;
  st->equation_fallbacks = s->equation_fallbacks;
  st->eq_loss_event_rate = s->eq_p;
  st->eq_rtt = s->eq_rtt < 0 ? -1 : (gint64) llround (s->eq_rtt);
  st->eq_rate = round_rate (s->eq_rate);
  st->run_ends_timer = s->run_ends_timer;
  st->run_ends_reductions = s->run_ends_reductions;
  st->run_ends_below = s->run_ends_below;
  st->packets_udp = s->packets_udp;
  st->packets_tcp = s->packets_tcp;
  st->bytes_udp = s->bytes_udp;
  st->bytes_tcp = s->bytes_tcp;
  st->rtcp_received = s->rtcp_received;
  st->pli_received = s->pli_received;
  st->pli_ignored = s->pli_ignored;
  st->key_unit_requests = s->key_unit_requests;
  st->rtcp_refused = s->rtcp_refused;
}

/* ------------------------------------------------------------------ */
/* Receiver */

typedef struct {
  gpointer pkt;
  gint64 arrival;
  gint64 ext;
  TpbaTransport transport;
  guint16 seq;
  gboolean used;                /* held */
  gboolean done;                /* ext was delivered from here */
} Slot;

struct _TpbaReceiver {
  TpbaConfig cfg;
  guint32 ssrc;
  GDestroyNotify free_packet;

  /* source */
  gboolean have_src;
  guint32 sender_ssrc;
  gint64 base_ext, max_ext;
  guint64 received;
  RtpLossInterval loss_interval;
  RtpJitter jitter;
  guint8 fraction_lost;
  gint64 cum_lost;

  /* SR */
  guint32 lsr;
  gint64 lsr_time;

  /* merge */
  Slot *slots;
  guint cap;
  gint64 next_ext;              /* next to deliver */
  guint held;
  TpbaTransport last_transport; /* of the packet before next_ext */
  gint64 max_tcp_ext;
  gboolean gap_valid;
  gint64 gap_since;

  /* RR */
  gint64 next_rr;
  gboolean rr_pending;
  gint64 rr_time;

  guint64 packets_udp, packets_tcp, bytes_udp, bytes_tcp;
  guint64 delivered, duplicates, late, skipped, invalid;
  guint64 rtcp_received, rtcp_refused, rr_sent;
  gboolean pli_pending;
  guint64 pli_sent;
};

TpbaReceiver *
tpba_receiver_new (const TpbaConfig * cfg, guint32 ssrc,
    GDestroyNotify free_packet, gint64 now)
{
  TpbaReceiver *r = g_new0 (TpbaReceiver, 1);

  if (cfg)
    r->cfg = *cfg;
  else
    tpba_config_init (&r->cfg);
  if (r->cfg.max_held < 16)
    r->cfg.max_held = 16;
  if (r->cfg.clock_rate == 0)
    r->cfg.clock_rate = 90000;
  r->ssrc = ssrc;
  r->free_packet = free_packet;
  r->cap = r->cfg.max_held;
  r->slots = g_new0 (Slot, r->cap);
  r->next_rr = now + r->cfg.t_rtcp;
  r->max_tcp_ext = G_MININT64;
  r->last_transport = TPBA_TRANSPORT_UDP;
  return r;
}

static Slot *
slot_of (TpbaReceiver * r, gint64 ext)
{
  return &r->slots[(guint64) ext % r->cap];
}

/* The held slot at or after @*ext (stepped past it), or NULL when no more
 * of @left are held. Held packets lie in [next_ext, next_ext + cap): a walk
 * from next_ext that stops at the last one reads only the slots up to it,
 * not all cap. */
static Slot *
next_held (TpbaReceiver * r, gint64 * ext, guint * left)
{
  for (; *left > 0 && *ext < r->next_ext + r->cap; (*ext)++) {
    Slot *sl = slot_of (r, *ext);

    if (sl->used) {
      (*left)--;
      (*ext)++;
      return sl;
    }
  }
  return NULL;
}

void
tpba_receiver_free (TpbaReceiver * r)
{
  gint64 ext;
  guint left;
  Slot *sl;

  if (!r)
    return;
  ext = r->next_ext;
  left = r->held;
  while ((sl = next_held (r, &ext, &left)))
    if (r->free_packet)
      r->free_packet (sl->pkt);
  g_free (r->slots);
  g_free (r);
}

static void
update_gap (TpbaReceiver * r)
{
  gint64 ext;
  guint left;
  const Slot *sl;

  if (r->held == 0 || slot_of (r, r->next_ext)->used) {
    r->gap_valid = FALSE;
    return;
  }
  if (r->gap_valid)
    return;
  r->gap_valid = TRUE;
  r->gap_since = G_MAXINT64;
  ext = r->next_ext;
  left = r->held;
  while ((sl = next_held (r, &ext, &left)))
    r->gap_since = MIN (r->gap_since, sl->arrival);
}

static gint64
gap_deadline (const TpbaReceiver * r)
{
  gboolean tcp_before = r->last_transport == TPBA_TRANSPORT_TCP &&
      r->max_tcp_ext < r->next_ext;

  return r->gap_since + (tcp_before ? r->cfg.switch_wait :
      r->cfg.reorder_wait);
}

TpbaRecvResult
tpba_receiver_on_rtp (TpbaReceiver * r, TpbaTransport transport,
    const guint8 * data, gsize len, gpointer packet, gint64 now)
{
  TpbaRtpInfo info;
  gint64 ext;
  Slot *sl;

  if (!tpba_rtp_parse (data, len, &info) ||
      (r->have_src && info.ssrc != r->sender_ssrc)) {
    r->invalid++;
    return TPBA_RECV_INVALID;
  }
  if (!r->have_src) {
    r->have_src = TRUE;
    r->sender_ssrc = info.ssrc;
    /* joining a stream: its last key unit is probably long gone */
    r->pli_pending = TRUE;
    r->base_ext = r->max_ext = r->next_ext = info.seq;
    ext = info.seq;
  } else {
    ext = rtp_seq_extend (r->max_ext, info.seq);
    if (ext > r->max_ext)
      r->max_ext = ext;
  }
  /* RFC 3550 A.3 counts every valid packet, duplicates included */
  r->received++;
  rtp_jitter_update (&r->jitter, info.timestamp,
      rtp_arrival_units (now, r->cfg.clock_rate));
  if (transport == TPBA_TRANSPORT_TCP) {
    r->packets_tcp++;
    r->bytes_tcp += len;
    r->max_tcp_ext = MAX (r->max_tcp_ext, ext);
  } else {
    r->packets_udp++;
    r->bytes_udp += len;
  }

  if (ext < r->next_ext) {
    /* delivered already (a duplicate), or its gap was given up (late) */
    sl = slot_of (r, ext);
    if (r->next_ext - ext <= (gint64) r->cap && !sl->used && sl->done &&
        sl->ext == ext) {
      r->duplicates++;
      return TPBA_RECV_DUPLICATE;
    }
    r->late++;
    return TPBA_RECV_LATE;
  }
  /* too far ahead: give up the oldest gaps until it fits */
  while (ext - r->next_ext >= (gint64) r->cap) {
    sl = slot_of (r, r->next_ext);
    if (sl->used)
      break;                    /* deliverable: the shell must pop first */
    r->next_ext++;
    r->skipped++;
    r->gap_valid = FALSE;
  }
  if (ext - r->next_ext >= (gint64) r->cap) {
    r->invalid++;
    return TPBA_RECV_INVALID;
  }
  sl = slot_of (r, ext);
  if (sl->used) {
    r->duplicates++;
    return TPBA_RECV_DUPLICATE;
  }
  sl->used = TRUE;
  sl->done = FALSE;
  sl->ext = ext;
  sl->pkt = packet;
  sl->arrival = now;
  sl->transport = transport;
  sl->seq = info.seq;
  r->held++;
  update_gap (r);
  return TPBA_RECV_ACCEPTED;
}

gpointer
tpba_receiver_pop_rtp (TpbaReceiver * r, gint64 now, guint16 * seq)
{
  Slot *sl;
  gpointer pkt;

  if (r->held == 0)
    return NULL;
  sl = slot_of (r, r->next_ext);
  if (!sl->used) {
    update_gap (r);
    if (now < gap_deadline (r))
      return NULL;
    /* give the gap up: skip to the next held packet */
    while (!(sl = slot_of (r, r->next_ext))->used) {
      r->next_ext++;
      r->skipped++;
    }
    r->gap_valid = FALSE;
  }
  pkt = sl->pkt;
  if (seq)
    *seq = sl->seq;
  r->last_transport = sl->transport;
  sl->used = FALSE;
  sl->done = TRUE;
  sl->pkt = NULL;
  r->held--;
  r->next_ext++;
  r->delivered++;
  update_gap (r);
  return pkt;
}

typedef struct {
  TpbaReceiver *r;
  gint64 now;
} RecvRtcpCtx;

static void
receiver_rtcp_cb (const TpbaRtcpReport * rep, gpointer user)
{
  RecvRtcpCtx *c = user;

  if (!rep->is_sr || (c->r->have_src && rep->ssrc != c->r->sender_ssrc))
    return;
  c->r->lsr = ntp_short (rep->ntp);
  c->r->lsr_time = c->now;
}

gboolean
tpba_receiver_on_rtcp (TpbaReceiver * r, const guint8 * data, gsize len,
    gint64 now)
{
  RecvRtcpCtx c = { r, now };

  if (!tpba_rtcp_parse_compound (data, len, receiver_rtcp_cb, &c)) {
    r->rtcp_refused++;
    return FALSE;
  }
  r->rtcp_received++;
  return TRUE;
}

gint64
tpba_receiver_next_deadline (const TpbaReceiver * r)
{
  gint64 t = r->next_rr;

  if (r->gap_valid)
    t = MIN (t, gap_deadline (r));
  return t;
}

void
tpba_receiver_advance (TpbaReceiver * r, gint64 now)
{
  if (now < r->next_rr)
    return;
  if (r->have_src) {
    r->rr_pending = TRUE;
    r->rr_time = now;
  }
  while (r->next_rr <= now)
    r->next_rr += r->cfg.t_rtcp;
}

void
tpba_receiver_request_key_unit (TpbaReceiver * r)
{
  r->pli_pending = TRUE;
}

gsize
tpba_receiver_pop_pli (TpbaReceiver * r, guint8 * out, gsize max)
{
  gsize n;

  if (!r->pli_pending || !r->have_src)
    return 0;
  n = rtcp_pli_write (out, max, r->ssrc, r->sender_ssrc);
  if (n) {
    r->pli_pending = FALSE;
    r->pli_sent++;
  }
  return n;
}

gsize
tpba_receiver_pop_rtcp (TpbaReceiver * r, guint8 * out, gsize max)
{
  TpbaRtcpReport rep;
  TpbaReportBlock *k;
  gint64 expected;

  if (!r->rr_pending)
    return 0;
  r->rr_pending = FALSE;
  memset (&rep, 0, sizeof (rep));
  rep.ssrc = r->ssrc;
  rep.n_blocks = 1;
  k = &rep.blocks[0];
  k->ssrc = r->sender_ssrc;
  /* RFC 3550 A.3 */
  expected = r->max_ext - r->base_ext + 1;
  r->cum_lost = expected - (gint64) r->received;
  rtp_loss_report (&r->loss_interval, expected, (gint64) r->received,
      &k->cumulative_lost, &k->fraction_lost);
  r->fraction_lost = k->fraction_lost;
  k->ext_highest_seq = (guint32) r->max_ext;
  k->jitter = rtp_jitter_get (&r->jitter);
  if (r->lsr) {
    k->lsr = r->lsr;
    k->dlsr = ntp_duration_to_short (r->rr_time - r->lsr_time);
  }
  r->rr_sent++;
  return tpba_rtcp_write (&rep, NULL, out, max);
}

void
tpba_receiver_get_stats (const TpbaReceiver * r, TpbaReceiverStats * st)
{
  memset (st, 0, sizeof (*st));
  st->sender_ssrc = r->sender_ssrc;
  st->packets_udp = r->packets_udp;
  st->packets_tcp = r->packets_tcp;
  st->bytes_udp = r->bytes_udp;
  st->bytes_tcp = r->bytes_tcp;
  st->delivered = r->delivered;
  st->duplicates = r->duplicates;
  st->late = r->late;
  st->skipped = r->skipped;
  st->invalid = r->invalid;
  st->held = r->held;
  st->ext_highest_seq = (guint32) r->max_ext;
  st->cumulative_lost = r->have_src ? r->max_ext - r->base_ext + 1 -
      (gint64) r->received : 0;
  st->fraction_lost = r->fraction_lost;
  st->jitter = rtp_jitter_get (&r->jitter);
  st->rtcp_received = r->rtcp_received;
  st->rtcp_refused = r->rtcp_refused;
  st->rr_sent = r->rr_sent;
  st->pli_sent = r->pli_sent;
}
