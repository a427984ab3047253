/* The libnice transport (see gstnicetransport.h). */
#include <string.h>
#include <nice.h>
#include "gstnicetransport.h"
#include "gstnicesignal.h"

GST_DEBUG_CATEGORY_STATIC (nice_transport_debug);
#define GST_CAT_DEFAULT nice_transport_debug

#define COMPONENT 1             /* one component: RTP and RTCP are muxed */
#define DEFAULT_STUN_PORT 3478

typedef struct
{
  GSocketAddress *addr;         /* the virtual address the protocol uses */
  gchar *key;                   /* "ip:port" of addr */
  NiceAgent *agent;             /* its own: the ICE role is per agent */
  guint stream_id;
  GstNicePeerState state;
  gboolean controlling;
  GstNiceCandidateTypes types;  /* the transport's, or relay after a fallback */
  gboolean gathered;
  gchar *pending_blob;          /* the remote blob, until we have gathered */
  gchar *remote_blob;           /* the last remote blob given */
  guint64 packets_sent, bytes_sent, packets_received, bytes_received;
  guint64 dropped;
} Peer;

struct _GstNiceTransport
{
  GObject parent;

  /* settings */
  gchar *stun_server, *turn_server, *turn_user, *turn_password;
  guint min_port, max_port;
  GstNiceCandidateTypes types;
  gchar *local_addresses;
  gboolean relay_fallback;

  GMainContext *context;        /* the agents' and the signals' */
  gboolean configured;          /* the servers resolved, settings fixed */
  gchar *stun_ip, *turn_ip;
  guint stun_port, turn_port;

  /* the lock covers the tables, the counters and the receiver */
  GMutex lock;
  GHashTable *by_key;           /* key -> Peer (owned) */
  GHashTable *by_agent;         /* NiceAgent * -> Peer */
  GHashTable *relay_only;       /* keys of peers that fell back to relay */
  GMainContext *recv_context;
  GstNetReceiveFunc func;
  gpointer user_data;
};

enum
{
  PROP_0,
  PROP_STUN_SERVER,
  PROP_TURN_SERVER,
  PROP_TURN_USER,
  PROP_TURN_PASSWORD,
  PROP_MIN_PORT,
  PROP_MAX_PORT,
  PROP_CANDIDATE_TYPES,
  PROP_LOCAL_ADDRESSES,
  PROP_RELAY_FALLBACK,
};

enum
{
  SIG_LOCAL_BLOB,
  SIG_PEER_STATE_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

static void gst_nice_transport_iface_init (GstNetTransportInterface * iface);

G_DEFINE_TYPE_WITH_CODE (GstNiceTransport, gst_nice_transport, G_TYPE_OBJECT,
    G_IMPLEMENT_INTERFACE (GST_TYPE_NET_TRANSPORT,
        gst_nice_transport_iface_init));

G_DEFINE_ENUM_TYPE (GstNicePeerState, gst_nice_peer_state,
    G_DEFINE_ENUM_VALUE (GST_NICE_PEER_GATHERING, "gathering"),
    G_DEFINE_ENUM_VALUE (GST_NICE_PEER_CONNECTING, "connecting"),
    G_DEFINE_ENUM_VALUE (GST_NICE_PEER_CONNECTED, "connected"),
    G_DEFINE_ENUM_VALUE (GST_NICE_PEER_FAILED, "failed"));

G_DEFINE_FLAGS_TYPE (GstNiceCandidateTypes, gst_nice_candidate_types,
    G_DEFINE_ENUM_VALUE (GST_NICE_CANDIDATE_HOST, "host"),
    G_DEFINE_ENUM_VALUE (GST_NICE_CANDIDATE_SRFLX, "srflx"),
    G_DEFINE_ENUM_VALUE (GST_NICE_CANDIDATE_RELAY, "relay"));

static gchar *
addr_key (GSocketAddress * addr)
{
  GInetSocketAddress *isa;
  gchar *ip, *key;

  if (!G_IS_INET_SOCKET_ADDRESS (addr))
    return NULL;
  isa = G_INET_SOCKET_ADDRESS (addr);
  ip = g_inet_address_to_string (g_inet_socket_address_get_address (isa));
  key = g_strdup_printf ("%s:%u", ip, g_inet_socket_address_get_port (isa));
  g_free (ip);
  return key;
}

static void
peer_free (Peer * p)
{
  g_object_unref (p->agent);
  g_object_unref (p->addr);
  g_free (p->key);
  g_free (p->pending_blob);
  g_free (p->remote_blob);
  g_free (p);
}

static GstNiceCandidateTypes
type_flag (NiceCandidateType t)
{
  switch (t) {
    case NICE_CANDIDATE_TYPE_HOST:
      return GST_NICE_CANDIDATE_HOST;
    case NICE_CANDIDATE_TYPE_RELAYED:
      return GST_NICE_CANDIDATE_RELAY;
    default:                   /* server and peer reflexive */
      return GST_NICE_CANDIDATE_SRFLX;
  }
}

/* ---- the agent ---- */

/* @what "host:port" as an IP string and a port; a host name is resolved
 * (blocking, once, when the first peer is added). */
static gboolean
resolve_server (const gchar * prop, const gchar * what, gchar ** ip,
    guint * port, GError ** error)
{
  GSocketConnectable *na;
  GResolver *resolver;
  GList *addrs;
  GError *err = NULL;

  na = g_network_address_parse (what, DEFAULT_STUN_PORT, &err);
  if (!na) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "%s \"%s\" is not host:port: %s", prop, what, err->message);
    g_error_free (err);
    return FALSE;
  }
  resolver = g_resolver_get_default ();
  addrs = g_resolver_lookup_by_name (resolver, g_network_address_get_hostname
      (G_NETWORK_ADDRESS (na)), NULL, &err);
  g_object_unref (resolver);
  if (!addrs) {
    g_set_error (error, G_IO_ERROR, err->code, "%s \"%s\": cannot resolve: "
        "%s", prop, what, err->message);
    g_error_free (err);
    g_object_unref (na);
    return FALSE;
  }
  *ip = g_inet_address_to_string (addrs->data);
  *port = g_network_address_get_port (G_NETWORK_ADDRESS (na));
  g_resolver_free_addresses (addrs);
  g_object_unref (na);
  return TRUE;
}

