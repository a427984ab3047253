/* RMTP streaming mode: a stream in windows, each a data set of the cores.
 * See rmtpstream.h and docs/protocols/rmtp.md. */
#include "rmtpstream.h"

#include <string.h>

#include "core/polled.h"
#include "core/wire.h"
#include "rmtpdigest.h"

/* ------------------------------------------------------------------ */
/* Server */

struct _RmtpStreamServer {
  RmtpConfig cfg;
  RandomSource rng;
  guint32 session;
  guint32 *live;                /* members still in the stream */
  guint n_live, n_members;
  GByteArray *filling;          /* taken, not yet in a window */
  gboolean finishing;           /* the end of the stream was given */
  gboolean last_started;        /* the last window is out */
  gboolean ended;               /* DONE or FAILED queued */
  RmtpServer *server;           /* the window in flight; NULL between */
  guint32 server_session;
  RmtpServer *releasing;        /* the window before, in its release */
  guint32 releasing_session;
  gboolean releasing_last;
  guint64 next_offset;
  RmtpDigest *digest;           /* SHA-256 of the windows launched so far */
  RmtpServerStats done_sum;     /* the finished windows' counters */
  AuthKey key;                  /* every window's, with have_key */
  gboolean have_key;
  AuthStats auth_done;          /* the finished windows' auth counters */
  GQueue events;
  RmtpStreamServerStats stats;
};

RmtpStreamServer *
rmtp_stream_server_new (const RmtpConfig * cfg, guint32 session,
    const guint32 * members, guint n_members, const RandomSource * rng)
{
  RmtpStreamServer *s;

  if (cfg->window_size == 0 || cfg->window_size > G_MAXUINT32 / 2 ||
      n_members == 0 || n_members > RMTP_MAX_MEMBERS)
    return NULL;
  s = g_new0 (RmtpStreamServer, 1);
  s->cfg = *cfg;
  s->rng = *rng;
  s->session = session;
  s->live = g_memdup2 (members, sizeof (guint32) * n_members);
  s->n_live = s->n_members = n_members;
  s->filling = g_byte_array_new ();
  s->digest = rmtp_digest_new ();
  g_queue_init (&s->events);
  s->stats.members_left = n_members;
  return s;
}

void
rmtp_stream_server_free (RmtpStreamServer * s)
{
  RmtpEvent e;

  if (!s)
    return;
  rmtp_server_free (s->server);
  rmtp_server_free (s->releasing);
  memset (&s->key, 0, sizeof (s->key));
  g_byte_array_unref (s->filling);
  rmtp_digest_free (s->digest);
  g_free (s->live);
  while (polled_pop (&s->events, &e, sizeof (e)))
    if (e.data)
      g_bytes_unref (e.data);
  g_free (s);
}

/* The filling window may hold one byte past a window, so that a full
 * window is known not to be the last before it goes. */
gsize
rmtp_stream_server_room (const RmtpStreamServer * s)
{
  gsize limit = s->cfg.window_size + 1;

  if (s->ended || s->finishing || s->filling->len >= limit)
    return 0;
  return limit - s->filling->len;
}

static void
stream_update_held (RmtpStreamServer * s)
{
  s->stats.held = s->filling->len + (s->server ? s->stats.window_bytes : 0);
  s->stats.max_held = MAX (s->stats.max_held, s->stats.held);
}

static void
add_input_stats (RmtpInputStats * sum, const RmtpInputStats * in)
{
  sum->accepted += in->accepted;
  sum->malformed += in->malformed;
  sum->foreign += in->foreign;
  sum->forged += in->forged;
  sum->out_of_window += in->out_of_window;
  sum->duplicates += in->duplicates;
  sum->late += in->late;
}

static void
add_server_stats (RmtpServerStats * sum, const RmtpServerStats * st)
{
  add_input_stats (&sum->in, &st->in);
  sum->datagrams_sent += st->datagrams_sent;
  sum->data_sent += st->data_sent;
  sum->data_resent += st->data_resent;
  sum->unicast_data_sent += st->unicast_data_sent;
  sum->parity_sent += st->parity_sent;
  sum->conn_sent += st->conn_sent;
  sum->polls_sent += st->polls_sent;
  sum->rel_sent += st->rel_sent;
  sum->eor_sent += st->eor_sent;
  sum->responses += st->responses;
  sum->rounds += st->rounds;
  sum->max_responses_per_round = MAX (sum->max_responses_per_round,
      st->max_responses_per_round);
  sum->rate = st->rate;
  sum->rate_changes += st->rate_changes;
  sum->slow_receivers += st->slow_receivers;
  sum->slow_detected += st->slow_detected;
  sum->taken_back += st->taken_back;
  sum->gone_complete += st->gone_complete;
  sum->gone_rel_sent += st->gone_rel_sent;
}

