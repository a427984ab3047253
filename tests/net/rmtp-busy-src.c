/* A receiver that goes BUSY mid-transfer, for the network test of RMTP's
 * BUSY / RRDY (issue 20): runs `rmtpsrc uri=URI ! filesink location=OUT`,
 * sets the source's `busy` once it has taken BUSY_AT DATA packets, and
 * clears it (the source sends RRDY) on SIGUSR1.
 *
 *   rmtp-busy-src URI OUT BUSY_AT
 *
 * Prints what gst-launch-1.0 -m prints for the test's parsers: each element
 * message as `Got message #N from element "NAME" (element): STRUCTURE` and
 * the EOS line; and "busy t=S" / "ready t=S" (seconds since start) when it
 * sets and clears `busy`. Exits 0 on EOS, 1 on an error. */
#include <gst/gst.h>
#include <glib-unix.h>
#include <stdlib.h>

typedef struct {
  GMainLoop *loop;
  GstElement *src;
  guint64 busy_at;
  gboolean busy_set;
  gint64 start;
  guint messages;
  int status;
} BusySrc;

static gdouble
since_start (BusySrc * b)
{
  return (g_get_monotonic_time () - b->start) / 1e6;
}

static guint64
data_received (GstElement * src)
{
  GstStructure *st = NULL;
  guint64 n = 0;

  g_object_get (src, "stats", &st, NULL);
  if (st) {
    gst_structure_get_uint64 (st, "data-received", &n);
    gst_structure_free (st);
  }
  return n;
}

/* Every 5 ms until the source has BUSY_AT packets, then BUSY once. */
static gboolean
maybe_busy (gpointer data)
{
  BusySrc *b = data;

  if (data_received (b->src) < b->busy_at)
    return G_SOURCE_CONTINUE;
  g_object_set (b->src, "busy", TRUE, NULL);
  b->busy_set = TRUE;
  g_print ("busy t=%.3f\n", since_start (b));
  return G_SOURCE_REMOVE;
}

static gboolean
on_ready_signal (gpointer data)
{
  BusySrc *b = data;

  if (!b->busy_set)
    g_print ("ready-before-busy t=%.3f\n", since_start (b));
  g_object_set (b->src, "busy", FALSE, NULL);
  g_print ("ready t=%.3f\n", since_start (b));
  return G_SOURCE_CONTINUE;
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  BusySrc *b = data;
  const GstStructure *s;
  gchar *text;
  GError *err = NULL;

  b->messages++;
  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:
      s = gst_message_get_structure (msg);
      text = s ? gst_structure_to_string (s) : g_strdup ("(NULL)");
      g_print ("Got message #%u from element \"%s\" (element): %s\n",
          b->messages, GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), text);
      g_free (text);
      break;
    case GST_MESSAGE_EOS:
      g_print ("Got EOS from element \"%s\".\n",
          GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)));
      b->status = 0;
      g_main_loop_quit (b->loop);
      break;
    case GST_MESSAGE_ERROR:
      gst_message_parse_error (msg, &err, NULL);
      g_print ("ERROR: from element %s: %s\n",
          GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message);
      g_clear_error (&err);
      b->status = 1;
      g_main_loop_quit (b->loop);
      break;
    default:
      break;
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  BusySrc b = { 0 };
  GstElement *pipe;
  GstBus *bus;
  gchar *desc;
  GError *err = NULL;

  gst_init (&argc, &argv);
  if (argc != 4) {
    g_printerr ("usage: %s URI OUT BUSY_AT\n", argv[0]);
    return 2;
  }
  desc = g_strdup_printf ("rmtpsrc uri=\"%s\" ! filesink location=\"%s\"",
      argv[1], argv[2]);
  pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipe) {
    g_printerr ("pipeline: %s\n", err->message);
    return 2;
  }
  b.src = gst_bin_get_by_name (GST_BIN (pipe), "rmtpsrc0");
  b.busy_at = g_ascii_strtoull (argv[3], NULL, 10);
  b.loop = g_main_loop_new (NULL, FALSE);
  b.start = g_get_monotonic_time ();
  b.status = 1;
  bus = gst_element_get_bus (pipe);
  gst_bus_add_watch (bus, on_message, &b);
  g_timeout_add (5, maybe_busy, &b);
  g_unix_signal_add (SIGUSR1, on_ready_signal, &b);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  g_main_loop_run (b.loop);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (b.src);
  gst_object_unref (pipe);
  g_main_loop_unref (b.loop);
  return b.status;
}
