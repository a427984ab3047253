/* The session's I/O loop (see gstnetloop.h). */
#include "gstnetloop.h"
#include "gstnettime.h"

struct _GstNetLoop
{
  gchar *name;
  GMainContext *context;
  GMainLoop *main_loop;
  GSource *work_source;
  GThread *thread;
  GstNetLoopWorkFunc work;
  gpointer user_data;
  gint woken;                   /* atomic: a wake since the work began */
};

/* ns deadline to a GSource ready time (us, rounded up so the work never
 * runs before the core's deadline; -1: none). */
static gint64
ready_time_of (gint64 deadline)
{
  if (deadline == G_MAXINT64)
    return -1;
  return deadline <= 0 ? 0 : (deadline + 999) / 1000;
}

static gboolean
work_dispatch (GSource * source, GSourceFunc callback, gpointer data)
{
  GstNetLoop *loop = data;
  gint64 deadline;

  g_atomic_int_set (&loop->woken, 0);
  deadline = loop->work (loop->user_data, gst_net_now ());
  g_source_set_ready_time (source, ready_time_of (deadline));
  /* a wake while the work ran may have set its ready time before the line
   * above did: it must not be lost */
  if (g_atomic_int_get (&loop->woken))
    g_source_set_ready_time (source, 0);
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs work_funcs = { NULL, NULL, work_dispatch, NULL };

GstNetLoop *
gst_net_loop_new (const gchar * name, GstNetLoopWorkFunc work,
    gpointer user_data)
{
  GstNetLoop *loop = g_new0 (GstNetLoop, 1);

  loop->name = g_strdup (name);
  loop->context = g_main_context_new ();
  loop->main_loop = g_main_loop_new (loop->context, FALSE);
  loop->work = work;
  loop->user_data = user_data;
  loop->work_source = g_source_new (&work_funcs, sizeof (GSource));
  g_source_set_callback (loop->work_source, NULL, loop, NULL);
  g_source_attach (loop->work_source, loop->context);
  return loop;
}

static gpointer
loop_thread (gpointer data)
{
  GstNetLoop *loop = data;

  g_main_context_push_thread_default (loop->context);
  g_main_loop_run (loop->main_loop);
  g_main_context_pop_thread_default (loop->context);
  return NULL;
}

void
gst_net_loop_start (GstNetLoop * loop)
{
  g_return_if_fail (loop->thread == NULL);
  g_source_set_ready_time (loop->work_source, 0);
  loop->thread = g_thread_new (loop->name, loop_thread, loop);
}

static gboolean
quit_cb (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

void
gst_net_loop_stop (GstNetLoop * loop)
{
  if (!loop->thread)
    return;
  /* quit from inside, so a dispatch under way completes first */
  g_main_context_invoke (loop->context, quit_cb, loop->main_loop);
  g_thread_join (loop->thread);
  loop->thread = NULL;
}

void
gst_net_loop_free (GstNetLoop * loop)
{
  gst_net_loop_stop (loop);
  g_source_destroy (loop->work_source);
  g_source_unref (loop->work_source);
  g_main_loop_unref (loop->main_loop);
  g_main_context_unref (loop->context);
  g_free (loop->name);
  g_free (loop);
}

void
gst_net_loop_wake (GstNetLoop * loop)
{
  g_atomic_int_set (&loop->woken, 1);
  g_source_set_ready_time (loop->work_source, 0);
}

GMainContext *
gst_net_loop_get_context (GstNetLoop * loop)
{
  return loop->context;
}

GSource *
gst_net_loop_watch (GstNetLoop * loop, GSocket * socket, GIOCondition cond,
    GSocketSourceFunc func, gpointer user_data)
{
  GSource *s = g_socket_create_source (socket, cond, NULL);

  /* GLib blocks a source that cannot recurse while it dispatches: it takes
   * the fd out of the poll set and puts it back, and each change wakes the
   * context (two eventfd writes, a read and one more poll a wake-up) */
  g_source_set_can_recurse (s, TRUE);
  g_source_set_callback (s, G_SOURCE_FUNC (func), user_data, NULL);
  g_source_attach (s, loop->context);
  return s;
}

void
gst_net_loop_unwatch (GSource ** watch)
{
  if (!*watch)
    return;
  g_source_destroy (*watch);
  g_source_unref (*watch);
  *watch = NULL;
}

void
gst_net_loop_attach (GstNetLoop * loop, GstNetTransport * transport,
    GstNetReceiveFunc func, gpointer user_data)
{
  gst_net_transport_attach (transport, loop->context, func, user_data);
}
