/* The group key of a network element (docs/security.md): the `key` and
 * `key-file` properties, the same for every protocol, and through
 * gstneturi.h (which takes every writable property) the `key` and
 * `key-file` URI parameters.
 *
 * `key` is write-only: it is never read back, never written by get_uri and
 * never logged; its memory is wiped when it is replaced or freed.
 * `key-file` names a file whose text (trailing white space removed) is
 * the key. Either is 64 hex digits (the key itself) or a passphrase of
 * AUTH_PASSPHRASE_MIN to AUTH_PASSPHRASE_MAX bytes (core/auth.h). The
 * settings are checked when the element starts: a bad key, both set, or a
 * key file that cannot be read fails the start with an error that names
 * the property and never shows the key. */
#ifndef __GST_NET_KEY_H__
#define __GST_NET_KEY_H__

#include <gst/gst.h>
#include "core/auth.h"

G_BEGIN_DECLS

/* Offsets from the element's first key id. */
enum
{
  GST_NET_KEY_PROP_KEY,
  GST_NET_KEY_PROP_KEY_FILE,
  GST_NET_KEY_N_PROPS
};

/* Under the element's object lock. */
typedef struct
{
  gchar *key;                   /* secret */
  gchar *key_file;
} GstNetKeySettings;

/* The longest key file read (bytes). */
#define GST_NET_KEY_FILE_MAX 4096

/* Installs `key` and `key-file` at @first_id + GST_NET_KEY_PROP_*, mutable
 * in READY; @what names what the key authenticates, in the element's
 * words. Returns the first free id. */
guint gst_net_key_install (GObjectClass * klass, guint first_id,
    const gchar * what);

/* Installs the pair PREFIXkey (write-only) and PREFIXkey-file at
 * @first_id + GST_NET_KEY_PROP_* (mutable in READY), for a secret of
 * another kind (@prefix "srtp-": gstnetsrtp.h); gst_net_key_set / get /
 * settings_* then keep them. */
void gst_net_key_install_named (GObjectClass * klass, guint first_id,
    const gchar * prefix, const gchar * key_nick, const gchar * key_blurb,
    const gchar * file_nick, const gchar * file_blurb);

/* TRUE if @prop_id is one of them (then it was set / read; `key` is never
 * read). Call under the object lock. */
gboolean gst_net_key_set (GstNetKeySettings * s, guint first_id,
    guint prop_id, const GValue * value);
gboolean gst_net_key_get (const GstNetKeySettings * s, guint first_id,
    guint prop_id, GValue * value);

void gst_net_key_settings_copy (GstNetKeySettings * dst,
    const GstNetKeySettings * src);
/* Frees the strings, wiping the key. */
void gst_net_key_settings_clear (GstNetKeySettings * s);

/* At start (holding no lock: it reads a file): *@have_key FALSE when
 * neither is set; else the key in @key. FALSE with @error on a bad key. */
gboolean gst_net_key_load (const GstNetKeySettings * s, AuthKey * key,
    gboolean * have_key, GError ** error);

/* Parses a key's text into @out; FALSE with an error that does not show
 * the text. */
typedef gboolean (*GstNetKeyParse) (const gchar * text, gpointer out,
    GError ** error);

/* gst_net_key_load for the pair named with @prefix (NULL: key, key-file):
 * the text of PREFIXkey or of the file PREFIXkey-file given to @parse. */
gboolean gst_net_key_load_with (const GstNetKeySettings * s,
    const gchar * prefix, GstNetKeyParse parse, gpointer out,
    gboolean * have_key, GError ** error);

/* Overwrites @len bytes at @p in a way the compiler keeps. */
void gst_net_key_wipe (gpointer p, gsize len);

/* The auth counters as stats fields: `auth` (a key is set), auth-sealed,
 * auth-accepted, auth-truncated, auth-bad-tag, auth-replayed,
 * auth-too-old, auth-evicted, auth-senders (zero without a key). */
void gst_net_key_stats (GstStructure * s, gboolean authenticated,
    const AuthStats * st);

#define GST_NET_KEY_STATS_DOC \
  "auth: a group key is set (boolean); " \
  "auth-sealed: control packets sealed with the key (packets); " \
  "auth-accepted: control packets with a sound, fresh trailer " \
  "(packets); " \
  "auth-truncated: control packets too short for a trailer, dropped " \
  "(packets); " \
  "auth-bad-tag: control packets whose tag does not match (forged, " \
  "altered or under another key), dropped (packets); " \
  "auth-replayed: control packets whose counter was seen before, dropped " \
  "(packets); " \
  "auth-too-old: control packets behind their sender's replay window, " \
  "dropped (packets); " \
  "auth-evicted: senders forgotten to make room for new ones (senders); " \
  "auth-senders: senders whose replay window is kept (senders)"

G_END_DECLS

#endif /* __GST_NET_KEY_H__ */
