/* Unit tests of RMTP's group key and amplification limits, on the rig of
 * the core tests (rmtprig.h), in exact simulated time, with an attacker
 * that injects datagrams at either side.
 *
 * - With a key, every control datagram is the unkeyed one plus the trailer,
 *   DATA is unchanged, and the transfer is the same.
 * - Unsealed, truncated, altered, foreign-keyed and replayed control is
 *   counted by verdict at both sides and changes nothing; forged DATA
 *   (media, not sealed) fails the sealed CONN's digest.
 * - A NACK storm never makes the server send faster than its rate, and no
 *   round sends a packet twice; NACKs whose ranges overlap are refused.
 * - A POLL storm gets at most one answer per `tat` from a receiver, and a
 *   forged answer window cannot put its answer off.
 * - One REPORT a period from each representative. */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "rmtpcore.h"
#include "rmtprig.h"
#include "core/wire.h"

#define SESSION 0xC0FFEE        /* the rig's */

static void
test_key (AuthKey * k, guint8 first)
{
  for (guint i = 0; i < AUTH_KEY_SIZE; i++)
    k->bytes[i] = first + i;
}

static void
default_config (RmtpConfig * cfg)
{
  rmtp_config_init (cfg);
  cfg->packet_size = 512;
  cfg->rate = 1000000;
}

/* The last datagram of @type in @log from or to receiver @rx (-1: any). */
static GBytes *
last_logged (GArray * log, RmtpType type, gint rx)
{
  for (guint i = log->len; i > 0; i--) {
    Logged *l = &g_array_index (log, Logged, i - 1);

    if (l->p.type == type && (rx < 0 || l->rx == rx))
      return l->bytes;
  }
  return NULL;
}

/* ------------------------------------------------------------------ */
/* The key */

/* What receiver @rx (-1: the server) sent, in order, is the same in both
 * logs but for the trailer of each control packet. */
static void
assert_same_but_trailer (GArray * plain, GArray * keyed, gint rx)
{
  guint i = 0, j = 0;

  for (;;) {
    Logged *a = NULL, *b = NULL;
    gsize la, lb;
    const guint8 *da, *db;

    for (; i < plain->len && !a; i++)
      if (g_array_index (plain, Logged, i).rx == rx)
        a = &g_array_index (plain, Logged, i);
    for (; j < keyed->len && !b; j++)
      if (g_array_index (keyed, Logged, j).rx == rx)
        b = &g_array_index (keyed, Logged, j);
    fail_unless ((a == NULL) == (b == NULL), "side %d: counts differ", rx);
    if (!a)
      return;
    da = g_bytes_get_data (a->bytes, &la);
    db = g_bytes_get_data (b->bytes, &lb);
    fail_unless_equals_int (da[3], db[3]);
    fail_unless_equals_uint64 (lb, la + (da[3] == RMTP_DATA ||
            da[3] == RMTP_PARITY ? 0 : AUTH_TRAILER_SIZE));
    fail_unless (memcmp (da, db, la) == 0);
  }
}

GST_START_TEST (test_keyed_bytes_are_unkeyed_plus_trailer)
{
  Rig plain, keyed;
  RmtpConfig cfg;
  AuthStats st;

  default_config (&cfg);
  rig_init (&plain, 2, 20000, &cfg);
  rig_init (&keyed, 2, 20000, &cfg);
  rig_set_key (&keyed);
  rig_start_and_run (&plain, 10 * S);
  rig_start_and_run (&keyed, 10 * S);
  fail_unless (plain.server_done && keyed.server_done);
  for (guint i = 0; i < 2; i++)
    assert_receiver_whole (&keyed, i);
  assert_same_but_trailer (plain.from_server, keyed.from_server, -1);
  assert_same_but_trailer (plain.to_server, keyed.to_server, 0);
  assert_same_but_trailer (plain.to_server, keyed.to_server, 1);
  fail_if (rmtp_server_auth_stats (plain.s, &st));
  fail_unless (rmtp_server_auth_stats (keyed.s, &st));
  /* 2 x (CACK, ACK, RACK) */
  fail_unless_equals_uint64 (st.accepted, 6);
  fail_unless_equals_uint64 (st.sealed, rmtp_server_stats (keyed.s)->
      datagrams_sent - rmtp_server_stats (keyed.s)->data_sent);
  fail_unless_equals_int (st.senders, 2);
  rig_clear (&plain);
  rig_clear (&keyed);
}

