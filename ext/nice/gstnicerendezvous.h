/* A small TCP rendezvous for the nice transport's blobs (GIO only): one
 * participant hosts it, every participant connects as a client, says its
 * member id and sends blobs addressed to other members; the host forwards
 * each blob to its member, or keeps it until that member connects. The
 * line protocol is in gstnicesignal.h. Everything runs in the
 * thread-default GMainContext of the thread that made the object. */
#ifndef __GST_NICE_RENDEZVOUS_H__
#define __GST_NICE_RENDEZVOUS_H__

#include <gio/gio.h>

G_BEGIN_DECLS

/* a connection's limits: lines it may send, and what the host keeps */
#define GST_NICE_RDV_MAX_LINES 1024
#define GST_NICE_RDV_MAX_CLIENTS 64
#define GST_NICE_RDV_MAX_KEPT 1024

#define GST_TYPE_NICE_RENDEZVOUS (gst_nice_rendezvous_get_type ())
G_DECLARE_FINAL_TYPE (GstNiceRendezvous, gst_nice_rendezvous, GST,
    NICE_RENDEZVOUS, GObject);

/* Listens on @address (NULL: any) and @port (0: ephemeral).
 * Signal "refused" (gchar *peer, gchar *reason): a connection was closed
 * for what it sent (it also got an ERROR line). */
GstNiceRendezvous *gst_nice_rendezvous_new (const gchar * address,
    guint16 port, GError ** error);
guint16 gst_nice_rendezvous_get_port (GstNiceRendezvous * rdv);
/* Ends the service and closes every connection. */
void gst_nice_rendezvous_stop (GstNiceRendezvous * rdv);

#define GST_TYPE_NICE_RENDEZVOUS_CLIENT (gst_nice_rendezvous_client_get_type ())
G_DECLARE_FINAL_TYPE (GstNiceRendezvousClient, gst_nice_rendezvous_client,
    GST, NICE_RENDEZVOUS_CLIENT, GObject);

/* Signals: "blob" (gchar *from_id, gchar *blob), a blob addressed to us;
 * "error" (gchar *message): the connection failed or the host refused us
 * (no more blobs after it). */
GstNiceRendezvousClient *gst_nice_rendezvous_client_new (const gchar *
    member_id, GError ** error);
/* Connects to "host:port" in the background. */
void gst_nice_rendezvous_client_connect (GstNiceRendezvousClient * client,
    const gchar * host_and_port);
/* Sends @blob to member @to (queued until connected); FALSE if @to is not a
 * member id or the line would be too long. */
gboolean gst_nice_rendezvous_client_send (GstNiceRendezvousClient * client,
    const gchar * to, const gchar * blob, GError ** error);
void gst_nice_rendezvous_client_close (GstNiceRendezvousClient * client);

G_END_DECLS

#endif /* __GST_NICE_RENDEZVOUS_H__ */
