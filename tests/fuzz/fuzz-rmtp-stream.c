/* libFuzzer target: RMTP's streaming mode (rmtpstream.h). A stream server
 * (members 100, 101, 102; windows of 1000 bytes in 256-byte packets) and
 * the stream receiver 101 talk in simulated time while the input injects
 * datagrams into either side and feeds the stream. Every datagram must
 * parse; the server never holds more than two windows and a byte, the
 * receiver never more than its largest data set; the receiver's data comes
 * in order; a receiver that ends DONE holds data whose SHA-256 is the one
 * announced (the last window's CONN gives the whole stream's, a data
 * set's CONN the set's), and without any injected datagram exactly the
 * stream pushed. Anything else aborts.
 *
 * Input: records [op:1][len:2, big endian][len bytes]:
 *   op % 4 == 0  the chunk to the server, from member {0,100,101,102}[op>>2 & 3]
 *   op % 4 == 1  the chunk to the receiver
 *   op % 4 == 2  time step of (first 4 bytes % 2000) ms; the cores exchange
 *                what they sent, unless op & 4 (that step's output is lost)
 *   op % 4 == 3  push (first 4 bytes % 2048) more bytes of the stream; with
 *                op & 4, end the stream after them
 * The first byte's bit 7 makes the windows repair by parity (blocks of 4). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rmtpstream.h"
#include "rmtpdigest.h"
#include "fuzzrecords.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define MS (G_GINT64_CONSTANT (1000000))
#define STREAM_SIZE 6000
#define WINDOW 1000
#define MEMBER 101

static const guint32 members[] = { 100, MEMBER, 102 };

typedef struct {
  RmtpStreamServer *s;
  RmtpStreamReceiver *r;
  guint8 stream[STREAM_SIZE];
  gsize pushed;
  gboolean ended;
  gboolean injected;            /* a datagram went to the receiver directly */
  GByteArray *got;
  guint64 max_total;
  gint64 now;
} Target;

static void
check_datagram (RmtpDatagram * d)
{
  RmtpPacket p;

  if (!rmtp_packet_parse (g_bytes_get_data (d->bytes, NULL),
          g_bytes_get_size (d->bytes), &p))
    abort ();
}

static void
check_bounds (Target * t)
{
  if (rmtp_stream_server_stats (t->s)->max_held > 2 * WINDOW + 1 ||
      rmtp_stream_receiver_stats (t->r)->max_held > t->max_total)
    abort ();
}

/* The digest announced for all the receiver gave out: the whole stream's
 * in the last window's CONN, or the data set's in its CONN. */
static gboolean
announced_digest (Target * t, const guint8 ** want)
{
  RmtpReceiver *core = rmtp_stream_receiver_core (t->r);
  guint64 size;
  guint32 window;
  guint64 offset;
  gboolean last;

  if (rmtp_receiver_window (core, &window, &offset, &last))
    return rmtp_receiver_stream_digest (core, want);
  return rmtp_receiver_data_set (core, &size, want);
}

static gboolean
got_matches_announced (Target * t)
{
  const guint8 *want;
  guint8 got[RMTP_DIGEST_SIZE];
  RmtpDigest *d;

  if (!announced_digest (t, &want))
    return FALSE;
  d = rmtp_digest_new ();
  rmtp_digest_update (d, t->got->data, t->got->len);
  rmtp_digest_finish (d, got);
  rmtp_digest_free (d);
  return memcmp (got, want, sizeof (got)) == 0;
}

static void
check_receiver_events (Target * t)
{
  RmtpEvent e;

  while (rmtp_stream_receiver_poll_event (t->r, &e)) {
    if (e.type == RMTP_EVENT_DATA) {
      if (e.offset != t->got->len)
        abort ();
      g_byte_array_append (t->got, g_bytes_get_data (e.data, NULL),
          g_bytes_get_size (e.data));
      g_bytes_unref (e.data);
    } else if (e.type == RMTP_EVENT_DONE && (!got_matches_announced (t) ||
            (!t->injected && (t->got->len != t->pushed || !t->ended ||
                    memcmp (t->got->data, t->stream, t->pushed) != 0)))) {
      abort ();
    }
  }
  check_bounds (t);
}

