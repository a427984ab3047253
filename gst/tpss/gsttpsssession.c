/* The member session shared by tpsssink and tpsssrc: the shell of the TPSS
 * group core (tpssgroup.h).
 *
 * One session = one group member: one TpssGroup (the member table, source
 * checks, FEC per source and per destination, MQ, the protocol core), one
 * UDP socket on which RTP media, parity and RTCP control are multiplexed
 * (RFC 5761), one member id (= the RTP SSRC of its stream), and one I/O
 * thread. Sessions are looked up by name in a process table (the `session`
 * property, default "tpss-<port>"), refcounted, so a tpsssink and a tpsssrc
 * of the same member share them; either works alone.
 *
 * Threads and locks:
 * - `lock` guards the group core, the socket's use and the counters.
 * - The I/O thread waits in ppoll() on the socket and an eventfd, with the
 *   group core's next timeout. Under `lock` it hands every datagram to the
 *   core, runs its timeout, sends what it polls out and turns its events
 *   into actions; the actions (rates, delivered packets, members leaving,
 *   bus messages) run after `lock` is released, with a reference on the
 *   element taken under it.
 * - tpsssink's streaming thread takes `lock` only to enqueue into MQ.
 * - `registry_lock` guards the name table and the refcounts; never taken
 *   with `lock` held.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* ppoll */
#endif
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsttpsssession.h"
#include "tpssgroup.h"

#include <gio/gio.h>

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (tpss_session_debug);
#define GST_CAT_DEFAULT tpss_session_debug

#define DEFAULT_PORT 5004
#define DEFAULT_ADDRESS "0.0.0.0"
#define DEFAULT_TTL_MC 1
#define DEFAULT_LOOP TRUE
#define DEFAULT_FEC_PT 100
#define DEFAULT_EXT_ID 5
#define DEFAULT_FEC_SIZE_TIME (200 * GST_MSECOND)
#define DEFAULT_ALLOW_JOIN TRUE
#define DEFAULT_BUFFER_SIZE (4 * 1024 * 1024)
#define MAX_DATAGRAM 65536
#define READ_BATCH 256

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
/* Settings and properties */

void
gst_tpss_settings_init (GstTpssSettings * s)
{
  memset (s, 0, sizeof (*s));
  s->address = g_strdup (DEFAULT_ADDRESS);
  s->port = DEFAULT_PORT;
  s->ttl_mc = DEFAULT_TTL_MC;
  s->loop = DEFAULT_LOOP;
  s->fec_pt = DEFAULT_FEC_PT;
  s->ext_id = DEFAULT_EXT_ID;
  s->fec_size_time = DEFAULT_FEC_SIZE_TIME;
  s->allow_join = DEFAULT_ALLOW_JOIN;
  s->buffer_size = DEFAULT_BUFFER_SIZE;
  tpss_config_init (&s->cfg);
}

void
gst_tpss_settings_clear (GstTpssSettings * s)
{
  g_free (s->session);
  g_free (s->address);
  g_free (s->members);
  g_free (s->multicast_iface);
  g_free (s->priorities);
  memset (s, 0, sizeof (*s));
}

static void
settings_copy (GstTpssSettings * dst, const GstTpssSettings * src)
{
  gst_tpss_settings_clear (dst);
  *dst = *src;
  dst->session = g_strdup (src->session);
  dst->address = g_strdup (src->address);
  dst->members = g_strdup (src->members);
  dst->multicast_iface = g_strdup (src->multicast_iface);
  dst->priorities = g_strdup (src->priorities);
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)
#define RW_READY (RW | GST_PARAM_MUTABLE_READY)
#define RW_PLAYING (RW | GST_PARAM_MUTABLE_PLAYING)