/* Adds @st to @sum; senders is a gauge, not added. */
static void
add_auth_stats (AuthStats * sum, const AuthStats * st)
{
  sum->sealed += st->sealed;
  sum->accepted += st->accepted;
  sum->truncated += st->truncated;
  sum->bad_tag += st->bad_tag;
  sum->replayed += st->replayed;
  sum->too_old += st->too_old;
  sum->evicted += st->evicted;
}

static void
server_free_counted (RmtpStreamServer * s, RmtpServer * server)
{
  AuthStats st;

  if (server && rmtp_server_auth_stats (server, &st))
    add_auth_stats (&s->auth_done, &st);
  rmtp_server_free (server);
}


static void
stream_end (RmtpStreamServer * s, RmtpEventType type, RmtpFailReason why)
{
  RmtpEvent *e = polled_push (&s->events, sizeof (RmtpEvent));

  e->type = type;
  e->reason = why;
  e->bytes = s->stats.taken;
  e->round = s->stats.window;
  e->receivers_complete = s->n_live;
  e->receivers_failed = s->n_members - s->n_live;
  s->ended = TRUE;
}

/* The next window: @size bytes of the filling one, as a data set. The
 * last window is launched only once the stream has ended, so the stream's
 * digest is whole when its CONN is written. */
static void
stream_launch (RmtpStreamServer * s, gsize size, gboolean last, gint64 now)
{
  GBytes *bytes = g_bytes_new (s->filling->data, size);
  guint32 session = s->session + s->stats.windows;
  guint8 digest[RMTP_DIGEST_SIZE];

  rmtp_digest_update (s->digest, s->filling->data, size);
  if (last)
    rmtp_digest_finish (s->digest, digest);
  g_byte_array_remove_range (s->filling, 0, size);
  s->server_session = session ? session : 1;
  s->server = rmtp_server_new (&s->cfg, s->server_session, s->live,
      s->n_live, bytes, &s->rng);
  g_bytes_unref (bytes);
  if (s->server && s->have_key)
    rmtp_server_set_key (s->server, &s->key);
  if (!s->server) {
    stream_end (s, RMTP_EVENT_FAILED, RMTP_FAIL_INCOMPLETE);
    return;
  }
  s->stats.window = s->stats.windows++;
  s->stats.window_offset = s->next_offset;
  s->stats.window_bytes = size;
  s->next_offset += size;
  s->last_started = last;
  rmtp_server_set_window (s->server, s->stats.window,
      s->stats.window_offset, last ? digest : NULL);
  rmtp_server_start (s->server, now);
}

/* Starts the next window if none is in flight and one is ready. */
static void
stream_maybe_launch (RmtpStreamServer * s, gint64 now)
{
  if (s->server || s->ended || s->last_started)
    return;
  if (s->filling->len > s->cfg.window_size)
    stream_launch (s, s->cfg.window_size, FALSE, now);
  else if (s->finishing && s->filling->len > 0)
    stream_launch (s, s->filling->len, TRUE, now);
  else if (s->finishing)
    stream_end (s, RMTP_EVENT_DONE, RMTP_FAIL_NONE);
  stream_update_held (s);
}

static void
stream_drop (RmtpStreamServer * s, guint32 id, gboolean complete)
{
  RmtpEvent *e = polled_push (&s->events, sizeof (RmtpEvent));

  e->type = RMTP_EVENT_DROPPED;
  e->member = id;
  e->round = s->stats.window;
  e->reason = complete ? RMTP_FAIL_NONE : RMTP_FAIL_INCOMPLETE;
  s->stats.dropped++;
  s->stats.dropped_slow += complete;
}

/* Whether some member has the window without having held it back. */
static gboolean
stream_any_prompt_member (RmtpStreamServer * s)
{
  for (guint i = 0; i < s->n_live; i++) {
    gboolean slow;

    if (rmtp_server_member_complete (s->server, s->live[i], &slow) && !slow)
      return TRUE;
  }
  return FALSE;
}

