/* The TPSS group core (see tpssgroup.h): the member table, the receive
 * path with its source checks, loss before FEC and per-source decoders, and
 * the send path with MQ and one FEC encoder per destination. GLib only. */
#define G_LOG_DOMAIN "tpssgroup"  /* G_MESSAGES_DEBUG=tpssgroup shows its log */
#include "tpssgroup.h"
#include "core/addrcookie.h"
#include "core/ntp.h"
#include "core/pacer.h"
#include "core/polled.h"
#include "core/rtcp.h"
#include "core/rtp.h"
#include "core/wire.h"

#include <string.h>

/* Layered: what a destination's pacer may send at once after idling. */
#define LAYER_PACER_BURST (10 * G_GINT64_CONSTANT (1000000))
/* Layered: a destination whose queue holds more than this at its rate
 * gets the base layer only until the queue drains. */
#define LAYER_BACKLOG_TIME (200 * G_GINT64_CONSTANT (1000000))
/* Parity scaled by its outcomes: the weight of one parity packet's
 * outcome (left, or dropped stale) in a destination's share of parity that
 * left (about the last 16), and the least share made: the parity still
 * queued is what measures that share. */
#define PARITY_SHARE_WEIGHT (1.0 / 16)
#define PARITY_MIN_SHARE (1.0 / 8)

typedef struct
{
  guint32 id;
  gboolean configured;          /* listed in `members` */
  TpssAddr addr;                /* len 0 until known */

  /* Send side: parity toward this destination. */
  TpssFecEncoder *enc;
  guint16 fec_seq;
  guint64 parity_sent;
  /* Parity over key units (tpss_group_enqueue_media): short segments of
   * their own, the last closed with the unit. */
  TpssFecEncoder *key_enc;
  gboolean key_open;            /* a key unit is being protected */
  guint32 key_ts;               /* its RTP time */
  guint64 key_parity_sent;
  /* Layered: the prefix of layers it gets, its own sequence numbers. */
  TpssLayerFilter layers;
  gboolean have_layers;         /* layers set up for the stream's layering */
  guint64 fall_peak;            /* uplink_estimate: its highest D since its
                                 * last fall */
  /* Layered: MQ leaves at the fastest destination's rate, so what goes to
   * this one (media and parity) leaves at its own send rate S. */
  GQueue paced;                 /* GBytes: media */
  guint64 paced_bytes;
  /* Parity toward it waits apart and leaves only when no media waits: it
   * fills what S leaves beside the media (section 2.3), never its place. */
  GQueue paced_parity;          /* QueuedParity */
  guint64 paced_parity_bytes;
  guint64 parity_dropped;       /* waited over fec_size_time, or flushed */
  guint64 parity_skipped;       /* made, not queued: over parity_max_backlog
                                 * or thinned by parity_by_share */
  gdouble parity_left_share;    /* of its queued parity, what left (average) */
  gdouble parity_credit;        /* parity_by_share: queued when >= 1 */
  guint64 media_queued;         /* media packets put in `paced`, so far */
  guint64 media_left;           /* and those of them that left */
  gint64 media_left_at;         /* when the last one left */
  Pacer pacer;
  guint64 paced_dropped;
  gboolean wire_started;        /* a media packet left toward it */
  guint32 wire_ts;              /* the RTP time of the last one */
  gboolean key_queued;          /* a key unit was queued toward it */
  guint32 queued_key_ts;        /* the RTP time of the last one */
  guint64 key_flush_packets;
  gint64 queue_key_asked;       /* when its queue last asked for a key unit
                                 * (QUEUE_KEY_UNIT), -1: never */
  guint64 queue_key_asks;
  /* Layered, with a queue age bound: frames toward it are left out from
   * the one that would wait over the bound until the next key unit. */
  gboolean awaiting_key;
  gboolean have_age_ts;
  guint32 age_ts;               /* RTP time of the last frame judged */
  gint64 age_key_asked;         /* last QUEUE_KEY_UNIT while awaiting, -1 */
  guint64 age_dropped_frames, age_dropped_packets;

  /* Receive side: this source's stream. */
  TpssFecDecoder *dec;
  gboolean have_seq;
  gboolean asked_key_unit;      /* PLI sent since its stream started */
  guint16 max_seq;
  guint pending_lost;
  guint64 last_recovered, pending_recovered;
  guint64 delivered, parity_received, refused_parity;
  gboolean have_parity_seq;
  guint16 max_parity_seq;
  guint64 parity_lost;          /* gaps in its parity stream toward us */
  TpssSenderReport sr;          /* its latest SR */
  guint64 sr_received;
} Member;

struct _TpssGroup
{
  TpssGroupConfig cfg;
  TpssMember *core;
  guint32 fec_ssrc;
  guint16 seq;
  gboolean receiving;
  gboolean left;                /* tpss_group_leave: nothing more to do */
  GHashTable *members;          /* id -> Member */
  GHashTable *priorities;       /* id -> priority */
  GQueue sendq;                 /* QueuedPacket, parallel to MQ */
  GQueue transmits;             /* TpssTransmit */
  GQueue events;                /* TpssGroupEvent */
  guint64 data_rate;
  guint n_layers;               /* of the stream sent; >= 2: layered */
  guint n_rates;                /* entries of the last DATA_RATE */
  guint64 layer_rates[TPSS_MAX_LAYERS];
  guint64 uplink_send_rate;     /* what the copies send at full rates */
  gdouble uplink_share;         /* of each copy's rates, to fit uplink_bound */
  /* uplink_estimate: the bound, and the first fall waiting for a second */
  guint64 uplink_estimate;      /* bits/s, 0: none */
  gint64 fall_time;             /* -1: no fall waits */
  guint32 fall_member;
  guint64 fall_sent;            /* what the copies sent before it, bits/s */
  gint64 estimate_time;         /* of the last estimate_uplink, -1: none */
  gint64 estimate_hold_until;   /* falls before it are not counted */
  gint64 queue_bound;           /* tpss_group_set_queue_bound, ns */
  gint64 max_queue_age;         /* tpss_group_set_max_queue_age, ns */
  gboolean parity_age_from_media;       /* tpss_group_set_parity_age_from_media */
  gint64 parity_max_backlog;    /* tpss_group_set_parity_max_backlog, ns */
  gboolean parity_by_share;     /* tpss_group_set_parity_by_share */
  GArray *departed;             /* TpssGroupMemberStats: said BYE */
  /* the RTP clock of our stream, for SRs (tpss_group_set_media_clock) */
  gboolean have_clock;
  guint32 clock_rtp_ts;
  gint64 clock_capture;
  guint clock_rate;
  guint64 payload_octets;       /* SR octet count */
  gint64 next_sr;               /* -1: none sent yet */
  AuthSession *auth;            /* NULL: no group key */
  /* the join check: secrets made at start, rotated; the answers' bound */
  gboolean jar_ready;
  AddrCookieJar jar;
  AddrCookieLimiter answers;
  TpssGroupStats st;
};

typedef struct
{
  GBytes *data;
  gint64 queued;                /* when */
  guint64 covers;               /* the media it covers: media_queued then */
  gint64 covered_left;          /* when the last of that left; -1: not yet */
} QueuedParity;

typedef struct
{
  GBytes *data;
  guint layer;
  gboolean key;                 /* starts a key unit, as key_unit asks */
  TpssKeyUnit key_unit;
} QueuedPacket;

gboolean
tpss_addr_equal (const TpssAddr * a, const TpssAddr * b)
{
  return a->len == b->len && memcmp (a->bytes, b->bytes, a->len) == 0;
}

static guint32
draw_random (TpssGroup * g)
{
  return g->cfg.random ? g->cfg.random (g->cfg.random_data) : g_random_int ();
}

void
tpss_group_config_init (TpssGroupConfig * cfg)
{
  memset (cfg, 0, sizeof (*cfg));
  tpss_config_init (&cfg->cfg);
  cfg->fec_pt = 100;
  cfg->ext_id = 5;
  cfg->fec_size_time = 200 * G_GINT64_CONSTANT (1000000);
  cfg->allow_join = TRUE;
  cfg->join_check = TRUE;
  cfg->layer_spread = 1.5;
  cfg->layer_max_spread = 4.0;
  cfg->uplink_estimate_window = 250 * G_GINT64_CONSTANT (1000000);
  cfg->uplink_estimate_fall = 0.1;
  cfg->uplink_estimate_factor = 0.85;
  cfg->uplink_estimate_probe = 0.03;
  cfg->uplink_estimate_hold = 2 * G_GINT64_CONSTANT (1000000000);
  cfg->sr_interval = G_GINT64_CONSTANT (1000000000);
}

static void
queued_parity_free (QueuedParity * q)
{
  g_bytes_unref (q->data);
  g_free (q);
}

/* Drops the parity queued toward @m; returns how many packets. */
static guint
clear_paced_parity (Member * m)
{
  guint n = m->paced_parity.length;

  g_queue_clear_full (&m->paced_parity, (GDestroyNotify) queued_parity_free);
  m->paced_parity_bytes = 0;
  m->parity_dropped += n;
  return n;
}

static void
member_free (Member * m)
{
  g_queue_clear_full (&m->paced, (GDestroyNotify) g_bytes_unref);
  clear_paced_parity (m);
  if (m->enc)
    tpss_fec_encoder_free (m->enc);
  if (m->key_enc)
    tpss_fec_encoder_free (m->key_enc);
  if (m->dec)
    tpss_fec_decoder_free (m->dec);
  g_free (m);
}

static void
queued_packet_free (QueuedPacket * q)
{
  g_bytes_unref (q->data);
  g_free (q);
}

static void
transmit_free (TpssTransmit * t)
{
  g_bytes_unref (t->data);
  g_free (t);
}

void
tpss_group_event_clear (TpssGroupEvent * ev)
{
  g_clear_pointer (&ev->packets, g_ptr_array_unref);
}

static void
event_free (TpssGroupEvent * ev)
{
  tpss_group_event_clear (ev);
  g_free (ev);
}

static gint64
hello_interval (const TpssGroup * g)
{
  return g->cfg.cfg.hello_interval > 0 ? g->cfg.cfg.hello_interval :
      G_GINT64_CONSTANT (1000000000);
}

/* The system's generator, unless a test gave its own. */
static void
cookie_secret_random (guint8 * secret, gsize len, gpointer user_data)
{
  TpssGroup *g = user_data;

  if (!g->cfg.random) {
    addr_cookie_system_random (secret, len, NULL);
    return;
  }
  for (gsize i = 0; i < len; i += 4) {
    guint32 r = draw_random (g);
    memcpy (secret + i, &r, MIN (4, len - i));
  }
}

/* A cookie lives 8 to 16 hello intervals: far longer than a round trip. */
#define COOKIE_ROTATION_HELLOS 8

TpssGroup *
tpss_group_new (const TpssGroupConfig * cfg)
{
  TpssGroup *g = g_new0 (TpssGroup, 1);

  g->cfg = *cfg;
  g->uplink_share = 1.0;
  g->fall_time = -1;
  g->estimate_time = -1;
  g->core = tpss_member_new (cfg->id, &cfg->cfg);
  g->fec_ssrc = draw_random (g);
  g->seq = draw_random (g);
  g->next_sr = -1;
  addr_cookie_limiter_init (&g->answers, hello_interval (g),
      TPSS_MAX_MEMBERS);
  g->members = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) member_free);
  g->priorities = g_hash_table_new (NULL, NULL);
  g->departed = g_array_new (FALSE, TRUE, sizeof (TpssGroupMemberStats));
  g_queue_init (&g->sendq);
  g_queue_init (&g->transmits);
  g_queue_init (&g->events);
  return g;
}

