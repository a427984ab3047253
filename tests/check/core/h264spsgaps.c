/* h264_sps_allow_frame_num_gaps(): the SPS rewriter of x264layerenc, on
 * SPSs written bit by bit here (baseline, high profile with scaling lists,
 * pic_order_cnt_type 1), including one where the flag's byte follows two
 * zero bytes, so setting it removes an emulation prevention byte. Checked:
 * the RBSP differs in exactly the flag's bit, the output is correctly
 * escaped, and SPSs that end early or other NAL types are refused. */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "gsth264spsgaps.h"

typedef struct
{
  guint8 data[256];
  gsize pos;                    /* bits */
} BitWriter;

static void
put_bits (BitWriter * w, guint32 v, guint n)
{
  for (guint i = 0; i < n; i++) {
    guint bit = (v >> (n - 1 - i)) & 1;
    g_assert (w->pos < sizeof (w->data) * 8);
    if (bit)
      w->data[w->pos >> 3] |= 0x80 >> (w->pos & 7);
    w->pos++;
  }
}

static void
put_ue (BitWriter * w, guint32 v)
{
  guint64 code = (guint64) v + 1;
  guint len = 0;

  while ((code >> len) > 1)
    len++;
  put_bits (w, 0, len);
  put_bits (w, (guint32) code, len + 1);
}

static void
put_se (BitWriter * w, gint32 v)
{
  put_ue (w, v > 0 ? 2 * (guint32) v - 1 : 2 * (guint32) (-v));
}

/* rbsp_trailing_bits(); returns the RBSP size in bytes. */
static gsize
finish (BitWriter * w)
{
  put_bits (w, 1, 1);
  while (w->pos & 7)
    put_bits (w, 0, 1);
  return w->pos / 8;
}

/* The NAL unit: header 0x67 (nal_ref_idc 3, SPS), then @rbsp escaped. */
static GByteArray *
to_nal (const guint8 * rbsp, gsize size)
{
  GByteArray *nal = g_byte_array_new ();
  const guint8 header = 0x67, epb = 0x03;
  guint zeros = 0;

  g_byte_array_append (nal, &header, 1);
  for (gsize i = 0; i < size; i++) {
    if (zeros >= 2 && rbsp[i] <= 3) {
      g_byte_array_append (nal, &epb, 1);
      zeros = 0;
    }
    g_byte_array_append (nal, &rbsp[i], 1);
    zeros = rbsp[i] == 0 ? zeros + 1 : 0;
  }
  return nal;
}

/* The RBSP of @nal after its header; fails on a missing emulation
 * prevention byte. */
static GByteArray *
to_rbsp (const guint8 * nal, gsize size)
{
  GByteArray *rbsp = g_byte_array_new ();
  guint zeros = 0;

  for (gsize i = 1; i < size; i++) {
    if (zeros >= 2 && nal[i] == 0x03) {
      zeros = 0;
      continue;
    }
    fail_unless (zeros < 2 || nal[i] > 0x03, "00 00 %02x at byte %"
        G_GSIZE_FORMAT " without emulation prevention", nal[i], i);
    g_byte_array_append (rbsp, &nal[i], 1);
    zeros = nal[i] == 0 ? zeros + 1 : 0;
  }
  return rbsp;
}

/* Rewrites the SPS @w (flag written 0 at bit @flag_bit) and checks the
 * result; returns the size change of the NAL unit. */
static gint
check_rewrite (BitWriter * w, gsize flag_bit)
{
  gsize size = finish (w);
  GByteArray *in = to_nal (w->data, size);
  GByteArray *out = h264_sps_allow_frame_num_gaps (in->data, in->len);
  GByteArray *rbsp;
  gint delta;

  fail_unless (out != NULL);
  fail_unless_equals_int (out->data[0], 0x67);
  rbsp = to_rbsp (out->data, out->len);
  fail_unless_equals_int (rbsp->len, size);
  w->data[flag_bit >> 3] |= 0x80 >> (flag_bit & 7);
  fail_unless (memcmp (rbsp->data, w->data, size) == 0,
      "the RBSP differs in more than the flag");
  delta = (gint) out->len - (gint) in->len;
  g_byte_array_unref (rbsp);
  g_byte_array_unref (out);
  g_byte_array_unref (in);
  return delta;
}

