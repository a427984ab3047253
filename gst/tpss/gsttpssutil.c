/* Shared by tpsssink and tpsssrc (see gsttpssutil.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <netinet/in.h>

#include "gsttpssutil.h"
#include "gstneturi.h"
#include "gstnetsocket.h"
#include "gstparamtable.h"
#include "gstnetudpprops.h"

#define DEFAULT_PORT 5004
#define DEFAULT_ADDRESS "0.0.0.0"
#define DEFAULT_TTL_MC 1
#define DEFAULT_BUFFER_SIZE (4 * 1024 * 1024)

/* ------------------------------------------------------------------ */
/* Enums */

GType
gst_tpss_slow_start_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TPSS_SLOW_START_TPSS, "Two-phase slow start: rate raised by redundancy",
        "tpss"},
    {TPSS_SLOW_START_TRADITIONAL,
        "Traditional slow start (baseline): rate raised by data", "traditional"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstTpssSlowStart",
            values));
  return type;
}

GType
gst_tpss_control_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TPSS_CONTROL_NOTIFICATION,
        "NQCP: QoS announced ahead of traffic, allocation by delivery type",
        "notification"},
    {TPSS_CONTROL_FEEDBACK, "Loss feedback only (baseline)", "feedback"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstTpssControl",
            values));
  return type;
}

GType
gst_tpss_delivery_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {TPSS_DELIVERY_PRIORITY, "Priority-based: higher-priority senders first",
        "priority"},
    {TPSS_DELIVERY_FAIR, "Fair: max-min share among senders", "fair"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstTpssDelivery",
            values));
  return type;
}

/* ------------------------------------------------------------------ */
/* The group core's parameters */

#define H ((gdouble) G_MAXINT64)        /* no upper bound, ns */
#define U ((gdouble) G_MAXUINT64)       /* no upper bound */
/* name, nick, blurb, kind, enum type, config field, min, max */
#define P(name, nick, blurb, kind, type, field, min, max) \
  { name, nick, blurb, GST_PARAM_KIND_ ## kind, type, min, max, \
    G_STRUCT_OFFSET (TpssGroupConfig, field), 1 }

