/* SRTP inside the network elements (see gstnetsrtp.h). */
#include <string.h>

#include <srtp2/srtp.h>

#include "gstnetsrtp.h"
#include "gstnetkey.h"

#define RTP_HEADER_SIZE 12

struct _GstNetSrtp
{
  GMutex lock;
  srtp_t session;
  GstNetSrtpStats st;
};

static const GEnumValue profile_values[] = {
  {GST_NET_SRTP_AES_128_CM_HMAC_SHA1_80,
      "AES-128 counter mode, HMAC-SHA1 80-bit tag (RFC 3711's default)",
      "aes-128-cm-hmac-sha1-80"},
  {GST_NET_SRTP_AES_128_CM_HMAC_SHA1_32,
      "AES-128 counter mode, HMAC-SHA1 32-bit tag", "aes-128-cm-hmac-sha1-32"},
  {GST_NET_SRTP_AES_256_CM_HMAC_SHA1_80,
      "AES-256 counter mode, HMAC-SHA1 80-bit tag", "aes-256-cm-hmac-sha1-80"},
  {GST_NET_SRTP_AES_256_CM_HMAC_SHA1_32,
      "AES-256 counter mode, HMAC-SHA1 32-bit tag", "aes-256-cm-hmac-sha1-32"},
  {0, NULL, NULL}
};

/* Several plugins link this file: the first registers the type, the others
 * find it. */
GType
gst_net_srtp_profile_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_type_from_name ("GstNetSrtpProfile");
    if (!t)
      t = g_enum_register_static ("GstNetSrtpProfile", profile_values);
    g_once_init_leave (&type, t);
  }
  return type;
}

gsize
gst_net_srtp_key_length (GstNetSrtpProfile profile)
{
  switch (profile) {
    case GST_NET_SRTP_AES_256_CM_HMAC_SHA1_80:
    case GST_NET_SRTP_AES_256_CM_HMAC_SHA1_32:
      return SRTP_AES_256_KEY_LEN + SRTP_SALT_LEN;
    default:
      return SRTP_AES_128_KEY_LEN + SRTP_SALT_LEN;
  }
}

/* ------------------------------------------------------------------ */
/* Properties */