void
gst_tpss_settings_install_properties (GObjectClass * klass)
{
  TpssConfig d;

  tpss_config_init (&d);
  g_object_class_install_property (klass, GST_TPSS_PROP_SESSION,
      g_param_spec_string ("session", "Session",
          "Name of the member session a tpsssink and a tpsssrc of one member "
          "share (one core, one socket, one member id); NULL: \"tpss-<port>\"",
          NULL, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_ADDRESS,
      g_param_spec_string ("address", "Address",
          "Local address to bind (unicast mesh), or the multicast group to "
          "join and send to (multicast group mode)", DEFAULT_ADDRESS,
          RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_PORT,
      g_param_spec_int ("port", "Port",
          "Local UDP port of the member: media, parity and control (0 = "
          "ephemeral; the group's port in multicast mode)", 0, 65535,
          DEFAULT_PORT, RW_READY));
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
  g_object_class_install_property (klass, GST_TPSS_PROP_MULTICAST_IFACE,
      g_param_spec_string ("multicast-iface", "Multicast interface",
          "Network interface to join the multicast group on and send from",
          NULL, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_TTL_MC,
      g_param_spec_int ("ttl-mc", "Multicast TTL",
          "Time-to-live of multicast packets", 0, 255, DEFAULT_TTL_MC,
          RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_LOOP,
      g_param_spec_boolean ("loop", "Multicast loopback",
          "Loop multicast packets back to this host (several members on one "
          "host)", DEFAULT_LOOP, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_FEC_PT,
      g_param_spec_uint ("fec-pt", "Parity payload type",
          "RTP payload type of parity packets", 0, 127, DEFAULT_FEC_PT,
          RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_EXT_ID,
      g_param_spec_uint ("qos-ext-id", "QoS header extension id",
          "RFC 8285 one-byte header extension id of the <D, TT, HT> element "
          "on data packets", 1, 14, DEFAULT_EXT_ID, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_FEC_SIZE_TIME,
      g_param_spec_uint64 ("fec-size-time", "FEC hold time (ns)",
          "Upper bound on how long a received packet waits behind a missing "
          "one for its repair (ns); within it the wait follows the measured "
          "time from a segment's first packet to its parity", 0, 60 * GST_SECOND,
          DEFAULT_FEC_SIZE_TIME, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_PRIORITIES,
      g_param_spec_string ("priorities", "Sender priorities",
          "Priorities of the senders at this receiver, \"id:prio,...\" "
          "(higher first; others 0). May change while PLAYING", NULL,
          RW_PLAYING));
  g_object_class_install_property (klass, GST_TPSS_PROP_ALLOW_JOIN,
      g_param_spec_boolean ("allow-join", "Allow join",
          "Accept members not in `members` that announce themselves with a "
          "HELLO (their address is learned from it)", DEFAULT_ALLOW_JOIN,
          RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_BUFFER_SIZE,
      g_param_spec_int ("buffer-size", "Socket buffer size",
          "Kernel send and receive buffer of the socket (bytes)", 0,
          G_MAXINT, DEFAULT_BUFFER_SIZE, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_STATS_INTERVAL,
      g_param_spec_uint64 ("stats-interval", "Stats interval",
          "Post the stats as a `tpss-stats` element message this often (ns; "
          "0 = never), so gst-launch -m shows them", 0, G_MAXUINT64, 0,
          RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_SLOW_START,
      g_param_spec_enum ("slow-start", "Slow start",
          "tpss: two-phase slow start (2.3); traditional: the section 4.1 "
          "baseline", GST_TYPE_TPSS_SLOW_START, d.slow_start, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_CONTROL,
      g_param_spec_enum ("control", "Control",
          "notification: NQCP (3.1); feedback: the section 4.2 baseline",
          GST_TYPE_TPSS_CONTROL, d.control, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_DELIVERY,
      g_param_spec_enum ("delivery", "Delivery",
          "How an overloaded receiver shares its capacity among senders "
          "(2.3)", GST_TYPE_TPSS_DELIVERY, d.delivery, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_INITIAL_RATE,
      g_param_spec_uint64 ("initial-rate", "Initial rate",
          "Initial data rate toward each destination (bits/s, 2.3)", 8000,
          G_MAXUINT64, d.initial_rate, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_MAX_RATE,
      g_param_spec_uint64 ("max-rate", "Maximum rate",
          "Cap of any sending rate (bits/s)", 8000, G_MAXUINT64, d.max_rate,
          RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_PACKET_DISTANCE,
      g_param_spec_uint ("packet-distance", "Packet distance",
          "k: interleaved subsegments of the redundant phase (2.4, 4.1)", 1,
          255, d.packet_distance, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_INITIAL_LENGTH,
      g_param_spec_uint ("initial-length", "Initial subsegment length",
          "l at the start of the redundant phase: one parity per l data "
          "packets (4.1)", 1, 255, d.initial_length, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_LOSS_THRESHOLD,
      g_param_spec_double ("loss-threshold", "Loss threshold",
          "Raw loss ratio above which a receiver notifies a decrease (4.1)",
          0.0, 1.0, d.loss_threshold, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_DECREASE,
      g_param_spec_double ("decrease", "Decrease factor",
          "Rate factor notified on loss above the threshold (4.1)", 0.0, 1.0,
          d.decrease, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_INCREASE,
      g_param_spec_double ("increase", "Increase factor",
          "Rate factor notified otherwise (4.1)", 1.0, 100.0, d.increase,
          RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_HOLDING_TIME,
      g_param_spec_uint64 ("holding-time", "Holding time (ns)",
          "HT: least time a packet stays in MQ after its QoS is announced "
          "(ns, 3.1, 4.2)", 0, G_MAXINT64, d.holding_time, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_MIN_REPORT_INTERVAL,
      g_param_spec_uint64 ("min-report-interval", "Minimum report interval",
          "Floor of a receiver's RTT-long measurement interval (ns)", 1,
          G_MAXINT64, d.min_report_interval, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_MAX_RECEIVE_RATE,
      g_param_spec_uint64 ("max-receive-rate", "Maximum receive rate",
          "This member's receive capacity (bits/s, 3.2; 0 = unlimited)", 0,
          G_MAXUINT64, d.max_receive_rate, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_MEMBER_TIMEOUT,
      g_param_spec_uint64 ("member-timeout", "Member timeout (ns)",
          "A member silent this long is removed (ns)", 1, G_MAXINT64,
          d.member_timeout, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_HELLO_INTERVAL,
      g_param_spec_uint64 ("hello-interval", "Hello interval (ns)",
          "Period of HELLO and periodic REPORT messages (ns)", 1, G_MAXINT64,
          d.hello_interval, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_MAX_QUEUE_BYTES,
      g_param_spec_uint64 ("max-queue-bytes", "Maximum queue size",
          "Bound of the sender queue MQ (bytes; 0 = none); packets beyond "
          "are dropped", 0, G_MAXUINT64, d.max_queue_bytes, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_ADMISSION_BURST,
      g_param_spec_uint64 ("admission-burst", "Admission burst (ns)",
          "Depth of each source's admission bucket as time at its "
          "allocation, in whole 10 ms slots; the burst a source may send "
          "above its rate when max-receive-rate limits (ns)",
          TPSS_SLOT_NS, 10 * GST_SECOND, d.admission_burst, RW_READY));
  g_object_class_install_property (klass, GST_TPSS_PROP_APP_LIMIT_FACTOR,
      g_param_spec_double ("app-limit-factor", "Application-limited factor",
          "The data rate (what the encoder is told) grows to at most this "
          "many times the data rate actually sent over the last 500 ms, "
          "never held below initial-rate (a factor, no unit; 0 = "
          "unbounded): an application that sends less than it may does not "
          "build up a rate to burst at (RFC 7661's rule, for a rate)",
          0.0, 1000.0, d.app_limit_factor, RW_READY));
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

gboolean
gst_tpss_settings_set_property (GstTpssSettings * s, guint prop_id,
    const GValue * value)
{
  switch (prop_id) {
    case GST_TPSS_PROP_SESSION:
      g_free (s->session);
      s->session = g_value_dup_string (value);
      break;
    case GST_TPSS_PROP_ADDRESS:
      g_free (s->address);
      s->address = g_value_dup_string (value);
      if (!s->address)
        s->address = g_strdup (DEFAULT_ADDRESS);
      break;
    case GST_TPSS_PROP_PORT:
      s->port = g_value_get_int (value);
      break;
    case GST_TPSS_PROP_MEMBERS:
      g_free (s->members);
      s->members = g_value_dup_string (value);
      break;
    case GST_TPSS_PROP_MEMBER_LIST:
      g_free (s->members);
      s->members = member_list_to_string (value);
      prop_id = GST_TPSS_PROP_MEMBERS;
      break;
    case GST_TPSS_PROP_MEMBER_ID:
      s->member_id = g_value_get_uint (value);
      break;
    case GST_TPSS_PROP_MULTICAST_IFACE:
      g_free (s->multicast_iface);
      s->multicast_iface = g_value_dup_string (value);
      break;
    case GST_TPSS_PROP_TTL_MC:
      s->ttl_mc = g_value_get_int (value);
      break;
    case GST_TPSS_PROP_LOOP:
      s->loop = g_value_get_boolean (value);
      break;
    case GST_TPSS_PROP_FEC_PT:
      s->fec_pt = g_value_get_uint (value);
      break;
    case GST_TPSS_PROP_EXT_ID:
      s->ext_id = g_value_get_uint (value);
      break;
    case GST_TPSS_PROP_FEC_SIZE_TIME:
      s->fec_size_time = g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_PRIORITIES:
      g_free (s->priorities);
      s->priorities = g_value_dup_string (value);
      break;
    case GST_TPSS_PROP_ALLOW_JOIN:
      s->allow_join = g_value_get_boolean (value);
      break;
    case GST_TPSS_PROP_BUFFER_SIZE:
      s->buffer_size = g_value_get_int (value);
      break;
    case GST_TPSS_PROP_STATS_INTERVAL:
      s->stats_interval = g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_SLOW_START:
      s->cfg.slow_start = g_value_get_enum (value);
      break;
    case GST_TPSS_PROP_CONTROL:
      s->cfg.control = g_value_get_enum (value);
      break;
    case GST_TPSS_PROP_DELIVERY:
      s->cfg.delivery = g_value_get_enum (value);
      break;
    case GST_TPSS_PROP_INITIAL_RATE:
      s->cfg.initial_rate = g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_MAX_RATE:
      s->cfg.max_rate = g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_PACKET_DISTANCE:
      s->cfg.packet_distance = g_value_get_uint (value);
      break;
    case GST_TPSS_PROP_INITIAL_LENGTH:
      s->cfg.initial_length = g_value_get_uint (value);
      break;
    case GST_TPSS_PROP_LOSS_THRESHOLD:
      s->cfg.loss_threshold = g_value_get_double (value);
      break;
    case GST_TPSS_PROP_DECREASE:
      s->cfg.decrease = g_value_get_double (value);
      break;
    case GST_TPSS_PROP_INCREASE:
      s->cfg.increase = g_value_get_double (value);
      break;
    case GST_TPSS_PROP_HOLDING_TIME:
      s->cfg.holding_time = (gint64) g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_MIN_REPORT_INTERVAL:
      s->cfg.min_report_interval = (gint64) g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_MAX_RECEIVE_RATE:
      s->cfg.max_receive_rate = g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_MEMBER_TIMEOUT:
      s->cfg.member_timeout = (gint64) g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_HELLO_INTERVAL:
      s->cfg.hello_interval = (gint64) g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_MAX_QUEUE_BYTES:
      s->cfg.max_queue_bytes = g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_ADMISSION_BURST:
      s->cfg.admission_burst = (gint64) g_value_get_uint64 (value);
      break;
    case GST_TPSS_PROP_APP_LIMIT_FACTOR:
      s->cfg.app_limit_factor = g_value_get_double (value);
      break;
    default:
      return FALSE;
  }
  s->set_mask |= G_GUINT64_CONSTANT (1) << prop_id;
  return TRUE;
}

gboolean
gst_tpss_settings_get_property (const GstTpssSettings * s, guint prop_id,
    GValue * value)
{
  switch (prop_id) {
    case GST_TPSS_PROP_SESSION:
      g_value_set_string (value, s->session);
      break;
    case GST_TPSS_PROP_ADDRESS:
      g_value_set_string (value, s->address);
      break;
    case GST_TPSS_PROP_PORT:
      g_value_set_int (value, s->port);
      break;
    case GST_TPSS_PROP_MEMBERS:
      g_value_set_string (value, s->members);
      break;
    case GST_TPSS_PROP_MEMBER_LIST:{
      gchar **parts = g_strsplit (s->members ? s->members : "", ",", -1);
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
      break;
    }
    case GST_TPSS_PROP_MEMBER_ID:
      g_value_set_uint (value, s->member_id);
      break;
    case GST_TPSS_PROP_MULTICAST_IFACE:
      g_value_set_string (value, s->multicast_iface);
      break;
    case GST_TPSS_PROP_TTL_MC:
      g_value_set_int (value, s->ttl_mc);
      break;
    case GST_TPSS_PROP_LOOP:
      g_value_set_boolean (value, s->loop);
      break;
    case GST_TPSS_PROP_FEC_PT:
      g_value_set_uint (value, s->fec_pt);
      break;
    case GST_TPSS_PROP_EXT_ID:
      g_value_set_uint (value, s->ext_id);
      break;
    case GST_TPSS_PROP_FEC_SIZE_TIME:
      g_value_set_uint64 (value, s->fec_size_time);
      break;
    case GST_TPSS_PROP_PRIORITIES:
      g_value_set_string (value, s->priorities);
      break;
    case GST_TPSS_PROP_ALLOW_JOIN:
      g_value_set_boolean (value, s->allow_join);
      break;
    case GST_TPSS_PROP_BUFFER_SIZE:
      g_value_set_int (value, s->buffer_size);
      break;
    case GST_TPSS_PROP_STATS_INTERVAL:
      g_value_set_uint64 (value, s->stats_interval);
      break;
    case GST_TPSS_PROP_SLOW_START:
      g_value_set_enum (value, s->cfg.slow_start);
      break;
    case GST_TPSS_PROP_CONTROL:
      g_value_set_enum (value, s->cfg.control);
      break;
    case GST_TPSS_PROP_DELIVERY:
      g_value_set_enum (value, s->cfg.delivery);
      break;
    case GST_TPSS_PROP_INITIAL_RATE:
      g_value_set_uint64 (value, s->cfg.initial_rate);
      break;
    case GST_TPSS_PROP_MAX_RATE:
      g_value_set_uint64 (value, s->cfg.max_rate);
      break;
    case GST_TPSS_PROP_PACKET_DISTANCE:
      g_value_set_uint (value, s->cfg.packet_distance);
      break;
    case GST_TPSS_PROP_INITIAL_LENGTH:
      g_value_set_uint (value, s->cfg.initial_length);
      break;
    case GST_TPSS_PROP_LOSS_THRESHOLD:
      g_value_set_double (value, s->cfg.loss_threshold);
      break;
    case GST_TPSS_PROP_DECREASE:
      g_value_set_double (value, s->cfg.decrease);
      break;
    case GST_TPSS_PROP_INCREASE:
      g_value_set_double (value, s->cfg.increase);
      break;
    case GST_TPSS_PROP_HOLDING_TIME:
      g_value_set_uint64 (value, s->cfg.holding_time);
      break;
    case GST_TPSS_PROP_MIN_REPORT_INTERVAL:
      g_value_set_uint64 (value, s->cfg.min_report_interval);
      break;
    case GST_TPSS_PROP_MAX_RECEIVE_RATE:
      g_value_set_uint64 (value, s->cfg.max_receive_rate);
      break;
    case GST_TPSS_PROP_MEMBER_TIMEOUT:
      g_value_set_uint64 (value, s->cfg.member_timeout);
      break;
    case GST_TPSS_PROP_HELLO_INTERVAL:
      g_value_set_uint64 (value, s->cfg.hello_interval);
      break;
    case GST_TPSS_PROP_MAX_QUEUE_BYTES:
      g_value_set_uint64 (value, s->cfg.max_queue_bytes);
      break;
    case GST_TPSS_PROP_ADMISSION_BURST:
      g_value_set_uint64 (value, (guint64) s->cfg.admission_burst);
      break;
    case GST_TPSS_PROP_APP_LIMIT_FACTOR:
      g_value_set_double (value, s->cfg.app_limit_factor);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

gchar *
gst_tpss_settings_session_name (const GstTpssSettings * s)
{
  if (s->session && *s->session)
    return g_strdup (s->session);
  return g_strdup_printf ("tpss-%d", s->port);
}

/* Copies the fields @src set explicitly into @dst (the session's merged
 * settings); warns when two elements set one differently. */
static void
settings_merge (GstTpssSettings * dst, const GstTpssSettings * src,
    GObjectClass * klass)
{
  for (guint id = 1; id < GST_TPSS_PROP_LAST; id++) {
    GValue a = G_VALUE_INIT, b = G_VALUE_INIT;
    GParamSpec *pspec;
    guint64 bit = G_GUINT64_CONSTANT (1) << id;

    if (!(src->set_mask & bit) || id == GST_TPSS_PROP_MEMBER_LIST)
      continue;
    /* Find by id: both element classes install the same ids. */
    pspec = NULL;
    {
      guint n;
      GParamSpec **all = g_object_class_list_properties (klass, &n);
      for (guint i = 0; i < n; i++)
        if (all[i]->param_id == id && all[i]->owner_type ==
            G_OBJECT_CLASS_TYPE (klass))
          pspec = all[i];
      g_free (all);
    }
    if (!pspec)
      continue;
    g_value_init (&a, pspec->value_type);
    g_value_init (&b, pspec->value_type);
    gst_tpss_settings_get_property (src, id, &a);
    gst_tpss_settings_get_property (dst, id, &b);
    if ((dst->set_mask & bit) && gst_value_compare (&a, &b) != GST_VALUE_EQUAL)
      GST_WARNING ("session property %s set differently on its elements; "
          "the later one wins", pspec->name);
    gst_tpss_settings_set_property (dst, id, &a);
    g_value_unset (&a);
    g_value_unset (&b);
  }
}

/* ------------------------------------------------------------------ */
/* Parsing members and priorities */

typedef struct
{
  guint32 id;
  gchar *host;                  /* NULL: learn from HELLO */
  guint port;
} MemberSpec;

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
parse_member_entry (gchar * t, MemberSpec * m, GError ** error)
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
    MemberSpec m = { 0, };

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
/* URI */

/* One URI query parameter, checked before anything is applied. */
typedef struct
{
  const gchar *name;
  GValue value;
} UriParam;

static void
uri_param_free (gpointer data)
{
  UriParam *p = data;

  g_value_unset (&p->value);
  g_free (p);
}

/* Checks one "name=value" of a URI's query; NULL (and @error) if bad. */
static UriParam *
uri_param_check (GObjectClass * klass, const gchar * uri, const gchar * k,
    const gchar * v, GError ** error)
{
  GParamSpec *pspec = g_object_class_find_property (klass, k);
  UriParam *p;
  GError *err = NULL;

  if (!pspec || !(pspec->flags & G_PARAM_WRITABLE) ||
      g_str_equal (k, "name") || g_str_equal (k, "parent")) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "invalid URI \"%s\": unknown parameter \"%s\"", uri, k);
    return NULL;
  }
  p = g_new0 (UriParam, 1);
  p->name = pspec->name;
  g_value_init (&p->value, pspec->value_type);
  if (!gst_value_deserialize_with_pspec (&p->value, v, pspec) ||
      g_param_value_validate (pspec, &p->value)) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "invalid URI \"%s\": bad value \"%s\" for %s", uri, v, k);
    uri_param_free (p);
    return NULL;
  }
  if (g_str_equal (k, "members") && !gst_tpss_parse_members (v, NULL, &err)) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "invalid URI \"%s\": %s", uri, err->message);
    g_error_free (err);
    uri_param_free (p);
    return NULL;
  }
  return p;
}

/* Applies "tpss://host:port?prop=value&..." to @element: every parameter is
 * checked first, so a bad URI changes nothing. */
gboolean
gst_tpss_uri_apply (GstElement * element, const gchar * uri, GError ** error)
{
  GUri *u;
  GHashTable *params = NULL;
  GHashTableIter it;
  gpointer k, v;
  GPtrArray *checked = g_ptr_array_new_with_free_func (uri_param_free);
  gboolean ok = TRUE;
  GError *err = NULL;

  u = g_uri_parse (uri, G_URI_FLAGS_NONE, &err);
  if (!u) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "invalid URI \"%s\": %s", uri, err->message);
    g_error_free (err);
    g_ptr_array_unref (checked);
    return FALSE;
  }
  if (g_strcmp0 (g_uri_get_scheme (u), "tpss") != 0) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_UNSUPPORTED_PROTOCOL,
        "invalid URI \"%s\": the scheme must be tpss", uri);
    ok = FALSE;
  }
  if (ok && g_uri_get_query (u)) {
    params = g_uri_parse_params (g_uri_get_query (u), -1, "&",
        G_URI_PARAMS_NONE, &err);
    if (!params) {
      g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
          "invalid URI \"%s\": %s", uri, err->message);
      g_error_free (err);
      ok = FALSE;
    } else {
      g_hash_table_iter_init (&it, params);
      while (ok && g_hash_table_iter_next (&it, &k, &v)) {
        UriParam *p = uri_param_check (G_OBJECT_GET_CLASS (element), uri, k,
            v, error);
        if (p)
          g_ptr_array_add (checked, p);
        ok = p != NULL;
      }
    }
  }
  if (ok) {
    if (g_uri_get_host (u) && *g_uri_get_host (u))
      g_object_set (element, "address", g_uri_get_host (u), NULL);
    if (g_uri_get_port (u) > 0)
      g_object_set (element, "port", g_uri_get_port (u), NULL);
    for (guint i = 0; i < checked->len; i++) {
      UriParam *p = g_ptr_array_index (checked, i);
      g_object_set_property (G_OBJECT (element), p->name, &p->value);
    }
  }
  if (params)
    g_hash_table_unref (params);
  g_ptr_array_unref (checked);
  g_uri_unref (u);
  return ok;
}

gchar *
gst_tpss_uri_build (const GstTpssSettings * s)
{
  GString *q = g_string_new (NULL);
  gboolean v6 = s->address && strchr (s->address, ':');
  gchar *res;

  if (s->member_id)
    g_string_append_printf (q, "member-id=%u", s->member_id);
  if (s->members) {
    gchar *e = g_uri_escape_string (s->members, "@:,[]", FALSE);
    g_string_append_printf (q, "%smembers=%s", q->len ? "&" : "", e);
    g_free (e);
  }
  if (s->session) {
    gchar *e = g_uri_escape_string (s->session, NULL, FALSE);
    g_string_append_printf (q, "%ssession=%s", q->len ? "&" : "", e);
    g_free (e);
  }
  res = g_strdup_printf ("tpss://%s%s%s:%d%s%s", v6 ? "[" : "",
      s->address ? s->address : DEFAULT_ADDRESS, v6 ? "]" : "", s->port,
      q->len ? "?" : "", q->str);
  g_string_free (q, TRUE);
  return res;
}

/* ------------------------------------------------------------------ */
/* The session */

typedef enum
{
  ACT_DATA_RATE,
  ACT_MESSAGE,
  ACT_DELIVER,
  ACT_LEFT,
  ACT_KEY_UNIT,
} ActType;

typedef struct
{
  ActType type;
  guint32 member;
  guint64 rate;
  gint64 rtt;                   /* ACT_KEY_UNIT: toward the requester, ns */
  GstStructure *msg;
  GstBufferList *list;
} Act;

struct _GstTpssSession
{
  gchar *name;
  gint refcount;                /* registry_lock */
  GstTpssSettings settings;     /* registry_lock until started, then fixed */

  GMutex lock;
  gint starts;
  gboolean running;
  GThread *thread;
  int wake_fd;
  GSocket *socket;
  int fd;
  guint local_port;
  gboolean multicast;
  TpssAddr group;
  TpssGroup *core;
  guint32 id;
  TpssGroupStats last;          /* the core's counters when it stopped */
  guint64 send_errors;
  gint64 next_stats;
  GCond drained;
  GstTpssSinkCallbacks sink_cb;
  GstElement *sink;
  GstTpssSrcCallbacks src_cb;
  GstElement *src;
};

static GMutex registry_lock;
static GHashTable *registry;

static gint64
now_ns (void)
{
  return g_get_monotonic_time () * 1000;
}

static void
wake (GstTpssSession * s)
{
  guint64 one = 1;

  if (s->wake_fd >= 0 && write (s->wake_fd, &one, sizeof (one)) < 0)
    GST_LOG ("wake: %s", g_strerror (errno));
}

GstTpssSession *
gst_tpss_session_acquire (GstElement * element, const GstTpssSettings * st,
    GError ** error)
{
  gchar *name = gst_tpss_settings_session_name (st);
  GstTpssSession *s;
  GObjectClass *klass = G_OBJECT_GET_CLASS (element);

  if (g_once_init_enter (&registry)) {
    GST_DEBUG_CATEGORY_INIT (tpss_session_debug, "tpsssession", 0,
        "TPSS member session");
    g_once_init_leave (&registry, g_hash_table_new (g_str_hash, g_str_equal));
  }
  if (!gst_tpss_parse_members (st->members, NULL, error) ||
      !gst_tpss_parse_priorities (st->priorities, NULL, error)) {
    g_free (name);
    return NULL;
  }

  g_mutex_lock (&registry_lock);
  s = g_hash_table_lookup (registry, name);
  if (s) {
    s->refcount++;
    g_free (name);
    if (!s->running)
      settings_merge (&s->settings, st, klass);
  } else {
    s = g_new0 (GstTpssSession, 1);
    s->name = name;
    s->refcount = 1;
    gst_tpss_settings_init (&s->settings);
    settings_copy (&s->settings, st);
    g_mutex_init (&s->lock);
    g_cond_init (&s->drained);
    s->wake_fd = -1;
    s->fd = -1;
    g_hash_table_insert (registry, s->name, s);
    GST_DEBUG ("new session %s", s->name);
  }
  g_mutex_unlock (&registry_lock);
  return s;
}

void
gst_tpss_session_release (GstTpssSession * s)
{
  if (!s)
    return;
  g_mutex_lock (&registry_lock);
  if (--s->refcount > 0) {
    g_mutex_unlock (&registry_lock);
    return;
  }
  g_hash_table_remove (registry, s->name);
  g_mutex_unlock (&registry_lock);

  g_warn_if_fail (s->starts == 0);
  gst_tpss_settings_clear (&s->settings);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->drained);
  g_free (s->name);
  g_free (s);
}

/* The group core's address of a socket address: family, port and IP (and
 * the IPv6 scope), the rest zeroed, so equal peers compare equal bytewise. */
static void
addr_from_native (const struct sockaddr_storage *ss, socklen_t len,
    TpssAddr * out)
{
  struct sockaddr_storage n;

  memset (&n, 0, sizeof (n));
  if (ss->ss_family == AF_INET) {
    const struct sockaddr_in *a = (const void *) ss;
    struct sockaddr_in *b = (void *) &n;
    b->sin_family = AF_INET;
    b->sin_port = a->sin_port;
    b->sin_addr = a->sin_addr;
    len = sizeof (*b);
  } else if (ss->ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const void *) ss;
    struct sockaddr_in6 *b = (void *) &n;
    b->sin6_family = AF_INET6;
    b->sin6_port = a->sin6_port;
    b->sin6_addr = a->sin6_addr;
    b->sin6_scope_id = a->sin6_scope_id;
    len = sizeof (*b);
  } else {
    len = MIN (len, TPSS_ADDR_MAX_SIZE);
    memcpy (&n, ss, len);
  }
  memcpy (out->bytes, &n, len);
  out->len = len;
}

static socklen_t
addr_to_native (const TpssAddr * a, struct sockaddr_storage *ss)
{
  memset (ss, 0, sizeof (*ss));
  memcpy (ss, a->bytes, a->len);
  return a->len;
}

static gboolean
resolve (const gchar * host, guint port, TpssAddr * out, GError ** error)
{
  GInetAddress *ia = g_inet_address_new_from_string (host);
  GSocketAddress *sa;
  struct sockaddr_storage ss;
  gboolean ok;

  if (!ia) {
    GResolver *r = g_resolver_get_default ();
    GList *l = g_resolver_lookup_by_name (r, host, NULL, error);
    g_object_unref (r);
    if (!l)
      return FALSE;
    ia = g_object_ref (l->data);
    g_resolver_free_addresses (l);
  }
  sa = g_inet_socket_address_new (ia, port);
  g_object_unref (ia);
  ok = g_socket_address_to_native (sa, &ss, sizeof (ss), error);
  if (ok)
    addr_from_native (&ss, g_socket_address_get_native_size (sa), out);
  g_object_unref (sa);
  return ok;
}

static gchar *
addr_to_string (const TpssAddr * a)
{
  struct sockaddr_storage ss;
  socklen_t len = addr_to_native (a, &ss);
  GSocketAddress *sa = g_socket_address_new_from_native (&ss, len);
  gchar *str;

  if (!sa)
    return g_strdup ("?");
  str = g_socket_connectable_to_string (G_SOCKET_CONNECTABLE (sa));
  g_object_unref (sa);
  return str;
}

/* Resolves a `members` list and hands it to the group core. With `lock`. */
static gboolean
apply_members (GstTpssSession * s, const gchar * str, gint64 now,
    GError ** error)
{
  GArray *specs = g_array_new (FALSE, TRUE, sizeof (MemberSpec));
  GArray *peers = g_array_new (FALSE, TRUE, sizeof (TpssGroupPeer));
  gboolean ok = gst_tpss_parse_members (str, specs, error);
  guint others = 0;

  for (guint i = 0; ok && i < specs->len; i++)
    others += g_array_index (specs, MemberSpec, i).id != s->id;
  if (ok && others > TPSS_MAX_MEMBERS - 1) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "too many members: %u besides this one (%u), a group has at most %u "
        "(this member included)", others, s->id, TPSS_MAX_MEMBERS);
    ok = FALSE;
  }
  for (guint i = 0; ok && i < specs->len; i++) {
    MemberSpec *ms = &g_array_index (specs, MemberSpec, i);
    TpssGroupPeer p = { ms->id, };
    GError *err = NULL;
    if (ms->host && !resolve (ms->host, ms->port, &p.addr, &err)) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "member \"%u@%s:%u\": cannot resolve the host: %s", ms->id,
          ms->host, ms->port, err->message);
      g_error_free (err);
      ok = FALSE;
    }
    g_array_append_val (peers, p);
  }
  if (ok)
    tpss_group_set_members (s->core, (TpssGroupPeer *) peers->data,
        peers->len, now);
  for (guint i = 0; i < specs->len; i++)
    g_free (g_array_index (specs, MemberSpec, i).host);
  g_array_free (specs, TRUE);
  g_array_free (peers, TRUE);
  return ok;
}

/* Sends what the group core has to send. With `lock`. */
static void
flush_transmits (GstTpssSession * s)
{
  TpssTransmit t;

  while (tpss_group_poll_transmit (s->core, &t)) {
    struct sockaddr_storage to;
    socklen_t tolen = addr_to_native (&t.to, &to);
    gsize len;
    const guint8 *data = g_bytes_get_data (t.data, &len);

    if (sendto (s->fd, data, len, 0, (const struct sockaddr *) &to,
            tolen) < 0) {
      s->send_errors++;
      GST_LOG ("sendto: %s", g_strerror (errno));
    }
    g_bytes_unref (t.data);
  }
}

static Act *
act_add (GQueue * acts, ActType type, guint32 member)
{
  Act *a = g_new0 (Act, 1);

  a->type = type;
  a->member = member;
  g_queue_push_tail (acts, a);
  return a;
}

static void
act_message (GQueue * acts, GstStructure * st)
{
  act_add (acts, ACT_MESSAGE, 0)->msg = st;
}

static GstBufferList *
buffer_list_from_packets (GPtrArray * packets)
{
  GstBufferList *list = gst_buffer_list_new_sized (packets->len);

  for (guint i = 0; i < packets->len; i++)
    gst_buffer_list_add (list,
        gst_buffer_new_wrapped_bytes (g_ptr_array_index (packets, i)));
  return list;
}

/* Turns the group core's events into what reaches the elements once `lock`
 * is released. With `lock`. */
static void
collect_events (GstTpssSession * s, GQueue * acts)
{
  TpssGroupEvent ev;

  while (tpss_group_poll_event (s->core, &ev)) {
    switch (ev.type) {
      case TPSS_GROUP_EVENT_DATA_RATE:
        act_add (acts, ACT_DATA_RATE, 0)->rate = ev.rate;
        break;
      case TPSS_GROUP_EVENT_PHASE:
        act_message (acts, gst_structure_new ("tpss-phase",
                "member", G_TYPE_UINT, ev.member,
                "phase", G_TYPE_STRING, ev.phase == TPSS_PHASE_REDUNDANT ?
                "redundant" : "non-redundant",
                "distance", G_TYPE_UINT, ev.distance,
                "length", G_TYPE_UINT, ev.length, NULL));
        break;
      case TPSS_GROUP_EVENT_MEMBER_JOINED:
        act_message (acts, gst_structure_new ("tpss-member-joined",
                "member", G_TYPE_UINT, ev.member, NULL));
        break;
      case TPSS_GROUP_EVENT_MEMBER_LEFT:
        act_add (acts, ACT_LEFT, ev.member);
        act_message (acts, gst_structure_new ("tpss-member-left",
                "member", G_TYPE_UINT, ev.member, NULL));
        break;
      case TPSS_GROUP_EVENT_DELIVER:
        act_add (acts, ACT_DELIVER, ev.member)->list =
            buffer_list_from_packets (ev.packets);
        break;
      case TPSS_GROUP_EVENT_KEY_UNIT:
        act_add (acts, ACT_KEY_UNIT, ev.member)->rtt = ev.rtt;
        break;
    }
    tpss_group_event_clear (&ev);
  }
}

static gint64
next_wakeup (GstTpssSession * s)
{
  gint64 t = tpss_group_next_timeout (s->core);

  if (s->settings.stats_interval && (t < 0 || s->next_stats < t))
    t = s->next_stats;
  return t;
}

static void
dispatch (GstTpssSession * s, GQueue * acts, GstElement * sink,
    GstTpssSinkCallbacks * sink_cb, GstElement * src,
    GstTpssSrcCallbacks * src_cb)
{
  Act *a;

  while ((a = g_queue_pop_head (acts))) {
    switch (a->type) {
      case ACT_DATA_RATE:
        if (sink && sink_cb->data_rate)
          sink_cb->data_rate (sink, a->rate);
        break;
      case ACT_MESSAGE:{
        GstElement *e = sink ? sink : src;
        if (!a->msg) {
          a->msg = gst_tpss_session_get_stats (s);
          gst_structure_set_name (a->msg, "tpss-stats");
        }
        if (e)
          gst_element_post_message (e,
              gst_message_new_element (GST_OBJECT (e), a->msg));
        else
          gst_structure_free (a->msg);
        break;
      }
      case ACT_DELIVER:
        if (src && src_cb->deliver)
          src_cb->deliver (src, a->member, a->list);
        else
          gst_buffer_list_unref (a->list);
        break;
      case ACT_LEFT:
        if (src && src_cb->member_left)
          src_cb->member_left (src, a->member);
        break;
      case ACT_KEY_UNIT:
        if (sink && sink_cb->key_unit)
          sink_cb->key_unit (sink, a->member, a->rtt);
        break;
    }
    g_free (a);
  }
}

/* Reads up to READ_BATCH datagrams into the group core. With `lock`. */
static void
read_datagrams (GstTpssSession * s, guint8 * buf)
{
  for (guint i = 0; i < READ_BATCH; i++) {
    struct sockaddr_storage from;
    socklen_t fromlen = sizeof (from);
    TpssAddr addr;
    gssize len = recvfrom (s->fd, buf, MAX_DATAGRAM, MSG_DONTWAIT,
        (struct sockaddr *) &from, &fromlen);
    if (len < 0)
      break;
    addr_from_native (&from, fromlen, &addr);
    tpss_group_handle_datagram (s->core, buf, len, &addr, now_ns ());
    flush_transmits (s);
  }
}

static void
wait_for_io (GstTpssSession * s, gint64 deadline)
{
  gint64 wait = deadline < 0 ? GST_SECOND :
      CLAMP (deadline - now_ns (), 0, GST_SECOND);
  struct pollfd fds[2];
  struct timespec ts;

  ts.tv_sec = wait / GST_SECOND;
  ts.tv_nsec = wait % GST_SECOND;
  fds[0].fd = s->fd;
  fds[0].events = POLLIN;
  fds[1].fd = s->wake_fd;
  fds[1].events = POLLIN;
  if (ppoll (fds, 2, &ts, NULL) > 0 && (fds[1].revents & POLLIN)) {
    guint64 cnt;
    if (read (s->wake_fd, &cnt, sizeof (cnt)) < 0)
      GST_LOG ("wake read: %s", g_strerror (errno));
  }
}

static gpointer
session_thread (gpointer data)
{
  GstTpssSession *s = data;
  guint8 *buf = g_malloc (MAX_DATAGRAM);
  GQueue acts = G_QUEUE_INIT;
  TpssGroupStats st;

  g_mutex_lock (&s->lock);
  while (s->running) {
    gint64 dl = next_wakeup (s);
    GstElement *sink = NULL, *src = NULL;
    GstTpssSinkCallbacks sink_cb;
    GstTpssSrcCallbacks src_cb;

    g_mutex_unlock (&s->lock);
    wait_for_io (s, dl);
    g_mutex_lock (&s->lock);
    if (!s->running)
      break;
    read_datagrams (s, buf);
    tpss_group_handle_timeout (s->core, now_ns ());
    flush_transmits (s);
    collect_events (s, &acts);
    tpss_group_get_stats (s->core, &st);
    if (st.queued == 0)
      g_cond_broadcast (&s->drained);
    if (s->settings.stats_interval && now_ns () >= s->next_stats) {
      act_add (&acts, ACT_MESSAGE, 0);  /* filled in after unlocking */
      s->next_stats = now_ns () + (gint64) s->settings.stats_interval;
    }
    if (acts.length) {
      if (s->sink)
        sink = gst_object_ref (s->sink);
      if (s->src)
        src = gst_object_ref (s->src);
      sink_cb = s->sink_cb;
      src_cb = s->src_cb;
      g_mutex_unlock (&s->lock);
      dispatch (s, &acts, sink, &sink_cb, src, &src_cb);
      if (sink)
        gst_object_unref (sink);
      if (src)
        gst_object_unref (src);
      g_mutex_lock (&s->lock);
    }
  }
  g_mutex_unlock (&s->lock);
  g_free (buf);
  return NULL;
}

static gboolean
open_socket (GstTpssSession * s, GError ** error)
{
  GstTpssSettings *st = &s->settings;
  GInetAddress *addr = g_inet_address_new_from_string (st->address);
  GInetAddress *bind_addr;
  GSocketAddress *sa, *local;
  int fd, size = st->buffer_size;

  if (!addr) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "address \"%s\" is not an IP address", st->address);
    return FALSE;
  }
  s->multicast = g_inet_address_get_is_multicast (addr);
  s->socket = g_socket_new (g_inet_address_get_family (addr),
      G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_UDP, error);
  if (!s->socket) {
    g_object_unref (addr);
    return FALSE;
  }
  g_socket_set_blocking (s->socket, FALSE);
  fd = g_socket_get_fd (s->socket);
  if (size > 0) {
    setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof (size));
    setsockopt (fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof (size));
  }
  /* Multicast: bind the wildcard address, so the unicast parity and
   * control addressed to this member arrive too. */
  bind_addr = s->multicast ?
      g_inet_address_new_any (g_inet_address_get_family (addr)) :
      g_object_ref (addr);
  sa = g_inet_socket_address_new (bind_addr, st->port);
  g_object_unref (bind_addr);
  if (!g_socket_bind (s->socket, sa, s->multicast, error)) {
    g_object_unref (sa);
    g_object_unref (addr);
    g_clear_object (&s->socket);
    return FALSE;
  }
  g_object_unref (sa);
  local = g_socket_get_local_address (s->socket, NULL);
  s->local_port = local ?
      g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)) : 0;
  g_clear_object (&local);

  memset (&s->group, 0, sizeof (s->group));
  if (s->multicast) {
    struct sockaddr_storage ss;
    if (!g_socket_join_multicast_group (s->socket, addr, FALSE,
            st->multicast_iface, error)) {
      g_object_unref (addr);
      g_clear_object (&s->socket);
      return FALSE;
    }
    g_socket_set_multicast_ttl (s->socket, st->ttl_mc);
    g_socket_set_multicast_loopback (s->socket, st->loop);
    if (st->multicast_iface && g_inet_address_get_family (addr) ==
        G_SOCKET_FAMILY_IPV4) {
      struct ip_mreqn mr = { 0, };
      mr.imr_ifindex = if_nametoindex (st->multicast_iface);
      setsockopt (fd, IPPROTO_IP, IP_MULTICAST_IF, &mr, sizeof (mr));
    }
    sa = g_inet_socket_address_new (addr, st->port);
    g_socket_address_to_native (sa, &ss, sizeof (ss), NULL);
    addr_from_native (&ss, g_socket_address_get_native_size (sa), &s->group);
    g_object_unref (sa);
  }
  g_object_unref (addr);
  s->fd = fd;
  return TRUE;
}

static guint32
random_u32 (gpointer unused)
{
  return g_random_int ();
}

static TpssGroup *
new_group_core (GstTpssSession * s)
{
  TpssGroupConfig cfg;
  GHashTable *prio = g_hash_table_new (NULL, NULL);

  tpss_group_config_init (&cfg);
  cfg.id = s->id;
  cfg.cfg = s->settings.cfg;
  cfg.fec_pt = s->settings.fec_pt;
  cfg.ext_id = s->settings.ext_id;
  cfg.fec_size_time = (gint64) s->settings.fec_size_time;
  cfg.allow_join = s->settings.allow_join;
  cfg.group = s->group;
  cfg.random = random_u32;
  s->core = tpss_group_new (&cfg);
  gst_tpss_parse_priorities (s->settings.priorities, prio, NULL);
  tpss_group_set_priorities (s->core, prio, now_ns ());
  tpss_group_set_receiving (s->core, s->src != NULL);
  return s->core;
}

gboolean
gst_tpss_session_start (GstTpssSession * s, GstElement * element,
    const GstTpssSettings * st, GError ** error)
{
  gint64 now = now_ns ();

  g_mutex_lock (&registry_lock);
  if (!s->running && st)
    settings_merge (&s->settings, st, G_OBJECT_GET_CLASS (element));
  g_mutex_unlock (&registry_lock);

  g_mutex_lock (&s->lock);
  if (s->starts++ > 0) {
    g_mutex_unlock (&s->lock);
    return TRUE;
  }
  if (!open_socket (s, error))
    goto fail;
  s->id = s->settings.member_id;
  while (s->id == 0)
    s->id = g_random_int ();
  new_group_core (s);
  s->send_errors = 0;
  if (!apply_members (s, s->settings.members, now, error))
    goto fail;
  tpss_group_start (s->core, now);
  s->wake_fd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  s->running = TRUE;
  s->next_stats = now + (gint64) s->settings.stats_interval;
  s->thread = g_thread_new ("tpss-session", session_thread, s);
  GST_INFO ("session %s: member %u on port %u%s", s->name, s->id,
      s->local_port, s->multicast ? " (multicast)" : "");
  g_mutex_unlock (&s->lock);
  return TRUE;

fail:
  s->starts--;
  g_clear_pointer (&s->core, tpss_group_free);
  g_clear_object (&s->socket);
  s->fd = -1;
  g_mutex_unlock (&s->lock);
  return FALSE;
}

void
gst_tpss_session_stop (GstTpssSession * s)
{
  GThread *thread;

  g_mutex_lock (&s->lock);
  if (s->starts == 0 || --s->starts > 0) {
    g_mutex_unlock (&s->lock);
    return;
  }
  s->running = FALSE;
  thread = s->thread;
  s->thread = NULL;
  wake (s);
  g_mutex_unlock (&s->lock);
  if (thread)
    g_thread_join (thread);

  g_mutex_lock (&s->lock);
  close (s->wake_fd);
  s->wake_fd = -1;
  g_clear_object (&s->socket);
  s->fd = -1;
  tpss_group_get_stats (s->core, &s->last);
  s->last.queued = 0;
  g_clear_pointer (&s->core, tpss_group_free);
  g_mutex_unlock (&s->lock);
}

void
gst_tpss_session_set_sink (GstTpssSession * s, GstElement * sink,
    const GstTpssSinkCallbacks * cb)
{
  g_mutex_lock (&s->lock);
  s->sink = sink;
  if (cb)
    s->sink_cb = *cb;
  else
    memset (&s->sink_cb, 0, sizeof (s->sink_cb));
  g_mutex_unlock (&s->lock);
}

void
gst_tpss_session_set_src (GstTpssSession * s, GstElement * src,
    const GstTpssSrcCallbacks * cb)
{
  g_mutex_lock (&s->lock);
  s->src = src;
  if (cb)
    s->src_cb = *cb;
  else
    memset (&s->src_cb, 0, sizeof (s->src_cb));
  /* A new src starts every stream anew: each gets a PLI with its next
   * packet. */
  if (s->core)
    tpss_group_set_receiving (s->core, src != NULL);
  g_mutex_unlock (&s->lock);
}

gboolean
gst_tpss_session_send (GstTpssSession * s, GstBuffer * buffer)
{
  gboolean ok = FALSE;
  gint64 now = now_ns ();
  TpssGroupStats st;
  GstMapInfo map;

  g_mutex_lock (&s->lock);
  if (!s->core) {
    s->last.queue_dropped++;
  } else if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    s->send_errors++;
  } else {
    tpss_group_get_stats (s->core, &st);
    ok = tpss_group_enqueue (s->core, map.data, map.size, now);
    gst_buffer_unmap (buffer, &map);
    /* The thread recomputes its deadline: a packet entering an empty MQ
     * (or its QOS announcement) needs it. */
    if (ok && (st.queued == 0 || s->settings.cfg.holding_time == 0 ||
            s->settings.cfg.control == TPSS_CONTROL_FEEDBACK))
      wake (s);
  }
  g_mutex_unlock (&s->lock);
  gst_buffer_unref (buffer);
  return ok;
}

void
gst_tpss_session_drain (GstTpssSession * s, gint64 timeout)
{
  gint64 end = g_get_monotonic_time () + timeout / 1000;
  TpssGroupStats st;

  g_mutex_lock (&s->lock);
  while (s->running) {
    tpss_group_get_stats (s->core, &st);
    if (st.queued == 0 || !g_cond_wait_until (&s->drained, &s->lock, end))
      break;
  }
  g_mutex_unlock (&s->lock);
}

gboolean
gst_tpss_session_set_members (GstTpssSession * s, const gchar * members,
    GError ** error)
{
  gboolean ok = TRUE;

  g_mutex_lock (&s->lock);
  if (s->core) {
    ok = apply_members (s, members, now_ns (), error);
    wake (s);
  }
  g_mutex_unlock (&s->lock);
  return ok;
}

gboolean
gst_tpss_session_set_priorities (GstTpssSession * s, const gchar * prio,
    GError ** error)
{
  GHashTable *t = g_hash_table_new (NULL, NULL);

  if (!gst_tpss_parse_priorities (prio, t, error)) {
    g_hash_table_unref (t);
    return FALSE;
  }
  g_mutex_lock (&s->lock);
  if (s->core)
    tpss_group_set_priorities (s->core, g_steal_pointer (&t), now_ns ());
  g_mutex_unlock (&s->lock);
  g_clear_pointer (&t, g_hash_table_unref);
  return TRUE;
}

gboolean
gst_tpss_session_request_key_unit (GstTpssSession * s, guint32 member)
{
  gboolean sent = FALSE;

  g_mutex_lock (&s->lock);
  if (s->core && s->fd >= 0) {
    sent = tpss_group_request_key_unit (s->core, member);
    flush_transmits (s);
  }
  g_mutex_unlock (&s->lock);
  return sent;
}

guint32
gst_tpss_session_get_member_id (GstTpssSession * s)
{
  guint32 id;

  g_mutex_lock (&s->lock);
  id = s->id;
  g_mutex_unlock (&s->lock);
  return id;
}

guint
gst_tpss_session_get_port (GstTpssSession * s)
{
  guint port;

  g_mutex_lock (&s->lock);
  port = s->local_port;
  g_mutex_unlock (&s->lock);
  return port;
}

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
      /* from it */
      "packets-received", G_TYPE_UINT64, m->recv.packets_received,
      "parity-received", G_TYPE_UINT64, m->parity_received,
      "packets-lost", G_TYPE_UINT64, m->recv.packets_lost,
      "packets-recovered", G_TYPE_UINT64, m->recv.packets_recovered,
      "packets-not-delivered", G_TYPE_UINT64, m->recv.packets_not_delivered,
      "packets-delivered", G_TYPE_UINT64, m->delivered,
      "receive-rate", G_TYPE_UINT64, m->recv.receive_rate,
      "allocated-rate", G_TYPE_UINT64, m->recv.allocated_rate,
      "recv-notified-rate", G_TYPE_UINT64, m->recv.notified_rate, NULL);

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
gst_tpss_session_get_stats (GstTpssSession * s)
{
  GstStructure *st;
  GValue list = G_VALUE_INIT;
  TpssGroupStats gs;
  GArray *members = NULL;

  g_value_init (&list, GST_TYPE_LIST);
  g_mutex_lock (&s->lock);
  gs = s->last;
  if (s->core) {
    tpss_group_get_stats (s->core, &gs);
    members = tpss_group_get_member_stats (s->core);
  }
  st = gst_structure_new ("application/x-tpss-stats",
      "member-id", G_TYPE_UINT, s->id,
      "port", G_TYPE_UINT, s->local_port,
      "running", G_TYPE_BOOLEAN, s->running,
      "data-rate", G_TYPE_UINT64, gs.data_rate,
      "packets-sent", G_TYPE_UINT64, gs.sent,
      "bytes-sent", G_TYPE_UINT64, gs.send_bytes,
      "queue-dropped", G_TYPE_UINT64, gs.queue_dropped,
      "queued", G_TYPE_UINT, gs.queued,
      "send-errors", G_TYPE_UINT64, s->send_errors + gs.stamp_errors,
      "control-sent", G_TYPE_UINT64, gs.ctrl_sent,
      "control-received", G_TYPE_UINT64, gs.ctrl_received,
      "data-received", G_TYPE_UINT64, gs.data_received,
      "malformed", G_TYPE_UINT64, gs.malformed,
      "non-member", G_TYPE_UINT64, gs.non_member,
      "forged", G_TYPE_UINT64, gs.forged,
      "own", G_TYPE_UINT64, gs.own,
      "other-rtcp", G_TYPE_UINT64, gs.other_rtcp,
      "pli-sent", G_TYPE_UINT64, gs.pli_sent,
      "pli-received", G_TYPE_UINT64, gs.pli_received,
      "pli-dropped", G_TYPE_UINT64, gs.pli_dropped, NULL);
  g_mutex_unlock (&s->lock);

  for (guint i = 0; members && i < members->len; i++) {
    GValue mv = G_VALUE_INIT;
    g_value_init (&mv, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&mv, member_stats_structure (&g_array_index (members,
                TpssGroupMemberStats, i)));
    gst_value_list_append_and_take_value (&list, &mv);
  }
  if (members)
    g_array_free (members, TRUE);
  gst_structure_take_value (st, "members", &list);
  return st;
}

/* Sets a session property of @element (tpsssink or tpsssrc) under its
 * object lock and applies it to its running session: a refused member list
 * keeps the old one; other bad lists fail the next state change. */
gboolean
gst_tpss_element_set_session_property (GstElement * element,
    GstTpssSettings * settings, GstTpssSession ** session,
    const gboolean * started, guint prop_id, const GValue * value)
{
  gchar *members = NULL, *prio = NULL, *old_members;
  gboolean live;
  GError *err = NULL;

  GST_OBJECT_LOCK (element);
  old_members = g_strdup (settings->members);
  if (!gst_tpss_settings_set_property (settings, prop_id, value)) {
    g_free (old_members);
    GST_OBJECT_UNLOCK (element);
    return FALSE;
  }
  live = *started;
  if (prop_id == GST_TPSS_PROP_MEMBERS || prop_id == GST_TPSS_PROP_MEMBER_LIST)
    members = g_strdup (settings->members);
  else
    g_clear_pointer (&old_members, g_free);
  if (prop_id == GST_TPSS_PROP_PRIORITIES)
    prio = g_strdup (settings->priorities);
  GST_OBJECT_UNLOCK (element);

  if (members && live) {
    if (!gst_tpss_session_set_members (*session, members, &err)) {
      GST_ELEMENT_WARNING (element, RESOURCE, SETTINGS,
          ("%s; the members stay as they were", err->message), (NULL));
      g_clear_error (&err);
      GST_OBJECT_LOCK (element);
      g_free (settings->members);
      settings->members = old_members;
      old_members = NULL;
      GST_OBJECT_UNLOCK (element);
    }
  } else if (members && !gst_tpss_parse_members (members, NULL, &err)) {
    GST_WARNING_OBJECT (element, "%s (the state change will fail)",
        err->message);
    g_clear_error (&err);
  }
  if (prio && !gst_tpss_parse_priorities (prio, NULL, &err)) {
    GST_WARNING_OBJECT (element, "%s (the state change will fail)",
        err->message);
    g_clear_error (&err);
  } else if (live && prop_id == GST_TPSS_PROP_PRIORITIES)
    gst_tpss_session_set_priorities (*session, prio, NULL);
  g_free (members);
  g_free (old_members);
  g_free (prio);
  return TRUE;
}