static gboolean
add_local_addresses (GstNiceTransport * self, NiceAgent * agent,
    GError ** error)
{
  gchar **ips;
  gboolean ok = TRUE;

  if (!self->local_addresses || !*self->local_addresses)
    return TRUE;
  ips = g_strsplit (self->local_addresses, ",", -1);
  for (guint i = 0; ok && ips[i]; i++) {
    NiceAddress a;

    g_strstrip (ips[i]);
    nice_address_init (&a);
    if (!nice_address_set_from_string (&a, ips[i]) ||
        !nice_agent_add_local_address (agent, &a)) {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
          "local-addresses: \"%s\" is not a usable IP address", ips[i]);
      ok = FALSE;
    }
  }
  g_strfreev (ips);
  return ok;
}

static gboolean
check_settings (GstNiceTransport * self, GError ** error)
{
  const gchar *why = NULL;

  if (self->types == 0)
    why = "candidate-types allows no candidate type";
  else if (self->max_port && self->min_port > self->max_port)
    why = "min-port is above max-port";
  else if (self->types == GST_NICE_CANDIDATE_RELAY && !self->turn_server)
    why = "candidate-types \"relay\" alone needs a turn-server";
  else if (self->turn_server && (!self->turn_user || !self->turn_password))
    why = "turn-server needs turn-user and turn-password";
  if (why)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, why);
  return why == NULL;
}

static void on_gathering_done (NiceAgent * agent, guint stream_id,
    gpointer data);
static void on_component_state (NiceAgent * agent, guint stream_id,
    guint component, guint state, gpointer data);

/* Checks the settings and resolves the servers, once: when the first peer
 * is added; they stay fixed after. */
static gboolean
configure (GstNiceTransport * self, GError ** error)
{
  if (self->configured)
    return TRUE;
  if (!check_settings (self, error))
    return FALSE;
  if (self->stun_server && !resolve_server ("stun-server", self->stun_server,
          &self->stun_ip, &self->stun_port, error))
    return FALSE;
  if (self->turn_server && !resolve_server ("turn-server", self->turn_server,
          &self->turn_ip, &self->turn_port, error)) {
    g_clear_pointer (&self->stun_ip, g_free);
    return FALSE;
  }
  self->configured = TRUE;
  return TRUE;
}

/* With relayed candidates from the same server, the TURN allocation's
 * mapped address gives the server-reflexive candidate: a STUN binding
 * besides it is redundant, and libnice 0.1.21 ignores its answer on the
 * allocation's socket, so that gathering waits 2 s for it to time out. */
static gboolean
stun_is_turn (GstNiceTransport * self, GstNiceCandidateTypes types)
{
  return (types & GST_NICE_CANDIDATE_RELAY) && self->turn_ip &&
      g_strcmp0 (self->stun_ip, self->turn_ip) == 0 &&
      self->stun_port == self->turn_port;
}

/* An agent for one peer, with candidates of @types: one stream of one
 * component, gathering not yet started. */
