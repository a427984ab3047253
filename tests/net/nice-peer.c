/* A participant of the nice transport for the network tests: hosts the
 * TCP rendezvous (--listen) or joins one (--rendezvous) as member --id of
 * --members, connects by ICE to every other member, sends --count
 * datagrams to each and waits for theirs. Prints one JSON line per peer
 * (state, selected pair, counts) and exits 0 when every datagram of every
 * peer came, 1 otherwise. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "gstnicetransport.h"
#include "gstnicerendezvous.h"

static gchar *opt_id, *opt_members, *opt_rendezvous, *opt_listen;
static gchar *opt_stun, *opt_turn, *opt_turn_user, *opt_turn_pass;
static gchar *opt_types;
static gint opt_count = 50, opt_timeout = 30, opt_size = 200;
static gboolean opt_no_fallback;

static GOptionEntry entries[] = {
  {"id", 0, 0, G_OPTION_ARG_STRING, &opt_id, "this member's id", "ID"},
  {"members", 0, 0, G_OPTION_ARG_STRING, &opt_members,
      "every member id, comma-separated (ours too)", "A,B"},
  {"rendezvous", 0, 0, G_OPTION_ARG_STRING, &opt_rendezvous,
      "the rendezvous to join", "HOST:PORT"},
  {"listen", 0, 0, G_OPTION_ARG_STRING, &opt_listen,
      "host a rendezvous on IP:PORT and do nothing else", "IP:PORT"},
  {"stun", 0, 0, G_OPTION_ARG_STRING, &opt_stun, "STUN server", "HOST:PORT"},
  {"turn", 0, 0, G_OPTION_ARG_STRING, &opt_turn, "TURN server", "HOST:PORT"},
  {"turn-user", 0, 0, G_OPTION_ARG_STRING, &opt_turn_user, "TURN user", "U"},
  {"turn-password", 0, 0, G_OPTION_ARG_STRING, &opt_turn_pass,
      "TURN password", "P"},
  {"candidate-types", 0, 0, G_OPTION_ARG_STRING, &opt_types,
      "allowed candidate types, e.g. host+srflx+relay or relay", "TYPES"},
  {"no-relay-fallback", 0, 0, G_OPTION_ARG_NONE, &opt_no_fallback,
      "do not retry a failed peer relayed only", NULL},
  {"count", 0, 0, G_OPTION_ARG_INT, &opt_count, "datagrams to each peer",
      "N"},
  {"size", 0, 0, G_OPTION_ARG_INT, &opt_size, "datagram size (bytes)", "B"},
  {"timeout", 0, 0, G_OPTION_ARG_INT, &opt_timeout, "give up after (s)",
      "S"},
  {NULL}
};

typedef struct
{
  gchar *id;
  GSocketAddress *vaddr;
  guint received;
  gboolean sent;
  gint64 connected_at;          /* when we first saw it connected (us) */
} Member;

static GPtrArray *members;
static guint self_index;
static GstNiceTransport *transport;
static GstNiceRendezvousClient *rdv;
static GMainLoop *loop;
static gint64 started_at;       /* when the transport was made (us) */

static Member *
member_by_addr (GSocketAddress * a)
{
  gchar *s = g_socket_connectable_to_string (G_SOCKET_CONNECTABLE (a));
  Member *found = NULL;

  for (guint i = 0; i < members->len && !found; i++) {
    Member *m = g_ptr_array_index (members, i);
    gchar *t = g_socket_connectable_to_string (G_SOCKET_CONNECTABLE
        (m->vaddr));
    if (!strcmp (s, t))
      found = m;
    g_free (t);
  }
  g_free (s);
  return found;
}

static Member *
member_by_id (const gchar * id)
{
  for (guint i = 0; i < members->len; i++) {
    Member *m = g_ptr_array_index (members, i);
    if (!strcmp (m->id, id))
      return m;
  }
  return NULL;
}