static const GstParamEntry param_entries[] = {
  P ("fec-pt", "Parity payload type", "RTP payload type of parity packets",
      UINT, NULL, fec_pt, 0, 127),
  P ("qos-ext-id", "QoS header extension id", "RFC 8285 one-byte header "
        "extension id of the <D, TT, HT> element on data packets", UINT, NULL,
      ext_id, 1, 14),
  P ("fec-size-time", "FEC hold time (ns)", "Upper bound on how long a "
        "received packet waits behind a missing one for its repair (ns); "
        "within it the wait follows the measured time from a segment's "
        "first packet to its parity", TIME, NULL, fec_size_time, 0,
      60 * GST_SECOND),
  P ("allow-join", "Allow join", "Accept members not in `members` that "
        "announce themselves with a HELLO (their address is learned from "
        "it; at most 63 besides this one). Without `key`, `join-check` makes "
        "a joiner prove its address first; with join-check=false a forged "
        "HELLO makes any address a member, and media is sent there",
      BOOLEAN, NULL, allow_join, 0, 1),
  P ("join-check", "Join check", "Without `key`: a HELLO from an unknown "
        "id is answered with a cookie (a 36-byte HELLO to its address, at "
        "most one per id and address per hello-interval and 64 in all) and "
        "the id joins only when its next HELLO echoes it, one round trip "
        "later; so no media goes to an address that did not ask. Members "
        "in `members` and keyed sessions skip it. A joiner echoes cookies "
        "whatever its own setting; an older one cannot join this way",
      BOOLEAN, NULL, join_check, 0, 1),
  P ("slow-start", "Slow start", "tpss: two-phase slow start (2.3); "
        "traditional: the section 4.1 baseline", ENUM,
      gst_tpss_slow_start_get_type, cfg.slow_start, 0, 0),
  P ("control", "Control", "notification: NQCP (3.1); feedback: the "
        "section 4.2 baseline", ENUM, gst_tpss_control_get_type, cfg.control,
      0, 0),
  P ("delivery", "Delivery", "How an overloaded receiver shares its "
        "capacity among senders (2.3)", ENUM, gst_tpss_delivery_get_type,
      cfg.delivery, 0, 0),
  P ("initial-rate", "Initial rate", "Initial data rate toward each "
        "destination (bits/s, 2.3)", UINT64, NULL, cfg.initial_rate, 8000, U),
  P ("max-rate", "Maximum rate", "Cap of any sending rate (bits/s)", UINT64,
      NULL, cfg.max_rate, 8000, U),
  P ("packet-distance", "Packet distance", "k: interleaved subsegments of "
        "the redundant phase (2.4, 4.1)", UINT, NULL, cfg.packet_distance, 1,
      255),
  P ("initial-length", "Initial subsegment length", "l at the start of the "
        "redundant phase: one parity per l data packets (4.1)", UINT, NULL,
      cfg.initial_length, 1, 255),
  P ("loss-threshold", "Loss threshold", "Raw loss ratio above which a "
        "receiver notifies a decrease (4.1)", DOUBLE, NULL,
      cfg.loss_threshold, 0.0, 1.0),
  P ("decrease", "Decrease factor", "Rate factor notified on loss above the "
        "threshold (4.1)", DOUBLE, NULL, cfg.decrease, 0.0, 1.0),
  P ("increase", "Increase factor", "Rate factor notified otherwise (4.1)",
      DOUBLE, NULL, cfg.increase, 1.0, 100.0),
  P ("holding-time", "Holding time (ns)", "HT: least time a packet stays in "
        "MQ after its QoS is announced (ns, 3.1, 4.2)", TIME, NULL,
      cfg.holding_time, 0, H),
  P ("min-report-interval", "Minimum report interval", "Floor of a "
        "receiver's RTT-long measurement interval (ns)", TIME, NULL,
      cfg.min_report_interval, 1, H),
  P ("max-receive-rate", "Maximum receive rate", "This member's receive "
        "capacity (bits/s, 3.2; 0 = unlimited)", UINT64, NULL,
      cfg.max_receive_rate, 0, U),
  P ("member-timeout", "Member timeout (ns)", "A member silent this long is "
        "removed (ns)", TIME, NULL, cfg.member_timeout, 1, H),
  P ("hello-interval", "Hello interval (ns)", "Period of HELLO and periodic "
        "REPORT messages (ns)", TIME, NULL, cfg.hello_interval, 1, H),
  P ("max-queue-bytes", "Maximum queue size", "Bound of the sender queue MQ "
        "(bytes; 0 = none); packets beyond are dropped", UINT64, NULL,
      cfg.max_queue_bytes, 0, U),
  P ("admission-burst", "Admission burst (ns)", "Depth of each source's "
        "admission bucket as time at its allocation, in whole 10 ms slots; "
        "the burst a source may send above its rate when max-receive-rate "
        "limits (ns)", TIME, NULL, cfg.admission_burst, TPSS_SLOT_NS,
      10 * GST_SECOND),
  P ("pacing-catch-up", "Pacing catch-up (ns)", "The most departure time "
        "the sender queue's pacer makes up at once when its loop ran late "
        "(a host that held it off the CPU); the packets after it leave at "
        "the data rate from there, so a stall does not become a burst above "
        "what the receivers admit (ns; 0 = no bound: all of the missed time "
        "at once)", TIME, NULL, cfg.pacing_catch_up, 0, H),
  P ("pacing-catch-up-budget", "Pacing catch-up budget (ns)", "Off by "
        "default: the most departure time a late loop makes up in all, "
        "pacing-catch-up at once and the rest at pacing-catch-up-factor times "
        "the data rate after it; a credit that refills with time and is "
        "spent by sending ahead of the data rate, as a receiver's admission "
        "bucket is; keep it at most the receivers' admission-burst minus "
        "about 22 ms, 18 ms with the default 40 ms (ns; 0 = only "
        "pacing-catch-up)", TIME, NULL, cfg.pacing_catch_up_budget, 0, H),
  P ("pacing-catch-up-factor", "Pacing catch-up factor", "With "
        "pacing-catch-up-budget: the missed time kept after the first "
        "pacing-catch-up leaves at this many times the data rate (a factor)",
      DOUBLE, NULL, cfg.pacing_catch_up_factor, 1.0, 10.0),
  P ("app-limit-factor", "Application-limited factor", "The data rate (what "
        "the encoder is told) grows to at most this many times the data rate "
        "actually sent over the last 500 ms, never held below initial-rate "
        "(a factor, no unit; 0 = unbounded): an application that sends less "
        "than it may does not build up a rate to burst at (RFC 7661's rule, "
        "for a rate)", DOUBLE, NULL, cfg.app_limit_factor, 0.0, 1000.0),
  P ("layer-spread", "Layer spread", "Temporal layers (x264layerenc): the "
        "fastest destination must allow this many times the slowest's rate "
        "before the layers get rates of their own; below it every "
        "destination gets the whole stream at the slowest's rate; above "
        "it, the whole stream's rate is the slowest's of the destinations "
        "within this factor of the fastest, and each of them gets every "
        "layer (a factor)",
      DOUBLE, NULL, layer_spread, 1.0, 1000.0),
  P ("layer-max-spread", "Layer maximum spread", "Temporal layers: the whole "
        "stream is held within this many times the base layer's rate (the "
        "slowest destination's), so the copies that share our uplink do not "
        "starve each other (a factor)", DOUBLE, NULL, layer_max_spread, 1.0,
      1000.0),
  P ("uplink-rate", "Uplink rate", "Temporal layers: our uplink's rate, "
        "which all copies of our stream share; when the copies would send "
        "more together (media and parity), the layer rates and each "
        "destination's layers are chosen as if every destination allowed "
        "the one share of its rate that fits them (bits/s; 0 = unknown: "
        "each copy as its destination allows)", UINT64, NULL, uplink_rate,
      0, U),
  P ("uplink-estimate", "Uplink estimate", "Temporal layers: find a bound "
        "on what our copies send together without uplink-rate. When two "
        "copies' rates fall (uplink-estimate-fall) within "
        "uplink-estimate-window of each other, they lose on the path they "
        "share, our uplink: the bound becomes uplink-estimate-factor x what "
        "the copies sent before the first fall, and grows by "
        "uplink-estimate-probe a second while it holds them back; falls "
        "within uplink-estimate-hold of a bound set or a member coming or "
        "going are not counted. With uplink-rate too, the lower bound "
        "holds (docs/protocols/tpss.md)",
      BOOLEAN, NULL, uplink_estimate, 0, 1),
  P ("uplink-estimate-window", "Uplink estimate window", "Temporal layers, "
        "uplink-estimate: two copies' falls at most this far apart are one "
        "loss on our uplink (ns)", TIME, NULL, uplink_estimate_window, 0,
      60 * GST_SECOND),
  P ("uplink-estimate-fall", "Uplink estimate fall", "Temporal layers, "
        "uplink-estimate: a copy's rate falls when its destination allows "
        "less than (1 - this) x what the copy was sent at its highest rate "
        "since its last fall (a fraction)", DOUBLE, NULL,
      uplink_estimate_fall, 0.0, 1.0),
  P ("uplink-estimate-factor", "Uplink estimate factor", "Temporal layers, "
        "uplink-estimate: the bound is this x what the copies sent together "
        "before the first of two falls (a factor)", DOUBLE, NULL,
      uplink_estimate_factor, 0.1, 1.0),
  P ("uplink-estimate-probe", "Uplink estimate probe", "Temporal layers, "
        "uplink-estimate: while the bound holds the copies back and no fall "
        "waits, it grows by this share of itself a second (a fraction per "
        "second)", DOUBLE, NULL, uplink_estimate_probe, 0.0, 1.0),
  P ("uplink-estimate-hold", "Uplink estimate hold", "Temporal layers, "
        "uplink-estimate: after a bound is set, or a member comes or goes, "
        "the copies' rates settle to it: their falls are not counted for "
        "this long (ns)", TIME, NULL, uplink_estimate_hold, 0,
      60 * GST_SECOND),
  P ("sr-interval", "Sender report interval", "Time between the RTCP "
        "sender reports of our stream, each 0.5 to 1 of it (RFC 3550's "
        "randomisation); they map its RTP timestamps to NTP time for the "
        "receivers' lip sync (tpsssrc sync=sender-reports) (ns; 0 = none)",
      TIME, NULL, sr_interval, 0, 60 * GST_SECOND),
  P ("assign-needs-parity", "Assign needs parity", "Receiver: a round trip "
        "of a redundant phase is a complete receipt, which ends the phase "
        "at its receipt rate (2.3), only if no parity packet went missing "
        "either (the paper's \"all of the packets\"); one that lost parity "
        "and no media then holds: no ASSIGN and no step, the source keeps "
        "its data rate and probe until the next round trip. Off: gaps in "
        "the media alone count (docs/protocols/tpss.md)", BOOLEAN, NULL,
      cfg.assign_needs_parity, 0, 1),
};

