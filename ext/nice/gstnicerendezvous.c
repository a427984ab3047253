/* The TCP rendezvous (see gstnicerendezvous.h). */
#include <string.h>
#include "gstnicerendezvous.h"
#include "gstnicesignal.h"

/* a reader that does not read gets closed rather than buffered forever */
#define MAX_OUT_BYTES (1 << 20)

/* One line-based TCP connection, host or client side. Every async call in
 * flight holds a reference; on_closed runs once. */
typedef struct _LineConn LineConn;
typedef void (*LineFunc) (LineConn * c, const gchar * line, gsize len);
typedef void (*ClosedFunc) (LineConn * c, const gchar * reason);

struct _LineConn
{
  gint refs;
  GSocketConnection *sc;
  GCancellable *cancel;
  GByteArray *in;
  GByteArray *out;
  gboolean writing;
  gboolean close_after_flush;
  gboolean closed;
  guint lines;
  gchar *id;                    /* host side: the member, after HELLO */
  gchar *peer;                  /* the remote address, for messages */
  gpointer owner;
  LineFunc on_line;
  ClosedFunc on_closed;
  guint8 rbuf[4096];
};

static LineConn *
line_conn_ref (LineConn * c)
{
  c->refs++;
  return c;
}

static void
line_conn_unref (LineConn * c)
{
  if (--c->refs > 0)
    return;
  g_object_unref (c->sc);
  g_object_unref (c->cancel);
  g_byte_array_unref (c->in);
  g_byte_array_unref (c->out);
  g_free (c->id);
  g_free (c->peer);
  g_free (c);
}

static void
line_conn_close (LineConn * c, const gchar * reason)
{
  if (c->closed)
    return;
  c->closed = TRUE;
  g_cancellable_cancel (c->cancel);
  g_io_stream_close (G_IO_STREAM (c->sc), NULL, NULL);
  if (c->on_closed)
    c->on_closed (c, reason);
}

static void line_conn_write_more (LineConn * c);

static void
write_done (GObject * src, GAsyncResult * res, gpointer data)
{
  LineConn *c = data;
  GError *err = NULL;
  gssize n = g_output_stream_write_finish (G_OUTPUT_STREAM (src), res, &err);

  c->writing = FALSE;
  if (n < 0) {
    if (!c->closed) {
      gchar *r = g_strdup_printf ("write failed: %s", err->message);
      line_conn_close (c, r);
      g_free (r);
    }
    g_error_free (err);
  } else if (!c->closed) {
    g_byte_array_remove_range (c->out, 0, n);
    line_conn_write_more (c);
  }
  line_conn_unref (c);
}

static void
line_conn_write_more (LineConn * c)
{
  if (c->writing || c->closed)
    return;
  if (c->out->len == 0) {
    if (c->close_after_flush)
      line_conn_close (c, NULL);
    return;
  }
  c->writing = TRUE;
  g_output_stream_write_async (g_io_stream_get_output_stream (G_IO_STREAM
          (c->sc)), c->out->data, c->out->len, G_PRIORITY_DEFAULT, c->cancel,
      write_done, line_conn_ref (c));
}

/* Queues one '\n'-terminated line. */
static void
line_conn_send (LineConn * c, const gchar * line)
{
  if (c->closed || c->close_after_flush)
    return;
  if (c->out->len + strlen (line) > MAX_OUT_BYTES) {
    line_conn_close (c, "the peer does not read (output buffer full)");
    return;
  }
  g_byte_array_append (c->out, (const guint8 *) line, strlen (line));
  line_conn_write_more (c);
}

/* Sends "ERROR <reason>" and closes once it is out. */
static void
line_conn_refuse (LineConn * c, const gchar * reason)
{
  gchar *line = gst_nice_rdv_write (GST_NICE_RDV_ERROR, NULL, reason);

  line_conn_send (c, line);
  g_free (line);
  c->close_after_flush = TRUE;
  c->on_line = NULL;
  if (c->on_closed) {
    ClosedFunc f = c->on_closed;
    c->on_closed = NULL;
    f (c, reason);
  }
  line_conn_write_more (c);
}

