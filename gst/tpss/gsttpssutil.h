/* What tpsssink and tpsssrc share besides the session: the enums, the
 * session's settings as properties (a hand-written part for the session and
 * its transport, gstnetudpprops' description for the socket, one
 * GstParamTable for the group core's TpssGroupConfig),
 * the `members` and `priorities` parsers, the URI handler, the group core's
 * addresses as GSocketAddresses and the stats structure. */
#ifndef __GST_TPSS_UTIL_H__
#define __GST_TPSS_UTIL_H__

#include <gst/gst.h>
#include <gio/gio.h>
#include "gstnetkey.h"
#include "gstnetsrtp.h"
#include "gstnettransport.h"
#include "gstnetudp.h"
#include "tpssgroup.h"

G_BEGIN_DECLS

#define GST_TYPE_TPSS_SLOW_START (gst_tpss_slow_start_get_type ())
#define GST_TYPE_TPSS_CONTROL (gst_tpss_control_get_type ())
#define GST_TYPE_TPSS_DELIVERY (gst_tpss_delivery_get_type ())
GType gst_tpss_slow_start_get_type (void);
GType gst_tpss_control_get_type (void);
GType gst_tpss_delivery_get_type (void);

/* Entries of the TpssGroupConfig parameter table. */
#define GST_TPSS_N_PARAMS 37

/* Properties both elements have (the session's settings). Element-specific
 * properties are numbered from GST_TPSS_PROP_LAST. */
enum
{
  GST_TPSS_PROP_0,
  GST_TPSS_PROP_SESSION,
  GST_TPSS_PROP_ADDRESS,
  GST_TPSS_PROP_PORT,
  GST_TPSS_PROP_MEMBERS,
  GST_TPSS_PROP_MEMBER_LIST,
  GST_TPSS_PROP_MEMBER_ID,
  GST_TPSS_PROP_MULTICAST_IFACE,
  GST_TPSS_PROP_TTL_MC,
  GST_TPSS_PROP_LOOP,
  GST_TPSS_PROP_PRIORITIES,
  GST_TPSS_PROP_BUFFER_SIZE,
  GST_TPSS_PROP_STATS_INTERVAL,
  GST_TPSS_PROP_SOCKET,
  GST_TPSS_PROP_TRANSPORT,
  GST_TPSS_PROP_KEY_FIRST,      /* key, key-file (gstnetkey.h) */
  /* srtp-key, srtp-key-file, srtp-profile (gstnetsrtp.h) */
  GST_TPSS_PROP_SRTP_FIRST = GST_TPSS_PROP_KEY_FIRST + GST_NET_KEY_N_PROPS,
  GST_TPSS_PROP_PARAMS_FIRST = GST_TPSS_PROP_SRTP_FIRST + GST_NET_SRTP_N_PROPS,
  GST_TPSS_PROP_LAST = GST_TPSS_PROP_PARAMS_FIRST + GST_TPSS_N_PARAMS
};

typedef struct
{
  gchar *session;               /* NULL: "tpss-<port>" */
  /* address (bind address, or a multicast group), port, multicast-iface,
   * ttl-mc, loop, buffer-size and socket (the application's, used as
   * given) */
  GstNetUdpSettings udp;
  gchar *members;               /* "id@host:port,..." */
  guint member_id;              /* 0: random */
  gchar *priorities;            /* "id:prio,..." */
  guint64 stats_interval;       /* ns, 0 = no periodic stats messages */
  GstNetTransport *transport;   /* the application's: no socket of ours */
  GstNetKeySettings key;        /* each element's own: never merged, the
                                 * session checks that they agree */
  GstNetSrtpSettings srtp;      /* the same */
  TpssGroupConfig params;       /* the table's fields */
  guint64 set_mask;             /* 1 << prop id of explicitly set ones */
} GstTpssSettings;

void gst_tpss_settings_init (GstTpssSettings * s);
void gst_tpss_settings_clear (GstTpssSettings * s);
/* A deep copy into @dst (cleared first). */
void gst_tpss_settings_copy (GstTpssSettings * dst,
    const GstTpssSettings * src);
void gst_tpss_settings_install_properties (GObjectClass * klass);
/* Under the caller's object lock. FALSE if @prop_id is not a shared one. */
gboolean gst_tpss_settings_set_property (GstTpssSettings * s, guint prop_id,
    const GValue * value);
gboolean gst_tpss_settings_get_property (const GstTpssSettings * s,
    guint prop_id, GValue * value);
/* The UDP port the settings select: the application's socket's, or `port`. */
gint gst_tpss_settings_port (const GstTpssSettings * s);
/* The session name the settings select. */
gchar *gst_tpss_settings_session_name (const GstTpssSettings * s);
/* Copies the fields @src set explicitly into @dst (a session's merged
 * settings); warns when two elements set one differently. */
void gst_tpss_settings_merge (GstTpssSettings * dst,
    const GstTpssSettings * src, GObjectClass * klass);

/* The GstURIHandler of both elements (tpss://ADDRESS:PORT?key=value&...);
 * call gst_tpss_uri_handler_set_info in class_init. */
void gst_tpss_uri_handler_init (gpointer g_iface, gpointer iface_data);
void gst_tpss_uri_handler_set_info (GType type, GstURIType uri_type);

/* One entry of a `members` list. */
typedef struct
{
  guint32 id;
  gchar *host;                  /* NULL: learn from HELLO */
  guint port;
} GstTpssMemberSpec;

/* Validates "id@host:port,..." into GstTpssMemberSpec (@out may be NULL;
 * the caller frees the hosts) and "id:prio,..." into id -> priority. */
gboolean gst_tpss_parse_members (const gchar * str, GArray * out,
    GError ** error);
gboolean gst_tpss_parse_priorities (const gchar * str, GHashTable * out,
    GError ** error);

/* The group core's address (opaque bytes) of a socket address: family,
 * port, IP and IPv6 scope, the rest zeroed; FALSE for other families. */
gboolean gst_tpss_addr_from_socket_address (GSocketAddress * sa,
    TpssAddr * out);
GSocketAddress *gst_tpss_addr_to_socket_address (const TpssAddr * a);

/* The session's `stats` (GST_TPSS_SESSION_STATS_DOC) from the counters. */
GstStructure *gst_tpss_stats_structure (guint32 id, guint port,
    gboolean running, guint64 send_errors, const TpssGroupStats * gs,
    const GArray * members);

G_END_DECLS

#endif /* __GST_TPSS_UTIL_H__ */