GST_END_TEST;

/* A response from member @member of the rig, as its body says. */
static gsize
write_member_packet (guint8 * buf, gsize max, RmtpType type, guint32 member,
    const guint32 * extra, guint n_extra)
{
  WireWriter w;

  wire_writer_init (&w, buf, max);
  wire_write_u16 (&w, 0x524d);
  wire_write_u8 (&w, RMTP_VERSION);
  wire_write_u8 (&w, type);
  wire_write_u32 (&w, SESSION);
  wire_write_u32 (&w, member);
  for (guint i = 0; i < n_extra; i++)
    wire_write_u32 (&w, extra[i]);
  return w.pos;
}

GST_START_TEST (test_keyed_server_refuses_forged_and_replayed)
{
  Rig rig;
  RmtpConfig cfg;
  RmtpServerStats before;
  AuthStats st;
  AuthKey other;
  AuthSession *stranger;
  guint8 buf[128];
  guint32 nack[] = { 0, 1, 0, 39 };
  guint32 round0 = 0;
  gsize len;
  GBytes *cack;

  default_config (&cfg);
  rig_init (&rig, 2, 20000, &cfg);
  rig_set_key (&rig);
  rig_start_and_run (&rig, 100 * MS);
  fail_unless_equals_int (rmtp_server_phase (rig.s), RMTP_SERVER_ROUNDS);
  before = *rmtp_server_stats (rig.s);
  /* unsealed: a NACK of everything (bad tag), an ACK (too short) */
  len = write_member_packet (buf, sizeof (buf), RMTP_NACK, 100, nack, 4);
  rmtp_server_handle (rig.s, 100, buf, len, rig.now);
  len = write_member_packet (buf, sizeof (buf), RMTP_ACK, 101, &round0, 1);
  rmtp_server_handle (rig.s, 101, buf, len, rig.now);
  /* sealed under another key */
  test_key (&other, 9);
  stranger = auth_session_new (&other, 1234, 4);
  len = write_member_packet (buf, sizeof (buf), RMTP_BUSY, 100, NULL, 0);
  len = auth_seal (stranger, buf, len, sizeof (buf));
  rmtp_server_handle (rig.s, 100, buf, len, rig.now);
  auth_session_free (stranger);
  /* a receiver's CACK again, from its own address and from another */
  cack = last_logged (rig.to_server, RMTP_CACK, 0);
  fail_unless_equals_int (rmtp_server_handle (rig.s, 0, g_bytes_get_data (cack,
              NULL), g_bytes_get_size (cack), rig.now), 0);
  rmtp_server_handle (rig.s, 100, g_bytes_get_data (cack, NULL),
      g_bytes_get_size (cack), rig.now);
  fail_unless (rmtp_server_auth_stats (rig.s, &st));
  fail_unless_equals_uint64 (st.bad_tag, 2);
  fail_unless_equals_uint64 (st.truncated, 1);
  fail_unless_equals_uint64 (st.replayed, 2);
  /* nothing reached the core: the same counters, no BUSY receiver */
  fail_unless (memcmp (&before, rmtp_server_stats (rig.s),
          sizeof (before)) == 0);
  rig_run (&rig, 10 * S);
  fail_unless (rig.server_done);
  assert_receiver_whole (&rig, 0);
  assert_receiver_whole (&rig, 1);
  fail_unless_equals_uint64 (rmtp_server_stats (rig.s)->data_resent, 0);
  fail_unless_equals_int (rmtp_server_stats (rig.s)->slow_receivers, 0);
  rig_clear (&rig);
}

GST_END_TEST;

/* The first sound CACK from an unknown source binds its member, once; an
 * unsealed one binds nothing. */
