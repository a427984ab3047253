/* The libnice transport (ext/nice): transports in one process on loopback
 * exchange their blobs directly or through the TCP rendezvous, connect by
 * ICE and carry datagrams both ways with the peers' virtual addresses as
 * `from`; a peer whose blob never comes stays unconnected and what is sent
 * to it is dropped and counted; bad blobs, bad rendezvous lines and bad
 * settings are refused with a message. */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "gstnicetransport.h"
#include "gstnicerendezvous.h"
#include "gstnicesignal.h"

#define MAX_NODES 4
#define CONNECT_TIMEOUT_S 20

typedef struct
{
  gchar id[8];
  GSocketAddress *vaddr;        /* how the others address this node */
  GstNiceTransport *t;
  GstNiceRendezvousClient *rdv;
  guint received[MAX_NODES + 1];        /* index MAX_NODES: unknown from */
  guint64 bytes[MAX_NODES + 1];
  guint blobs_out;
} Node;

static Node nodes[MAX_NODES];
static guint n_nodes;
static gboolean use_rendezvous;

static gboolean
addr_equal (GSocketAddress * a, GSocketAddress * b)
{
  GInetSocketAddress *x = G_INET_SOCKET_ADDRESS (a);
  GInetSocketAddress *y = G_INET_SOCKET_ADDRESS (b);

  return g_inet_address_equal (g_inet_socket_address_get_address (x),
      g_inet_socket_address_get_address (y)) &&
      g_inet_socket_address_get_port (x) == g_inet_socket_address_get_port (y);
}

static gint
node_by_addr (GSocketAddress * a)
{
  for (guint i = 0; i < n_nodes; i++)
    if (addr_equal (nodes[i].vaddr, a))
      return i;
  return -1;
}

static gint
node_by_id (const gchar * id)
{
  for (guint i = 0; i < n_nodes; i++)
    if (!strcmp (nodes[i].id, id))
      return i;
  return -1;
}

static GSocketAddress *
vaddr_new (guint i)
{
  gchar *s = g_strdup_printf ("10.99.0.%u", i + 1);
  GSocketAddress *a = g_inet_socket_address_new_from_string (s, 5004);

  g_free (s);
  return a;
}

/* Every datagram's first byte is its sender's index: `from` must match. */
static void
on_datagram (GstNetTransport * t, const guint8 * data, gsize size,
    GSocketAddress * from, gpointer user)
{
  Node *n = user;
  gint j = node_by_addr (from);

  if (j < 0 || size == 0 || data[0] != j)
    j = MAX_NODES;
  n->received[j]++;
  n->bytes[j] += size;
}

typedef struct
{
  guint from, to;
  gchar *blob;
} Delivery;

/* Direct signalling as a channel would do it: later, from the loop (the
 * blob can come before the receiver has added its peer). */
static gboolean
deliver (gpointer data)
{
  Delivery *d = data;
  GError *err = NULL;

  fail_unless (gst_nice_transport_set_remote_blob (nodes[d->to].t,
          nodes[d->from].vaddr, d->blob, &err), "%s",
      err ? err->message : "");
  g_free (d->blob);
  g_free (d);
  return G_SOURCE_REMOVE;
}

static void
on_local_blob (GstNiceTransport * t, GSocketAddress * peer,
    const gchar * blob, Node * n)
{
  gint j = node_by_addr (peer);
  GError *err = NULL;
  Delivery *d;

  n->blobs_out++;
  if (j < 0)                    /* a peer that does not exist: never sent */
    return;
  if (use_rendezvous) {
    fail_unless (gst_nice_rendezvous_client_send (n->rdv, nodes[j].id, blob,
            &err));
    return;
  }
  d = g_new0 (Delivery, 1);
  d->from = n - nodes;
  d->to = j;
  d->blob = g_strdup (blob);
  g_idle_add (deliver, d);
}

static void
on_rdv_blob (GstNiceRendezvousClient * c, const gchar * from,
    const gchar * blob, Node * n)
{
  gint j = node_by_id (from);
  GError *err = NULL;

  fail_unless (j >= 0, "blob from unknown member %s", from);
  fail_unless (gst_nice_transport_set_remote_blob (n->t, nodes[j].vaddr, blob,
          &err), "%s", err ? err->message : "");
}