guint
gst_net_srtp_install (GObjectClass * klass, guint first_id,
    const gchar * what)
{
  gchar *key_blurb = g_strdup_printf ("SRTP master key and salt (RFC 3711) "
      "that protects %s, as srtpenc's key: 60 hex digits or 40 base64 "
      "characters (30 bytes) for the AES-128 profiles, 92 hex digits or 64 "
      "base64 characters (46 bytes) for AES-256 (docs/security.md). "
      "Write-only: never read back or put in the URI. NULL or empty: "
      "plain RTP", what);

  gst_net_key_install_named (klass, first_id, "srtp-", "SRTP key", key_blurb,
      "SRTP key file", "File whose text (trailing white space removed) is "
      "the SRTP key as srtp-key takes it (NULL: none; not both)");
  g_object_class_install_property (klass,
      first_id + GST_NET_SRTP_PROP_PROFILE, g_param_spec_enum
      ("srtp-profile", "SRTP profile", "Cipher and authentication of the "
          "SRTP packets (the same on every end)", GST_TYPE_NET_SRTP_PROFILE,
          GST_NET_SRTP_AES_128_CM_HMAC_SHA1_80, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_free (key_blurb);
  return first_id + GST_NET_SRTP_N_PROPS;
}

gboolean
gst_net_srtp_set (GstNetSrtpSettings * s, guint first_id, guint prop_id,
    const GValue * value)
{
  if (prop_id != first_id + GST_NET_SRTP_PROP_PROFILE)
    return gst_net_key_set (&s->secret, first_id, prop_id, value);
  s->profile = g_value_get_enum (value);
  return TRUE;
}

gboolean
gst_net_srtp_get (const GstNetSrtpSettings * s, guint first_id,
    guint prop_id, GValue * value)
{
  if (prop_id != first_id + GST_NET_SRTP_PROP_PROFILE)
    return gst_net_key_get (&s->secret, first_id, prop_id, value);
  g_value_set_enum (value, s->profile);
  return TRUE;
}

void
gst_net_srtp_settings_init (GstNetSrtpSettings * s)
{
  memset (s, 0, sizeof (*s));
  s->profile = GST_NET_SRTP_AES_128_CM_HMAC_SHA1_80;
}

void
gst_net_srtp_settings_copy (GstNetSrtpSettings * dst,
    const GstNetSrtpSettings * src)
{
  gst_net_key_settings_copy (&dst->secret, &src->secret);
  dst->profile = src->profile;
}

void
gst_net_srtp_settings_clear (GstNetSrtpSettings * s)
{
  gst_net_key_settings_clear (&s->secret);
}

/* ------------------------------------------------------------------ */
/* The key */

static gboolean
all_hex (const gchar * text)
{
  for (; *text; text++)
    if (!g_ascii_isxdigit (*text))
      return FALSE;
  return TRUE;
}

static gboolean
all_base64 (const gchar * text)
{
  gsize n = strlen (text), pad = 0;

  for (gsize i = 0; i < n; i++) {
    if (text[i] == '=' && i + 2 >= n)
      pad++;
    else if (pad > 0 || !(g_ascii_isalnum (text[i]) || text[i] == '+' ||
            text[i] == '/'))
      return FALSE;
  }
  return n % 4 == 0;
}

gboolean
gst_net_srtp_parse_key (const gchar * text, GstNetSrtpProfile profile,
    guint8 * key, GError ** error)
{
  gsize want = gst_net_srtp_key_length (profile), n = strlen (text);

  if (n == 2 * want && all_hex (text)) {
    for (gsize i = 0; i < want; i++)
      key[i] = g_ascii_xdigit_value (text[2 * i]) << 4 |
          g_ascii_xdigit_value (text[2 * i + 1]);
    return TRUE;
  }
  if (all_base64 (text)) {
    gsize len = 0;
    guchar *raw = g_base64_decode (text, &len);
    gboolean ok = len == want;

    if (ok)
      memcpy (key, raw, want);
    gst_net_key_wipe (raw, len);
    g_free (raw);
    if (ok)
      return TRUE;
  }
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "the SRTP key of this profile is %" G_GSIZE_FORMAT " bytes (master key "
      "and salt): %" G_GSIZE_FORMAT " hex digits or their base64",
      want, 2 * want);
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* The session */

static void
set_crypto_policy (srtp_crypto_policy_t * p, GstNetSrtpProfile profile)
{
  switch (profile) {
    case GST_NET_SRTP_AES_128_CM_HMAC_SHA1_32:
      srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32 (p);
      break;
    case GST_NET_SRTP_AES_256_CM_HMAC_SHA1_80:
      srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80 (p);
      break;
    case GST_NET_SRTP_AES_256_CM_HMAC_SHA1_32:
      srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32 (p);
      break;
    default:
      srtp_crypto_policy_set_rtp_default (p);
      break;
  }
}

/* libsrtp's crypto kernel, once per process. GStreamer's srtp plugin may
 * have set it up before: a second srtp_init () then only re-runs the self
 * tests, and its status is not ours to fail on; srtp_create () says
 * whether the library works. */
static void
library_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    srtp_init ();
    g_once_init_leave (&done, 1);
  }
}

GstNetSrtp *
gst_net_srtp_new (const guint8 * key, GstNetSrtpProfile profile,
    GstNetSrtpDirection direction, GError ** error)
{
  guint8 master[GST_NET_SRTP_KEY_MAX];
  srtp_policy_t policy;
  srtp_err_status_t status;
  GstNetSrtp *srtp;

  library_init ();
  memset (&policy, 0, sizeof (policy));
  set_crypto_policy (&policy.rtp, profile);
  /* unused (RTCP is never protected here), but libsrtp wants one */
  srtp_crypto_policy_set_rtcp_default (&policy.rtcp);
  policy.ssrc.type = direction == GST_NET_SRTP_SEND ? ssrc_any_outbound :
      ssrc_any_inbound;
  memcpy (master, key, gst_net_srtp_key_length (profile));
  policy.key = master;
  policy.window_size = 128;

  srtp = g_new0 (GstNetSrtp, 1);
  g_mutex_init (&srtp->lock);
  status = srtp_create (&srtp->session, &policy);
  gst_net_key_wipe (master, sizeof (master));
  if (status != srtp_err_status_ok) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
        "libsrtp2 refused the SRTP session (error %d)", status);
    g_mutex_clear (&srtp->lock);
    g_free (srtp);
    return NULL;
  }
  return srtp;
}

