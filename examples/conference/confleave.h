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

/* The element names of the output's inputs: the queues after the mixed
 * picture's tee (to the recording or the window, and to the snapshot) and
 * after the audio mixer. */
#define CONF_OUT_VIDEO_QUEUE "outvq"
#define CONF_OUT_AUDIO_QUEUE "outaq"
#define CONF_SNAPSHOT_QUEUE "snapq"

/* Ends the output at the moment of leaving: EOS goes straight into the
 * queues named above (those that exist), each from a worker thread, as the
 * thread feeding a queue may hold its pad while the queue is full. What the
 * mixers and the branches before them still hold is not recorded, so the
 * recording's end waits only for the output queues to drain through the
 * encoders and the muxer. Returns how many queues it ends. */
guint conf_leave_output (GstElement * pipeline);

/* The recording's h264parse, whose output conf_guard_recording watches. */
#define CONF_RECORDING_PARSER "recparse"

/* mp4mux fails the whole pipeline on a buffer without PTS, which x264enc
 * was seen to push under load at the recording's start: such a buffer is
 * left out of the recording instead (a warning, once). Nothing happens
 * when @pipeline has no recording. */
void conf_guard_recording (GstElement * pipeline);

G_END_DECLS

#endif /* __CONF_LEAVE_H__ */
