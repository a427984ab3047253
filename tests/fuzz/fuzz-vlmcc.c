/* libFuzzer target: every packet VLMCC parses (the sender: acks and
 * challenges; a receiver: data packets with the extension and START
 * packets) and a sender and a receiver core wired to each other, driven
 * by what parses and by time steps. Every datagram a core sends must
 * parse back as what it is (data with a sequence one past the last, START
 * to a prober, ack or challenge with the receiver's id), the sender's
 * window stays finite and at least one packet, and after an advance
 * nothing is left due; anything else aborts.
 *
 * Bits 0x0c of the config byte choose the sender's Vegas delay input
 * (config vegas_delay: 0 rtt, 1 min-rtt, 2 and 3 forward), so the acks'
 * arrival stamps are read; 3 also turns Vegas+ on with the cubic
 * loss-based mode (config plus_loss_mode; cubic-linux when bit 0x80, the
 * group key, is set too: the byte has no bit left) in both cores.
 *
 * Bit 0x40 turns the challenge echo on (config challenge_echo, with a
 * challenge delay of one RTT): every data packet the sender sends must
 * then carry the echo element, and the receiver parses it in every data
 * packet, the fuzzer's included. It also bounds the sender's leaderless
 * growth (k = 2), lets the receiver volunteer after 2 RTTs and moves
 * its START's RTT by the data's one-way delay (start_anchor); the
 * sender's window then covers the hosts' hold (window_covers_hold) and its
 * pacing makes up 10 ms of a late step (pacing_catch_up).
 *
 * With bit 0x80 of the config byte both cores share a group key (bytes
 * 0..31): every control datagram a core sends is its plain packet plus
 * the trailer, the other core takes it, and takes it only once (a second
 * delivery is refused as a replay); no raw datagram of the fuzzer's (ops
 * 0 and 2) is ever taken as control, since the fuzzer does not hold the
 * key.
 *
 * Input: [config:1] then records [op:1][len:2, big endian][len bytes]:
 *   op % 4 == 0  the chunk as feedback to the sender, from address op >> 6,
 *                that came ((op >> 2) & 15) * 10 ms before it is read
 *   op % 4 == 1  the chunk as a data packet to the receiver
 *   op % 4 == 2  the chunk as a control packet to the receiver
 *   op % 4 == 3  an RTP packet for the sender (the chunk when it is RTP),
 *                a time step of (first 4 bytes % 500) ms, an advance of
 *                both cores, and the exchange between them (op & 4: data
 *                to the receiver dropped; (op >> 3) & 7: its feedback came
 *                that many 10 ms before the sender reads it, so STARTs
 *                report a hold) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vlmcccore.h"
#include "core/rtp.h"
#include "core/wire.h"
#include "fuzzrecords.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define MS (G_GINT64_CONSTANT (1000000))
#define MAX_DGRAM 2048

typedef struct {
  VlmccConfig cfg;
  VlmccSender *s;
  VlmccReceiver *r;
  gboolean keyed;
  guint32 receiver_id;          /* fixed at the receiver's making */
  gint64 feedback_lag;          /* the receiver's datagrams came this long
                                 * before the sender reads them */
  gboolean have_seq;
  guint16 last_seq;
  guint8 filler[200];           /* the RTP packet pushed for a chunk that
                                 * is not one: written once per input */
} Target;

/* The plain length of control datagram @len (keyed: a trailer after it). */
static gsize
plain_len (const Target * t, gsize len)
{
  if (!t->keyed)
    return len;
  if (len < AUTH_TRAILER_SIZE)
    abort ();
  return len - AUTH_TRAILER_SIZE;
}

/* Keyed, a control datagram already taken is refused when it comes
 * again. */
static void
check_replay_refused (const Target * t, VlmccInput again)
{
  if (t->keyed && again != VLMCC_INPUT_UNAUTHENTICATED)
    abort ();
}

/* Keyed, the fuzzer's own datagrams are never taken as control. */
static void
check_raw_refused (const Target * t, VlmccInput in)
{
  if (t->keyed && in != VLMCC_INPUT_UNAUTHENTICATED)
    abort ();
}