#undef P
#undef H
#undef U

G_STATIC_ASSERT (G_N_ELEMENTS (param_entries) == GST_TPSS_N_PARAMS);
/* set_mask has a bit per property id */
G_STATIC_ASSERT (GST_TPSS_PROP_LAST <= 64);

static void
params_init (gpointer cfg)
{
  tpss_group_config_init (cfg);
}

static const GstParamTable param_table = {
  param_entries, G_N_ELEMENTS (param_entries), sizeof (TpssGroupConfig),
  params_init
};

/* ------------------------------------------------------------------ */
/* The socket properties, at the ids set_mask has always had */

static const guint udp_prop_ids[GST_NET_UDP_N_PROPS] = {
  [GST_NET_UDP_PROP_ADDRESS] = GST_TPSS_PROP_ADDRESS,
  [GST_NET_UDP_PROP_PORT] = GST_TPSS_PROP_PORT,
  [GST_NET_UDP_PROP_MULTICAST_IFACE] = GST_TPSS_PROP_MULTICAST_IFACE,
  [GST_NET_UDP_PROP_TTL_MC] = GST_TPSS_PROP_TTL_MC,
  [GST_NET_UDP_PROP_LOOP] = GST_TPSS_PROP_LOOP,
  [GST_NET_UDP_PROP_SOCKET] = GST_TPSS_PROP_SOCKET,
  [GST_NET_UDP_PROP_BUFFER_SIZE] = GST_TPSS_PROP_BUFFER_SIZE,
};

static const GstNetUdpProps udp_props = {
  .address_default = DEFAULT_ADDRESS,
  .port_min = 0,
  .port_default = DEFAULT_PORT,
  .address_blurb = "Local address to bind (unicast mesh), or the multicast "
      "group to join and send to (multicast group mode)",
  .port_blurb = "Local UDP port of the member: media, parity and control "
      "(0 = ephemeral; the group's port in multicast mode; with `socket`, "
      "reads that socket's port)",
  .multicast_iface_blurb = "Network interface to join the multicast group "
      "on and send from",
  .ttl_mc_blurb = "Time-to-live of multicast packets",
  .loop_blurb = "Loop multicast packets back to this host (several members "
      "on one host)",
  .socket_blurb = "A bound UDP socket of the application's for the "
      "session's media, parity and control, used as given: not bound, its "
      "options not changed, not closed by the element (udpsrc's "
      "close-socket=false); address, port, buffer-size, ttl-mc, loop and "
      "multicast-iface then do not apply, and port reads its port (NULL: "
      "the element's own)",
  .loop_nick = "Multicast loopback",
  .ttl_mc_no_system = TRUE,
  .ttl_mc_default = DEFAULT_TTL_MC,
  .buffer_size_blurb = "Kernel send and receive buffer of the socket "
      "(bytes)",
  .buffer_size_default = DEFAULT_BUFFER_SIZE,
  .ids = udp_prop_ids,
};

/* ------------------------------------------------------------------ */
/* Settings and properties */

void
gst_tpss_settings_init (GstTpssSettings * s)
{
  memset (s, 0, sizeof (*s));
  gst_net_udp_props_init_settings (&udp_props, &s->udp);
  tpss_group_config_init (&s->params);
}