static void line_conn_read (LineConn * c);

/* Hands out every complete line of the input buffer. */
static void
split_lines (LineConn * c)
{
  guint8 *nl;

  while (!c->closed && c->on_line &&
      (nl = memchr (c->in->data, '\n', c->in->len))) {
    gsize len = nl - c->in->data;
    gchar *line = g_strndup ((const gchar *) c->in->data, len);

    g_byte_array_remove_range (c->in, 0, len + 1);
    if (len > 0 && line[len - 1] == '\r')
      line[--len] = '\0';
    if (++c->lines > GST_NICE_RDV_MAX_LINES)
      line_conn_refuse (c, "too many lines on one connection");
    else
      c->on_line (c, line, len);
    g_free (line);
  }
  if (!c->closed && c->on_line && c->in->len >= GST_NICE_RDV_MAX_LINE)
    line_conn_refuse (c, "line too long");
}

static void
read_done (GObject * src, GAsyncResult * res, gpointer data)
{
  LineConn *c = data;
  GError *err = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (src), res, &err);

  if (c->closed) {
    g_clear_error (&err);
  } else if (n <= 0) {
    gchar *r = n < 0 ? g_strdup_printf ("read failed: %s", err->message) :
        g_strdup (c->in->len ? "connection closed in the middle of a line" :
        "connection closed");
    g_clear_error (&err);
    line_conn_close (c, r);
    g_free (r);
  } else {
    g_byte_array_append (c->in, c->rbuf, n);
    split_lines (c);
    line_conn_read (c);
  }
  line_conn_unref (c);
}

static void
line_conn_read (LineConn * c)
{
  if (c->closed || !c->on_line)
    return;
  g_input_stream_read_async (g_io_stream_get_input_stream (G_IO_STREAM
          (c->sc)), c->rbuf, sizeof (c->rbuf), G_PRIORITY_DEFAULT, c->cancel,
      read_done, line_conn_ref (c));
}

static LineConn *
line_conn_new (GSocketConnection * sc, gpointer owner, LineFunc on_line,
    ClosedFunc on_closed)
{
  LineConn *c = g_new0 (LineConn, 1);
  GSocketAddress *ra = g_socket_connection_get_remote_address (sc, NULL);

  c->refs = 1;
  c->sc = g_object_ref (sc);
  c->cancel = g_cancellable_new ();
  c->in = g_byte_array_new ();
  c->out = g_byte_array_new ();
  c->owner = owner;
  c->on_line = on_line;
  c->on_closed = on_closed;
  if (ra && G_IS_INET_SOCKET_ADDRESS (ra)) {
    gchar *ip = g_inet_address_to_string (g_inet_socket_address_get_address
        (G_INET_SOCKET_ADDRESS (ra)));
    c->peer = g_strdup_printf ("%s:%u", ip, g_inet_socket_address_get_port
        (G_INET_SOCKET_ADDRESS (ra)));
    g_free (ip);
  } else {
    c->peer = g_strdup ("?");
  }
  g_clear_object (&ra);
  return c;
}

/* ---- the host ---- */

struct _GstNiceRendezvous
{
  GObject parent;

  GSocketService *service;
  guint16 port;
  GPtrArray *conns;             /* LineConn *, every open connection */
  GHashTable *members;          /* id -> LineConn * (not owned) */
  GHashTable *kept;             /* id -> GPtrArray of FROM lines */
  guint n_kept;
};

enum
{
  SIG_REFUSED,
  N_RDV_SIGNALS
};
static guint rdv_signals[N_RDV_SIGNALS];

G_DEFINE_TYPE (GstNiceRendezvous, gst_nice_rendezvous, G_TYPE_OBJECT);

static void
host_closed (LineConn * c, const gchar * reason)
{
  GstNiceRendezvous *self = c->owner;

  if (c->id && g_hash_table_lookup (self->members, c->id) == c)
    g_hash_table_remove (self->members, c->id);
  if (reason && c->close_after_flush)
    g_signal_emit (self, rdv_signals[SIG_REFUSED], 0, c->peer, reason);
  if (g_ptr_array_remove (self->conns, c))
    line_conn_unref (c);
}