static gboolean
all_received (void)
{
  for (guint i = 0; i < members->len; i++) {
    Member *m = g_ptr_array_index (members, i);
    if (i != self_index && m->received < (guint) opt_count)
      return FALSE;
  }
  return TRUE;
}

static void
on_datagram (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user)
{
  Member *m = member_by_addr (from);

  if (m)
    m->received++;
}

static void
on_local_blob (GstNiceTransport * t, GSocketAddress * peer,
    const gchar * blob, gpointer user)
{
  Member *m = member_by_addr (peer);
  GError *err = NULL;

  if (!gst_nice_rendezvous_client_send (rdv, m->id, blob, &err)) {
    g_printerr ("%s\n", err->message);
    exit (2);
  }
}

static void
on_rdv_blob (GstNiceRendezvousClient * c, const gchar * from,
    const gchar * blob, gpointer user)
{
  Member *m = member_by_id (from);
  GError *err = NULL;

  if (!m || !gst_nice_transport_set_remote_blob (transport, m->vaddr, blob,
          &err)) {
    g_printerr ("blob from %s refused: %s\n", from, err ? err->message :
        "not a member");
    g_clear_error (&err);
  }
}

static void
on_rdv_error (GstNiceRendezvousClient * c, const gchar * msg, gpointer user)
{
  g_printerr ("%s\n", msg);
}

/* Sends --count datagrams to each peer once it has been connected for
 * 300 ms; ends when every peer's have come, or at --timeout. */
static gboolean
tick (gpointer user)
{
  guint8 *buf = g_malloc0 (opt_size);
  static gint step;

  buf[0] = self_index;
  for (guint i = 0; i < members->len; i++) {
    Member *m = g_ptr_array_index (members, i);
    if (i == self_index || m->sent ||
        gst_nice_transport_get_peer_state (transport, m->vaddr) !=
        GST_NICE_PEER_CONNECTED)
      continue;
    /* the other end may see the pair nominated a little later */
    if (!m->connected_at)
      m->connected_at = g_get_monotonic_time ();
    if (g_get_monotonic_time () - m->connected_at < 300 * 1000)
      continue;
    for (gint k = 0; k < opt_count; k++)
      gst_net_transport_send_to (GST_NET_TRANSPORT (transport), buf,
          opt_size, m->vaddr, NULL);
    m->sent = TRUE;
  }
  g_free (buf);
  if (all_received () || ++step > opt_timeout * 100)
    g_main_loop_quit (loop);
  return G_SOURCE_CONTINUE;
}

static void
print_stats (void)
{
  for (guint i = 0; i < members->len; i++) {
    Member *m = g_ptr_array_index (members, i);
    GstStructure *s;
    gchar *state;
    gint st;
    guint64 sent = 0, recv = 0, dropped = 0;
    gboolean fallback = FALSE;
    const gchar *lt, *rt, *la, *ra;

    if (i == self_index)
      continue;
    s = gst_nice_transport_get_peer_stats (transport, m->vaddr);
    gst_structure_get_enum (s, "state", GST_TYPE_NICE_PEER_STATE, &st);
    state = g_strdup (g_enum_get_value (g_type_class_ref
            (GST_TYPE_NICE_PEER_STATE), st)->value_nick);
    gst_structure_get_uint64 (s, "packets-sent", &sent);
    gst_structure_get_uint64 (s, "packets-received", &recv);
    gst_structure_get_uint64 (s, "packets-dropped", &dropped);
    gst_structure_get_boolean (s, "relay-fallback", &fallback);
    lt = gst_structure_get_string (s, "local-candidate-type");
    rt = gst_structure_get_string (s, "remote-candidate-type");
    la = gst_structure_get_string (s, "local-address");
    ra = gst_structure_get_string (s, "remote-address");
    printf ("{\"self\": \"%s\", \"peer\": \"%s\", \"state\": \"%s\", "
        "\"local_type\": \"%s\", \"local_address\": \"%s\", "
        "\"remote_type\": \"%s\", \"remote_address\": \"%s\", "
        "\"sent\": %" G_GUINT64_FORMAT ", \"received\": %" G_GUINT64_FORMAT
        ", \"from_ok\": %u, \"dropped\": %" G_GUINT64_FORMAT
        ", \"relay_fallback\": %s, \"connected_s\": %.2f}\n", opt_id,
        m->id, state, lt ? lt : "", la ? la : "", rt ? rt : "",
        ra ? ra : "", sent, recv, m->received, dropped,
        fallback ? "true" : "false", m->connected_at ?
        (m->connected_at - started_at) / 1e6 : -1.0);
    gst_structure_free (s);
    g_free (state);
  }
  fflush (stdout);
}

