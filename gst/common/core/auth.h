/* Authenticated, fresh control packets under a group key (GLib only;
 * docs/security.md).
 *
 * Every member of a session holds the same 256-bit key. A sender appends a
 * trailer to each control packet:
 *
 *   sender id (32) | counter (64) | tag (96)         = AUTH_TRAILER_SIZE
 *
 * big-endian; the tag is HMAC-SHA-256 under the key of the packet and the
 * first 12 trailer bytes, truncated to its first 12 bytes. The sender id
 * is drawn at random for each sealing session, so it also names the
 * sender's epoch; the counter starts at 1 and grows by 1 per packet.
 *
 * A receiver checks, in this order: the length (AUTH_TRUNCATED), the tag
 * in constant time (AUTH_BAD_TAG), then the sender's replay window, a
 * 64-packet sliding bitmap behind the highest counter seen as in RFC 4303
 * 3.4.3 (a counter seen before: AUTH_REPLAYED; one 64 or more behind the
 * highest: AUTH_TOO_OLD). Only a packet with a sound tag moves a window;
 * reordering within the window is accepted. At most @max_senders windows
 * are kept; a new sender beyond that takes the place of the one seen
 * least recently.
 *
 * Keys (auth_key_from_string): exactly 64 hex digits are the key itself;
 * any other string of AUTH_PASSPHRASE_MIN to AUTH_PASSPHRASE_MAX bytes is
 * a passphrase, and the key is PBKDF2-HMAC-SHA-256 (RFC 8018 5.2) of it
 * with the salt AUTH_KDF_SALT and AUTH_KDF_ITERATIONS iterations. */
#ifndef __CORE_AUTH_H__
#define __CORE_AUTH_H__

#include <glib.h>

G_BEGIN_DECLS

#define AUTH_KEY_SIZE 32
#define AUTH_TAG_SIZE 12
#define AUTH_TRAILER_SIZE (4 + 8 + AUTH_TAG_SIZE)
#define AUTH_WINDOW 64
#define AUTH_DEFAULT_MAX_SENDERS 1024

#define AUTH_PASSPHRASE_MIN 10
#define AUTH_PASSPHRASE_MAX 256
#define AUTH_KDF_SALT "gst-rtp-transports group key v1"
#define AUTH_KDF_ITERATIONS 100000

typedef struct
{
  guint8 bytes[AUTH_KEY_SIZE];
} AuthKey;

#define AUTH_ERROR (auth_error_quark ())
GQuark auth_error_quark (void);

typedef enum
{
  AUTH_ERROR_KEY,               /* not a key: the message says why */
} AuthError;

/* The key of @text (64 hex digits, or a passphrase). The error says what
 * was expected and never repeats @text. */
gboolean auth_key_from_string (const gchar * text, AuthKey * key,
    GError ** error);

/* PBKDF2 with HMAC-SHA-256 as the PRF (RFC 8018 5.2): @out_len bytes. */
void auth_pbkdf2_sha256 (const guint8 * pass, gsize pass_len,
    const guint8 * salt, gsize salt_len, guint iterations, guint8 * out,
    gsize out_len);

typedef enum
{
  AUTH_OK,
  AUTH_TRUNCATED,               /* shorter than a trailer */
  AUTH_BAD_TAG,                 /* the tag does not match: forged, altered
                                 * or under another key */
  AUTH_REPLAYED,                /* a counter this sender used already */
  AUTH_TOO_OLD,                 /* behind this sender's window */
} AuthVerdict;

typedef struct
{
  guint64 sealed;               /* packets sealed */
  guint64 accepted;             /* packets opened */
  guint64 truncated, bad_tag, replayed, too_old;
  guint64 evicted;              /* senders forgotten for a new one */
  guint senders;                /* windows kept now */
} AuthStats;

typedef struct _AuthSession AuthSession;

/* Seals as @sender_id (draw it at random for each session) and opens
 * packets of at most @max_senders other senders (at least 1). */
AuthSession *auth_session_new (const AuthKey * key, guint32 sender_id,
    guint max_senders);
void auth_session_free (AuthSession * s);

/* Appends the trailer to the @len-byte packet at @buf (in place); returns
 * @len + AUTH_TRAILER_SIZE, or 0 and nothing written if @max is too
 * small. */
gsize auth_seal (AuthSession * s, guint8 * buf, gsize len, gsize max);

/* Checks the datagram @data (lent for the call); on AUTH_OK the packet is
 * its first *@payload_len bytes and *@sender (may be NULL) its sender id.
 * Any other verdict is counted and changes no window. */
AuthVerdict auth_open (AuthSession * s, const guint8 * data, gsize len,
    gint64 now, gsize * payload_len, guint32 * sender);

void auth_session_get_stats (const AuthSession * s, AuthStats * st);

const gchar *auth_verdict_name (AuthVerdict v);

G_END_DECLS

#endif /* __CORE_AUTH_H__ */