static NiceAgent *
make_agent (GstNiceTransport * self, GstNiceCandidateTypes types,
    gboolean controlling, guint * sid, GError ** error)
{
  NiceAgent *agent = nice_agent_new_full (self->context,
      NICE_COMPATIBILITY_RFC5245, NICE_AGENT_OPTION_NONE);

  g_object_set (agent, "controlling-mode", controlling, "ice-tcp", FALSE,
      "ice-udp", TRUE, "upnp", FALSE,
      "force-relay", types == GST_NICE_CANDIDATE_RELAY, NULL);
  if (self->stun_ip && !stun_is_turn (self, types))
    g_object_set (agent, "stun-server", self->stun_ip, "stun-server-port",
        self->stun_port, NULL);
  if (!add_local_addresses (self, agent, error)) {
    g_object_unref (agent);
    return NULL;
  }
  *sid = nice_agent_add_stream (agent, 1);
  if (self->min_port || self->max_port)
    nice_agent_set_port_range (agent, *sid, COMPONENT, self->min_port,
        self->max_port ? self->max_port : 65535);
  if (self->turn_ip && (types & GST_NICE_CANDIDATE_RELAY))
    nice_agent_set_relay_info (agent, *sid, COMPONENT, self->turn_ip,
        self->turn_port, self->turn_user, self->turn_password,
        NICE_RELAY_TYPE_TURN_UDP);
  g_signal_connect (agent, "candidate-gathering-done",
      G_CALLBACK (on_gathering_done), self);
  g_signal_connect (agent, "component-state-changed",
      G_CALLBACK (on_component_state), self);
  return agent;
}

/* ---- peers ---- */

static Peer *
peer_by_agent (GstNiceTransport * self, NiceAgent * agent)
{
  return g_hash_table_lookup (self->by_agent, agent);
}

static Peer *
peer_by_addr (GstNiceTransport * self, GSocketAddress * addr)
{
  gchar *key = addr_key (addr);
  Peer *p = key ? g_hash_table_lookup (self->by_key, key) : NULL;

  g_free (key);
  return p;
}

/* Sets @p's state and tells the application (called holding no lock). */
static void
set_state (GstNiceTransport * self, Peer * p, GstNicePeerState state)
{
  GSocketAddress *addr;

  g_mutex_lock (&self->lock);
  if (p->state == state) {
    g_mutex_unlock (&self->lock);
    return;
  }
  p->state = state;
  addr = g_object_ref (p->addr);
  g_mutex_unlock (&self->lock);
  GST_INFO_OBJECT (self, "peer %s: state %d", p->key, state);
  g_signal_emit (self, signals[SIG_PEER_STATE_CHANGED], 0, addr, state);
  g_object_unref (addr);
}

static void
on_recv (NiceAgent * agent, guint stream_id, guint component, guint len,
    gchar * buf, gpointer data)
{
  GstNiceTransport *self = data;
  GstNetReceiveFunc func;
  gpointer user_data;
  GSocketAddress *from;
  Peer *p;

  g_mutex_lock (&self->lock);
  p = peer_by_agent (self, agent);
  func = self->func;
  user_data = self->user_data;
  if (!p || !func) {
    g_mutex_unlock (&self->lock);
    return;
  }
  p->packets_received++;
  p->bytes_received += len;
  from = g_object_ref (p->addr);
  g_mutex_unlock (&self->lock);
  func (GST_NET_TRANSPORT (self), (const guint8 *) buf, len, from, user_data);
  g_object_unref (from);
}

static void
attach_peer (GstNiceTransport * self, Peer * p)
{
  nice_agent_attach_recv (p->agent, p->stream_id, COMPONENT,
      self->recv_context, self->func ? on_recv : NULL, self);
}

/* The blob of our credentials and the candidates of @types. */
static gchar *
local_blob (NiceAgent * agent, guint stream_id, GstNiceCandidateTypes types)
{
  gchar *ufrag = NULL, *pwd = NULL, *blob;
  GSList *cands = nice_agent_get_local_candidates (agent, stream_id,
      COMPONENT);
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);

  nice_agent_get_local_credentials (agent, stream_id, &ufrag, &pwd);
  for (GSList * l = cands; l; l = l->next) {
    NiceCandidate *c = l->data;

    if ((type_flag (c->type) & types) &&
        lines->len < GST_NICE_BLOB_MAX_CANDIDATES)
      g_ptr_array_add (lines, nice_agent_generate_local_candidate_sdp
          (agent, c));
  }
  g_ptr_array_add (lines, NULL);
  blob = gst_nice_blob_write (ufrag, pwd, (const gchar * const *)
      lines->pdata);
  g_ptr_array_unref (lines);
  g_slist_free_full (cands, (GDestroyNotify) nice_candidate_free);
  g_free (ufrag);
  g_free (pwd);
  return blob;
}

static gboolean apply_remote_blob (GstNiceTransport * self, Peer * p,
    const gchar * text, GError ** error);

