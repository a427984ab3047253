/* Shared by rlmsink and rlmsrc: the core's parameters as properties, and
 * the session's layer -> (group, port) mapping as socket addresses. */
#ifndef __GST_RLM_UTIL_H__
#define __GST_RLM_UTIL_H__

#include <gio/gio.h>
#include <gst/gst.h>
#include "rlmcore.h"
#include "gstparamtable.h"
#include "gstnetudpprops.h"

G_BEGIN_DECLS

#define GST_TYPE_RLM_JOIN_DRAW (gst_rlm_join_draw_get_type ())
GType gst_rlm_join_draw_get_type (void);

/* The table's element mask. */
#define GST_RLM_PARAM_SINK 1
#define GST_RLM_PARAM_SRC 2

/* The RlmConfig fields as properties (all but n_layers, which both elements
 * have as `layers`). */
extern const GstParamTable gst_rlm_params;

/* Layers the elements carry by default, and at most (what the rate path
 * and the core both hold). */
#define GST_RLM_DEFAULT_LAYERS 4
#define GST_RLM_MAX_LAYERS MIN (RLM_MAX_LAYERS, 8)

#define GST_RLM_DEFAULT_ADDRESS "239.1.1.1"
#define GST_RLM_DEFAULT_PORT 5000

/* Where each of @n_layers layers goes: the group of @groups' entry i
 * (comma-separated literal addresses, each with an optional :port) or
 * else @address + i (docs/protocols/rlm.md), on @port, or @port + 2 i
 * when @port_per_layer. Fills @out (owned, unref each). Errors name the
 * setting and the bad part. */
gboolean gst_rlm_layer_addresses (const gchar * address, gint port,
    const gchar * groups, gboolean port_per_layer, guint n_layers,
    GSocketAddress ** out, GError ** error);

/* The session's settings both elements have (under the object lock). */
typedef struct
{
  GstNetUdpSettings net;        /* address: the base layer's group */
  gchar *groups;
  gboolean port_per_layer;
  guint layers;
  RlmConfig cfg;
} GstRlmSettings;

/* Their property ids, from the element's first settings id: groups,
 * port-per-layer and layers (each element installs them in its words),
 * the socket properties (gstnetudpprops.h), the core's parameters. */
enum
{
  GST_RLM_PROP_GROUPS,
  GST_RLM_PROP_PORT_PER_LAYER,
  GST_RLM_PROP_LAYERS,
  GST_RLM_PROP_UDP,
  GST_RLM_PROP_CONFIG = GST_RLM_PROP_UDP + GST_NET_UDP_N_PROPS
};

void gst_rlm_settings_init (GstRlmSettings * s, const GstNetUdpProps * udp);
void gst_rlm_settings_clear (GstRlmSettings * s);
/* Installs the socket properties and the core's parameters of @elements
 * (GST_RLM_PARAM_*) from @first_id. */
void gst_rlm_settings_install (GObjectClass * klass, guint first_id,
    const GstNetUdpProps * udp, guint elements);
/* TRUE if @prop_id is one of the settings (then it was set / read); under
 * the object lock. */
gboolean gst_rlm_settings_set (GstRlmSettings * s, const GstNetUdpProps * udp,
    guint first_id, guint prop_id, const GValue * value);
gboolean gst_rlm_settings_get (const GstRlmSettings * s, guint first_id,
    guint prop_id, GValue * value);

/* A string setting from @value; NULL gives @dflt (may be NULL). */
void gst_rlm_set_string (gchar ** field, const GValue * value,
    const gchar * dflt);

#define GST_RLM_URI_BLURB "rlm://GROUP:PORT?key=value&...: the base " \
  "layer's group and port, and any other property as a query parameter " \
  "(all or nothing: a bad URI changes nothing and fails the start)"

G_END_DECLS

#endif /* __GST_RLM_UTIL_H__ */
