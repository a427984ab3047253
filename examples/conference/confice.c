/* The conference over ICE (--ice): one GstNiceTransport (ext/nice) per
 * session, given to both its tpsssink and tpsssrc, so the session sends and
 * receives through it and opens no socket: one for the video and, with
 * audio, one for the audio session (its peers at port + 1, its blobs under
 * "<id>.audio" at the rendezvous, its own ICE checks). Every other member of --members is a
 * peer of the transport, named by its entry's address (its "virtual"
 * address: the session keeps addressing members by it, and the transport
 * reports their datagrams from it). The ICE blobs travel through the TCP
 * rendezvous of --rendezvous, which one participant may host
 * (--rendezvous-host). Of a pair, the member with the lower id controls.
 *
 * Everything here runs in the main thread's default GMainContext, which is
 * where the transport's agents and the rendezvous run too. */
#include "conference.h"

#include <stdlib.h>
#include <string.h>

#include "gstnicetransport.h"
#include "gstnicerendezvous.h"

#define RECONNECT_SECONDS 1

typedef struct
{
  guint id;
  gchar *name;                  /* its member id as the rendezvous knows it */
  GSocketAddress *vaddr;        /* its entry in --members */
  gchar *local_blob;            /* ours for it: sent again on reconnecting */
  gchar *remote_blob;           /* its last one, applied */
} IcePeer;

struct _ConfIce
{
  Conference *conf;
  const gchar *suffix;          /* of our and the peers' rendezvous names */
  guint port_offset;            /* of the session's members' ports */
  GstNiceTransport *transport;
  GstNiceRendezvous *host;      /* with --rendezvous-host */
  GstNiceRendezvousClient *client;
  gchar *self_name;
  gchar *rendezvous;            /* "host:port" */
  GPtrArray *peers;             /* IcePeer */
  guint reconnect_id;
  gchar *last_error;            /* printed once until it changes */
};

static void
ice_peer_free (IcePeer * p)
{
  g_free (p->name);
  g_clear_object (&p->vaddr);
  g_free (p->local_blob);
  g_free (p->remote_blob);
  g_free (p);
}

static IcePeer *
peer_by_vaddr (ConfIce * ice, GSocketAddress * vaddr)
{
  GInetSocketAddress *a = G_INET_SOCKET_ADDRESS (vaddr);

  for (guint i = 0; i < ice->peers->len; i++) {
    IcePeer *p = g_ptr_array_index (ice->peers, i);
    GInetSocketAddress *b = G_INET_SOCKET_ADDRESS (p->vaddr);

    if (g_inet_socket_address_get_port (a) ==
        g_inet_socket_address_get_port (b) &&
        g_inet_address_equal (g_inet_socket_address_get_address (a),
            g_inet_socket_address_get_address (b)))
      return p;
  }
  return NULL;
}

static IcePeer *
peer_by_name (ConfIce * ice, const gchar * name)
{
  for (guint i = 0; i < ice->peers->len; i++) {
    IcePeer *p = g_ptr_array_index (ice->peers, i);

    if (!strcmp (p->name, name))
      return p;
  }
  return NULL;
}

static IcePeer *
peer_by_id (ConfIce * ice, guint id)
{
  for (guint i = 0; i < ice->peers->len; i++) {
    IcePeer *p = g_ptr_array_index (ice->peers, i);

    if (p->id == id)
      return p;
  }
  return NULL;
}

/* "host,srflx,relay" (any of them, in any order) -> flags */
static gboolean
parse_candidate_types (const gchar * text, guint * flags, GError ** error)
{
  static const struct
  {
    const gchar *name;
    guint flag;
  } types[] = {
    {"host", GST_NICE_CANDIDATE_HOST}, {"srflx", GST_NICE_CANDIDATE_SRFLX},
    {"relay", GST_NICE_CANDIDATE_RELAY},
  };
  gchar **names = g_strsplit (text, ",", -1);
  gboolean ok = TRUE;

  *flags = 0;
  for (guint i = 0; ok && names[i]; i++) {
    guint k;

    for (k = 0; k < G_N_ELEMENTS (types); k++)
      if (!strcmp (g_strstrip (names[i]), types[k].name))
        break;
    if (k == G_N_ELEMENTS (types)) {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--ice-candidates: \"%s\" is not host, srflx or relay", names[i]);
      ok = FALSE;
    } else {
      *flags |= types[k].flag;
    }
  }
  g_strfreev (names);
  return ok;
}

/* One "id@ip:port" entry of --members, for @ice's session; FALSE for one
 * that is not. */