void
tpss_group_free (TpssGroup * g)
{
  if (!g)
    return;
  g_queue_clear_full (&g->sendq, (GDestroyNotify) queued_packet_free);
  g_queue_clear_full (&g->transmits, (GDestroyNotify) transmit_free);
  g_queue_clear_full (&g->events, (GDestroyNotify) event_free);
  g_hash_table_unref (g->members);
  g_hash_table_unref (g->priorities);
  g_array_unref (g->departed);
  g_clear_pointer (&g->auth, auth_session_free);
  tpss_member_free (g->core);
  g_free (g);
}

void
tpss_group_set_key (TpssGroup * g, const AuthKey * key)
{
  g_clear_pointer (&g->auth, auth_session_free);
  g->auth = auth_session_new (key, draw_random (g), TPSS_GROUP_AUTH_SENDERS);
}

void
tpss_group_start (TpssGroup * g, gint64 now)
{
  tpss_member_advance (g->core, now);   /* the first HELLO */
}

guint32
tpss_group_get_id (const TpssGroup * g)
{
  return g->cfg.id;
}

/* ------------------------------------------------------------------ */
/* The member table */

static guint
peer_priority (TpssGroup * g, guint32 id)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (g->priorities,
          GUINT_TO_POINTER (id)));
}

static gboolean
core_knows (const TpssGroup * g, guint32 id)
{
  TpssSendStats st;
  return tpss_member_get_send_stats (g->core, id, &st);
}

/* @m's stats; FALSE if the protocol core does not know it. */
static gboolean
member_stats_fill (const TpssGroup * g, const Member * m,
    TpssGroupMemberStats * ms)
{
  if (!tpss_member_get_send_stats (g->core, m->id, &ms->send) ||
      !tpss_member_get_recv_stats (g->core, m->id, &ms->recv))
    return FALSE;
  ms->id = m->id;
  ms->addr = m->addr;
  ms->parity_sent = m->parity_sent;
  ms->parity_dropped = m->parity_dropped;
  ms->parity_skipped = m->parity_skipped;
  ms->key_parity_sent = m->key_parity_sent;
  ms->parity_received = m->parity_received;
  ms->parity_lost = m->parity_lost;
  ms->delivered = m->delivered;
  if (m->have_layers) {
    ms->layers_sent = m->layers.prefix;
    ms->layer_passed = m->layers.passed;
    ms->layer_left_out = m->layers.left_out;
    ms->layer_queue_dropped = m->paced_dropped;
    ms->layer_queue_time = pacer_cost (m->paced_bytes, m->pacer.rate);
    ms->key_flush_packets = m->key_flush_packets;
    ms->queue_key_asks = m->queue_key_asks;
    ms->age_dropped_frames = m->age_dropped_frames;
    ms->age_dropped_packets = m->age_dropped_packets;
  }
  ms->sr_received = m->sr_received;
  ms->sr = m->sr;
  ms->have_decoder = m->dec != NULL;
  if (m->dec)
    tpss_fec_decoder_get_stats (m->dec, &ms->decoder);
  return TRUE;
}

static Member *
member_get (TpssGroup * g, guint32 id, gboolean create)
{
  Member *m = g_hash_table_lookup (g->members, GUINT_TO_POINTER (id));

  if (!m && create) {
    m = g_new0 (Member, 1);
    m->id = id;
    m->fec_seq = draw_random (g);
    g_queue_init (&m->paced);
    g_queue_init (&m->paced_parity);
    m->parity_left_share = 1.0;
    pacer_init (&m->pacer, g->cfg.cfg.initial_rate, LAYER_PACER_BURST);
    m->queue_key_asked = -1;
    m->age_key_asked = -1;
    g_hash_table_insert (g->members, GUINT_TO_POINTER (id), m);
  }
  return m;
}

static gboolean
peers_list (const TpssGroupPeer * peers, guint n, guint32 id)
{
  for (guint i = 0; i < n; i++)
    if (peers[i].id == id)
      return TRUE;
  return FALSE;
}

void
tpss_group_set_members (TpssGroup * g, const TpssGroupPeer * peers,
    guint n_peers, gint64 now)
{
  GHashTableIter it;
  gpointer v;

  /* Configured members no longer listed leave. */
  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Member *m = v;
    if (m->configured && !peers_list (peers, n_peers, m->id)) {
      tpss_member_remove_peer (g->core, m->id, now);
      g_hash_table_iter_remove (&it);
    }
  }
  for (guint i = 0; i < n_peers; i++) {
    Member *m;
    if (peers[i].id == g->cfg.id)
      continue;
    m = member_get (g, peers[i].id, TRUE);
    m->configured = TRUE;
    if (peers[i].addr.len)
      m->addr = peers[i].addr;
    tpss_member_add_peer (g->core, m->id, peer_priority (g, m->id), now);
  }
}

void
tpss_group_set_priorities (TpssGroup * g, GHashTable * priorities, gint64 now)
{
  GHashTableIter it;
  gpointer k;

  g_hash_table_unref (g->priorities);
  g->priorities = priorities;
  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, &k, NULL))
    if (core_knows (g, GPOINTER_TO_UINT (k)))
      tpss_member_add_peer (g->core, GPOINTER_TO_UINT (k),
          peer_priority (g, GPOINTER_TO_UINT (k)), now);
}

void
tpss_group_set_receiving (TpssGroup * g, gboolean receiving)
{
  GHashTableIter it;
  gpointer v;

  g->receiving = receiving;
  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, NULL, &v))
    ((Member *) v)->asked_key_unit = FALSE;
}

/* ------------------------------------------------------------------ */
/* Output queues */

static void
transmit (TpssGroup * g, const TpssAddr * to, guint32 member, GBytes * data)
{
  TpssTransmit *t;

  if (to->len == 0)
    return;
  t = polled_push (&g->transmits, sizeof (*t));
  t->to = *to;
  t->member = member;
  t->data = g_bytes_ref (data);
}

static TpssGroupEvent *
event_push (TpssGroup * g, TpssGroupEventType type, guint32 member)
{
  TpssGroupEvent *ev = polled_push (&g->events, sizeof (*ev));

  ev->type = type;
  ev->member = member;
  return ev;
}

gboolean
tpss_group_poll_transmit (TpssGroup * g, TpssTransmit * out)
{
  return polled_pop (&g->transmits, out, sizeof (*out));
}

gboolean
tpss_group_poll_event (TpssGroup * g, TpssGroupEvent * ev)
{
  return polled_pop (&g->events, ev, sizeof (*ev));
}

/* ------------------------------------------------------------------ */
/* Layers: one encoding, a prefix of its layers per destination */

static gboolean
layered (const TpssGroup * g)
{
  return g->n_layers >= 2 && g->cfg.group.len == 0;
}

/* The prefix that fits @rate under the layer rates last told the encoder;
 * one rate for all means the whole stream. */
static guint
prefix_for_rate (const TpssGroup * g, guint64 rate)
{
  if (g->n_rates <= 1)
    return g->n_layers;
  return tpss_layers_prefix_for_rate (g->layer_rates, g->n_rates, rate);
}

/* @rate x @share (at most 1: uplink_share). */
static guint64
scale_rate (guint64 rate, gdouble share)
{
  return share >= 1.0 ? rate : (guint64) ((gdouble) rate * share);
}

/* Whether @m's paced queue holds more than LAYER_BACKLOG_TIME. */
static gboolean
backlogged (const Member * m)
{
  return m->paced_bytes * 8 > m->pacer.rate * (guint64) LAYER_BACKLOG_TIME /
      G_GUINT64_CONSTANT (1000000000);
}

/* The prefix @m should get at @rate: what fits, the base layer alone while
 * its queue is backlogged (the encoder overshoots what fits: a key frame),
 * so that delay does not build up. */
static guint
member_prefix (const TpssGroup * g, const Member * m, guint64 rate)
{
  return backlogged (m) ? 1 : prefix_for_rate (g, rate);
}

/* @m is to get the prefix @prefix; the core announces it that much of
 * the queue. */
static void
want_prefix (TpssGroup * g, Member * m, guint prefix)
{
  tpss_layer_filter_want (&m->layers, prefix);
  tpss_member_set_prefix (g->core, m->id, m->layers.wanted);
}

/* @m's filter, set up for the stream's number of layers; its sequence
 * numbers and counters go on across a change of that number. */
static TpssLayerFilter *
member_layers (TpssGroup * g, Member * m)
{
  TpssSendStats st;

  if (!m->have_layers || m->layers.n_layers != g->n_layers) {
    TpssLayerFilter old = m->layers;

    tpss_layer_filter_init (&m->layers, g->n_layers,
        m->have_layers ? old.next_seq : draw_random (g));
    if (m->have_layers) {
      m->layers.passed = old.passed;
      m->layers.left_out = old.left_out;
    }
    m->have_layers = TRUE;
    if (tpss_member_get_send_stats (g->core, m->id, &st))
      want_prefix (g, m, member_prefix (g, m, scale_rate (st.data_rate,
                  g->uplink_share)));
  }
  return &m->layers;
}

/* Rates above @spread x the lowest of @rates are lowered to it. */
static void
clamp_to_spread (guint64 * rates, guint n, gdouble spread)
{
  guint64 lo = G_MAXUINT64, cap;

  for (guint i = 0; i < n; i++)
    lo = MIN (lo, rates[i]);
  if (n == 0 || spread < 1.0)
    return;
  cap = (gdouble) lo * spread >= (gdouble) G_MAXUINT64 ? G_MAXUINT64 :
      (guint64) ((gdouble) lo * spread);
  for (guint i = 0; i < n; i++)
    rates[i] = MIN (rates[i], cap);
}

static void
push_rates_event (TpssGroup * g)
{
  TpssGroupEvent *ev = event_push (g, TPSS_GROUP_EVENT_DATA_RATE, 0);
  guint64 sum = 0;

  for (guint k = 0; k < g->n_rates; k++)
    sum += g->layer_rates[k];
  ev->n_rates = g->n_rates;
  memcpy (ev->rates, g->layer_rates, g->n_rates * sizeof (guint64));
  ev->rate = g->data_rate = sum;
}

/* The encoder's layer rates into @rates for destinations allowing
 * @data (@n of them) at @share of it; returns their number. */
static guint
layer_rates_at (const TpssGroup * g, const guint64 * data, guint n,
    gdouble share, guint64 * rates)
{
  guint64 *allowed = g_new (guint64, MAX (n, 1));
  guint n_rates;

  for (guint i = 0; i < n; i++)
    allowed[i] = scale_rate (data[i], share);
  clamp_to_spread (allowed, n, g->cfg.layer_max_spread);
  n_rates = tpss_layers_encoder_rates (allowed, n, g->n_layers,
      g->cfg.layer_spread, rates);
  g_free (allowed);
  return n_rates;
}