void
gst_tpss_settings_clear (GstTpssSettings * s)
{
  g_free (s->session);
  gst_net_udp_settings_clear (&s->udp);
  g_free (s->members);
  g_free (s->priorities);
  g_clear_object (&s->transport);
  gst_net_key_settings_clear (&s->key);
  gst_net_srtp_settings_clear (&s->srtp);
  memset (s, 0, sizeof (*s));
}

void
gst_tpss_settings_copy (GstTpssSettings * dst, const GstTpssSettings * src)
{
  gst_tpss_settings_clear (dst);
  *dst = *src;
  dst->session = g_strdup (src->session);
  gst_net_udp_settings_copy (&dst->udp, &src->udp);
  dst->members = g_strdup (src->members);
  dst->priorities = g_strdup (src->priorities);
  if (src->transport)
    dst->transport = g_object_ref (src->transport);
  memset (&dst->key, 0, sizeof (dst->key));
  gst_net_key_settings_copy (&dst->key, &src->key);
  gst_net_srtp_settings_copy (&dst->srtp, &src->srtp);
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)
#define RW_READY (RW | GST_PARAM_MUTABLE_READY)
#define RW_PLAYING (RW | GST_PARAM_MUTABLE_PLAYING)

static void
install_session_properties (GObjectClass * klass)
{
  g_object_class_install_property (klass, GST_TPSS_PROP_SESSION,
      g_param_spec_string ("session", "Session",
          "Name of the member session a tpsssink and a tpsssrc of one member "
          "share (one core, one socket, one member id); NULL: \"tpss-<port>\" "
          "(with `transport`: one session per transport object)",
          NULL, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_MEMBERS,
      g_param_spec_string ("members", "Members",
          "Comma-separated group members \"id@host:port\" (unicast mesh; "
          "\"id\" alone: address learned from its HELLO). The member's own "
          "id may be in the list. May change while PLAYING", NULL,
          RW_PLAYING));
  g_object_class_install_property (klass, GST_TPSS_PROP_MEMBER_LIST,
      gst_param_spec_array ("member-list", "Member list",
          "The members as an array of \"id@host:port\" strings (same as "
          "members)", g_param_spec_string ("member", "Member",
              "id@host:port", NULL, RW), RW_PLAYING));
  g_object_class_install_property (klass, GST_TPSS_PROP_MEMBER_ID,
      g_param_spec_uint ("member-id", "Member id",
          "This member's id, also the SSRC of its RTP stream (0 = random)",
          0, G_MAXUINT32, 0, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_PRIORITIES,
      g_param_spec_string ("priorities", "Sender priorities",
          "Priorities of the senders at this receiver, \"id:prio,...\" "
          "(higher first; others 0). May change while PLAYING", NULL,
          RW_PLAYING));
  g_object_class_install_property (klass, GST_TPSS_PROP_STATS_INTERVAL,
      g_param_spec_uint64 ("stats-interval", "Stats interval",
          "Post the stats as a `tpss-stats` element message this often (ns; "
          "0 = never), so gst-launch -m shows them; tpsssink also posts one "
          "at EOS", 0, G_MAXUINT64, 0,
          RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_TRANSPORT,
      g_param_spec_object ("transport", "Transport",
          "A GstNetTransport of the application's (e.g. an ICE transport) "
          "the session sends and receives its datagrams through; the "
          "element then opens no socket and `socket`, `address` (except a "
          "multicast group to send to), port and the socket options do not "
          "apply (NULL: a UDP socket)", GST_TYPE_NET_TRANSPORT, RW_READY));
}

void
gst_tpss_settings_install_properties (GObjectClass * klass)
{
  install_session_properties (klass);
  gst_net_udp_props_install (&udp_props, klass, 0);
  gst_net_key_install (klass, GST_TPSS_PROP_KEY_FIRST, "every control "
      "datagram the member sends and receives (RATE, REPORT, QOS, HELLO, PLI, "
      "BYE, SR); the tpsssink and tpsssrc of one session must have the same "
      "key, or none");
  gst_net_srtp_install (klass, GST_TPSS_PROP_SRTP_FIRST, "every media and "
      "parity packet, after the QoS extension is stamped, under a key per "
      "destination derived from it (docs/security.md); every member, and "
      "the tpsssink and tpsssrc of one session, with the same key or none");
  gst_param_table_install (&param_table, klass, GST_TPSS_PROP_PARAMS_FIRST, 1);
}

static gchar *
member_list_to_string (const GValue * v)
{
  GString *str = g_string_new (NULL);

  for (guint i = 0; i < gst_value_array_get_size (v); i++) {
    const GValue *e = gst_value_array_get_value (v, i);
    if (!G_VALUE_HOLDS_STRING (e) || !g_value_get_string (e))
      continue;
    if (str->len)
      g_string_append_c (str, ',');
    g_string_append (str, g_value_get_string (e));
  }
  return g_string_free (str, str->len == 0);
}

static void
member_list_from_string (const gchar * members, GValue * value)
{
  gchar **parts = g_strsplit (members ? members : "", ",", -1);

  for (guint i = 0; parts[i]; i++) {
    GValue e = G_VALUE_INIT;
    gchar *t = g_strstrip (parts[i]);

    if (!*t)
      continue;
    g_value_init (&e, G_TYPE_STRING);
    g_value_set_string (&e, t);
    gst_value_array_append_and_take_value (value, &e);
  }
  g_strfreev (parts);
}

static void
replace_string (gchar ** field, const GValue * value)
{
  g_free (*field);
  *field = g_value_dup_string (value);
}

static gboolean
set_session_property (GstTpssSettings * s, guint prop_id, const GValue * value)
{
  switch (prop_id) {
    case GST_TPSS_PROP_SESSION:
      replace_string (&s->session, value);
      break;
    case GST_TPSS_PROP_MEMBERS:
      replace_string (&s->members, value);
      break;
    case GST_TPSS_PROP_MEMBER_LIST:
      g_free (s->members);
      s->members = member_list_to_string (value);
      break;
    case GST_TPSS_PROP_MEMBER_ID:
      s->member_id = g_value_get_uint (value);
      break;
    case GST_TPSS_PROP_PRIORITIES:
      replace_string (&s->priorities, value);
      break;
    case GST_TPSS_PROP_STATS_INTERVAL:
      s->stats_interval = g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_TRANSPORT:
      g_clear_object (&s->transport);
      s->transport = g_value_dup_object (value);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_tpss_settings_set_property (GstTpssSettings * s, guint prop_id,
    const GValue * value)
{
  /* outside set_mask: the key is never merged into a session */
  if (gst_net_key_set (&s->key, GST_TPSS_PROP_KEY_FIRST, prop_id, value) ||
      gst_net_srtp_set (&s->srtp, GST_TPSS_PROP_SRTP_FIRST, prop_id, value))
    return TRUE;
  if (!set_session_property (s, prop_id, value) &&
      !gst_net_udp_props_set (&udp_props, &s->udp, 0, prop_id, value) &&
      !gst_param_table_set (&param_table, &s->params,
          GST_TPSS_PROP_PARAMS_FIRST, prop_id, value))
    return FALSE;
  if (prop_id == GST_TPSS_PROP_MEMBER_LIST)
    prop_id = GST_TPSS_PROP_MEMBERS;
  s->set_mask |= G_GUINT64_CONSTANT (1) << prop_id;
  return TRUE;
}

gint
gst_tpss_settings_port (const GstTpssSettings * s)
{
  gint port = s->udp.socket ?
      gst_net_socket_get_local_port (s->udp.socket) : -1;

  return port >= 0 ? port : s->udp.port;
}

static gboolean
get_session_property (const GstTpssSettings * s, guint prop_id,
    GValue * value)
{
  switch (prop_id) {
    case GST_TPSS_PROP_SESSION:
      g_value_set_string (value, s->session);
      break;
    case GST_TPSS_PROP_PORT:
      g_value_set_int (value, gst_tpss_settings_port (s));
      break;
    case GST_TPSS_PROP_MEMBERS:
      g_value_set_string (value, s->members);
      break;
    case GST_TPSS_PROP_MEMBER_LIST:
      member_list_from_string (s->members, value);
      break;
    case GST_TPSS_PROP_MEMBER_ID:
      g_value_set_uint (value, s->member_id);
      break;
    case GST_TPSS_PROP_PRIORITIES:
      g_value_set_string (value, s->priorities);
      break;
    case GST_TPSS_PROP_STATS_INTERVAL:
      g_value_set_uint64 (value, s->stats_interval);
      break;
    case GST_TPSS_PROP_TRANSPORT:
      g_value_set_object (value, s->transport);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_tpss_settings_get_property (const GstTpssSettings * s, guint prop_id,
    GValue * value)
{
  return gst_net_key_get (&s->key, GST_TPSS_PROP_KEY_FIRST, prop_id, value)
      || gst_net_srtp_get (&s->srtp, GST_TPSS_PROP_SRTP_FIRST, prop_id, value)
      || get_session_property (s, prop_id, value) ||
      gst_net_udp_props_get_mapped (&udp_props, &s->udp, prop_id, value) ||
      gst_param_table_get (&param_table, &s->params,
      GST_TPSS_PROP_PARAMS_FIRST, prop_id, value);
}

gchar *
gst_tpss_settings_session_name (const GstTpssSettings * s)
{
  if (s->session && *s->session)
    return g_strdup (s->session);
  /* a sink and a src given one transport are one member */
  if (s->transport)
    return g_strdup_printf ("tpss-transport-%p", (gpointer) s->transport);
  return g_strdup_printf ("tpss-%d", gst_tpss_settings_port (s));
}

/* The pspec of shared property @id (both element classes use one id). */
static GParamSpec *
shared_pspec (GObjectClass * klass, guint id)
{
  GParamSpec *found = NULL, **all;
  guint n;

  all = g_object_class_list_properties (klass, &n);
  for (guint i = 0; i < n && !found; i++)
    if (all[i]->param_id == id &&
        all[i]->owner_type == G_OBJECT_CLASS_TYPE (klass))
      found = all[i];
  g_free (all);
  return found;
}

void
gst_tpss_settings_merge (GstTpssSettings * dst, const GstTpssSettings * src,
    GObjectClass * klass)
{
  for (guint id = 1; id < GST_TPSS_PROP_LAST; id++) {
    GValue a = G_VALUE_INIT, b = G_VALUE_INIT;
    guint64 bit = G_GUINT64_CONSTANT (1) << id;
    GParamSpec *pspec;

    if (!(src->set_mask & bit) || id == GST_TPSS_PROP_MEMBER_LIST ||
        !(pspec = shared_pspec (klass, id)))
      continue;
    g_value_init (&a, pspec->value_type);
    g_value_init (&b, pspec->value_type);
    gst_tpss_settings_get_property (src, id, &a);
    gst_tpss_settings_get_property (dst, id, &b);
    if ((dst->set_mask & bit) && g_param_values_cmp (pspec, &a, &b) != 0)
      GST_WARNING ("session property %s set differently on its elements; "
          "the later one wins", pspec->name);
    gst_tpss_settings_set_property (dst, id, &a);
    g_value_unset (&a);
    g_value_unset (&b);
  }
}

/* ------------------------------------------------------------------ */
/* Parsing members and priorities */

static gboolean
parse_u32 (const gchar * s, guint32 * out)
{
  guint64 v;
  gchar *end;

  if (!s || !*s || !g_ascii_isdigit (*s))
    return FALSE;
  v = g_ascii_strtoull (s, &end, 10);
  if (*end || v > G_MAXUINT32)
    return FALSE;
  *out = (guint32) v;
  return TRUE;
}

/* Parses one "id@host:port" or "id" entry @t (modified in place). */
static gboolean
parse_member_entry (gchar * t, GstTpssMemberSpec * m, GError ** error)
{
  gchar *entry = g_strdup (t), *at = strchr (t, '@'), *host, *colon;
  guint32 port = 0;
  gboolean ok = FALSE;

  if (at)
    *at = '\0';
  if (!parse_u32 (t, &m->id) || m->id == 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "bad member \"%s\": the id must be a number 1..4294967295", entry);
    goto done;
  }
  if (!at) {
    ok = TRUE;
    goto done;
  }
  host = at + 1;
  colon = strrchr (host, ':');
  if (!colon || colon == host || colon[1] == '\0') {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "bad member \"%s\": expected id@host:port", entry);
    goto done;
  }
  if (!parse_u32 (colon + 1, &port) || port == 0 || port > 65535) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "bad member \"%s\": the port must be 1..65535", entry);
    goto done;
  }
  *colon = '\0';
  if (host[0] == '[' && colon[-1] == ']') {
    host++;
    colon[-1] = '\0';
  }
  m->host = g_strdup (host);
  m->port = port;
  ok = TRUE;
done:
  g_free (entry);
  return ok;
}

/* Validates "id@host:port,..." (an id alone: address learned from HELLO);
 * an id listed twice is an error, whatever its addresses. */
gboolean
gst_tpss_parse_members (const gchar * str, GArray * out, GError ** error)
{
  gchar **parts;
  GHashTable *seen;
  gboolean ok = TRUE;

  if (!str)
    return TRUE;
  parts = g_strsplit (str, ",", -1);
  seen = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  for (guint i = 0; ok && parts[i]; i++) {
    gchar *t = g_strstrip (parts[i]), *entry;
    const gchar *first;
    GstTpssMemberSpec m = { 0, };

    if (!*t)
      continue;
    entry = g_strdup (t);
    ok = parse_member_entry (t, &m, error);
    if (ok && (first = g_hash_table_lookup (seen, GUINT_TO_POINTER (m.id)))) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "duplicate member id %u in the members list (\"%s\" and \"%s\"): "
          "every member needs its own id", m.id, first, entry);
      ok = FALSE;
    }
    if (ok) {
      g_hash_table_insert (seen, GUINT_TO_POINTER (m.id), entry);
      entry = NULL;
    }
    if (ok && out)
      g_array_append_val (out, m);
    else
      g_free (m.host);
    g_free (entry);
  }
  if (ok && g_hash_table_size (seen) > TPSS_MAX_MEMBERS) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "too many members: %u listed, a group has at most %u (this member "
        "included)", g_hash_table_size (seen), TPSS_MAX_MEMBERS);
    ok = FALSE;
  }
  g_hash_table_unref (seen);
  g_strfreev (parts);
  return ok;
}