/* Keeps the members that have the window; drops the others, and (unless
 * it is the last window) those that held it back as slow or BUSY: a
 * bounded window cannot wait for them again while others are held back
 * by them. When every member that has the window held it back, waiting
 * holds back nobody, so they all stay (a sole receiver whose output fell
 * behind is paced, not dropped). */
static void
stream_keep_members (RmtpStreamServer * s)
{
  gboolean keep_slow = s->last_started || !stream_any_prompt_member (s);
  guint n = 0;

  for (guint i = 0; i < s->n_live; i++) {
    gboolean slow;
    gboolean has = rmtp_server_member_complete (s->server, s->live[i],
        &slow);

    if (has && (keep_slow || !slow))
      s->live[n++] = s->live[i];
    else
      stream_drop (s, s->live[i], has);
  }
  s->n_live = s->stats.members_left = n;
  if (n > 0)
    s->stats.released += s->stats.window_bytes;
}

static void
stream_retire_releasing (RmtpStreamServer * s)
{
  if (!s->releasing)
    return;
  add_server_stats (&s->done_sum, rmtp_server_stats (s->releasing));
  server_free_counted (s, s->releasing);
  s->releasing = NULL;
}

/* The window is in its release: every member has ACKed it or been given
 * up, so who stays is known, its data is not needed again, and the next
 * window starts while the RACKs come in. */
static void
stream_window_released (RmtpStreamServer * s, gint64 now)
{
  stream_keep_members (s);
  rmtp_server_drop_data (s->server);
  stream_retire_releasing (s);
  s->releasing = s->server;
  s->releasing_session = s->server_session;
  s->releasing_last = s->last_started || s->n_live == 0;
  s->server = NULL;
  /* nobody is left: the members dropped hear it now rather than wait
   * receiver_timeout for a CONN; the stream ends with this release */
  if (s->n_live == 0 && !s->last_started)
    rmtp_server_queue_drop (s->releasing, s->stats.window + 1);
  else if (s->n_live > 0)
    stream_maybe_launch (s, now);
  stream_update_held (s);
}

/* The window in its release ends; the stream with it if it was the last. */
static void
stream_pump_releasing (RmtpStreamServer * s)
{
  RmtpEvent e;
  gboolean last = s->releasing_last;

  while (s->releasing && rmtp_server_poll_event (s->releasing, &e))
    if (e.data)
      g_bytes_unref (e.data);
  if (!s->releasing || rmtp_server_phase (s->releasing) != RMTP_SERVER_DONE)
    return;
  stream_retire_releasing (s);
  if (last && !s->ended)
    stream_end (s, RMTP_EVENT_DONE, RMTP_FAIL_NONE);
}

/* Takes the window's events (progress in stream bytes) and notices its
 * release. */
static void
stream_pump (RmtpStreamServer * s, gint64 now)
{
  RmtpEvent e;

  while (s->server && rmtp_server_poll_event (s->server, &e)) {
    if (e.type == RMTP_EVENT_PROGRESS) {
      RmtpEvent *p = polled_push (&s->events, sizeof (RmtpEvent));

      *p = e;
      p->bytes += s->stats.window_offset;
    } else if (e.type == RMTP_EVENT_FAILED) {
      /* nobody accepted the window */
      s->n_live = s->stats.members_left = 0;
      stream_end (s, RMTP_EVENT_FAILED, e.reason);
    }
  }
  if (s->server && !s->ended &&
      rmtp_server_phase (s->server) >= RMTP_SERVER_RELEASE)
    stream_window_released (s, now);
  stream_pump_releasing (s);
}

gsize
rmtp_stream_server_push (RmtpStreamServer * s, const guint8 * data,
    gsize len, gint64 now)
{
  gsize n = MIN (len, rmtp_stream_server_room (s));

  g_byte_array_append (s->filling, data, n);
  s->stats.taken += n;
  stream_update_held (s);
  stream_maybe_launch (s, now);
  return n;
}

void
rmtp_stream_server_finish (RmtpStreamServer * s, gint64 now)
{
  s->finishing = TRUE;
  stream_maybe_launch (s, now);
}

guint32
rmtp_stream_server_handle (RmtpStreamServer * s, guint32 from,
    const guint8 * data, gsize len, gint64 now)
{
  RmtpServer *to = s->server;
  guint32 bound;

  /* the window in its release takes its own session's answers (RACKs) */
  if (s->releasing && len >= RMTP_HEADER_SIZE &&
      read32 (data + 4) == s->releasing_session)
    to = s->releasing;
  if (!to) {
    /* between windows: an answer to one already finished */
    s->done_sum.in.late++;
    return 0;
  }
  bound = rmtp_server_handle (to, from, data, len, now);
  stream_pump (s, now);
  return bound;
}