static gboolean
server_out (Target * t, gboolean lost)
{
  RmtpDatagram d;
  RmtpEvent e;
  gboolean any = FALSE;

  rmtp_stream_server_handle_timeout (t->s, t->now);
  while (rmtp_stream_server_poll_datagram (t->s, t->now, &d)) {
    check_datagram (&d);
    if (!lost && (d.to == RMTP_TO_GROUP || d.to == MEMBER))
      rmtp_stream_receiver_handle_bytes (t->r, d.bytes, t->now);
    g_bytes_unref (d.bytes);
    any = TRUE;
  }
  while (rmtp_stream_server_poll_event (t->s, &e))
    if (e.receivers_complete > G_N_ELEMENTS (members))
      abort ();
  return any;
}

static void
exchange (Target * t, gboolean lost)
{
  RmtpDatagram d;

  for (guint i = 0; i < 64; i++) {
    gboolean any = server_out (t, lost);

    rmtp_stream_receiver_handle_timeout (t->r, t->now);
    while (rmtp_stream_receiver_poll_datagram (t->r, &d)) {
      check_datagram (&d);
      if (!lost)
        rmtp_stream_server_handle (t->s, MEMBER, g_bytes_get_data (d.bytes,
                NULL), g_bytes_get_size (d.bytes), t->now);
      g_bytes_unref (d.bytes);
      any = TRUE;
    }
    check_receiver_events (t);
    if (!any)
      break;
  }
}

static void
push (Target * t, guint32 n, gboolean end)
{
  n = MIN (n, STREAM_SIZE - t->pushed);
  t->pushed += rmtp_stream_server_push (t->s, t->stream + t->pushed, n,
      t->now);
  if (end && !t->ended) {
    t->ended = TRUE;
    rmtp_stream_server_finish (t->s, t->now);
  }
  check_bounds (t);
}

static void
run_record (Target * t, const FuzzRecord * r)
{
  GBytes *b;

  switch (r->op % 4) {
    case 0:
      rmtp_stream_server_handle (t->s, (r->op >> 2 & 3) ?
          members[(r->op >> 2 & 3) - 1] : 0, r->chunk, r->len, t->now);
      break;
    case 1:
      t->injected = TRUE;
      b = g_bytes_new (r->chunk, r->len);
      rmtp_stream_receiver_handle_bytes (t->r, b, t->now);
      g_bytes_unref (b);
      check_receiver_events (t);
      break;
    case 2:
      t->now += (gint64) (r->v % 2000) * MS;
      exchange (t, r->op & 4);
      break;
    case 3:
      push (t, r->v % 2048, r->op & 4);
      break;
  }
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RmtpConfig cfg;
  RandomSeeded seeded[2];
  RandomSource rng[2];
  Target t = { 0 };
  FuzzRecord r;
  size_t pos = 0;

  for (guint i = 0; i < STREAM_SIZE; i++)
    t.stream[i] = (guint8) (i * 13 + (i >> 8));
  t.got = g_byte_array_new ();
  rmtp_config_init (&cfg);
  cfg.packet_size = 256;
  cfg.window_size = WINDOW;
  cfg.max_total_size = 1 << 16;   /* forged windows are refused quickly */
  t.max_total = cfg.max_total_size;
  if (size > 0 && (data[0] & 0x80)) {
    cfg.repair = RMTP_REPAIR_PARITY;
    cfg.parity_block = 4;
  }
  random_source_init_seeded (&rng[0], &seeded[0], 1);
  random_source_init_seeded (&rng[1], &seeded[1], 2);
  t.s = rmtp_stream_server_new (&cfg, 0x5e55, members,
      G_N_ELEMENTS (members), &rng[0]);
  t.r = rmtp_stream_receiver_new (&cfg, MEMBER, TRUE, &rng[1]);
  while (fuzz_next_record (data, size, &pos, &r)) {
    run_record (&t, &r);
    g_free (r.chunk);
  }
  rmtp_stream_server_free (t.s);
  rmtp_stream_receiver_free (t.r);
  g_byte_array_unref (t.got);
  return 0;
}
