/* Unit tests of the conferencing application's pure parts
 * (examples/conference/confcore.c): its options, the tile grid as members
 * join and leave, a participant's colour and tone, and the --stats-json
 * line that scripts/conference.py reads. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#ifdef HAVE_JSON_GLIB
#include <json-glib/json-glib.h>
#endif
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "confcore.h"
#include "confexit.h"
#include "confleave.h"
#include "confsnap.h"
#include "confstale.h"
#include <signal.h>
#include <unistd.h>

#include "../elements/checkutil.h"
#include "../elements/slowstart.h"

#define GOOD "--id=2", "--port=5002", \
  "--members=1@10.0.0.1:5000,2@10.0.0.2:5002,3@10.0.0.3:5000"

/* Parses the NULL-terminated arguments (after the program's name). */
static gboolean
parse (ConfOptions * o, gboolean with_nice, GError ** err, ...)
{
  GPtrArray *args = g_ptr_array_new ();
  va_list ap;
  const gchar *a;
  gboolean ok;

  g_ptr_array_add (args, (gpointer) "conference");
  va_start (ap, err);
  while ((a = va_arg (ap, const gchar *)))
    g_ptr_array_add (args, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  memset (o, 0, sizeof (*o));
  ok = conf_options_parse (o, args->len - 1, (gchar **) args->pdata, NULL,
      with_nice, err);
  g_ptr_array_unref (args);
  return ok;
}

GST_START_TEST (test_options_defaults)
{
  ConfOptions o;
  GError *err = NULL;

  fail_unless (parse (&o, FALSE, &err, GOOD, "--headless", NULL),
      "refused: %s", err ? err->message : "");
  fail_unless_equals_int (o.id, 2);
  fail_unless_equals_int (o.port, 5002);
  fail_unless_equals_string (o.name, "p2");
  fail_unless_equals_int (o.colour, 0x28b428);
  fail_unless_equals_int (o.width, 320);
  fail_unless_equals_int (o.height, 240);
  fail_unless_equals_int (o.fps, 15);
  fail_unless_equals_int (o.snapshot_interval, 5);
  fail_unless_equals_uint64 (o.initial_rate, 150000);
  fail_unless_equals_uint64 (o.max_receive_rate, 0);
  fail_unless_equals_uint64 (o.uplink_rate, 0);
  fail_unless (!o.uplink_estimate && !o.uplink_video_only);
  fail_unless (o.layer_max_spread == CONF_LAYER_MAX_SPREAD);
  fail_unless_equals_int (o.key_unit_queue_ms, CONF_KEY_UNIT_QUEUE_MS);
  fail_unless_equals_int (o.max_frame_age_ms, CONF_MAX_FRAME_AGE_MS);
  fail_unless_equals_string (o.out_dir, ".");
  fail_unless (o.headless && o.audio && !o.ice && !o.preload_decoders);
  conf_options_clear (&o);

  fail_unless (parse (&o, TRUE, &err, GOOD, "--colour=0a0B0c", "--name=Ann",
          "--fps=30", "--no-audio", "--ice", "--rendezvous=10.0.0.1:7000",
          "--initial-rate=64000", "--key-unit-queue-time=0",
          "--preload-decoders", "--uplink-rate=4000000", "--uplink-estimate",
          "--layer-max-spread=1000", NULL),
      "refused: %s", err ? err->message : "");
  fail_unless (o.preload_decoders);
  fail_unless_equals_uint64 (o.uplink_rate, 4000000);
  fail_unless (o.uplink_estimate);
  fail_unless (o.layer_max_spread == 1000.0);
  fail_unless_equals_int (o.colour, 0x0a0b0c);
  fail_unless_equals_string (o.name, "Ann");
  fail_unless_equals_int (o.fps, 30);
  fail_unless_equals_uint64 (o.initial_rate, 64000);
  fail_unless_equals_int (o.key_unit_queue_ms, 0);
  fail_unless (!o.audio && o.ice);
  conf_options_clear (&o);
}

GST_END_TEST;

/* A refused command line: FALSE, and a message holding @says. */
static void
check_refused (gboolean with_nice, const gchar * says, ...)
{
  const gchar *argv[16] = { "conference" };
  guint n = 1;
  va_list ap;
  ConfOptions o = { 0 };
  GError *err = NULL;

  va_start (ap, says);
  while (n < G_N_ELEMENTS (argv) - 1 && (argv[n] = va_arg (ap, const gchar *)))
    n++;
  va_end (ap);
  argv[n] = NULL;
  fail_if (conf_options_parse (&o, n, (gchar **) argv, NULL, with_nice,
          &err), "accepted, expected \"%s\"", says);
  fail_unless (err != NULL);
  fail_unless (strstr (err->message, says) != NULL,
      "said \"%s\", expected \"%s\"", err->message, says);
  g_error_free (err);
  conf_options_clear (&o);
}

GST_START_TEST (test_options_refused)
{
  const gchar *members = "--members=1@h:5000,2@h:5002";

  check_refused (FALSE, "--id is needed", "--port=5000", members, NULL);
  check_refused (FALSE, "--id is needed", "--id=0", "--port=5000", members,
      NULL);
  check_refused (FALSE, "--port is needed", "--id=1", members, NULL);
  check_refused (FALSE, "--port must be within 1..65535, got 70000",
      "--id=1", "--port=70000", members, NULL);
  check_refused (FALSE, "--members is needed", "--id=1", "--port=5000", NULL);
  check_refused (FALSE, "\"x@h:5000\" is not id@host:port", "--id=1",
      "--port=5000", "--members=x@h:5000", NULL);
  check_refused (FALSE, "\"0@h:5000\" is not id@host:port", "--id=1",
      "--port=5000", "--members=1@h:5000,0@h:5000", NULL);
  check_refused (FALSE, "\"2@\" is not id@host:port", "--id=1",
      "--port=5000", "--members=1@h:5000,2@", NULL);
  check_refused (FALSE, "\"2h:5000\" is not id@host:port", "--id=1",
      "--port=5000", "--members=2h:5000", NULL);
  check_refused (FALSE, "id 2 is there twice", "--id=1", "--port=5000",
      "--members=1@h:5000,2@h:5002,2@g:5004", NULL);
  check_refused (FALSE, "--members is empty", "--id=1", "--port=5000",
      "--members=", NULL);
  check_refused (FALSE, "--width must be at least 16, got 8", "--id=1",
      "--port=5000", members, "--width=8", NULL);
  check_refused (FALSE, "--height must be at least 16, got 0", "--id=1",
      "--port=5000", members, "--height=0", NULL);
  check_refused (FALSE, "--fps must be at least 1, got 0", "--id=1",
      "--port=5000", members, "--fps=0", NULL);
  check_refused (FALSE, "--snapshot-interval must be at least 1", "--id=1",
      "--port=5000", members, "--snapshot-interval=0", NULL);
  check_refused (FALSE, "--duration must not be negative, got -1", "--id=1",
      "--port=5000", members, "--duration=-1", NULL);
  check_refused (FALSE, "--initial-rate must be at least 1, got 0",
      "--id=1", "--port=5000", members, "--initial-rate=0", NULL);
  check_refused (FALSE, "--max-receive-rate must not be negative, got -5", "--id=1",
      "--port=5000", members, "--max-receive-rate=-5", NULL);
  check_refused (FALSE, "--uplink-rate must not be negative, got -1", "--id=1",
      "--port=5000", members, "--uplink-rate=-1", NULL);
  check_refused (FALSE, "--layer-max-spread must be within 1..1000, got 0.5",
      "--id=1", "--port=5000", members, "--layer-max-spread=0.5", NULL);
  check_refused (FALSE, "--key-unit-queue-time must not be negative, got -1",
      "--id=1", "--port=5000", members, "--key-unit-queue-time=-1", NULL);
  check_refused (FALSE, "--max-frame-age must not be negative, got -1",
      "--id=1", "--port=5000", members, "--max-frame-age=-1", NULL);
  check_refused (FALSE, "--colour wants RRGGBB, got \"12345\"", "--id=1",
      "--port=5000", members, "--colour=12345", NULL);
  check_refused (FALSE, "--colour wants RRGGBB, got \"gg0000\"", "--id=1",
      "--port=5000", members, "--colour=gg0000", NULL);
  check_refused (FALSE, "--colour wants RRGGBB, got \"-10000\"", "--id=1",
      "--port=5000", members, "--colour=-10000", NULL);
  check_refused (TRUE, "go with --ice", "--id=1", "--port=5000", members,
      "--stun=h:3478", NULL);
  check_refused (TRUE, "--ice needs --rendezvous", "--id=1", members,
      "--ice", NULL);
  check_refused (FALSE, "built without libnice", "--id=1", members,
      "--ice", "--rendezvous=h:7000", NULL);
  /* GOption's own: an unknown option, a number that is none */
  check_refused (FALSE, "--bogus", "--id=1", "--bogus", NULL);
  check_refused (FALSE, "abc", "--id=1", "--fps=abc", NULL);
}

GST_END_TEST;

/* The palette as scripts/conference.py has it (it tells the tiles of a
 * snapshot apart by these colours): the hex numbers of "PALETTE = [...]". */
static GArray *
script_palette (void)
{
  gchar *text = NULL, *line, *p;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint32));

  fail_unless (g_file_get_contents (CONFERENCE_PY, &text, NULL, NULL));
  line = strstr (text, "\nPALETTE = [");
  fail_unless (line != NULL, "no PALETTE in " CONFERENCE_PY);
  for (p = strstr (line, "0x"); p && p < strchr (line, ']');
      p = strstr (p, "0x")) {
    guint32 c = (guint32) g_ascii_strtoull (p + 2, &p, 16);
    g_array_append_val (out, c);
  }
  g_free (text);
  return out;
}