GST_START_TEST (test_keyed_cack_binds_member)
{
  RmtpConfig cfg;
  RandomSeeded seeded;
  RandomSource rng;
  guint32 ids[] = { 10, 11 };
  GBytes *data = g_bytes_new_static ("0123456789", 10);
  RmtpServer *s;
  AuthKey k;
  AuthSession *member;
  guint8 buf[64];
  gsize len;
  AuthStats st;

  default_config (&cfg);
  random_source_init_seeded (&rng, &seeded, 5);
  s = rmtp_server_new (&cfg, SESSION, ids, 2, data, &rng);
  test_key (&k, 1);
  rmtp_server_set_key (s, &k);
  member = auth_session_new (&k, 99, 4);
  rmtp_server_start (s, 0);
  len = write_member_packet (buf, sizeof (buf), RMTP_CACK, 11, NULL, 0);
  buf[len++] = 1;
  fail_unless_equals_int (rmtp_server_handle (s, 0, buf, len, 0), 0);
  len = auth_seal (member, buf, len, sizeof (buf));
  fail_unless_equals_int (rmtp_server_handle (s, 0, buf, len, 0), 11);
  /* a second sound CACK for 11 from an unknown source binds nothing */
  len = write_member_packet (buf, sizeof (buf), RMTP_CACK, 11, NULL, 0);
  buf[len++] = 1;
  len = auth_seal (member, buf, len, sizeof (buf));
  fail_unless_equals_int (rmtp_server_handle (s, 0, buf, len, 0), 0);
  fail_unless_equals_uint64 (rmtp_server_stats (s)->in.forged, 1);
  rmtp_server_auth_stats (s, &st);
  fail_unless_equals_uint64 (st.truncated, 1);
  fail_unless_equals_uint64 (st.accepted, 2);
  auth_session_free (member);
  rmtp_server_free (s);
  g_bytes_unref (data);
}

GST_END_TEST;

GST_START_TEST (test_keyed_receiver_refuses_forged_and_replayed)
{
  Rig rig;
  RmtpConfig cfg;
  RmtpReceiverStats before;
  AuthStats st;
  guint8 buf[64];
  guint32 poll[] = { 0, 0 };
  gsize len;
  GBytes *eor;
  guint8 *altered;

  default_config (&cfg);
  rig_init (&rig, 1, 20000, &cfg);
  rig_set_key (&rig);
  rig_start_and_run (&rig, 400 * MS);
  eor = last_logged (rig.from_server, RMTP_EOR, -1);
  fail_unless (eor != NULL);
  before = *rmtp_receiver_stats (rig.r[0]);
  /* a POLL, unsealed; cut to a trailer's length; the EOR again */
  len = write_member_packet (buf, sizeof (buf), RMTP_POLL, 100, poll, 2);
  rmtp_receiver_handle (rig.r[0], buf, len, rig.now);
  rmtp_receiver_handle (rig.r[0], buf, AUTH_TRAILER_SIZE - 1, rig.now);
  for (guint i = 0; i < 3; i++)
    rmtp_receiver_handle (rig.r[0], g_bytes_get_data (eor, NULL),
        g_bytes_get_size (eor), rig.now);
  /* the EOR with its round changed */
  altered = g_memdup2 (g_bytes_get_data (eor, NULL), g_bytes_get_size (eor));
  altered[11] ^= 1;
  rmtp_receiver_handle (rig.r[0], altered, g_bytes_get_size (eor), rig.now);
  g_free (altered);
  fail_unless (rmtp_receiver_auth_stats (rig.r[0], &st));
  fail_unless_equals_uint64 (st.bad_tag, 1);
  fail_unless_equals_uint64 (st.truncated, 2);
  fail_unless_equals_uint64 (st.replayed, 3);
  fail_unless (memcmp (&before, rmtp_receiver_stats (rig.r[0]),
          sizeof (before)) == 0);
  rig_run (&rig, rig.now + 2 * S);
  assert_receiver_whole (&rig, 0);
  fail_unless (rig.server_done);
  fail_unless_equals_uint64 (rmtp_receiver_stats (rig.r[0])->ack_sent, 1);
  rig_clear (&rig);
}

GST_END_TEST;

/* DATA is not sealed: a forged DATA packet taken before the real one is
 * found by the digest of the sealed CONN, and the receiver fails
 * (RMTP_FAIL_DIGEST) instead of completing. */
