/* The all-or-nothing URI handler (see gstneturi.h). */
#include <string.h>
#include "gstneturi.h"

typedef struct
{
  GstURIType uri_type;
  const gchar *protocols[2];
  const gchar *host_prop, *port_prop;
} UriInfo;

static GQuark
uri_info_quark (void)
{
  return g_quark_from_static_string ("gst-net-uri-info");
}

void
gst_net_uri_handler_set_info (GType type, GstURIType uri_type,
    const gchar * scheme, const gchar * host_prop, const gchar * port_prop)
{
  UriInfo *info = g_new0 (UriInfo, 1);

  info->uri_type = uri_type;
  info->protocols[0] = scheme;
  info->host_prop = host_prop;
  info->port_prop = port_prop;
  g_type_set_qdata (type, uri_info_quark (), info);
}

/* The info of @type or of the nearest ancestor that set it. */
static const UriInfo *
uri_info (GType type)
{
  for (; type; type = g_type_parent (type)) {
    const UriInfo *info = g_type_get_qdata (type, uri_info_quark ());
    if (info)
      return info;
  }
  g_return_val_if_reached (NULL);
}

/* A writable property of the element's own class named @key. */
static GParamSpec *
uri_pspec (GstElement * element, const gchar * key)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (element),
      key);

  if (!ps || !(ps->flags & G_PARAM_WRITABLE) ||
      ps->owner_type != G_OBJECT_TYPE (element) ||
      g_str_equal (ps->name, GST_NET_URI_PROP))
    return NULL;
  return ps;
}

static gboolean
uri_fail (GError ** error, gint code, const gchar * uri, const gchar * fmt,
    ...) G_GNUC_PRINTF (4, 5);

static gboolean
uri_fail (GError ** error, gint code, const gchar * uri, const gchar * fmt,
    ...)
{
  va_list ap;
  gchar *why;

  va_start (ap, fmt);
  why = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, GST_URI_ERROR, code, "invalid URI \"%s\": %s", uri, why);
  g_free (why);
  return FALSE;
}

/* SCHEME://HOST:PORT[/][?query]: an authority with a port, no path, no
 * fragment, no user. */
static gboolean
uri_shape_ok (GUri * u, const gchar * scheme, const gchar * uri,
    GError ** error)
{
  const gchar *path = g_uri_get_path (u);
  const gchar *why = NULL;

  if (g_uri_get_host (u) == NULL)
    why = "no //HOST:PORT after the scheme";
  else if (g_uri_get_port (u) < 0)
    why = "no port";
  else if (path && *path && strcmp (path, "/") != 0)
    why = "a path is not allowed";
  else if (g_uri_get_fragment (u) || g_uri_get_userinfo (u))
    why = "no fragment or user part is allowed";
  if (why)
    return uri_fail (error, GST_URI_ERROR_BAD_URI, uri, "%s; expected "
        "%s://HOST:PORT?key=value&...", why, scheme);
  return TRUE;
}

typedef struct
{
  GParamSpec *ps;
  GValue v;
} Setting;

/* Checks @text as a value of property @key and keeps it in @settings. */
static gboolean
settings_add (GArray * settings, GstElement * element, const gchar * uri,
    const gchar * key, const gchar * text, GError ** error)
{
  Setting s = { uri_pspec (element, key), G_VALUE_INIT };

  if (!s.ps)
    return uri_fail (error, GST_URI_ERROR_BAD_URI, uri,
        "unknown parameter \"%s\"", key);
  g_value_init (&s.v, s.ps->value_type);
  if (!gst_value_deserialize_with_pspec (&s.v, text, s.ps) ||
      g_param_value_validate (s.ps, &s.v)) {
    g_value_unset (&s.v);
    return uri_fail (error, GST_URI_ERROR_BAD_URI, uri,
        "bad value \"%s\" for %s", text, key);
  }
  g_array_append_val (settings, s);
  return TRUE;
}

static gboolean
settings_add_query (GArray * settings, GstElement * element, GUri * u,
    const gchar * uri, GError ** error)
{
  GHashTable *params;
  GHashTableIter it;
  gpointer k, v;
  GError *err = NULL;
  gboolean ok = TRUE;

  if (!g_uri_get_query (u))
    return TRUE;
  params = g_uri_parse_params (g_uri_get_query (u), -1, "&",
      G_URI_PARAMS_NONE, &err);
  if (!params) {
    uri_fail (error, GST_URI_ERROR_BAD_URI, uri, "%s", err->message);
    g_error_free (err);
    return FALSE;
  }
  g_hash_table_iter_init (&it, params);
  while (ok && g_hash_table_iter_next (&it, &k, &v))
    ok = settings_add (settings, element, uri, k, v, error);
  g_hash_table_unref (params);
  return ok;
}

static void
setting_clear (Setting * s)
{
  g_value_unset (&s->v);
}

static GUri *
uri_parse (const gchar * scheme, const gchar * uri, GError ** error)
{
  GError *err = NULL;
  GUri *u = g_uri_parse (uri, G_URI_FLAGS_NONE, &err);

  if (!u) {
    uri_fail (error, GST_URI_ERROR_BAD_URI, uri, "%s", err->message);
    g_error_free (err);
    return NULL;
  }
  if (g_strcmp0 (g_uri_get_scheme (u), scheme) != 0) {
    uri_fail (error, GST_URI_ERROR_UNSUPPORTED_PROTOCOL, uri,
        "the scheme must be %s", scheme);
    g_uri_unref (u);
    return NULL;
  }
  if (!uri_shape_ok (u, scheme, uri, error)) {
    g_uri_unref (u);
    return NULL;
  }
  return u;
}