GST_START_TEST (test_colour_and_tone)
{
  GArray *py = script_palette ();

  fail_unless_equals_int (py->len, 8);
  for (guint id = 1; id <= 16; id++) {
    fail_unless_equals_int (conf_colour_of (id),
        g_array_index (py, guint32, (id - 1) % py->len));
    for (guint other = 1; other < id; other++) {
      guint f = conf_audio_frequency (id), g = conf_audio_frequency (other);
      /* tones apart by over a 100 ms block's resolution, and none a
       * harmonic of another */
      fail_unless (f > g + 20, "tones %u and %u", f, g);
      fail_unless (f % g != 0, "tone %u is a harmonic of %u", f, g);
      if (id <= 8)
        fail_unless (conf_colour_of (id) != conf_colour_of (other));
    }
  }
  fail_unless_equals_int (conf_audio_frequency (1), 300);
  fail_unless_equals_int (conf_audio_frequency (17), 300);
  g_array_unref (py);
}

GST_END_TEST;

GST_START_TEST (test_grid_size)
{
  /* participants -> columns x rows */
  const guint want[][3] = { {1, 2, 1}, {2, 2, 1}, {3, 2, 2}, {4, 2, 2},
  {5, 3, 2}, {6, 3, 2}, {7, 3, 3}, {9, 3, 3}, {10, 4, 3}
  };

  for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
    guint cols, rows;

    conf_grid_size (want[i][0], &cols, &rows);
    fail_unless (cols == want[i][1] && rows == want[i][2],
        "%u participants: %ux%u", want[i][0], cols, rows);
  }
  fail_unless_equals_int (conf_members_count ("1@a:1,2@b:2,3@c:3"), 3);
  fail_unless_equals_int (conf_members_count (""), 1);
}

GST_END_TEST;

/* @member's tile position among @present (the remote members now). */
static void
check_tile (guint member, const guint * present, guint n, gint x, gint y)
{
  gint px, py;
  gboolean on = conf_grid_place (conf_grid_cell (member, present, n), 2, 2,
      320, 240, &px, &py);

  fail_unless (on == (x >= 0), "member %u on the canvas: %d", member, on);
  fail_unless (px == x && (!on || py == y), "member %u at %d,%d, not %d,%d",
      member, px, py, x, y);
}

/* The 4-participant call of tests/net/test_conference.py at p1 (a 2x2
 * grid): p2 and p3 first, p4 joins, p3 leaves; ours is the first cell and
 * the others follow in member id order. */
GST_START_TEST (test_tiles_join_and_leave)
{
  const guint before[] = { 3, 2 }, all[] = { 4, 2, 3 }, after[] = { 4, 2 };
  const guint crowd[] = { 5, 2, 3, 4 };
  gint x, y;

  fail_unless (conf_grid_place (0, 2, 2, 320, 240, &x, &y));
  fail_unless (x == 0 && y == 0);
  check_tile (2, before, 2, 320, 0);
  check_tile (3, before, 2, 0, 240);
  /* p4 joins: after p3 */
  check_tile (2, all, 3, 320, 0);
  check_tile (3, all, 3, 0, 240);
  check_tile (4, all, 3, 320, 240);
  /* p3 leaves: p4 takes its cell */
  check_tile (2, after, 2, 320, 0);
  check_tile (4, after, 2, 0, 240);
  /* a fifth past the 2x2 grid stays off the canvas */
  check_tile (4, crowd, 4, 320, 240);
  check_tile (5, crowd, 4, -4 * 320, 0);
}

GST_END_TEST;

/* --uplink-rate holds our voices' copies and our video's together: the
 * video's tpsssink gets it less one voice copy per other member. */
