/* A core's parameters as properties (see gstparamtable.h). */
#include "gstparamtable.h"

/* A bound of the table as a 64-bit integer: a bound at or beyond the type's
 * end (G_MAXUINT64, G_MAXINT64 as a double round up past it) is the end. */
static guint64
bound_u64 (gdouble d, guint64 end)
{
  if (d <= 0)
    return 0;
  return d >= (gdouble) end ? end : (guint64) d;
}

static GParamSpec *
entry_pspec (const GstParamEntry * e, gconstpointer field)
{
  GParamFlags fl = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  const gchar *nick = e->nick ? e->nick : e->name;

  switch (e->kind) {
    case GST_PARAM_KIND_BOOLEAN:
      return g_param_spec_boolean (e->name, nick, e->blurb,
          *(const gboolean *) field, fl);
    case GST_PARAM_KIND_INT:
      return g_param_spec_int (e->name, nick, e->blurb, (gint) e->min,
          (gint) e->max, *(const gint *) field, fl);
    case GST_PARAM_KIND_UINT:
      return g_param_spec_uint (e->name, nick, e->blurb, (guint) e->min,
          (guint) e->max, *(const guint *) field, fl);
    case GST_PARAM_KIND_UINT64:
      return g_param_spec_uint64 (e->name, nick, e->blurb,
          bound_u64 (e->min, G_MAXUINT64), bound_u64 (e->max, G_MAXUINT64),
          *(const guint64 *) field, fl);
    case GST_PARAM_KIND_TIME:
      return g_param_spec_uint64 (e->name, nick, e->blurb,
          bound_u64 (e->min, G_MAXINT64), bound_u64 (e->max, G_MAXINT64),
          (guint64) * (const gint64 *) field, fl);
    case GST_PARAM_KIND_DOUBLE:
      return g_param_spec_double (e->name, nick, e->blurb, e->min, e->max,
          *(const gdouble *) field, fl);
    case GST_PARAM_KIND_ENUM:
      return g_param_spec_enum (e->name, nick, e->blurb, e->enum_type (),
          *(const gint *) field, fl);
  }
  g_return_val_if_reached (NULL);
}

guint
gst_param_table_install (const GstParamTable * table, GObjectClass * klass,
    guint first_id, guint elements)
{
  gpointer defaults = g_malloc0 (table->config_size);

  table->config_init (defaults);
  for (guint i = 0; i < table->n_entries; i++) {
    const GstParamEntry *e = &table->entries[i];

    if (e->elements & elements)
      g_object_class_install_property (klass, first_id + i,
          entry_pspec (e, G_STRUCT_MEMBER_P (defaults, e->offset)));
  }
  g_free (defaults);
  return first_id + table->n_entries;
}

static const GstParamEntry *
entry_of (const GstParamTable * table, guint first_id, guint prop_id)
{
  if (prop_id < first_id || prop_id >= first_id + table->n_entries)
    return NULL;
  return &table->entries[prop_id - first_id];
}

gboolean
gst_param_table_set (const GstParamTable * table, gpointer config,
    guint first_id, guint prop_id, const GValue * value)
{
  const GstParamEntry *e = entry_of (table, first_id, prop_id);
  gpointer f;

  if (!e)
    return FALSE;
  f = G_STRUCT_MEMBER_P (config, e->offset);
  switch (e->kind) {
    case GST_PARAM_KIND_BOOLEAN:
      *(gboolean *) f = g_value_get_boolean (value);
      break;
    case GST_PARAM_KIND_INT:
      *(gint *) f = g_value_get_int (value);
      break;
    case GST_PARAM_KIND_UINT:
      *(guint *) f = g_value_get_uint (value);
      break;
    case GST_PARAM_KIND_UINT64:
      *(guint64 *) f = g_value_get_uint64 (value);
      break;
    case GST_PARAM_KIND_TIME:
      *(gint64 *) f = (gint64) g_value_get_uint64 (value);
      break;
    case GST_PARAM_KIND_DOUBLE:
      *(gdouble *) f = g_value_get_double (value);
      break;
    case GST_PARAM_KIND_ENUM:
      *(gint *) f = g_value_get_enum (value);
      break;
  }
  return TRUE;
}

gboolean
gst_param_table_get (const GstParamTable * table, gconstpointer config,
    guint first_id, guint prop_id, GValue * value)
{
  const GstParamEntry *e = entry_of (table, first_id, prop_id);
  gconstpointer f;

  if (!e)
    return FALSE;
  f = G_STRUCT_MEMBER_P (config, e->offset);
  switch (e->kind) {
    case GST_PARAM_KIND_BOOLEAN:
      g_value_set_boolean (value, *(const gboolean *) f);
      break;
    case GST_PARAM_KIND_INT:
      g_value_set_int (value, *(const gint *) f);
      break;
    case GST_PARAM_KIND_UINT:
      g_value_set_uint (value, *(const guint *) f);
      break;
    case GST_PARAM_KIND_UINT64:
      g_value_set_uint64 (value, *(const guint64 *) f);
      break;
    case GST_PARAM_KIND_TIME:
      g_value_set_uint64 (value, (guint64) * (const gint64 *) f);
      break;
    case GST_PARAM_KIND_DOUBLE:
      g_value_set_double (value, *(const gdouble *) f);
      break;
    case GST_PARAM_KIND_ENUM:
      g_value_set_enum (value, *(const gint *) f);
      break;
  }
  return TRUE;
}
