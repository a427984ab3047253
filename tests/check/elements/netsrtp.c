/* gstnetsrtp (gst/common): the key formats, a round trip per profile, and
 * the verdicts: an altered packet fails authentication, a second copy is
 * a replay, another key fails, a short or non-RTP datagram is malformed.
 * Interop with the stock elements: srtpenc's output under the same key
 * opens here, and what this protects opens in srtpdec. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include "gstnetsrtp.h"

#define HEX_KEY "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
#define OTHER_KEY "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
#define SSRC 0x11223344

/* An RTP packet of @payload_len bytes (sequence @seq) in @buf. */
static gsize
rtp_packet (guint8 * buf, guint16 seq, gsize payload_len)
{
  buf[0] = 0x80;
  buf[1] = 96;
  GST_WRITE_UINT16_BE (buf + 2, seq);
  GST_WRITE_UINT32_BE (buf + 4, 9000 * seq);
  GST_WRITE_UINT32_BE (buf + 8, SSRC);
  for (gsize i = 0; i < payload_len; i++)
    buf[12 + i] = (guint8) (seq + i);
  return 12 + payload_len;
}

static GstNetSrtpStats
stats_of (GstNetSrtp * s)
{
  GstNetSrtpStats st;

  gst_net_srtp_get_stats (s, &st);
  return st;
}

static GstNetSrtp *
session (const gchar * key, GstNetSrtpProfile profile,
    GstNetSrtpDirection dir)
{
  guint8 raw[46];
  GstNetSrtp *s;
  GError *err = NULL;

  fail_unless (gst_net_srtp_parse_key (key, profile, raw, NULL));
  s = gst_net_srtp_new (raw, profile, dir, &err);
  fail_unless (s != NULL, "%s", err ? err->message : "");
  return s;
}

GST_START_TEST (test_key_formats)
{
  guint8 a[46], b[46];
  GError *err = NULL;
  /* base64 of the bytes 00..1d */
  const gchar *b64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd";

  fail_unless (gst_net_srtp_parse_key (HEX_KEY,
          GST_NET_SRTP_AES_128_CM_HMAC_SHA1_80, a, NULL));
  for (guint i = 0; i < 30; i++)
    fail_unless_equals_int (a[i], i);
  fail_unless (gst_net_srtp_parse_key (b64,
          GST_NET_SRTP_AES_128_CM_HMAC_SHA1_80, b, NULL));
  fail_unless (memcmp (a, b, 30) == 0);
  fail_unless_equals_int (gst_net_srtp_key_length
      (GST_NET_SRTP_AES_256_CM_HMAC_SHA1_80), 46);
  /* a 128-bit key for an AES-256 profile, a short one, not hex */
  fail_if (gst_net_srtp_parse_key (HEX_KEY,
          GST_NET_SRTP_AES_256_CM_HMAC_SHA1_80, a, &err));
  fail_unless (strstr (err->message, "46 bytes") != NULL, "%s", err->message);
  fail_unless (strstr (err->message, HEX_KEY) == NULL);
  g_clear_error (&err);
  fail_if (gst_net_srtp_parse_key ("00112233", 0, a, &err));
  g_clear_error (&err);
  fail_if (gst_net_srtp_parse_key ("zz0102030405060708090a0b0c0d0e0f1011121"
          "31415161718191a1b1c1d", 0, a, &err));
  g_clear_error (&err);
}

GST_END_TEST;

/* Every profile: what one end protects the other opens, byte for byte,
 * and it grows by the profile's tag. */
