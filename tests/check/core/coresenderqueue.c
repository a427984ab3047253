/* Unit tests of gst/common/core/senderqueue.h: the byte bound, whole-ADU
 * drops under both policies and the renumbering that hides them. */
#include <gst/check/gstcheck.h>

#include "core/senderqueue.h"

static guint freed;

static void
count_free (gpointer p)
{
  freed++;
}

/* Offers frame @frame (timestamp 1000 * @frame) as @n packets of @bytes,
 * sequence numbers from *@seq, marker on the last; returns how many were
 * queued. */
static guint
push_frame (SenderQueue * q, guint frame, guint n, guint bytes, guint16 * seq)
{
  guint queued = 0;

  for (guint i = 0; i < n; i++) {
    queued += sender_queue_push (q, GUINT_TO_POINTER (frame * 100 + i + 1),
        bytes, *seq, 1000 * frame, i == n - 1);
    (*seq)++;
  }
  return queued;
}

/* Pops everything: the sequence numbers must run on from *@next with no
 * gap; returns the packets' frame numbers in @frames. */
static guint
pop_all (SenderQueue * q, guint16 * next, guint * frames)
{
  gpointer p;
  guint16 seq;
  guint n = 0;

  while ((p = sender_queue_pop (q, &seq, NULL))) {
    fail_unless_equals_int (seq, *next);
    (*next)++;
    frames[n++] = GPOINTER_TO_UINT (p) / 100;
  }
  return n;
}

GST_START_TEST (test_drop_newest_adu)
{
  SenderQueue q;
  guint16 seq = 65530, next = 65530;
  guint frames[32];

  freed = 0;
  sender_queue_init (&q, SENDER_QUEUE_DROP_NEWEST, 3500, count_free);
  fail_unless_equals_int (push_frame (&q, 1, 3, 1000, &seq), 3);
  /* frame 2 does not fit whole at its start: all 3 packets go */
  fail_unless_equals_int (push_frame (&q, 2, 3, 1000, &seq), 0);
  fail_unless_equals_int (freed, 3);
  fail_unless_equals_uint64 (q.dropped_adus, 1);
  fail_unless_equals_uint64 (q.dropped_packets, 3);
  /* frame 1 leaves, frame 3 fits: numbered on across the wrap as if frame 2
   * never existed */
  fail_unless_equals_int (pop_all (&q, &next, frames), 3);
  fail_unless_equals_int (push_frame (&q, 3, 2, 1000, &seq), 2);
  fail_unless_equals_int (pop_all (&q, &next, frames), 2);
  fail_unless (frames[0] == 3 && frames[1] == 3);
  fail_unless_equals_int (next, (guint16) (65530 + 5));
  sender_queue_clear (&q);
}

GST_END_TEST;

GST_START_TEST (test_drop_newest_decided_at_adu_start)
{
  SenderQueue q;
  guint16 seq = 100, next = 100;
  guint frames[32];

  freed = 0;
  sender_queue_init (&q, SENDER_QUEUE_DROP_NEWEST, 2500, count_free);
  /* no markers: a new timestamp starts the next ADU. Frame 1 fits at its
   * start, so all of it stays though it ends over the bound */
  for (guint i = 0; i < 3; i++)
    fail_unless (sender_queue_push (&q, GUINT_TO_POINTER (101 + i), 1000,
            seq++, 1000, FALSE));
  fail_unless_equals_uint64 (q.bytes, 3000);
  /* frame 2 starts over the bound: refused to its end, however much room
   * the pops in between make */
  fail_if (sender_queue_push (&q, GUINT_TO_POINTER (201), 10, seq++, 2000,
          FALSE));
  fail_unless_equals_int (pop_all (&q, &next, frames), 3);
  fail_if (sender_queue_push (&q, GUINT_TO_POINTER (202), 10, seq++, 2000,
          TRUE));
  fail_unless_equals_uint64 (q.dropped_adus, 1);
  fail_unless_equals_uint64 (q.dropped_packets, 2);
  fail_unless_equals_int (freed, 2);
  /* frame 3 follows frame 1 with no gap */
  fail_unless (sender_queue_push (&q, GUINT_TO_POINTER (301), 10, seq++,
          3000, TRUE));
  fail_unless_equals_int (pop_all (&q, &next, frames), 1);
  fail_unless_equals_int (frames[0], 3);
  fail_unless_equals_int (next, 104);
  sender_queue_clear (&q);
}

GST_END_TEST;