GST_START_TEST (test_video_uplink_leaves_room_for_voices)
{
  ConfOptions o;
  GError *err = NULL;

  /* 25 packets/s of 80 bytes of Opus + 52 of headers, as many parity
   * packets 20 bytes longer: 56.8 kbit/s. */
  fail_unless_equals_uint64 (conf_voice_copy_rate (), 56800);
  fail_unless_equals_int (conf_other_members_count
      ("1@10.0.0.1:5000,2@10.0.0.2:5002,3@10.0.0.3:5000", 2), 2);
  fail_unless_equals_int (conf_other_members_count
      ("1@10.0.0.1:5000,3@10.0.0.3:5000", 2), 2);

  fail_unless (parse (&o, FALSE, &err, GOOD, "--uplink-rate=850000", NULL));
  fail_unless_equals_uint64 (conf_video_uplink_rate (&o), 850000 - 2 * 56800);
  conf_options_clear (&o);
  fail_unless (parse (&o, FALSE, &err, GOOD, "--uplink-rate=850000",
          "--uplink-video-only", NULL));
  fail_unless_equals_uint64 (conf_video_uplink_rate (&o), 850000);
  conf_options_clear (&o);
  fail_unless (parse (&o, FALSE, &err, GOOD, "--uplink-rate=850000",
          "--no-audio", NULL));
  fail_unless_equals_uint64 (conf_video_uplink_rate (&o), 850000);
  conf_options_clear (&o);
  fail_unless (parse (&o, FALSE, &err, GOOD, NULL));
  fail_unless_equals_uint64 (conf_video_uplink_rate (&o), 0);
  conf_options_clear (&o);
  /* more voice than uplink: the video keeps a quarter */
  fail_unless (parse (&o, FALSE, &err, GOOD, "--uplink-rate=100000", NULL));
  fail_unless_equals_uint64 (conf_video_uplink_rate (&o), 25000);
  conf_options_clear (&o);
}

GST_END_TEST;

GST_START_TEST (test_audio_members)
{
  gchar *a = conf_audio_members ("1@10.0.0.1:5000,2@[::1]:6000");

  fail_unless_equals_string (a, "1@10.0.0.1:5001,2@[::1]:6001");
  g_free (a);
  fail_unless (conf_audio_members ("1@10.0.0.1") == NULL);
  fail_unless (conf_audio_members ("1@10.0.0.1:65535") == NULL);
  fail_unless (conf_audio_members ("1@10.0.0.1:50x0") == NULL);
}

GST_END_TEST;

static const gchar *const golden =
    "{\"t\":12.25,\"id\":1,\"data_bps\":2000000,\"bytes_sent\":123456,"
    "\"key_unit_requests\":3,\"queue_key_units\":1,\"stale_frames\":4,"
    "\"enc_target_bps\":2100000,\"enc_bps\":1800000,\"enc_frames\":180,"
    "\"enc_qp\":0,\"uplink_send_bps\":5200000,\"uplink_share\":0.6538,"
    "\"uplink_estimate_bps\":0,"
    "\"tiles\":2,\"members\":["
    "{\"id\":2,\"fps\":14.50,\"recv_bps\":2500000,\"send_data_bps\":1900000,"
    "\"send_bps\":2100000,\"loss_link\":0.01250,\"loss_after_fec\":0.00000,"
    "\"rtt_ms\":12.3,\"media_bps\":2400000,\"audio_media_bps\":26000,"
    "\"send_notified_bps\":2200000,\"recv_notified_bps\":2600000,"
    "\"layers_sent\":3,\"packets_sent\":900,\"parity_sent\":45,"
    "\"parity_dropped\":7,\"parity_skipped\":5,\"key_flush_packets\":0,\"late_reports\":2,\"queue_key_asks\":0,"
    "\"age_dropped_frames\":0,\"audio_recv_bps\":27000,\"video_hold_ms\":40.0,\"audio_hold_ms\":0.0,"
    "\"audio_over_max_hold\":0,\"av_lag_ms\":-12.5,\"send_queue_ms\":3.2,"
    "\"audio_packets\":250,\"audio_lost\":1,\"audio_unrecovered\":0,"
    "\"audio_gaps\":0},"
    "{\"id\":4,\"fps\":0.00,\"recv_bps\":0,\"send_data_bps\":0,"
    "\"send_bps\":0,\"loss_link\":0.00000,\"loss_after_fec\":0.00000,"
    "\"rtt_ms\":-1.0,\"media_bps\":0,\"audio_media_bps\":0,"
    "\"send_notified_bps\":0,\"recv_notified_bps\":0,\"layers_sent\":0,"
    "\"packets_sent\":0,\"parity_sent\":0,\"parity_dropped\":0,"
    "\"parity_skipped\":0,"
    "\"key_flush_packets\":0,"
    "\"late_reports\":0,\"queue_key_asks\":0,\"age_dropped_frames\":0,"
    "\"audio_recv_bps\":0,"
    "\"video_hold_ms\":-1.0,\"audio_hold_ms\":-1.0,\"audio_over_max_hold\":0,"
    "\"av_lag_ms\":0.0,\"send_queue_ms\":0.0,\"audio_packets\":0,"
    "\"audio_lost\":0,\"audio_unrecovered\":0,\"audio_gaps\":0}]}\n";

#ifdef HAVE_JSON_GLIB
/* @line parses as JSON, with the figures test_stats_json_line gave. */
static void
check_parses (const gchar * line)
{
  JsonParser *parser = json_parser_new ();
  GError *err = NULL;
  JsonObject *root, *m;
  JsonArray *members;

  fail_unless (json_parser_load_from_data (parser, line, -1, &err),
      "not JSON: %s", err ? err->message : "");
  root = json_node_get_object (json_parser_get_root (parser));
  fail_unless_equals_int (json_object_get_int_member (root, "id"), 1);
  members = json_object_get_array_member (root, "members");
  fail_unless_equals_int (json_array_get_length (members), 2);
  m = json_array_get_object_element (members, 0);
  fail_unless_equals_int (json_object_get_int_member (m, "recv_bps"),
      2500000);
  fail_unless (json_object_get_double_member (m, "fps") == 14.5);
  fail_unless_equals_int (json_object_get_int_member (root,
          "uplink_send_bps"), 5200000);
  fail_unless (fabs (json_object_get_double_member (root, "uplink_share") -
          0.6538) < 1e-9);
  g_object_unref (parser);
}
#endif

/* One second's line at p1 with p2 (figures) and p4 (nothing yet, its fps
 * not a number): exactly the format scripts/conference.py reads. */
