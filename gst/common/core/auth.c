/* Authenticated, fresh control packets: see auth.h and docs/security.md. */
#include <string.h>

#include "core/auth.h"
#include "core/wire.h"

#define HMAC_SHA256_SIZE 32
/* sender id and counter: what the tag covers after the packet */
#define AUTH_HEADER_SIZE (AUTH_TRAILER_SIZE - AUTH_TAG_SIZE)

typedef struct
{
  guint64 top;                  /* highest counter accepted */
  guint64 seen;                 /* bit i: counter top - i accepted */
  gint64 last_seen;
  guint64 order;                /* breaks ties of last_seen */
} AuthPeer;

struct _AuthSession
{
  GHmac *hmac;                  /* keyed; copied for each packet */
  guint32 sender_id;
  guint64 counter;              /* the last one sealed */
  guint max_senders;
  GHashTable *peers;            /* sender id -> AuthPeer */
  guint64 tick;
  AuthStats st;
};

G_DEFINE_QUARK (auth-error-quark, auth_error);

/* ------------------------------------------------------------------ */
/* Keys */

static void
hmac_sha256_digest (GHmac * h, guint8 * out)
{
  gsize n = HMAC_SHA256_SIZE;

  g_hmac_get_digest (h, out, &n);
}

void
auth_pbkdf2_sha256 (const guint8 * pass, gsize pass_len, const guint8 * salt,
    gsize salt_len, guint iterations, guint8 * out, gsize out_len)
{
  GHmac *prf = g_hmac_new (G_CHECKSUM_SHA256, pass, pass_len);

  for (guint32 block = 1; out_len > 0; block++) {
    guint8 u[HMAC_SHA256_SIZE], t[HMAC_SHA256_SIZE], index[4];
    gsize n = MIN (out_len, sizeof (t));
    GHmac *h = g_hmac_copy (prf);

    write32 (index, block);
    g_hmac_update (h, salt, salt_len);
    g_hmac_update (h, index, sizeof (index));
    hmac_sha256_digest (h, u);
    g_hmac_unref (h);
    memcpy (t, u, sizeof (t));
    for (guint i = 1; i < iterations; i++) {
      h = g_hmac_copy (prf);
      g_hmac_update (h, u, sizeof (u));
      hmac_sha256_digest (h, u);
      g_hmac_unref (h);
      for (guint j = 0; j < sizeof (t); j++)
        t[j] ^= u[j];
    }
    memcpy (out, t, n);
    out += n;
    out_len -= n;
  }
  g_hmac_unref (prf);
}

static gboolean
is_hex_key (const gchar * text, gsize len)
{
  if (len != 2 * AUTH_KEY_SIZE)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isxdigit (text[i]))
      return FALSE;
  return TRUE;
}