/* The bound on what our copies send together: uplink_rate, the estimate,
 * the lower of the two when both are set; 0: none. */
static guint64
uplink_bound (const TpssGroup * g)
{
  if (g->cfg.uplink_rate == 0 || g->uplink_estimate == 0)
    return MAX (g->cfg.uplink_rate, g->uplink_estimate);
  return MIN (g->cfg.uplink_rate, g->uplink_estimate);
}

/* The share (at most 1) of every destination's rate that keeps what our
 * copies send together within uplink_bound. Each copy's rate comes from its
 * own destination's feedback; all of them leave through our uplink, which
 * none of those destinations sees, so two fast copies can overfill it and
 * both lose. One share for all keeps the prefixes the spread rules chose
 * (they depend on ratios only) and scales what they send. */
static gdouble
uplink_share (TpssGroup * g, const guint64 * data, const guint64 * send,
    guint n)
{
  guint64 rates[TPSS_MAX_LAYERS];
  guint n_rates = layer_rates_at (g, data, n, 1.0, rates);
  guint64 bound = uplink_bound (g);

  g->uplink_send_rate = tpss_layers_copies_rate (rates, n_rates, data, send,
      n);
  if (bound == 0 || g->uplink_send_rate <= bound)
    return 1.0;
  return (gdouble) bound / (gdouble) g->uplink_send_rate;
}

/* What the copies send now at the share last chosen, bits/s. */
static guint64
uplink_sent (const TpssGroup * g)
{
  return scale_rate (g->uplink_send_rate, g->uplink_share);
}

/* The copies' rates are being re-divided (a bound set, a member came or
 * went): their falls until uplink_estimate_hold from @now follow from that,
 * not from loss on our uplink. */
static void
hold_estimate (TpssGroup * g, gint64 now)
{
  g->estimate_hold_until = now + g->cfg.uplink_estimate_hold;
  g->fall_time = -1;
}

/* A fall of @m's rate at @now: a second one, of another copy, within
 * uplink_estimate_window of the first says the copies lose together, on
 * our uplink; the bound becomes uplink_estimate_factor x what they sent
 * before the first. Falls of copies alone (their own paths) set nothing. */
static void
copy_fell (TpssGroup * g, const Member * m, gint64 now)
{
  if (g->fall_time >= 0 && m->id != g->fall_member &&
      now - g->fall_time <= g->cfg.uplink_estimate_window) {
    g->uplink_estimate = MAX ((guint64) ((gdouble) g->fall_sent *
            g->cfg.uplink_estimate_factor), 1);
    g->st.uplink_shared_falls++;
    hold_estimate (g, now);
    g_debug ("copies fell together: uplink bound %" G_GUINT64_FORMAT
        " bit/s", g->uplink_estimate);
    return;
  }
  g->fall_time = now;
  g->fall_member = m->id;
  g->fall_sent = uplink_sent (g);
}

/* Whether @d is a fall of @m's D: below (1 - uplink_estimate_fall) x what
 * the copy was sent at its highest D since its last fall. D falling to
 * what the bound let through (the destination sees no more) is none. */
static gboolean
is_fall (const TpssGroup * g, const Member * m, guint64 d)
{
  gdouble sent = (gdouble) scale_rate (m->fall_peak, g->uplink_share);

  return (gdouble) d < sent * (1.0 - g->cfg.uplink_estimate_fall);
}

/* uplink_estimate: the copies' falls, and the bound's growth while it holds
 * them back (uplink_estimate_probe a second), to find a wider uplink. */
static void
estimate_uplink (TpssGroup * g, gint64 now)
{
  GHashTableIter it;
  gpointer v;
  TpssSendStats st;

  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Member *m = v;
    if (!tpss_member_get_send_stats (g->core, m->id, &st))
      continue;
    if (now < g->estimate_hold_until) {
      m->fall_peak = st.data_rate;
      continue;
    }
    if (is_fall (g, m, st.data_rate)) {
      copy_fell (g, m, now);
      m->fall_peak = st.data_rate;
    }
    m->fall_peak = MAX (m->fall_peak, st.data_rate);
  }
  if (g->uplink_estimate > 0 && g->estimate_time >= 0 &&
      g->uplink_send_rate > g->uplink_estimate && (g->fall_time < 0 ||
          now - g->fall_time > g->cfg.uplink_estimate_window)) {
    gdouble grow = g->cfg.uplink_estimate_probe * (gdouble) (now -
        g->estimate_time) / 1e9;
    g->uplink_estimate = MIN ((gdouble) g->uplink_estimate * (1.0 + grow),
        (gdouble) (G_MAXUINT64 / 2));
  }
  g->estimate_time = now;
}

/* Layered: the encoder's layer rates from what the destinations allow now
 * (a DATA_RATE event when they change), and each destination's prefix
 * under them. The whole stream is held within layer_max_spread x the
 * slowest's rate: our copies share our uplink, and each destination's rate
 * grows and shrinks by factors, so without a bound on their ratio a slow
 * copy that loses on the uplink to a fast one is cut down step by step
 * while the fast one keeps its share (the bound pulls the fast ones down
 * with it). With uplink_rate, every destination's D counts at
 * uplink_share of itself. The pacers keep each copy's own S: pacing below
 * it would show the destination a lower receipt rate than we may send. */
static void
update_layer_rates (TpssGroup * g)
{
  guint cap = g_hash_table_size (g->members);
  guint64 *data = g_new (guint64, MAX (cap, 1));
  guint64 *send = g_new (guint64, MAX (cap, 1));
  guint64 rates[TPSS_MAX_LAYERS];
  GHashTableIter it;
  gpointer v;
  TpssSendStats st;
  guint n = 0, n_rates;

  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (tpss_member_get_send_stats (g->core, ((Member *) v)->id, &st)) {
      data[n] = st.data_rate;
      send[n++] = st.send_rate;
    }
  g->uplink_share = uplink_share (g, data, send, n);
  n_rates = layer_rates_at (g, data, n, g->uplink_share, rates);
  g_free (data);
  g_free (send);
  if (n_rates == 0)
    return;
  if (n_rates != g->n_rates || memcmp (rates, g->layer_rates,
          n_rates * sizeof (guint64)) != 0) {
    g->n_rates = n_rates;
    memcpy (g->layer_rates, rates, n_rates * sizeof (guint64));
    push_rates_event (g);
  }
  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Member *m = v;
    if (!tpss_member_get_send_stats (g->core, m->id, &st))
      continue;
    pacer_set_rate (&m->pacer, st.send_rate);
    member_layers (g, m);
    want_prefix (g, m, member_prefix (g, m, scale_rate (st.data_rate,
                g->uplink_share)));
  }
}

/* The stream's packets carry @n_layers temporal layers (from now on). */
static void
set_layering (TpssGroup * g, guint n_layers)
{
  if (n_layers == g->n_layers)
    return;
  g_debug ("the stream has %u temporal layers", n_layers);
  g->n_layers = n_layers;
  g->n_rates = 0;
  tpss_member_set_layered (g->core, layered (g));
  if (layered (g))
    update_layer_rates (g);
}

/* ------------------------------------------------------------------ */
/* Send path */

/* The control datagram of the @len bytes at @buf (which has room for
 * @max), sealed when a key is set; NULL if it does not fit. */
static GBytes *
control_bytes (TpssGroup * g, guint8 * buf, gsize len, gsize max)
{
  if (g->auth)
    len = auth_seal (g->auth, buf, len, max);
  return len ? g_bytes_new (buf, len) : NULL;
}

/* @bytes once to the multicast group, or to every member with an address;
 * returns how many datagrams that queued. */
static guint
send_to_all (TpssGroup * g, GBytes * bytes)
{
  GHashTableIter it;
  gpointer v;
  guint n = 0;

  if (g->cfg.group.len) {
    transmit (g, &g->cfg.group, 0, bytes);
    return 1;
  }
  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Member *m = v;
    if (m->addr.len) {
      transmit (g, &m->addr, m->id, bytes);
      n++;
    }
  }
  return n;
}

/* Sends a control message: to @dest, or (0) to every member. */
static void
send_control (TpssGroup * g, guint32 dest, const TpssMsg * msg)
{
  guint8 out[TPSS_MSG_MAX_SIZE + AUTH_TRAILER_SIZE];
  gsize len = tpss_msg_write (msg, out);
  GBytes *bytes;

  if (len == 0 || !(bytes = control_bytes (g, out, len, sizeof (out))))
    return;
  g->st.ctrl_sent++;
  if (dest != 0) {
    Member *m = member_get (g, dest, FALSE);
    if (m)
      transmit (g, &m->addr, m->id, bytes);
  } else {
    send_to_all (g, bytes);
  }
  g_bytes_unref (bytes);
}

/* ------------------------------------------------------------------ */
/* Leaving */

void
tpss_group_leave (TpssGroup * g, gint64 now)
{
  const guint32 sources[2] = { g->cfg.id, g->fec_ssrc };
  guint8 out[16 + AUTH_TRAILER_SIZE];
  gsize len;
  GBytes *bytes;

  if (g->left)
    return;
  g->left = TRUE;
  len = rtcp_bye_write (sources, G_N_ELEMENTS (sources), NULL, out,
      sizeof (out) - AUTH_TRAILER_SIZE);
  if (!(bytes = control_bytes (g, out, len, sizeof (out))))
    return;
  g->st.bye_sent += send_to_all (g, bytes);
  g_bytes_unref (bytes);
  g_debug ("member %u leaves at %" G_GINT64_FORMAT " ns", g->cfg.id, now);
}

/* ------------------------------------------------------------------ */
/* Sender reports (RFC 3550 6.4.1) */

void
tpss_group_set_media_clock (TpssGroup * g, guint32 rtp_ts, gint64 capture,
    guint clock_rate)
{
  if (clock_rate == 0)
    return;
  g->have_clock = TRUE;
  g->clock_rtp_ts = rtp_ts;
  g->clock_capture = capture;
  g->clock_rate = clock_rate;
}

/* Our stream's RTP timestamp at @now: the latest (capture, timestamp) pair
 * carried forward on its clock (backward for a capture stamped ahead). */
static guint32
rtp_ts_at (const TpssGroup * g, gint64 now)
{
  gint64 d = now - g->clock_capture;
  guint64 ticks = muldiv ((guint64) ABS (d), g->clock_rate, NTP_NS_PER_S);

  return d >= 0 ? g->clock_rtp_ts + (guint32) ticks :
      g->clock_rtp_ts - (guint32) ticks;
}

/* The next SR after one at @now: 0.5 to 1 interval later, so that members
 * do not report in step and none waits longer than the interval. */
static gint64
next_sr_time (TpssGroup * g, gint64 now)
{
  guint64 half = (guint64) g->cfg.sr_interval / 2;

  return now + (gint64) half + (gint64) muldiv (draw_random (g), half,
      G_GUINT64_CONSTANT (1) << 32);
}

/* An SR for our stream (no report blocks: the receiver side of TPSS
 * reports in its own RATE messages) with our CNAME, to every member. */