gboolean
gst_tpss_parse_priorities (const gchar * str, GHashTable * out,
    GError ** error)
{
  gchar **parts;
  gboolean ok = TRUE;

  if (!str)
    return TRUE;
  parts = g_strsplit (str, ",", -1);
  for (guint i = 0; parts[i]; i++) {
    gchar *t = g_strstrip (parts[i]), *colon;
    guint32 id, prio;

    if (!*t)
      continue;
    colon = strchr (t, ':');
    if (colon)
      *colon = '\0';
    if (!colon || !parse_u32 (t, &id) || !parse_u32 (colon + 1, &prio)) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "bad priority \"%s\": expected id:priority", t);
      ok = FALSE;
      break;
    }
    if (out)
      g_hash_table_insert (out, GUINT_TO_POINTER (id), GUINT_TO_POINTER (prio));
  }
  g_strfreev (parts);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Addresses: the group core stores and compares opaque bytes; ours are a
 * sockaddr with only family, port, IP (and IPv6 scope) set, so equal peers
 * compare equal bytewise. */

G_STATIC_ASSERT (sizeof (struct sockaddr_in6) <= TPSS_ADDR_MAX_SIZE);

gboolean
gst_tpss_addr_from_socket_address (GSocketAddress * sa, TpssAddr * out)
{
  struct sockaddr_storage ss, n;
  gsize len;

  memset (out, 0, sizeof (*out));
  if (!sa || !g_socket_address_to_native (sa, &ss, sizeof (ss), NULL))
    return FALSE;
  memset (&n, 0, sizeof (n));
  if (ss.ss_family == AF_INET) {
    const struct sockaddr_in *a = (const void *) &ss;
    struct sockaddr_in *b = (void *) &n;
    b->sin_family = AF_INET;
    b->sin_port = a->sin_port;
    b->sin_addr = a->sin_addr;
    len = sizeof (*b);
  } else if (ss.ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const void *) &ss;
    struct sockaddr_in6 *b = (void *) &n;
    b->sin6_family = AF_INET6;
    b->sin6_port = a->sin6_port;
    b->sin6_addr = a->sin6_addr;
    b->sin6_scope_id = a->sin6_scope_id;
    len = sizeof (*b);
  } else {
    return FALSE;
  }
  memcpy (out->bytes, &n, len);
  out->len = len;
  return TRUE;
}

