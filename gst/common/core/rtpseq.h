/* Receiver statistics of RFC 3550 (GLib only): extended sequence numbers,
 * the source validation and loss accounting of appendix A.1 and A.3, and
 * the interarrival jitter of A.8. */
#ifndef __CORE_RTP_SEQ_H__
#define __CORE_RTP_SEQ_H__

#include <glib.h>

/* RFC 3550 A.1 defaults. */
#define RTP_SEQ_MAX_DROPOUT 3000
#define RTP_SEQ_MAX_MISORDER 100
#define RTP_SEQ_MIN_SEQUENTIAL 2
#define RTP_SEQ_MOD (1 << 16)

/* The extension of @seq nearest to the extended number @last (a jump of
 * half the sequence space or more counts as backwards). */
static inline gint64
rtp_seq_extend (gint64 last, guint16 seq)
{
  return last + (gint16) (guint16) (seq - (guint16) last);
}

/* RFC 3550 A.1 source state: a source is valid after
 * RTP_SEQ_MIN_SEQUENTIAL packets in sequence; a jump beyond max_dropout (or
 * back beyond max_misorder) is taken as a restart only when the next packet
 * follows it. */
typedef struct
{
  guint16 max_seq;              /* highest seq seen */
  guint32 cycles;               /* shifted count of seq wraps */
  guint32 base_seq;
  guint32 bad_seq;              /* last 'bad' seq + 1 */
  guint probation;              /* packets until the source is valid */
  guint32 received;
  guint max_dropout, max_misorder, min_sequential;
} RtpSeqStats;

/* The first packet of a source, with RFC 3550's limits. */
void rtp_seq_stats_start (RtpSeqStats * s, guint16 seq);
/* A.1 update_seq: TRUE if the packet counts (the source is valid). */
gboolean rtp_seq_stats_update (RtpSeqStats * s, guint16 seq);
/* Highest extended sequence number received. */
guint32 rtp_seq_stats_ext_max (const RtpSeqStats * s);
/* A.3 expected = extended max - base + 1. */
gint64 rtp_seq_stats_expected (const RtpSeqStats * s);
/* A.3 cumulative number lost (negative with duplicates). */
gint64 rtp_seq_stats_lost (const RtpSeqStats * s);

/* A.3 per-report interval: the cumulative loss clamped to the 24-bit field
 * and the fraction lost (1/256) since the previous report. */
typedef struct
{
  gint64 expected_prior;
  gint64 received_prior;
} RtpLossInterval;

void rtp_loss_report (RtpLossInterval * iv, gint64 expected,
    gint64 received, gint32 * cumulative_lost, guint8 * fraction_lost);
/* rtp_loss_report() over @s's counters. */
void rtp_seq_stats_report (RtpSeqStats * s, RtpLossInterval * iv,
    gint32 * cumulative_lost, guint8 * fraction_lost);

/* A.8 interarrival jitter, in RTP timestamp units scaled by 16. */
typedef struct
{
  gint64 jitter16;
  gint32 last_transit;
  gboolean have_transit;
} RtpJitter;

/* @arrival: the arrival time in RTP timestamp units (rtp_arrival_units). */
void rtp_jitter_update (RtpJitter * j, guint32 rtp_ts, guint32 arrival);
/* The jitter field of a report block. */
guint32 rtp_jitter_get (const RtpJitter * j);
/* @now (ns) in units of @clock_rate, modulo 2^32. */
guint32 rtp_arrival_units (gint64 now, guint clock_rate);

#endif /* __CORE_RTP_SEQ_H__ */