static void
on_rdv_error (GstNiceRendezvousClient * c, const gchar * msg, Node * n)
{
  fail ("rendezvous client %s: %s", n->id, msg);
}

static GstNiceTransport *
transport_new (void)
{
  GstNiceTransport *t = gst_nice_transport_new ();

  g_object_set (t, "local-addresses", "127.0.0.1", NULL);
  return t;
}

static void
nodes_setup (guint n)
{
  memset (nodes, 0, sizeof (nodes));
  n_nodes = n;
  for (guint i = 0; i < n; i++) {
    g_snprintf (nodes[i].id, sizeof (nodes[i].id), "m%u", i);
    nodes[i].vaddr = vaddr_new (i);
    nodes[i].t = transport_new ();
    g_signal_connect (nodes[i].t, "local-blob", G_CALLBACK (on_local_blob),
        &nodes[i]);
    gst_net_transport_attach (GST_NET_TRANSPORT (nodes[i].t), NULL,
        on_datagram, &nodes[i]);
  }
}

/* Each node adds every other; the lower index controls. */
static void
nodes_add_peers (void)
{
  for (guint i = 0; i < n_nodes; i++)
    for (guint j = 0; j < n_nodes; j++) {
      GError *err = NULL;
      if (i != j)
        fail_unless (gst_nice_transport_add_peer (nodes[i].t, nodes[j].vaddr,
                i < j, &err), "%s", err ? err->message : "");
    }
}

static void
nodes_teardown (void)
{
  for (guint i = 0; i < n_nodes; i++) {
    gst_net_transport_detach (GST_NET_TRANSPORT (nodes[i].t));
    g_object_unref (nodes[i].t);
    if (nodes[i].rdv) {
      gst_nice_rendezvous_client_close (nodes[i].rdv);
      g_object_unref (nodes[i].rdv);
    }
    g_object_unref (nodes[i].vaddr);
  }
  n_nodes = 0;
  use_rendezvous = FALSE;
}

typedef gboolean (*Cond) (gpointer data);

/* Runs the default context until @cond holds or @seconds pass. */
static gboolean
run_until (Cond cond, gpointer data, gdouble seconds)
{
  gint64 end = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;

  while (!cond (data) && g_get_monotonic_time () < end)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
  return cond (data);
}

static gboolean
all_connected (gpointer data)
{
  for (guint i = 0; i < n_nodes; i++)
    for (guint j = 0; j < n_nodes; j++)
      if (i != j && gst_nice_transport_get_peer_state (nodes[i].t,
              nodes[j].vaddr) != GST_NICE_PEER_CONNECTED)
        return FALSE;
  return TRUE;
}

static gboolean
never (gpointer data)
{
  return FALSE;
}

static void
send_n (guint from, guint to, guint count, gsize size)
{
  guint8 *buf = g_malloc0 (size);

  buf[0] = from;
  for (guint k = 0; k < count; k++) {
    GError *err = NULL;
    fail_unless (gst_net_transport_send_to (GST_NET_TRANSPORT (nodes[from].t),
            buf, size, nodes[to].vaddr, &err), "%s", err ? err->message : "");
  }
  g_free (buf);
}

static guint expected_each;

static gboolean
all_received (gpointer data)
{
  for (guint i = 0; i < n_nodes; i++)
    for (guint j = 0; j < n_nodes; j++)
      if (i != j && nodes[i].received[j] < expected_each)
        return FALSE;
  return TRUE;
}

static guint64
stat_u64 (GstStructure * s, const gchar * f)
{
  guint64 v = G_MAXUINT64;

  fail_unless (gst_structure_get_uint64 (s, f, &v), "no %s", f);
  return v;
}

/* Every node sends @count datagrams of a size of its own to every other;
 * every one arrives, from the right virtual address, and the stats agree. */