static void
send_sender_report (TpssGroup * g, gint64 now)
{
  RtcpReport rep = {.is_sr = TRUE,.ssrc = g->cfg.id };
  guint8 out[RTCP_HEADER_SIZE + 4 + RTCP_SR_INFO_SIZE + 64 +
      AUTH_TRAILER_SIZE];
  const gsize room = sizeof (out) - AUTH_TRAILER_SIZE;
  gchar cname[32];
  gsize len, n;
  GBytes *bytes;

  rep.ntp = ntp_from_ns (now + g->cfg.ntp_offset);
  rep.rtp_ts = rtp_ts_at (g, now);
  rep.packet_count = (guint32) g->st.sent;
  rep.octet_count = (guint32) g->payload_octets;
  len = rtcp_report_write (&rep, out, room);
  g_snprintf (cname, sizeof (cname), "tpss-%u", g->cfg.id);
  n = rtcp_sdes_cname_write (g->cfg.id, cname, out + len, room - len);
  if (len == 0 || n == 0 ||
      !(bytes = control_bytes (g, out, len + n, sizeof (out))))
    return;
  g->st.sr_sent += send_to_all (g, bytes);
  g_bytes_unref (bytes);
}

/* Sends an SR when one is due: the first once media has left, then every
 * 0.5..1 sr_interval. */
static void
maybe_send_sender_report (TpssGroup * g, gint64 now)
{
  if (g->cfg.sr_interval <= 0 || !g->have_clock || g->st.sent == 0)
    return;
  if (g->next_sr >= 0 && now < g->next_sr)
    return;
  send_sender_report (g, now);
  g->next_sr = next_sr_time (g, now);
}

/* Toward @m: at once, or layered through @m's pacer (dropped, and
 * counted, beyond max_queue_bytes). */
static void
send_to_member (TpssGroup * g, Member * m, GBytes * bytes)
{
  gsize len = g_bytes_get_size (bytes);

  if (!layered (g)) {
    transmit (g, &m->addr, m->id, bytes);
    return;
  }
  if (g->cfg.cfg.max_queue_bytes &&
      m->paced_bytes + len > g->cfg.cfg.max_queue_bytes) {
    m->paced_dropped++;
    return;
  }
  g_queue_push_tail (&m->paced, g_bytes_ref (bytes));
  m->paced_bytes += len;
  m->media_queued++;
}

/* How long the media queued toward @m takes to leave at its send rate. */
static gint64
media_queue_time (const Member * m)
{
  return pacer_cost (m->paced_bytes, MAX (m->pacer.rate, 1));
}

/* Since when @q's age counts: its making, or with parity_age_from_media
 * the moment the last media packet it covers left (-1: that one still
 * waits, so the parity is not old yet). */
static gint64
parity_age_origin (const TpssGroup * g, const QueuedParity * q)
{
  return g->parity_age_from_media ? q->covered_left : q->queued;
}

/* One parity packet queued toward @m left (@left) or went stale. */
static void
note_parity_outcome (Member * m, gboolean left)
{
  m->parity_left_share += PARITY_SHARE_WEIGHT *
      ((left ? 1.0 : 0.0) - m->parity_left_share);
}

/* Drops the parity at the head of @m's queue older than fec_size_time (as
 * long as a receiver with our settings holds a gap for it): it would
 * repair nothing. */
static void
drop_stale_parity (TpssGroup * g, Member * m, gint64 now)
{
  QueuedParity *q;

  while ((q = g_queue_peek_head (&m->paced_parity)) &&
      parity_age_origin (g, q) >= 0 &&
      now - parity_age_origin (g, q) > g->cfg.fec_size_time) {
    g_queue_pop_head (&m->paced_parity);
    m->paced_parity_bytes -= g_bytes_get_size (q->data);
    m->parity_dropped++;
    note_parity_outcome (m, FALSE);
    queued_parity_free (q);
  }
}

/* @bytes (taken: the sole reference, so its data is not copied), a parity
 * packet toward @m, as it leaves: numbered in @m's parity stream only now,
 * so that parity dropped before it left leaves no gap the receiver would
 * count as loss. */
static GBytes *
number_parity (Member * m, GBytes * bytes)
{
  gsize len;
  guint8 *d = g_bytes_unref_to_data (bytes, &len);

  rtp_set_seq (d, m->fec_seq++);
  return g_bytes_new_take (d, len);
}

/* Whether parity made toward @m now is left unqueued: the media queued
 * ahead of it takes longer than parity_max_backlog to leave, so it would
 * mostly wait there until stale. */
static gboolean
parity_over_backlog (const TpssGroup * g, const Member * m)
{
  return g->parity_max_backlog > 0 &&
      media_queue_time (m) > g->parity_max_backlog;
}

/* With parity_by_share, whether parity made toward @m now is left out:
 * of what is made, about the share of its recent parity that left is
 * queued (at least PARITY_MIN_SHARE), evenly spread. */
static gboolean
parity_thinned (const TpssGroup * g, Member * m)
{
  if (!g->parity_by_share)
    return FALSE;
  m->parity_credit += MAX (m->parity_left_share, PARITY_MIN_SHARE);
  if (m->parity_credit < 1.0)
    return TRUE;
  m->parity_credit -= 1.0;
  return FALSE;
}

/* Parity toward @m (@bytes taken): at once, or layered queued behind @m's
 * media (dropped, and counted, beyond max_queue_bytes). What is queued
 * spans at most fec_size_time, also while media keeps the pacer busy.
 * FALSE: skipped (parity_max_backlog, parity_by_share), neither queued nor
 * sent. */
static gboolean
send_parity_to_member (TpssGroup * g, Member * m, GBytes * bytes, gint64 now)
{
  gsize len = g_bytes_get_size (bytes);
  QueuedParity *q;

  if (!layered (g)) {
    GBytes *numbered = number_parity (m, bytes);
    transmit (g, &m->addr, m->id, numbered);
    g_bytes_unref (numbered);
    return TRUE;
  }
  if (parity_over_backlog (g, m) || parity_thinned (g, m)) {
    m->parity_skipped++;
    g_bytes_unref (bytes);
    return FALSE;
  }
  if (g->cfg.cfg.max_queue_bytes && m->paced_bytes + m->paced_parity_bytes +
      len > g->cfg.cfg.max_queue_bytes) {
    m->paced_dropped++;
    g_bytes_unref (bytes);
    return TRUE;
  }
  drop_stale_parity (g, m, now);
  q = g_new (QueuedParity, 1);
  q->data = bytes;
  q->queued = now;
  /* made with the last media packet it covers, the last queued toward @m */
  q->covers = m->media_queued;
  q->covered_left = m->media_left >= q->covers ? m->media_left_at : -1;
  g_queue_push_tail (&m->paced_parity, q);
  m->paced_parity_bytes += len;
  return TRUE;
}

/* A media packet toward @m left at @now: the parity whose covered media
 * has all left now starts to age (the queue is in the order made, those
 * already started at its head). */
static void
note_media_left (Member * m, gint64 now)
{
  m->media_left++;
  m->media_left_at = now;
  for (GList * l = m->paced_parity.tail; l; l = l->prev) {
    QueuedParity *q = l->data;

    if (q->covered_left >= 0)
      break;
    if (q->covers <= m->media_left)
      q->covered_left = now;
  }
}

/* The next packet @m's pacer sends: media first, parity only when no
 * media waits. Takes it from its queue; NULL: none. */
static GBytes *
next_paced (TpssGroup * g, Member * m, gint64 now)
{
  GBytes *b = g_queue_pop_head (&m->paced);
  QueuedParity *q;

  if (b) {
    m->paced_bytes -= g_bytes_get_size (b);
    note_media_left (m, now);
    return b;
  }
  drop_stale_parity (g, m, now);
  q = g_queue_pop_head (&m->paced_parity);
  if (!q)
    return NULL;
  m->paced_parity_bytes -= g_bytes_get_size (q->data);
  note_parity_outcome (m, TRUE);
  b = number_parity (m, q->data);
  g_free (q);
  return b;
}

/* Whether @b, queued toward a member, is one of our parity packets. */
static gboolean
is_parity (const TpssGroup * g, GBytes * b)
{
  const guint8 *d = g_bytes_get_data (b, NULL);

  return (d[1] & 0x7f) == g->cfg.fec_pt && read32 (d + 8) == g->fec_ssrc;
}

/* Sends what @m's pacer lets leave by @now. */
static void
drain_paced (TpssGroup * g, Member * m, gint64 now)
{
  GBytes *b;

  while (pacer_next_send_time (&m->pacer, now) <= now &&
      (b = next_paced (g, m, now))) {
    pacer_on_send (&m->pacer, g_bytes_get_size (b), now);
    if (!is_parity (g, b)) {
      m->wire_started = TRUE;
      m->wire_ts = read32 ((const guint8 *) g_bytes_get_data (b, NULL) + 4);
    }
    transmit (g, &m->addr, m->id, b);
    g_bytes_unref (b);
  }
}

/* The parity @enc (toward @m) has ready, each behind a 12-byte RTP header
 * of the parity stream (our FEC SSRC, @m's own sequence numbers, given as
 * it leaves: number_parity); returns how many left or were queued (those
 * skipped over parity_max_backlog not counted). */
static guint
send_parity_of (TpssGroup * g, Member * m, TpssFecEncoder * enc, gint64 now)
{
  const guint8 *payload;
  gsize plen;
  guint32 ts;
  guint n = 0;

  while (tpss_fec_encoder_pop (enc, &payload, &plen, &ts)) {
    RtpHeader h = {.payload_type = g->cfg.fec_pt, .timestamp = ts,
      .ssrc = g->fec_ssrc
    };
    guint8 *p = g_malloc (plen + RTP_HEADER_SIZE);
    GBytes *bytes;

    rtp_header_write (&h, NULL, 0, p, RTP_HEADER_SIZE);
    memcpy (p + RTP_HEADER_SIZE, payload, plen);
    bytes = g_bytes_new_take (p, plen + RTP_HEADER_SIZE);
    if (!send_parity_to_member (g, m, bytes, now))
      continue;
    m->parity_sent++;
    n++;
  }
  return n;
}

static void
send_parity (TpssGroup * g, Member * m, gint64 now)
{
  send_parity_of (g, m, m->enc, now);
}

/* The key unit toward @m is complete: its parity leaves now. */
static void
close_key_unit (TpssGroup * g, Member * m, gint64 now)
{
  tpss_fec_encoder_flush (m->key_enc);
  m->key_parity_sent += send_parity_of (g, m, m->key_enc, now);
  m->key_open = FALSE;
}

/* Parity over key units: @rtp (@m's copy, as sent) feeds @m's key-unit
 * encoder while it belongs to a key unit, the packets from one marked
 * @key_parity (> 0) on that share its RTP time. Every @key_parity
 * consecutive packets of the unit get one parity packet right after them
 * (segments of k = 1, l = @key_parity; the last one closed with the
 * unit's marker bit or the next packet of another time). Why so, and not
 * the slow start's interleaved segment: toward a new member that segment
 * closes seconds later, and even parity sent after the whole unit came
 * after the receiver's decoder had given up the gap (its hold, at most
 * fec-size-time, 200 ms, is 4 packets at 180 kbit/s). */
