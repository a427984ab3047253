/* Leaving is bounded: Ctrl-C (SIGINT) or SIGTERM makes the participant
 * leave the call (its streams end with EOS so the recording is finalised),
 * and whatever the pipeline then waits on, the process exits at most
 * @bound_s seconds later. Under load a participant was seen still running
 * 15 s after its SIGINT, and was killed (docs/conference.md, "Leaving"). */
#ifndef __CONF_EXIT_H__
#define __CONF_EXIT_H__

#include <glib.h>

G_BEGIN_DECLS

/* The status a participant exits with when it could not stop in time:
 * its recording may lack its end (an MP4 without its index). */
#define CONF_EXIT_STUCK 3

/* Installs the handlers of SIGINT and SIGTERM: the first one calls @leave
 * (with @data) from the default main context and arms the bound; a second
 * one exits at once. FALSE (with @error) if they cannot be installed. */
gboolean conf_exit_guard_install (guint bound_s, GSourceFunc leave,
    gpointer data, GError ** error);

/* Arms the bound (once; a leave that no signal started, --duration's, calls
 * it): @bound_s seconds from now the process says the recording may be
 * incomplete on stderr and exits with CONF_EXIT_STUCK. */
void conf_exit_guard_arm (void);

/* TRUE from the moment the leave began: set inside the signal handler
 * (or by conf_exit_guard_arm), so before the main loop runs the leave.
 * Safe to call from any thread. */
gboolean conf_exit_guard_leaving (void);

/* Names the step of the leave now under way (a string that lives for
 * good): a process ended by the bound says which step held it. */
void conf_exit_guard_step (const gchar * step);

G_END_DECLS

#endif /* __CONF_EXIT_H__ */
