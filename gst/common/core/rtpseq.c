/* RFC 3550 appendix A.1, A.3 and A.8. See rtpseq.h. */
#include "core/rtpseq.h"
#include "core/wire.h"

#define NS_PER_S G_GUINT64_CONSTANT (1000000000)

static void
init_seq (RtpSeqStats * s, guint16 seq)
{
  s->base_seq = seq;
  s->max_seq = seq;
  s->bad_seq = RTP_SEQ_MOD + 1;  /* so seq == bad_seq is false */
  s->cycles = 0;
  s->received = 0;
}

void
rtp_seq_stats_start (RtpSeqStats * s, guint16 seq)
{
  s->max_dropout = RTP_SEQ_MAX_DROPOUT;
  s->max_misorder = RTP_SEQ_MAX_MISORDER;
  s->min_sequential = RTP_SEQ_MIN_SEQUENTIAL;
  init_seq (s, seq);
  s->max_seq = seq - 1;
  s->probation = s->min_sequential;
}

gboolean
rtp_seq_stats_update (RtpSeqStats * s, guint16 seq)
{
  guint16 udelta = seq - s->max_seq;

  if (s->probation) {
    /* packet is in sequence */
    if (seq == (guint16) (s->max_seq + 1)) {
      s->probation--;
      s->max_seq = seq;
      if (s->probation == 0) {
        init_seq (s, seq);
        s->received++;
        return TRUE;
      }
    } else {
      s->probation = s->min_sequential - 1;
      s->max_seq = seq;
    }
    return FALSE;
  }
  if (udelta < s->max_dropout) {
    /* in order, with permissible gap */
    if (seq < s->max_seq)
      s->cycles += RTP_SEQ_MOD;
    s->max_seq = seq;
  } else if (udelta <= RTP_SEQ_MOD - s->max_misorder) {
    /* a very large jump: a restart if the next packet follows it */
    if (seq == s->bad_seq) {
      init_seq (s, seq);
    } else {
      s->bad_seq = (seq + 1) & (RTP_SEQ_MOD - 1);
      return FALSE;
    }
  }
  /* else a duplicate or reordered packet */
  s->received++;
  return TRUE;
}

guint32
rtp_seq_stats_ext_max (const RtpSeqStats * s)
{
  return s->cycles + s->max_seq;
}

gint64
rtp_seq_stats_expected (const RtpSeqStats * s)
{
  return (gint64) rtp_seq_stats_ext_max (s) - s->base_seq + 1;
}

gint64
rtp_seq_stats_lost (const RtpSeqStats * s)
{
  return rtp_seq_stats_expected (s) - s->received;
}

void
rtp_loss_report (RtpLossInterval * iv, gint64 expected, gint64 received,
    gint32 * cumulative_lost, guint8 * fraction_lost)
{
  gint64 exp_int = expected - iv->expected_prior;
  gint64 rec_int = received - iv->received_prior;
  gint64 lost_int = exp_int - rec_int;

  iv->expected_prior = expected;
  iv->received_prior = received;
  if (cumulative_lost)
    *cumulative_lost = (gint32) CLAMP (expected - received, -0x800000,
        0x7fffff);
  if (fraction_lost)
    *fraction_lost = (exp_int == 0 || lost_int <= 0) ? 0 :
        (guint8) MIN ((lost_int << 8) / exp_int, 255);
}

void
rtp_seq_stats_report (RtpSeqStats * s, RtpLossInterval * iv,
    gint32 * cumulative_lost, guint8 * fraction_lost)
{
  rtp_loss_report (iv, rtp_seq_stats_expected (s), s->received,
      cumulative_lost, fraction_lost);
}

void
rtp_jitter_update (RtpJitter * j, guint32 rtp_ts, guint32 arrival)
{
  gint32 transit = (gint32) (arrival - rtp_ts);

  if (j->have_transit) {
    /* Timestamps wrap: the difference is taken modulo 2^32, its size in 64
     * bits (a 2^31 jump must not overflow). */
    gint64 d = (gint32) ((guint32) transit - (guint32) j->last_transit);

    if (d < 0)
      d = -d;
    j->jitter16 += d - ((j->jitter16 + 8) >> 4);
  }
  j->have_transit = TRUE;
  j->last_transit = transit;
}

guint32
rtp_jitter_get (const RtpJitter * j)
{
  return (guint32) (j->jitter16 >> 4);
}

guint32
rtp_arrival_units (gint64 now, guint clock_rate)
{
  return (guint32) muldiv ((guint64) MAX (now, 0), clock_rate, NS_PER_S);
}