static void
protect_key_unit (TpssGroup * g, Member * m, const guint8 * rtp, gsize len,
    guint key_parity, gint64 now)
{
  guint32 ts = read32 (rtp + 4);
  TpssFecError err;

  if (m->key_open && (key_parity || ts != m->key_ts))
    close_key_unit (g, m, now);
  if (key_parity) {
    key_parity = MIN (key_parity, TPSS_FEC_MAX_DISTANCE);
    if (!m->key_enc)
      m->key_enc = tpss_fec_encoder_new (1, key_parity);
    else
      tpss_fec_encoder_set_params (m->key_enc, 1, key_parity);
    m->key_open = TRUE;
    m->key_ts = ts;
  }
  if (!m->key_open)
    return;
  tpss_fec_encoder_add (m->key_enc, rtp, len, &err);
  m->key_parity_sent += send_parity_of (g, m, m->key_enc, now);
  if (rtp[1] & 0x80)
    close_key_unit (g, m, now);
}

/* Whether the media packet @b queued toward @m stays when a new key unit
 * comes: it belongs to the frame begun on the wire, or, with @keep_key, to
 * the key unit queued before, which the receiver can decode from as soon. */
static gboolean
still_needed (const Member * m, GBytes * b, gboolean keep_key)
{
  guint32 ts = read32 ((const guint8 *) g_bytes_get_data (b, NULL) + 4);

  return (m->wire_started && ts == m->wire_ts) ||
      (keep_key && m->key_queued && ts == m->queued_key_ts);
}

/* The first packet queued toward @m that a receiver decoding from a new
 * key unit does not need: the first media packet after the last one still
 * needed (media only: parity waits in a queue of its own). NULL: none. */
static GList *
first_unneeded (const TpssGroup * g, const Member * m, gboolean keep_key)
{
  GList *from = NULL;

  for (GList * l = m->paced.head; l; l = l->next) {
    if (still_needed (m, l->data, keep_key))
      from = NULL;
    else if (!from)
      from = l;
  }
  return from;
}

/* The packets and bytes from @from to the end of @m's queue; FALSE if one
 * of them is media of RTP time @key_ts (part of the key unit itself). */
static gboolean
unneeded_tail (const TpssGroup * g, GList * from, guint32 key_ts,
    guint * packets, guint64 * bytes)
{
  *packets = 0;
  *bytes = 0;
  for (GList * l = from; l; l = l->next) {
    gsize len;
    const guint8 *d = g_bytes_get_data (l->data, &len);

    if (read32 (d + 4) == key_ts)
      return FALSE;
    (*packets)++;
    *bytes += len;
  }
  return TRUE;
}

/* The bytes from @from to the end of a queue. */
static guint64
tail_bytes (GList * from)
{
  guint64 bytes = 0;

  for (GList * l = from; l; l = l->next)
    bytes += g_bytes_get_size (l->data);
  return bytes;
}

/* Layered, as the key unit of RTP time @key_ts is about to be queued
 * toward @m: when the whole frames queued ahead of it, not begun on the
 * wire and after any key unit queued before, would hold it back more than
 * @flush_time at @m's rate, they and the parity among them are dropped (a
 * receiver decodes from either key unit on). Their sequence numbers go to
 * what follows, so the receiver sees no gap; the FEC segments open over
 * them are dropped without parity, which would cover packets the receiver
 * never gets under numbers now reused. They stay counted as sent toward
 * @m (tpss_member_count_sent), as a probe's packets are when queued. */
static void
flush_ahead_of_key_unit (TpssGroup * g, Member * m, guint32 key_ts,
    gint64 flush_time, gboolean keep_key)
{
  GList *from = first_unneeded (g, m, keep_key);
  guint64 bytes;
  guint packets;

  if (flush_time < 0 || !from ||
      !unneeded_tail (g, from, key_ts, &packets, &bytes) ||
      pacer_cost (bytes, MAX (m->pacer.rate, 1)) <= flush_time)
    return;
  g_debug ("toward %08x: %u packets (%" G_GUINT64_FORMAT " bytes) dropped "
      "ahead of a key unit", m->id, packets, bytes);
  m->layers.next_seq =
      read16 ((const guint8 *) g_bytes_get_data (from->data, NULL) + 2);
  for (guint i = 0; i < packets; i++) {
    GBytes *b = g_queue_pop_tail (&m->paced);

    m->paced_bytes -= g_bytes_get_size (b);
    m->media_queued--;
    g_bytes_unref (b);
  }
  /* the parity queued may cover packets whose numbers are now reused */
  m->key_flush_packets += packets + clear_paced_parity (m);
  tpss_fec_encoder_discard (m->enc);
  if (m->key_enc)
    tpss_fec_encoder_discard (m->key_enc);
  m->key_open = FALSE;
}

void
tpss_group_set_queue_bound (TpssGroup * g, gint64 bound)
{
  g->queue_bound = bound;
}

/* Layered: asks for a key unit (QUEUE_KEY_UNIT) when what one would flush
 * from @m's queue takes more than queue_bound at @m's rate, at most once
 * per queue_bound. Only that part counts: a key unit queued before stays,
 * so asking while it alone holds the queue up would bring key frames that
 * help nothing. */
static void
check_queue_bound (TpssGroup * g, Member * m, gint64 now)
{
  guint64 rate = MAX (m->pacer.rate, 1);
  gint64 flushable;
  GList *from;

  if (g->queue_bound <= 0 ||
      pacer_cost (m->paced_bytes, rate) <= g->queue_bound ||
      (m->queue_key_asked >= 0 && now - m->queue_key_asked < g->queue_bound))
    return;
  from = first_unneeded (g, m, TRUE);
  flushable = from ? pacer_cost (tail_bytes (from), rate) : 0;
  if (flushable <= g->queue_bound)
    return;
  g_debug ("toward %08x: %" G_GINT64_FORMAT " ms queued ahead of the next "
      "key unit: asking for one", m->id, flushable / 1000000);
  m->queue_key_asked = now;
  m->queue_key_asks++;
  event_push (g, TPSS_GROUP_EVENT_QUEUE_KEY_UNIT, m->id)->queue_time =
      flushable;
}

void
tpss_group_set_max_queue_age (TpssGroup * g, gint64 age)
{
  g->max_queue_age = age;
}

void
tpss_group_set_parity_age_from_media (TpssGroup * g, gboolean from_media)
{
  g->parity_age_from_media = from_media;
}

void
tpss_group_set_parity_max_backlog (TpssGroup * g, gint64 backlog)
{
  g->parity_max_backlog = backlog;
}

void
tpss_group_set_parity_by_share (TpssGroup * g, gboolean by_share)
{
  g->parity_by_share = by_share;
}

/* Whether @m waits for a key unit, or its queue is over the age bound. */
static gboolean
over_age_bound (const TpssGroup * g, const Member * m)
{
  return g->max_queue_age > 0 && (m->awaiting_key ||
      media_queue_time (m) > g->max_queue_age);
}

/* While frames toward @m are left out: a key unit asked for at once and
 * then every AGE_KEY_REASK (the shell may refuse one within its hold-off,
 * and nothing decodes toward @m until one comes). */
#define AGE_KEY_REASK (250 * G_GINT64_CONSTANT (1000000))

static void
ask_key_unit_for_age (TpssGroup * g, Member * m, gint64 now)
{
  if (m->age_key_asked >= 0 && now - m->age_key_asked < AGE_KEY_REASK)
    return;
  m->age_key_asked = now;
  m->queue_key_asks++;
  event_push (g, TPSS_GROUP_EVENT_QUEUE_KEY_UNIT, m->id)->queue_time =
      media_queue_time (m);
}

/* Layered, with max_queue_age: whether the media packet of @layer at RTP
 * time @ts stays out of @m's queue. A frame whose first packet would wait
 * over the bound at @m's rate is left out whole, and so is every frame
 * after it until a key unit (@key) starts: each refers to the one before,
 * so the frames after a gap would decode into damage. The frames queued
 * before stay: they wait at most the bound. Decided before the layer
 * filter, which then numbers what goes without a gap. */
static gboolean
left_out_for_age (TpssGroup * g, Member * m, guint layer, guint32 ts,
    const TpssKeyUnit * key, gint64 now)
{
  gboolean new_frame = !m->have_age_ts || ts != m->age_ts;

  /* a bound turned off while frames wait: they still wait for the key unit */
  if (g->max_queue_age <= 0 && !m->awaiting_key)
    return FALSE;
  /* above the prefix: the layer filter leaves it out anyway */
  if (layer != TPSS_GROUP_LAYER_NONE && layer >= m->layers.prefix)
    return m->awaiting_key;
  m->have_age_ts = TRUE;
  m->age_ts = ts;
  if (key) {
    m->awaiting_key = FALSE;
    return FALSE;
  }
  if (new_frame && !m->awaiting_key && g->max_queue_age > 0 &&
      media_queue_time (m) > g->max_queue_age) {
    g_debug ("toward %08x: %" G_GINT64_FORMAT " ms queued: frames left out "
        "until a key unit", m->id, media_queue_time (m) / 1000000);
    m->awaiting_key = TRUE;
    m->age_key_asked = -1;
  }
  if (!m->awaiting_key)
    return FALSE;
  if (new_frame)
    m->age_dropped_frames++;
  m->age_dropped_packets++;
  ask_key_unit_for_age (g, m, now);
  return TRUE;
}

/* @rtp with the element (@id, @elem) added to its extension block; @rtp
 * unchanged when its block cannot take it (another profile, a malformed
 * element). Takes @rtp. */
static guint8 *
add_extension_element (guint8 * rtp, gsize * len, guint id,
    const guint8 * elem, gsize elen)
{
  RtpExtElement el = { (guint8) id, elem, elen };
  gsize max = *len + RTP_EXT_ADD_GROWTH (elen), n;
  guint8 *out = g_malloc (max);

  n = rtp_ext_add (rtp, *len, &el, out, max);
  if (n == 0) {
    g_free (out);
    return rtp;
  }
  g_free (rtp);
  *len = n;
  return out;
}

/* One packet MQ released, stamped: SSRC = member id, our sequence numbers,
 * the QoS extension under notification. NULL if it is not RTP. */
static GBytes *
stamp_media (TpssGroup * g, GBytes * packet, const TpssQos * qos)
{
  gsize len;
  guint8 *p = g_bytes_unref_to_data (packet, &len);

  if (!tpss_rtp_is_valid (p, len)) {
    g_free (p);
    return NULL;
  }
  rtp_set_ssrc (p, g->cfg.id);
  rtp_set_seq (p, g->seq++);
  if (g->cfg.cfg.control == TPSS_CONTROL_NOTIFICATION) {
    guint8 ext[TPSS_QOS_EXT_SIZE];
    tpss_qos_ext_write (qos, ext);
    p = add_extension_element (p, &len, g->cfg.ext_id, ext, sizeof (ext));
  }
  return g_bytes_new_take (p, len);
}

/* Layered: the QoS extension of @m's copy @rtp announces what @m gets of
 * the queue, its prefix of the layers. */
static void
restamp_qos (TpssGroup * g, Member * m, guint8 * rtp, gsize len, gint64 now)
{
  RtpHeader h;
  RtpExtElement el;
  TpssQos qos;

  if (g->cfg.cfg.control != TPSS_CONTROL_NOTIFICATION ||
      !rtp_header_parse (rtp, len, &h) ||
      !rtp_ext_find (&h, g->cfg.ext_id, &el) || el.len != TPSS_QOS_EXT_SIZE)
    return;
  tpss_member_peer_qos (g->core, m->id, now, &qos);
  tpss_qos_ext_write (&qos, rtp + (el.data - rtp));
}

