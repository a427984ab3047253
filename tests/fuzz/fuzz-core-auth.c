/* libFuzzer target: auth_open of gst/common/core/auth.h. Input: one byte
 * choosing how many senders the receiver keeps (1..8), then records
 * (fuzzrecords.h) whose op, modulo 4, is:
 *   0  open the chunk as a datagram, as it is;
 *   1  seal the chunk as one of four senders (its first byte picks which)
 *      and open it: always taken, with the chunk as its payload;
 *   2  open the last sealed packet again: refused as replayed unless a
 *      sender was evicted since it was taken;
 *   3  open the last sealed packet with one bit flipped (the chunk's first
 *      two bytes pick where): always a bad tag.
 * Every verdict is counted once, in its own counter; the receiver never
 * keeps more senders than its bound. The key is 00 01 .. 1f
 * (make-seeds-auth.py seals its packets with it). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/auth.h"
#include "fuzzrecords.h"

#define N_SENDERS 4
#define MAX_PACKET 2048

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

typedef struct
{
  AuthSession *rx, *tx[N_SENDERS];
  guint max_senders;
  guint8 last[MAX_PACKET + AUTH_TRAILER_SIZE];
  gsize last_len;
  guint64 evicted_at_last;      /* evictions when @last was taken */
  guint64 opens;
} Rig;

static AuthVerdict
open_checked (Rig * r, const guint8 * p, gsize len, gint64 now)
{
  gsize plen = G_MAXSIZE;
  AuthVerdict v = auth_open (r->rx, p, len, now, &plen, NULL);
  AuthStats st;

  r->opens++;
  auth_session_get_stats (r->rx, &st);
  if (v > AUTH_TOO_OLD || (v == AUTH_OK && plen != len - AUTH_TRAILER_SIZE)
      || st.accepted + st.truncated + st.bad_tag + st.replayed + st.too_old !=
      r->opens || st.senders > r->max_senders)
    abort ();
  return v;
}

static void
seal_and_open (Rig * r, const FuzzRecord * rec, gint64 now)
{
  AuthSession *tx = r->tx[rec->len ? rec->chunk[0] % N_SENDERS : 0];
  gsize len = MIN (rec->len, MAX_PACKET);
  AuthStats st;

  if (len)                      /* an empty record has no chunk */
    memcpy (r->last, rec->chunk, len);
  r->last_len = auth_seal (tx, r->last, len, sizeof (r->last));
  if (r->last_len != len + AUTH_TRAILER_SIZE ||
      open_checked (r, r->last, r->last_len, now) != AUTH_OK)
    abort ();
  auth_session_get_stats (r->rx, &st);
  r->evicted_at_last = st.evicted;
}

static void
replay_last (Rig * r, gint64 now)
{
  AuthStats st;
  AuthVerdict v;

  if (!r->last_len)
    return;
  v = open_checked (r, r->last, r->last_len, now);
  auth_session_get_stats (r->rx, &st);
  if (st.evicted == r->evicted_at_last && v != AUTH_REPLAYED)
    abort ();
}

static void
flip_last (Rig * r, const FuzzRecord * rec, gint64 now)
{
  guint8 bad[sizeof (r->last)];
  guint pos, bit;

  if (!r->last_len)
    return;
  pos = (rec->v >> 16) % r->last_len;
  bit = (rec->v >> 8) & 7;
  memcpy (bad, r->last, r->last_len);
  bad[pos] ^= 1 << bit;
  if (open_checked (r, bad, r->last_len, now) != AUTH_BAD_TAG)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  Rig r = { 0, };
  AuthKey key;
  FuzzRecord rec;
  size_t pos = 1;
  gint64 now = 0;

  if (size < 1)
    return 0;
  for (guint i = 0; i < AUTH_KEY_SIZE; i++)
    key.bytes[i] = i;
  r.max_senders = 1 + data[0] % 8;
  r.rx = auth_session_new (&key, 0xfeedface, r.max_senders);
  for (guint i = 0; i < N_SENDERS; i++)
    r.tx[i] = auth_session_new (&key, 0x1000 + i, 8);
  while (fuzz_next_record (data, size, &pos, &rec)) {
    now += 1000000;
    switch (rec.op % 4) {
      case 0:
        open_checked (&r, rec.chunk, rec.len, now);
        break;
      case 1:
        seal_and_open (&r, &rec, now);
        break;
      case 2:
        replay_last (&r, now);
        break;
      case 3:
        flip_last (&r, &rec, now);
        break;
    }
    g_free (rec.chunk);
  }
  auth_session_free (r.rx);
  for (guint i = 0; i < N_SENDERS; i++)
    auth_session_free (r.tx[i]);
  return 0;
}
