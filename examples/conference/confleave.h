/* Saying goodbye before the recording ends: a leaving participant's BYE
 * goes out when its TPSS sessions stop, and they stopped with the whole
 * pipeline, after the recording's EOS. With an EOS held somewhere (seen
 * under load: the recording's audio, 5 s) the others saw the leave by
 * silence, not by the BYE (docs/conference.md, "Leaving"). */
#ifndef __CONF_LEAVE_H__
#define __CONF_LEAVE_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Stops the session elements of @pipeline (tpsssink / tpsssrc named tx,
 * rx, atx, arx, those that exist) out of the pipeline's own state changes,
 * so each session's last stop sends its BYE now; tpsssrc removes its pads
 * as it stops (their branches end by the EOS sent them). A stopped sink
 * counts as ended for the pipeline's EOS. Returns how many stopped. */
guint conf_leave_sessions (GstElement * pipeline);

G_END_DECLS

#endif /* __CONF_LEAVE_H__ */