/* Layered: @bytes (stamped) goes to @m if its prefix takes @layer, under
 * @m's own sequence number, and feeds @m's parity; @key non-NULL when it
 * starts a key unit. */
static void
send_layered (TpssGroup * g, Member * m, GBytes * bytes, guint layer,
    const TpssKeyUnit * key, gint64 now)
{
  TpssLayerFilter *f = member_layers (g, m);
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  TpssFecError err;
  GBytes *own;
  guint16 seq;
  guint8 *p;
  /* The base layer (and what has no layer) always passes. */
  const TpssKeyUnit *base_key = layer == 0 ||
      layer == TPSS_GROUP_LAYER_NONE ? key : NULL;
  /* Over the age bound, a key unit queued before goes too: it would hold
   * this one back longer than the bound, and this one replaces it. */
  gboolean aged = base_key && over_age_bound (g, m);

  if (left_out_for_age (g, m, layer, read32 (data + 4), base_key, now))
    return;
  if (base_key) {
    flush_ahead_of_key_unit (g, m, read32 (data + 4),
        aged ? 0 : base_key->flush_time, !aged);
    m->key_queued = TRUE;
    m->queued_key_ts = read32 (data + 4);
  }
  if (layer == TPSS_GROUP_LAYER_NONE)
    seq = tpss_layer_filter_take (f);
  else if (!tpss_layer_filter_pass (f, layer, read32 (data + 4), &seq))
    return;
  p = g_memdup2 (data, len);
  write16 (p + 2, seq);
  restamp_qos (g, m, p, len, now);
  own = g_bytes_new_take (p, len);
  send_to_member (g, m, own);
  tpss_fec_encoder_add (m->enc, p, len, &err);
  send_parity (g, m, now);
  protect_key_unit (g, m, p, len, key ? key->parity : 0, now);
  tpss_member_count_sent (g->core, m->id, len, now);
  g_bytes_unref (own);
  check_queue_bound (g, m, now);
}

/* The counters of a media packet that leaves, for the stats and the SR. */
static void
count_sent (TpssGroup * g, const guint8 * data, gsize len)
{
  RtpHeader h;

  g->st.sent++;
  g->st.send_bytes += len;
  if (rtp_header_parse (data, len, &h))
    g->payload_octets += h.payload_len;
}

/* Sends one stamped packet to every destination (once to the multicast
 * group; layered, to those whose prefix takes it) and feeds each
 * destination's parity. */
static void
send_media (TpssGroup * g, QueuedPacket * q, const TpssQos * qos, gint64 now)
{
  GBytes *bytes = stamp_media (g, q->data, qos);
  guint layer = q->layer;
  TpssKeyUnit key_unit = q->key_unit;
  const TpssKeyUnit *key = q->key ? &key_unit : NULL;
  GHashTableIter it;
  gpointer v;
  gsize len;
  const guint8 *data;

  g_free (q);
  if (!bytes) {
    g->st.stamp_errors++;
    return;
  }
  data = g_bytes_get_data (bytes, &len);
  count_sent (g, data, len);
  if (g->cfg.group.len)
    transmit (g, &g->cfg.group, 0, bytes);
  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Member *m = v;
    TpssFecError err;

    if (!m->enc || !core_knows (g, m->id))
      continue;
    if (layered (g)) {
      send_layered (g, m, bytes, layer, key, now);
      continue;
    }
    if (!g->cfg.group.len)
      transmit (g, &m->addr, m->id, bytes);
    tpss_fec_encoder_add (m->enc, data, len, &err);
    send_parity (g, m, now);
    protect_key_unit (g, m, data, len, key ? key->parity : 0, now);
  }
  g_bytes_unref (bytes);
}

gboolean
tpss_group_enqueue_media (TpssGroup * g, const guint8 * rtp, gsize len,
    guint layer, guint n_layers, const TpssKeyUnit * key, gint64 now)
{
  QueuedPacket *q;

  if (g->left)
    return FALSE;
  if (layer != TPSS_GROUP_LAYER_NONE && (n_layers < 1 ||
          n_layers > TPSS_MAX_LAYERS || layer >= n_layers)) {
    /* A layer beyond the count is sent as the top layer; a count we cannot
     * filter by, as no layer. */
    g->st.bad_layer++;
    if (n_layers < 1 || n_layers > TPSS_MAX_LAYERS)
      layer = TPSS_GROUP_LAYER_NONE;
  }
  /* Layered before the core queues it: the destinations' prefixes decide
   * what its QOS announcement tells each. */
  if (layer != TPSS_GROUP_LAYER_NONE)
    set_layering (g, n_layers);
  /* The QoS extension adds up to 16 bytes on the wire. */
  if (!tpss_member_enqueue_layer (g->core, len + 16,
          layer == TPSS_GROUP_LAYER_NONE ? TPSS_LAYER_ANY :
          MIN (layer, n_layers - 1), now)) {
    g->st.queue_dropped++;
    return FALSE;
  }
  q = g_new0 (QueuedPacket, 1);
  q->data = g_bytes_new (rtp, len);
  q->layer = layer;
  q->key = key != NULL;
  if (key)
    q->key_unit = *key;
  g_queue_push_tail (&g->sendq, q);
  return TRUE;
}

gboolean
tpss_group_enqueue_layer (TpssGroup * g, const guint8 * rtp, gsize len,
    guint layer, guint n_layers, gint64 now)
{
  return tpss_group_enqueue_media (g, rtp, len, layer, n_layers, NULL, now);
}

gboolean
tpss_group_enqueue (TpssGroup * g, const guint8 * rtp, gsize len, gint64 now)
{
  return tpss_group_enqueue_layer (g, rtp, len, TPSS_GROUP_LAYER_NONE, 0,
      now);
}

/* Asks @m for a key unit of its stream (RFC 4585 PLI, sent alone as
 * reduced-size RTCP, RFC 5506). */
static gboolean
send_pli (TpssGroup * g, Member * m)
{
  guint8 pli[RTCP_PLI_SIZE + AUTH_TRAILER_SIZE];
  GBytes *bytes;

  if (!m->addr.len)
    return FALSE;
  rtcp_pli_write (pli, RTCP_PLI_SIZE, g->cfg.id, m->id);
  if (!(bytes = control_bytes (g, pli, RTCP_PLI_SIZE, sizeof (pli))))
    return FALSE;
  transmit (g, &m->addr, m->id, bytes);
  g_bytes_unref (bytes);
  g->st.pli_sent++;
  return TRUE;
}

gboolean
tpss_group_request_key_unit (TpssGroup * g, guint32 member)
{
  Member *m = member_get (g, member, FALSE);

  return m && !g->left && send_pli (g, m);
}

/* ------------------------------------------------------------------ */
/* Receive path */

static void take_core_events (TpssGroup * g, gint64 now);

static TpssFecDecoder *
member_decoder (TpssGroup * g, Member * m)
{
  if (!m->dec) {
    TpssFecDecoderConfig cfg = {
      .size_time = g->cfg.fec_size_time,
      .release = (TpssFecReleaseFunc) g_bytes_unref,
    };
    m->dec = tpss_fec_decoder_new (&cfg);
  }
  return m->dec;
}

/* Takes what the decoder of @m has in order, as one DELIVER event. */
static void
collect_decoded (TpssGroup * g, Member * m)
{
  TpssFecOutput o;
  GPtrArray *packets = NULL;

  if (!m->dec)
    return;
  while (tpss_fec_decoder_pop (m->dec, &o)) {
    if (!packets)
      packets = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
    g_ptr_array_add (packets, o.handle ? g_bytes_ref (o.handle) :
        g_bytes_new_take (o.data, o.len));
    m->delivered++;
  }
  if (packets) {
    TpssGroupEvent *ev = event_push (g, TPSS_GROUP_EVENT_DELIVER, m->id);
    ev->packets = packets;
    ev->sr = m->sr;
  }
}

static void
update_recovered (Member * m)
{
  TpssFecDecoderStats st;

  tpss_fec_decoder_get_stats (m->dec, &st);
  m->pending_recovered += st.recovered - m->last_recovered;
  m->last_recovered = st.recovered;
}

/* The member a packet claims to come from, checked against its source
 * address; NULL (and counted) when forged or unknown. With a key, only
 * control (@control, opened under the key) teaches a member's address:
 * media is not authenticated. */
static Member *
check_source (TpssGroup * g, guint32 id, const TpssAddr * from,
    gboolean control, gint64 now)
{
  Member *m = member_get (g, id, FALSE);

  if (!m || (!m->addr.len && g->auth && !control)) {
    g->st.non_member++;
    return NULL;
  }
  if (m->addr.len && !tpss_addr_equal (&m->addr, from)) {
    g->st.forged++;
    return NULL;
  }
  if (!m->addr.len)
    m->addr = *from;
  if (!core_knows (g, id))
    tpss_member_add_peer (g->core, id, peer_priority (g, id), now);
  return m;
}

/* An unknown id's HELLO makes it a member while the table has room for
 * it. The core keeps at most TPSS_MAX_MEMBERS - 1 others, and an entry
 * it refused would never leave (only the core's MEMBER_LEFT removes one),
 * so without this bound every new id of a HELLO flood stayed. A refused
 * HELLO goes on to check_source, which counts it as a non-member. */
static gboolean
table_full (const TpssGroup * g)
{
  return g_hash_table_size (g->members) >= TPSS_MAX_MEMBERS - 1;
}

static void
join_by_hello (TpssGroup * g, guint32 id, const TpssAddr * from)
{
  if (table_full (g)) {
    g->st.join_refused++;
    return;
  }
  member_get (g, id, TRUE)->addr = *from;
}

static gboolean
join_checked (const TpssGroup * g)
{
  return g->cfg.join_check && !g->auth;
}

/* The secret is made with the first HELLO that needs it. */
static void
jar_tick (TpssGroup * g, gint64 now)
{
  if (!g->jar_ready)
    addr_cookie_jar_init (&g->jar, COOKIE_ROTATION_HELLOS * hello_interval (g),
        now, cookie_secret_random, g);
  else
    addr_cookie_jar_tick (&g->jar, now, cookie_secret_random, g);
  g->jar_ready = TRUE;
}

/* Sends a HELLO with a cookie extension to @to (not a member yet), if the
 * answers' bound allows; it is 36 bytes, 12 more than a plain HELLO. */
static gboolean
send_cookie_hello (TpssGroup * g, const TpssAddr * to, guint32 peer,
    TpssCookieKind kind, guint64 cookie, gint64 now)
{
  guint8 out[TPSS_MSG_MAX_SIZE + AUTH_TRAILER_SIZE];
  TpssMsg msg = { 0, };
  GBytes *bytes;
  gsize len;

  if (!addr_cookie_limiter_take (&g->answers, peer, to->bytes, to->len, now)) {
    g->st.join_answer_limited++;
    return FALSE;
  }
  msg.type = TPSS_MSG_HELLO;
  msg.sender_ssrc = msg.media_ssrc = g->cfg.id;
  msg.u.hello.ntp = ntp_short_from_ns (now + g->cfg.ntp_offset);
  msg.u.hello.member_id = g->cfg.id;
  msg.u.hello.cookie_kind = kind;
  msg.u.hello.cookie_to = peer;
  msg.u.hello.cookie = cookie;
  len = tpss_msg_write (&msg, out);
  if (!(bytes = control_bytes (g, out, len, sizeof (out))))
    return FALSE;
  g->st.ctrl_sent++;
  transmit (g, to, peer, bytes);
  g_bytes_unref (bytes);
  return TRUE;
}

