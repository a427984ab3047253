/* Shared by rmtpsink and rmtpsrc: the core's parameters as properties, the
 * settings both elements keep, and the stats of a core's input. */
#ifndef __GST_RMTP_UTIL_H__
#define __GST_RMTP_UTIL_H__

#include <gst/gst.h>
#include "rmtpcore.h"
#include "gstparamtable.h"
#include "gstnetudpprops.h"
#include "gstnetudp.h"

G_BEGIN_DECLS

/* The table's element mask. */
#define GST_RMTP_PARAM_SINK 1
#define GST_RMTP_PARAM_SRC 2

#define GST_RMTP_DEFAULT_ADDRESS "239.2.2.2"
#define GST_RMTP_DEFAULT_PORT 6000
#define GST_RMTP_DEFAULT_STATS_INTERVAL GST_SECOND
#define GST_RMTP_DEFAULT_SEND_BURST (20 * GST_MSECOND)

/* The settings both elements have (under the object lock). */
typedef struct
{
  GstNetUdpSettings net;        /* address: the group */
  RmtpConfig cfg;
  guint64 stats_interval;       /* ns, 0: only at the end */
} GstRmtpSettings;

/* Property ids from the element's first settings id: stats-interval, the
 * socket properties (gstnetudpprops.h), then the core's parameters. */
enum
{
  GST_RMTP_PROP_STATS_INTERVAL,
  GST_RMTP_PROP_UDP,
  GST_RMTP_PROP_CONFIG = GST_RMTP_PROP_UDP + GST_NET_UDP_N_PROPS
};

/* The repair property's enum (RmtpRepair). */
GType gst_rmtp_repair_get_type (void);

void gst_rmtp_settings_init (GstRmtpSettings * s, const GstNetUdpProps * udp);
void gst_rmtp_settings_clear (GstRmtpSettings * s);
/* Installs stats-interval (posting @stats_name), the socket properties and
 * the core's parameters of @elements (GST_RMTP_PARAM_*) from @first_id. */
void gst_rmtp_settings_install (GObjectClass * klass, guint first_id,
    const GstNetUdpProps * udp, guint elements, const gchar * stats_name);
/* TRUE if @prop_id is one of the settings (then it was set / read); under
 * the object lock. */
gboolean gst_rmtp_settings_set (GstRmtpSettings * s,
    const GstNetUdpProps * udp, guint first_id, guint prop_id,
    const GValue * value);
gboolean gst_rmtp_settings_get (const GstRmtpSettings * s, guint first_id,
    guint prop_id, GValue * value);

/* The group of @s as a socket address; errors name the setting. */
GSocketAddress *gst_rmtp_group_address (const GstNetUdpSettings * s,
    GError ** error);

/* Sends @d to @to (NULL: nowhere yet) from @udp and releases its bytes;
 * FALSE if it was not sent (the element counts it). */
gboolean gst_rmtp_send_datagram (GstNetUdp * udp, RmtpDatagram * d,
    GSocketAddress * to);

/* What became of the datagrams a core was given, as stats fields. */
void gst_rmtp_input_stats (GstStructure * s, const RmtpInputStats * in);
#define GST_RMTP_INPUT_STATS_DOC \
  "accepted: packets the core took (packets); " \
  "malformed: datagrams that are no whole RMTP packet, dropped (packets); " \
  "foreign: packets of another session or not for this side, dropped " \
  "(packets); " \
  "forged: packets naming an unknown member or another member than their " \
  "source, dropped (packets); " \
  "out-of-window: packets whose sequence, range or round is out of bounds, " \
  "dropped (packets); " \
  "duplicates: packets already held, dropped (packets); " \
  "late: answers to a round already closed, dropped (packets)"

const gchar *gst_rmtp_fail_reason_name (RmtpFailReason reason);

#define GST_RMTP_URI_BLURB "rmtp://GROUP:PORT?key=value&...: the " \
  "multicast group and port, and any other property as a query parameter " \
  "(all or nothing: a bad URI changes nothing and fails the start)"

G_END_DECLS

#endif /* __GST_RMTP_UTIL_H__ */
