/* libFuzzer target: everything an RLM receiver parses (announcements and
 * reports as RTCP APP, media with the per-layer sequence extension) and
 * the sender's stamping, with a receiver core driven by what parses and
 * by time steps. Every datagram the core sends must parse back as its own
 * announcement, every event must name a layer of the session and keep the
 * level within 1 .. n_layers, and after an advance nothing may be left
 * due; anything else aborts.
 *
 * The receiver's output merger (rlmmerge.c) takes every raw datagram and
 * every packet the core took as media; what it gives out must be stamped
 * RTP, numbered on from the last one by 1 plus at most MAX_DROPOUT - 1
 * lost.
 *
 * With bit 0x80 of the config byte the receiver has a group key (key
 * bytes 0..31): the announcements of op 3 are sealed by their peer, every
 * datagram the core sends is sealed (RLM_CTRL_MAX_SIZE bytes) and opens
 * under the key as the receiver's id, and no raw datagram of op 0 is ever
 * taken as control (the fuzzer does not hold the key).
 *
 * Input: [config:1] then records [op:1][len:2, big endian][len bytes]:
 *   op % 4 == 0  the chunk as a datagram, from one of four addresses
 *   op % 4 == 1  time step of (first 4 bytes % 3000) ms, then advance
 *   op % 4 == 2  a media packet of layer op >> 4 skipping chunk[0] % 8
 *   op % 4 == 3  an announcement (op >> 2) & 1 ? REPORT : JOIN, level
 *                chunk[0], from peer chunk[1] % 4 at address op >> 6 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rlmcore.h"
#include "rlmmerge.h"
#include "core/rtp.h"
#include "fuzzrecords.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define MS (G_GINT64_CONSTANT (1000000))

typedef struct {
  RlmReceiver *r;
  RlmReceiverStats st;
  guint n_layers;
  guint level;
  guint16 seq[RLM_MAX_LAYERS];
  RlmMerger merger;
  gboolean have_out;
  guint16 out_seq;
  AuthSession *peers[4];        /* keyed: the peers' sealers */
  AuthSession *opener;          /* keyed: checks what the core sends */
} Target;

/* The merger's packets due at @now, checked. */
static void
drain_merger (Target * t, gint64 now)
{
  guint8 *p;
  gsize len;
  RtpHeader h;
  guint layer;
  guint16 lseq, d;

  while ((p = rlm_merger_pop (&t->merger, now, &len, NULL))) {
    if (!rtp_header_parse (p, len, &h) ||
        !rlm_layer_ext_parse (p, len, 6, &layer, &lseq))
      abort ();
    d = h.seq - t->out_seq;
    if (t->have_out && (d < 1 || d > 3000))
      abort ();
    t->have_out = TRUE;
    t->out_seq = h.seq;
    g_free (p);
  }
}

static void
check_transmits_and_events (Target * t)
{
  guint8 buf[64];
  gsize len, plen;
  guint32 sender;
  RlmEvent ev;
  RlmCtrl c;

  rlm_receiver_get_stats (t->r, &t->st);
  while ((len = rlm_receiver_pop_transmit (t->r, buf, sizeof (buf)))) {
    if (t->opener && (len != RLM_CTRL_MAX_SIZE ||
            auth_open (t->opener, buf, len, 0, &plen, &sender) != AUTH_OK ||
            sender != t->st.ssrc))
      abort ();
    len = t->opener ? plen : len;
    if (len != RLM_CTRL_SIZE || !rlm_ctrl_parse (buf, len, &c) ||
        c.ssrc != t->st.ssrc || c.level < 1 || c.level > t->n_layers)
      abort ();
    /* a failure is named in REPORTs only, at a level an experiment reaches */
    if (c.fail_level != 0 && (c.type != RLM_CTRL_REPORT || c.fail_level < 2
            || c.fail_level > t->n_layers))
      abort ();
  }
  while (rlm_receiver_pop_event (t->r, &ev)) {
    if (ev.layer >= t->n_layers)
      abort ();
    if (ev.type == RLM_EVENT_JOIN && ev.layer != t->level)
      abort ();
    if (ev.type == RLM_EVENT_JOIN)
      t->level++;
    if (ev.type == RLM_EVENT_LEAVE && ev.layer + 1 != t->level)
      abort ();
    if (ev.type == RLM_EVENT_LEAVE)
      t->level--;
    if (ev.type == RLM_EVENT_LEVEL && ev.level != t->level)
      abort ();
  }
  rlm_receiver_get_stats (t->r, &t->st);
  if (t->st.level != t->level || t->level < 1 || t->level > t->n_layers ||
      rlm_receiver_next_deadline (t->r) < 0)
    abort ();
}

static void
feed_media (Target * t, guint layer, guint skip, gint64 now)
{
  guint8 hdr[RTP_HEADER_SIZE], out[64];
  guint8 ext[RLM_LAYER_EXT_SIZE];
  RtpExtElement el = { 6, ext, sizeof (ext) };
  RtpHeader h;
  gsize len;

  layer %= RLM_MAX_LAYERS;
  t->seq[layer] += skip;
  ext[0] = (guint8) layer;
  ext[1] = t->seq[layer] >> 8;
  ext[2] = t->seq[layer]++ & 0xff;
  memset (&h, 0, sizeof (h));
  h.payload_type = 96;
  h.ssrc = 0xAB;
  rtp_header_write (&h, NULL, 0, hdr, sizeof (hdr));
  len = rtp_ext_add (hdr, sizeof (hdr), &el, out, sizeof (out));
  if (rlm_receiver_on_datagram (t->r, out, len, NULL, now) ==
      RLM_PACKET_MEDIA)
    rlm_merger_push (&t->merger, out, len, now);
}

