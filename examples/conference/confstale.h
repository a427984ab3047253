/* Camera frames that reach the encoder late are left out (--max-frame-age).
 * A live test source that starts late, or stalls, catches up by pushing every
 * frame it missed at once with its old timestamps (a camera's driver drops
 * them instead); encoded and sent, they made a joiner's first key frame leave
 * 1.1-1.6 s after its capture on a loaded machine, and its video lag its
 * audio by more than lip sync's max-hold (docs/conference.md, "Where the
 * unheld audio comes from"). */
#ifndef __CONF_STALE_H__
#define __CONF_STALE_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct
{
  GstClockTime max_age;         /* frames older than this go */
  gint dropped;                 /* atomic */
} ConfStaleFrames;

/* How far @buf's running time is behind the running time of @pad's
 * element's clock now; GST_CLOCK_TIME_NONE when that cannot be told. */
GstClockTime conf_frame_age (GstPad * pad, GstBuffer * buf);

/* Leaves out the buffers through @pad whose running time is more than
 * @max_age behind the running time of @pad's element's clock when they pass
 * (their age), counting them in @s; @s must outlive the probe. Buffers
 * without a timestamp, or while the element has no clock, pass. */
gulong conf_stale_frames_attach (ConfStaleFrames * s, GstPad * pad,
    GstClockTime max_age);

/* Frames left out so far. */
guint conf_stale_frames_dropped (ConfStaleFrames * s);

/* The tee ahead of the camera's branches asks each how to allocate the
 * camera's frames, and a queue answers only once its thread has handed the
 * caps on: to the encoder, which opens x264 then, and to the grid's
 * compositor, which takes them between two mixed frames. Traced at a
 * joiner on the loaded machine, the camera stood still 0.7-2.3 s meanwhile
 * and then pushed every frame it missed (docs/conference.md, "A joiner's
 * camera"). Both branches convert into buffers of their own: the query is
 * answered at @pad, the tee's sink, with nothing, and the camera runs on;
 * the leaky queues keep the newest frames until their branch is ready. */
gulong conf_allocation_answer_attach (GstPad * pad);

/* Sets @pipeline PLAYING with every element's base time set before: a
 * pipeline going to PLAYING gives all its elements the clock at once, and
 * the base time to each only as its bin reaches it, sinks first. A live
 * mixer (GstAggregator) that runs in between waits for base time 0 plus
 * its output's running time, long past on the clock: it puts out frames
 * as fast as it can and then stands still that far ahead (a start held
 * 0.4 s made the camera's compositor put out 2,872 frames, 191 s of
 * them, at once, and the camera stood still for the rest of the call). So
 * the pipeline goes PAUSED, takes its clock, and is given one base time,
 * in all its elements, before PLAYING; its start time is NONE, so PLAYING
 * keeps it. */
GstStateChangeReturn conf_pipeline_play (GstElement * pipeline);

/* Loads the plugin of each of the NULL-terminated @factories now. FALSE,
 * with @error set, when a factory is missing or its plugin does not load.
 * With --preload-decoders, for the others' decode branches before the
 * pipeline starts. Else the first member's branch loads its decoder's
 * plugin with its first packet (gst-libav: libavcodec and the rest), and
 * while the loader runs it holds glibc's loader lock: every thread the
 * process starts meanwhile waits, the camera's compositor's converter
 * threads among them. A joiner, whose members' packets come as its camera
 * starts, put out its first camera frame 0.2 s later in the median (up to
 * 1.1 s). Loaded before the start, the load holds up the session's start
 * and the members' key frames toward the joiner instead, and its first
 * pictures came 0.15 s later in the median: so it is off by default
 * (docs/conference.md, "A joiner's camera"). */
gboolean conf_plugins_preload (const gchar * const *factories,
    GError ** error);

/* FALSE, with @error naming it, when one of @factories is not in the
 * registry; loads nothing. */
gboolean conf_plugins_find (const gchar * const *factories, GError ** error);


G_END_DECLS

#endif /* __CONF_STALE_H__ */