static void
host_hello (GstNiceRendezvous * self, LineConn * c, const gchar * id)
{
  GPtrArray *kept;

  if (c->id) {
    line_conn_refuse (c, "HELLO twice");
    return;
  }
  if (g_hash_table_contains (self->members, id)) {
    gchar *r = g_strdup_printf ("member %s is already connected", id);
    line_conn_refuse (c, r);
    g_free (r);
    return;
  }
  c->id = g_strdup (id);
  g_hash_table_insert (self->members, g_strdup (id), c);
  if ((kept = g_hash_table_lookup (self->kept, id))) {
    for (guint i = 0; i < kept->len; i++)
      line_conn_send (c, g_ptr_array_index (kept, i));
    self->n_kept -= kept->len;
    g_hash_table_remove (self->kept, id);
  }
}

/* Forwards a blob to its member, or keeps it until the member connects. */
static void
host_forward (GstNiceRendezvous * self, LineConn * c, const gchar * to,
    const gchar * blob)
{
  gchar *line = gst_nice_rdv_write (GST_NICE_RDV_FROM, c->id, blob);
  LineConn *dst = g_hash_table_lookup (self->members, to);
  GPtrArray *kept;

  if (!line) {
    line_conn_refuse (c, "blob too long to forward");
    return;
  }
  if (dst) {
    line_conn_send (dst, line);
    g_free (line);
    return;
  }
  if (self->n_kept >= GST_NICE_RDV_MAX_KEPT) {
    g_free (line);
    line_conn_refuse (c, "too many blobs kept for members not connected");
    return;
  }
  if (!(kept = g_hash_table_lookup (self->kept, to))) {
    kept = g_ptr_array_new_with_free_func (g_free);
    g_hash_table_insert (self->kept, g_strdup (to), kept);
  }
  g_ptr_array_add (kept, line);
  self->n_kept++;
}

static void
host_line (LineConn * c, const gchar * line, gsize len)
{
  GstNiceRendezvous *self = c->owner;
  GstNiceRdvMsg msg;
  GError *err = NULL;

  if (!gst_nice_rdv_parse (line, len, &msg, &err)) {
    line_conn_refuse (c, err->message);
    g_error_free (err);
    return;
  }
  if (msg.kind == GST_NICE_RDV_HELLO)
    host_hello (self, c, msg.id);
  else if (msg.kind != GST_NICE_RDV_TO)
    line_conn_refuse (c, "a participant sends HELLO and TO only");
  else if (!c->id)
    line_conn_refuse (c, "TO before HELLO");
  else
    host_forward (self, c, msg.id, msg.text);
  gst_nice_rdv_msg_clear (&msg);
}

static gboolean
on_incoming (GSocketService * service, GSocketConnection * sc,
    GObject * source, gpointer data)
{
  GstNiceRendezvous *self = data;
  LineConn *c = line_conn_new (sc, self, host_line, host_closed);

  g_ptr_array_add (self->conns, c);
  if (self->conns->len > GST_NICE_RDV_MAX_CLIENTS)
    line_conn_refuse (c, "too many participants");
  else
    line_conn_read (c);
  return TRUE;
}

GstNiceRendezvous *
gst_nice_rendezvous_new (const gchar * address, guint16 port, GError ** error)
{
  GstNiceRendezvous *self;
  GInetAddress *ia;
  GSocketAddress *sa, *effective = NULL;
  gboolean ok;

  ia = address ? g_inet_address_new_from_string (address) :
      g_inet_address_new_any (G_SOCKET_FAMILY_IPV4);
  if (!ia) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "rendezvous: \"%s\" is not an IP address", address);
    return NULL;
  }
  self = g_object_new (GST_TYPE_NICE_RENDEZVOUS, NULL);
  sa = g_inet_socket_address_new (ia, port);
  ok = g_socket_listener_add_address (G_SOCKET_LISTENER (self->service), sa,
      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL, &effective, error);
  g_object_unref (sa);
  g_object_unref (ia);
  if (!ok) {
    g_prefix_error (error, "rendezvous: cannot listen on %s:%u: ",
        address ? address : "*", port);
    g_object_unref (self);
    return NULL;
  }
  self->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS
      (effective));
  g_object_unref (effective);
  g_signal_connect (self->service, "incoming", G_CALLBACK (on_incoming), self);
  g_socket_service_start (self->service);
  return self;
}