void
rmtp_stream_server_handle_timeout (RmtpStreamServer * s, gint64 now)
{
  if (s->releasing)
    rmtp_server_handle_timeout (s->releasing, now);
  if (s->server)
    rmtp_server_handle_timeout (s->server, now);
  stream_pump (s, now);
}

gboolean
rmtp_stream_server_poll_datagram (RmtpStreamServer * s, gint64 now,
    RmtpDatagram * out)
{
  gboolean got = (s->releasing &&
      rmtp_server_poll_datagram (s->releasing, now, out)) ||
      (s->server && rmtp_server_poll_datagram (s->server, now, out));

  stream_pump (s, now);
  return got;
}

gboolean
rmtp_stream_server_poll_event (RmtpStreamServer * s, RmtpEvent * out)
{
  return polled_pop (&s->events, out, sizeof (*out));
}

gint64
rmtp_stream_server_next_deadline (const RmtpStreamServer * s)
{
  gint64 t = s->server ? rmtp_server_next_deadline (s->server) : G_MAXINT64;

  if (s->releasing)
    t = MIN (t, rmtp_server_next_deadline (s->releasing));
  return t;
}

const RmtpServer *
rmtp_stream_server_window (const RmtpStreamServer * s)
{
  return s->server;
}

const RmtpStreamServerStats *
rmtp_stream_server_stats (RmtpStreamServer * s)
{
  s->stats.sum = s->done_sum;
  if (s->releasing)
    add_server_stats (&s->stats.sum, rmtp_server_stats (s->releasing));
  if (s->server)
    add_server_stats (&s->stats.sum, rmtp_server_stats (s->server));
  return &s->stats;
}

/* ------------------------------------------------------------------ */
/* Receiver */

struct _RmtpStreamReceiver {
  RmtpConfig cfg;
  RandomSource rng;
  guint32 member;
  gboolean accept;
  RmtpReceiver *core;           /* the current window (or the data set) */
  RmtpReceiver *prev;           /* the window before, answering its REL */
  GQueue pending;               /* RmtpEvent DATA of the current window */
  RmtpDigest *digest;           /* stream: SHA-256 of the windows' data
                                 * taken in order, the current one's too */
  gboolean verified;            /* the data set or the last window */
  gboolean early;               /* a data set's DATA given out unverified */
  gboolean ended;
  AuthKey key;                  /* every window's, with have_key */
  gboolean have_key;
  AuthStats auth_done;          /* the finished windows' auth counters */
  GQueue events;
  RmtpStreamReceiverStats stats;
};

static void
receiver_free_counted (RmtpStreamReceiver * r, RmtpReceiver * core)
{
  AuthStats st;

  if (core && rmtp_receiver_auth_stats (core, &st))
    add_auth_stats (&r->auth_done, &st);
  rmtp_receiver_free (core);
}

RmtpStreamReceiver *
rmtp_stream_receiver_new (const RmtpConfig * cfg, guint32 member,
    gboolean accept, const RandomSource * rng)
{
  RmtpStreamReceiver *r;

  if (member == 0)
    return NULL;
  r = g_new0 (RmtpStreamReceiver, 1);
  r->cfg = *cfg;
  r->rng = *rng;
  r->member = member;
  r->accept = accept;
  r->core = rmtp_receiver_new (cfg, member, accept, &r->rng);
  r->digest = rmtp_digest_new ();
  g_queue_init (&r->pending);
  g_queue_init (&r->events);
  return r;
}

static void
clear_event_queue (GQueue * q)
{
  RmtpEvent e;

  while (polled_pop (q, &e, sizeof (e)))
    if (e.data)
      g_bytes_unref (e.data);
}

void
rmtp_stream_receiver_free (RmtpStreamReceiver * r)
{
  if (!r)
    return;
  rmtp_receiver_free (r->core);
  rmtp_receiver_free (r->prev);
  rmtp_digest_free (r->digest);
  memset (&r->key, 0, sizeof (r->key));
  clear_event_queue (&r->pending);
  clear_event_queue (&r->events);
  g_free (r);
}

