/* SRTP (RFC 3711) inside the network elements, over libsrtp2
 * (docs/security.md, "Media: SRTP").
 *
 * A sink protects each RTP packet after its last header rewrite, a source
 * unprotects each one before its core reads a header. The key is the
 * master key followed by the master salt, as srtpenc's `key` takes it: 60
 * hex digits or 40 base64 characters for the AES-128 profiles (30 bytes),
 * 92 hex digits or 64 base64 characters for AES-256 (46 bytes). One key
 * serves every SSRC (libsrtp's ssrc_any_outbound / ssrc_any_inbound), so
 * senders sharing a key must use different SSRCs.
 *
 * The properties `srtp-key` (write-only, never read back, never logged,
 * wiped when replaced), `srtp-key-file` and `srtp-profile`, and through
 * gstneturi.h the URI parameters of the same names. RTCP is not touched:
 * the protocols' RTCP is control, which the group key (gstnetkey.h)
 * authenticates. */
#ifndef __GST_NET_SRTP_H__
#define __GST_NET_SRTP_H__

#include <gst/gst.h>
#include "gstnetkey.h"

G_BEGIN_DECLS

typedef enum
{
  GST_NET_SRTP_AES_128_CM_HMAC_SHA1_80,
  GST_NET_SRTP_AES_128_CM_HMAC_SHA1_32,
  GST_NET_SRTP_AES_256_CM_HMAC_SHA1_80,
  GST_NET_SRTP_AES_256_CM_HMAC_SHA1_32,
} GstNetSrtpProfile;

#define GST_TYPE_NET_SRTP_PROFILE (gst_net_srtp_profile_get_type ())
GType gst_net_srtp_profile_get_type (void);

/* Master key + salt of @profile, bytes. */
gsize gst_net_srtp_key_length (GstNetSrtpProfile profile);

/* Bytes a protected packet may grow by (the tag). */
#define GST_NET_SRTP_MAX_OVERHEAD 16

/* Offsets from the element's first SRTP property id: srtp-key and
 * srtp-key-file are gstnetkey.h's pair under another name. */
enum
{
  GST_NET_SRTP_PROP_KEY = GST_NET_KEY_PROP_KEY,
  GST_NET_SRTP_PROP_KEY_FILE = GST_NET_KEY_PROP_KEY_FILE,
  GST_NET_SRTP_PROP_PROFILE = GST_NET_KEY_N_PROPS,
  GST_NET_SRTP_N_PROPS
};

/* Under the element's object lock. */
typedef struct
{
  GstNetKeySettings secret;     /* srtp-key, srtp-key-file */
  GstNetSrtpProfile profile;
} GstNetSrtpSettings;

/* Installs the three properties at @first_id (mutable in READY); @what
 * says which packets the key protects, in the element's words. Returns
 * the first free id. */
guint gst_net_srtp_install (GObjectClass * klass, guint first_id,
    const gchar * what);
gboolean gst_net_srtp_set (GstNetSrtpSettings * s, guint first_id,
    guint prop_id, const GValue * value);
gboolean gst_net_srtp_get (const GstNetSrtpSettings * s, guint first_id,
    guint prop_id, GValue * value);
void gst_net_srtp_settings_init (GstNetSrtpSettings * s);
void gst_net_srtp_settings_copy (GstNetSrtpSettings * dst,
    const GstNetSrtpSettings * src);
void gst_net_srtp_settings_clear (GstNetSrtpSettings * s);

/* Parses @text (hex or base64, see above) into @key, which holds
 * gst_net_srtp_key_length (@profile) bytes. The error never shows the
 * key. */
gboolean gst_net_srtp_parse_key (const gchar * text,
    GstNetSrtpProfile profile, guint8 * key, GError ** error);

#define GST_NET_SRTP_KEY_MAX 46

/* A master key + salt and its profile (secret: wipe with
 * gst_net_key_wipe). */
typedef struct
{
  guint8 bytes[GST_NET_SRTP_KEY_MAX];
  GstNetSrtpProfile profile;
} GstNetSrtpKey;

/* At start, holding no lock (it may read a file): *@have_key FALSE when
 * neither srtp-key nor srtp-key-file is set. FALSE with @error on a bad
 * setting. */
gboolean gst_net_srtp_key_load (const GstNetSrtpSettings * s,
    GstNetSrtpKey * key, gboolean * have_key, GError ** error);
/* The key of one (@label, @id) under @master: HMAC-SHA-256 of the label,
 * the id and a block counter, keyed with @master, cut to the profile's
 * length. Where one sender's packets with one SSRC and index differ per
 * destination, a key per destination keeps SRTP's keystream from being
 * used twice. */