GSocketAddress *
gst_tpss_addr_to_socket_address (const TpssAddr * a)
{
  struct sockaddr_storage ss;

  memset (&ss, 0, sizeof (ss));
  memcpy (&ss, a->bytes, a->len);
  return g_socket_address_new_from_native (&ss, a->len);
}

static gchar *
addr_to_string (const TpssAddr * a)
{
  GSocketAddress *sa = gst_tpss_addr_to_socket_address (a);
  gchar *str = sa ? gst_net_address_to_string (sa) : g_strdup ("?");

  g_clear_object (&sa);
  return str;
}

/* ------------------------------------------------------------------ */
/* Stats */

static const gchar *
phase_name (TpssPhase p)
{
  return p == TPSS_PHASE_REDUNDANT ? "redundant" : "non-redundant";
}

static GstStructure *
member_stats_structure (const TpssGroupMemberStats * m)
{
  gchar *addr = m->addr.len ? addr_to_string (&m->addr) : g_strdup ("");
  GstStructure *ms = gst_structure_new ("member",
      "id", G_TYPE_UINT, m->id,
      "address", G_TYPE_STRING, addr,
      "priority", G_TYPE_UINT, m->recv.priority,
      /* toward it */
      "send-phase", G_TYPE_STRING, phase_name (m->send.phase),
      "send-data-rate", G_TYPE_UINT64, m->send.data_rate,
      "send-rate", G_TYPE_UINT64, m->send.send_rate,
      "send-notified-rate", G_TYPE_UINT64, m->send.notified_rate,
      "send-distance", G_TYPE_UINT, m->send.distance,
      "send-length", G_TYPE_UINT, m->send.length,
      "rtt", G_TYPE_INT64, m->send.rtt,
      "packets-sent", G_TYPE_UINT64, m->send.packets_sent,
      "parity-sent", G_TYPE_UINT64, m->parity_sent,
      "key-parity-sent", G_TYPE_UINT64, m->key_parity_sent,
      "parity-dropped", G_TYPE_UINT64, m->parity_dropped,
      "parity-skipped", G_TYPE_UINT64, m->parity_skipped,
      "layers-sent", G_TYPE_UINT, m->layers_sent,
      "layer-left-out", G_TYPE_UINT64, m->layer_left_out,
      "layer-queue-dropped", G_TYPE_UINT64, m->layer_queue_dropped,
      "layer-queue-time", G_TYPE_INT64, m->layer_queue_time,
      "key-flush-packets", G_TYPE_UINT64, m->key_flush_packets,
      "queue-key-asks", G_TYPE_UINT64, m->queue_key_asks,
      "age-dropped-frames", G_TYPE_UINT64, m->age_dropped_frames,
      "age-dropped-packets", G_TYPE_UINT64, m->age_dropped_packets,
      /* from it */
      "packets-received", G_TYPE_UINT64, m->recv.packets_received,
      "parity-received", G_TYPE_UINT64, m->parity_received,
      "parity-lost", G_TYPE_UINT64, m->parity_lost,
      "packets-lost", G_TYPE_UINT64, m->recv.packets_lost,
      "packets-recovered", G_TYPE_UINT64, m->recv.packets_recovered,
      "packets-not-delivered", G_TYPE_UINT64, m->recv.packets_not_delivered,
      "packets-delivered", G_TYPE_UINT64, m->delivered,
      "receive-rate", G_TYPE_UINT64, m->recv.receive_rate,
      "allocated-rate", G_TYPE_UINT64, m->recv.allocated_rate,
      "recv-notified-rate", G_TYPE_UINT64, m->recv.notified_rate,
      "late-reports", G_TYPE_UINT64, m->recv.late_reports,
      "assigns", G_TYPE_UINT64, m->recv.assigns,
      "holds", G_TYPE_UINT64, m->recv.holds,
      "left", G_TYPE_BOOLEAN, m->left,
      "sr-received", G_TYPE_UINT64, m->sr_received, NULL);

  if (m->have_decoder)
    gst_structure_set (ms,
        "unrecoverable", G_TYPE_UINT64, m->decoder.unrecoverable,
        "fec-late", G_TYPE_UINT64, m->decoder.fec_late,
        "fec-duplicates", G_TYPE_UINT64, m->decoder.duplicates,
        "fec-malformed", G_TYPE_UINT64, m->decoder.malformed, NULL);
  g_free (addr);
  return ms;
}

