/* tpsssink / tpsssrc with a group key (docs/security.md), on loopback:
 * - keyed members exchange media and control; every control datagram is
 *   sealed and opened (auth-* stats);
 * - without a key a HELLO is the 24-byte message, with one the same bytes
 *   and a 24-byte trailer that opens under the key;
 * - unsealed, truncated, foreign-keyed and replayed control is counted by
 *   its verdict and never reaches the core (no member, no message taken);
 * - a member under another key has its control refused;
 * - bad key settings, and a sink and a src of one session with different
 *   keys, fail the start with a message that never shows the key;
 * - with srtp-key on both members the media (and parity) goes as SRTP and
 *   arrives as without it, packet for packet; a member under another SRTP
 *   key, or one without, gets nothing out and counts every packet. */
#include <gst/check/gstcheck.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include "checkutil.h"
#include "tpssmember.h"

#include "tpsscore.h"
#include "core/auth.h"

#define RTP_CAPS TPSS_MEMBER_RTP_CAPS
#define HEX_KEY "00112233445566778899aabbccddeeff" \
    "00112233445566778899aabbccddeeff"
#define OTHER_KEY "a passphrase nobody else uses"

static guint64
member_stat (Member * m, const gchar * element, const gchar * field)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (m->pipeline), element);
  guint64 v = check_stat_u64 (e, field);

  gst_object_unref (e);
  return v;
}

/* The src's `auth` flag, and its auth-senders in @senders. */
static gboolean
member_authenticated (Member * m, guint * senders)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (m->pipeline), "src");
  GstStructure *s;
  gboolean auth = FALSE;

  g_object_get (e, "stats", &s, NULL);
  gst_structure_get_boolean (s, "auth", &auth);
  gst_structure_get_uint (s, "auth-senders", senders);
  gst_structure_free (s);
  gst_object_unref (e);
  return auth;
}

static gchar *
two_members (guint p1, guint p2)
{
  return g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
}

GST_START_TEST (test_keyed_members_exchange)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = two_members (p1, p2);
  Member a, b;
  guint senders = 0;

  member_start (&a, 1, p1, members, "key=" HEX_KEY);
  member_start (&b, 2, p2, members, "key=" HEX_KEY);
  WAIT_UNTIL (locked_read (&a, &a.buffers) >= 50 &&
      locked_read (&b, &b.buffers) >= 50 &&
      member_stat (&a, "src", "control-received") >= 3, 10);
  fail_unless (locked_read (&a, &a.buffers) >= 50);
  fail_unless (locked_read (&b, &b.buffers) >= 50);
  fail_unless (member_authenticated (&a, &senders));
  fail_unless_equals_int (senders, 1);
  /* the sink shows the session's counters too */
  fail_unless (member_stat (&a, "sink", "auth-sealed") > 0);
  fail_unless (member_stat (&a, "src", "control-received") >= 3);
  fail_unless (member_stat (&a, "src", "auth-accepted") >= 3);
  fail_unless_equals_uint64 (member_stat (&a, "src", "auth-bad-tag") +
      member_stat (&a, "src", "auth-truncated") +
      member_stat (&a, "src", "auth-replayed"), 0);
  member_stop (&a);
  member_stop (&b);
  g_free (members);
}

GST_END_TEST;

/* A member under another key: its media arrives (it is not sealed), its
 * control is refused as bad-tag and none is taken. */
GST_START_TEST (test_wrong_key_refused)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = two_members (p1, p2);
  Member a, b;

  member_start (&a, 1, p1, members, "key=" HEX_KEY);
  member_start (&b, 2, p2, members, "key=\"" OTHER_KEY "\"");
  WAIT_UNTIL (member_stat (&a, "src", "auth-bad-tag") >= 3, 10);
  fail_unless (member_stat (&a, "src", "auth-bad-tag") >= 3);
  fail_unless_equals_uint64 (member_stat (&a, "src", "auth-accepted"), 0);
  fail_unless_equals_uint64 (member_stat (&a, "src", "control-received"), 0);
  fail_unless_equals_uint64 (member_stat (&b, "src", "auth-accepted"), 0);
  member_stop (&a);
  member_stop (&b);
  g_free (members);
}

GST_END_TEST;