GST_START_TEST (test_stats_json_line)
{
  ConfStatsMember p2 = {
    .id = 2,.fps = 14.5,.recv_bps = 2500000,.send_data_bps = 1900000,
    .send_bps = 2100000,.loss_link = 0.0125,.loss_after_fec = 0.0,
    .rtt_ms = 12.34,.media_bps = 2400000,.audio_media_bps = 26000,
    .send_notified_bps = 2200000,.recv_notified_bps = 2600000,
    .layers_sent = 3,.packets_sent = 900,.parity_sent = 45,.parity_dropped = 7,
    .parity_skipped = 5,
    .late_reports = 2,.audio_recv_bps = 27000,.video_hold_ms = 40.0,
    .audio_hold_ms = 0.0,.av_lag_ms = -12.5,.send_queue_ms = 3.21,
    .audio_packets = 250,.audio_lost = 1,
  };
  ConfStatsMember p4 = {.id = 4,.fps = NAN,.rtt_ms = -1.0,
    .video_hold_ms = -1.0,.audio_hold_ms = -1.0
  };
  ConfStatsEncoder enc = {.target_bps = 2100000,.bps = 1800000,
    .frames = 180,.qp = 0
  };
  ConfStatsEncoder none = { 0 };
  ConfStatsUplink no_uplink = {.share = 1.0 };
  ConfStatsUplink uplink = {.send_bps = 5200000,.share = 3400000.0 / 5200000,
    .estimate_bps = 0
  };
  GString *json = g_string_new (NULL);

  conf_stats_json_begin (json, 12.25, 1, 2000000, 123456, 3, 1, 4, 2, &enc,
      &uplink);
  conf_stats_json_member (json, &p2);
  conf_stats_json_member_end (json);
  conf_stats_json_member (json, &p4);
  conf_stats_json_member_end (json);
  conf_stats_json_end (json);
  fail_unless_equals_string (json->str, golden);

#ifdef HAVE_JSON_GLIB
  check_parses (json->str);
#endif

  /* a member that left: the session keeps its last figures, rates and
   * all; its counters stay, its rates are 0 */
  g_string_truncate (json, 0);
  p2.left = TRUE;
  conf_stats_json_member (json, &p2);
  fail_unless (strstr (json->str, "\"recv_bps\":0,\"send_data_bps\":0,"
          "\"send_bps\":0,") != NULL, "%s", json->str);
  fail_unless (strstr (json->str, "\"fps\":0.00,") != NULL, "%s", json->str);
  fail_unless (strstr (json->str, "\"audio_recv_bps\":0,") != NULL, "%s",
      json->str);
  fail_unless (strstr (json->str, "\"packets_sent\":900,") != NULL, "%s",
      json->str);
  fail_unless (g_str_has_suffix (json->str, ",\"left\":true"), "%s",
      json->str);

  /* no member: an empty list */
  g_string_truncate (json, 0);
  conf_stats_json_begin (json, 1.0, 3, 0, 0, 0, 0, 0, 0, &none, &no_uplink);
  conf_stats_json_end (json);
  fail_unless (g_str_has_suffix (json->str, "\"tiles\":0,\"members\":[]}\n"),
      "%s", json->str);
  g_string_free (json, TRUE);
}

GST_END_TEST;

/* A frame one frame interval (66 ms) old passes; frames that reach the
 * encoder's queue more than --max-frame-age behind the clock, as a live
 * source's catch-up after a stall pushes them, are left out and counted. */
GST_START_TEST (test_stale_frames_left_out)
{
  GstHarness *h = gst_harness_new ("identity");
  ConfStaleFrames stale;
  GstPad *src = gst_element_get_static_pad (h->element, "src");
  const GstClockTime ages_ms[] = { 66, 1598, 1341, 250, 201, 199, 0 };
  guint passed = 0;

  gst_harness_use_testclock (h);
  gst_harness_set_src_caps_str (h, "video/x-raw");
  conf_stale_frames_attach (&stale, src, 200 * GST_MSECOND);
  fail_unless (gst_harness_set_time (h, 5 * GST_SECOND));
  for (guint i = 0; i < G_N_ELEMENTS (ages_ms); i++) {
    GstBuffer *b = gst_buffer_new ();

    GST_BUFFER_PTS (b) = 5 * GST_SECOND - ages_ms[i] * GST_MSECOND;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  while (gst_harness_buffers_in_queue (h) > 0) {
    GstBuffer *b = gst_harness_pull (h);

    fail_unless (5 * GST_SECOND - GST_BUFFER_PTS (b) <= 200 * GST_MSECOND);
    gst_buffer_unref (b);
    passed++;
  }
  fail_unless_equals_int (passed, 3);
  fail_unless_equals_int (conf_stale_frames_dropped (&stale), 4);

  /* no timestamp: it passes */
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new ()),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  fail_unless_equals_int (conf_stale_frames_dropped (&stale), 4);
  gst_object_unref (src);
  gst_harness_teardown (h);
}

GST_END_TEST;

typedef struct
{
  GstPad *pad;
  GMutex lock;
  GCond answered_cond;
  gboolean answered;
} AllocationAsk;

static gpointer
ask_allocation (gpointer data)
{
  AllocationAsk *ask = data;
  GstCaps *caps = gst_caps_from_string ("video/x-raw");
  GstQuery *q = gst_query_new_allocation (caps, TRUE);

  gst_pad_query (ask->pad, q);
  gst_query_unref (q);
  gst_caps_unref (caps);
  g_mutex_lock (&ask->lock);
  ask->answered = TRUE;
  g_cond_signal (&ask->answered_cond);
  g_mutex_unlock (&ask->lock);
  return NULL;
}

static GstPadProbeReturn
hold_branch (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  return GST_PAD_PROBE_OK;
}

/* A tee's allocation query, with one branch still busy handing the caps
 * on (held here by a blocking probe behind its queue): answered at once,
 * and asked of the branch without the answer (the test can fail). */