static void
check_sender (Target * t, gboolean deliver, gint64 now)
{
  guint8 buf[MAX_DGRAM];
  VlmccAddr to;
  VlmccDataExt ext;
  VlmccMsg m;
  VlmccEvent ev;
  gdouble window;
  gint64 rtt, base_rtt;
  gsize len;

  while ((len = vlmcc_sender_pop_transmit (t->s, buf, sizeof (buf), &to))) {
    if (to.len == 0) {
      RtpHeader h;
      guint16 left;

      /* one header parse for both elements */
      if (!rtp_header_parse (buf, len, &h) ||
          !vlmcc_data_ext_read (&h, t->cfg.ext_id, &ext))
        abort ();
      if (t->cfg.challenge_echo != vlmcc_echo_ext_read (&h,
              t->cfg.echo_ext_id, &left))
        abort ();
      if (t->have_seq && ext.seq != (guint16) (t->last_seq + 1))
        abort ();
      t->have_seq = TRUE;
      t->last_seq = ext.seq;
      if (deliver)
        vlmcc_receiver_on_data (t->r, buf, len, now);
    } else {
      if (!vlmcc_msg_parse (buf, plain_len (t, len), &m) ||
          m.type != VLMCC_MSG_START || m.hold > VLMCC_START_HOLD_MAX_US)
        abort ();
      vlmcc_receiver_on_control (t->r, buf, len, now);
      check_replay_refused (t, vlmcc_receiver_on_control (t->r, buf, len,
              now));
    }
  }
  while (vlmcc_sender_pop_event (t->s, &ev))
    if (ev.type != VLMCC_EVENT_RATE && ev.type != VLMCC_EVENT_LEADER)
      abort ();
  window = vlmcc_sender_get_window (t->s, &rtt, &base_rtt);
  if (!isfinite (window) || window < 1.0 || rtt <= 0 || base_rtt <= 0)
    abort ();
}

/* Returns whether the sender was handed anything. */
static gboolean
check_receiver (Target * t, gint64 now)
{
  guint8 buf[MAX_DGRAM];
  VlmccAddr from = { 1, {1} };
  VlmccMsg m;
  gdouble window;
  VlmccEvent ev;
  gsize len;
  gboolean fed = FALSE;

  window = vlmcc_receiver_get_window (t->r);
  while ((len = vlmcc_receiver_pop_transmit (t->r, buf, sizeof (buf)))) {
    if (!vlmcc_msg_parse (buf, plain_len (t, len), &m) ||
        m.id != t->receiver_id ||
        (m.type != VLMCC_MSG_ACK && m.type != VLMCC_MSG_CHALLENGE))
      abort ();
    vlmcc_sender_on_feedback_at (t->s, buf, len, &from, now,
        now - t->feedback_lag);
    check_replay_refused (t, vlmcc_sender_on_feedback (t->s, buf, len,
            &from, now));
    fed = TRUE;
  }
  while (vlmcc_receiver_pop_event (t->r, &ev));
  if (!isfinite (window) || window < 1.0)
    abort ();
  return fed;
}

static guint32
receiver_id (const VlmccReceiver * r)
{
  VlmccReceiverStats st;

  vlmcc_receiver_get_stats (r, &st);
  return st.id;
}

/* Both cores' full stats, once an input (the elements' stats property
 * reads them), so UBSan still checks their conversions of what the input
 * left; per record, the copies were 4 % of the run. */
static void
check_stats (const Target * t)
{
  VlmccSenderStats ss;
  VlmccReceiverStats rs;

  vlmcc_sender_get_stats (t->s, &ss);
  vlmcc_receiver_get_stats (t->r, &rs);
  if (!isfinite (ss.window) || ss.window < 1.0 || !isfinite (rs.window) ||
      rs.window < 1.0)
    abort ();
}

static void
filler_init (Target * t)
{
  RtpHeader h = { 0 };

  h.payload_type = 96;
  rtp_header_write (&h, NULL, 0, t->filler, sizeof (t->filler));
}

/* The chunk when it is RTP, else the filler with the chunk's length as its
 * sequence number. */
static void
push_rtp (Target * t, const guint8 * chunk, gsize len, gint64 now)
{
  if (rtp_header_parse (chunk, len, NULL) && len < MAX_DGRAM / 2) {
    vlmcc_sender_push (t->s, chunk, len, now);
    return;
  }
  write16 (t->filler + 2, (guint16) len);
  vlmcc_sender_push (t->s, t->filler, sizeof (t->filler), now);
}