static void
check_mesh_traffic (guint count)
{
  for (guint i = 0; i < n_nodes; i++)
    for (guint j = 0; j < n_nodes; j++)
      if (i != j)
        send_n (i, j, count, 100 + 10 * i);
  expected_each = count;
  fail_unless (run_until (all_received, NULL, 10));
  run_until (never, NULL, 0.2);         /* and nothing more comes */
  for (guint i = 0; i < n_nodes; i++) {
    fail_unless_equals_int (nodes[i].received[MAX_NODES], 0);
    for (guint j = 0; j < n_nodes; j++) {
      GstStructure *s;
      const gchar *type, *raddr;

      if (i == j)
        continue;
      fail_unless_equals_int (nodes[i].received[j], count);
      fail_unless_equals_int (nodes[i].bytes[j], count * (100 + 10 * j));
      s = gst_nice_transport_get_peer_stats (nodes[i].t, nodes[j].vaddr);
      fail_unless (s != NULL);
      fail_unless_equals_int (stat_u64 (s, "packets-sent"), count);
      fail_unless_equals_int (stat_u64 (s, "bytes-sent"), count *
          (100 + 10 * i));
      fail_unless_equals_int (stat_u64 (s, "packets-received"), count);
      fail_unless_equals_int (stat_u64 (s, "bytes-received"), count *
          (100 + 10 * j));
      fail_unless_equals_int (stat_u64 (s, "packets-dropped"), 0);
      type = gst_structure_get_string (s, "local-candidate-type");
      raddr = gst_structure_get_string (s, "remote-address");
      fail_unless (type && !strcmp (type, "host"), "type %s", type);
      fail_unless (raddr && g_str_has_prefix (raddr, "127.0.0.1:"), "%s",
          raddr);
      gst_structure_free (s);
    }
  }
}

GST_START_TEST (test_pair_direct)
{
  nodes_setup (2);
  nodes_add_peers ();
  fail_unless (run_until (all_connected, NULL, CONNECT_TIMEOUT_S),
      "the pair did not connect");
  fail_unless_equals_int (nodes[0].blobs_out, 1);
  fail_unless_equals_int (nodes[1].blobs_out, 1);
  check_mesh_traffic (20);
  nodes_teardown ();
}

GST_END_TEST;

static gchar *
rdv_address (GstNiceRendezvous * rdv)
{
  return g_strdup_printf ("127.0.0.1:%u", gst_nice_rendezvous_get_port (rdv));
}

static void
connect_rendezvous (GstNiceRendezvous * rdv)
{
  gchar *where = rdv_address (rdv);

  use_rendezvous = TRUE;
  for (guint i = 0; i < n_nodes; i++) {
    nodes[i].rdv = gst_nice_rendezvous_client_new (nodes[i].id, NULL);
    g_signal_connect (nodes[i].rdv, "blob", G_CALLBACK (on_rdv_blob),
        &nodes[i]);
    g_signal_connect (nodes[i].rdv, "error", G_CALLBACK (on_rdv_error),
        &nodes[i]);
  }
  /* the last one joins late: what was addressed to it waits on the host */
  for (guint i = 0; i + 1 < n_nodes; i++)
    gst_nice_rendezvous_client_connect (nodes[i].rdv, where);
  nodes_add_peers ();
  run_until (never, NULL, 1.0);
  gst_nice_rendezvous_client_connect (nodes[n_nodes - 1].rdv, where);
  g_free (where);
}

GST_START_TEST (test_mesh_rendezvous)
{
  GstNiceRendezvous *rdv = gst_nice_rendezvous_new ("127.0.0.1", 0, NULL);

  fail_unless (rdv != NULL);
  nodes_setup (3);
  connect_rendezvous (rdv);
  fail_unless (run_until (all_connected, NULL, CONNECT_TIMEOUT_S),
      "the mesh did not connect");
  check_mesh_traffic (10);
  nodes_teardown ();
  g_object_unref (rdv);
}

GST_END_TEST;

static gboolean
b_received (gpointer data)
{
  return nodes[1].received[0] >= GPOINTER_TO_UINT (data);
}

/* A peer whose blob never arrives: never connected, datagrams dropped and
 * counted, while the pair beside it works. */
