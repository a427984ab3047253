/* Sets gaps_in_frame_num_value_allowed_flag in an H.264 SPS NAL unit.
 * GLib only, no I/O.
 *
 * libx264 always writes the flag as 0. x264layerenc lets receivers drop
 * upper temporal layers whose frames are reference frames (hierarchical-p,
 * and layer 1 of a 3-layer hierarchical-b), which leaves frame_num gaps in
 * the prefix a receiver decodes; with the flag 0 a conforming decoder takes
 * such a gap for loss (H.264 7.4.3, 8.2.5.2). Setting it makes every prefix
 * of layers a conforming stream: the decoder fills the gap with
 * "non-existing" frames, which the DPB size of x264layerenc accounts for.
 *
 * The flag follows variable-length fields (exp-Golomb codes, optional
 * scaling lists), so the SPS is parsed up to it on the RBSP (emulation
 * prevention bytes removed) and escaped again afterwards: setting a bit can
 * remove the need for an emulation prevention byte, so the size may change.
 */
#ifndef __GST_H264_SPS_GAPS_H__
#define __GST_H264_SPS_GAPS_H__

#include <glib.h>

G_BEGIN_DECLS

/* @nal: one NAL unit, header byte first, no start code, @size bytes.
 * Returns the rewritten NAL unit (header byte first), or NULL if @nal is
 * not an SPS or ends before the flag. */
GByteArray *h264_sps_allow_frame_num_gaps (const guint8 * nal, gsize size);

G_END_DECLS

#endif /* __GST_H264_SPS_GAPS_H__ */