gboolean
gst_net_uri_apply (GstElement * element, const gchar * scheme,
    const gchar * uri, const gchar * host_prop, const gchar * port_prop,
    GError ** error)
{
  GUri *u = uri_parse (scheme, uri, error);
  GArray *settings;
  gchar port[16];
  gboolean ok;

  if (!u)
    return FALSE;
  settings = g_array_new (FALSE, TRUE, sizeof (Setting));
  g_array_set_clear_func (settings, (GDestroyNotify) setting_clear);
  g_snprintf (port, sizeof (port), "%d", g_uri_get_port (u));
  /* GUri keeps the brackets of an IPv6 literal out already */
  ok = settings_add_query (settings, element, u, uri, error) &&
      settings_add (settings, element, uri, port_prop, port, error);
  if (ok && *g_uri_get_host (u)) {
    Setting h = { uri_pspec (element, host_prop), G_VALUE_INIT };

    g_value_init (&h.v, G_TYPE_STRING);
    g_value_set_string (&h.v, g_uri_get_host (u));
    g_array_append_val (settings, h);
  }
  for (guint i = 0; ok && i < settings->len; i++) {
    Setting *s = &g_array_index (settings, Setting, i);
    g_object_set_property (G_OBJECT (element), s->ps->name, &s->v);
  }
  g_array_unref (settings);
  g_uri_unref (u);
  return ok;
}

/* "&name=value" for a property that differs from its default. */
static void
append_non_default (GString * q, GstElement * element, GParamSpec * ps)
{
  GValue v = G_VALUE_INIT;
  gchar *str, *esc;

  g_value_init (&v, ps->value_type);
  g_object_get_property (G_OBJECT (element), ps->name, &v);
  str = g_param_value_defaults (ps, &v) ? NULL : gst_value_serialize (&v);
  g_value_unset (&v);
  if (!str)
    return;
  esc = g_uri_escape_string (str, NULL, FALSE);
  g_string_append_printf (q, "%s%s=%s", q->len ? "&" : "", ps->name, esc);
  g_free (esc);
  g_free (str);
}

gchar *
gst_net_uri_build (GstElement * element, const gchar * scheme,
    const gchar * host_prop, const gchar * port_prop)
{
  GParamSpec **ps;
  guint n;
  GString *q = g_string_new (NULL);
  gchar *host = NULL, *res;
  gboolean v6;
  gint port = 0;

  g_object_get (element, host_prop, &host, port_prop, &port, NULL);
  ps = g_object_class_list_properties (G_OBJECT_GET_CLASS (element), &n);
  for (guint i = 0; i < n; i++)
    if (ps[i]->owner_type == G_OBJECT_TYPE (element) &&
        (ps[i]->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE &&
        !g_str_equal (ps[i]->name, host_prop) &&
        !g_str_equal (ps[i]->name, port_prop) &&
        !g_str_equal (ps[i]->name, GST_NET_URI_PROP))
      append_non_default (q, element, ps[i]);
  g_free (ps);
  v6 = host && strchr (host, ':');
  res = g_strdup_printf ("%s://%s%s%s:%d%s%s", scheme, v6 ? "[" : "",
      host ? host : "", v6 ? "]" : "", port, q->len ? "?" : "", q->str);
  g_string_free (q, TRUE);
  g_free (host);
  return res;
}

static GstURIType
handler_get_type (GType type)
{
  return uri_info (type)->uri_type;
}

static const gchar *const *
handler_get_protocols (GType type)
{
  return uri_info (type)->protocols;
}

static gchar *
handler_get_uri (GstURIHandler * handler)
{
  const UriInfo *info = uri_info (G_OBJECT_TYPE (handler));

  return gst_net_uri_build (GST_ELEMENT (handler), info->protocols[0],
      info->host_prop, info->port_prop);
}

static gboolean
handler_set_uri (GstURIHandler * handler, const gchar * uri, GError ** error)
{
  const UriInfo *info = uri_info (G_OBJECT_TYPE (handler));

  return gst_net_uri_apply (GST_ELEMENT (handler), info->protocols[0], uri,
      info->host_prop, info->port_prop, error);
}

void
gst_net_uri_handler_init (gpointer g_iface, gpointer iface_data)
{
  GstURIHandlerInterface *iface = g_iface;

  iface->get_type = handler_get_type;
  iface->get_protocols = handler_get_protocols;
  iface->get_uri = handler_get_uri;
  iface->set_uri = handler_set_uri;
}

void
gst_net_uri_install_property (GObjectClass * klass, guint prop_id,
    const gchar * blurb)
{
  g_object_class_install_property (klass, prop_id,
      g_param_spec_string (GST_NET_URI_PROP, "URI", blurb, NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
}

void
gst_net_uri_set_property (GstElement * element, const GValue * value,
    GError ** uri_error)
{
  const gchar *uri = g_value_get_string (value);
  GError *err = NULL;

  if (uri && !gst_uri_handler_set_uri (GST_URI_HANDLER (element), uri, &err))
    GST_WARNING_OBJECT (element, "%s", err->message);
  GST_OBJECT_LOCK (element);
  g_clear_error (uri_error);
  *uri_error = err;
  GST_OBJECT_UNLOCK (element);
}

void
gst_net_uri_get_property (GstElement * element, GValue * value)
{
  g_value_take_string (value, gst_uri_handler_get_uri (GST_URI_HANDLER
          (element)));
}