GST_START_TEST (test_drop_oldest_adu)
{
  SenderQueue q;
  guint16 seq = 100, next = 100;
  guint frames[32], n;

  freed = 0;
  sender_queue_init (&q, SENDER_QUEUE_DROP_OLDEST, 4500, count_free);
  push_frame (&q, 1, 2, 1000, &seq);
  push_frame (&q, 2, 2, 1000, &seq);
  /* frame 3 needs room for its 3 packets: frame 1 goes as it arrives, and
   * for its third packet frame 2 goes too */
  fail_unless_equals_int (push_frame (&q, 3, 3, 1000, &seq), 3);
  fail_unless_equals_uint64 (q.dropped_adus, 2);
  fail_unless_equals_int (freed, 4);
  fail_unless_equals_uint64 (q.bytes, 3000);
  /* what is left is renumbered from where frame 1 began */
  n = pop_all (&q, &next, frames);
  fail_unless_equals_int (n, 3);
  fail_unless (frames[0] == 3 && frames[2] == 3);
  /* and later packets follow on */
  push_frame (&q, 4, 1, 1000, &seq);
  fail_unless_equals_int (pop_all (&q, &next, frames), 1);
  fail_unless_equals_int (next, 104);
  sender_queue_clear (&q);
}

GST_END_TEST;

GST_START_TEST (test_drop_oldest_partly_sent_and_oversized)
{
  SenderQueue q;
  guint16 seq = 0, next = 0, s;
  guint frames[32];

  freed = 0;
  sender_queue_init (&q, SENDER_QUEUE_DROP_OLDEST, 3000, count_free);
  push_frame (&q, 1, 3, 1000, &seq);
  /* one packet of frame 1 left: its rest is dropped for frame 2 */
  fail_unless (sender_queue_pop (&q, &s, NULL) && s == next++);
  fail_unless_equals_int (push_frame (&q, 2, 3, 1000, &seq), 3);
  fail_unless_equals_int (freed, 2);
  fail_unless_equals_int (pop_all (&q, &next, frames), 3);
  /* a packet larger than the bound on its own: refused, as the queue
   * holds nothing older to give up */
  fail_unless_equals_int (push_frame (&q, 3, 1, 4000, &seq), 0);
  fail_unless_equals_int (push_frame (&q, 4, 1, 1000, &seq), 1);
  fail_unless_equals_int (pop_all (&q, &next, frames), 1);
  fail_unless_equals_int (next, 5);
  fail_unless_equals_int (seq, 8);
  sender_queue_clear (&q);
}

GST_END_TEST;

GST_START_TEST (test_drop_packet)
{
  SenderQueue q;
  guint16 seq = 0, next = 0;
  guint frames[32];

  freed = 0;
  sender_queue_init (&q, SENDER_QUEUE_DROP_PACKET, 2500, count_free);
  /* the third packet of frame 1 does not fit: it alone goes, and the
   * first of frame 2 is as welcome as any once there is room */
  fail_unless_equals_int (push_frame (&q, 1, 3, 1000, &seq), 2);
  fail_unless_equals_int (freed, 1);
  fail_unless_equals_uint64 (q.dropped_packets, 1);
  fail_unless_equals_int (pop_all (&q, &next, frames), 2);
  fail_unless_equals_int (push_frame (&q, 2, 1, 1000, &seq), 1);
  fail_unless_equals_int (pop_all (&q, &next, frames), 1);
  fail_unless_equals_int (next, 3);
  sender_queue_clear (&q);
}

GST_END_TEST;

GST_START_TEST (test_flush_and_no_bound)
{
  SenderQueue q;
  guint16 seq = 7, next = 7;
  guint frames[32];

  freed = 0;
  sender_queue_init (&q, SENDER_QUEUE_DROP_NEWEST, 0, count_free);
  fail_unless_equals_int (push_frame (&q, 1, 20, 60000, &seq), 20);
  fail_unless_equals_int (sender_queue_length (&q), 20);
  fail_unless (sender_queue_pop (&q, NULL, NULL));
  next++;
  sender_queue_flush (&q);
  fail_unless_equals_int (freed, 19);
  fail_unless_equals_uint64 (q.flushed_packets, 19);
  fail_unless_equals_int (push_frame (&q, 2, 1, 10, &seq), 1);
  fail_unless_equals_int (pop_all (&q, &next, frames), 1);
  fail_unless (sender_queue_peek (&q, NULL, NULL) == NULL);
  sender_queue_clear (&q);
}

GST_END_TEST;

static Suite *
coresenderqueue_suite (void)
{
  Suite *s = suite_create ("coresenderqueue");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_drop_newest_adu);
  tcase_add_test (tc, test_drop_newest_decided_at_adu_start);
  tcase_add_test (tc, test_drop_oldest_adu);
  tcase_add_test (tc, test_drop_oldest_partly_sent_and_oversized);
  tcase_add_test (tc, test_drop_packet);
  tcase_add_test (tc, test_flush_and_no_bound);
  return s;
}

GST_CHECK_MAIN (coresenderqueue);