guint16
gst_nice_rendezvous_get_port (GstNiceRendezvous * rdv)
{
  return rdv->port;
}

void
gst_nice_rendezvous_stop (GstNiceRendezvous * self)
{
  g_socket_service_stop (self->service);
  g_socket_listener_close (G_SOCKET_LISTENER (self->service));
  while (self->conns->len > 0) {
    LineConn *c = g_ptr_array_index (self->conns, self->conns->len - 1);
    c->on_closed = NULL;
    line_conn_close (c, NULL);
    g_ptr_array_remove_index (self->conns, self->conns->len - 1);
    line_conn_unref (c);
  }
  g_hash_table_remove_all (self->members);
}

static void
gst_nice_rendezvous_finalize (GObject * object)
{
  GstNiceRendezvous *self = GST_NICE_RENDEZVOUS (object);

  gst_nice_rendezvous_stop (self);
  g_signal_handlers_disconnect_by_data (self->service, self);
  g_object_unref (self->service);
  g_ptr_array_unref (self->conns);
  g_hash_table_unref (self->members);
  g_hash_table_unref (self->kept);
  G_OBJECT_CLASS (gst_nice_rendezvous_parent_class)->finalize (object);
}

static void
gst_nice_rendezvous_class_init (GstNiceRendezvousClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_nice_rendezvous_finalize;
  rdv_signals[SIG_REFUSED] = g_signal_new ("refused",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
      G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
}

static void
gst_nice_rendezvous_init (GstNiceRendezvous * self)
{
  self->service = g_socket_service_new ();
  self->conns = g_ptr_array_new ();
  self->members = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  self->kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) g_ptr_array_unref);
}

/* ---- a participant ---- */

struct _GstNiceRendezvousClient
{
  GObject parent;

  gchar *id;
  GSocketClient *sclient;
  GCancellable *cancel;
  LineConn *conn;
  GPtrArray *queued;            /* lines sent before the connection is up */
  gboolean failed;
};

enum
{
  SIG_BLOB,
  SIG_ERROR,
  N_CLIENT_SIGNALS
};
static guint client_signals[N_CLIENT_SIGNALS];

G_DEFINE_TYPE (GstNiceRendezvousClient, gst_nice_rendezvous_client,
    G_TYPE_OBJECT);

static void
client_fail (GstNiceRendezvousClient * self, const gchar * message)
{
  if (self->failed)
    return;
  self->failed = TRUE;
  g_signal_emit (self, client_signals[SIG_ERROR], 0, message);
}

static void
client_closed (LineConn * c, const gchar * reason)
{
  GstNiceRendezvousClient *self = c->owner;
  gchar *m = g_strdup_printf ("rendezvous %s: %s", c->peer,
      reason ? reason : "closed");

  client_fail (self, m);
  g_free (m);
}

static void
client_line (LineConn * c, const gchar * line, gsize len)
{
  GstNiceRendezvousClient *self = c->owner;
  GstNiceRdvMsg msg;
  GError *err = NULL;

  if (!gst_nice_rdv_parse (line, len, &msg, &err)) {
    line_conn_close (c, err->message);
    g_error_free (err);
    return;
  }
  if (msg.kind == GST_NICE_RDV_FROM) {
    g_signal_emit (self, client_signals[SIG_BLOB], 0, msg.id, msg.text);
  } else if (msg.kind == GST_NICE_RDV_ERROR) {
    gchar *r = g_strdup_printf ("refused: %s", msg.text);
    line_conn_close (c, r);
    g_free (r);
  } else {
    line_conn_close (c, "the host sends FROM and ERROR only");
  }
  gst_nice_rdv_msg_clear (&msg);
}