/* Fields after the flag, as x264 writes them for a small picture. */
static void
put_tail (BitWriter * w, guint width_mbs_minus1)
{
  put_ue (w, width_mbs_minus1);
  put_ue (w, 14);               /* pic_height_in_map_units_minus1 */
  put_bits (w, 1, 1);           /* frame_mbs_only_flag */
  put_bits (w, 1, 1);           /* direct_8x8_inference_flag */
  put_bits (w, 0, 1);           /* frame_cropping_flag */
  put_bits (w, 0, 1);           /* vui_parameters_present_flag */
}

GST_START_TEST (test_baseline)
{
  BitWriter w = { {0}, 0 };
  gsize flag;

  put_bits (&w, 66, 8);
  put_bits (&w, 0xc0, 8);
  put_bits (&w, 30, 8);
  put_ue (&w, 0);               /* seq_parameter_set_id */
  put_ue (&w, 0);               /* log2_max_frame_num_minus4 */
  put_ue (&w, 2);               /* pic_order_cnt_type */
  put_ue (&w, 5);               /* max_num_ref_frames */
  flag = w.pos;
  put_bits (&w, 0, 1);
  put_tail (&w, 19);
  fail_unless_equals_int (check_rewrite (&w, flag), 0);
}

GST_END_TEST;

GST_START_TEST (test_high_scaling_lists_poc1)
{
  BitWriter w = { {0}, 0 };
  gsize flag;

  put_bits (&w, 100, 8);
  put_bits (&w, 0x00, 8);
  put_bits (&w, 40, 8);
  put_ue (&w, 3);               /* seq_parameter_set_id */
  put_ue (&w, 1);               /* chroma_format_idc */
  put_ue (&w, 0);               /* bit_depth_luma_minus8 */
  put_ue (&w, 0);               /* bit_depth_chroma_minus8 */
  put_bits (&w, 0, 1);          /* qpprime_y_zero_transform_bypass_flag */
  put_bits (&w, 1, 1);          /* seq_scaling_matrix_present_flag */
  for (guint i = 0; i < 8; i++) {
    guint n = i < 6 ? 16 : 64;
    put_bits (&w, i != 2, 1);   /* list 2 absent */
    if (i == 2)
      continue;
    if (i == 1) {
      /* delta -8: nextScale 0 at once, the list stops after one code. */
      put_se (&w, -8);
      continue;
    }
    for (guint j = 0; j < n; j++)
      put_se (&w, j == 0 ? 8 : (j % 3) - 1);
  }
  put_ue (&w, 4);               /* log2_max_frame_num_minus4 */
  put_ue (&w, 1);               /* pic_order_cnt_type */
  put_bits (&w, 0, 1);          /* delta_pic_order_always_zero_flag */
  put_se (&w, -2);              /* offset_for_non_ref_pic */
  put_se (&w, 1);               /* offset_for_top_to_bottom_field */
  put_ue (&w, 3);               /* num_ref_frames_in_pic_order_cnt_cycle */
  put_se (&w, 2);
  put_se (&w, -70000);
  put_se (&w, 2);
  put_ue (&w, 4);               /* max_num_ref_frames */
  flag = w.pos;
  put_bits (&w, 0, 1);
  put_tail (&w, 79);
  fail_unless_equals_int (check_rewrite (&w, flag), 0);
}

GST_END_TEST;

/* The flag is the first bit of a byte after two zero bytes, and the bits
 * after it are zero too: 00 00 03 00 before, 00 00 80 after. */
