/* Stateless return-routability cookies (as DTLS's HelloVerifyRequest or
 * QUIC's Retry token): a truncated HMAC-SHA-256 over a peer's id and
 * address under a secret that rotates, so that checking an echoed cookie
 * needs no state per newcomer. The answers that carry cookies are bounded
 * by AddrCookieLimiter, so that they cannot be used to flood an address.
 * GLib and getrandom only, no clock: the caller passes `now` (ns). */
#ifndef __CORE_ADDR_COOKIE_H__
#define __CORE_ADDR_COOKIE_H__

#include <glib.h>

G_BEGIN_DECLS

#define ADDR_COOKIE_SECRET_SIZE 32
/* Bits of HMAC kept in a cookie. */
#define ADDR_COOKIE_BITS 56

/* The secret now and the one before: a cookie checks under either, so it
 * lives between one and two rotation periods. */
typedef struct {
  guint8 cur[ADDR_COOKIE_SECRET_SIZE];
  guint8 prev[ADDR_COOKIE_SECRET_SIZE];
  gboolean have_prev;
  gint64 rotated;               /* when `cur` was made */
  gint64 period;                /* ns between rotations */
} AddrCookieJar;

/* Fills @secret with fresh random bytes. */
typedef void (*AddrCookieRandomFunc) (guint8 * secret, gsize len,
    gpointer user_data);

/* An AddrCookieRandomFunc that draws from the system's cryptographic
 * generator (getrandom). */
void addr_cookie_system_random (guint8 * secret, gsize len,
    gpointer user_data);

void addr_cookie_jar_init (AddrCookieJar * jar, gint64 period, gint64 now,
    AddrCookieRandomFunc random, gpointer user_data);
/* Rotates the secret when its period is over (call before make/check). */
void addr_cookie_jar_tick (AddrCookieJar * jar, gint64 now,
    AddrCookieRandomFunc random, gpointer user_data);
/* The cookie of @id at the @addr_len bytes @addr (ADDR_COOKIE_BITS bits). */
guint64 addr_cookie_make (const AddrCookieJar * jar, guint32 id,
    const guint8 * addr, gsize addr_len);
gboolean addr_cookie_check (const AddrCookieJar * jar, guint32 id,
    const guint8 * addr, gsize addr_len, guint64 cookie);

/* Bounds the answers: at most one per (id, address) per @interval (a
 * fixed table of hashed slots: two pairs that share a slot share the
 * bound), and at most @cap in all per @interval. */
#define ADDR_COOKIE_LIMITER_SLOTS 256
typedef struct {
  gint64 interval;
  guint cap;
  gint64 window_start;
  guint window_count;
  gint64 last[ADDR_COOKIE_LIMITER_SLOTS];       /* G_MININT64: never */
} AddrCookieLimiter;

void addr_cookie_limiter_init (AddrCookieLimiter * l, gint64 interval,
    guint cap);
/* TRUE (and counted) if an answer to @id at @addr may go now. */
gboolean addr_cookie_limiter_take (AddrCookieLimiter * l, guint32 id,
    const guint8 * addr, gsize addr_len, gint64 now);

G_END_DECLS

#endif /* __CORE_ADDR_COOKIE_H__ */