gboolean
auth_key_from_string (const gchar * text, AuthKey * key, GError ** error)
{
  gsize len = text ? strlen (text) : 0;

  if (is_hex_key (text, len)) {
    for (guint i = 0; i < AUTH_KEY_SIZE; i++)
      key->bytes[i] = (g_ascii_xdigit_value (text[2 * i]) << 4) |
          g_ascii_xdigit_value (text[2 * i + 1]);
    return TRUE;
  }
  if (len < AUTH_PASSPHRASE_MIN || len > AUTH_PASSPHRASE_MAX) {
    g_set_error (error, AUTH_ERROR, AUTH_ERROR_KEY, "a key is 64 hex digits "
        "or a passphrase of %d to %d bytes; this one has %" G_GSIZE_FORMAT
        " bytes", AUTH_PASSPHRASE_MIN, AUTH_PASSPHRASE_MAX, len);
    return FALSE;
  }
  auth_pbkdf2_sha256 ((const guint8 *) text, len,
      (const guint8 *) AUTH_KDF_SALT, strlen (AUTH_KDF_SALT),
      AUTH_KDF_ITERATIONS, key->bytes, AUTH_KEY_SIZE);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Sessions */

AuthSession *
auth_session_new (const AuthKey * key, guint32 sender_id, guint max_senders)
{
  AuthSession *s = g_new0 (AuthSession, 1);

  s->hmac = g_hmac_new (G_CHECKSUM_SHA256, key->bytes, AUTH_KEY_SIZE);
  s->sender_id = sender_id;
  s->max_senders = MAX (max_senders, 1);
  s->peers = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  return s;
}

void
auth_session_free (AuthSession * s)
{
  if (!s)
    return;
  g_hmac_unref (s->hmac);
  g_hash_table_destroy (s->peers);
  g_free (s);
}

/* The tag of the @len bytes at @data (packet, sender id and counter). */
static void
compute_tag (const AuthSession * s, const guint8 * data, gsize len,
    guint8 * tag)
{
  guint8 digest[HMAC_SHA256_SIZE];
  GHmac *h = g_hmac_copy (s->hmac);

  g_hmac_update (h, data, len);
  hmac_sha256_digest (h, digest);
  g_hmac_unref (h);
  memcpy (tag, digest, AUTH_TAG_SIZE);
}

gsize
auth_seal (AuthSession * s, guint8 * buf, gsize len, gsize max)
{
  if (max < AUTH_TRAILER_SIZE || len > max - AUTH_TRAILER_SIZE)
    return 0;
  write32 (buf + len, s->sender_id);
  write64 (buf + len + 4, ++s->counter);
  compute_tag (s, buf, len + AUTH_HEADER_SIZE, buf + len + AUTH_HEADER_SIZE);
  s->st.sealed++;
  return len + AUTH_TRAILER_SIZE;
}

/* Differences anywhere cost the same time: no early exit. */
static gboolean
tags_equal (const guint8 * a, const guint8 * b)
{
  guint8 diff = 0;

  for (guint i = 0; i < AUTH_TAG_SIZE; i++)
    diff |= a[i] ^ b[i];
  return diff == 0;
}

static AuthVerdict
window_check (const AuthPeer * p, guint64 counter)
{
  guint64 behind;

  if (counter > p->top)
    return AUTH_OK;
  behind = p->top - counter;
  if (behind >= AUTH_WINDOW)
    return AUTH_TOO_OLD;
  return (p->seen >> behind) & 1 ? AUTH_REPLAYED : AUTH_OK;
}

static void
window_update (AuthPeer * p, guint64 counter)
{
  guint64 ahead;

  if (counter <= p->top) {
    p->seen |= G_GUINT64_CONSTANT (1) << (p->top - counter);
    return;
  }
  ahead = counter - p->top;
  p->seen = ahead >= AUTH_WINDOW ? 1 : (p->seen << ahead) | 1;
  p->top = counter;
}

static void
evict_least_recent (AuthSession * s)
{
  GHashTableIter it;
  gpointer k, v, victim = NULL;
  const AuthPeer *oldest = NULL;

  g_hash_table_iter_init (&it, s->peers);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    const AuthPeer *p = v;

    if (!oldest || p->last_seen < oldest->last_seen ||
        (p->last_seen == oldest->last_seen && p->order < oldest->order)) {
      oldest = p;
      victim = k;
    }
  }
  g_hash_table_remove (s->peers, victim);
  s->st.evicted++;
}

/* A new sender's window starts at its first sound packet. */
static AuthPeer *
add_peer (AuthSession * s, guint32 sender, guint64 counter)
{
  AuthPeer *p = g_new0 (AuthPeer, 1);

  if (g_hash_table_size (s->peers) >= s->max_senders)
    evict_least_recent (s);
  p->top = counter;
  p->seen = 1;
  g_hash_table_insert (s->peers, GUINT_TO_POINTER (sender), p);
  return p;
}

/* Counts a refusal by its verdict (never AUTH_OK). */
static AuthVerdict
count_refusal (AuthSession * s, AuthVerdict v)
{
  guint64 *counter[] = { NULL, &s->st.truncated, &s->st.bad_tag,
    &s->st.replayed, &s->st.too_old
  };

  (*counter[v])++;
  return v;
}

AuthVerdict
auth_open (AuthSession * s, const guint8 * data, gsize len, gint64 now,
    gsize * payload_len, guint32 * sender)
{
  const guint8 *trailer;
  guint8 tag[AUTH_TAG_SIZE];
  guint32 id;
  guint64 counter;
  AuthPeer *p;
  AuthVerdict v;

  if (!data || len < AUTH_TRAILER_SIZE)
    return count_refusal (s, AUTH_TRUNCATED);
  trailer = data + len - AUTH_TRAILER_SIZE;
  compute_tag (s, data, len - AUTH_TAG_SIZE, tag);
  if (!tags_equal (tag, trailer + AUTH_HEADER_SIZE))
    return count_refusal (s, AUTH_BAD_TAG);
  id = read32 (trailer);
  counter = read64 (trailer + 4);
  p = g_hash_table_lookup (s->peers, GUINT_TO_POINTER (id));
  if (p && (v = window_check (p, counter)) != AUTH_OK)
    return count_refusal (s, v);
  if (p)
    window_update (p, counter);
  else
    p = add_peer (s, id, counter);
  p->last_seen = now;
  p->order = ++s->tick;
  s->st.accepted++;
  *payload_len = len - AUTH_TRAILER_SIZE;
  if (sender)
    *sender = id;
  return AUTH_OK;
}

void
auth_session_get_stats (const AuthSession * s, AuthStats * st)
{
  *st = s->st;
  st->senders = g_hash_table_size (s->peers);
}

const gchar *
auth_verdict_name (AuthVerdict v)
{
  static const gchar *names[] = { "ok", "truncated", "bad-tag", "replayed",
    "too-old"
  };

  return v <= AUTH_TOO_OLD ? names[v] : "unknown";
}
