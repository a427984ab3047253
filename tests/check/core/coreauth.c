/* Unit tests of gst/common/core/auth.h in simulated time: keys from hex
 * and passphrases (RFC 7914's PBKDF2 vector), the trailer's bytes, every
 * altered byte and every truncation refused, replays and packets behind
 * the window refused while reordering within it is accepted, another key
 * refused, and the bound on senders kept by evicting the least recently
 * seen. No refused packet moves a window. */
#include <gst/check/gstcheck.h>

#include "core/auth.h"
#include "core/wire.h"

#define MS (G_GINT64_CONSTANT (1000000))

static void
key_of_bytes (AuthKey * k, guint8 first)
{
  for (guint i = 0; i < AUTH_KEY_SIZE; i++)
    k->bytes[i] = first + i;
}

static void
hex_to_bytes (const gchar * hex, guint8 * out, gsize n)
{
  for (gsize i = 0; i < n; i++)
    out[i] = (g_ascii_xdigit_value (hex[2 * i]) << 4) |
        g_ascii_xdigit_value (hex[2 * i + 1]);
}

static AuthSession *
session (guint8 key_first, guint32 id, guint max_senders)
{
  AuthKey k;

  key_of_bytes (&k, key_first);
  return auth_session_new (&k, id, max_senders);
}

/* A sealed packet: @payload_len bytes of @fill and the trailer. */
static gsize
sealed (AuthSession * s, guint8 * buf, gsize payload_len, guint8 fill)
{
  memset (buf, fill, payload_len);
  return auth_seal (s, buf, payload_len, 256);
}

static AuthStats
stats_of (const AuthSession * s)
{
  AuthStats st;

  auth_session_get_stats (s, &st);
  return st;
}

static AuthVerdict
open_packet (AuthSession * s, const guint8 * buf, gsize len, gint64 now)
{
  gsize plen = 0;

  return auth_open (s, buf, len, now, &plen, NULL);
}

/* ------------------------------------------------------------------ */
/* Keys */

/* RFC 7914 11: PBKDF2-HMAC-SHA256 (P = "passwd", S = "salt", c = 1). */
GST_START_TEST (test_pbkdf2_rfc7914)
{
  guint8 out[64], want[64];

  hex_to_bytes ("55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c2"
      "0dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a197"
      "83", want, sizeof (want));
  auth_pbkdf2_sha256 ((const guint8 *) "passwd", 6, (const guint8 *) "salt",
      4, 1, out, sizeof (out));
  fail_unless (memcmp (out, want, sizeof (want)) == 0);
}

GST_END_TEST;

