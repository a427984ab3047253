/* GstNetTransport over libnice (RFC 8445, UDP, not reliable): one ICE
 * stream per remote peer, each on a NiceAgent of its own because libnice's
 * ICE role (controlling-mode) is per agent and a mesh member controls some
 * of its pairs and not others. The protocol addresses each
 * peer by a stable "virtual" GSocketAddress the application chooses (for
 * instance its address in a members list); send_to() maps it to the peer's
 * stream and its selected pair, and datagrams from a peer arrive with that
 * virtual address as `from`. Datagrams to a peer not connected yet are
 * dropped and counted.
 *
 * Signalling is the application's: when a peer's gathering is done the
 * "local-blob" signal gives the text to deliver to that peer (see
 * gstnicesignal.h for the format), and gst_nice_transport_set_remote_blob()
 * takes the peer's. Agents and signals run in the thread-default
 * GMainContext of the thread that made the transport: call add_peer,
 * remove_peer and set_remote_blob from that thread. Received datagrams run
 * in the context given to attach(); send_to may be called from any
 * thread. */
#ifndef __GST_NICE_TRANSPORT_H__
#define __GST_NICE_TRANSPORT_H__

#include <gst/gst.h>
#include "gstnettransport.h"

G_BEGIN_DECLS

typedef enum
{
  GST_NICE_PEER_GATHERING,
  GST_NICE_PEER_CONNECTING,
  GST_NICE_PEER_CONNECTED,
  GST_NICE_PEER_FAILED,
} GstNicePeerState;

#define GST_TYPE_NICE_PEER_STATE (gst_nice_peer_state_get_type ())
GType gst_nice_peer_state_get_type (void);

typedef enum
{
  GST_NICE_CANDIDATE_HOST = 1 << 0,
  GST_NICE_CANDIDATE_SRFLX = 1 << 1,
  GST_NICE_CANDIDATE_RELAY = 1 << 2,
} GstNiceCandidateTypes;

#define GST_NICE_CANDIDATE_ALL (GST_NICE_CANDIDATE_HOST | \
    GST_NICE_CANDIDATE_SRFLX | GST_NICE_CANDIDATE_RELAY)
#define GST_TYPE_NICE_CANDIDATE_TYPES (gst_nice_candidate_types_get_type ())
GType gst_nice_candidate_types_get_type (void);

#define GST_TYPE_NICE_TRANSPORT (gst_nice_transport_get_type ())
G_DECLARE_FINAL_TYPE (GstNiceTransport, gst_nice_transport, GST,
    NICE_TRANSPORT, GObject);

/* Properties (fixed once the first peer is added):
 *   stun-server "host:port", turn-server
 *   "host:port", turn-user, turn-password, min-port, max-port,
 *   candidate-types, local-addresses "ip[,ip...]", relay-fallback.
 * Signals:
 *   "local-blob" (GSocketAddress *peer, gchar *blob)
 *   "peer-state-changed" (GSocketAddress *peer, GstNicePeerState state) */
GstNiceTransport *gst_nice_transport_new (void);

/* Starts ICE towards @peer (its virtual address): an agent, a stream,
 * gathering; "local-blob" follows. The two ends of a pair take opposite
 * roles (@controlling; a mesh: the lower member id controls). FALSE and
 * @error for a bad configuration or a peer already added. */
gboolean gst_nice_transport_add_peer (GstNiceTransport * nice,
    GSocketAddress * peer, gboolean controlling, GError ** error);
void gst_nice_transport_remove_peer (GstNiceTransport * nice,
    GSocketAddress * peer);
/* The peer's credentials and candidates; FALSE and @error if the blob is
 * malformed, holds no usable candidate, or the peer is unknown. */
gboolean gst_nice_transport_set_remote_blob (GstNiceTransport * nice,
    GSocketAddress * peer, const gchar * blob, GError ** error);

GstNicePeerState gst_nice_transport_get_peer_state (GstNiceTransport * nice,
    GSocketAddress * peer);
/* Per peer: "peer" (string), "state", "local-candidate-type",
 * "local-address", "remote-candidate-type", "remote-address" (of the
 * selected pair, once connected), "packets-sent", "bytes-sent",
 * "packets-received", "bytes-received", "packets-dropped" (to the peer
 * before it was connected, guint64). NULL for an unknown peer. */
GstStructure *gst_nice_transport_get_peer_stats (GstNiceTransport * nice,
    GSocketAddress * peer);

G_END_DECLS

#endif /* __GST_NICE_TRANSPORT_H__ */