/* The parsers on raw bytes. */
static void
check_parsers (const guint8 * p, size_t len)
{
  VlmccMsg m;
  VlmccDataExt ext;
  guint8 out[VLMCC_MAX_PACKET];

  if (vlmcc_msg_parse (p, len, &m)) {
    VlmccMsg back;
    gsize n = vlmcc_msg_write (&m, out, sizeof (out));

    if (n != len || !vlmcc_msg_parse (out, n, &back) ||
        back.type != m.type || back.id != m.id || back.hold != m.hold)
      abort ();
  }
  vlmcc_data_ext_parse (p, len, 7, &ext);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RandomSeeded seeded;
  RandomSource rng;
  Target t;
  gint64 now = 0;
  size_t pos = 1;
  FuzzRecord r;

  check_parsers (data, size);
  if (size < 1)
    return 0;
  memset (&t, 0, sizeof (t));
  vlmcc_config_init (&t.cfg);
  t.cfg.rate_floor = data[0] & 0x10 ? 80000 : 0;
  t.cfg.max_queue = data[0] & 0x20 ? 4 : 512;
  t.cfg.initial_window = 1 + data[0] % 4;
  t.cfg.vegas_delay = MIN ((data[0] >> 2) & 3, VLMCC_VEGAS_DELAY_FORWARD);
  t.cfg.vegas_plus = ((data[0] >> 2) & 3) == 3;
  t.cfg.plus_loss_mode = !t.cfg.vegas_plus ? VLMCC_PLUS_LOSS_RENO :
      data[0] & 0x80 ? VLMCC_PLUS_LOSS_CUBIC_LINUX : VLMCC_PLUS_LOSS_CUBIC;
  t.cfg.challenge_echo = (data[0] & 0x40) != 0;
  t.cfg.challenge_delay = t.cfg.challenge_echo ? 1.0 : 0.0;
  t.cfg.leaderless_growth_limit = t.cfg.challenge_echo ? 2.0 : 0.0;
  t.cfg.volunteer_after = t.cfg.challenge_echo ? 2.0 : 0.0;
  t.cfg.start_anchor = t.cfg.challenge_echo;
  /* our other options off the paper's path ride on the same bit */
  t.cfg.rtt_min_window = t.cfg.challenge_echo ? 4.0 : 0.0;
  t.cfg.challenge_confirm = t.cfg.challenge_echo ? 2.0 : 0.0;
  t.cfg.vegas_ack_clock = t.cfg.challenge_echo;
  t.cfg.window_covers_hold = t.cfg.challenge_echo;
  t.cfg.pacing_catch_up = t.cfg.challenge_echo ? 10 * MS : 0;
  filler_init (&t);
  random_source_init_seeded (&rng, &seeded, data[0]);
  t.s = vlmcc_sender_new (&t.cfg, 0x5e4d, &rng, now);
  t.r = vlmcc_receiver_new (&t.cfg, &rng, now);
  t.receiver_id = receiver_id (t.r);
  if (data[0] & 0x80) {
    AuthKey key;

    for (guint i = 0; i < AUTH_KEY_SIZE; i++)
      key.bytes[i] = (guint8) i;
    t.keyed = TRUE;
    vlmcc_sender_set_key (t.s, &key, &rng);
    vlmcc_receiver_set_key (t.r, &key);
  }

  while (fuzz_next_record (data, size, &pos, &r)) {
    VlmccAddr a = { 1, {r.op >> 6} };

    check_parsers (r.chunk, r.len);
    switch (r.op % 4) {
      case 0:
        /* bits 0x3c: it came that many 10 ms before it is read (a START
         * that answers it reports the hold) */
        check_raw_refused (&t, vlmcc_sender_on_feedback_at (t.s, r.chunk,
                r.len, &a, now, now - ((r.op >> 2) & 15) * 10 * MS));
        break;
      case 1:
        vlmcc_receiver_on_data (t.r, r.chunk, r.len, now);
        break;
      case 2:
        check_raw_refused (&t, vlmcc_receiver_on_control (t.r, r.chunk,
                r.len, now));
        break;
      case 3:
        push_rtp (&t, r.chunk, r.len, now);
        t.feedback_lag = ((r.op >> 3) & 7) * 10 * MS;
        now += (gint64) (r.v % 500) * MS;
        vlmcc_sender_advance (t.s, now);
        vlmcc_receiver_advance (t.r, now);
        /* nothing is left due */
        if (vlmcc_sender_next_deadline (t.s) <= now)
          abort ();
        if (vlmcc_receiver_next_deadline (t.r) >= 0 &&
            vlmcc_receiver_next_deadline (t.r) <= now)
          abort ();
        break;
    }
    g_free (r.chunk);
    check_sender (&t, !(r.op & 4), now);
    /* the sender changes only through what it is handed */
    if (check_receiver (&t, now))
      check_sender (&t, !(r.op & 4), now);
  }
  check_stats (&t);
  vlmcc_sender_free (t.s);
  vlmcc_receiver_free (t.r);
  return 0;
}