GST_START_TEST (test_emulation_prevention_removed)
{
  BitWriter w = { {0}, 0 };
  gsize flag;

  put_bits (&w, 66, 8);
  put_bits (&w, 0xc0, 8);
  put_bits (&w, 30, 8);
  put_ue (&w, 0);               /* 1 bit */
  put_ue (&w, 1);               /* log2_max_frame_num_minus4: 3 bits */
  put_ue (&w, 2);               /* pic_order_cnt_type: 3 bits */
  /* 16 zeros, 1, 16 zeros (syntax only: no decoder allows this many). */
  put_ue (&w, 65535);
  flag = w.pos;
  fail_unless_equals_int (flag, 64);
  put_bits (&w, 0, 1);
  put_tail (&w, 255);           /* 8 leading zeros */
  fail_unless_equals_int (w.data[6], 0);
  fail_unless_equals_int (w.data[7], 0);
  fail_unless_equals_int (w.data[8], 0);
  fail_unless_equals_int (check_rewrite (&w, flag), -1);
}

GST_END_TEST;

/* Emulation prevention bytes the flag does not touch must stay: picture
 * widths whose codes make 00 00 0x (x <= 3) in the RBSP twice. */
GST_START_TEST (test_emulation_prevention_kept)
{
  gboolean found = FALSE;

  for (guint width = 0; width < (1u << 20) && !found; width = width * 2 + 1) {
    for (guint height_extra = 0; height_extra < 64 && !found; height_extra++) {
      BitWriter w = { {0}, 0 };
      GByteArray *nal;
      gsize flag, size;

      put_bits (&w, 66, 8);
      put_bits (&w, 0xc0, 8);
      put_bits (&w, 30, 8);
      put_ue (&w, height_extra % 32);
      put_ue (&w, 0);
      put_ue (&w, 2);
      put_ue (&w, 3);
      flag = w.pos;
      put_bits (&w, 0, 1);
      put_tail (&w, width);
      {
        BitWriter copy = w;
        size = finish (&copy);
        nal = to_nal (copy.data, size);
      }
      /* The NAL has two emulation prevention bytes, the flag can remove
       * one at most; the output must keep the other. */
      if (nal->len >= size + 3) {
        gint delta = check_rewrite (&w, flag);
        found = TRUE;
        fail_unless (delta == 0 || delta == -1);
        fail_unless (nal->len + delta > size + 1);
      }
      g_byte_array_unref (nal);
    }
  }
  fail_unless (found, "no SPS with an emulation prevention byte was made");
}

GST_END_TEST;

GST_START_TEST (test_refused)
{
  BitWriter w = { {0}, 0 };
  GByteArray *nal;
  const guint8 pps[] = { 0x68, 0xce, 0x3c, 0x80 };

  fail_unless (h264_sps_allow_frame_num_gaps (pps, sizeof (pps)) == NULL);

  /* An SPS that ends inside max_num_ref_frames. */
  put_bits (&w, 66, 8);
  put_bits (&w, 0xc0, 8);
  put_bits (&w, 30, 8);
  put_ue (&w, 0);
  put_ue (&w, 0);
  put_ue (&w, 2);
  put_bits (&w, 0, 4);
  nal = to_nal (w.data, w.pos / 8);
  fail_unless (h264_sps_allow_frame_num_gaps (nal->data, nal->len) == NULL);
  g_byte_array_unref (nal);
  fail_unless (h264_sps_allow_frame_num_gaps (pps, 1) == NULL);
}

GST_END_TEST;

static Suite *
h264spsgaps_suite (void)
{
  Suite *s = suite_create ("h264spsgaps");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_baseline);
  tcase_add_test (tc, test_high_scaling_lists_poc1);
  tcase_add_test (tc, test_emulation_prevention_removed);
  tcase_add_test (tc, test_emulation_prevention_kept);
  tcase_add_test (tc, test_refused);
  return s;
}

GST_CHECK_MAIN (h264spsgaps);