GST_START_TEST (test_round_trip)
{
  const gchar *key256 = HEX_KEY "000102030405060708090a0b0c0d0e0f";
  static const struct
  {
    GstNetSrtpProfile profile;
    gsize tag;
  } cases[] = {
    {GST_NET_SRTP_AES_128_CM_HMAC_SHA1_80, 10},
    {GST_NET_SRTP_AES_128_CM_HMAC_SHA1_32, 4},
    {GST_NET_SRTP_AES_256_CM_HMAC_SHA1_80, 10},
    {GST_NET_SRTP_AES_256_CM_HMAC_SHA1_32, 4},
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    const gchar *key = cases[c].profile >= GST_NET_SRTP_AES_256_CM_HMAC_SHA1_80
        ? key256 : HEX_KEY;
    GstNetSrtp *tx = session (key, cases[c].profile, GST_NET_SRTP_SEND);
    GstNetSrtp *rx = session (key, cases[c].profile, GST_NET_SRTP_RECEIVE);

    for (guint16 seq = 65530; seq != 10; seq++) {
      guint8 plain[256], buf[256 + GST_NET_SRTP_MAX_OVERHEAD];
      gsize n = rtp_packet (plain, seq, 100), p;

      memcpy (buf, plain, n);
      p = gst_net_srtp_protect (tx, buf, n, sizeof (buf));
      fail_unless_equals_int (p, n + cases[c].tag);
      fail_if (memcmp (buf + 12, plain + 12, n - 12) == 0, "not encrypted");
      fail_unless_equals_int (gst_net_srtp_unprotect (rx, buf, &p),
          GST_NET_SRTP_OK);
      fail_unless_equals_int (p, n);
      fail_unless (memcmp (buf, plain, n) == 0);
    }
    fail_unless_equals_int (stats_of (rx).accepted, 16);
    fail_unless_equals_int (stats_of (tx).protected_packets, 16);
    gst_net_srtp_free (tx);
    gst_net_srtp_free (rx);
  }
}

GST_END_TEST;

/* The verdict of @rx on a copy of the @n bytes at @pkt. */
static GstNetSrtpVerdict
open_copy (GstNetSrtp * rx, const guint8 * pkt, gsize n)
{
  guint8 buf[256];

  fail_unless (n <= sizeof (buf));
  memcpy (buf, pkt, n);
  return gst_net_srtp_unprotect (rx, buf, &n);
}

GST_START_TEST (test_verdicts)
{
  GstNetSrtp *tx = session (HEX_KEY, 0, GST_NET_SRTP_SEND);
  GstNetSrtp *rx = session (HEX_KEY, 0, GST_NET_SRTP_RECEIVE);
  GstNetSrtp *other = session (OTHER_KEY, 0, GST_NET_SRTP_RECEIVE);
  guint8 sealed[200], buf[200];
  gsize n, len;
  GstNetSrtpStats st;
  GstStructure *s;
  guint64 v;

  n = gst_net_srtp_protect (tx, sealed, rtp_packet (sealed, 7, 100),
      sizeof (sealed));
  fail_unless (n > 0);
  /* a bit flipped in the header, in the payload, in the tag */
  for (guint at = 3; at < n; at += 50) {
    memcpy (buf, sealed, n);
    buf[at] ^= 0x01;
    fail_unless_equals_int (open_copy (rx, buf, n), GST_NET_SRTP_AUTH_FAILED);
  }
  /* another key; a plain RTP packet */
  fail_unless_equals_int (open_copy (other, sealed, n),
      GST_NET_SRTP_AUTH_FAILED);
  fail_unless_equals_int (open_copy (rx, buf, rtp_packet (buf, 8, 100)),
      GST_NET_SRTP_AUTH_FAILED);
  /* the sound one, then its copy */
  fail_unless_equals_int (open_copy (rx, sealed, n), GST_NET_SRTP_OK);
  fail_unless_equals_int (open_copy (rx, sealed, n), GST_NET_SRTP_REPLAYED);
  /* short, RTCP, not version 2 */
  fail_unless_equals_int (open_copy (rx, sealed, 8), GST_NET_SRTP_MALFORMED);
  memcpy (buf, sealed, n);
  buf[1] = 200;
  fail_unless_equals_int (open_copy (rx, buf, n), GST_NET_SRTP_MALFORMED);
  buf[0] = 0x40;
  buf[1] = 96;
  fail_unless_equals_int (open_copy (rx, buf, n), GST_NET_SRTP_MALFORMED);
  /* no room for the tag: refused, not overrun */
  len = rtp_packet (buf, 9, 100);
  fail_unless_equals_int (gst_net_srtp_protect (tx, buf, len, len + 4), 0);

  st = stats_of (rx);
  fail_unless_equals_int (st.auth_failed, 4);
  fail_unless_equals_int (st.accepted, 1);
  fail_unless_equals_int (st.replayed, 1);
  fail_unless_equals_int (st.malformed, 3);
  s = gst_structure_new_empty ("stats");
  gst_net_srtp_stats (s, tx);
  fail_unless (gst_structure_get_uint64 (s, "srtp-protected", &v));
  fail_unless_equals_int (v, 1);
  fail_unless (gst_structure_get_uint64 (s, "srtp-protect-failed", &v));
  fail_unless_equals_int (v, 1);
  gst_structure_free (s);
  gst_net_srtp_free (tx);
  gst_net_srtp_free (rx);
  gst_net_srtp_free (other);
}

