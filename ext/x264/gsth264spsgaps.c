/* Sets gaps_in_frame_num_value_allowed_flag in an H.264 SPS (see the
 * header). Syntax: H.264 (08/2021) 7.3.2.1.1. */
#include "gsth264spsgaps.h"

#define NAL_TYPE_SPS 7

typedef struct
{
  const guint8 *data;
  gsize size;
  gsize pos;                    /* in bits */
  gboolean overrun;
} BitReader;

static guint32
read_bits (BitReader * r, guint n)
{
  guint32 v = 0;

  for (guint i = 0; i < n; i++) {
    if (r->pos >= r->size * 8) {
      r->overrun = TRUE;
      return 0;
    }
    v = (v << 1) | ((r->data[r->pos >> 3] >> (7 - (r->pos & 7))) & 1);
    r->pos++;
  }
  return v;
}

/* ue(v); codes longer than 32 bits count as an overrun. */
static guint32
read_ue (BitReader * r)
{
  guint zeros = 0;

  while (read_bits (r, 1) == 0) {
    if (r->overrun || ++zeros > 31) {
      r->overrun = TRUE;
      return 0;
    }
  }
  if (zeros == 0)
    return 0;
  return ((1u << zeros) - 1) + read_bits (r, zeros);
}

static gint64
read_se (BitReader * r)
{
  guint32 k = read_ue (r);

  return (k & 1) ? ((gint64) k + 1) / 2 : -((gint64) k / 2);
}

/* scaling_list(): only the delta_scale codes move the position. */
static void
skip_scaling_list (BitReader * r, guint n)
{
  gint64 last = 8, next = 8;

  for (guint j = 0; j < n && !r->overrun; j++) {
    if (next != 0)
      next = (last + read_se (r) + 256) % 256;
    last = next == 0 ? last : next;
  }
}

static gboolean
profile_has_chroma_info (guint profile_idc)
{
  switch (profile_idc) {
    case 100:
    case 110:
    case 122:
    case 244:
    case 44:
    case 83:
    case 86:
    case 118:
    case 128:
    case 138:
    case 139:
    case 134:
    case 135:
      return TRUE;
    default:
      return FALSE;
  }
}

/* The bit position of gaps_in_frame_num_value_allowed_flag in @rbsp (the
 * SPS payload after the NAL header), or -1. */
static gssize
gaps_flag_position (const guint8 * rbsp, gsize size)
{
  BitReader r = { rbsp, size, 0, FALSE };
  guint profile_idc, poc_type;

  profile_idc = read_bits (&r, 8);
  read_bits (&r, 8);            /* constraint flags, reserved bits */
  read_bits (&r, 8);            /* level_idc */
  read_ue (&r);                 /* seq_parameter_set_id */
  if (profile_has_chroma_info (profile_idc)) {
    guint chroma_format_idc = read_ue (&r);
    if (chroma_format_idc == 3)
      read_bits (&r, 1);        /* separate_colour_plane_flag */
    read_ue (&r);               /* bit_depth_luma_minus8 */
    read_ue (&r);               /* bit_depth_chroma_minus8 */
    read_bits (&r, 1);          /* qpprime_y_zero_transform_bypass_flag */
    if (read_bits (&r, 1)) {    /* seq_scaling_matrix_present_flag */
      guint lists = chroma_format_idc != 3 ? 8 : 12;
      for (guint i = 0; i < lists && !r.overrun; i++)
        if (read_bits (&r, 1))
          skip_scaling_list (&r, i < 6 ? 16 : 64);
    }
  }
  read_ue (&r);                 /* log2_max_frame_num_minus4 */
  poc_type = read_ue (&r);
  if (poc_type == 0) {
    read_ue (&r);               /* log2_max_pic_order_cnt_lsb_minus4 */
  } else if (poc_type == 1) {
    guint32 cycle;
    read_bits (&r, 1);          /* delta_pic_order_always_zero_flag */
    read_se (&r);               /* offset_for_non_ref_pic */
    read_se (&r);               /* offset_for_top_to_bottom_field */
    cycle = read_ue (&r);
    if (cycle > 255)
      return -1;
    for (guint32 i = 0; i < cycle && !r.overrun; i++)
      read_se (&r);             /* offset_for_ref_frame[i] */
  }
  read_ue (&r);                 /* max_num_ref_frames */
  if (r.overrun || r.pos >= size * 8)
    return -1;
  return (gssize) r.pos;
}

/* The RBSP of a NAL payload: emulation prevention bytes (the 0x03 of
 * 0x00 0x00 0x03) removed. */
static GByteArray *
unescape (const guint8 * data, gsize size)
{
  GByteArray *out = g_byte_array_sized_new (size);
  guint zeros = 0;

  for (gsize i = 0; i < size; i++) {
    if (zeros >= 2 && data[i] == 0x03) {
      zeros = 0;
      continue;
    }
    g_byte_array_append (out, &data[i], 1);
    zeros = data[i] == 0 ? zeros + 1 : 0;
  }
  return out;
}

/* Appends @rbsp to @out with emulation prevention: 0x03 before any byte
 * <= 0x03 that follows two zero bytes. */
static void
escape_into (GByteArray * out, const guint8 * rbsp, gsize size)
{
  static const guint8 epb = 0x03;
  guint zeros = 0;

  for (gsize i = 0; i < size; i++) {
    if (zeros >= 2 && rbsp[i] <= 0x03) {
      g_byte_array_append (out, &epb, 1);
      zeros = 0;
    }
    g_byte_array_append (out, &rbsp[i], 1);
    zeros = rbsp[i] == 0 ? zeros + 1 : 0;
  }
  if (size > 0 && rbsp[size - 1] == 0)
    g_byte_array_append (out, &epb, 1);
}

GByteArray *
h264_sps_allow_frame_num_gaps (const guint8 * nal, gsize size)
{
  GByteArray *rbsp, *out;
  gssize bit;

  if (size < 2 || (nal[0] & 0x1f) != NAL_TYPE_SPS)
    return NULL;
  rbsp = unescape (nal + 1, size - 1);
  bit = gaps_flag_position (rbsp->data, rbsp->len);
  if (bit < 0) {
    g_byte_array_unref (rbsp);
    return NULL;
  }
  rbsp->data[bit >> 3] |= 0x80 >> (bit & 7);

  out = g_byte_array_sized_new (size + 1);
  g_byte_array_append (out, nal, 1);
  escape_into (out, rbsp->data, rbsp->len);
  g_byte_array_unref (rbsp);
  return out;
}
