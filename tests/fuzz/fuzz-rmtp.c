/* libFuzzer target: every packet the RMTP server and receiver parse. A
 * server (members 100, 101, 102; 4000 bytes in 256-byte packets) and the
 * receiver 101 talk to each other in simulated time while the input injects
 * datagrams into either side. Every datagram either core emits must parse,
 * the receiver's data must arrive in order and never past the data set's
 * size, and a receiver that reports DONE must hold a set of the announced
 * size whose SHA-256 is the announced digest (a forged CONN that came first
 * announces a forged set: only that set's own digest can be checked); and
 * anything else aborts.
 *
 * Input: records [op:1][len:2, big endian][len bytes]:
 *   op % 4 == 0  the chunk to the server, from member {0,100,101,102}[op>>2 & 3]
 *   op % 4 == 1  the chunk to the receiver
 *   op % 4 == 2  time step of (first 4 bytes % 2000) ms; the cores exchange
 *                what they sent, unless op & 4 (that step's output is lost)
 *   op % 4 == 3  the receiver declares BUSY (chunk[0] odd) or RRDY
 * The first byte's bit 6 (ignored by the records) makes the server repair
 * by parity over blocks of 4 packets, so PARITY packets and the receiver's
 * decoding are fuzzed too; with bit 5 as well, over blocks of 300, so the
 * 16 packets are one block over GF(2^16) (PARITY16). Its bit 7 gives both cores a group key (bytes
 * 0..31): every control datagram either sends must open under the key
 * (DATA and PARITY go unsealed), and no chunk the input injects is ever
 * taken as control (the fuzzer does not hold the key). Its bit 4 turns on
 * our options off the paper's path: early repair, release on ACK, the
 * CONN retry's backoff, and the incremental decoding of GF(2^16) blocks
 * with the rows expected, in batches of 4. Its bit 3 hands the one-shot
 * decodes out as jobs (parity_decode_apart), each run and handed back
 * one exchange later, the receiver going on meanwhile. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rmtpcore.h"
#include "fuzzrecords.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define MS (G_GINT64_CONSTANT (1000000))
#define DATA_SIZE 4000
#define MEMBER 101

static const guint32 members[] = { 100, MEMBER, 102 };

typedef struct {
  RmtpServer *s;
  RmtpReceiver *r;
  GBytes *data;
  GByteArray *got;
  gboolean done;
  gint64 now;
  AuthSession *opener;          /* keyed: checks what the cores send */
  GQueue jobs;                  /* parity_decode_apart: taken, run */
} Target;

/* parity_decode_apart: the jobs of the last exchange go back, and the
 * receiver's new ones are run, to go back at the next. */
static void
cycle_decodes (Target * t)
{
  RmtpDecodeJob *job;
  GQueue fresh = G_QUEUE_INIT;

  while ((job = rmtp_receiver_take_decode_job (t->r))) {
    rmtp_decode_job_run (job);
    g_queue_push_tail (&fresh, job);
  }
  while ((job = g_queue_pop_head (&t->jobs)))
    rmtp_receiver_decode_done (t->r, job);
  t->jobs = fresh;
}

static gboolean
is_media (const guint8 * p, gsize len)
{
  return len > 3 && (p[3] == RMTP_DATA || p[3] == RMTP_PARITY ||
      p[3] == RMTP_PARITY16);
}

static void
check_datagram (Target * t, const RmtpDatagram * d)
{
  gsize len = g_bytes_get_size (d->bytes);
  const guint8 *data = g_bytes_get_data (d->bytes, NULL);
  RmtpPacket p;

  if (t->opener && !is_media (data, len) && auth_open (t->opener, data, len,
          t->now, &len, NULL) != AUTH_OK)
    abort ();
  if (!rmtp_packet_parse (data, len, &p))
    abort ();
}

/* Control the core took under the key (0 without one). */
static guint64
auth_accepted (Target * t, gboolean server)
{
  AuthStats st = { 0 };

  if (server)
    rmtp_server_auth_stats (t->s, &st);
  else
    rmtp_receiver_auth_stats (t->r, &st);
  return st.accepted;
}

static gboolean
delivered_matches_announced (Target * t)
{
  guint64 size;
  const guint8 *digest;
  guint8 got[32];
  gsize len = sizeof (got);
  GChecksum *ck;

  if (!rmtp_receiver_data_set (t->r, &size, &digest) || size != t->got->len)
    return FALSE;
  ck = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (ck, t->got->data, t->got->len);
  g_checksum_get_digest (ck, got, &len);
  g_checksum_free (ck);
  return memcmp (got, digest, sizeof (got)) == 0;
}

static void
check_receiver_events (Target * t)
{
  RmtpEvent e;
  guint64 size = 0;
  const guint8 *digest;

  while (rmtp_receiver_poll_event (t->r, &e)) {
    if (e.type == RMTP_EVENT_DATA) {
      if (!rmtp_receiver_data_set (t->r, &size, &digest) ||
          e.offset != t->got->len ||
          e.offset + g_bytes_get_size (e.data) > size)
        abort ();
      g_byte_array_append (t->got, g_bytes_get_data (e.data, NULL),
          g_bytes_get_size (e.data));
      g_bytes_unref (e.data);
    } else if (e.type == RMTP_EVENT_DONE) {
      if (!delivered_matches_announced (t))
        abort ();
      t->done = TRUE;
    }
  }
}