GST_START_TEST (test_key_from_string)
{
  AuthKey k, want;
  GError *err = NULL;
  gchar *long_pass = g_strnfill (AUTH_PASSPHRASE_MAX + 1, 'p');
  const gchar *hex =
      "000102030405060708090a0b0c0d0e0f101112131415161718191A1B1C1D1E1F";

  /* 64 hex digits, either case: the key itself */
  fail_unless (auth_key_from_string (hex, &k, &err));
  key_of_bytes (&want, 0);
  fail_unless (memcmp (k.bytes, want.bytes, AUTH_KEY_SIZE) == 0);
  /* a passphrase: PBKDF2 with the documented salt and count (computed
   * independently with Python's hashlib.pbkdf2_hmac) */
  fail_unless (auth_key_from_string ("correct horse battery", &k, &err));
  hex_to_bytes ("6bc61459fa6d2fa63beaf5e9d45406ad9662101acb2cd041383324f5f7fd"
      "160f", want.bytes, AUTH_KEY_SIZE);
  fail_unless (memcmp (k.bytes, want.bytes, AUTH_KEY_SIZE) == 0);
  /* 63 hex digits are a passphrase, not a key */
  fail_unless (auth_key_from_string (hex + 1, &k, &err));
  key_of_bytes (&want, 0);
  fail_if (memcmp (k.bytes, want.bytes, AUTH_KEY_SIZE) == 0);
  /* too short, too long, none: an error that does not repeat the text */
  fail_if (auth_key_from_string ("secret123", &k, &err));
  fail_unless (g_error_matches (err, AUTH_ERROR, AUTH_ERROR_KEY));
  fail_unless (strstr (err->message, "64 hex digits") != NULL, "%s",
      err->message);
  fail_unless (strstr (err->message, "secret123") == NULL);
  g_clear_error (&err);
  fail_if (auth_key_from_string (long_pass, &k, &err));
  fail_unless (strstr (err->message, "257 bytes") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  fail_if (auth_key_from_string (NULL, &k, &err));
  g_clear_error (&err);
  fail_unless (auth_key_from_string (long_pass + 1, &k, NULL));
  g_free (long_pass);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Sealing */

/* The trailer: sender id, counter from 1, HMAC-SHA-256 truncated to 12
 * bytes (the tag computed independently with Python's hmac module). */
GST_START_TEST (test_seal_format)
{
  AuthSession *s = session (0, 0x01020304, 4);
  guint8 buf[64], tag[AUTH_TAG_SIZE];
  gsize n;

  memcpy (buf, "hello", 5);
  n = auth_seal (s, buf, 5, sizeof (buf));
  fail_unless_equals_int (n, 5 + AUTH_TRAILER_SIZE);
  fail_unless_equals_int (AUTH_TRAILER_SIZE, 24);
  fail_unless (memcmp (buf, "hello", 5) == 0);
  fail_unless_equals_int (read32 (buf + 5), 0x01020304);
  fail_unless_equals_uint64 (read64 (buf + 9), 1);
  hex_to_bytes ("f7870d8956586d80bbfcb05b", tag, sizeof (tag));
  fail_unless (memcmp (buf + 17, tag, sizeof (tag)) == 0);
  /* the counter grows by one per packet */
  n = auth_seal (s, buf, 5, sizeof (buf));
  fail_unless_equals_uint64 (read64 (buf + 9), 2);
  /* no room: nothing written, no counter used */
  memset (buf, 0xaa, sizeof (buf));
  fail_unless_equals_int (auth_seal (s, buf, 10, 10 + AUTH_TRAILER_SIZE - 1),
      0);
  fail_unless_equals_int (auth_seal (s, buf, 0, 3), 0);
  for (guint i = 0; i < sizeof (buf); i++)
    fail_unless_equals_int (buf[i], 0xaa);
  n = auth_seal (s, buf, 10, 10 + AUTH_TRAILER_SIZE);
  fail_unless_equals_int (n, 10 + AUTH_TRAILER_SIZE);
  fail_unless_equals_uint64 (read64 (buf + 14), 3);
  auth_session_free (s);
}

GST_END_TEST;

GST_START_TEST (test_open_sound)
{
  AuthSession *tx = session (0, 77, 4), *rx = session (0, 88, 4);
  guint8 buf[256];
  gsize n = sealed (tx, buf, 16, 0x5a), plen = 0;
  guint32 sender = 0;

  fail_unless_equals_int (auth_open (rx, buf, n, 0, &plen, &sender), AUTH_OK);
  fail_unless_equals_int (plen, 16);
  fail_unless_equals_int (sender, 77);
  /* an empty packet is sealed and opened too */
  n = sealed (tx, buf, 0, 0);
  fail_unless_equals_int (auth_open (rx, buf, n, 0, &plen, NULL), AUTH_OK);
  fail_unless_equals_int (plen, 0);
  fail_unless_equals_uint64 (stats_of (rx).accepted, 2);
  fail_unless_equals_int (stats_of (rx).senders, 1);
  fail_unless_equals_uint64 (stats_of (tx).sealed, 2);
  auth_session_free (tx);
  auth_session_free (rx);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* Refusals */

/* Each bit of each byte flipped, payload and trailer alike: a bad tag;
 * every truncation: truncated or a bad tag; none of them moves the
 * window, so the untouched packet is still taken after all of them. */
GST_START_TEST (test_tamper_every_byte)
{
  AuthSession *tx = session (0, 1, 4), *rx = session (0, 2, 4);
  guint8 buf[256], bad[256];
  gsize n = sealed (tx, buf, 16, 0x33);
  guint64 bad_tags = 0, truncated = 0;

  for (gsize i = 0; i < n; i++) {
    for (guint bit = 0; bit < 8; bit++) {
      memcpy (bad, buf, n);
      bad[i] ^= 1 << bit;
      fail_unless_equals_int (open_packet (rx, bad, n, 0), AUTH_BAD_TAG);
      bad_tags++;
    }
  }
  for (gsize len = 0; len < n; len++) {
    AuthVerdict want = len < AUTH_TRAILER_SIZE ? AUTH_TRUNCATED :
        AUTH_BAD_TAG;
    fail_unless_equals_int (open_packet (rx, buf, len, 0), want);
    if (want == AUTH_TRUNCATED)
      truncated++;
    else
      bad_tags++;
  }
  /* a byte more at the end: a bad tag as well */
  memcpy (bad, buf, n);
  bad[n] = 0;
  fail_unless_equals_int (open_packet (rx, bad, n + 1, 0), AUTH_BAD_TAG);
  bad_tags++;
  fail_unless_equals_int (open_packet (rx, NULL, 0, 0), AUTH_TRUNCATED);
  truncated++;
  fail_unless_equals_uint64 (stats_of (rx).bad_tag, bad_tags);
  fail_unless_equals_uint64 (stats_of (rx).truncated, truncated);
  fail_unless_equals_uint64 (stats_of (rx).accepted, 0);
  fail_unless_equals_int (stats_of (rx).senders, 0);
  fail_unless_equals_int (open_packet (rx, buf, n, 0), AUTH_OK);
  auth_session_free (tx);
  auth_session_free (rx);
}

GST_END_TEST;

/* A forged trailer with a huge counter under the wrong key moves nothing:
 * the sender's next sound packets are taken. */
GST_START_TEST (test_forged_counter_moves_nothing)
{
  AuthSession *tx = session (0, 5, 4), *rx = session (0, 6, 4),
      *attacker = session (100, 5, 4);
  guint8 buf[256], forged[256];
  gsize n = sealed (tx, buf, 8, 1), fn;

  fail_unless_equals_int (open_packet (rx, buf, n, 0), AUTH_OK);
  fn = sealed (attacker, forged, 8, 1);
  write64 (forged + 8 + 4, G_MAXUINT64);
  fail_unless_equals_int (open_packet (rx, forged, fn, MS), AUTH_BAD_TAG);
  n = sealed (tx, buf, 8, 2);
  fail_unless_equals_int (open_packet (rx, buf, n, 2 * MS), AUTH_OK);
  auth_session_free (tx);
  auth_session_free (rx);
  auth_session_free (attacker);
}

GST_END_TEST;

/* The same packet twice: replayed, counted, and the third time still. */
GST_START_TEST (test_replay)
{
  AuthSession *tx = session (0, 9, 4), *rx = session (0, 10, 4);
  guint8 buf[256];
  gsize n = sealed (tx, buf, 16, 7);

  fail_unless_equals_int (open_packet (rx, buf, n, 0), AUTH_OK);
  fail_unless_equals_int (open_packet (rx, buf, n, MS), AUTH_REPLAYED);
  fail_unless_equals_int (open_packet (rx, buf, n, 2 * MS), AUTH_REPLAYED);
  fail_unless_equals_uint64 (stats_of (rx).replayed, 2);
  fail_unless_equals_uint64 (stats_of (rx).accepted, 1);
  auth_session_free (tx);
  auth_session_free (rx);
}

GST_END_TEST;

/* Packets 1..100 sealed; 70 arrives first. Then 7..69 (all within 64 of
 * 70) are taken in any order, 6 and below are too old, each taken one is
 * replayed a second time, and a jump of more than the window forgets the
 * bitmap (the packets just behind the new top are taken). */
GST_START_TEST (test_reorder_window)
{
  AuthSession *tx = session (0, 11, 4), *rx = session (0, 12, 4);
  guint8 pkts[101][64];
  gsize len[101];

  for (guint c = 1; c <= 100; c++)
    len[c] = sealed (tx, pkts[c], 16, c);
  fail_unless_equals_int (open_packet (rx, pkts[70], len[70], 0), AUTH_OK);
  /* 69 down to 7: the window is [7, 70] */
  for (guint c = 69; c >= 7; c--)
    fail_unless_equals_int (open_packet (rx, pkts[c], len[c], c * MS),
        AUTH_OK);
  for (guint c = 6; c >= 1; c--)
    fail_unless_equals_int (open_packet (rx, pkts[c], len[c], 0),
        AUTH_TOO_OLD);
  fail_unless_equals_int (open_packet (rx, pkts[7], len[7], 0),
      AUTH_REPLAYED);
  fail_unless_equals_int (open_packet (rx, pkts[70], len[70], 0),
      AUTH_REPLAYED);
  /* 72 then 71: a gap filled later */
  fail_unless_equals_int (open_packet (rx, pkts[72], len[72], 0), AUTH_OK);
  fail_unless_equals_int (open_packet (rx, pkts[71], len[71], 0), AUTH_OK);
  fail_unless_equals_int (open_packet (rx, pkts[71], len[71], 0),
      AUTH_REPLAYED);
  /* now 8 is 64 behind 72: too old; 9 was taken: replayed */
  fail_unless_equals_int (open_packet (rx, pkts[8], len[8], 0),
      AUTH_TOO_OLD);
  fail_unless_equals_int (open_packet (rx, pkts[9], len[9], 0),
      AUTH_REPLAYED);
  fail_unless_equals_uint64 (stats_of (rx).accepted, 1 + 63 + 2);
  fail_unless_equals_uint64 (stats_of (rx).too_old, 6 + 1);
  fail_unless_equals_uint64 (stats_of (rx).replayed, 4);
  auth_session_free (rx);

  /* a jump of 65 or more: only the new top is marked */
  rx = session (0, 12, 4);
  fail_unless_equals_int (open_packet (rx, pkts[1], len[1], 0), AUTH_OK);
  fail_unless_equals_int (open_packet (rx, pkts[100], len[100], 0), AUTH_OK);
  fail_unless_equals_int (open_packet (rx, pkts[37], len[37], 0), AUTH_OK);
  fail_unless_equals_int (open_packet (rx, pkts[36], len[36], 0),
      AUTH_TOO_OLD);
  fail_unless_equals_int (open_packet (rx, pkts[1], len[1], 0),
      AUTH_TOO_OLD);
  auth_session_free (tx);
  auth_session_free (rx);
}

GST_END_TEST;

/* Windows are per sender: the same counter of two senders is taken. */
GST_START_TEST (test_windows_per_sender)
{
  AuthSession *a = session (0, 21, 4), *b = session (0, 22, 4),
      *rx = session (0, 23, 4);
  guint8 pa[64], pb[64];
  gsize na = sealed (a, pa, 4, 1), nb = sealed (b, pb, 4, 1);

  fail_unless_equals_uint64 (read64 (pa + 8), read64 (pb + 8));
  fail_unless_equals_int (open_packet (rx, pa, na, 0), AUTH_OK);
  fail_unless_equals_int (open_packet (rx, pb, nb, 0), AUTH_OK);
  fail_unless_equals_int (open_packet (rx, pb, nb, 0), AUTH_REPLAYED);
  auth_session_free (a);
  auth_session_free (b);
  auth_session_free (rx);
}

GST_END_TEST;

/* Another key: every packet a bad tag, whatever its counter. */
GST_START_TEST (test_key_mismatch)
{
  AuthSession *tx = session (0, 31, 4), *rx = session (1, 32, 4);
  guint8 buf[256];

  for (guint i = 0; i < 10; i++) {
    gsize n = sealed (tx, buf, 16 + i, i);
    fail_unless_equals_int (open_packet (rx, buf, n, i * MS), AUTH_BAD_TAG);
  }
  fail_unless_equals_uint64 (stats_of (rx).bad_tag, 10);
  fail_unless_equals_int (stats_of (rx).senders, 0);
  auth_session_free (tx);
  auth_session_free (rx);
}

GST_END_TEST;

/* At most 3 senders: A (t=0), B (t=1), C (t=2), A again (t=3); D (t=4)
 * takes the place of B, the least recently seen. A's replay is still
 * refused; B's is taken again, the documented cost of eviction. */
GST_START_TEST (test_sender_cap)
{
  AuthSession *tx[4], *rx = session (0, 99, 3);
  guint8 pkt[4][64], again[64];
  gsize n[4], na;

  for (guint i = 0; i < 4; i++) {
    tx[i] = session (0, 40 + i, 4);
    n[i] = sealed (tx[i], pkt[i], 8, i);
  }
  for (guint i = 0; i < 3; i++)
    fail_unless_equals_int (open_packet (rx, pkt[i], n[i], i * MS),
        AUTH_OK);
  na = sealed (tx[0], again, 8, 9);
  fail_unless_equals_int (open_packet (rx, again, na, 3 * MS), AUTH_OK);
  fail_unless_equals_int (stats_of (rx).senders, 3);
  fail_unless_equals_uint64 (stats_of (rx).evicted, 0);
  fail_unless_equals_int (open_packet (rx, pkt[3], n[3], 4 * MS), AUTH_OK);
  fail_unless_equals_int (stats_of (rx).senders, 3);
  fail_unless_equals_uint64 (stats_of (rx).evicted, 1);
  fail_unless_equals_int (open_packet (rx, again, na, 5 * MS),
      AUTH_REPLAYED);
  fail_unless_equals_int (open_packet (rx, pkt[2], n[2], 5 * MS),
      AUTH_REPLAYED);
  fail_unless_equals_int (open_packet (rx, pkt[1], n[1], 6 * MS), AUTH_OK);
  /* B came back in place of C (seen at t=2), and so on */
  fail_unless_equals_uint64 (stats_of (rx).evicted, 2);
  fail_unless_equals_int (stats_of (rx).senders, 3);
  fail_unless_equals_int (open_packet (rx, pkt[2], n[2], 7 * MS), AUTH_OK);
  for (guint i = 0; i < 4; i++)
    auth_session_free (tx[i]);
  auth_session_free (rx);
}

GST_END_TEST;

/* Ties in time go by arrival order: in one instant, the first is evicted. */
GST_START_TEST (test_sender_cap_same_time)
{
  AuthSession *tx[3], *rx = session (0, 98, 2);
  guint8 p[3][64];
  gsize n[3];

  for (guint i = 0; i < 3; i++) {
    tx[i] = session (0, 50 + i, 4);
    n[i] = sealed (tx[i], p[i], 8, i);
    fail_unless_equals_int (open_packet (rx, p[i], n[i], 0), AUTH_OK);
  }
  fail_unless_equals_int (open_packet (rx, p[1], n[1], 0), AUTH_REPLAYED);
  fail_unless_equals_int (open_packet (rx, p[2], n[2], 0), AUTH_REPLAYED);
  fail_unless_equals_int (open_packet (rx, p[0], n[0], 0), AUTH_OK);
  for (guint i = 0; i < 3; i++)
    auth_session_free (tx[i]);
  auth_session_free (rx);
}

GST_END_TEST;

GST_START_TEST (test_verdict_names)
{
  fail_unless_equals_string (auth_verdict_name (AUTH_OK), "ok");
  fail_unless_equals_string (auth_verdict_name (AUTH_BAD_TAG), "bad-tag");
  fail_unless_equals_string (auth_verdict_name (AUTH_TOO_OLD), "too-old");
  fail_unless_equals_string (auth_verdict_name (99), "unknown");
}

GST_END_TEST;

static Suite *
coreauth_suite (void)
{
  Suite *s = suite_create ("coreauth");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pbkdf2_rfc7914);
  tcase_add_test (tc, test_key_from_string);
  tcase_add_test (tc, test_seal_format);
  tcase_add_test (tc, test_open_sound);
  tcase_add_test (tc, test_tamper_every_byte);
  tcase_add_test (tc, test_forged_counter_moves_nothing);
  tcase_add_test (tc, test_replay);
  tcase_add_test (tc, test_reorder_window);
  tcase_add_test (tc, test_windows_per_sender);
  tcase_add_test (tc, test_key_mismatch);
  tcase_add_test (tc, test_sender_cap);
  tcase_add_test (tc, test_sender_cap_same_time);
  tcase_add_test (tc, test_verdict_names);
  return s;
}

GST_CHECK_MAIN (coreauth);