static void
feed_ctrl (Target * t, guint8 type, guint8 level, guint8 peer, guint8 addr,
    gint64 now)
{
  /* a REPORT's failure fields from the peer's high bits: any level,
   * sound or not, and any hold */
  RlmCtrl c = { type, 0x100 + peer, level, 0, (guint8) (peer >> 4),
    (guint8) (peer * 37)
  };
  RlmAddr a = { 4, {10, 0, 0, addr} };
  guint8 buf[RLM_CTRL_MAX_SIZE];
  gsize len = rlm_ctrl_write (&c, buf, sizeof (buf));

  if (t->peers[0])
    len = auth_seal (t->peers[peer % 4], buf, len, sizeof (buf));

  rlm_receiver_on_datagram (t->r, buf, len, &a, now);
}

/* The parsers on raw bytes, and the stamper: what it stamps parses back. */
static void
check_parsers (const guint8 * p, size_t len)
{
  RlmCtrl c;
  RlmStamper st;
  RandomSeeded seeded;
  RandomSource rng;
  guint8 *out = g_malloc (len + RTP_EXT_ADD_GROWTH (RLM_LAYER_EXT_SIZE));
  guint layer, want_layer = len % RLM_MAX_LAYERS;
  guint16 seq, want_seq;
  gsize n;

  rlm_ctrl_parse (p, len, &c);
  rlm_layer_ext_parse (p, len, 6, &layer, &seq);
  random_source_init_seeded (&rng, &seeded, len);
  rlm_stamper_init (&st, 6, &rng);
  want_seq = st.next_seq[want_layer];
  n = rlm_stamper_stamp (&st, want_layer, p, len, out,
      len + RTP_EXT_ADD_GROWTH (RLM_LAYER_EXT_SIZE));
  if (n > 0 && (!rtp_header_parse (out, n, NULL) ||
          !rlm_layer_ext_parse (out, n, 6, &layer, &seq) ||
          layer != want_layer || seq != want_seq))
    abort ();
  g_free (out);
}

static void
set_key (Target * t)
{
  AuthKey k;

  for (guint i = 0; i < AUTH_KEY_SIZE; i++)
    k.bytes[i] = i;
  rlm_receiver_set_key (t->r, &k);
  for (guint i = 0; i < 4; i++)
    t->peers[i] = auth_session_new (&k, 0x100 + i, 4);
  t->opener = auth_session_new (&k, 1, 4);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RandomSeeded seeded;
  RandomSource rng;
  RlmConfig cfg;
  Target t;
  gint64 now = 0;
  size_t pos = 1;
  FuzzRecord r;

  check_parsers (data, size);
  if (size < 1)
    return 0;
  memset (&t, 0, sizeof (t));
  rlm_config_init (&cfg);
  cfg.n_layers = 1 + data[0] % 8;
  cfg.join_draw = data[0] & 0x10 ? RLM_JOIN_DRAW_MEAN : RLM_JOIN_DRAW_PAPER;
  cfg.scale_join_max = !(data[0] & 0x20);
  cfg.max_members = data[0] & 0x40 ? 2 : 10000;
  /* the options off by default, so their code is reached too */
  if (data[0] & 0x08) {
    cfg.join_reported = TRUE;
    cfg.measure_own_loss = TRUE;
    cfg.first_climb_unheld = TRUE;
    cfg.first_climb_unheld_for = 20000 * MS;
    cfg.first_climb_to_settled = TRUE;
    cfg.learn_higher_failures = TRUE;
    cfg.learn_higher_sole = TRUE;
    cfg.learn_higher_onset = 1000 * MS;
    cfg.learn_higher_onset_measured = TRUE;
    cfg.learn_higher_fresh_between = TRUE;
    cfg.learn_reported_failures = TRUE;
  }
  t.n_layers = cfg.n_layers;
  random_source_init_seeded (&rng, &seeded, data[0]);
  t.r = rlm_receiver_new (&cfg, &rng, now);
  if (data[0] & 0x80)
    set_key (&t);
  rlm_merger_init (&t.merger, 6, 20 * MS, 64, 0);
  check_transmits_and_events (&t);

  while (fuzz_next_record (data, size, &pos, &r)) {
    RlmAddr a = { 4, {10, 0, 0, r.op >> 6} };

    switch (r.op % 4) {
      case 0:
        check_parsers (r.chunk, r.len);
        if (rlm_receiver_on_datagram (t.r, r.chunk, r.len, &a, now) ==
            RLM_PACKET_CONTROL && t.opener)
          abort ();
        rlm_merger_push (&t.merger, r.chunk, r.len, now);
        break;
      case 1:
        now += (gint64) (r.v % 3000) * MS;
        rlm_receiver_advance (t.r, now);
        /* nothing is left due */
        if (rlm_receiver_next_deadline (t.r) <= now)
          abort ();
        drain_merger (&t, now);
        break;
      case 2:
        feed_media (&t, r.op >> 4, r.len ? r.chunk[0] % 8 : 0, now);
        break;
      case 3:
        feed_ctrl (&t, (r.op >> 2) & 1 ? RLM_CTRL_REPORT : RLM_CTRL_JOIN,
            r.len ? r.chunk[0] : 2, r.len > 1 ? r.chunk[1] % 4 : 0,
            r.op >> 6, now);
        break;
    }
    g_free (r.chunk);
    check_transmits_and_events (&t);
  }
  drain_merger (&t, G_MAXINT64 / 2);
  rlm_merger_clear (&t.merger);
  rlm_receiver_free (t.r);
  for (guint i = 0; i < 4; i++)
    auth_session_free (t.peers[i]);
  auth_session_free (t.opener);
  return 0;
}