GST_START_TEST (test_keyed_forged_data_fails_digest)
{
  Rig rig;
  RmtpConfig cfg;
  guint8 buf[RMTP_HEADER_SIZE + 9 + 512];
  WireWriter w;

  default_config (&cfg);
  rig_init (&rig, 2, 20000, &cfg);
  rig_set_key (&rig);
  rig_start_and_run (&rig, 20 * MS);
  wire_writer_init (&w, buf, sizeof (buf));
  wire_write_u16 (&w, 0x524d);
  wire_write_u8 (&w, RMTP_VERSION);
  wire_write_u8 (&w, RMTP_DATA);
  wire_write_u32 (&w, SESSION);
  wire_write_u32 (&w, 0);
  wire_write_u32 (&w, 30);
  wire_write_u8 (&w, 0);
  memset (buf + w.pos, 0xAA, 512);
  rmtp_receiver_handle (rig.r[0], buf, sizeof (buf), rig.now);
  rig_run (&rig, 30 * S);
  fail_unless_equals_int (rig.failed[0], RMTP_FAIL_DIGEST);
  fail_if (rig.done[0]);
  assert_receiver_whole (&rig, 1);
  rig_clear (&rig);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Amplification */

/* Every prefix of the server's output since @t0 is within the rate, with
 * at most one datagram ahead (the pacer lets one go when not in debt). */
static void
assert_within_rate (Rig * rig, gint64 t0, guint64 rate)
{
  guint64 bytes = 0, worst = 0;

  for (guint i = 0; i < rig->from_server->len; i++) {
    Logged *l = &g_array_index (rig->from_server, Logged, i);
    guint64 allowed;

    if (l->time < t0)
      continue;
    allowed = (guint64) ((l->time - t0) * (gdouble) rate / 8e9);
    fail_unless (bytes <= allowed + 1600, "%" G_GUINT64_FORMAT " bytes "
        "by %" G_GINT64_FORMAT " ns, %" G_GUINT64_FORMAT " allowed", bytes,
        l->time - t0, allowed);
    worst = MAX (worst, bytes > allowed ? bytes - allowed : 0);
    bytes += g_bytes_get_size (l->bytes);
  }
  GST_INFO ("%" G_GUINT64_FORMAT " bytes sent, at most %" G_GUINT64_FORMAT
      " ahead of the rate", bytes, worst);
}

/* No DATA of one round is sent twice. */
static void
assert_no_packet_twice_a_round (Rig * rig)
{
  GHashTable *seen = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, NULL);

  for (guint i = 0; i < rig->from_server->len; i++) {
    Logged *l = &g_array_index (rig->from_server, Logged, i);
    gint64 *key;

    if (l->p.type != RMTP_DATA)
      continue;
    key = g_new (gint64, 1);
    *key = ((gint64) l->p.round << 32) | l->p.seq;
    fail_if (g_hash_table_contains (seen, key), "round %u seq %u twice",
        l->p.round, l->p.seq);
    g_hash_table_add (seen, key);
  }
  g_hash_table_destroy (seen);
}

/* From every member, every ms: a NACK of the whole set, one of 512
 * overlapping ranges of it, for the round under way. */
static void
flood_nacks (Rig * rig, guint32 n_packets)
{
  guint32 round = rmtp_server_stats (rig->s)->rounds - 1;
  guint32 whole[] = { round, 1, 0, n_packets };
  guint32 *overlap = g_new (guint32, 2 + 2 * RMTP_MAX_RANGES);
  gsize max = RMTP_HEADER_SIZE + 12 + 8 * RMTP_MAX_RANGES;
  guint8 *buf = g_malloc (max);
  gsize len;

  overlap[0] = round;
  overlap[1] = RMTP_MAX_RANGES;
  for (guint i = 0; i < RMTP_MAX_RANGES; i++) {
    overlap[2 + 2 * i] = 0;
    overlap[3 + 2 * i] = n_packets;
  }
  for (guint i = 0; i < rig->n; i++) {
    len = write_member_packet (buf, max, RMTP_NACK, rig->ids[i], whole, 4);
    rmtp_server_handle (rig->s, rig->ids[i], buf, len, rig->now);
    len = write_member_packet (buf, max, RMTP_NACK, rig->ids[i], overlap,
        2 + 2 * RMTP_MAX_RANGES);
    rmtp_server_handle (rig->s, rig->ids[i], buf, len, rig->now);
  }
  g_free (overlap);
  g_free (buf);
}