static IcePeer *
parse_member (ConfIce * ice, const gchar * entry, GError ** error)
{
  const gchar *at = strchr (entry, '@');
  const gchar *colon = strrchr (entry, ':');
  gchar *end, *ip;
  guint64 id, port;
  IcePeer *p;
  GSocketAddress *vaddr;

  if (!at || !colon || colon < at)
    goto bad;
  id = g_ascii_strtoull (entry, &end, 10);
  if (end != at || id == 0 || id > G_MAXUINT32)
    goto bad;
  port = g_ascii_strtoull (colon + 1, &end, 10);
  if (*end || port == 0 || port > 65535)
    goto bad;
  ip = g_strndup (at + 1, colon - at - 1);
  vaddr = port + ice->port_offset <= 65535 ?
      g_inet_socket_address_new_from_string (ip,
      (guint) port + ice->port_offset) : NULL;
  g_free (ip);
  if (!vaddr)
    goto bad;
  p = g_new0 (IcePeer, 1);
  p->id = (guint) id;
  p->name = g_strdup_printf ("%u%s", p->id, ice->suffix);
  p->vaddr = vaddr;
  return p;

bad:
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
      "--members: with --ice every entry is id@ip:port with an IP address "
      "(the member's virtual address), not \"%s\"", entry);
  return NULL;
}

/* The other members of --members. */
static gboolean
make_peers (ConfIce * ice, GError ** error)
{
  gchar **entries = g_strsplit (ice->conf->opt.members, ",", -1);
  gboolean ok = TRUE;

  for (guint i = 0; ok && entries[i]; i++) {
    IcePeer *p = parse_member (ice, g_strstrip (entries[i]), error);

    if (!p)
      ok = FALSE;
    else if (p->id == ice->conf->opt.id)
      ice_peer_free (p);
    else
      g_ptr_array_add (ice->peers, p);
  }
  g_strfreev (entries);
  return ok;
}

static void
report_error (ConfIce * ice, const gchar * message)
{
  if (g_strcmp0 (ice->last_error, message) == 0)
    return;
  g_printerr ("conference: ice: %s\n", message);
  g_free (ice->last_error);
  ice->last_error = g_strdup (message);
}

static void
send_blob (ConfIce * ice, IcePeer * p)
{
  GError *err = NULL;

  if (p->local_blob && ice->client &&
      !gst_nice_rendezvous_client_send (ice->client, p->name, p->local_blob,
          &err)) {
    report_error (ice, err->message);
    g_error_free (err);
  }
}

static void
on_local_blob (GstNiceTransport * t, GSocketAddress * vaddr,
    const gchar * blob, gpointer data)
{
  ConfIce *ice = data;
  IcePeer *p = peer_by_vaddr (ice, vaddr);

  if (!p)
    return;
  g_free (p->local_blob);
  p->local_blob = g_strdup (blob);
  send_blob (ice, p);
}

static gboolean
add_peer (ConfIce * ice, IcePeer * p, GError ** error)
{
  g_free (p->local_blob);
  p->local_blob = NULL;
  return gst_nice_transport_add_peer (ice->transport, p->vaddr,
      ice->conf->opt.id < p->id, error);
}

/* A member that comes back (a new process: new credentials) while our
 * agent for it is connected (or has failed) is a new ICE session: our agent
 * for it is made anew, and our new blob follows. While our agent is still
 * gathering or checking, a new blob replaces the last one on it instead:
 * that is the answer of a member that restarted for us (it had an old blob
 * of ours), and restarting again would make the pair restart each other
 * for ever. */
static gboolean
needs_restart (ConfIce * ice, IcePeer * p)
{
  GstNicePeerState state;

  if (!p->remote_blob)
    return FALSE;
  state = gst_nice_transport_get_peer_state (ice->transport, p->vaddr);
  return state == GST_NICE_PEER_CONNECTED || state == GST_NICE_PEER_FAILED;
}

/* See needs_restart(). */
static void
restart_peer (ConfIce * ice, IcePeer * p)
{
  GError *err = NULL;

  g_print ("ice: p%u%s sent new credentials, restarting its ICE session\n",
      p->id, ice->suffix);
  gst_nice_transport_remove_peer (ice->transport, p->vaddr);
  if (!add_peer (ice, p, &err)) {
    report_error (ice, err->message);
    g_error_free (err);
  }
}

static void
on_rdv_blob (GstNiceRendezvousClient * client, const gchar * from,
    const gchar * blob, gpointer data)
{
  ConfIce *ice = data;
  IcePeer *p = peer_by_name (ice, from);
  GError *err = NULL;

  if (!p) {
    g_printerr ("conference: ice: a blob from \"%s\", not a member\n", from);
    return;
  }
  if (g_strcmp0 (p->remote_blob, blob) == 0)
    return;                     /* sent again after a reconnection */
  if (needs_restart (ice, p))
    restart_peer (ice, p);
  g_free (p->remote_blob);
  p->remote_blob = g_strdup (blob);
  if (!gst_nice_transport_set_remote_blob (ice->transport, p->vaddr, blob,
          &err)) {
    g_printerr ("conference: ice: blob of p%u refused: %s\n", p->id,
        err->message);
    g_error_free (err);
  }
}

