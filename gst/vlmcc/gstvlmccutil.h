/* Shared by vlmccsink and vlmccsrc: the core's constants as properties,
 * the session's defaults, and peers as the core's opaque addresses. */
#ifndef __GST_VLMCC_UTIL_H__
#define __GST_VLMCC_UTIL_H__

#include <gio/gio.h>
#include <gst/gst.h>
#include "vlmcccore.h"
#include "gstparamtable.h"
#include "gstnetkey.h"

G_BEGIN_DECLS

/* The table's element mask. */
#define GST_VLMCC_PARAM_SINK 1
#define GST_VLMCC_PARAM_SRC 2

/* The VlmccConfig fields as properties, the paper's values as defaults. */
extern const GstParamTable gst_vlmcc_params;
/* VlmccVegasDelay, the vegas-delay property's type. */
GType gst_vlmcc_vegas_delay_get_type (void);
GType gst_vlmcc_plus_loss_mode_get_type (void);

#define GST_VLMCC_DEFAULT_ADDRESS "239.3.3.3"
#define GST_VLMCC_DEFAULT_PORT 5200
#define GST_VLMCC_DEFAULT_STATS_INTERVAL GST_SECOND

/* @from as a VlmccAddr (len 0 if it does not fit). */
void gst_vlmcc_addr_from_socket (GSocketAddress * from, VlmccAddr * addr);
/* The VlmccAddr the shell made back as a socket address (NULL if empty). */
GSocketAddress *gst_vlmcc_addr_to_socket (const VlmccAddr * addr);

/* The `vlmcc-leader` element message both elements post on a change. */
GstMessage *gst_vlmcc_leader_message (GstElement * element, guint32 leader,
    guint64 changes);

/* The group key an element runs with: loaded at start, handed to the core
 * when the core is made (at the first packet), wiped at stop. */
typedef struct
{
  gboolean set;
  AuthKey key;
} GstVlmccRunKey;

/* Loads @settings (copied under @element's object lock, read outside it)
 * into @run; FALSE with @err (naming the setting, never the key). */
gboolean gst_vlmcc_run_key_load (GstElement * element,
    const GstNetKeySettings * settings, GstVlmccRunKey * run, GError ** err);
void gst_vlmcc_run_key_clear (GstVlmccRunKey * run);

#define GST_VLMCC_URI_BLURB "vlmcc://GROUP:PORT?key=value&...: the " \
  "session's multicast group and port, and any other property as a query " \
  "parameter (all or nothing: a bad URI changes nothing and fails the start)"

G_END_DECLS

#endif /* __GST_VLMCC_UTIL_H__ */