GST_END_TEST;

static gboolean
load (const gchar * key, const gchar * file, GstNetSrtp ** out,
    GError ** err)
{
  GstNetSrtpSettings s;
  gboolean ok;

  gst_net_srtp_settings_init (&s);
  s.secret.key = g_strdup (key);
  s.secret.key_file = g_strdup (file);
  ok = gst_net_srtp_load (&s, GST_NET_SRTP_RECEIVE, out, err);
  gst_net_srtp_settings_clear (&s);
  return ok;
}

GST_START_TEST (test_load)
{
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("srtp-key-XXXXXX", &path, NULL);
  GstNetSrtp *s = NULL;
  GError *err = NULL;

  fail_unless (fd >= 0);
  close (fd);
  fail_unless (load (NULL, NULL, &s, &err) && s == NULL);
  fail_unless (load (HEX_KEY, NULL, &s, &err) && s != NULL);
  gst_net_srtp_free (s);
  fail_unless (g_file_set_contents (path, HEX_KEY "\n", -1, NULL));
  fail_unless (load (NULL, path, &s, &err) && s != NULL);
  gst_net_srtp_free (s);
  fail_if (load (HEX_KEY, path, &s, &err));
  fail_unless (strstr (err->message, "both set") != NULL, "%s", err->message);
  g_clear_error (&err);
  fail_if (load ("0011", NULL, &s, &err));
  fail_unless (g_str_has_prefix (err->message, "srtp-key: "), "%s",
      err->message);
  fail_unless (strstr (err->message, "0011") == NULL, "%s", err->message);
  g_clear_error (&err);
  fail_unless (g_file_set_contents (path, "secret-ish\n", -1, NULL));
  fail_if (load (NULL, path, &s, &err));
  fail_unless (g_str_has_prefix (err->message, "srtp-key-file \""), "%s",
      err->message);
  fail_unless (strstr (err->message, "secret-ish") == NULL);
  g_clear_error (&err);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

static GstBuffer *
key_buffer (const gchar * hex)
{
  guint8 raw[30];

  fail_unless (gst_net_srtp_parse_key (hex, 0, raw, NULL));
  return gst_buffer_new_memdup (raw, sizeof (raw));
}

/* srtpenc's output under the same key opens here, byte for byte. */
GST_START_TEST (test_interop_srtpenc)
{
  GstElement *enc = gst_check_setup_element ("srtpenc");
  GstHarness *h;
  GstBuffer *key = key_buffer (HEX_KEY);
  GstNetSrtp *rx = session (HEX_KEY, 0, GST_NET_SRTP_RECEIVE);

  g_object_set (enc, "key", key, NULL);
  gst_buffer_unref (key);
  h = gst_harness_new_with_element (enc, "rtp_sink_0", "rtp_src_0");
  gst_harness_set_src_caps_str (h, "application/x-rtp,payload=96,"
      "ssrc=(uint)287454020,clock-rate=90000");
  for (guint16 seq = 1; seq <= 5; seq++) {
    guint8 plain[200], buf[256];
    gsize n = rtp_packet (plain, seq, 150), len;
    GstBuffer *out;

    fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_memdup
            (plain, n)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    len = gst_buffer_extract (out, 0, buf, sizeof (buf));
    fail_unless_equals_int (len, n + 10);
    fail_unless_equals_int (gst_net_srtp_unprotect (rx, buf, &len),
        GST_NET_SRTP_OK);
    fail_unless (len == n && memcmp (buf, plain, n) == 0);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  gst_object_unref (enc);
  gst_net_srtp_free (rx);
}

GST_END_TEST;

/* What this protects opens in srtpdec (the key in the caps, as an
 * application gives it through request-key). */
GST_START_TEST (test_interop_srtpdec)
{
  GstHarness *h = gst_harness_new_with_padnames ("srtpdec", "rtp_sink",
      "rtp_src");
  GstNetSrtp *tx = session (HEX_KEY, 0, GST_NET_SRTP_SEND);
  GstBuffer *key = key_buffer (HEX_KEY);
  GstCaps *caps = gst_caps_new_simple ("application/x-srtp",
      "payload", G_TYPE_INT, 96, "ssrc", G_TYPE_UINT, SSRC,
      "clock-rate", G_TYPE_INT, 90000,
      "srtp-key", GST_TYPE_BUFFER, key,
      "srtp-cipher", G_TYPE_STRING, "aes-128-icm",
      "srtp-auth", G_TYPE_STRING, "hmac-sha1-80",
      "srtcp-cipher", G_TYPE_STRING, "aes-128-icm",
      "srtcp-auth", G_TYPE_STRING, "hmac-sha1-80", NULL);

  gst_buffer_unref (key);
  gst_harness_set_src_caps (h, caps);
  for (guint16 seq = 1; seq <= 5; seq++) {
    guint8 plain[200], buf[256];
    gsize n = rtp_packet (plain, seq, 150), p;
    GstBuffer *out;

    memcpy (buf, plain, n);
    p = gst_net_srtp_protect (tx, buf, n, sizeof (buf));
    fail_unless (p > n);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_memdup (buf,
                p)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless_equals_int (gst_buffer_get_size (out), n);
    fail_unless (gst_buffer_memcmp (out, 0, plain, n) == 0);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  gst_net_srtp_free (tx);
}

GST_END_TEST;

/* A derived key is the same for the same (label, id), another for another
 * id or label, and works as a key: what one end protects under it the
 * other opens under the same derivation, and not under another id's. */
GST_START_TEST (test_key_derive)
{
  GstNetSrtpKey master = { {0,}, GST_NET_SRTP_AES_128_CM_HMAC_SHA1_80 };
  GstNetSrtpKey a, a2, b, c;
  GstNetSrtp *tx, *rx, *rx_b;
  guint8 buf[256];
  gsize n, len;

  fail_unless (gst_net_srtp_parse_key (HEX_KEY, master.profile, master.bytes,
          NULL));
  gst_net_srtp_key_derive (&master, "label", 2, &a);
  gst_net_srtp_key_derive (&master, "label", 2, &a2);
  gst_net_srtp_key_derive (&master, "label", 3, &b);
  gst_net_srtp_key_derive (&master, "other", 2, &c);
  fail_unless (memcmp (a.bytes, a2.bytes, 30) == 0);
  fail_if (memcmp (a.bytes, b.bytes, 30) == 0);
  fail_if (memcmp (a.bytes, c.bytes, 30) == 0);
  fail_if (memcmp (a.bytes, master.bytes, 30) == 0);

  tx = gst_net_srtp_new_from_key (&a, GST_NET_SRTP_SEND, NULL);
  rx = gst_net_srtp_new_from_key (&a2, GST_NET_SRTP_RECEIVE, NULL);
  rx_b = gst_net_srtp_new_from_key (&b, GST_NET_SRTP_RECEIVE, NULL);
  n = gst_net_srtp_protect (tx, buf, rtp_packet (buf, 1, 100), sizeof (buf));
  fail_unless (n > 0);
  len = n;
  fail_unless_equals_int (gst_net_srtp_unprotect (rx_b, buf, &len),
      GST_NET_SRTP_AUTH_FAILED);
  /* either: the second key opens what the first does not, counted once */
  fail_unless_equals_int (gst_net_srtp_unprotect_either (rx_b, rx, buf,
          &len), GST_NET_SRTP_OK);
  fail_unless_equals_int (len, n - 10);
  fail_unless_equals_int (stats_of (rx_b).auth_failed, 1);
  fail_unless_equals_int (stats_of (rx).accepted, 1);
  gst_net_srtp_free (tx);
  gst_net_srtp_free (rx);
  gst_net_srtp_free (rx_b);
}

GST_END_TEST;

static Suite *
netsrtp_suite (void)
{
  Suite *s = suite_create ("netsrtp");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_key_formats);
  tcase_add_test (tc, test_round_trip);
  tcase_add_test (tc, test_verdicts);
  tcase_add_test (tc, test_load);
  tcase_add_test (tc, test_key_derive);
  tcase_add_test (tc, test_interop_srtpenc);
  tcase_add_test (tc, test_interop_srtpdec);
  return s;
}

GST_CHECK_MAIN (netsrtp);