/* The join check for a HELLO of the unknown id @id from @from: TRUE when
 * it echoes our cookie for (@id, @from), so that it may join; else a
 * cookie goes back to @from (bounded) and the HELLO is dropped. */
static gboolean
join_cookie_checks (TpssGroup * g, const TpssMsg * msg, guint32 id,
    const TpssAddr * from, gint64 now)
{
  jar_tick (g, now);
  if (msg->u.hello.cookie_kind == TPSS_COOKIE_ECHO &&
      msg->u.hello.cookie_to == g->cfg.id) {
    if (addr_cookie_check (&g->jar, id, from->bytes, from->len,
            msg->u.hello.cookie)) {
      g->st.join_verified++;
      return TRUE;
    }
    g->st.join_cookie_bad++;
    return FALSE;
  }
  if (send_cookie_hello (g, from, id, TPSS_COOKIE_CHALLENGE,
          addr_cookie_make (&g->jar, id, from->bytes, from->len), now))
    g->st.join_challenged++;
  return FALSE;
}

/* A member's cookie for us goes back to where it came from at once. */
static void
echo_cookie (TpssGroup * g, const TpssMsg * msg, const TpssAddr * from,
    gint64 now)
{
  if (msg->type != TPSS_MSG_HELLO ||
      msg->u.hello.cookie_kind != TPSS_COOKIE_CHALLENGE ||
      msg->u.hello.cookie_to != g->cfg.id)
    return;
  if (send_cookie_hello (g, from, msg->sender_ssrc, TPSS_COOKIE_ECHO,
          msg->u.hello.cookie, now))
    g->st.join_echoed++;
}

static void
handle_msg (TpssGroup * g, const TpssMsg * msg, const TpssAddr * from,
    gint64 now)
{
  guint32 id = msg->sender_ssrc;

  if (id == g->cfg.id) {
    g->st.own++;
    return;
  }
  if (msg->type == TPSS_MSG_HELLO && msg->u.hello.member_id != id) {
    g->st.forged++;
    return;
  }
  echo_cookie (g, msg, from, now);
  if (!member_get (g, id, FALSE) && msg->type == TPSS_MSG_HELLO &&
      g->cfg.allow_join) {
    /* with the table full no cookie goes out: join_by_hello refuses it */
    if (join_checked (g) && !table_full (g) &&
        !join_cookie_checks (g, msg, id, from, now))
      return;
    join_by_hello (g, id, from);
  }
  if (!check_source (g, id, from, TRUE, now))
    return;
  g->st.ctrl_received++;
  if (msg->type == TPSS_MSG_RATE)
    g_debug ("RATE %u from member %u: %" G_GUINT64_FORMAT " bit/s%s",
        msg->u.rate.seq, id, msg->u.rate.rate,
        msg->u.rate.assign ? " ASSIGN" : msg->u.rate.hold ? " hold" : "");
  tpss_member_on_msg (g->core, msg, now);
}

/* A PLI: accepted from a member (its id from its address) about our own
 * stream, as a KEY_UNIT event. Anything else is dropped. */
static void
handle_pli (TpssGroup * g, guint32 sender, guint32 media,
    const TpssAddr * from, gint64 now)
{
  TpssSendStats st;

  if (sender == g->cfg.id) {
    g->st.own++;
    return;
  }
  if (media != g->cfg.id || !check_source (g, sender, from, TRUE, now)) {
    g->st.pli_dropped++;
    return;
  }
  g->st.pli_received++;
  event_push (g, TPSS_GROUP_EVENT_KEY_UNIT, sender)->rtt =
      tpss_member_get_send_stats (g->core, sender, &st) ? st.rtt : -1;
}

static void
forget_departed (TpssGroup * g, guint32 id)
{
  for (guint i = g->departed->len; i-- > 0;)
    if (g_array_index (g->departed, TpssGroupMemberStats, i).id == id)
      g_array_remove_index (g->departed, i);
}

/* Keeps @m's counters as it leaves, for the stats (see
 * tpss_group_get_member_stats). */
static void
keep_departed (TpssGroup * g, const Member * m)
{
  TpssGroupMemberStats ms = { 0, };

  if (!member_stats_fill (g, m, &ms))
    return;
  ms.left = TRUE;
  forget_departed (g, m->id);
  if (g->departed->len >= TPSS_MAX_MEMBERS)
    g_array_remove_index (g->departed, 0);
  g_array_append_val (g->departed, ms);
}

/* A BYE naming @id first: accepted from a member the core knows, at its
 * known address; the member leaves at once (MEMBER_LEFT, its share of
 * this receiver's capacity goes back to the others). check_source is not
 * used: it would learn an address from the BYE or take a member that is
 * gone back into the core. */
static void
handle_bye (TpssGroup * g, guint32 id, const TpssAddr * from, gint64 now)
{
  Member *m = member_get (g, id, FALSE);

  if (id == g->cfg.id) {
    g->st.own++;
    return;
  }
  if (!m || !core_knows (g, id)) {
    g->st.non_member++;
    g->st.bye_refused++;
    return;
  }
  if (!m->addr.len || !tpss_addr_equal (&m->addr, from)) {
    if (m->addr.len)
      g->st.forged++;
    g->st.bye_refused++;
    return;
  }
  g->st.bye_received++;
  g_debug ("member %u says BYE", id);
  /* What its decoder holds goes out first, so that its counters are
   * final when they are kept. */
  if (m->dec) {
    tpss_fec_decoder_drain (m->dec);
    collect_decoded (g, m);
  }
  keep_departed (g, m);
  tpss_member_remove_peer (g->core, id, now);
  take_core_events (g, now);
}

/* The SR @rep from @from: accepted as a BYE is (a member the core knows,
 * at its known address, so that a forged one cannot move its clock), and
 * only with an NTP time after its previous one. */
static void
take_sender_report (TpssGroup * g, const RtcpReport * rep,
    const TpssAddr * from)
{
  Member *m = member_get (g, rep->ssrc, FALSE);

  if (rep->ssrc == g->cfg.id) {
    g->st.own++;
    return;
  }
  if (!m || !core_knows (g, rep->ssrc)) {
    g->st.non_member++;
    g->st.sr_refused++;
    return;
  }
  if (!m->addr.len || !tpss_addr_equal (&m->addr, from)) {
    if (m->addr.len)
      g->st.forged++;
    g->st.sr_refused++;
    return;
  }
  if (rep->ntp == 0 || (m->sr.valid && rep->ntp <= m->sr.ntp)) {
    g->st.sr_refused++;
    return;
  }
  m->sr.valid = TRUE;
  m->sr.ntp = rep->ntp;
  m->sr.rtp_ts = rep->rtp_ts;
  m->sr_received++;
  g->st.sr_received++;
}

/* An SR at @data: its length in @consumed, FALSE (nothing consumed) when
 * no RTCP packet can be delimited there. */
static gboolean
handle_sender_report (TpssGroup * g, const guint8 * data, gsize len,
    const TpssAddr * from, gsize * consumed)
{
  RtcpPacket pkt;
  RtcpReport rep;

  if (!rtcp_header_parse (data, len, &pkt))
    return FALSE;
  *consumed = pkt.len;
  if (!rtcp_report_parse (&pkt, &rep) || !rep.is_sr) {
    g->st.malformed++;
    g->st.sr_refused++;
    return TRUE;
  }
  take_sender_report (g, &rep, from);
  return TRUE;
}

static void
handle_rtcp (TpssGroup * g, const guint8 * data, gsize len,
    const TpssAddr * from, gint64 now)
{
  gsize off = 0;

  while (off < len) {
    TpssMsg msg;
    gsize consumed = 0;

    if (len - off >= 2 && data[off + 1] == RTCP_PT_SR) {
      if (!handle_sender_report (g, data + off, len - off, from, &consumed)) {
        g->st.malformed++;
        return;
      }
      off += consumed;
      continue;
    }
    switch (tpss_rtcp_next (data + off, len - off, &msg, &consumed)) {
      case TPSS_RTCP_MSG:
        handle_msg (g, &msg, from, now);
        break;
      case TPSS_RTCP_PLI:
        handle_pli (g, msg.sender_ssrc, msg.media_ssrc, from, now);
        break;
      case TPSS_RTCP_BYE:
        handle_bye (g, msg.sender_ssrc, from, now);
        break;
      case TPSS_RTCP_BAD:
        g->st.malformed++;
        if (data[off + 1] == RTCP_PT_BYE)
          g->st.bye_refused++;
        break;
      case TPSS_RTCP_OTHER:
        g->st.other_rtcp++;
        break;
      case TPSS_RTCP_MALFORMED:
        g->st.malformed++;
        return;
    }
    off += consumed;
  }
}

/* The QoS a source's packet carries goes to the core as its QOS message. */
static void
take_qos_extension (TpssGroup * g, const guint8 * data, gsize len,
    guint32 ssrc, gint64 now)
{
  RtpHeader h;
  RtpExtElement el;
  TpssMsg msg = { 0, };

  if (!rtp_header_parse (data, len, &h) ||
      !rtp_ext_find (&h, (guint8) g->cfg.ext_id, &el))
    return;
  if (!tpss_qos_ext_parse (el.data, el.len, &msg.u.qos)) {
    g->st.malformed++;
    return;
  }
  msg.type = TPSS_MSG_QOS;
  msg.sender_ssrc = msg.media_ssrc = ssrc;
  tpss_member_on_msg (g->core, &msg, now);
}

/* The packets missing before @seq in a stream whose highest sequence
 * number so far is *@max (*@have: one was seen); a late packet fills no
 * gap back. */
static guint
seq_gap (gboolean * have, guint16 * max, guint16 seq)
{
  gint16 d = (gint16) (seq - *max);

  if (!*have) {
    *have = TRUE;
    *max = seq;
    return 0;
  }
  if (d <= 0)
    return 0;
  *max = seq;
  return d - 1;
}

/* Sequence gaps of @m's media, counted before FEC repairs any. */
static void
count_loss (Member * m, guint16 seq)
{
  m->pending_lost += seq_gap (&m->have_seq, &m->max_seq, seq);
}

/* Gaps in @m's parity stream: lost packets of its send rate, which (with
 * assign_needs_parity) a redundant phase's round trip must not have lost
 * either to count as a complete receipt. */
static void
count_parity_loss (TpssGroup * g, Member * m, guint16 seq)
{
  guint lost = seq_gap (&m->have_parity_seq, &m->max_parity_seq, seq);

  m->parity_lost += lost;
  tpss_member_on_parity_loss (g->core, m->id, lost);
}

/* Tells the core of one packet from @m (admission, loss and recovery for
 * its report); TRUE if admitted. */
