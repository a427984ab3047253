/* Writes the seeds of the newest wire fields with the cores' own writers,
 * so the fuzzer starts inside packets the cores accept:
 *
 *   vlmcc/anchor-written  config 0x40 (challenge echo and start_anchor):
 *     a START written by vlmcc_msg_write that answers the receiver's first
 *     probe (its id, its tstamp 0) before the sender's own, then data and
 *     steps, so the receiver anchors that START on the data; once with a
 *     sent stamp one data packet's delay off, once with one further than
 *     any RTT (counted forged).
 *   rmtp/conn-retry-written  a CONN retry (type 16) to member 101 as the
 *     harness's server sends it once the first CONN and its CACK are lost,
 *     handed to the receiver, then the transfer.
 *   rmtp/conn-retry-backoff-written  the same from a server with
 *     conn_retry_backoff, so the retry carries an answer window.
 *
 *   make-seeds-written CORPUS_DIR  (writes CORPUS_DIR/vlmcc/.. and
 *   CORPUS_DIR/rmtp/..) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vlmcccore.h"
#include "rmtpcore.h"

#define MS (G_GINT64_CONSTANT (1000000))

static void
add_record (GByteArray * out, guint8 op, const guint8 * chunk, gsize len)
{
  guint8 head[3] = { op, (guint8) (len >> 8), (guint8) len };

  g_byte_array_append (out, head, 3);
  g_byte_array_append (out, chunk, len);
}

static void
add_step (GByteArray * out, guint8 op, guint32 ms)
{
  guint8 v[4] = { ms >> 24, ms >> 16, ms >> 8, ms };

  add_record (out, op, v, 4);
}

static void
write_seed (const char *dir, const char *target, const char *name,
    GByteArray * blob)
{
  gchar *path = g_build_filename (dir, target, name, NULL);
  GError *err = NULL;

  if (!g_file_set_contents (path, (const gchar *) blob->data, blob->len,
          &err)) {
    fprintf (stderr, "%s: %s\n", path, err->message);
    exit (1);
  }
  g_free (path);
}

/* The receiver id fuzz-vlmcc's receiver gets for config byte @config (no
 * rate floor, Vegas on the RTT, no key): the harness seeds its random
 * source with that byte and makes the sender first. */
static guint32
vlmcc_harness_receiver_id (guint8 config)
{
  RandomSeeded seeded;
  RandomSource rng;
  VlmccConfig cfg;
  VlmccSender *s;
  VlmccReceiver *r;
  VlmccReceiverStats st;

  vlmcc_config_init (&cfg);
  cfg.max_queue = config & 0x20 ? 4 : 512;
  cfg.initial_window = 1 + config % 4;
  cfg.challenge_echo = (config & 0x40) != 0;
  cfg.challenge_delay = cfg.challenge_echo ? 1.0 : 0.0;
  cfg.leaderless_growth_limit = cfg.challenge_echo ? 2.0 : 0.0;
  cfg.volunteer_after = cfg.challenge_echo ? 2.0 : 0.0;
  cfg.start_anchor = cfg.challenge_echo;
  random_source_init_seeded (&rng, &seeded, config);
  s = vlmcc_sender_new (&cfg, 0x5e4d, &rng, 0);
  r = vlmcc_receiver_new (&cfg, &rng, 0);
  vlmcc_receiver_get_stats (r, &st);
  vlmcc_receiver_free (r);
  vlmcc_sender_free (s);
  return st.id;
}

static void
write_vlmcc_anchor (const char *dir, const char *name, guint32 sent)
{
  GByteArray *out = g_byte_array_new ();
  VlmccMsg m = { 0 };
  guint8 pkt[VLMCC_MAX_PACKET];
  gsize len;
  guint8 config = 0x40;

  m.type = VLMCC_MSG_START;
  m.id = 0x5e4d;
  m.target = vlmcc_harness_receiver_id (config);
  m.seq = 1;
  m.leader = m.target;
  m.rate = 100 * VLMCC_RATE_SCALE;
  m.win = 4 * 256;
  m.tstamp = 0;
  m.sent = sent;
  len = vlmcc_msg_write (&m, pkt, sizeof (pkt));
  if (len == 0)
    exit (1);
  g_byte_array_append (out, &config, 1);
  add_record (out, 2, pkt, len);
  for (guint i = 0; i < 200; i++)
    add_step (out, i % 9 == 4 ? 7 : 3, 5 + i % 4 * 5);
  write_seed (dir, "vlmcc", name, out);
  g_byte_array_unref (out);
}

/* fuzz-rmtp's server, members and data, as the harness makes them. */
static const guint32 rmtp_members[] = { 100, 101, 102 };

static void
write_rmtp_conn_retry (const char *dir, const char *name, gboolean backoff)
{
  RandomSeeded seeded;
  RandomSource rng;
  RmtpConfig cfg;
  RmtpServer *s;
  RmtpDatagram d;
  GByteArray *out = g_byte_array_new ();
  guint8 *bytes = g_malloc (4000);
  GBytes *set;
  gint64 now;
  gboolean found = FALSE;

  for (guint i = 0; i < 4000; i++)
    bytes[i] = (guint8) (i * 7 + 3);
  set = g_bytes_new_take (bytes, 4000);
  rmtp_config_init (&cfg);
  cfg.packet_size = 256;
  cfg.max_total_size = 1 << 20;
  cfg.rate_control = TRUE;
  cfg.monitor_packets = 4;
  cfg.conn_retry_backoff = backoff;
  random_source_init_seeded (&rng, &seeded, 1);
  s = rmtp_server_new (&cfg, 0x5e55, rmtp_members, 3, set, &rng);
  rmtp_server_start (s, 0);
  for (now = 0; now < 10000 * MS && !found; now += 10 * MS) {
    rmtp_server_handle_timeout (s, now);
    while (rmtp_server_poll_datagram (s, now, &d)) {
      gsize n = g_bytes_get_size (d.bytes);
      const guint8 *p = g_bytes_get_data (d.bytes, NULL);

      if (!found && d.to == 101 && n > 3 && p[3] == RMTP_CONN_RETRY) {
        add_record (out, 1, p, n);
        found = TRUE;
      }
      g_bytes_unref (d.bytes);
    }
  }
  if (!found) {
    fprintf (stderr, "the server sent no CONN retry to 101\n");
    exit (1);
  }
  for (guint i = 0; i < 300; i++)
    add_step (out, i % 11 == 5 ? 6 : 2, 3);
  write_seed (dir, "rmtp", name, out);
  rmtp_server_free (s);
  g_bytes_unref (set);
  g_byte_array_unref (out);
}

int
main (int argc, char **argv)
{
  if (argc != 2) {
    fprintf (stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  /* 2 ms: about one 1000-byte packet's time at 4 Mbit/s */
  write_vlmcc_anchor (argv[1], "anchor-written", 0xFFFFF830);
  write_vlmcc_anchor (argv[1], "anchor-forged-written", 0x80000000);
  write_rmtp_conn_retry (argv[1], "conn-retry-written", FALSE);
  write_rmtp_conn_retry (argv[1], "conn-retry-backoff-written", TRUE);
  return 0;
}