/* Without a key, NACKs forged with the members' ids (or sent by a member)
 * every ms for 4 s: each round resends the whole set, but never faster
 * than the rate and never a packet twice in a round; once the storm ends
 * the transfer completes. */
GST_START_TEST (test_nack_storm_within_rate)
{
  Rig rig;
  RmtpConfig cfg;
  const RmtpServerStats *st;
  guint32 n_packets = 40;
  gint64 t0;

  default_config (&cfg);
  rig_init (&rig, 3, 512 * n_packets, &cfg);
  rig_start_and_run (&rig, 80 * MS);
  fail_unless_equals_int (rmtp_server_phase (rig.s), RMTP_SERVER_ROUNDS);
  t0 = rig.now;
  while (rig.now < t0 + 4 * S) {
    flood_nacks (&rig, n_packets);
    rig_run_until (&rig, rig.now + MS);
  }
  st = rmtp_server_stats (rig.s);
  GST_INFO ("storm: %u rounds, %" G_GUINT64_FORMAT " DATA resent, %"
      G_GUINT64_FORMAT " overlapping NACKs", st->rounds, st->data_resent,
      st->nacks_overlapping);
  fail_unless (st->rounds >= 3);
  fail_unless (st->data_resent >= n_packets);
  fail_unless (st->nacks_overlapping >= 3 * 3900);
  fail_unless (st->in.late > 0);
  assert_within_rate (&rig, 0, cfg.rate);
  assert_no_packet_twice_a_round (&rig);
  rig_run (&rig, rig.now + 60 * S);
  fail_unless (rig.server_done);
  for (guint i = 0; i < rig.n; i++)
    assert_receiver_whole (&rig, i);
  rig_clear (&rig);
}

GST_END_TEST;

/* With a key the same storm is refused at the door: the transfer takes as
 * long as without it and resends nothing. */
GST_START_TEST (test_keyed_nack_storm_refused)
{
  Rig quiet, rig;
  RmtpConfig cfg;
  AuthStats st;
  guint32 n_packets = 40;

  default_config (&cfg);
  rig_init (&quiet, 3, 512 * n_packets, &cfg);
  rig_set_key (&quiet);
  rig_start_and_run (&quiet, 60 * S);
  rig_init (&rig, 3, 512 * n_packets, &cfg);
  rig_set_key (&rig);
  rig_start_and_run (&rig, 80 * MS);
  while (!rig.server_done && rig.now < 60 * S) {
    flood_nacks (&rig, n_packets);
    rig_run_until (&rig, rig.now + MS);
  }
  fail_unless (rig.server_done);
  /* the same datagrams at the same times */
  fail_unless_equals_int (rig.from_server->len, quiet.from_server->len);
  fail_unless_equals_int64 (g_array_index (rig.from_server, Logged,
          rig.from_server->len - 1).time, g_array_index (quiet.from_server,
          Logged, quiet.from_server->len - 1).time);
  fail_unless_equals_uint64 (rmtp_server_stats (rig.s)->data_resent, 0);
  fail_unless_equals_uint64 (rmtp_server_stats (rig.s)->nacks_overlapping,
      0);
  rmtp_server_auth_stats (rig.s, &st);
  fail_unless (st.bad_tag >= 6 * 100);
  assert_within_rate (&rig, 0, cfg.rate);
  rig_clear (&quiet);
  rig_clear (&rig);
}

GST_END_TEST;

static guint
count_answers (Rig * rig, gint rx)
{
  return count_logged (rig->to_server, RMTP_NACK, rx) +
      count_logged (rig->to_server, RMTP_ACK, rx);
}

/* POLLs for receiver 100 every ms for 1 s, with a window of an hour: it
 * answers at most once per tat, and never later than its largest real
 * window. */