static gboolean
allocation_answered_while_branch_busy (gboolean answer_at_tee)
{
  GstElement *p = gst_parse_launch ("tee name=t ! queue name=q ! fakesink",
      NULL);
  GstElement *tee = gst_bin_get_by_name (GST_BIN (p), "t");
  GstElement *q = gst_bin_get_by_name (GST_BIN (p), "q");
  GstPad *qsrc = gst_element_get_static_pad (q, "src");
  AllocationAsk ask = { gst_element_get_static_pad (tee, "sink") };
  GstSegment seg;
  GThread *thread;
  gulong hold;
  gboolean answered;

  g_mutex_init (&ask.lock);
  g_cond_init (&ask.answered_cond);
  if (answer_at_tee)
    conf_allocation_answer_attach (ask.pad);
  hold = gst_pad_add_probe (qsrc, GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM,
      hold_branch, NULL, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_send_event (ask.pad, gst_event_new_stream_start ("camera"));
  gst_pad_send_event (ask.pad, gst_event_new_caps (gst_caps_from_string
          ("video/x-raw")));
  gst_pad_send_event (ask.pad, gst_event_new_segment (&seg));
  thread = g_thread_new ("ask", ask_allocation, &ask);
  g_mutex_lock (&ask.lock);
  while (!ask.answered && g_cond_wait_until (&ask.answered_cond, &ask.lock,
          g_get_monotonic_time () + G_USEC_PER_SEC / 2));
  answered = ask.answered;
  g_mutex_unlock (&ask.lock);
  gst_pad_remove_probe (qsrc, hold);
  g_thread_join (thread);
  gst_element_set_state (p, GST_STATE_NULL);
  g_cond_clear (&ask.answered_cond);
  g_mutex_clear (&ask.lock);
  gst_object_unref (ask.pad);
  gst_object_unref (qsrc);
  gst_object_unref (q);
  gst_object_unref (tee);
  gst_object_unref (p);
  return answered;
}

GST_START_TEST (test_allocation_answered_at_tee)
{
  fail_if (allocation_answered_while_branch_busy (FALSE));
  fail_unless (allocation_answered_while_branch_busy (TRUE));
}

GST_END_TEST;

/* The format a running pipeline's element @name put out on its src pad. */
static gchar *
negotiated_format (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *src = gst_element_get_static_pad (e, "src");
  GstCaps *caps = gst_pad_get_current_caps (src);
  gchar *format = caps ? g_strdup (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "format")) : NULL;

  if (caps)
    gst_caps_unref (caps);
  gst_object_unref (src);
  gst_object_unref (e);
  return format;
}

/* Our camera's raw video stays I420 from the test sources to the tee, the
 * format the encoder takes, rather than a 64-bit RGBA one mixed, overlaid
 * and converted at 3.6 times the bytes. */
GST_START_TEST (test_camera_path_in_i420)
{
  ConfOptions o;
  GError *err = NULL;
  gchar *camera, *desc, *mixed, *plate;
  GstElement *p;
  GstBus *bus;
  GstMessage *msg;

  fail_unless (parse (&o, FALSE, &err, GOOD, NULL));
  camera = conf_camera_description (&o);
  desc = g_strdup_printf ("%s cam. ! fakesink name=sink", camera);
  p = gst_parse_launch (desc, &err);
  fail_unless (p != NULL, "%s", err ? err->message : "");
  gst_element_set_state (p, GST_STATE_PLAYING);
  bus = gst_element_get_bus (p);
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND,
      GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ASYNC_DONE);
  gst_message_unref (msg);
  mixed = negotiated_format (p, "cammix");
  plate = negotiated_format (p, "nameplate");
  fail_unless_equals_string (mixed, "I420");
  fail_unless_equals_string (plate, "I420");
  gst_element_set_state (p, GST_STATE_NULL);
  g_free (mixed);
  g_free (plate);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
  g_free (camera);
  conf_options_clear (&o);
}

GST_END_TEST;

static GstPadProbeReturn
hold_forever (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  gint *held = data;

  g_atomic_int_set (held, 1);
  for (;;)
    g_usleep (G_USEC_PER_SEC);
  return GST_PAD_PROBE_OK;
}

typedef struct
{
  GstElement *pipeline;
  GMainLoop *loop;
} Leaving;

