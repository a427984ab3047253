/* A core's parameters as GObject properties, from one table.
 *
 * A protocol describes its configuration struct once: every field that is a
 * paper parameter gets an entry (name, nick, blurb with unit, kind, range,
 * offset in the struct). The defaults are not repeated in the table: they
 * are read from a struct the core's own init function filled, so the core
 * stays the one place that knows them. */
#ifndef __GST_PARAM_TABLE_H__
#define __GST_PARAM_TABLE_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef enum
{
  GST_PARAM_KIND_BOOLEAN,       /* gboolean field */
  GST_PARAM_KIND_INT,           /* gint field */
  GST_PARAM_KIND_UINT,          /* guint field */
  GST_PARAM_KIND_UINT64,        /* guint64 field */
  GST_PARAM_KIND_TIME,          /* gint64 field of ns, a guint64 property */
  GST_PARAM_KIND_DOUBLE,        /* gdouble field */
  GST_PARAM_KIND_ENUM,          /* gint field, enum_type property */
} GstParamKind;

typedef struct
{
  const gchar *name;
  const gchar *nick;            /* NULL: the name */
  const gchar *blurb;
  GstParamKind kind;
  GType (*enum_type) (void);    /* GST_PARAM_KIND_ENUM only */
  gdouble min, max;             /* ignored for booleans and enums; for 64-bit
                                 * kinds, >= the type's end is the end */
  gsize offset;                 /* G_STRUCT_OFFSET in the config struct */
  guint elements;               /* mask of the elements that have it */
} GstParamEntry;

typedef struct
{
  const GstParamEntry *entries;
  guint n_entries;
  gsize config_size;
  /* fills a config struct with the core's defaults */
  void (*config_init) (gpointer config);
} GstParamTable;

/* Installs the entries whose mask meets @elements as properties with ids
 * @first_id + index (ids of other elements' entries are skipped, not
 * reused); returns the first free id. Properties are mutable in READY. */
guint gst_param_table_install (const GstParamTable * table,
    GObjectClass * klass, guint first_id, guint elements);

/* TRUE if @prop_id belongs to the table (then the field was set / read);
 * call under the lock that guards @config. */
gboolean gst_param_table_set (const GstParamTable * table, gpointer config,
    guint first_id, guint prop_id, const GValue * value);
gboolean gst_param_table_get (const GstParamTable * table,
    gconstpointer config, guint first_id, guint prop_id, GValue * value);

G_END_DECLS

#endif /* __GST_PARAM_TABLE_H__ */
