/* Stateless return-routability cookies; see addrcookie.h. */
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include "addrcookie.h"

void
addr_cookie_system_random (guint8 * secret, gsize len, gpointer user_data)
{
  gsize got = 0;

  while (got < len) {
    gssize n = getrandom (secret + got, len - got, 0);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      break;
    got += n;
  }
  if (got < len) {
    /* no kernel generator (ENOSYS): GLib's, seeded from /dev/urandom */
    g_warning ("getrandom failed (%s): cookie secret from g_random",
        g_strerror (errno));
    for (; got < len; got++)
      secret[got] = g_random_int_range (0, 256);
  }
}

void
addr_cookie_jar_init (AddrCookieJar * jar, gint64 period, gint64 now,
    AddrCookieRandomFunc random, gpointer user_data)
{
  memset (jar, 0, sizeof (*jar));
  jar->period = MAX (period, 1);
  jar->rotated = now;
  random (jar->cur, sizeof (jar->cur), user_data);
}

void
addr_cookie_jar_tick (AddrCookieJar * jar, gint64 now,
    AddrCookieRandomFunc random, gpointer user_data)
{
  if (now - jar->rotated < jar->period)
    return;
  /* After a long pause both secrets are stale: drop the old one too. */
  jar->have_prev = now - jar->rotated < 2 * jar->period;
  if (jar->have_prev)
    memcpy (jar->prev, jar->cur, sizeof (jar->cur));
  random (jar->cur, sizeof (jar->cur), user_data);
  jar->rotated = now;
}

static guint64
cookie_under (const guint8 * secret, guint32 id, const guint8 * addr,
    gsize addr_len)
{
  GHmac *h = g_hmac_new (G_CHECKSUM_SHA256, secret, ADDR_COOKIE_SECRET_SIZE);
  guint8 idb[4] = { id >> 24, id >> 16, id >> 8, id };
  guint8 lenb = (guint8) MIN (addr_len, 255);
  guint8 digest[32];
  gsize n = sizeof (digest);
  guint64 c = 0;

  g_hmac_update (h, idb, sizeof (idb));
  g_hmac_update (h, &lenb, 1);
  g_hmac_update (h, addr, lenb);
  g_hmac_get_digest (h, digest, &n);
  g_hmac_unref (h);
  for (guint i = 0; i < ADDR_COOKIE_BITS / 8; i++)
    c = (c << 8) | digest[i];
  return c;
}

guint64
addr_cookie_make (const AddrCookieJar * jar, guint32 id, const guint8 * addr,
    gsize addr_len)
{
  return cookie_under (jar->cur, id, addr, addr_len);
}

gboolean
addr_cookie_check (const AddrCookieJar * jar, guint32 id,
    const guint8 * addr, gsize addr_len, guint64 cookie)
{
  if (cookie == cookie_under (jar->cur, id, addr, addr_len))
    return TRUE;
  return jar->have_prev &&
      cookie == cookie_under (jar->prev, id, addr, addr_len);
}

void
addr_cookie_limiter_init (AddrCookieLimiter * l, gint64 interval, guint cap)
{
  l->interval = MAX (interval, 1);
  l->cap = cap;
  l->window_start = G_MININT64;
  l->window_count = 0;
  for (guint i = 0; i < ADDR_COOKIE_LIMITER_SLOTS; i++)
    l->last[i] = G_MININT64;
}

/* FNV-1a over the id and the address. */
static guint
limiter_slot (guint32 id, const guint8 * addr, gsize addr_len)
{
  guint32 h = 2166136261u;

  for (guint i = 0; i < 4; i++)
    h = (h ^ ((id >> (8 * i)) & 0xff)) * 16777619u;
  for (gsize i = 0; i < addr_len; i++)
    h = (h ^ addr[i]) * 16777619u;
  return h % ADDR_COOKIE_LIMITER_SLOTS;
}

gboolean
addr_cookie_limiter_take (AddrCookieLimiter * l, guint32 id,
    const guint8 * addr, gsize addr_len, gint64 now)
{
  guint slot = limiter_slot (id, addr, addr_len);

  if (l->window_start == G_MININT64 || now - l->window_start >= l->interval) {
    l->window_start = now;
    l->window_count = 0;
  }
  if (l->window_count >= l->cap)
    return FALSE;
  if (l->last[slot] != G_MININT64 && now - l->last[slot] < l->interval)
    return FALSE;
  l->last[slot] = now;
  l->window_count++;
  return TRUE;
}