static gboolean
stop_waiting (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

/* As the application leaves: EOS in, and a bounded wait for it. */
static gboolean
leave_with_eos (gpointer data)
{
  Leaving *l = data;

  gst_element_send_event (l->pipeline, gst_event_new_eos ());
  g_timeout_add (200, stop_waiting, l->loop);
  return G_SOURCE_REMOVE;
}

/* A pipeline whose sink holds its streaming thread for good: the EOS never
 * arrives and going to NULL waits for that thread forever. After SIGINT the
 * guard ends the process within its bound (1 s here; the test case's
 * timeout fails it otherwise) with CONF_EXIT_STUCK. */
GST_START_TEST (test_leave_bounded)
{
  GstElement *p = gst_parse_launch ("fakesrc is-live=true sizetype=fixed "
      "sizemax=16 ! fakesink name=sink", NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  Leaving l = { p, g_main_loop_new (NULL, FALSE) };
  gint held = 0;

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, hold_forever, &held,
      NULL);
  fail_unless (conf_exit_guard_install (1, leave_with_eos, &l, NULL));
  gst_element_set_state (p, GST_STATE_PLAYING);
  while (!g_atomic_int_get (&held))
    g_usleep (10000);
  kill (getpid (), SIGINT);
  g_main_loop_run (l.loop);
  gst_element_set_state (p, GST_STATE_NULL);
  fail ("the pipeline stopped, or the guard did not end the process");
}

GST_END_TEST;

static void
count_pad (GstElement * src, GstPad * pad, gint * pads)
{
  g_atomic_int_inc (pads);
}

/* Waits up to @timeout_ms for *@count to reach @want. */
static gboolean
wait_count (gint * count, gint want, guint timeout_ms)
{
  gint64 end = g_get_monotonic_time () + timeout_ms * (gint64) 1000;

  while (g_atomic_int_get (count) < want && g_get_monotonic_time () < end)
    g_usleep (10000);
  return g_atomic_int_get (count) >= want;
}

/* Member 1 leaves while its recording's EOS is held (a sink that has not
 * had it): conf_leave_sessions stops its sessions on their own, and
 * member 2 sees it go by its BYE within 1 s (its member-timeout is 30 s),
 * while member 1's pipeline still plays; once the recording's source ends,
 * the pipeline's EOS comes without the stopped tpsssink's. */
GST_START_TEST (test_leave_says_bye_first)
{
  guint p1 = free_udp_port (), p2 = free_udp_port ();
  gchar *members = g_strdup_printf ("1@127.0.0.1:%u,2@127.0.0.1:%u", p1, p2);
  gchar *d1 = g_strdup_printf ("audiotestsrc is-live=true ! rtpL16pay ! "
      "tpsssink name=tx port=%u member-id=1 members=%s "
      "tpsssrc name=rx port=%u member-id=1 members=%s "
      "fakesrc name=rec is-live=true sizetype=fixed sizemax=16 ! fakesink",
      p1, members, p1, members);
  gchar *d2 = g_strdup_printf ("tpsssrc name=rx port=%u member-id=2 "
      "members=%s member-timeout=30000000000 ! fakesink async=false", p2,
      members);
  GstElement *leaving = gst_parse_launch (d1, NULL);
  GstElement *staying = gst_parse_launch (d2, NULL);
  GstElement *rx = gst_bin_get_by_name (GST_BIN (staying), "rx");
  GstElement *rec = gst_bin_get_by_name (GST_BIN (leaving), "rec");
  GstBus *bus = gst_element_get_bus (leaving);
  GstMessage *msg;
  gint added = 0, removed = 0;
  GstState state;

  fail_unless (leaving && staying);
  g_signal_connect (rx, "pad-added", G_CALLBACK (count_pad), &added);
  g_signal_connect (rx, "pad-removed", G_CALLBACK (count_pad), &removed);
  gst_element_set_state (staying, GST_STATE_PLAYING);
  gst_element_set_state (leaving, GST_STATE_PLAYING);
  fail_unless (wait_count (&added, 1, 5000), "member 1 never reached 2");

  fail_unless_equals_int (conf_leave_sessions (leaving), 2);
  fail_unless (wait_count (&removed, 1, 1000),
      "member 2 did not see member 1's BYE within 1 s");
  gst_element_get_state (leaving, &state, NULL, 0);
  fail_unless_equals_int (state, GST_STATE_PLAYING);
  fail_unless (gst_element_send_event (rec, gst_event_new_eos ()));
  msg = gst_bus_timed_pop_filtered (bus, 2 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS &&
      GST_MESSAGE_SRC (msg) == GST_OBJECT (leaving), "no EOS of the pipeline");
  gst_message_unref (msg);

  gst_element_set_state (leaving, GST_STATE_NULL);
  gst_element_set_state (staying, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (rec);
  gst_object_unref (rx);
  gst_object_unref (leaving);
  gst_object_unref (staying);
  g_free (d1);
  g_free (d2);
  g_free (members);
}

GST_END_TEST;

#define SLOW_CONVERT_MS 600

/* A converter as slow as gst_video_convert_sample was seen under load. */
static GstSample *
slow_convert (GstSample * sample, const GstCaps * to, GstClockTime timeout,
    GError ** error)
{
  GstBuffer *png = gst_buffer_new_memdup ("PNG!", 4);
  GstSample *out = gst_sample_new (png, (GstCaps *) to, NULL, NULL);

  g_usleep (SLOW_CONVERT_MS * 1000);
  gst_buffer_unref (png);
  return out;
}

typedef struct
{
  GMainLoop *loop;
  ConfSnapshots snapshots;
  gchar *path;
  gint ticks;
  gint64 save_took_us;
} SnapshotLoop;

static gboolean
tick (gpointer data)
{
  ((SnapshotLoop *) data)->ticks++;
  return G_SOURCE_CONTINUE;
}

static gboolean
save_now (gpointer data)
{
  SnapshotLoop *l = data;
  GstBuffer *frame = gst_buffer_new_allocate (NULL, 16, NULL);
  GstSample *sample = gst_sample_new (frame, NULL, NULL, NULL);
  gint64 t0 = g_get_monotonic_time ();

  conf_snapshot_save (&l->snapshots, sample, l->path, TRUE);
  l->save_took_us = g_get_monotonic_time () - t0;
  gst_buffer_unref (frame);
  return G_SOURCE_REMOVE;
}

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

/* A snapshot whose conversion takes 600 ms does not hold the main loop:
 * the save returns at once, a 20 ms timer keeps firing while it converts,
 * and the PNG is written by the time the saves are finished. */
GST_START_TEST (test_snapshot_off_main_loop)
{
  SnapshotLoop l = { g_main_loop_new (NULL, FALSE) };
  gchar *dir = g_dir_make_tmp ("confsnap-XXXXXX", NULL);
  gchar *written = NULL;
  gsize len = 0;
  guint timer;

  l.path = g_build_filename (dir, "participant-1.png", NULL);
  conf_snapshots_init (&l.snapshots, slow_convert);
  timer = g_timeout_add (20, tick, &l);
  g_idle_add (save_now, &l);
  g_timeout_add (SLOW_CONVERT_MS / 2, quit_loop, l.loop);
  g_main_loop_run (l.loop);
  g_source_remove (timer);

  fail_unless (l.save_took_us < 100 * 1000, "the save held the loop %"
      G_GINT64_FORMAT " ms", l.save_took_us / 1000);
  fail_unless (l.ticks >= 5, "the timer fired %d times in %d ms", l.ticks,
      SLOW_CONVERT_MS / 2);
  conf_snapshots_finish (&l.snapshots);
  fail_unless (g_file_get_contents (l.path, &written, &len, NULL));
  fail_unless (len == 4 && memcmp (written, "PNG!", 4) == 0);

  g_unlink (l.path);
  g_rmdir (dir);
  g_free (written);
  g_free (l.path);
  g_free (dir);
  g_main_loop_unref (l.loop);
}

GST_END_TEST;

/* The demuxed streams and the duration of an MP4 file. */
typedef struct
{
  gint video, audio;
} Streams;

static void
count_stream (GstElement * demux, GstPad * pad, Streams * st)
{
  gchar *name = gst_pad_get_name (pad);

  if (g_str_has_prefix (name, "video_"))
    g_atomic_int_inc (&st->video);
  else if (g_str_has_prefix (name, "audio_"))
    g_atomic_int_inc (&st->audio);
  g_free (name);
}

static GstClockTime
recording_duration (const gchar * path, Streams * st)
{
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux name=d",
      path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *demux = gst_bin_get_by_name (GST_BIN (p), "d");
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  gint64 duration = -1;

  g_signal_connect (demux, "pad-added", G_CALLBACK (count_stream), st);
  gst_element_set_state (p, GST_STATE_PAUSED);
  /* unlinked pads end the demuxer's loop with an error once it has read
   * the headers: the duration is known by then */
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_EOS);
  if (msg)
    gst_message_unref (msg);
  if (!gst_element_query_duration (demux, GST_FORMAT_TIME, &duration))
    duration = -1;
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (demux);
  gst_object_unref (p);
  g_free (desc);
  return duration < 0 ? GST_CLOCK_TIME_NONE : (GstClockTime) duration;
}

static GstPadProbeReturn
count_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc ((gint *) data);
  return GST_PAD_PROBE_OK;
}

/* Waits up to @timeout_s seconds for @n buffers out of @element_name's
 * src pad in the running pipeline @p; the count. */
static gint
wait_buffers_out (GstElement * p, const gchar * element_name, gint n,
    guint timeout_s)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), element_name);
  GstPad *pad = gst_element_get_static_pad (e, "src");
  gint64 end = g_get_monotonic_time () + timeout_s * G_USEC_PER_SEC;
  gint *count = g_new0 (gint, 1);
  gulong id = gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      count_buffer, count, g_free);
  gint got;

  while ((got = g_atomic_int_get (count)) < n &&
      g_get_monotonic_time () < end)
    g_usleep (20000);
  gst_pad_remove_probe (pad, id);
  gst_object_unref (pad);
  gst_object_unref (e);
  return got;
}

