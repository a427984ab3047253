/* One TCP_INFO sample of a connection (Linux, GLib only): what the socket
 * layer reads (gstnetsocket.h) and what a core that follows TCP's rate
 * takes (TPBA's probing period), in the kernel's units; 0: unknown. */
#ifndef __CORE_TCP_INFO_H__
#define __CORE_TCP_INFO_H__

#include <glib.h>

typedef struct
{
  guint64 bytes_acked;          /* tcpi_bytes_acked, bytes */
  guint32 snd_cwnd;             /* tcpi_snd_cwnd, segments */
  guint32 rtt_us;               /* tcpi_rtt, us */
  guint64 delivery_rate;        /* tcpi_delivery_rate, bytes/s */
  guint32 data_segs_out;        /* tcpi_data_segs_out, segments
                                 * (retransmissions included) */
  guint32 total_retrans;        /* tcpi_total_retrans, segments */
} TcpInfo;

#endif /* __CORE_TCP_INFO_H__ */