void gst_net_srtp_key_derive (const GstNetSrtpKey * master,
    const gchar * label, guint32 id, GstNetSrtpKey * out);

typedef enum
{
  GST_NET_SRTP_SEND,
  GST_NET_SRTP_RECEIVE
} GstNetSrtpDirection;

typedef enum
{
  GST_NET_SRTP_OK,
  GST_NET_SRTP_AUTH_FAILED,     /* forged, altered or under another key */
  GST_NET_SRTP_REPLAYED,        /* index seen, or behind the window */
  GST_NET_SRTP_MALFORMED,       /* not an RTP packet libsrtp can take */
} GstNetSrtpVerdict;

typedef struct
{
  guint64 protected_packets, protect_failed;
  guint64 accepted, auth_failed, replayed, malformed;
} GstNetSrtpStats;

/* One direction's SRTP session; thread-safe. */
typedef struct _GstNetSrtp GstNetSrtp;

GstNetSrtp *gst_net_srtp_new (const guint8 * key, GstNetSrtpProfile profile,
    GstNetSrtpDirection direction, GError ** error);
GstNetSrtp *gst_net_srtp_new_from_key (const GstNetSrtpKey * key,
    GstNetSrtpDirection direction, GError ** error);
/* gst_net_srtp_key_load and a session of the key: *@out NULL without
 * one. */
gboolean gst_net_srtp_load (const GstNetSrtpSettings * s,
    GstNetSrtpDirection direction, GstNetSrtp ** out, GError ** error);
void gst_net_srtp_free (GstNetSrtp * srtp);

/* Protects the RTP packet of @len bytes at @buf in place; @buf has room
 * for @max bytes (@len + GST_NET_SRTP_MAX_OVERHEAD suffices). Returns the
 * protected length, 0 when the packet is refused (counted). */
gsize gst_net_srtp_protect (GstNetSrtp * srtp, guint8 * buf, gsize len,
    gsize max);
/* Checks and decrypts the SRTP packet at @buf in place; *@len becomes the
 * RTP packet's length. Every verdict but OK is counted. */
GstNetSrtpVerdict gst_net_srtp_unprotect (GstNetSrtp * srtp, guint8 * buf,
    gsize * len);
/* The same under @first's key, or when its tag does not match there, under
 * @second's (may be NULL); the verdict is counted once, where it was
 * given. */
GstNetSrtpVerdict gst_net_srtp_unprotect_either (GstNetSrtp * first,
    GstNetSrtp * second, guint8 * buf, gsize * len);

/* A received datagram of *@len bytes at @data (read-only) copied into
 * @out (room for @max bytes) and opened there as by
 * gst_net_srtp_unprotect_either: @out with *@len the RTP packet's length,
 * or NULL when it was refused (counted; longer than @max: malformed). */
const guint8 *gst_net_srtp_unprotect_copy (GstNetSrtp * srtp,
    GstNetSrtp * second, const guint8 * data, gsize * len, guint8 * out,
    gsize max);

/* TRUE if @data is RTCP by RFC 5761's rule (packet types 192..223), which
 * is never SRTP-protected here. */
gboolean gst_net_srtp_is_rtcp (const guint8 * data, gsize len);

/* Adds @srtp's counters to @st. */
void gst_net_srtp_add_stats (GstNetSrtp * srtp, GstNetSrtpStats * st);
void gst_net_srtp_get_stats (GstNetSrtp * srtp, GstNetSrtpStats * st);
/* The fields of @st (@have_key: srtp). */
void gst_net_srtp_stats_fields (GstStructure * s, gboolean have_key,
    const GstNetSrtpStats * st);
/* The SRTP stats fields (@srtp NULL: no key, zeros). */
void gst_net_srtp_stats (GstStructure * s, GstNetSrtp * srtp);

#define GST_NET_SRTP_STATS_DOC \
  "srtp: an SRTP key is set (boolean); " \
  "srtp-protected: RTP packets protected (packets); " \
  "srtp-protect-failed: RTP packets libsrtp refused to protect, dropped " \
  "(packets); " \
  "srtp-accepted: SRTP packets authenticated and decrypted (packets); " \
  "srtp-auth-failed: SRTP packets whose tag does not match (forged, " \
  "altered, unprotected or under another key), dropped (packets); " \
  "srtp-replayed: SRTP packets whose index was seen or is behind the " \
  "replay window, dropped (packets); " \
  "srtp-malformed: packets too short or not RTP, dropped (packets)"

G_END_DECLS

#endif /* __GST_NET_SRTP_H__ */
