/* Unit tests of gst/common/core/wire.h: the cursors refuse every read and
 * write past the end and remember it. */
#include <gst/check/gstcheck.h>

#include "core/wire.h"

static const guint8 record[15] = {
  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
  0x0d, 0x0e, 0x0f
};

/* u8, u16, u32, u64: 15 bytes; TRUE if all were read. */
static gboolean
read_record (const guint8 * data, gsize len, guint64 * sum)
{
  WireReader r;

  wire_reader_init (&r, data, len);
  *sum = wire_read_u8 (&r);
  *sum += wire_read_u16 (&r);
  *sum += wire_read_u32 (&r);
  *sum += wire_read_u64 (&r);
  return !r.failed;
}

GST_START_TEST (test_reader_values)
{
  WireReader r;

  wire_reader_init (&r, record, sizeof record);
  fail_unless_equals_int (wire_read_u8 (&r), 0x01);
  fail_unless_equals_int (wire_read_u16 (&r), 0x0203);
  fail_unless_equals_uint64 (wire_read_u32 (&r), 0x04050607);
  fail_unless_equals_uint64 (wire_read_u64 (&r),
      G_GUINT64_CONSTANT (0x08090a0b0c0d0e0f));
  fail_unless_equals_int (wire_reader_remaining (&r), 0);
  fail_if (r.failed);
}

GST_END_TEST;

GST_START_TEST (test_reader_refuses_every_truncation)
{
  guint64 sum;

  fail_unless (read_record (record, sizeof record, &sum));
  for (gsize len = 0; len < sizeof record; len++)
    fail_if (read_record (record, len, &sum), "accepted %u bytes",
        (guint) len);
  fail_if (read_record (NULL, 15, &sum));
}

GST_END_TEST;

GST_START_TEST (test_reader_failure_is_sticky)
{
  WireReader r;

  wire_reader_init (&r, record, 3);
  fail_unless_equals_uint64 (wire_read_u32 (&r), 0);
  fail_unless (r.failed);
  /* a later read that would fit still fails: the structure is broken */
  fail_unless_equals_int (wire_read_u8 (&r), 0);
  fail_unless (wire_read_bytes (&r, 1) == NULL);
  fail_unless (r.failed);
  fail_unless_equals_int (r.pos, 0);
  fail_unless (wire_read_bytes (&r, 0) == NULL);
}

GST_END_TEST;

GST_START_TEST (test_writer_refuses_every_overrun)
{
  guint8 buf[16];

  for (gsize max = 0; max <= sizeof record; max++) {
    WireWriter w;

    memset (buf, 0xee, sizeof buf);
    wire_writer_init (&w, buf, max);
    wire_write_u8 (&w, 0x01);
    wire_write_u16 (&w, 0x0203);
    wire_write_u32 (&w, 0x04050607);
    wire_write_u64 (&w, G_GUINT64_CONSTANT (0x08090a0b0c0d0e0f));
    fail_unless_equals_int (w.failed, max < sizeof record);
    /* nothing beyond @max is touched */
    for (gsize i = max; i < sizeof buf; i++)
      fail_unless_equals_int (buf[i], 0xee);
    if (!w.failed)
      fail_unless (memcmp (buf, record, sizeof record) == 0);
  }
}

GST_END_TEST;

GST_START_TEST (test_muldiv)
{
  fail_unless_equals_uint64 (muldiv (G_MAXUINT64, 2, 4), G_MAXUINT64 / 2);
  fail_unless_equals_uint64 (muldiv (G_MAXUINT64, 4, 2), G_MAXUINT64);
  fail_unless_equals_uint64 (muldiv (5, 3, 0), 0);
  fail_unless_equals_uint64 (muldiv (7, 1, 2), 3);
  fail_unless_equals_uint64 (muldiv_ceil (7, 1, 2), 4);
}

GST_END_TEST;

static Suite *
corewire_suite (void)
{
  Suite *s = suite_create ("corewire");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_reader_values);
  tcase_add_test (tc, test_reader_refuses_every_truncation);
  tcase_add_test (tc, test_reader_failure_is_sticky);
  tcase_add_test (tc, test_writer_refuses_every_overrun);
  tcase_add_test (tc, test_muldiv);
  return s;
}

GST_CHECK_MAIN (corewire);
