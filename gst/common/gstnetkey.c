/* The group key properties (see gstnetkey.h). */
#include <string.h>

#include "gstnetkey.h"

void
gst_net_key_wipe (gpointer p, gsize len)
{
  volatile guint8 *v = p;

  while (len--)
    *v++ = 0;
}

void
gst_net_key_free_secret (gchar * text)
{
  if (text)
    gst_net_key_wipe (text, strlen (text));
  g_free (text);
}

guint
gst_net_key_install (GObjectClass * klass, guint first_id, const gchar * what)
{
  gchar *key_blurb = g_strdup_printf ("Group key that authenticates %s "
      "(docs/security.md): 64 hex digits (the 256-bit key), or a passphrase "
      "of %d to %d bytes (the key is PBKDF2-HMAC-SHA-256 of it). Write-only: "
      "never read back or put in the URI. NULL or empty: no key, packets "
      "as without one", what, AUTH_PASSPHRASE_MIN, AUTH_PASSPHRASE_MAX);
  gchar *file_blurb = g_strdup_printf ("File whose text (trailing white "
      "space removed, at most %d bytes) is the group key, as the key "
      "property takes it (NULL: none; not both)", GST_NET_KEY_FILE_MAX);

  g_object_class_install_property (klass, first_id + GST_NET_KEY_PROP_KEY,
      g_param_spec_string ("key", "Group key", key_blurb, NULL,
          G_PARAM_WRITABLE | G_PARAM_STATIC_NAME | G_PARAM_STATIC_NICK |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (klass,
      first_id + GST_NET_KEY_PROP_KEY_FILE, g_param_spec_string ("key-file",
          "Group key file", file_blurb, NULL, G_PARAM_READWRITE |
          G_PARAM_STATIC_NAME | G_PARAM_STATIC_NICK |
          GST_PARAM_MUTABLE_READY));
  g_free (key_blurb);
  g_free (file_blurb);
  return first_id + GST_NET_KEY_N_PROPS;
}

/* NULL and "" are both "none". */
static gchar *
dup_setting (const GValue * value)
{
  const gchar *v = g_value_get_string (value);

  return v && *v ? g_strdup (v) : NULL;
}

gboolean
gst_net_key_set (GstNetKeySettings * s, guint first_id, guint prop_id,
    const GValue * value)
{
  if (prop_id == first_id + GST_NET_KEY_PROP_KEY) {
    gst_net_key_free_secret (s->key);
    s->key = dup_setting (value);
    return TRUE;
  }
  if (prop_id == first_id + GST_NET_KEY_PROP_KEY_FILE) {
    g_free (s->key_file);
    s->key_file = dup_setting (value);
    return TRUE;
  }
  return FALSE;
}

gboolean
gst_net_key_get (const GstNetKeySettings * s, guint first_id, guint prop_id,
    GValue * value)
{
  if (prop_id != first_id + GST_NET_KEY_PROP_KEY_FILE)
    return FALSE;
  g_value_set_string (value, s->key_file);
  return TRUE;
}

void
gst_net_key_settings_copy (GstNetKeySettings * dst,
    const GstNetKeySettings * src)
{
  dst->key = g_strdup (src->key);
  dst->key_file = g_strdup (src->key_file);
}

void
gst_net_key_settings_clear (GstNetKeySettings * s)
{
  gst_net_key_free_secret (s->key);
  g_free (s->key_file);
  s->key = s->key_file = NULL;
}

gchar *
gst_net_key_read_file (const gchar * setting, const gchar * path,
    GError ** error)
{
  gchar *text = NULL;
  gsize len = 0;
  GError *err = NULL;

  if (!g_file_get_contents (path, &text, &len, &err)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "%s \"%s\": %s", setting, path, err->message);
    g_error_free (err);
    return NULL;
  }
  if (len > GST_NET_KEY_FILE_MAX || strlen (text) != len) {
    if (len > GST_NET_KEY_FILE_MAX)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "%s \"%s\": longer than %d bytes", setting, path,
          GST_NET_KEY_FILE_MAX);
    else
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "%s \"%s\": holds a NUL byte", setting, path);
    gst_net_key_wipe (text, len);
    g_free (text);
    return NULL;
  }
  return g_strchomp (text);
}

gboolean
gst_net_key_load (const GstNetKeySettings * s, AuthKey * key,
    gboolean * have_key, GError ** error)
{
  GError *err = NULL;
  gchar *text;
  gboolean ok;

  *have_key = FALSE;
  if (s->key && s->key_file) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "key and key-file are both set; set one of them");
    return FALSE;
  }
  if (!s->key && !s->key_file)
    return TRUE;
  text = s->key ? g_strdup (s->key) : gst_net_key_read_file ("key-file",
      s->key_file, error);
  if (!text)
    return FALSE;
  ok = auth_key_from_string (text, key, &err);
  gst_net_key_free_secret (text);
  if (!ok) {
    if (s->key)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "key: %s", err->message);
    else
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "key-file \"%s\": %s", s->key_file, err->message);
    g_error_free (err);
    return FALSE;
  }
  *have_key = TRUE;
  return TRUE;
}

void
gst_net_key_stats (GstStructure * s, gboolean authenticated,
    const AuthStats * st)
{
  gst_structure_set (s,
      "auth", G_TYPE_BOOLEAN, authenticated,
      "auth-sealed", G_TYPE_UINT64, st->sealed,
      "auth-accepted", G_TYPE_UINT64, st->accepted,
      "auth-truncated", G_TYPE_UINT64, st->truncated,
      "auth-bad-tag", G_TYPE_UINT64, st->bad_tag,
      "auth-replayed", G_TYPE_UINT64, st->replayed,
      "auth-too-old", G_TYPE_UINT64, st->too_old,
      "auth-evicted", G_TYPE_UINT64, st->evicted,
      "auth-senders", G_TYPE_UINT, st->senders, NULL);
}