static void
on_gathering_done (NiceAgent * agent, guint stream_id, gpointer data)
{
  GstNiceTransport *self = data;
  GSocketAddress *addr;
  gchar *blob, *pending;
  GstNiceCandidateTypes types;
  GError *err = NULL;
  Peer *p;

  g_mutex_lock (&self->lock);
  p = peer_by_agent (self, agent);
  if (!p) {
    g_mutex_unlock (&self->lock);
    return;
  }
  p->gathered = TRUE;
  pending = g_steal_pointer (&p->pending_blob);
  addr = g_object_ref (p->addr);
  types = p->types;
  g_mutex_unlock (&self->lock);

  blob = local_blob (agent, stream_id, types);
  GST_DEBUG_OBJECT (self, "peer %s: gathered:\n%s", p->key, blob);
  set_state (self, p, GST_NICE_PEER_CONNECTING);
  if (pending && !apply_remote_blob (self, p, pending, &err)) {
    GST_WARNING_OBJECT (self, "peer %s: %s", p->key, err->message);
    g_clear_error (&err);
    set_state (self, p, GST_NICE_PEER_FAILED);
  }
  g_free (pending);
  g_signal_emit (self, signals[SIG_LOCAL_BLOB], 0, addr, blob);
  g_free (blob);
  g_object_unref (addr);
}

/* ---- falling back to relay ---- */

/* libnice 0.1.21 can fail every pair when a TURN allocation needs
 * permissions for several peer addresses at once (its later
 * CreatePermission requests are refused as unauthorized), while the same
 * NATs connect relay to relay (docs/nice-transport.md). */
static gboolean
can_fall_back (GstNiceTransport * self, Peer * p)
{
  return self->relay_fallback && self->turn_ip &&
      (self->types & GST_NICE_CANDIDATE_RELAY) &&
      p->types != GST_NICE_CANDIDATE_RELAY;
}

static void
agent_close (GstNiceTransport * self, NiceAgent * agent, guint stream_id)
{
  g_signal_handlers_disconnect_by_data (agent, self);
  nice_agent_attach_recv (agent, stream_id, COMPONENT, self->recv_context,
      NULL, NULL);
  nice_agent_remove_stream (agent, stream_id);
}

/* @p's ICE starts again on a new agent with relayed candidates only (new
 * credentials, a new "local-blob"); the last remote blob is given to it,
 * and the peer's next one replaces it. */
static void
fall_back (GstNiceTransport * self, Peer * p)
{
  NiceAgent *agent, *old;
  guint sid, old_sid;
  GError *err = NULL;

  agent = make_agent (self, GST_NICE_CANDIDATE_RELAY, p->controlling, &sid,
      &err);
  if (!agent) {
    GST_WARNING_OBJECT (self, "peer %s: no relay agent: %s", p->key,
        err->message);
    g_error_free (err);
    set_state (self, p, GST_NICE_PEER_FAILED);
    return;
  }
  GST_INFO_OBJECT (self, "peer %s: every pair failed, again relayed only",
      p->key);
  g_mutex_lock (&self->lock);
  old = p->agent;
  old_sid = p->stream_id;
  g_hash_table_remove (self->by_agent, old);
  p->agent = agent;
  p->stream_id = sid;
  p->types = GST_NICE_CANDIDATE_RELAY;
  p->gathered = FALSE;
  g_free (p->pending_blob);
  p->pending_blob = g_strdup (p->remote_blob);
  g_hash_table_insert (self->by_agent, agent, p);
  g_hash_table_add (self->relay_only, g_strdup (p->key));
  if (self->func)
    attach_peer (self, p);
  g_mutex_unlock (&self->lock);
  agent_close (self, old, old_sid);
  g_object_unref (old);
  set_state (self, p, GST_NICE_PEER_GATHERING);
  if (!nice_agent_gather_candidates (agent, sid))
    set_state (self, p, GST_NICE_PEER_FAILED);
}

typedef struct
{
  GWeakRef transport;
  gchar *key;
} FallBack;

static void
fall_back_free (gpointer data)
{
  FallBack *fb = data;

  g_weak_ref_clear (&fb->transport);
  g_free (fb->key);
  g_free (fb);
}

