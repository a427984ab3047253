/* One RTCP layer for every protocol (GLib only): the common header and the
 * compound walk of RFC 3550 6.1 / A.2, SR and RR with report blocks (6.4),
 * the SDES CNAME item (6.5), BYE (6.6), APP (6.7), and the RFC 4585
 * feedback messages generic NACK (6.2.1) and PLI (6.3.1), with the rule by
 * which a sender turns PLIs into key-unit requests. */
#ifndef __CORE_RTCP_H__
#define __CORE_RTCP_H__

#include <glib.h>

#define RTCP_VERSION 2
#define RTCP_PT_SR 200
#define RTCP_PT_RR 201
#define RTCP_PT_SDES 202
#define RTCP_PT_BYE 203
#define RTCP_PT_APP 204
#define RTCP_PT_RTPFB 205
#define RTCP_PT_PSFB 206
#define RTCP_FMT_NACK 1
#define RTCP_FMT_PLI 1
#define RTCP_SDES_CNAME 1

#define RTCP_HEADER_SIZE 4
#define RTCP_BLOCK_SIZE 24
#define RTCP_SR_INFO_SIZE 20
#define RTCP_MAX_BLOCKS 31
#define RTCP_APP_HEADER_SIZE 12
#define RTCP_PLI_SIZE 12

/* One packet of a compound: @data and @len cover the whole packet as its
 * length field gives it; @body is what follows the 4-byte common header,
 * without padding when the padding was validated (rtcp_iter_next). */
typedef struct
{
  gboolean padding;
  guint8 count;                 /* RC, SC, subtype or FMT */
  guint8 type;                  /* PT */
  const guint8 *data;
  gsize len;
  const guint8 *body;
  gsize body_len;
} RtcpPacket;

/* The common header at @data: version 2 and a length within @len. The
 * padding bit is reported but its count not checked (see rtcp_iter_next).
 * FALSE when no packet can be delimited. */
gboolean rtcp_header_parse (const guint8 * data, gsize len, RtcpPacket * pkt);

/* The walk over a compound packet. Every step checks the version, that the
 * length stays within the datagram and that padding is only on the last
 * packet with a count that neither is 0 nor reaches into the header. */
typedef struct
{
  const guint8 *data;
  gsize len;
  gsize pos;
  gboolean failed;              /* stopped on a malformed packet */
} RtcpIter;

void rtcp_iter_init (RtcpIter * it, const guint8 * data, gsize len);
/* The next packet, or FALSE at the end (@it->failed if malformed). */
gboolean rtcp_iter_next (RtcpIter * it, RtcpPacket * pkt);
/* RFC 3550 A.2: a sound compound (every packet as rtcp_iter_next wants)
 * whose first packet is an SR or RR without padding. */
gboolean rtcp_compound_valid (const guint8 * data, gsize len);
/* Every packet sound, the first of any type (RFC 5506 reduced size). */
gboolean rtcp_walk_valid (const guint8 * data, gsize len);

/* ------------------------------------------------------------------ */
/* SR and RR (RFC 3550 6.4.1, 6.4.2) */

typedef struct
{
  guint32 ssrc;                 /* the source reported on */
  guint8 fraction_lost;         /* 1/256 */
  gint32 cumulative_lost;       /* 24-bit signed */
  guint32 ext_highest_seq;
  guint32 jitter;               /* RTP timestamp units */
  guint32 lsr;                  /* middle 32 bits of the last SR's NTP */
  guint32 dlsr;                 /* 1/65536 s */
} RtcpReportBlock;

typedef struct
{
  gboolean is_sr;
  guint32 ssrc;
  guint64 ntp;                  /* SR: 32.32 fixed point */
  guint32 rtp_ts, packet_count, octet_count;    /* SR */
  guint n_blocks;
  RtcpReportBlock blocks[RTCP_MAX_BLOCKS];
} RtcpReport;

/* An SR or RR whose body holds its sender info and every report block. */
gboolean rtcp_report_parse (const RtcpPacket * pkt, RtcpReport * rep);
/* Writes @rep (at most RTCP_MAX_BLOCKS blocks); 0 if it does not fit. */
gsize rtcp_report_write (const RtcpReport * rep, guint8 * out, gsize max);
/* Writes an SDES packet with one chunk: @ssrc's CNAME (255 bytes at most). */
gsize rtcp_sdes_cname_write (guint32 ssrc, const gchar * cname, guint8 * out,
    gsize max);