GstStructure *
gst_tpss_stats_structure (guint32 id, guint port, gboolean running,
    guint64 send_errors, const TpssGroupStats * gs, const GArray * members)
{
  GValue list = G_VALUE_INIT;
  GstStructure *st = gst_structure_new ("application/x-tpss-stats",
      "member-id", G_TYPE_UINT, id,
      "port", G_TYPE_UINT, port,
      "running", G_TYPE_BOOLEAN, running,
      "data-rate", G_TYPE_UINT64, gs->data_rate,
      "layers", G_TYPE_UINT, gs->n_layers,
      "bad-layer", G_TYPE_UINT64, gs->bad_layer,
      "uplink-send-rate", G_TYPE_UINT64, gs->uplink_send_rate,
      "uplink-share", G_TYPE_DOUBLE, gs->uplink_share,
      "uplink-estimate", G_TYPE_UINT64, gs->uplink_estimate,
      "uplink-shared-falls", G_TYPE_UINT64, gs->uplink_shared_falls,
      "packets-sent", G_TYPE_UINT64, gs->sent,
      "bytes-sent", G_TYPE_UINT64, gs->send_bytes,
      "queue-dropped", G_TYPE_UINT64, gs->queue_dropped,
      "queued", G_TYPE_UINT, gs->queued,
      "pacing-skipped", G_TYPE_INT64, gs->pacing_skipped,
      "pacing-made-up", G_TYPE_INT64, gs->pacing_made_up,
      "send-errors", G_TYPE_UINT64, send_errors + gs->stamp_errors,
      "control-sent", G_TYPE_UINT64, gs->ctrl_sent,
      "control-received", G_TYPE_UINT64, gs->ctrl_received,
      "data-received", G_TYPE_UINT64, gs->data_received,
      "malformed", G_TYPE_UINT64, gs->malformed,
      "non-member", G_TYPE_UINT64, gs->non_member,
      "join-refused", G_TYPE_UINT64, gs->join_refused,
      "join-challenged", G_TYPE_UINT64, gs->join_challenged,
      "join-verified", G_TYPE_UINT64, gs->join_verified,
      "join-cookie-bad", G_TYPE_UINT64, gs->join_cookie_bad,
      "join-echoed", G_TYPE_UINT64, gs->join_echoed,
      "join-answer-limited", G_TYPE_UINT64, gs->join_answer_limited,
      "member-entries", G_TYPE_UINT, gs->member_entries,
      "forged", G_TYPE_UINT64, gs->forged,
      "own", G_TYPE_UINT64, gs->own,
      "other-rtcp", G_TYPE_UINT64, gs->other_rtcp,
      "pli-sent", G_TYPE_UINT64, gs->pli_sent,
      "pli-received", G_TYPE_UINT64, gs->pli_received,
      "pli-dropped", G_TYPE_UINT64, gs->pli_dropped,
      "bye-sent", G_TYPE_UINT64, gs->bye_sent,
      "bye-received", G_TYPE_UINT64, gs->bye_received,
      "bye-refused", G_TYPE_UINT64, gs->bye_refused,
      "sr-sent", G_TYPE_UINT64, gs->sr_sent,
      "sr-received", G_TYPE_UINT64, gs->sr_received,
      "sr-refused", G_TYPE_UINT64, gs->sr_refused, NULL);

  gst_net_key_stats (st, gs->authenticated, &gs->auth);

  g_value_init (&list, GST_TYPE_LIST);
  for (guint i = 0; members && i < members->len; i++) {
    GValue mv = G_VALUE_INIT;
    g_value_init (&mv, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&mv, member_stats_structure (&g_array_index (members,
                TpssGroupMemberStats, i)));
    gst_value_list_append_and_take_value (&list, &mv);
  }
  gst_structure_take_value (st, "members", &list);
  return st;
}


