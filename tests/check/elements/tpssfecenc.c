/* Element tests of tpssfecenc with GstHarness. */
#include <gst/check/gstcheck.h>
#include "checkutil.h"
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>

#include "tpssfec.h"

#define MEDIA_CAPS "application/x-rtp, media=video, clock-rate=90000, " \
    "encoding-name=H264, payload=96"

static GstBuffer *
make_rtp (guint16 seq, gsize payload_len)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (payload_len, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, seq * 3000);
  gst_rtp_buffer_set_ssrc (&rtp, 0xabcd);
  memset (gst_rtp_buffer_get_payload (&rtp), seq & 0xff, payload_len);
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_PTS (buf) = seq * GST_MSECOND;
  return buf;
}

static void
setup (GstHarness ** h, GstHarness ** fec, const gchar * props)
{
  GstElement *e = check_make_element ("tpssfecenc", props);

  *h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_play (*h);        /* fec_0 appears in PAUSED */
  *fec = gst_harness_new_with_element ((*h)->element, NULL, "fec_0");
  gst_harness_set_src_caps_str (*h, MEDIA_CAPS);
}

static TpssFecHeader
pull_parity (GstHarness * fec, guint expect_pt, guint32 expect_ssrc)
{
  GstBuffer *buf = gst_harness_pull (fec);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  TpssFecHeader hdr;

  fail_unless (buf != NULL);
  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp));
  fail_unless_equals_int (gst_rtp_buffer_get_payload_type (&rtp), expect_pt);
  fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), expect_ssrc);
  fail_unless_equals_int (tpss_fec_header_parse (gst_rtp_buffer_get_payload
          (&rtp), gst_rtp_buffer_get_payload_len (&rtp), &hdr), TPSS_FEC_OK);
  gst_rtp_buffer_unmap (&rtp);
  gst_buffer_unref (buf);
  return hdr;
}