GST_START_TEST (test_missing_blob_drops)
{
  GSocketAddress *ghost = vaddr_new (9);
  GError *err = NULL;
  GstStructure *s;
  guint8 buf[300] = { 0 };

  nodes_setup (2);
  nodes_add_peers ();
  fail_unless (gst_nice_transport_add_peer (nodes[0].t, ghost, TRUE, &err));
  fail_unless (run_until (all_connected, NULL, CONNECT_TIMEOUT_S));
  run_until (never, NULL, 1.0);
  fail_unless_equals_int (nodes[0].blobs_out, 2);
  fail_if (gst_nice_transport_get_peer_state (nodes[0].t, ghost) ==
      GST_NICE_PEER_CONNECTED);
  for (guint k = 0; k < 7; k++) {
    fail_if (gst_net_transport_send_to (GST_NET_TRANSPORT (nodes[0].t), buf,
            sizeof (buf), ghost, &err));
    fail_unless (g_error_matches (err, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED));
    g_clear_error (&err);
  }
  send_n (0, 1, 3, 50);
  fail_unless (run_until (b_received, GUINT_TO_POINTER (3), 5));
  s = gst_nice_transport_get_peer_stats (nodes[0].t, ghost);
  fail_unless_equals_int (stat_u64 (s, "packets-dropped"), 7);
  fail_unless_equals_int (stat_u64 (s, "packets-sent"), 0);
  fail_if (gst_structure_has_field (s, "remote-address"));
  gst_structure_free (s);
  s = gst_nice_transport_get_peer_stats (nodes[0].t, nodes[1].vaddr);
  fail_unless_equals_int (stat_u64 (s, "packets-dropped"), 0);
  fail_unless_equals_int (stat_u64 (s, "packets-sent"), 3);
  gst_structure_free (s);
  /* not a peer at all */
  g_object_unref (ghost);
  ghost = vaddr_new (20);
  fail_if (gst_net_transport_send_to (GST_NET_TRANSPORT (nodes[0].t), buf,
          sizeof (buf), ghost, &err));
  fail_unless (g_error_matches (err, G_IO_ERROR,
          G_IO_ERROR_HOST_UNREACHABLE));
  g_clear_error (&err);
  g_object_unref (ghost);
  nodes_teardown ();
}

GST_END_TEST;

static gboolean
gathered (gpointer data)
{
  return nodes[0].blobs_out > 0;
}

#define GOOD_CREDS "ice abcd 0123456789abcdefghijkl\n"
#define HOST_CAND "a=candidate:1 1 UDP 2013266431 127.0.0.1 40000 typ host\n"

static void
check_refused (GSocketAddress * peer, const gchar * blob, const gchar * what)
{
  GError *err = NULL;

  fail_if (gst_nice_transport_set_remote_blob (nodes[0].t, peer, blob, &err),
      "blob accepted: %s", blob);
  fail_unless (err != NULL);
  fail_unless (strstr (err->message, what) != NULL, "\"%s\" lacks \"%s\"",
      err->message, what);
  g_error_free (err);
}