/* The first HELLO member 1 sends to member 2 (a socket of ours). */
static GBytes *
first_hello (const gchar * key_props)
{
  guint port, p1 = free_udp_port ();
  GSocket *sock = check_udp_socket_local (&port);
  gchar *members = two_members (p1, port);
  gchar *desc = g_strdup_printf ("tpsssrc port=%u member-id=1 members=%s %s "
      "caps=\"" RTP_CAPS "\" ! fakesink", p1, members, key_props);
  GstElement *p = gst_parse_launch (desc, NULL);
  gchar buf[256];
  gssize n;

  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  g_socket_set_timeout (sock, 5);
  n = g_socket_receive (sock, buf, sizeof (buf), NULL, NULL);
  fail_unless (n > 0);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_object_unref (sock);
  g_free (desc);
  g_free (members);
  return g_bytes_new (buf, n);
}

GST_START_TEST (test_unkeyed_control_unchanged)
{
  GBytes *plain = first_hello (""), *sealed = first_hello ("key=" HEX_KEY);
  gsize plen, slen, payload;
  const guint8 *pd = g_bytes_get_data (plain, &plen);
  const guint8 *sd = g_bytes_get_data (sealed, &slen);
  AuthKey key;
  AuthSession *peer;
  TpssMsg msg;
  gsize consumed;

  fail_unless_equals_int (plen, 24);
  fail_unless_equals_int (tpss_rtcp_next (pd, plen, &msg, &consumed),
      TPSS_RTCP_MSG);
  fail_unless_equals_int (msg.type, TPSS_MSG_HELLO);
  fail_unless_equals_int (msg.u.hello.member_id, 1);
  fail_unless_equals_int (slen, plen + AUTH_TRAILER_SIZE);
  /* the same message but its send time */
  fail_unless (memcmp (pd, sd, 16) == 0);
  fail_unless (auth_key_from_string (HEX_KEY, &key, NULL));
  peer = auth_session_new (&key, 9, 4);
  fail_unless_equals_int (auth_open (peer, sd, slen, 0, &payload, NULL),
      AUTH_OK);
  fail_unless_equals_int (payload, plen);
  auth_session_free (peer);
  g_bytes_unref (plain);
  g_bytes_unref (sealed);
}

GST_END_TEST;

/* A HELLO of member @id, sealed by @auth (NULL: unsealed), in @buf. */
static gsize
hello (guint8 * buf, gsize max, guint32 id, AuthSession * auth)
{
  TpssMsg m = { 0, };
  gsize len;

  m.type = TPSS_MSG_HELLO;
  m.sender_ssrc = m.media_ssrc = m.u.hello.member_id = id;
  m.u.hello.ntp = 1;
  len = tpss_msg_write (&m, buf);
  return auth ? auth_seal (auth, buf, len, max) : len;
}

/* Member 2 is our socket: a sound HELLO from it is taken once; unsealed,
 * truncated, foreign-keyed and replayed ones, and an unsealed HELLO of a
 * would-be joiner, are counted and change nothing. */
GST_START_TEST (test_forged_control_counted)
{
  guint port, p1 = free_udp_port ();
  GSocket *sock = check_udp_socket_local (&port);
  gchar *desc = g_strdup_printf ("tpsssrc name=src port=%u member-id=1 "
      "members=2@127.0.0.1:%u key=%s caps=\"" RTP_CAPS "\" ! fakesink", p1,
      port, HEX_KEY);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  AuthKey key, other;
  AuthSession *good, *bad;
  guint8 buf[TPSS_MSG_MAX_SIZE + AUTH_TRAILER_SIZE];
  gsize len;
  GstStructure *s;

  fail_unless (auth_key_from_string (HEX_KEY, &key, NULL));
  fail_unless (auth_key_from_string (OTHER_KEY, &other, NULL));
  good = auth_session_new (&key, 0x2222, 4);
  bad = auth_session_new (&other, 0x3333, 4);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);

  len = hello (buf, sizeof (buf), 2, NULL);
  member_send_bytes (sock, p1, buf, len);
  member_send_bytes (sock, p1, buf, 12);
  len = hello (buf, sizeof (buf), 2, bad);
  member_send_bytes (sock, p1, buf, len);
  len = hello (buf, sizeof (buf), 77, NULL);
  member_send_bytes (sock, p1, buf, len);
  fail_unless_equals_uint64 (check_stat_u64_wait (src, "auth-bad-tag", 3, 5),
      3);
  fail_unless_equals_uint64 (check_stat_u64 (src, "auth-truncated"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (src, "control-received"), 0);

  len = hello (buf, sizeof (buf), 2, good);
  member_send_bytes (sock, p1, buf, len);
  member_send_bytes (sock, p1, buf, len);
  member_send_bytes (sock, p1, buf, len);
  fail_unless_equals_uint64 (check_stat_u64_wait (src, "auth-replayed", 2, 5),
      2);
  fail_unless_equals_uint64 (check_stat_u64 (src, "auth-accepted"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (src, "control-received"), 1);
  fail_unless_equals_uint64 (check_stat_u64 (src, "non-member") +
      check_stat_u64 (src, "forged") + check_stat_u64 (src, "malformed"), 0);
  g_object_get (src, "stats", &s, NULL);
  fail_unless (gst_value_list_get_size (gst_structure_get_value (s,
              "members")) == 1);
  gst_structure_free (s);

  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (p);
  auth_session_free (good);
  auth_session_free (bad);
  g_object_unref (sock);
  g_free (desc);
}

GST_END_TEST;

/* @props on the tpsssink and @src_props on the tpsssrc of one session. */
static void
check_session_start_error (const gchar * props, const gchar * src_props,
    const gchar * text)
{
  gchar *desc = g_strdup_printf ("audiotestsrc ! rtpL16pay ! tpsssink "
      "session=keyed port=0 %s tpsssrc session=keyed port=0 %s ! fakesink",
      props, src_props);

  check_start_error (desc, text);
  g_free (desc);
}

/* Property @name of @e is write-only, and a URI that sets it to @value
 * is taken but never gives it back. */
static void
check_secret_property (GstElement * e, const gchar * name,
    const gchar * value)
{
  gchar *set = g_strdup_printf ("tpss://127.0.0.1:5004?%s=%s", name, value);
  gchar *uri;

  fail_if (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          name)->flags & G_PARAM_READABLE);
  fail_unless (gst_uri_handler_set_uri (GST_URI_HANDLER (e), set, NULL));
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (e));
  fail_if (strstr (uri, value) != NULL, "%s", uri);
  g_free (uri);
  g_free (set);
}