static gboolean
fall_back_idle (gpointer data)
{
  FallBack *fb = data;
  GstNiceTransport *self = g_weak_ref_get (&fb->transport);
  Peer *p;

  if (!self)
    return G_SOURCE_REMOVE;
  g_mutex_lock (&self->lock);
  p = g_hash_table_lookup (self->by_key, fb->key);
  g_mutex_unlock (&self->lock);
  if (p && can_fall_back (self, p))
    fall_back (self, p);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

/* From an agent's own signal: the agent is replaced from an idle source. */
static void
schedule_fall_back (GstNiceTransport * self, Peer * p)
{
  FallBack *fb = g_new0 (FallBack, 1);
  GSource *idle = g_idle_source_new ();

  g_weak_ref_init (&fb->transport, self);
  fb->key = g_strdup (p->key);
  g_source_set_callback (idle, fall_back_idle, fb, fall_back_free);
  g_source_attach (idle, self->context);
  g_source_unref (idle);
}

static void
on_component_state (NiceAgent * agent, guint stream_id, guint component,
    guint state, gpointer data)
{
  GstNiceTransport *self = data;
  Peer *p;

  g_mutex_lock (&self->lock);
  p = peer_by_agent (self, agent);
  g_mutex_unlock (&self->lock);
  if (!p)
    return;
  if (state == NICE_COMPONENT_STATE_CONNECTED ||
      state == NICE_COMPONENT_STATE_READY)
    set_state (self, p, GST_NICE_PEER_CONNECTED);
  else if (state == NICE_COMPONENT_STATE_FAILED && can_fall_back (self, p))
    schedule_fall_back (self, p);
  else if (state == NICE_COMPONENT_STATE_FAILED)
    set_state (self, p, GST_NICE_PEER_FAILED);
}

gboolean
gst_nice_transport_add_peer (GstNiceTransport * self, GSocketAddress * peer,
    gboolean controlling, GError ** error)
{
  gchar *key = addr_key (peer);
  GstNiceCandidateTypes types;
  NiceAgent *agent;
  Peer *p;
  guint sid;

  if (!key) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "a peer's virtual address must be an IP socket address");
    return FALSE;
  }
  g_mutex_lock (&self->lock);
  p = g_hash_table_lookup (self->by_key, key);
  g_mutex_unlock (&self->lock);
  if (p) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, "peer %s was already "
        "added", key);
    g_free (key);
    return FALSE;
  }
  if (!configure (self, error)) {
    g_free (key);
    return FALSE;
  }
  types = g_hash_table_contains (self->relay_only, key) ?
      GST_NICE_CANDIDATE_RELAY : self->types;
  if (!(agent = make_agent (self, types, controlling, &sid, error))) {
    g_free (key);
    return FALSE;
  }
  p = g_new0 (Peer, 1);
  p->controlling = controlling;
  p->types = types;
  p->addr = g_object_ref (peer);
  p->key = key;
  p->agent = agent;
  p->stream_id = sid;
  p->state = GST_NICE_PEER_GATHERING;
  g_mutex_lock (&self->lock);
  g_hash_table_insert (self->by_key, p->key, p);
  g_hash_table_insert (self->by_agent, agent, p);
  if (self->func)
    attach_peer (self, p);
  g_mutex_unlock (&self->lock);
  if (!nice_agent_gather_candidates (agent, sid)) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "peer %s: cannot "
        "gather candidates (no usable local address, or no free port in "
        "min-port..max-port)", key);
    gst_nice_transport_remove_peer (self, peer);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "peer %s: %s, gathering", key, controlling ?
      "controlling" : "controlled");
  return TRUE;
}

/* Ends @p's ICE; no receive callback after (see detach). */
static void
peer_close (GstNiceTransport * self, Peer * p)
{
  agent_close (self, p->agent, p->stream_id);
}

void
gst_nice_transport_remove_peer (GstNiceTransport * self, GSocketAddress * peer)
{
  Peer *p;

  g_mutex_lock (&self->lock);
  p = peer_by_addr (self, peer);
  if (p) {
    g_hash_table_remove (self->by_agent, p->agent);
    g_hash_table_steal (self->by_key, p->key);
  }
  g_mutex_unlock (&self->lock);
  if (!p)
    return;
  peer_close (self, p);
  peer_free (p);
}

/* Candidates of @blob on @p's stream; the types we do not allow are left
 * out. */
static GSList *
parse_candidates (GstNiceTransport * self, Peer * p, GstNiceBlob * blob,
    GError ** error)
{
  GSList *list = NULL;
  guint skipped = 0;

  for (guint i = 0; i < blob->candidates->len; i++) {
    const gchar *line = g_ptr_array_index (blob->candidates, i);
    NiceCandidate *c = nice_agent_parse_remote_candidate_sdp (p->agent,
        p->stream_id, line);

    if (!c || c->component_id != COMPONENT ||
        c->transport != NICE_CANDIDATE_TRANSPORT_UDP) {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "peer %s: "
          "blob candidate %u is not a UDP candidate of component 1: \"%s\"",
          p->key, i + 1, line);
      if (c)
        nice_candidate_free (c);
      g_slist_free_full (list, (GDestroyNotify) nice_candidate_free);
      return NULL;
    }
    if (type_flag (c->type) & p->types) {
      list = g_slist_append (list, c);
    } else {
      skipped++;
      nice_candidate_free (c);
    }
  }
  if (!list)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "peer %s: the "
        "blob holds no usable candidate (%u given, %u of a type not in "
        "candidate-types)", p->key, blob->candidates->len, skipped);
  return list;
}

static gboolean
apply_remote_blob (GstNiceTransport * self, Peer * p, const gchar * text,
    GError ** error)
{
  GstNiceBlob *blob = gst_nice_blob_parse (text, strlen (text), error);
  GSList *cands;
  gint n;

  if (!blob) {
    g_prefix_error (error, "peer %s: ", p->key);
    return FALSE;
  }
  cands = parse_candidates (self, p, blob, error);
  if (!cands) {
    gst_nice_blob_free (blob);
    return FALSE;
  }
  nice_agent_set_remote_credentials (p->agent, p->stream_id, blob->ufrag,
      blob->pwd);
  n = nice_agent_set_remote_candidates (p->agent, p->stream_id, COMPONENT,
      cands);
  g_slist_free_full (cands, (GDestroyNotify) nice_candidate_free);
  gst_nice_blob_free (blob);
  if (n <= 0) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "peer %s: "
        "libnice took none of the blob's candidates", p->key);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "peer %s: %d remote candidates", p->key, n);
  return TRUE;
}