/* ------------------------------------------------------------------ */
/* URI */

/* The `members` of @uri's query, checked first so that its error names
 * the bad entry (the runtime's handler checks only that it is a string). */
static gboolean
uri_members_ok (const gchar * uri, GError ** error)
{
  GUri *u = g_uri_parse (uri, G_URI_FLAGS_NONE, NULL);
  GHashTable *params = NULL;
  const gchar *members = NULL;
  GValue v = G_VALUE_INIT;
  GError *err = NULL;
  gboolean ok;

  if (u && g_uri_get_query (u))
    params = g_uri_parse_params (g_uri_get_query (u), -1, "&",
        G_URI_PARAMS_NONE, NULL);
  if (params)
    members = g_hash_table_lookup (params, "members");
  /* get_uri writes it serialized (quoted, escaped) */
  g_value_init (&v, G_TYPE_STRING);
  if (members && gst_value_deserialize (&v, members))
    members = g_value_get_string (&v);
  ok = gst_tpss_parse_members (members, NULL, &err);
  if (!ok) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "invalid URI \"%s\": %s", uri, err->message);
    g_error_free (err);
  }
  g_value_unset (&v);
  g_clear_pointer (&params, g_hash_table_unref);
  g_clear_pointer (&u, g_uri_unref);
  return ok;
}

static gboolean
uri_set (GstURIHandler * handler, const gchar * uri, GError ** error)
{
  return uri_members_ok (uri, error) &&
      gst_net_uri_apply (GST_ELEMENT (handler), "tpss", uri, "address",
      "port", error);
}

void
gst_tpss_uri_handler_init (gpointer g_iface, gpointer iface_data)
{
  GstURIHandlerInterface *iface = g_iface;

  gst_net_uri_handler_init (g_iface, iface_data);
  iface->set_uri = uri_set;
}

void
gst_tpss_uri_handler_set_info (GType type, GstURIType uri_type)
{
  gst_net_uri_handler_set_info (type, uri_type, "tpss", "address", "port");
}