static gboolean
parse_srtp_key (const gchar * text, gpointer key, GError ** error)
{
  GstNetSrtpKey *k = key;

  return gst_net_srtp_parse_key (text, k->profile, k->bytes, error);
}

gboolean
gst_net_srtp_key_load (const GstNetSrtpSettings * s, GstNetSrtpKey * key,
    gboolean * have_key, GError ** error)
{
  key->profile = s->profile;
  return gst_net_key_load_with (&s->secret, "srtp-", parse_srtp_key, key,
      have_key, error);
}

void
gst_net_srtp_key_derive (const GstNetSrtpKey * master, const gchar * label,
    guint32 id, GstNetSrtpKey * out)
{
  gsize want = gst_net_srtp_key_length (master->profile), have = 0;
  guint8 block[32], msg[4];

  GST_WRITE_UINT32_BE (msg, id);
  out->profile = master->profile;
  for (guint8 counter = 1; have < want; counter++) {
    GHmac *h = g_hmac_new (G_CHECKSUM_SHA256, master->bytes, want);
    gsize len = sizeof (block);

    g_hmac_update (h, (const guchar *) label, strlen (label));
    g_hmac_update (h, msg, sizeof (msg));
    g_hmac_update (h, &counter, 1);
    g_hmac_get_digest (h, block, &len);
    g_hmac_unref (h);
    memcpy (out->bytes + have, block, MIN (len, want - have));
    have += MIN (len, want - have);
  }
  gst_net_key_wipe (block, sizeof (block));
}

GstNetSrtp *
gst_net_srtp_new_from_key (const GstNetSrtpKey * key,
    GstNetSrtpDirection direction, GError ** error)
{
  return gst_net_srtp_new (key->bytes, key->profile, direction, error);
}

gboolean
gst_net_srtp_load (const GstNetSrtpSettings * s,
    GstNetSrtpDirection direction, GstNetSrtp ** out, GError ** error)
{
  GstNetSrtpKey key;
  gboolean have_key;

  *out = NULL;
  if (!gst_net_srtp_key_load (s, &key, &have_key, error))
    return FALSE;
  if (have_key)
    *out = gst_net_srtp_new_from_key (&key, direction, error);
  gst_net_key_wipe (&key, sizeof (key));
  return !have_key || *out != NULL;
}

void
gst_net_srtp_free (GstNetSrtp * srtp)
{
  if (!srtp)
    return;
  srtp_dealloc (srtp->session);
  g_mutex_clear (&srtp->lock);
  g_free (srtp);
}

gboolean
gst_net_srtp_is_rtcp (const guint8 * data, gsize len)
{
  return len >= 2 && data[1] >= 192 && data[1] <= 223;
}

static gboolean
looks_like_rtp (const guint8 * data, gsize len)
{
  return len >= RTP_HEADER_SIZE && len <= G_MAXINT && (data[0] >> 6) == 2 &&
      !gst_net_srtp_is_rtcp (data, len);
}

gsize
gst_net_srtp_protect (GstNetSrtp * srtp, guint8 * buf, gsize len, gsize max)
{
  srtp_err_status_t status = srtp_err_status_bad_param;
  int n = (int) len;

  g_mutex_lock (&srtp->lock);
  if (looks_like_rtp (buf, len) && max >= len + GST_NET_SRTP_MAX_OVERHEAD)
    status = srtp_protect (srtp->session, buf, &n);
  if (status == srtp_err_status_ok)
    srtp->st.protected_packets++;
  else
    srtp->st.protect_failed++;
  g_mutex_unlock (&srtp->lock);
  return status == srtp_err_status_ok ? (gsize) n : 0;
}

static GstNetSrtpVerdict
verdict_of (srtp_err_status_t status)
{
  switch (status) {
    case srtp_err_status_ok:
      return GST_NET_SRTP_OK;
    case srtp_err_status_auth_fail:
    case srtp_err_status_cipher_fail:
      return GST_NET_SRTP_AUTH_FAILED;
    case srtp_err_status_replay_fail:
    case srtp_err_status_replay_old:
      return GST_NET_SRTP_REPLAYED;
    default:
      return GST_NET_SRTP_MALFORMED;
  }
}