/* A peer that fell back (or is set to relay only) offers relayed
 * candidates alone and takes only ours; our other candidates are of no use
 * to it, and our relayed ones would share an allocation whose permissions
 * libnice may have had refused (see can_fall_back). */
static gboolean
blob_is_relayed_only (GstNiceBlob * blob)
{
  for (guint i = 0; i < blob->candidates->len; i++)
    if (!strstr (g_ptr_array_index (blob->candidates, i), " typ relay"))
      return FALSE;
  return blob->candidates->len > 0;
}

gboolean
gst_nice_transport_set_remote_blob (GstNiceTransport * self,
    GSocketAddress * peer, const gchar * text, GError ** error)
{
  GstNiceBlob *blob;
  Peer *p;
  gboolean gathered, relayed_only;

  /* refuse a malformed blob now, even when it has to wait */
  blob = gst_nice_blob_parse (text, strlen (text), error);
  if (!blob)
    return FALSE;
  relayed_only = blob_is_relayed_only (blob);
  gst_nice_blob_free (blob);
  g_mutex_lock (&self->lock);
  p = peer_by_addr (self, peer);
  gathered = p && p->gathered;
  if (p && !gathered) {
    g_free (p->pending_blob);
    p->pending_blob = g_strdup (text);
  }
  if (p) {
    g_free (p->remote_blob);
    p->remote_blob = g_strdup (text);
  }
  g_mutex_unlock (&self->lock);
  if (!p) {
    gchar *key = addr_key (peer);
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no peer %s: add "
        "it before giving its blob", key ? key : "(not an IP address)");
    g_free (key);
    return FALSE;
  }
  if (relayed_only && p->state != GST_NICE_PEER_CONNECTED &&
      can_fall_back (self, p)) {
    fall_back (self, p);        /* takes the blob as its pending one */
    return TRUE;
  }
  return !gathered || apply_remote_blob (self, p, text, error);
}

GstNicePeerState
gst_nice_transport_get_peer_state (GstNiceTransport * self,
    GSocketAddress * peer)
{
  GstNicePeerState s;
  Peer *p;

  g_mutex_lock (&self->lock);
  p = peer_by_addr (self, peer);
  s = p ? p->state : GST_NICE_PEER_FAILED;
  g_mutex_unlock (&self->lock);
  return s;
}

static void
set_candidate_fields (GstStructure * s, const gchar * side, NiceCandidate * c)
{
  gchar ip[NICE_ADDRESS_STRING_LEN], *f, *addr;

  nice_address_to_string (&c->addr, ip);
  addr = g_strdup_printf ("%s:%u", ip, nice_address_get_port (&c->addr));
  f = g_strdup_printf ("%s-candidate-type", side);
  gst_structure_set (s, f, G_TYPE_STRING, nice_candidate_type_to_string
      (c->type), NULL);
  g_free (f);
  f = g_strdup_printf ("%s-address", side);
  gst_structure_set (s, f, G_TYPE_STRING, addr, NULL);
  g_free (f);
  g_free (addr);
}

GstStructure *
gst_nice_transport_get_peer_stats (GstNiceTransport * self,
    GSocketAddress * peer)
{
  NiceCandidate *local = NULL, *remote = NULL;
  NiceAgent *agent;
  GstStructure *s;
  guint sid;
  Peer *p;

  g_mutex_lock (&self->lock);
  p = peer_by_addr (self, peer);
  if (!p) {
    g_mutex_unlock (&self->lock);
    return NULL;
  }
  sid = p->stream_id;
  agent = g_object_ref (p->agent);
  s = gst_structure_new ("nice-peer-stats", "peer", G_TYPE_STRING, p->key,
      "state", GST_TYPE_NICE_PEER_STATE, p->state,
      "packets-sent", G_TYPE_UINT64, p->packets_sent,
      "bytes-sent", G_TYPE_UINT64, p->bytes_sent,
      "packets-received", G_TYPE_UINT64, p->packets_received,
      "bytes-received", G_TYPE_UINT64, p->bytes_received,
      "packets-dropped", G_TYPE_UINT64, p->dropped,
      "relay-fallback", G_TYPE_BOOLEAN, p->types != self->types, NULL);
  g_mutex_unlock (&self->lock);
  if (nice_agent_get_selected_pair (agent, sid, COMPONENT, &local,
          &remote)) {
    set_candidate_fields (s, "local", local);
    set_candidate_fields (s, "remote", remote);
  }
  g_object_unref (agent);
  return s;
}

/* ---- GstNetTransport ---- */