static int
host_rendezvous (void)
{
  GError *err = NULL;
  gchar **hp = g_strsplit (opt_listen, ":", 2);
  GstNiceRendezvous *host;

  if (!hp[1]) {
    g_printerr ("--listen wants IP:PORT\n");
    return 2;
  }
  host = gst_nice_rendezvous_new (hp[0], atoi (hp[1]), &err);
  g_strfreev (hp);
  if (!host) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  printf ("listening %u\n", gst_nice_rendezvous_get_port (host));
  fflush (stdout);
  g_main_loop_run (loop);
  return 0;
}

static void
make_members (void)
{
  gchar **ids = g_strsplit (opt_members, ",", -1);

  members = g_ptr_array_new ();
  for (guint i = 0; ids[i]; i++) {
    Member *m = g_new0 (Member, 1);
    gchar *ip = g_strdup_printf ("10.99.0.%u", i + 1);
    m->id = g_strdup (ids[i]);
    m->vaddr = g_inet_socket_address_new_from_string (ip, 5004);
    g_free (ip);
    if (!strcmp (ids[i], opt_id))
      self_index = i;
    g_ptr_array_add (members, m);
  }
  g_strfreev (ids);
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("- a nice transport member");
  GError *err = NULL;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  gst_init (NULL, NULL);
  loop = g_main_loop_new (NULL, FALSE);
  if (opt_listen)
    return host_rendezvous ();
  if (!opt_id || !opt_members || !opt_rendezvous) {
    g_printerr ("--id, --members and --rendezvous are needed\n");
    return 2;
  }
  make_members ();
  transport = gst_nice_transport_new ();
  started_at = g_get_monotonic_time ();
  g_object_set (transport, "stun-server", opt_stun, "turn-server", opt_turn,
      "turn-user", opt_turn_user, "turn-password", opt_turn_pass,
      "relay-fallback", !opt_no_fallback, NULL);
  if (opt_types)
    gst_util_set_object_arg (G_OBJECT (transport), "candidate-types",
        opt_types);
  g_signal_connect (transport, "local-blob", G_CALLBACK (on_local_blob),
      NULL);
  gst_net_transport_attach (GST_NET_TRANSPORT (transport), NULL, on_datagram,
      NULL);
  rdv = gst_nice_rendezvous_client_new (opt_id, &err);
  if (!rdv) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_signal_connect (rdv, "blob", G_CALLBACK (on_rdv_blob), NULL);
  g_signal_connect (rdv, "error", G_CALLBACK (on_rdv_error), NULL);
  gst_nice_rendezvous_client_connect (rdv, opt_rendezvous);
  for (guint i = 0; i < members->len; i++) {
    Member *m = g_ptr_array_index (members, i);
    if (i != self_index && !gst_nice_transport_add_peer (transport, m->vaddr,
            self_index < i, &err)) {
      g_printerr ("%s\n", err->message);
      return 2;
    }
  }
  g_timeout_add (10, tick, NULL);
  g_main_loop_run (loop);
  /* linger so the peers get what they wait for too */
  {
    gint64 end = g_get_monotonic_time () + G_USEC_PER_SEC;
    while (g_get_monotonic_time () < end)
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
  }
  print_stats ();
  return all_received ()? 0 : 1;
}
