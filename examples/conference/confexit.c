/* The bounded leave of a participant (confexit.h). The bound is kept by
 * alarm() from the signal handler itself, so neither a main loop held up
 * nor a pipeline that never reaches NULL can keep the process alive. */
#include "confexit.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t armed;
static guint bound_seconds;
static gint wake_fds[2] = { -1, -1 };

static gchar stuck_message[160];
static gsize stuck_message_len;

static const gchar *volatile step = "leaving";

static GSourceFunc leave_func;
static gpointer leave_data;

/* Async-signal-safe: write() and _exit() only. */
static void
exit_stuck (void)
{
  const gchar *at = step;
  ssize_t r = write (STDERR_FILENO, stuck_message, stuck_message_len);

  r = write (STDERR_FILENO, "conference: held while ", 23);
  r = write (STDERR_FILENO, at, strlen (at));
  r = write (STDERR_FILENO, "\n", 1);
  (void) r;
  _exit (CONF_EXIT_STUCK);
}

static void
on_alarm (int sig)
{
  exit_stuck ();
}

static void
on_leave_signal (int sig)
{
  const gchar byte = 1;
  ssize_t r;

  if (armed)
    exit_stuck ();
  armed = 1;
  alarm (bound_seconds);
  r = write (wake_fds[1], &byte, 1);
  (void) r;
}

static gboolean
on_wake (gint fd, GIOCondition cond, gpointer data)
{
  gchar buf[16];

  while (read (fd, buf, sizeof buf) > 0);
  leave_func (leave_data);
  return G_SOURCE_CONTINUE;
}

gboolean
conf_exit_guard_leaving (void)
{
  return armed != 0;
}

void
conf_exit_guard_step (const gchar * name)
{
  step = name;
}

void
conf_exit_guard_arm (void)
{
  if (armed)
    return;
  armed = 1;
  alarm (bound_seconds);
}

gboolean
conf_exit_guard_install (guint bound_s, GSourceFunc leave, gpointer data,
    GError ** error)
{
  struct sigaction sa;

  g_return_val_if_fail (bound_s > 0, FALSE);
  bound_seconds = bound_s;
  leave_func = leave;
  leave_data = data;
  stuck_message_len = g_snprintf (stuck_message, sizeof stuck_message,
      "conference: exiting now, not stopped (a second signal, or %u s after "
      "leaving the call); the recording may be incomplete\n", bound_s);
  if (!g_unix_open_pipe (wake_fds, FD_CLOEXEC, error))
    return FALSE;
  g_unix_set_fd_nonblocking (wake_fds[0], TRUE, NULL);
  g_unix_set_fd_nonblocking (wake_fds[1], TRUE, NULL);
  g_unix_fd_add (wake_fds[0], G_IO_IN, on_wake, NULL);
  memset (&sa, 0, sizeof sa);
  sigemptyset (&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sa.sa_handler = on_alarm;
  sigaction (SIGALRM, &sa, NULL);
  sa.sa_handler = on_leave_signal;
  if (sigaction (SIGINT, &sa, NULL) < 0 || sigaction (SIGTERM, &sa, NULL) < 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "cannot handle SIGINT: %s", g_strerror (errno));
    return FALSE;
  }
  return TRUE;
}