static gboolean
nice_send_to (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * to, GError ** error)
{
  GstNiceTransport *self = GST_NICE_TRANSPORT (t);
  GOutputVector v = { data, size };
  NiceOutputMessage m = { &v, 1 };
  GstNicePeerState state;
  NiceAgent *agent;
  guint sid;
  gint n;
  Peer *p;

  g_mutex_lock (&self->lock);
  p = peer_by_addr (self, to);
  if (!p) {
    g_mutex_unlock (&self->lock);
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE, "not a peer "
        "of this ICE transport");
    return FALSE;
  }
  state = p->state;
  sid = p->stream_id;
  agent = g_object_ref (p->agent);
  if (state != GST_NICE_PEER_CONNECTED)
    p->dropped++;
  g_mutex_unlock (&self->lock);
  if (state != GST_NICE_PEER_CONNECTED) {
    g_object_unref (agent);
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED, "peer not "
        "connected by ICE yet: datagram dropped");
    return FALSE;
  }
  n = nice_agent_send_messages_nonblocking (agent, sid, COMPONENT, &m, 1,
      NULL, error);
  if (n == 0)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK, "ICE send would "
        "block");
  if (n <= 0) {
    g_object_unref (agent);
    return FALSE;
  }
  g_mutex_lock (&self->lock);
  if ((p = peer_by_agent (self, agent))) {
    p->packets_sent++;
    p->bytes_sent += size;
  }
  g_mutex_unlock (&self->lock);
  g_object_unref (agent);
  return TRUE;
}

static void
nice_detach (GstNetTransport * t)
{
  GstNiceTransport *self = GST_NICE_TRANSPORT (t);
  GHashTableIter it;
  gpointer p;

  g_mutex_lock (&self->lock);
  self->func = NULL;
  self->user_data = NULL;
  g_hash_table_iter_init (&it, self->by_key);
  while (g_hash_table_iter_next (&it, NULL, &p))
    attach_peer (self, p);
  g_clear_pointer (&self->recv_context, g_main_context_unref);
  g_mutex_unlock (&self->lock);
}

static void
nice_attach (GstNetTransport * t, GMainContext * context,
    GstNetReceiveFunc func, gpointer user_data)
{
  GstNiceTransport *self = GST_NICE_TRANSPORT (t);
  GHashTableIter it;
  gpointer p;

  nice_detach (t);
  g_mutex_lock (&self->lock);
  self->recv_context = g_main_context_ref (context ? context :
      g_main_context_default ());
  self->func = func;
  self->user_data = user_data;
  g_hash_table_iter_init (&it, self->by_key);
  while (g_hash_table_iter_next (&it, NULL, &p))
    attach_peer (self, p);
  g_mutex_unlock (&self->lock);
}

static void
gst_nice_transport_iface_init (GstNetTransportInterface * iface)
{
  iface->send_to = nice_send_to;
  iface->attach = nice_attach;
  iface->detach = nice_detach;
}

/* ---- GObject ---- */

GstNiceTransport *
gst_nice_transport_new (void)
{
  return g_object_new (GST_TYPE_NICE_TRANSPORT, NULL);
}