static gboolean
admit_packet (TpssGroup * g, Member * m, gsize len, gint64 now)
{
  gboolean admit = tpss_member_on_data (g->core, m->id, len, m->pending_lost,
      (guint) m->pending_recovered, now);

  m->pending_lost = 0;
  m->pending_recovered = 0;
  return admit;
}

static void
handle_parity (TpssGroup * g, const RtpHeader * rtp, gsize len,
    const TpssAddr * from, gint64 now, gint64 arrival)
{
  TpssFecHeader hdr;
  Member *m;

  if (tpss_fec_header_parse (rtp->payload, rtp->payload_len,
          &hdr) != TPSS_FEC_OK) {
    g->st.malformed++;
    return;
  }
  if (hdr.media_ssrc == g->cfg.id) {
    g->st.own++;
    return;
  }
  m = check_source (g, hdr.media_ssrc, from, FALSE, now);
  if (!m)
    return;
  member_decoder (g, m);
  m->parity_received++;
  count_parity_loss (g, m, rtp->seq);
  if (admit_packet (g, m, len, arrival))
    tpss_fec_decoder_push_fec (m->dec, rtp->payload, rtp->payload_len, now);
  else
    m->refused_parity++;
  update_recovered (m);
  collect_decoded (g, m);
}

static void
handle_media (TpssGroup * g, const RtpHeader * rtp, const guint8 * data,
    gsize len, const TpssAddr * from, gint64 now, gint64 arrival)
{
  guint32 ssrc = rtp->ssrc;
  Member *m;

  if (ssrc == g->cfg.id) {
    g->st.own++;
    return;
  }
  m = check_source (g, ssrc, from, FALSE, now);
  if (!m)
    return;
  member_decoder (g, m);
  g->st.data_received++;
  count_loss (m, rtp->seq);
  /* Its stream starts here for the receiver (we joined late, it did, or the
   * src came after the session's sink): without a key unit nothing
   * decodes until the encoder's next one. */
  if (g->receiving && !m->asked_key_unit)
    m->asked_key_unit = send_pli (g, m);
  take_qos_extension (g, data, len, ssrc, now);
  if (admit_packet (g, m, len, arrival)) {
    GBytes *b = g_bytes_new (data, len);
    if (!tpss_fec_decoder_push_media (m->dec, b,
            g_bytes_get_data (b, NULL), len, now))
      g_bytes_unref (b);
  }
  update_recovered (m);
  collect_decoded (g, m);
}

void
tpss_group_handle_datagram (TpssGroup * g, const guint8 * data, gsize len,
    const TpssAddr * from, gint64 now)
{
  tpss_group_handle_datagram_at (g, data, len, from, now, now);
}

void
tpss_group_handle_datagram_at (TpssGroup * g, const guint8 * data,
    gsize len, const TpssAddr * from, gint64 now, gint64 arrival)
{
  RtpHeader rtp;

  arrival = MIN (arrival, now);

  if (g->left)
    return;
  if (len < 4 || (data[0] >> 6) != 2) {
    g->st.malformed++;
    return;
  }
  /* RFC 5761: packet types 192..223 are RTCP, our control: with a key it
   * is opened before anything parses it. */
  if (data[1] >= 192 && data[1] <= 223) {
    if (g->auth && auth_open (g->auth, data, len, now, &len, NULL) != AUTH_OK)
      return;
    handle_rtcp (g, data, len, from, now);
    return;
  }
  if (!rtp_header_parse (data, len, &rtp)) {
    g->st.malformed++;
    return;
  }
  if (rtp.payload_type == g->cfg.fec_pt)
    handle_parity (g, &rtp, len, from, now, arrival);
  else
    handle_media (g, &rtp, data, len, from, now, arrival);
}

/* ------------------------------------------------------------------ */
/* Timers and the core's events */

static void
set_parity (TpssGroup * g, const TpssEvent * ev)
{
  Member *m = member_get (g, ev->member, TRUE);

  if (!m->enc)
    m->enc = tpss_fec_encoder_new (MAX (ev->distance, 1), ev->length);
  else
    tpss_fec_encoder_set_params (m->enc, MAX (ev->distance, 1), ev->length);
}

/* Closes the segment open toward @ev->member now: its parity leaves,
 * folded to the segment's overhead 1/l. Unfolded, a probe at a low rate
 * flushed a few packets every two round trips, one parity packet each:
 * toward a member joining on a 1 Mbit/s link a median 22 parity packets a
 * second beside 39 of media, which filled its link and the pacers. */
static void
flush_parity (TpssGroup * g, const TpssEvent * ev, gint64 now)
{
  Member *m = member_get (g, ev->member, FALSE);

  if (m && m->enc) {
    tpss_fec_encoder_flush_folded (m->enc);
    send_parity (g, m, now);
  }
}

static void
member_left (TpssGroup * g, guint32 id)
{
  Member *m = member_get (g, id, FALSE);

  if (m && m->dec) {
    tpss_fec_decoder_drain (m->dec);
    collect_decoded (g, m);
  }
  if (m && !m->configured) {
    g_hash_table_remove (g->members, GUINT_TO_POINTER (id));
  } else if (m) {
    /* It may come back: forget its streams, keep its address. */
    g_clear_pointer (&m->enc, tpss_fec_encoder_free);
    g_clear_pointer (&m->key_enc, tpss_fec_encoder_free);
    m->key_open = FALSE;
    g_clear_pointer (&m->dec, tpss_fec_decoder_free);
    g_queue_clear_full (&m->paced, (GDestroyNotify) g_bytes_unref);
    m->paced_bytes = 0;
    m->media_queued = m->media_left;
    clear_paced_parity (m);
    m->parity_left_share = 1.0;
    m->parity_credit = 0;
    m->have_seq = FALSE;
    m->asked_key_unit = FALSE;
  }
  event_push (g, TPSS_GROUP_EVENT_MEMBER_LEFT, id);
}

static void
take_core_event (TpssGroup * g, const TpssEvent * ev, gint64 now)
{
  TpssGroupEvent *out;

  switch (ev->type) {
    case TPSS_EVENT_PARITY:
      g_debug ("parity toward member %u: k %u, l %u", ev->member,
          ev->distance, ev->length);
      set_parity (g, ev);
      break;
    case TPSS_EVENT_FEC_FLUSH:
      flush_parity (g, ev, now);
      break;
    case TPSS_EVENT_DATA_RATE:
      /* Layered, TR is the fastest's rate: update_layer_rates tells the
       * encoder its layers' rates instead. */
      if (layered (g))
        break;
      g->n_rates = 1;
      g->layer_rates[0] = ev->rate;
      push_rates_event (g);
      break;
    case TPSS_EVENT_PHASE:
      out = event_push (g, TPSS_GROUP_EVENT_PHASE, ev->member);
      out->phase = ev->phase;
      out->distance = ev->distance;
      out->length = ev->length;
      break;
    case TPSS_EVENT_MEMBER_JOINED:
      member_get (g, ev->member, TRUE);
      forget_departed (g, ev->member);
      event_push (g, TPSS_GROUP_EVENT_MEMBER_JOINED, ev->member);
      hold_estimate (g, now);
      break;
    case TPSS_EVENT_MEMBER_LEFT:
      member_left (g, ev->member);
      hold_estimate (g, now);
      break;
  }
}

/* What the protocol core asked for since the last call. */
static void
take_core_events (TpssGroup * g, gint64 now)
{
  TpssEvent ev;

  while (tpss_member_pop_event (g->core, &ev))
    take_core_event (g, &ev, now);
}

void
tpss_group_handle_timeout (TpssGroup * g, gint64 now)
{
  gint64 dl = tpss_member_next_deadline (g->core);
  GHashTableIter it;
  gpointer v;
  TpssQos qos;
  TpssMsg msg;
  guint32 dest;
  guint n;

  if (g->left)
    return;
  if (dl >= 0 && dl <= now)
    tpss_member_advance (g->core, now);

  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Member *m = v;
    gint64 d = m->dec ? tpss_fec_decoder_next_deadline (m->dec) : -1;
    if (d >= 0 && d <= now) {
      tpss_fec_decoder_advance (m->dec, now);
      collect_decoded (g, m);
    }
  }

  /* Events first: a PARITY event configures the encoder that protects the
   * packets sent below. */
  take_core_events (g, now);
  if (layered (g) && g->cfg.uplink_estimate)
    estimate_uplink (g, now);
  if (layered (g))
    update_layer_rates (g);

  n = tpss_member_dequeue (g->core, now, &qos);
  for (guint i = 0; i < n && !g_queue_is_empty (&g->sendq); i++)
    send_media (g, g_queue_pop_head (&g->sendq), &qos, now);
  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, NULL, &v))
    drain_paced (g, v, now);

  while (tpss_member_pop_msg (g->core, &dest, &msg))
    send_control (g, dest, &msg);
  maybe_send_sender_report (g, now);
}

gint64
tpss_group_next_timeout (const TpssGroup * g)
{
  gint64 t = tpss_member_next_deadline (g->core);
  GHashTableIter it;
  gpointer v;

  if (g->left)
    return -1;
  if (g->next_sr >= 0 && (t < 0 || g->next_sr < t))
    t = g->next_sr;
  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Member *m = v;
    gint64 d = m->dec ? tpss_fec_decoder_next_deadline (m->dec) : -1;
    if (d >= 0 && (t < 0 || d < t))
      t = d;
    /* (what a pacer holds waits for its next_free, set when it sent) */
    d = g_queue_is_empty (&m->paced) && g_queue_is_empty (&m->paced_parity) ?
        -1 : MAX (m->pacer.next_free, 0);
    if (d >= 0 && (t < 0 || d < t))
      t = d;
  }
  return t;
}

/* ------------------------------------------------------------------ */
/* Stats */

void
tpss_group_get_stats (const TpssGroup * g, TpssGroupStats * st)
{
  *st = g->st;
  st->queued = g->sendq.length;
  st->member_entries = g_hash_table_size (g->members);
  st->pacing_skipped = tpss_member_pacing_skipped (g->core);
  st->pacing_made_up = tpss_member_pacing_made_up (g->core);
  st->data_rate = g->data_rate;
  st->uplink_send_rate = g->uplink_send_rate;
  st->uplink_share = g->uplink_share;
  st->uplink_estimate = g->uplink_estimate;
  st->n_layers = g->n_layers;
  st->n_rates = g->n_rates;
  st->authenticated = g->auth != NULL;
  memset (&st->auth, 0, sizeof (st->auth));
  if (g->auth)
    auth_session_get_stats (g->auth, &st->auth);
}

GArray *
tpss_group_get_member_stats (const TpssGroup * g)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (TpssGroupMemberStats));
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, g->members);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    TpssGroupMemberStats ms = { 0, };

    if (member_stats_fill (g, v, &ms))
      g_array_append_val (out, ms);
  }
  /* (one that is back but whose MEMBER_JOINED is not taken yet is listed
   * once, as a member) */
  for (guint i = 0; i < g->departed->len; i++) {
    const TpssGroupMemberStats *d = &g_array_index (g->departed,
        TpssGroupMemberStats, i);
    if (!core_knows (g, d->id))
      g_array_append_vals (out, d, 1);
  }
  return out;
}