/* ------------------------------------------------------------------ */
/* BYE (RFC 3550 6.6) */

#define RTCP_BYE_MAX_SOURCES 31

typedef struct
{
  guint n_sources;              /* SC, 0..31 */
  guint32 sources[RTCP_BYE_MAX_SOURCES];
  const guint8 *reason;         /* NULL: none; else not NUL-terminated */
  guint8 reason_len;
} RtcpBye;

/* A BYE whose body holds its SC sources and, if one follows, a reason
 * that fits (length octet and text); what pads the reason is not read. */
gboolean rtcp_bye_parse (const RtcpPacket * pkt, RtcpBye * bye);
/* Writes a BYE for @sources (1 to RTCP_BYE_MAX_SOURCES) with @reason (NULL
 * for none, 255 bytes at most); 0 if it does not fit @max. */
gsize rtcp_bye_write (const guint32 * sources, guint n_sources,
    const gchar * reason, guint8 * out, gsize max);

/* ------------------------------------------------------------------ */
/* APP (RFC 3550 6.7) */

typedef struct
{
  guint8 subtype;
  guint32 ssrc;
  gchar name[4];
  const guint8 *data;           /* application-dependent data */
  gsize len;
} RtcpApp;

gboolean rtcp_app_parse (const RtcpPacket * pkt, RtcpApp * app);
/* @len must be a multiple of 4; 0 if it is not or does not fit. */
gsize rtcp_app_write (guint8 subtype, guint32 ssrc, const gchar name[4],
    const guint8 * data, gsize len, guint8 * out, gsize max);

/* ------------------------------------------------------------------ */
/* RFC 4585 generic NACK (6.2.1) */

typedef struct
{
  guint16 pid;                  /* a lost packet */
  guint16 blp;                  /* bit i: pid + i + 1 lost too */
} RtcpNackItem;

/* Packs the sequence numbers @seqs (in any order, duplicates allowed) into
 * items; returns how many were written to @items (at most @max_items). */
guint rtcp_nack_items_from_seqs (const guint16 * seqs, guint n,
    RtcpNackItem * items, guint max_items);
gsize rtcp_nack_write (guint32 sender_ssrc, guint32 media_ssrc,
    const RtcpNackItem * items, guint n_items, guint8 * out, gsize max);
/* A generic NACK: its SSRCs and @n_items items (read with
 * rtcp_nack_item()). */
gboolean rtcp_nack_parse (const RtcpPacket * pkt, guint32 * sender_ssrc,
    guint32 * media_ssrc, guint * n_items);
RtcpNackItem rtcp_nack_item (const RtcpPacket * pkt, guint i);
/* The sequence numbers an item names (1 to 17) into @out. */
guint rtcp_nack_item_expand (RtcpNackItem item, guint16 out[17]);

/* ------------------------------------------------------------------ */
/* RFC 4585 PLI (6.3.1)
 *
 * A receiver sends a PLI when it starts receiving a source (a late joiner)
 * and whenever its depayloader asks for a key unit; the sender asks its
 * encoder for a key unit at most once per hold-off (a PLI that arrives while
 * the requested key unit is still on its way must not ask again, RFC 4585
 * section 3.5.2). */

/* Writes a PLI (12 bytes) from @sender_ssrc about @media_ssrc. */
gsize rtcp_pli_write (guint8 * out, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc);
/* Whether the RTCP packet at @data is a PLI: version 2, PT 206, FMT 1, and
 * a length that fits @len and holds both SSRCs. */
gboolean rtcp_pli_parse (const guint8 * data, gsize len,
    guint32 * sender_ssrc, guint32 * media_ssrc);

/* A sender's hold-off between key-unit requests; @last is -1 at start. */
typedef struct
{
  gint64 last;                  /* ns, monotonic; -1: none yet */
} KeyUnitHoldoff;

void key_unit_holdoff_init (KeyUnitHoldoff * h);
/* TRUE (and the request is taken) if no request was taken in the last
 * @holdoff ns. */
gboolean key_unit_holdoff_take (KeyUnitHoldoff * h, gint64 now,
    gint64 holdoff);

#endif /* __CORE_RTCP_H__ */