GST_START_TEST (test_key_settings)
{
  gchar *file = g_build_filename (g_get_tmp_dir (), "tpss-test.key", NULL);
  gchar *arg = g_strdup_printf ("key-file=%s", file);
  GstElement *e = gst_element_factory_make ("tpsssrc", NULL);
  gchar *read_file = NULL;

  check_session_start_error ("key=short", "key=short",
      "key: a key is 64 hex digits or a passphrase of 10");
  check_session_start_error ("key=" HEX_KEY " key-file=/nonexistent", "",
      "key and key-file are both set");
  check_session_start_error ("key-file=/nonexistent/tpss.key", "",
      "key-file \"/nonexistent/tpss.key\"");
  /* one session, two keys, or a key on one element only */
  check_session_start_error ("key=" HEX_KEY, "key=\"" OTHER_KEY "\"",
      "must have the same key or none");
  check_session_start_error ("key=" HEX_KEY, "", "must have the same key");
  check_session_start_error ("", "key=" HEX_KEY, "must have the same key");
  /* a key file with the same key agrees with the key */
  fail_unless (g_file_set_contents (file, HEX_KEY "\n", -1, NULL));
  {
    gchar *desc = g_strdup_printf ("audiotestsrc is-live=true ! rtpL16pay ! "
        "tpsssink session=keyed2 port=0 key=" HEX_KEY " tpsssrc "
        "session=keyed2 port=0 %s ! fakesink", arg);
    GstElement *p = gst_parse_launch (desc, NULL);
    fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    g_free (desc);
  }

  check_secret_property (e, "key", HEX_KEY);
  g_object_set (e, "key-file", file, NULL);
  g_object_get (e, "key-file", &read_file, NULL);
  fail_unless_equals_string (read_file, file);
  gst_object_unref (e);
  g_unlink (file);
  g_free (read_file);
  g_free (arg);
  g_free (file);
}

GST_END_TEST;

/* ------------------------------------------------------------------ */
/* SRTP */

#define SRTP_KEY \
  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
#define SRTP_OTHER \
  "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
#define SRTP_BUFFERS 60

/* Whether member @m has dealt with all of the other's SRTP_BUFFERS
 * packets: output them or refused them under the SRTP key. */
static gboolean
srtp_all_dealt_with (Member * m)
{
  return locked_read (m, &m->buffers) >= SRTP_BUFFERS ||
      member_stat (m, "src", "srtp-auth-failed") >= SRTP_BUFFERS;
}

/* What each of two members with @extra_a and @extra_b got out of the
 * other's SRTP_BUFFERS packets, once nothing more comes;
 * @a_stats: member a's src stats (free it). */