static void
gst_nice_transport_set_property (GObject * object, guint id,
    const GValue * value, GParamSpec * pspec)
{
  GstNiceTransport *self = GST_NICE_TRANSPORT (object);

  if (self->configured) {
    g_warning ("%s: set %s before the first peer is added",
        G_OBJECT_TYPE_NAME (self), pspec->name);
    return;
  }
  switch (id) {
    case PROP_STUN_SERVER:
      g_free (self->stun_server);
      self->stun_server = g_value_dup_string (value);
      break;
    case PROP_TURN_SERVER:
      g_free (self->turn_server);
      self->turn_server = g_value_dup_string (value);
      break;
    case PROP_TURN_USER:
      g_free (self->turn_user);
      self->turn_user = g_value_dup_string (value);
      break;
    case PROP_TURN_PASSWORD:
      g_free (self->turn_password);
      self->turn_password = g_value_dup_string (value);
      break;
    case PROP_MIN_PORT:
      self->min_port = g_value_get_uint (value);
      break;
    case PROP_MAX_PORT:
      self->max_port = g_value_get_uint (value);
      break;
    case PROP_CANDIDATE_TYPES:
      self->types = g_value_get_flags (value);
      break;
    case PROP_LOCAL_ADDRESSES:
      g_free (self->local_addresses);
      self->local_addresses = g_value_dup_string (value);
      break;
    case PROP_RELAY_FALLBACK:
      self->relay_fallback = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
gst_nice_transport_get_property (GObject * object, guint id, GValue * value,
    GParamSpec * pspec)
{
  GstNiceTransport *self = GST_NICE_TRANSPORT (object);

  switch (id) {
    case PROP_STUN_SERVER:
      g_value_set_string (value, self->stun_server);
      break;
    case PROP_TURN_SERVER:
      g_value_set_string (value, self->turn_server);
      break;
    case PROP_TURN_USER:
      g_value_set_string (value, self->turn_user);
      break;
    case PROP_TURN_PASSWORD:
      g_value_set_string (value, self->turn_password);
      break;
    case PROP_MIN_PORT:
      g_value_set_uint (value, self->min_port);
      break;
    case PROP_MAX_PORT:
      g_value_set_uint (value, self->max_port);
      break;
    case PROP_CANDIDATE_TYPES:
      g_value_set_flags (value, self->types);
      break;
    case PROP_LOCAL_ADDRESSES:
      g_value_set_string (value, self->local_addresses);
      break;
    case PROP_RELAY_FALLBACK:
      g_value_set_boolean (value, self->relay_fallback);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
  }
}

static void
gst_nice_transport_finalize (GObject * object)
{
  GstNiceTransport *self = GST_NICE_TRANSPORT (object);

  GHashTableIter it;
  gpointer p;

  nice_detach (GST_NET_TRANSPORT (self));
  g_hash_table_iter_init (&it, self->by_key);
  while (g_hash_table_iter_next (&it, NULL, &p))
    peer_close (self, p);
  g_hash_table_unref (self->by_agent);
  g_hash_table_unref (self->by_key);
  g_hash_table_unref (self->relay_only);
  g_main_context_unref (self->context);
  g_free (self->stun_server);
  g_free (self->turn_server);
  g_free (self->turn_user);
  g_free (self->turn_password);
  g_free (self->stun_ip);
  g_free (self->turn_ip);
  g_free (self->local_addresses);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_nice_transport_parent_class)->finalize (object);
}

static void
gst_nice_transport_class_init (GstNiceTransportClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  oc->set_property = gst_nice_transport_set_property;
  oc->get_property = gst_nice_transport_get_property;
  oc->finalize = gst_nice_transport_finalize;

  g_object_class_install_property (oc, PROP_STUN_SERVER,
      g_param_spec_string ("stun-server", "STUN server",
          "STUN server for server-reflexive candidates, host:port (port "
          "default 3478); NULL: none", NULL, rw));
  g_object_class_install_property (oc, PROP_TURN_SERVER,
      g_param_spec_string ("turn-server", "TURN server",
          "TURN server for relayed candidates (UDP relay), host:port (port "
          "default 3478); NULL: none", NULL, rw));
  g_object_class_install_property (oc, PROP_TURN_USER,
      g_param_spec_string ("turn-user", "TURN user",
          "TURN long-term credential user name", NULL, rw));
  g_object_class_install_property (oc, PROP_TURN_PASSWORD,
      g_param_spec_string ("turn-password", "TURN password",
          "TURN long-term credential password", NULL, rw));
  g_object_class_install_property (oc, PROP_MIN_PORT,
      g_param_spec_uint ("min-port", "Minimum port",
          "Lowest local UDP port for host candidates (0: any)", 0, 65535, 0,
          rw));
  g_object_class_install_property (oc, PROP_MAX_PORT,
      g_param_spec_uint ("max-port", "Maximum port",
          "Highest local UDP port for host candidates (0: 65535 when "
          "min-port is set, else any)", 0, 65535, 0, rw));
  g_object_class_install_property (oc, PROP_CANDIDATE_TYPES,
      g_param_spec_flags ("candidate-types", "Candidate types",
          "Candidate types advertised and accepted; \"relay\" alone forces "
          "every datagram through the TURN server",
          GST_TYPE_NICE_CANDIDATE_TYPES, GST_NICE_CANDIDATE_ALL, rw));
  g_object_class_install_property (oc, PROP_LOCAL_ADDRESSES,
      g_param_spec_string ("local-addresses", "Local addresses",
          "Comma-separated local IP addresses to gather host candidates on; "
          "NULL: every interface's (loopback only when there is no other)",
          NULL, rw));
  g_object_class_install_property (oc, PROP_RELAY_FALLBACK,
      g_param_spec_boolean ("relay-fallback", "Relay fallback",
          "When every pair to a peer fails and candidate-types allows relay "
          "among others (with a turn-server), start that peer's ICE again "
          "with relayed candidates only (a new local-blob follows)", TRUE,
          rw));

  signals[SIG_LOCAL_BLOB] = g_signal_new ("local-blob",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
      G_TYPE_NONE, 2, G_TYPE_SOCKET_ADDRESS, G_TYPE_STRING);
  signals[SIG_PEER_STATE_CHANGED] = g_signal_new ("peer-state-changed",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
      G_TYPE_NONE, 2, G_TYPE_SOCKET_ADDRESS, GST_TYPE_NICE_PEER_STATE);
  GST_DEBUG_CATEGORY_INIT (nice_transport_debug, "nicetransport", 0,
      "GstNetTransport over libnice");
}

static void
gst_nice_transport_init (GstNiceTransport * self)
{
  self->types = GST_NICE_CANDIDATE_ALL;
  self->relay_fallback = TRUE;
  self->context = g_main_context_ref_thread_default ();
  g_mutex_init (&self->lock);
  self->by_key = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      (GDestroyNotify) peer_free);
  self->by_agent = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->relay_only = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
}