static void connect_client (ConfIce * ice);

static gboolean
reconnect (gpointer data)
{
  ConfIce *ice = data;

  ice->reconnect_id = 0;
  connect_client (ice);
  return G_SOURCE_REMOVE;
}

/* The rendezvous is not up yet, or went away: try again in a second (the
 * host keeps blobs for members not connected, so nothing is lost). */
static void
on_rdv_error (GstNiceRendezvousClient * client, const gchar * message,
    gpointer data)
{
  ConfIce *ice = data;

  report_error (ice, message);
  if (!ice->conf->stopping && !ice->reconnect_id)
    ice->reconnect_id = g_timeout_add_seconds (RECONNECT_SECONDS,
        reconnect, ice);
}

static void
close_client (ConfIce * ice)
{
  if (!ice->client)
    return;
  g_signal_handlers_disconnect_by_data (ice->client, ice);
  gst_nice_rendezvous_client_close (ice->client);
  g_clear_object (&ice->client);
}

/* A client of the rendezvous under our member id, with every blob we have
 * (it queues them until it is connected). */
static void
connect_client (ConfIce * ice)
{
  GError *err = NULL;

  close_client (ice);
  ice->client = gst_nice_rendezvous_client_new (ice->self_name, &err);
  if (!ice->client) {
    report_error (ice, err->message);
    g_error_free (err);
    return;
  }
  g_signal_connect (ice->client, "blob", G_CALLBACK (on_rdv_blob), ice);
  g_signal_connect (ice->client, "error", G_CALLBACK (on_rdv_error), ice);
  gst_nice_rendezvous_client_connect (ice->client, ice->rendezvous);
  for (guint i = 0; i < ice->peers->len; i++)
    send_blob (ice, g_ptr_array_index (ice->peers, i));
}

static const gchar *
state_name (GstNicePeerState state)
{
  GEnumClass *klass = g_type_class_ref (GST_TYPE_NICE_PEER_STATE);
  GEnumValue *v = g_enum_get_value (klass, state);

  g_type_class_unref (klass);
  return v ? v->value_nick : "?";
}

/* "state, type address -> type address" of @p's pair in @ice. */
static gchar *
describe_peer (ConfIce * ice, IcePeer * p)
{
  GstStructure *s;
  const gchar *lt, *la, *rt, *ra;
  gint state = GST_NICE_PEER_FAILED;
  gchar *text;

  if (!p || !(s = gst_nice_transport_get_peer_stats (ice->transport,
              p->vaddr)))
    return NULL;
  gst_structure_get_enum (s, "state", GST_TYPE_NICE_PEER_STATE, &state);
  lt = gst_structure_get_string (s, "local-candidate-type");
  la = gst_structure_get_string (s, "local-address");
  rt = gst_structure_get_string (s, "remote-candidate-type");
  ra = gst_structure_get_string (s, "remote-address");
  if (lt && rt)
    text = g_strdup_printf ("%s, %s %s -> %s %s", state_name (state), lt, la,
        rt, ra);
  else
    text = g_strdup (state_name (state));
  gst_structure_free (s);
  return text;
}

static void
on_peer_state (GstNiceTransport * t, GSocketAddress * vaddr,
    GstNicePeerState state, gpointer data)
{
  ConfIce *ice = data;
  IcePeer *p = peer_by_vaddr (ice, vaddr);
  gchar *pair;

  if (!p)
    return;
  pair = describe_peer (ice, p);
  g_print ("ice: p%u%s %s\n", p->id, ice->suffix, pair);
  g_free (pair);
}

gchar *
conf_ice_describe (Conference * conf, guint member)
{
  return conf->ice ? describe_peer (conf->ice, peer_by_id (conf->ice,
          member)) : NULL;
}

gboolean
conf_ice_peer (Conference * conf, guint member, const gchar ** state,
    gchar ** local_type, gchar ** remote_type)
{
  IcePeer *p = conf->ice ? peer_by_id (conf->ice, member) : NULL;
  GstStructure *s;
  gint st = GST_NICE_PEER_FAILED;

  if (!p || !(s = gst_nice_transport_get_peer_stats (conf->ice->transport,
              p->vaddr)))
    return FALSE;
  gst_structure_get_enum (s, "state", GST_TYPE_NICE_PEER_STATE, &st);
  *state = state_name (st);
  *local_type = g_strdup (gst_structure_get_string (s,
          "local-candidate-type"));
  *remote_type = g_strdup (gst_structure_get_string (s,
          "remote-candidate-type"));
  gst_structure_free (s);
  return TRUE;
}