static void
exchange (Target * t, gboolean lost)
{
  RmtpDatagram d;
  RmtpEvent e;

  for (guint i = 0; i < 64; i++) {
    gboolean any = FALSE;

    rmtp_server_handle_timeout (t->s, t->now);
    rmtp_receiver_handle_timeout (t->r, t->now);
    cycle_decodes (t);
    while (rmtp_server_poll_datagram (t->s, t->now, &d)) {
      check_datagram (t, &d);
      if (!lost && (d.to == RMTP_TO_GROUP || d.to == MEMBER))
        rmtp_receiver_handle (t->r, g_bytes_get_data (d.bytes, NULL),
            g_bytes_get_size (d.bytes), t->now);
      g_bytes_unref (d.bytes);
      any = TRUE;
    }
    while (rmtp_receiver_poll_datagram (t->r, &d)) {
      check_datagram (t, &d);
      if (!lost)
        rmtp_server_handle (t->s, MEMBER, g_bytes_get_data (d.bytes, NULL),
            g_bytes_get_size (d.bytes), t->now);
      g_bytes_unref (d.bytes);
      any = TRUE;
    }
    while (rmtp_server_poll_event (t->s, &e))
      if (e.receivers_complete > G_N_ELEMENTS (members))
        abort ();
    check_receiver_events (t);
    if (!any)
      break;
  }
}

static void
run_record (Target * t, const FuzzRecord * r)
{
  guint64 before;

  switch (r->op % 4) {
    case 0:
      before = auth_accepted (t, TRUE);
      rmtp_server_handle (t->s, (r->op >> 2 & 3) ? members[(r->op >> 2 & 3)
              - 1] : 0, r->chunk, r->len, t->now);
      if (auth_accepted (t, TRUE) != before)
        abort ();
      break;
    case 1:
      before = auth_accepted (t, FALSE);
      rmtp_receiver_handle (t->r, r->chunk, r->len, t->now);
      if (auth_accepted (t, FALSE) != before)
        abort ();
      check_receiver_events (t);
      break;
    case 2:
      t->now += (gint64) (r->v % 2000) * MS;
      exchange (t, r->op & 4);
      break;
    case 3:
      rmtp_receiver_set_busy (t->r, r->len > 0 && (r->chunk[0] & 1), t->now);
      break;
  }
}

static void
set_key (Target * t)
{
  AuthKey k;

  for (guint i = 0; i < AUTH_KEY_SIZE; i++)
    k.bytes[i] = i;
  rmtp_server_set_key (t->s, &k);
  rmtp_receiver_set_key (t->r, &k);
  t->opener = auth_session_new (&k, 1, 4);
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
  guint8 *bytes = g_malloc (DATA_SIZE);

  for (guint i = 0; i < DATA_SIZE; i++)
    bytes[i] = (guint8) (i * 7 + 3);
  t.data = g_bytes_new_take (bytes, DATA_SIZE);
  t.got = g_byte_array_new ();
  rmtp_config_init (&cfg);
  cfg.packet_size = 256;
  cfg.max_total_size = 1 << 20;   /* forged sizes are refused quickly */
  cfg.rate_control = TRUE;
  cfg.monitor_packets = 4;
  if (size > 0 && (data[0] & 0x40)) {
    cfg.repair = RMTP_REPAIR_PARITY;
    cfg.parity_block = (data[0] & 0x20) ? 300 : 4;
  }
  /* the one-shot decoder; bit 4 turns on the incremental one (the
   * default), so the corpus reaches both */
  cfg.parity_incremental = FALSE;
  /* our options off the paper's path, together */
  if (size > 0 && (data[0] & 0x10)) {
    cfg.early_repair = TRUE;
    cfg.release_on_ack = TRUE;
    cfg.conn_retry_backoff = TRUE;
    cfg.parity_incremental = TRUE;
    cfg.parity_expect_rows = TRUE;
    cfg.parity_incremental_batch = 4;
    cfg.parity_incremental_min_block = 256;     /* its blocks are 300 */
    cfg.empty_round_wait = 10 * MS;
  }
  if (size > 0 && (data[0] & 0x08))
    cfg.parity_decode_apart = TRUE;
  random_source_init_seeded (&rng[0], &seeded[0], 1);
  random_source_init_seeded (&rng[1], &seeded[1], 2);
  t.s = rmtp_server_new (&cfg, 0x5e55, members, G_N_ELEMENTS (members),
      t.data, &rng[0]);
  t.r = rmtp_receiver_new (&cfg, MEMBER, TRUE, &rng[1]);
  if (size > 0 && (data[0] & 0x80))
    set_key (&t);
  rmtp_server_start (t.s, 0);
  while (fuzz_next_record (data, size, &pos, &r)) {
    run_record (&t, &r);
    g_free (r.chunk);
  }
  g_queue_clear_full (&t.jobs, (GDestroyNotify) rmtp_decode_job_free);
  rmtp_server_free (t.s);
  rmtp_receiver_free (t.r);
  auth_session_free (t.opener);
  g_byte_array_unref (t.got);
  g_bytes_unref (t.data);
  return 0;
}