static void
receiver_end (RmtpStreamReceiver * r, RmtpEventType type,
    RmtpFailReason why)
{
  RmtpEvent *e = polled_push (&r->events, sizeof (RmtpEvent));

  e->type = type;
  e->reason = why;
  e->bytes = r->stats.given;
  r->ended = TRUE;
}

/* The verified window's data goes out, in order. */
static void
receiver_give_pending (RmtpStreamReceiver * r)
{
  gpointer rec;

  while ((rec = g_queue_pop_head (&r->pending))) {
    RmtpEvent *e = rec;

    r->stats.given += g_bytes_get_size (e->data);
    g_queue_push_tail (&r->events, rec);
  }
  r->stats.held = 0;
}

/* A window before the last is verified: a new core waits for the next
 * one while this one answers its release. */
static void
receiver_rotate (RmtpStreamReceiver * r, guint32 window, gint64 now)
{
  RmtpEvent e;

  r->stats.windows++;
  if (r->prev)
    while (rmtp_receiver_poll_event (r->prev, &e))
      if (e.data)
        g_bytes_unref (e.data);
  receiver_free_counted (r, r->prev);
  r->prev = r->core;
  r->core = rmtp_receiver_new (&r->cfg, r->member, r->accept, &r->rng);
  if (r->have_key)
    rmtp_receiver_set_key (r->core, &r->key);
  rmtp_receiver_expect_window (r->core, window + 1, r->stats.given, now);
}

/* Whether the windows taken, the last one included, add up to the stream
 * its last CONN announced. */
static gboolean
receiver_stream_whole (RmtpStreamReceiver * r)
{
  guint8 got[RMTP_DIGEST_SIZE];
  const guint8 *want;

  rmtp_digest_finish (r->digest, got);
  return rmtp_receiver_stream_digest (r->core, &want) &&
      memcmp (got, want, RMTP_DIGEST_SIZE) == 0;
}

/* Whether the current core has verified its data (given out then). The
 * last window of a stream is given out only if the whole stream's digest
 * matches too; else the core fails before it ACKs. */
static void
receiver_check_verified (RmtpStreamReceiver * r, gint64 now)
{
  RmtpReceiverState st = rmtp_receiver_state (r->core);
  guint32 window;
  guint64 offset;
  gboolean last, stream;

  if (r->verified || (st != RMTP_RECEIVER_COMPLETE &&
          st != RMTP_RECEIVER_DONE))
    return;
  stream = rmtp_receiver_window (r->core, &window, &offset, &last);
  if (stream && last && !receiver_stream_whole (r)) {
    rmtp_receiver_abort (r->core, RMTP_FAIL_STREAM_DIGEST);
    receiver_end (r, RMTP_EVENT_FAILED, RMTP_FAIL_STREAM_DIGEST);
    return;
  }
  receiver_give_pending (r);
  if (stream && !last)
    receiver_rotate (r, window, now);
  else
    r->verified = TRUE;
}

static void
receiver_hold (RmtpStreamReceiver * r, const RmtpEvent * e)
{
  RmtpEvent *h = polled_push (&r->pending, sizeof (RmtpEvent));
  guint32 window;
  gboolean last;
  guint64 offset = 0;

  *h = *e;
  if (rmtp_receiver_window (r->core, &window, &offset, &last))
    rmtp_digest_update (r->digest, g_bytes_get_data (e->data, NULL),
        g_bytes_get_size (e->data));
  h->offset += offset;
  r->stats.held += g_bytes_get_size (e->data);
  r->stats.max_held = MAX (r->stats.max_held, r->stats.held);
  /* a window's data wait for its digest, and the stream's */
  if (r->early && !rmtp_receiver_window (r->core, &window, &offset, &last))
    receiver_give_pending (r);
}

/* The end of the current core: the data set or last window released (or
 * verified and then the server silent), or a failure. */
static void
receiver_core_ended (RmtpStreamReceiver * r, const RmtpEvent * e,
    gint64 now)
{
  RmtpReceiver *was = r->core;

  receiver_check_verified (r, now);
  if (r->core != was || r->ended)
    return;                     /* moved on to the next window, or the
                                 * stream's digest failed */
  if (r->verified)
    receiver_end (r, RMTP_EVENT_DONE, RMTP_FAIL_NONE);
  else
    receiver_end (r, RMTP_EVENT_FAILED, e->type == RMTP_EVENT_FAILED ?
        e->reason : RMTP_FAIL_INCOMPLETE);
}

