/* Unit tests of gst/common/core/polled.h: records come out in the order
 * they went in, copied whole; a NULL target discards one. */
#include <gst/check/gstcheck.h>

#include "core/polled.h"

typedef struct
{
  guint type;
  guint64 rate;
  gchar name[5];
} Record;

GST_START_TEST (test_order_and_copy)
{
  GQueue q = G_QUEUE_INIT;
  Record out;

  for (guint i = 0; i < 3; i++) {
    Record *r = polled_push (&q, sizeof (Record));
    /* a new record is zeroed */
    fail_unless (r->type == 0 && r->rate == 0 && r->name[4] == 0);
    r->type = i + 1;
    r->rate = 1000 * (i + 1);
    memcpy (r->name, "abcd", 4);
  }
  fail_unless (polled_pop (&q, &out, sizeof out));
  fail_unless (out.type == 1 && out.rate == 1000);
  fail_unless_equals_string (out.name, "abcd");
  /* discarded unread */
  fail_unless (polled_pop (&q, NULL, sizeof out));
  fail_unless (polled_pop (&q, &out, sizeof out));
  fail_unless (out.type == 3 && out.rate == 3000);
  fail_if (polled_pop (&q, &out, sizeof out));
  fail_unless (out.type == 3);
  polled_push (&q, sizeof (Record));
  polled_clear (&q);
  fail_unless (g_queue_is_empty (&q));
}

GST_END_TEST;

static Suite *
corepolled_suite (void)
{
  Suite *s = suite_create ("corepolled");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_order_and_copy);
  return s;
}

GST_CHECK_MAIN (corepolled);