/* libsrtp checks the tag before it decrypts: a packet that fails is left
 * as it was, and another session can try it. */
static GstNetSrtpVerdict
unprotect (GstNetSrtp * srtp, guint8 * buf, gsize * len)
{
  GstNetSrtpVerdict v = GST_NET_SRTP_MALFORMED;
  int n = (int) *len;

  g_mutex_lock (&srtp->lock);
  if (looks_like_rtp (buf, *len))
    v = verdict_of (srtp_unprotect (srtp->session, buf, &n));
  g_mutex_unlock (&srtp->lock);
  if (v == GST_NET_SRTP_OK)
    *len = n;
  return v;
}

static void
count_verdict (GstNetSrtp * srtp, GstNetSrtpVerdict v)
{
  guint64 *by_verdict[] = {
    [GST_NET_SRTP_OK] = &srtp->st.accepted,
    [GST_NET_SRTP_AUTH_FAILED] = &srtp->st.auth_failed,
    [GST_NET_SRTP_REPLAYED] = &srtp->st.replayed,
    [GST_NET_SRTP_MALFORMED] = &srtp->st.malformed,
  };

  g_mutex_lock (&srtp->lock);
  (*by_verdict[v])++;
  g_mutex_unlock (&srtp->lock);
}

GstNetSrtpVerdict
gst_net_srtp_unprotect (GstNetSrtp * srtp, guint8 * buf, gsize * len)
{
  GstNetSrtpVerdict v = unprotect (srtp, buf, len);

  count_verdict (srtp, v);
  return v;
}

GstNetSrtpVerdict
gst_net_srtp_unprotect_either (GstNetSrtp * first, GstNetSrtp * second,
    guint8 * buf, gsize * len)
{
  GstNetSrtpVerdict v = unprotect (first, buf, len);

  if (v == GST_NET_SRTP_AUTH_FAILED && second)
    return gst_net_srtp_unprotect (second, buf, len);
  count_verdict (first, v);
  return v;
}

const guint8 *
gst_net_srtp_unprotect_copy (GstNetSrtp * srtp, GstNetSrtp * second,
    const guint8 * data, gsize * len, guint8 * out, gsize max)
{
  if (*len > max) {
    count_verdict (srtp, GST_NET_SRTP_MALFORMED);
    return NULL;
  }
  if (*len)                     /* an empty datagram may come as NULL */
    memcpy (out, data, *len);
  if (gst_net_srtp_unprotect_either (srtp, second, out, len) !=
      GST_NET_SRTP_OK)
    return NULL;
  return out;
}

void
gst_net_srtp_add_stats (GstNetSrtp * srtp, GstNetSrtpStats * st)
{
  g_mutex_lock (&srtp->lock);
  st->protected_packets += srtp->st.protected_packets;
  st->protect_failed += srtp->st.protect_failed;
  st->accepted += srtp->st.accepted;
  st->auth_failed += srtp->st.auth_failed;
  st->replayed += srtp->st.replayed;
  st->malformed += srtp->st.malformed;
  g_mutex_unlock (&srtp->lock);
}

void
gst_net_srtp_get_stats (GstNetSrtp * srtp, GstNetSrtpStats * st)
{
  memset (st, 0, sizeof (*st));
  gst_net_srtp_add_stats (srtp, st);
}

void
gst_net_srtp_stats_fields (GstStructure * s, gboolean have_key,
    const GstNetSrtpStats * st)
{
  gst_structure_set (s,
      "srtp", G_TYPE_BOOLEAN, have_key,
      "srtp-protected", G_TYPE_UINT64, st->protected_packets,
      "srtp-protect-failed", G_TYPE_UINT64, st->protect_failed,
      "srtp-accepted", G_TYPE_UINT64, st->accepted,
      "srtp-auth-failed", G_TYPE_UINT64, st->auth_failed,
      "srtp-replayed", G_TYPE_UINT64, st->replayed,
      "srtp-malformed", G_TYPE_UINT64, st->malformed, NULL);
}

void
gst_net_srtp_stats (GstStructure * s, GstNetSrtp * srtp)
{
  GstNetSrtpStats st = { 0, };

  if (srtp)
    gst_net_srtp_get_stats (srtp, &st);
  gst_net_srtp_stats_fields (s, srtp != NULL, &st);
}