/* The application's output as in a loaded call: the picture comes out of
 * its branch slower than live (a 100 ms step per frame of a 60 fps source)
 * and 2 s of it wait in the branch's queue, before the compositor; the
 * audio is mixed live; the mixed picture's caps are fixed and the
 * recording guarded, as in the application (without them x264enc, reset by
 * the compositor's renegotiation, pushed a frame without PTS under load and
 * mp4mux failed). The leave ends the sources, as the application does, and
 * conf_leave_output: the pipeline's EOS has to come within 1 s,
 * with an MP4 that has its duration, its picture and its sound. Ended only
 * at the sources, the EOS waits for the 2 s backlog at 10 frames a second,
 * 12 s. */
GST_START_TEST (test_leave_ends_recording)
{
  gchar *dir = g_dir_make_tmp ("conf-rec-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "rec.mp4", NULL);
  gchar *desc = g_strdup_printf ("videotestsrc name=camera is-live=true "
      "! video/x-raw,width=64,height=48,framerate=60/1 "
      "! queue max-size-time=2000000000 max-size-buffers=0 max-size-bytes=0 "
      "! identity sleep-time=100000 ! mix. "
      "compositor name=mix latency=100000000 "
      "! video/x-raw,width=64,height=48,framerate=60/1 ! tee name=out "
      "out. ! queue name=" CONF_OUT_VIDEO_QUEUE " ! videoconvert "
      "! x264enc tune=zerolatency speed-preset=ultrafast "
      "! h264parse name=" CONF_RECORDING_PARSER " "
      "! mp4mux name=recmux ! filesink location=\"%s\" "
      "out. ! queue name=" CONF_SNAPSHOT_QUEUE " leaky=downstream "
      "max-size-buffers=1 ! fakesink sync=false async=false "
      "audiotestsrc name=mic is-live=true ! audiomixer latency=100000000 "
      "! audio/x-raw,rate=48000,channels=1 "
      "! queue name=" CONF_OUT_AUDIO_QUEUE " ! audioconvert ! opusenc "
      "! recmux.", path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (p);
  const gchar *sources[] = { "camera", "mic" };
  Streams st = { 0, 0 };
  GstClockTime duration;
  GstMessage *msg;
  gint64 left;

  fail_unless (p != NULL);
  conf_guard_recording (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 2500 * GST_MSECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg == NULL, "the pipeline ended before the leave");
  /* the backlog is there; the leave comes once the recording has a picture
   * (under ASan on a loaded machine the first came after the 2.5 s, and
   * the MP4 then had no video track) */
  fail_unless (wait_buffers_out (p, CONF_RECORDING_PARSER, 1, 30) >= 1,
      "no encoded picture reached the recording in 30 s");

  left = g_get_monotonic_time ();
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (p), sources[i]);

    gst_element_send_event (e, gst_event_new_eos ());
    gst_object_unref (e);
  }
  fail_unless_equals_int (conf_leave_output (p), 3);
  msg = gst_bus_timed_pop_filtered (bus, GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "no EOS within 1 s of the leave");
  GST_INFO ("EOS %" G_GINT64_FORMAT " ms after the leave",
      (g_get_monotonic_time () - left) / 1000);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);

  duration = recording_duration (path, &st);
  fail_unless (GST_CLOCK_TIME_IS_VALID (duration) && duration > GST_SECOND,
      "the recording has no duration (not finalised)");
  fail_unless_equals_int (st.video, 1);
  fail_unless_equals_int (st.audio, 1);

  g_unlink (path);
  g_rmdir (dir);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

typedef struct
{
  GstElement *pipeline;
  GMutex lock;
  guint frames;
  gint64 ahead;                 /* the most a frame's PTS was ahead of the
                                 * running time it went out at (ns) */
} MixerOut;

static GstPadProbeReturn
mixer_out_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  MixerOut *out = data;
  GstClockTime pts = GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (info));
  GstClock *clock = gst_element_get_clock (out->pipeline);
  gint64 now;

  if (!clock || !GST_CLOCK_TIME_IS_VALID (pts)) {
    g_clear_object (&clock);
    return GST_PAD_PROBE_OK;
  }
  now = (gint64) gst_clock_get_time (clock) -
      (gint64) gst_element_get_base_time (out->pipeline);
  gst_object_unref (clock);
  g_mutex_lock (&out->lock);
  out->frames++;
  out->ahead = MAX (out->ahead, (gint64) pts - now);
  g_mutex_unlock (&out->lock);
  return GST_PAD_PROBE_OK;
}

/* While the start is held, a new input of the compositor gets its first
 * events (as a joiner's tiles do when its members' streams come in), and
 * they wake the compositor. */
static gpointer
add_input_while_held (gpointer data)
{
  GstElement *mix = data;
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  GstPad *pad;
  GstSegment seg;

  while (!g_atomic_int_get (&slow_start_holding) &&
      g_get_monotonic_time () < end)
    g_usleep (1000);
  g_usleep (100 * 1000);
  pad = gst_element_request_pad_simple (mix, "sink_%u");
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_send_event (pad, gst_event_new_stream_start ("tile"));
  gst_pad_send_event (pad, gst_event_new_caps (gst_caps_from_string
          ("video/x-raw,format=I420,width=32,height=24,framerate=15/1")));
  gst_pad_send_event (pad, gst_event_new_segment (&seg));
  gst_object_unref (pad);
  return NULL;
}

/* The frames test_mixer_waits_for_base_time waits for (a third of a second
 * at 15 fps) with the base time set first; without, it waits until one
 * went more than this far ahead. Each wait: 10 s at most, a guard. */
#define MIXER_FRAMES 5
#define MIXER_RACED GST_SECOND

/* Whether @out shows what mixer_after_held_start waits for. */
static gboolean
mixer_out_done (MixerOut * out, gboolean base_time_first)
{
  gboolean done;

  g_mutex_lock (&out->lock);
  done = base_time_first ? out->frames >= MIXER_FRAMES :
      out->ahead > (gint64) MIXER_RACED;
  g_mutex_unlock (&out->lock);
  return done;
}

/* A live compositor (15 fps) in a pipeline whose start an element holds
 * 1 s, started with conf_pipeline_play or, without, set PLAYING at once:
 * the frames it put out once it showed what the test checks (counted, not
 * timed: a loaded host makes fewer frames in a given time) and how far
 * ahead of the running time the furthest went out. */