static void
srtp_exchange (const gchar * extra_a, const gchar * extra_b, guint * got_a,
    guint * got_b, GstStructure ** a_stats)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = two_members (p1, p2);
  GstElement *src;
  Member a, b;

  member_start_n (&a, 1, p1, members, extra_a, SRTP_BUFFERS);
  member_start_n (&b, 2, p2, members, extra_b, SRTP_BUFFERS);
  /* 60 packets of 20 ms: 1.2 s, then what is late */
  WAIT_UNTIL (srtp_all_dealt_with (&a) && srtp_all_dealt_with (&b), 6);
  g_usleep (G_USEC_PER_SEC / 2);
  *got_a = locked_read (&a, &a.buffers);
  *got_b = locked_read (&b, &b.buffers);
  src = gst_bin_get_by_name (GST_BIN (a.pipeline), "src");
  g_object_get (src, "stats", a_stats, NULL);
  gst_object_unref (src);
  member_stop (&a);
  member_stop (&b);
  g_free (members);
}

static guint64
field_u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, field, &v), "%s", field);
  return v;
}

GST_START_TEST (test_srtp_members_exchange)
{
  guint plain_a, plain_b, got_a, got_b;
  GstStructure *st;
  gboolean on = FALSE;

  srtp_exchange ("", "", &plain_a, &plain_b, &st);
  fail_unless_equals_int (plain_a, SRTP_BUFFERS);
  fail_unless_equals_int (plain_b, SRTP_BUFFERS);
  fail_unless_equals_uint64 (field_u64 (st, "srtp-accepted"), 0);
  gst_structure_free (st);

  srtp_exchange ("srtp-key=" SRTP_KEY, "srtp-key=" SRTP_KEY, &got_a, &got_b,
      &st);
  fail_unless (got_a == plain_a && got_b == plain_b, "%u %u: %s", got_a,
      got_b, gst_structure_to_string (st));
  fail_unless (gst_structure_get_boolean (st, "srtp", &on) && on);
  /* the media and the parity, each way */
  fail_unless (field_u64 (st, "srtp-protected") >= SRTP_BUFFERS);
  fail_unless (field_u64 (st, "srtp-accepted") >= SRTP_BUFFERS);
  fail_unless_equals_uint64 (field_u64 (st, "srtp-auth-failed") +
      field_u64 (st, "srtp-replayed") + field_u64 (st, "srtp-malformed"), 0);
  fail_unless_equals_uint64 (field_u64 (st, "malformed"), 0);
  gst_structure_free (st);
}

GST_END_TEST;

/* Under another SRTP key, or with none on the sender, member a outputs
 * nothing and counts every packet as an authentication failure. */
GST_START_TEST (test_srtp_wrong_key_or_none)
{
  const gchar *senders[] = { "srtp-key=" SRTP_OTHER, "" };

  for (guint i = 0; i < G_N_ELEMENTS (senders); i++) {
    guint got_a, got_b;
    GstStructure *st;

    srtp_exchange ("srtp-key=" SRTP_KEY, senders[i], &got_a, &got_b, &st);
    fail_unless_equals_int (got_a, 0);
    fail_unless (field_u64 (st, "srtp-auth-failed") >= SRTP_BUFFERS,
        "%s", gst_structure_to_string (st));
    fail_unless_equals_uint64 (field_u64 (st, "srtp-accepted"), 0);
    fail_unless_equals_uint64 (field_u64 (st, "data-received"), 0);
    gst_structure_free (st);
  }
}

GST_END_TEST;

GST_START_TEST (test_srtp_settings)
{
  GstElement *e = gst_element_factory_make ("tpsssrc", NULL);

  check_session_start_error ("srtp-key=" SRTP_KEY, "srtp-key=" SRTP_OTHER,
      "must have the same SRTP key and profile or none");
  check_session_start_error ("srtp-key=" SRTP_KEY, "", "same SRTP key");
  check_session_start_error ("srtp-key=" SRTP_KEY, "srtp-key=" SRTP_KEY
      " srtp-profile=aes-128-cm-hmac-sha1-32", "same SRTP key and profile");
  check_session_start_error ("srtp-key=0011", "srtp-key=0011",
      "srtp-key: the SRTP key of this profile is 30 bytes");
  check_secret_property (e, "srtp-key", SRTP_KEY);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
tpssauth_suite (void)
{
  Suite *s = suite_create ("tpssauth");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_keyed_members_exchange);
  tcase_add_test (tc, test_wrong_key_refused);
  tcase_add_test (tc, test_unkeyed_control_unchanged);
  tcase_add_test (tc, test_forged_control_counted);
  tcase_add_test (tc, test_key_settings);
  tcase_add_test (tc, test_srtp_members_exchange);
  tcase_add_test (tc, test_srtp_wrong_key_or_none);
  tcase_add_test (tc, test_srtp_settings);
  return s;
}

GST_CHECK_MAIN (tpssauth);