GST_START_TEST (test_poll_storm_answered_once_per_tat)
{
  Rig rig;
  RmtpConfig cfg;
  guint8 buf[64];
  guint32 poll[] = { 0, G_MAXUINT32 };
  guint answers, polls = 0;
  gsize len;
  gint64 t0;

  default_config (&cfg);
  cfg.rate = 100000;            /* round 0 takes 1.7 s */
  rig_init (&rig, 2, 20000, &cfg);
  rig_start_and_run (&rig, 60 * MS);
  fail_unless (rmtp_receiver_state (rig.r[0]) == RMTP_RECEIVER_RECEIVING);
  answers = count_answers (&rig, 0);
  t0 = rig.now;
  while (rig.now < t0 + S) {
    len = write_member_packet (buf, sizeof (buf), RMTP_POLL, 100, poll, 2);
    rmtp_receiver_handle (rig.r[0], buf, len, rig.now);
    polls++;
    rig_run_until (&rig, rig.now + MS);
  }
  answers = count_answers (&rig, 0) - answers;
  GST_INFO ("%u POLLs, %u answers, %" G_GUINT64_FORMAT " held", polls,
      answers, rmtp_receiver_stats (rig.r[0])->polls_held);
  /* 1 s / tat (100 ms), one more for the start, and the real EOR's */
  fail_unless (answers <= 12, "%u answers", answers);
  fail_unless (answers >= 2);
  fail_unless (rmtp_receiver_stats (rig.r[0])->polls_held >= polls - 12);
  /* the forged window did not put off the silence limit or the answers */
  fail_unless (rmtp_receiver_next_deadline (rig.r[0]) < rig.now + 31 * S);
  rig_run (&rig, rig.now + 30 * S);
  fail_unless (rig.server_done);
  assert_receiver_whole (&rig, 0);
  assert_receiver_whole (&rig, 1);
  rig_clear (&rig);
}

GST_END_TEST;

/* A representative's REPORT counts once a period, however often it comes. */
GST_START_TEST (test_report_once_a_period)
{
  Rig rig;
  RmtpConfig cfg;
  guint8 buf[64];
  gsize len;
  guint64 dup;
  guint32 body[2] = { 0, 8 };
  gboolean stop = FALSE;

  default_config (&cfg);
  cfg.rate_control = TRUE;
  cfg.monitor_packets = 8;
  rig_init (&rig, 2, 512 * 40, &cfg);
  rmtp_server_start (rig.s, 0);
  /* until the first STOP is out */
  while (!stop) {
    rig_run_until (&rig, rig.now + MS);
    for (guint i = 0; i < rig.from_server->len && !stop; i++) {
      Logged *l = &g_array_index (rig.from_server, Logged, i);

      stop = l->p.type == RMTP_DATA && (l->p.flags & RMTP_FLAG_STOP);
      body[0] = l->p.seq;
    }
  }
  dup = rmtp_server_stats (rig.s)->in.duplicates;
  for (guint i = 0; i < 50; i++) {
    len = write_member_packet (buf, sizeof (buf), RMTP_REPORT, 101, body, 2);
    rmtp_server_handle (rig.s, 101, buf, len, rig.now);
  }
  fail_unless (rmtp_server_stats (rig.s)->in.duplicates >= dup + 49);
  rig_run (&rig, 30 * S);
  fail_unless (rig.server_done);
  rig_clear (&rig);
}

GST_END_TEST;

static Suite *
rmtpauth_suite (void)
{
  Suite *s = suite_create ("rmtpauth");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_keyed_bytes_are_unkeyed_plus_trailer);
  tcase_add_test (tc, test_keyed_server_refuses_forged_and_replayed);
  tcase_add_test (tc, test_keyed_cack_binds_member);
  tcase_add_test (tc, test_keyed_receiver_refuses_forged_and_replayed);
  tcase_add_test (tc, test_keyed_forged_data_fails_digest);
  tcase_add_test (tc, test_nack_storm_within_rate);
  tcase_add_test (tc, test_keyed_nack_storm_refused);
  tcase_add_test (tc, test_poll_storm_answered_once_per_tat);
  tcase_add_test (tc, test_report_once_a_period);
  return s;
}

GST_CHECK_MAIN (rmtpauth);