GArray *
conf_ice_members (Conference * conf)
{
  GArray *ids;

  if (!conf->ice)
    return NULL;
  ids = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < conf->ice->peers->len; i++) {
    IcePeer *p = g_ptr_array_index (conf->ice->peers, i);

    g_array_append_val (ids, p->id);
  }
  return ids;
}

static gboolean
configure_transport (ConfIce * ice, GError ** error)
{
  const ConfOptions *o = &ice->conf->opt;
  GstNiceTransport *t = ice->transport;
  guint types = GST_NICE_CANDIDATE_ALL;

  if (o->ice_candidates && !parse_candidate_types (o->ice_candidates, &types,
          error))
    return FALSE;
  g_object_set (t, "stun-server", o->stun, "turn-server", o->turn,
      "turn-user", o->turn_user, "turn-password", o->turn_password,
      "candidate-types", types, "local-addresses", o->address, NULL);
  g_signal_connect (t, "local-blob", G_CALLBACK (on_local_blob), ice);
  g_signal_connect (t, "peer-state-changed", G_CALLBACK (on_peer_state),
      ice);
  return TRUE;
}

/* --rendezvous-host: on --address (default: any) at --rendezvous's port. */
static gboolean
host_rendezvous (Conference * conf, ConfIce * ice, GError ** error)
{
  const gchar *colon = strrchr (conf->opt.rendezvous, ':');
  guint64 port = colon ? g_ascii_strtoull (colon + 1, NULL, 10) : 0;

  if (port == 0 || port > 65535) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--rendezvous wants HOST:PORT, not \"%s\"", conf->opt.rendezvous);
    return FALSE;
  }
  ice->host = gst_nice_rendezvous_new (conf->opt.address, port, error);
  if (!ice->host)
    return FALSE;
  g_print ("ice: hosting the rendezvous on port %u\n",
      gst_nice_rendezvous_get_port (ice->host));
  return TRUE;
}

static void
ice_free (ConfIce * ice)
{
  if (!ice)
    return;
  if (ice->reconnect_id)
    g_source_remove (ice->reconnect_id);
  close_client (ice);
  if (ice->host)
    gst_nice_rendezvous_stop (ice->host);
  g_clear_object (&ice->host);
  if (ice->transport)
    g_signal_handlers_disconnect_by_data (ice->transport, ice);
  g_clear_object (&ice->transport);
  g_ptr_array_unref (ice->peers);
  g_free (ice->self_name);
  g_free (ice->rendezvous);
  g_free (ice->last_error);
  g_free (ice);
}

/* The ICE transport of one session (@suffix: of the rendezvous names,
 * @port_offset: of its members' ports), given to its @tx and @rx. */
static ConfIce *
ice_new (Conference * conf, const gchar * suffix, guint port_offset,
    gboolean host, GstElement * tx, GstElement * rx, GError ** error)
{
  ConfIce *ice = g_new0 (ConfIce, 1);

  ice->conf = conf;
  ice->suffix = suffix;
  ice->port_offset = port_offset;
  ice->peers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      ice_peer_free);
  ice->self_name = g_strdup_printf ("%u%s", conf->opt.id, suffix);
  ice->rendezvous = g_strdup (conf->opt.rendezvous);
  ice->transport = gst_nice_transport_new ();
  if (!make_peers (ice, error) || !configure_transport (ice, error) ||
      (host && !host_rendezvous (conf, ice, error)))
    goto failed;
  connect_client (ice);
  for (guint i = 0; i < ice->peers->len; i++)
    if (!add_peer (ice, g_ptr_array_index (ice->peers, i), error))
      goto failed;
  g_object_set (tx, "transport", ice->transport, NULL);
  g_object_set (rx, "transport", ice->transport, NULL);
  return ice;

failed:
  ice_free (ice);
  return NULL;
}

gboolean
conf_ice_start (Conference * conf, GError ** error)
{
  GstElement *atx;

  conf->ice = ice_new (conf, "", 0, conf->opt.rendezvous_host, conf->tx,
      conf->rx, error);
  if (!conf->ice)
    return FALSE;
  if (!conf->opt.audio)
    return TRUE;
  atx = gst_bin_get_by_name (GST_BIN (conf->pipeline), "atx");
  conf->audio_ice = ice_new (conf, ".audio", CONF_AUDIO_PORT_OFFSET, FALSE,
      atx, conf->arx, error);
  gst_object_unref (atx);
  return conf->audio_ice != NULL;
}

void
conf_ice_clear (Conference * conf)
{
  g_clear_pointer (&conf->audio_ice, ice_free);
  g_clear_pointer (&conf->ice, ice_free);
}
