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

static void
free_secret (gchar * text)
{
  if (text)
    gst_net_key_wipe (text, strlen (text));
  g_free (text);
}

void
gst_net_key_install_named (GObjectClass * klass, guint first_id,
    const gchar * prefix, const gchar * key_nick, const gchar * key_blurb,
    const gchar * file_nick, const gchar * file_blurb)
{
  const gchar *key_name = g_intern_string (prefix ? prefix : "");
  gchar *name = g_strconcat (key_name, "key", NULL);

  key_name = g_intern_string (name);
  g_free (name);
  name = g_strconcat (key_name, "-file", NULL);
  g_object_class_install_property (klass, first_id + GST_NET_KEY_PROP_KEY,
      g_param_spec_string (key_name, key_nick, key_blurb, NULL,
          G_PARAM_WRITABLE | G_PARAM_STATIC_NAME | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (klass,
      first_id + GST_NET_KEY_PROP_KEY_FILE, g_param_spec_string
      (g_intern_string (name), file_nick, file_blurb, NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_NAME |
          GST_PARAM_MUTABLE_READY));
  g_free (name);
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

  gst_net_key_install_named (klass, first_id, NULL, "Group key", key_blurb,
      "Group key file", file_blurb);
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
    free_secret (s->key);
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
  free_secret (s->key);
  g_free (s->key_file);
  s->key = s->key_file = NULL;
}

/* The text of the key file, trailing white space removed; errors name
 * @setting. */
static gchar *
read_key_file (const gchar * setting, const gchar * path, GError ** error)
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
gst_net_key_load_with (const GstNetKeySettings * s, const gchar * prefix,
    GstNetKeyParse parse, gpointer out, gboolean * have_key, GError ** error)
{
  gchar *key_name = g_strconcat (prefix ? prefix : "", "key", NULL);
  gchar *file_name = g_strconcat (key_name, "-file", NULL), *text = NULL;
  GError *err = NULL;
  gboolean ok = FALSE;

  *have_key = FALSE;
  if (s->key && s->key_file)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "%s and %s are both set; set one of them", key_name, file_name);
  else if (!s->key && !s->key_file)
    ok = TRUE;
  else if ((text = s->key ? g_strdup (s->key) :
          read_key_file (file_name, s->key_file, error))) {
    ok = *have_key = parse (text, out, &err);
    free_secret (text);
  }
  if (err && s->key)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "%s: %s", key_name, err->message);
  else if (err)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "%s \"%s\": %s", file_name, s->key_file, err->message);
  g_clear_error (&err);
  g_free (key_name);
  g_free (file_name);
  return ok;
}

static gboolean
parse_group_key (const gchar * text, gpointer key, GError ** error)
{
  return auth_key_from_string (text, key, error);
}

gboolean
gst_net_key_load (const GstNetKeySettings * s, AuthKey * key,
    gboolean * have_key, GError ** error)
{
  return gst_net_key_load_with (s, NULL, parse_group_key, key, have_key,
      error);
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