GST_START_TEST (test_media_untouched_parity_after_segment)
{
  GstHarness *h, *fec;
  GstCaps *caps;
  GstStructure *s;
  gint rate;

  setup (&h, &fec, "packet-distance=4 subsegment-length=3 pt=101 ssrc=77");
  for (guint i = 0; i < 12; i++) {
    GstBuffer *in = make_rtp (500 + i, 100 + i), *out;
    gst_buffer_ref (in);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out == in, "media must pass through untouched");
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    /* No parity before the segment's last data packet. */
    fail_unless_equals_int (gst_harness_buffers_received (fec),
        i < 11 ? 0 : 4);
  }
  for (guint j = 0; j < 4; j++) {
    TpssFecHeader hdr = pull_parity (fec, 101, 77);
    fail_unless_equals_int (hdr.index, j);
    fail_unless_equals_int (hdr.distance, 4);
    fail_unless_equals_int (hdr.length, 3);
    fail_unless_equals_int (hdr.sn_base, 500);
    fail_unless_equals_int (hdr.count, 12);
    fail_unless_equals_int (hdr.media_ssrc, 0xabcd);
  }

  caps = gst_pad_get_current_caps (fec->sinkpad);
  s = gst_caps_get_structure (caps, 0);
  fail_unless_equals_string (gst_structure_get_string (s, "encoding-name"),
      "TPSSFEC");
  fail_unless (gst_structure_get_int (s, "clock-rate", &rate));
  fail_unless_equals_int (rate, 90000);
  gst_caps_unref (caps);

  fail_unless_equals_int (check_stat_u64 (h->element, "protected"), 12);
  fail_unless_equals_int (check_stat_u64 (h->element, "parity-sent"), 4);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_geometry_changes_while_playing)
{
  GstHarness *h, *fec;
  TpssFecHeader hdr;

  setup (&h, &fec, "packet-distance=2 subsegment-length=2 ssrc=0");
  for (guint i = 0; i < 4; i++)
    gst_harness_push (h, make_rtp (i, 50));
  fail_unless_equals_int (gst_harness_buffers_received (fec), 2);
  /* Changed mid-segment: the open segment keeps k=2, l=2. */
  gst_harness_push (h, make_rtp (4, 50));
  g_object_set (h->element, "packet-distance", 3, "subsegment-length", 1,
      NULL);
  for (guint i = 5; i < 8; i++)
    gst_harness_push (h, make_rtp (i, 50));
  fail_unless_equals_int (gst_harness_buffers_received (fec), 4);
  for (guint i = 8; i < 11; i++)
    gst_harness_push (h, make_rtp (i, 50));
  fail_unless_equals_int (gst_harness_buffers_received (fec), 7);
  for (guint i = 0; i < 4; i++)
    gst_buffer_unref (gst_harness_pull (fec));
  hdr = pull_parity (fec, 100, 0);
  fail_unless_equals_int (hdr.distance, 3);
  fail_unless_equals_int (hdr.length, 1);
  fail_unless_equals_int (hdr.sn_base, 8);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_eos_protects_short_segment)
{
  GstHarness *h, *fec;
  TpssFecHeader hdr;

  setup (&h, &fec, "packet-distance=4 subsegment-length=5 ssrc=5");
  for (guint i = 0; i < 6; i++)
    gst_harness_push (h, make_rtp (i, 80));
  fail_unless_equals_int (gst_harness_buffers_received (fec), 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  fail_unless_equals_int (gst_harness_buffers_received (fec), 4);
  hdr = pull_parity (fec, 100, 5);
  fail_unless_equals_int (hdr.count, 6);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_not_rtp_passes_unprotected)
{
  GstHarness *h, *fec;
  GstBuffer *junk = gst_buffer_new_allocate (NULL, 5, NULL);

  setup (&h, &fec, "packet-distance=1 subsegment-length=1");
  gst_buffer_memset (junk, 0, 0xff, 5);
  fail_unless_equals_int (gst_harness_push (h, junk), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  fail_unless_equals_int (gst_harness_buffers_received (fec), 0);
  fail_unless_equals_int (check_stat_u64 (h->element, "malformed"), 1);
  gst_harness_push (h, make_rtp (1, 10));
  fail_unless_equals_int (gst_harness_buffers_received (fec), 1);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_no_parity_when_length_zero)
{
  GstHarness *h, *fec;

  setup (&h, &fec, "packet-distance=2 subsegment-length=0");
  for (guint i = 0; i < 10; i++)
    gst_harness_push (h, make_rtp (i, 10));
  fail_unless_equals_int (gst_harness_buffers_received (h), 10);
  fail_unless_equals_int (gst_harness_buffers_received (fec), 0);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A buffer list of header + payload memories (as payloaders push them):
 * media goes on as a list, parity equals the core's over the merged bytes. */
GST_START_TEST (test_list_of_split_buffers)
{
  GstHarness *h, *fec;
  GstBufferList *list = gst_buffer_list_new ();
  TpssFecEncoder *ref = tpss_fec_encoder_new (4, 3);
  GPtrArray *expected = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  const guint8 *p;
  gsize len;

  setup (&h, &fec, "packet-distance=4 subsegment-length=3 ssrc=0");
  for (guint i = 0; i < 12; i++) {
    GstBuffer *whole = make_rtp (900 + i, 40 + 7 * i), *split;
    GstMapInfo map;

    gst_buffer_map (whole, &map, GST_MAP_READ);
    tpss_fec_encoder_add (ref, map.data, map.size, NULL);
    while (tpss_fec_encoder_pop (ref, &p, &len, NULL))
      g_ptr_array_add (expected, g_bytes_new (p, len));
    split = gst_buffer_new ();
    gst_buffer_append_memory (split, gst_memory_share (gst_buffer_peek_memory
            (whole, 0), 0, 12));
    gst_buffer_append_memory (split, gst_memory_share (gst_buffer_peek_memory
            (whole, 0), 12, map.size - 12));
    gst_buffer_unmap (whole, &map);
    gst_buffer_unref (whole);
    fail_unless_equals_int (gst_buffer_n_memory (split), 2);
    gst_buffer_list_add (list, split);
  }
  fail_unless_equals_int (gst_pad_push_list (h->srcpad, list), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 12);
  fail_unless_equals_int (gst_harness_buffers_received (fec), 4);
  fail_unless_equals_int (expected->len, 4);
  for (guint j = 0; j < 4; j++) {
    GstBuffer *buf = gst_harness_pull (fec);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    GBytes *want = g_ptr_array_index (expected, j);

    fail_unless (gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp));
    fail_unless_equals_int (gst_rtp_buffer_get_payload_len (&rtp),
        g_bytes_get_size (want));
    fail_unless (memcmp (gst_rtp_buffer_get_payload (&rtp),
            g_bytes_get_data (want, NULL), g_bytes_get_size (want)) == 0);
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (buf);
  }
  g_ptr_array_unref (expected);
  tpss_fec_encoder_free (ref);
  gst_harness_teardown (fec);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_inspect_documents_stats)
{
  check_inspect_docs ("tpssfecenc");
}

GST_END_TEST;

static Suite *
tpssfecenc_suite (void)
{
  Suite *s = suite_create ("tpssfecenc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_media_untouched_parity_after_segment);
  tcase_add_test (tc, test_geometry_changes_while_playing);
  tcase_add_test (tc, test_eos_protects_short_segment);
  tcase_add_test (tc, test_not_rtp_passes_unprotected);
  tcase_add_test (tc, test_no_parity_when_length_zero);
  tcase_add_test (tc, test_list_of_split_buffers);
  tcase_add_test (tc, test_inspect_documents_stats);
  return s;
}

GST_CHECK_MAIN (tpssfecenc);