static void
connected (GObject * src, GAsyncResult * res, gpointer data)
{
  GstNiceRendezvousClient *self = data;
  GError *err = NULL;
  GSocketConnection *sc = g_socket_client_connect_to_host_finish
      (G_SOCKET_CLIENT (src), res, &err);
  gchar *hello;

  if (!sc) {
    if (!g_error_matches (err, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
      gchar *m = g_strdup_printf ("rendezvous: cannot connect: %s",
          err->message);
      client_fail (self, m);
      g_free (m);
    }
    g_error_free (err);
    g_object_unref (self);
    return;
  }
  self->conn = line_conn_new (sc, self, client_line, client_closed);
  g_object_unref (sc);
  hello = gst_nice_rdv_write (GST_NICE_RDV_HELLO, self->id, NULL);
  line_conn_send (self->conn, hello);
  g_free (hello);
  for (guint i = 0; i < self->queued->len; i++)
    line_conn_send (self->conn, g_ptr_array_index (self->queued, i));
  g_ptr_array_set_size (self->queued, 0);
  line_conn_read (self->conn);
  g_object_unref (self);
}

GstNiceRendezvousClient *
gst_nice_rendezvous_client_new (const gchar * member_id, GError ** error)
{
  GstNiceRendezvousClient *self;

  if (!member_id || !gst_nice_rdv_id_is_valid (member_id,
          strlen (member_id))) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "rendezvous: member id \"%s\" is not 1 to %d of [A-Za-z0-9._:@-]",
        member_id ? member_id : "(null)", GST_NICE_RDV_MAX_ID);
    return NULL;
  }
  self = g_object_new (GST_TYPE_NICE_RENDEZVOUS_CLIENT, NULL);
  self->id = g_strdup (member_id);
  return self;
}

void
gst_nice_rendezvous_client_connect (GstNiceRendezvousClient * self,
    const gchar * host_and_port)
{
  g_socket_client_connect_to_host_async (self->sclient, host_and_port, 0,
      self->cancel, connected, g_object_ref (self));
}

gboolean
gst_nice_rendezvous_client_send (GstNiceRendezvousClient * self,
    const gchar * to, const gchar * blob, GError ** error)
{
  gchar *line = gst_nice_rdv_write (GST_NICE_RDV_TO, to, blob);

  if (!line) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "rendezvous: cannot send to \"%s\": not a member id, or a blob "
        "longer than a line", to);
    return FALSE;
  }
  if (self->conn)
    line_conn_send (self->conn, line);
  else
    g_ptr_array_add (self->queued, g_strdup (line));
  g_free (line);
  return TRUE;
}

void
gst_nice_rendezvous_client_close (GstNiceRendezvousClient * self)
{
  g_cancellable_cancel (self->cancel);
  if (self->conn) {
    self->conn->on_closed = NULL;
    line_conn_close (self->conn, NULL);
    line_conn_unref (self->conn);
    self->conn = NULL;
  }
}

static void
gst_nice_rendezvous_client_finalize (GObject * object)
{
  GstNiceRendezvousClient *self = GST_NICE_RENDEZVOUS_CLIENT (object);

  gst_nice_rendezvous_client_close (self);
  g_object_unref (self->sclient);
  g_object_unref (self->cancel);
  g_ptr_array_unref (self->queued);
  g_free (self->id);
  G_OBJECT_CLASS (gst_nice_rendezvous_client_parent_class)->finalize (object);
}

static void
gst_nice_rendezvous_client_class_init (GstNiceRendezvousClientClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_nice_rendezvous_client_finalize;
  client_signals[SIG_BLOB] = g_signal_new ("blob", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING,
      G_TYPE_STRING);
  client_signals[SIG_ERROR] = g_signal_new ("error", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
gst_nice_rendezvous_client_init (GstNiceRendezvousClient * self)
{
  self->sclient = g_socket_client_new ();
  self->cancel = g_cancellable_new ();
  self->queued = g_ptr_array_new_with_free_func (g_free);
}