GST_START_TEST (test_bad_blobs_refused)
{
  GSocketAddress *peer = vaddr_new (1), *other = vaddr_new (5);
  GError *err = NULL;

  nodes_setup (1);
  fail_unless (gst_nice_transport_add_peer (nodes[0].t, peer, TRUE, &err));
  fail_if (gst_nice_transport_add_peer (nodes[0].t, peer, TRUE, &err));
  fail_unless (g_error_matches (err, G_IO_ERROR, G_IO_ERROR_EXISTS));
  g_clear_error (&err);
  fail_unless (run_until (gathered, NULL, 10));
  check_refused (peer, "", "empty blob");
  check_refused (peer, "garbage\n", "line 1");
  check_refused (peer, "ice ab 0123456789abcdefghijkl\n", "ufrag");
  check_refused (peer, "ice abcd short\n", "password");
  check_refused (peer, GOOD_CREDS "a=candidate:x\x01y\n", "line 2");
  check_refused (peer, GOOD_CREDS "m=audio 9 RTP/AVP 0\n", "line 2");
  check_refused (peer, GOOD_CREDS "a=candidate:not a candidate\n",
      "not a UDP candidate");
  check_refused (peer, GOOD_CREDS, "no usable candidate");
  check_refused (other, GOOD_CREDS HOST_CAND, "no peer");
  {
    GString *many = g_string_new (GOOD_CREDS);
    for (guint i = 0; i <= GST_NICE_BLOB_MAX_CANDIDATES; i++)
      g_string_append (many, HOST_CAND);
    check_refused (peer, many->str, "more than");
    g_string_free (many, TRUE);
  }
  /* types not allowed are left out: a blob of host candidates only is
   * refused by a transport that takes srflx and relay only */
  {
    GstNiceTransport *t = transport_new ();
    g_object_set (t, "candidate-types", GST_NICE_CANDIDATE_SRFLX |
        GST_NICE_CANDIDATE_RELAY, NULL);
    fail_unless (gst_nice_transport_add_peer (t, peer, TRUE, NULL));
    run_until (never, NULL, 0.5);
    fail_if (gst_nice_transport_set_remote_blob (t, peer, GOOD_CREDS
            HOST_CAND, &err));
    fail_unless (strstr (err->message, "1 of a type not in candidate-types"),
        "%s", err->message);
    g_clear_error (&err);
    g_object_unref (t);
  }
  fail_unless (gst_nice_transport_set_remote_blob (nodes[0].t, peer,
          GOOD_CREDS HOST_CAND, &err));
  g_object_unref (peer);
  g_object_unref (other);
  nodes_teardown ();
}

GST_END_TEST;

static void
check_bad_setting (const gchar * what, const gchar * prop, ...)
{
  GstNiceTransport *t = gst_nice_transport_new ();
  GSocketAddress *peer = vaddr_new (1);
  GError *err = NULL;
  va_list ap;

  va_start (ap, prop);
  g_object_set_valist (G_OBJECT (t), prop, ap);
  va_end (ap);
  fail_if (gst_nice_transport_add_peer (t, peer, TRUE, &err));
  fail_unless (err && strstr (err->message, what), "%s lacks %s",
      err ? err->message : "no error", what);
  g_error_free (err);
  g_object_unref (peer);
  g_object_unref (t);
}

GST_START_TEST (test_bad_settings_refused)
{
  check_bad_setting ("relay\" alone needs a turn-server", "candidate-types",
      GST_NICE_CANDIDATE_RELAY, NULL);
  check_bad_setting ("allows no candidate type", "candidate-types", 0, NULL);
  check_bad_setting ("min-port is above max-port", "min-port", 5000,
      "max-port", 4000, NULL);
  check_bad_setting ("turn-user and turn-password", "turn-server",
      "127.0.0.1:3478", NULL);
  check_bad_setting ("stun-server \"[::1\"", "stun-server", "[::1", NULL);
  check_bad_setting ("local-addresses: \"nonsense\"", "local-addresses",
      "nonsense", NULL);
}

GST_END_TEST;

/* ---- the texts, without I/O ---- */

GST_START_TEST (test_blob_roundtrip_and_truncation)
{
  const gchar *cands[] = { HOST_CAND, NULL };
  gchar *line = g_strndup (HOST_CAND, strlen (HOST_CAND) - 1);
  const gchar *c2[] = { line, line, NULL };
  gchar *text = gst_nice_blob_write ("abcd", "0123456789abcdefghijkl", c2);
  GstNiceBlob *b = gst_nice_blob_parse (text, strlen (text), NULL);
  gsize len = strlen (text);

  (void) cands;
  fail_unless (b != NULL);
  fail_unless_equals_string (b->ufrag, "abcd");
  fail_unless_equals_string (b->pwd, "0123456789abcdefghijkl");
  fail_unless_equals_int (b->candidates->len, 2);
  fail_unless_equals_string (g_ptr_array_index (b->candidates, 1), line);
  gst_nice_blob_free (b);
  /* every prefix: parsed or refused with a message, never more candidates */
  for (gsize n = 0; n < len; n++) {
    GError *err = NULL;
    b = gst_nice_blob_parse (text, n, &err);
    if (b) {
      fail_unless (b->candidates->len <= 2);
      gst_nice_blob_free (b);
    } else {
      fail_unless (err != NULL && err->message[0]);
      g_error_free (err);
    }
  }
  /* the credentials line cut: refused */
  fail_if (gst_nice_blob_parse (text, 10, NULL));
  g_free (text);
  g_free (line);
}