static void
mixer_after_held_start (gboolean base_time_first, guint * frames,
    gint64 * ahead)
{
  GstElement *p = gst_parse_launch ("videotestsrc is-live=true "
      "! video/x-raw,width=32,height=24,framerate=15/1 "
      "! compositor name=mix ! queue leaky=downstream max-size-buffers=2 "
      "! fakesink sync=false async=false", NULL);
  GstElement *mix = gst_bin_get_by_name (GST_BIN (p), "mix");
  GstPad *src = gst_element_get_static_pad (mix, "src");
  MixerOut out = { p };
  GThread *thread;
  gint64 end;

  g_mutex_init (&out.lock);
  out.ahead = G_MININT64;
  gst_bin_add (GST_BIN (p), slow_start_new (1000));
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, mixer_out_probe, &out,
      NULL);
  thread = g_thread_new ("input", add_input_while_held, mix);
  fail_if ((base_time_first ? conf_pipeline_play (p) :
          gst_element_set_state (p, GST_STATE_PLAYING)) ==
      GST_STATE_CHANGE_FAILURE);
  g_thread_join (thread);
  end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (!mixer_out_done (&out, base_time_first) &&
      g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  g_mutex_lock (&out.lock);
  *frames = out.frames;
  *ahead = out.ahead;
  g_mutex_unlock (&out.lock);
  gst_element_set_state (p, GST_STATE_NULL);
  g_mutex_clear (&out.lock);
  gst_object_unref (src);
  gst_object_unref (mix);
  gst_object_unref (p);
}

/* With the base time set before the start, the compositor keeps to the
 * clock: about 15 frames a second, none ahead of the running time by
 * more than its latency. Without, it raced ahead while the start was
 * held (the test can fail). */
GST_START_TEST (test_mixer_waits_for_base_time)
{
  guint frames;
  gint64 ahead;

  mixer_after_held_start (TRUE, &frames, &ahead);
  GST_INFO ("base time first: %u frames, the furthest %" G_GINT64_FORMAT
      " ms ahead", frames, ahead / GST_MSECOND);
  fail_unless (frames >= MIXER_FRAMES, "%u frames in 10 s", frames);
  fail_unless (ahead < 200 * GST_MSECOND, "a frame %" G_GINT64_FORMAT
      " ms ahead", ahead / GST_MSECOND);
  mixer_after_held_start (FALSE, &frames, &ahead);
  GST_INFO ("set PLAYING at once: %u frames, the furthest %" G_GINT64_FORMAT
      " ms ahead", frames, ahead / GST_MSECOND);
  fail_unless (ahead > (gint64) MIXER_RACED, "a frame %" G_GINT64_FORMAT
      " ms ahead", ahead / GST_MSECOND);
}

GST_END_TEST;

static gboolean
plugin_of_loaded (const gchar * factory)
{
  GstPluginFeature *f = gst_registry_lookup_feature (gst_registry_get (),
      factory);
  GstPlugin *plugin = gst_plugin_feature_get_plugin (f);
  gboolean loaded = gst_plugin_is_loaded (plugin);

  gst_object_unref (plugin);
  gst_object_unref (f);
  return loaded;
}

/* This test alone, in a new process of this program: when the registry
 * was scanned in this one (GST_REGISTRY_FORK=no, on its first run) every
 * plugin is loaded already; the new process finds the registry cached. */
static gboolean
preload_test_in_new_process (void)
{
  const gchar *argv[] = { "/proc/self/exe", NULL };
  gchar **envp = g_environ_setenv (g_get_environ (), "GST_CHECKS",
      "test_plugins_preloaded", TRUE);
  gint status = -1;
  GError *err = NULL;

  envp = g_environ_setenv (envp, "CONF_TEST_PRELOAD_CHILD", "1", TRUE);
  fail_unless (g_spawn_sync (NULL, (gchar **) argv, envp,
          G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL, NULL, NULL, &status,
          &err), "%s", err ? err->message : "");
  g_strfreev (envp);
  return g_spawn_check_wait_status (status, NULL);
}

/* --preload-decoders: the tiles' decoder's plugin is loaded at once, not
 * by the first member's branch (its loader held up the camera's compositor
 * at a joiner). A missing element is named before the start either way. */
GST_START_TEST (test_plugins_preloaded)
{
  const gchar *const tile[] = { "queue", "avdec_h264", NULL };
  const gchar *const missing[] = { "queue", "no-such-decoder", NULL };
  GstElementFactory *f = gst_element_factory_find ("avdec_h264");
  GError *err = NULL;

  if (!f) {
    GST_WARNING ("avdec_h264 (gst-libav) is not installed: skipped");
    return;
  }
  gst_object_unref (f);
  if (plugin_of_loaded ("avdec_h264")) {
    fail_if (g_getenv ("CONF_TEST_PRELOAD_CHILD"),
        "gst-libav loaded before the test in a process of its own");
    fail_unless (preload_test_in_new_process ());
    return;
  }
  fail_unless (conf_plugins_find (tile, &err), "%s", err ? err->message : "");
  fail_if (plugin_of_loaded ("avdec_h264"), "found is not loaded");
  fail_if (conf_plugins_find (missing, &err));
  fail_unless (err && strstr (err->message, "no-such-decoder"));
  g_clear_error (&err);
  fail_unless (conf_plugins_preload (tile, &err), "%s",
      err ? err->message : "");
  fail_unless (plugin_of_loaded ("avdec_h264"));
  fail_if (conf_plugins_preload (missing, &err));
  fail_unless (err && strstr (err->message, "no-such-decoder"));
  g_clear_error (&err);
}

GST_END_TEST;

static Suite *
conference_suite (void)
{
  Suite *s = suite_create ("app-conference");
  TCase *tc = tcase_create ("general");
  TCase *leave = tcase_create ("leave");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_options_defaults);
  tcase_add_test (tc, test_options_refused);
  tcase_add_test (tc, test_colour_and_tone);
  tcase_add_test (tc, test_grid_size);
  tcase_add_test (tc, test_tiles_join_and_leave);
  tcase_add_test (tc, test_audio_members);
  tcase_add_test (tc, test_video_uplink_leaves_room_for_voices);
  tcase_add_test (tc, test_stats_json_line);
  tcase_add_test (tc, test_stale_frames_left_out);
  tcase_add_test (tc, test_allocation_answered_at_tee);
  tcase_add_test (tc, test_camera_path_in_i420);
  tcase_add_test (tc, test_mixer_waits_for_base_time);
  tcase_add_test (tc, test_plugins_preloaded);
  tcase_add_test (tc, test_leave_says_bye_first);
  tcase_add_test (tc, test_snapshot_off_main_loop);
  tcase_add_test (tc, test_leave_ends_recording);
  suite_add_tcase (s, leave);
  tcase_set_timeout (leave, 5);
  tcase_add_exit_test (leave, test_leave_bounded, CONF_EXIT_STUCK);
  return s;
}

GST_CHECK_MAIN (conference);