static void
receiver_pump (RmtpStreamReceiver * r, gint64 now)
{
  RmtpEvent e;

  while (!r->ended && rmtp_receiver_poll_event (r->core, &e)) {
    if (e.type == RMTP_EVENT_DATA)
      receiver_hold (r, &e);
    else if (e.type == RMTP_EVENT_DONE || e.type == RMTP_EVENT_FAILED)
      receiver_core_ended (r, &e, now);
  }
  if (!r->ended)
    receiver_check_verified (r, now);
}

/* The window before answers only its own session's packets (its REL); a
 * DROP, which carries that session too, is for the window awaited. */
static RmtpReceiver *
receiver_core_for (RmtpStreamReceiver * r, const guint8 * data, gsize len)
{
  if (r->prev && len >= RMTP_HEADER_SIZE && data[3] != RMTP_DROP &&
      read32 (data + 4) == rmtp_receiver_session (r->prev))
    return r->prev;
  return r->core;
}

void
rmtp_stream_receiver_start (RmtpStreamReceiver * r, gint64 now)
{
  rmtp_receiver_start (r->core, now);
}

void
rmtp_stream_receiver_handle_bytes (RmtpStreamReceiver * r, GBytes * bytes,
    gint64 now)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  rmtp_receiver_handle_bytes (receiver_core_for (r, data, len), bytes, now);
  receiver_pump (r, now);
}

void
rmtp_stream_receiver_handle_timeout (RmtpStreamReceiver * r, gint64 now)
{
  if (r->prev)
    rmtp_receiver_handle_timeout (r->prev, now);
  rmtp_receiver_handle_timeout (r->core, now);
  receiver_pump (r, now);
}

gboolean
rmtp_stream_receiver_poll_datagram (RmtpStreamReceiver * r,
    RmtpDatagram * out)
{
  return (r->prev && rmtp_receiver_poll_datagram (r->prev, out)) ||
      rmtp_receiver_poll_datagram (r->core, out);
}

gboolean
rmtp_stream_receiver_poll_event (RmtpStreamReceiver * r, RmtpEvent * out)
{
  return polled_pop (&r->events, out, sizeof (*out));
}

gint64
rmtp_stream_receiver_next_deadline (const RmtpStreamReceiver * r)
{
  gint64 t = rmtp_receiver_next_deadline (r->core);

  if (r->prev)
    t = MIN (t, rmtp_receiver_next_deadline (r->prev));
  return t;
}

RmtpReceiver *
rmtp_stream_receiver_core (RmtpStreamReceiver * r)
{
  return r->core;
}

gboolean
rmtp_stream_receiver_verified (const RmtpStreamReceiver * r)
{
  return r->verified;
}

const RmtpStreamReceiverStats *
rmtp_stream_receiver_stats (const RmtpStreamReceiver * r)
{
  return &r->stats;
}

void
rmtp_stream_server_set_key (RmtpStreamServer * s, const AuthKey * key)
{
  s->key = *key;
  s->have_key = TRUE;
  if (s->server)
    rmtp_server_set_key (s->server, key);
}

gboolean
rmtp_stream_server_auth_stats (const RmtpStreamServer * s, AuthStats * st)
{
  AuthStats w;

  *st = s->auth_done;
  st->senders = 0;
  if (s->server && rmtp_server_auth_stats (s->server, &w)) {
    add_auth_stats (st, &w);
    st->senders = w.senders;
  }
  if (s->releasing && rmtp_server_auth_stats (s->releasing, &w))
    add_auth_stats (st, &w);
  return s->have_key;
}

void
rmtp_stream_receiver_set_early_output (RmtpStreamReceiver * r,
    gboolean early)
{
  r->early = early;
}

void
rmtp_stream_receiver_set_key (RmtpStreamReceiver * r, const AuthKey * key)
{
  r->key = *key;
  r->have_key = TRUE;
  rmtp_receiver_set_key (r->core, key);
}

gboolean
rmtp_stream_receiver_auth_stats (const RmtpStreamReceiver * r,
    AuthStats * st)
{
  AuthStats w;

  *st = r->auth_done;
  st->senders = 0;
  if (rmtp_receiver_auth_stats (r->core, &w)) {
    add_auth_stats (st, &w);
    st->senders = w.senders;
  }
  if (r->prev && rmtp_receiver_auth_stats (r->prev, &w))
    add_auth_stats (st, &w);
  return r->have_key;
}