GST_END_TEST;

GST_START_TEST (test_rdv_lines)
{
  GstNiceRdvMsg m;
  GError *err = NULL;
  gchar *to = gst_nice_rdv_write (GST_NICE_RDV_TO, "m1", GOOD_CREDS HOST_CAND);
  gsize len = strlen (to) - 1;
  gchar *big;

  fail_unless (gst_nice_rdv_parse (to, len, &m, &err));
  fail_unless_equals_int (m.kind, GST_NICE_RDV_TO);
  fail_unless_equals_string (m.id, "m1");
  fail_unless_equals_string (m.text, GOOD_CREDS HOST_CAND);
  gst_nice_rdv_msg_clear (&m);
  /* a TO line cut anywhere but on a base64 quantum is refused */
  for (gsize n = 0; n < len; n++) {
    gboolean ok = gst_nice_rdv_parse (to, n, &m, &err);
    if (ok)
      gst_nice_rdv_msg_clear (&m);
    else
      g_clear_error (&err);
    fail_if (ok && (n - 6) % 4 != 0, "prefix %" G_GSIZE_FORMAT " taken", n);
  }
  fail_unless (gst_nice_rdv_parse ("HELLO m-1.x@y:z", 15, &m, NULL));
  fail_unless_equals_string (m.id, "m-1.x@y:z");
  gst_nice_rdv_msg_clear (&m);
  fail_if (gst_nice_rdv_parse ("HELLO bad id", 12, &m, &err));
  fail_unless (strstr (err->message, "member id"));
  g_clear_error (&err);
  fail_if (gst_nice_rdv_parse ("TO m1 ab!=", 10, &m, &err));
  fail_unless (strstr (err->message, "not base64"));
  g_clear_error (&err);
  fail_if (gst_nice_rdv_parse ("TO m1 AAAA", 10, &m, &err));    /* NULs */
  g_clear_error (&err);
  fail_if (gst_nice_rdv_parse ("PING", 4, &m, &err));
  fail_unless (strstr (err->message, "unknown line"));
  g_clear_error (&err);
  big = g_strnfill (GST_NICE_RDV_MAX_LINE, 'A');
  fail_if (gst_nice_rdv_parse (big, strlen (big), &m, &err));
  fail_unless (strstr (err->message, "more than"));
  g_clear_error (&err);
  fail_if (gst_nice_rdv_write (GST_NICE_RDV_TO, "m1", big) != NULL);
  fail_if (gst_nice_rdv_write (GST_NICE_RDV_HELLO, "a b", NULL) != NULL);
  g_free (big);
  g_free (to);
}

GST_END_TEST;

/* ---- the rendezvous host against raw, misbehaving participants ---- */

static guint refused;
static gchar *refused_reason;

static void
on_refused (GstNiceRendezvous * rdv, const gchar * peer, const gchar * reason)
{
  refused++;
  g_free (refused_reason);
  refused_reason = g_strdup (reason);
}

static gboolean
refused_reaches (gpointer n)
{
  return refused >= GPOINTER_TO_UINT (n);
}

/* Sends @text on a fresh connection; the host answers one ERROR line
 * holding @what and closes. */
static void
check_host_refuses (GstNiceRendezvous * rdv, const gchar * text, gsize len,
    const gchar * what)
{
  GSocketClient *c = g_socket_client_new ();
  gchar *where = rdv_address (rdv);
  GSocketConnection *sc = g_socket_client_connect_to_host (c, where, 0, NULL,
      NULL);
  guint before = refused;
  gchar answer[512] = { 0 };
  gsize got = 0;
  gssize n;

  fail_unless (sc != NULL);
  fail_unless (g_output_stream_write_all (g_io_stream_get_output_stream
          (G_IO_STREAM (sc)), text, len, NULL, NULL, NULL));
  fail_unless (run_until (refused_reaches, GUINT_TO_POINTER (before + 1), 5),
      "not refused: %s", what);
  fail_unless (strstr (refused_reason, what), "%s lacks %s", refused_reason,
      what);
  run_until (never, NULL, 0.1);         /* the ERROR line goes out */
  g_socket_set_timeout (g_socket_connection_get_socket (sc), 5);
  while ((n = g_input_stream_read (g_io_stream_get_input_stream (G_IO_STREAM
                  (sc)), answer + got, sizeof (answer) - 1 - got, NULL,
              NULL)) > 0)
    got += n;
  fail_unless (g_str_has_prefix (answer, "ERROR ") && strstr (answer, what),
      "answer \"%s\"", answer);
  g_object_unref (sc);
  g_object_unref (c);
  g_free (where);
}

static gchar *client_error;

static void
on_client_error (GstNiceRendezvousClient * c, const gchar * msg)
{
  g_free (client_error);
  client_error = g_strdup (msg);
}

static gboolean
have_client_error (gpointer data)
{
  return client_error != NULL;
}

GST_START_TEST (test_rendezvous_refuses)
{
  GstNiceRendezvous *rdv = gst_nice_rendezvous_new ("127.0.0.1", 0, NULL);
  GstNiceRendezvousClient *a, *dup;
  gchar *where = rdv_address (rdv), *flood;
  GString *lines = g_string_new ("HELLO flood\n");

  g_signal_connect (rdv, "refused", G_CALLBACK (on_refused), NULL);
  check_host_refuses (rdv, "TO m1 QUJD\n", 11, "TO before HELLO");
  check_host_refuses (rdv, "hello\n", 6, "unknown line");
  check_host_refuses (rdv, "HELLO x\nHELLO y\n", 16, "HELLO twice");
  check_host_refuses (rdv, "HELLO x\nFROM y QUJD\n", 20, "HELLO and TO only");
  flood = g_strnfill (GST_NICE_RDV_MAX_LINE + 10, 'A');
  check_host_refuses (rdv, flood, strlen (flood), "line too long");
  for (guint i = 0; i < GST_NICE_RDV_MAX_LINES; i++)
    g_string_append (lines, "TO nobody QUJD\n");
  check_host_refuses (rdv, lines->str, lines->len, "too many");

  /* a member id already connected: the newcomer is refused, and told */
  a = gst_nice_rendezvous_client_new ("same", NULL);
  dup = gst_nice_rendezvous_client_new ("same", NULL);
  g_signal_connect (dup, "error", G_CALLBACK (on_client_error), NULL);
  gst_nice_rendezvous_client_connect (a, where);
  run_until (never, NULL, 0.3);
  gst_nice_rendezvous_client_connect (dup, where);
  fail_unless (run_until (have_client_error, NULL, 5));
  fail_unless (strstr (client_error, "already connected"), "%s",
      client_error);
  g_clear_pointer (&client_error, g_free);
  fail_if (gst_nice_rendezvous_client_new ("bad id", NULL) != NULL);

  g_object_unref (a);
  g_object_unref (dup);
  g_free (flood);
  g_string_free (lines, TRUE);
  g_free (where);
  g_clear_pointer (&refused_reason, g_free);
  g_object_unref (rdv);
}

GST_END_TEST;

static Suite *
nicetransport_suite (void)
{
  Suite *s = suite_create ("nicetransport");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_blob_roundtrip_and_truncation);
  tcase_add_test (tc, test_rdv_lines);
  tcase_add_test (tc, test_rendezvous_refuses);
  tcase_add_test (tc, test_bad_settings_refused);
  tcase_add_test (tc, test_bad_blobs_refused);
  tcase_add_test (tc, test_pair_direct);
  tcase_add_test (tc, test_mesh_rendezvous);
  tcase_add_test (tc, test_missing_blob_drops);
  return s;
}

GST_CHECK_MAIN (nicetransport);
