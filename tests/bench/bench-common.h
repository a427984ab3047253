/* Shared harness of the FEC benchmarks: own GstPads linked straight to the
 * element under test (no GstHarness, no queues), pre-built RTP packets, and
 * the two schemes side by side:
 *
 *   ours:   tpssfecenc (packet-distance=k, subsegment-length=l) / tpssfecdec
 *   theirs: rtpst2022-1-fecenc (columns=k, rows=l, row FEC off) /
 *           rtpst2022-1-fecdec
 *
 * rtpst2022-1-fecenc refuses media whose SSRC is not 0 and non-consecutive
 * sequence numbers, and its decoder rebuilds packets with SSRC 0, so every
 * media stream here has SSRC 0 (ours accepts any SSRC).
 */
#ifndef __BENCH_COMMON_H__
#define __BENCH_COMMON_H__

#include <gst/gst.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <string.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
/* Timed loops toggle callgrind's collection, so that
 * `valgrind --tool=callgrind --collect-atstart=no` profiles only them. */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT
#endif

#define BENCH_MEDIA_PT 96
#define BENCH_FEC_PT 100
#define BENCH_TS0 1000u
#define BENCH_TS_STEP 90u
/* Simulated packet clock: one media packet every 100 us (10 kpps). It stamps
 * PTS (what rtpst2022-1-fecdec trims its store by) and drives the
 * GstTestClock given to tpssfecdec (what it times its store and hold by). */
#define BENCH_PKT_INTERVAL (100 * GST_USECOND)
#define BENCH_SIZE_TIME (200 * GST_MSECOND)

#define BENCH_MEDIA_CAPS "application/x-rtp, media=(string)video, " \
    "clock-rate=(int)90000, encoding-name=(string)H264, payload=(int)96, " \
    "ssrc=(uint)0"
#define BENCH_FEC_CAPS "application/x-rtp, media=(string)application, " \
    "clock-rate=(int)90000, payload=(int)100"

typedef enum
{
  SCHEME_OURS = 0,
  SCHEME_THEIRS = 1,
} Scheme;

static const gchar *const scheme_name[] = { "ours", "theirs" };

#define bench_die(...) G_STMT_START {                                   \
    g_printerr ("bench: " __VA_ARGS__);                                 \
    g_printerr ("\n");                                                  \
    exit (1);                                                           \
  } G_STMT_END

/* glibc returns freed memory at the top of the heap to the kernel past
 * M_TRIM_THRESHOLD and takes it back, zeroed, on the next allocation: then a
 * per-packet malloc/free of a few kB costs page faults or not depending on
 * where the harness's own packets happen to lie. Keep the heap. */
static inline void
bench_pin_allocator (void)
{
#ifdef __GLIBC__
  mallopt (M_TRIM_THRESHOLD, 1 << 30);
  mallopt (M_TOP_PAD, 64 << 20);
  mallopt (M_MMAP_THRESHOLD, 4 << 20);
#endif
}

static inline gint64
bench_now_ns (void)
{
  return g_get_monotonic_time () * 1000;        /* us resolution is plenty */
}

static inline int
bench_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static inline double
bench_median (double *v, guint n)
{
  double tmp[64];

  g_assert (n > 0 && n <= G_N_ELEMENTS (tmp));
  memcpy (tmp, v, n * sizeof (double));
  qsort (tmp, n, sizeof (double), bench_cmp_double);
  return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* Media packet @index of a stream: consecutive sequence numbers from 0, SSRC
 * 0, a timestamp unique per index (so an output packet can be traced back to
 * its index past the sequence-number wrap), seeded random payload, PTS on
 * the simulated packet clock (one packet every @interval). */
static inline GstBuffer *
bench_make_media (guint index, gsize payload_len, GstClockTime interval,
    GRand * rand)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (payload_len, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint8 *p;
  gsize i;

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, BENCH_MEDIA_PT);
  gst_rtp_buffer_set_seq (&rtp, (guint16) index);
  gst_rtp_buffer_set_timestamp (&rtp, BENCH_TS0 + index * BENCH_TS_STEP);
  gst_rtp_buffer_set_marker (&rtp, index % 7 == 0);
  gst_rtp_buffer_set_ssrc (&rtp, 0);
  p = gst_rtp_buffer_get_payload (&rtp);
  for (i = 0; i + 4 <= payload_len; i += 4) {
    guint32 r = g_rand_int (rand);
    memcpy (p + i, &r, 4);
  }
  for (; i < payload_len; i++)
    p[i] = (guint8) g_rand_int (rand);
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = index * interval;
  return buf;
}

/* The same packet in one memory, as udpsrc hands it to a receiver.
 * (gst_rtp_buffer_new_allocate, like most payloaders, gives a header memory
 * and a payload memory.) */
static inline GstBuffer *
bench_flatten (GstBuffer * buf)
{
  GstBuffer *flat;
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  flat = gst_buffer_new_memdup (map.data, map.size);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (flat) = GST_BUFFER_PTS (buf);
  GST_BUFFER_DTS (flat) = GST_BUFFER_DTS (buf);
  return flat;
}

/* ------------------------------------------------------------------ */
/* Elements */

static inline GstElement *
bench_make_element (const gchar * factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);

  if (!e)
    bench_die ("element %s not found (GST_PLUGIN_PATH must include the "
        "build's gst/tpss directory; `meson test -C build --benchmark` sets "
        "it)", factory);
  return gst_object_ref_sink (e);
}

static inline GstElement *
bench_make_encoder (Scheme s, guint k, guint l)
{
  GstElement *e;

  if (s == SCHEME_OURS) {
    e = bench_make_element ("tpssfecenc");
    g_object_set (e, "packet-distance", k, "subsegment-length", l,
        "pt", BENCH_FEC_PT, "ssrc", 0x5eed, NULL);
  } else {
    e = bench_make_element ("rtpst2022-1-fecenc");
    g_object_set (e, "columns", k, "rows", l, "enable-row-fec", FALSE,
        "enable-column-fec", TRUE, "pt", BENCH_FEC_PT, NULL);
  }
  return e;
}

static inline GstElement *
bench_make_decoder (Scheme s)
{
  GstElement *e;

  if (s == SCHEME_OURS) {
    e = bench_make_element ("tpssfecdec");
    g_object_set (e, "size-time", (guint64) BENCH_SIZE_TIME, NULL);
  } else {
    e = bench_make_element ("rtpst2022-1-fecdec");
    g_object_set (e, "size-time", (guint64) BENCH_SIZE_TIME, NULL);
  }
  return e;
}

/* ------------------------------------------------------------------ */
/* Pads */

static inline gboolean
bench_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    g_object_set_data (G_OBJECT (pad), "bench-eos", GINT_TO_POINTER (1));
  gst_event_unref (event);
  return TRUE;
}

/* Waits until EOS has come out on @sinkpad (made by bench_sink_pad_new):
 * tpssfecdec pushes from a thread of its own. */
static inline void
bench_wait_eos (GstPad * sinkpad)
{
  gint64 give_up = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;

  while (!g_object_get_data (G_OBJECT (sinkpad), "bench-eos")) {
    if (g_get_monotonic_time () > give_up)
      bench_die ("no EOS after 60 s");
    g_usleep (100);
  }
}

/* A sink pad of ours, linked after @peer_src; @chain gets @data through
 * gst_pad_get_element_private(). */
static inline GstPad *
bench_sink_pad_new (GstPad * peer_src, GstPadChainFunction chain,
    gpointer data)
{
  GstPad *pad = gst_pad_new ("benchsink", GST_PAD_SINK);

  gst_pad_set_chain_function (pad, chain);
  gst_pad_set_event_function (pad, bench_sink_event);
  gst_pad_set_element_private (pad, data);
  gst_pad_set_active (pad, TRUE);
  if (gst_pad_link (peer_src, pad) != GST_PAD_LINK_OK)
    bench_die ("cannot link %s:%s", GST_DEBUG_PAD_NAME (peer_src));
  return pad;
}

/* A source pad of ours, linked to @peer_sink, with stream-start, @caps and a
 * TIME segment already pushed. */
static inline GstPad *
bench_src_pad_new (GstPad * peer_sink, const gchar * caps_str,
    const gchar * stream_id)
{
  GstPad *pad = gst_pad_new ("benchsrc", GST_PAD_SRC);
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstSegment seg;

  gst_pad_set_active (pad, TRUE);
  if (gst_pad_link (pad, peer_sink) != GST_PAD_LINK_OK)
    bench_die ("cannot link to %s:%s", GST_DEBUG_PAD_NAME (peer_sink));
  gst_pad_push_event (pad, gst_event_new_stream_start (stream_id));
  gst_pad_push_event (pad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_push_event (pad, gst_event_new_segment (&seg));
  return pad;
}

static inline void
bench_pad_free (GstPad * pad)
{
  GstPad *peer = gst_pad_get_peer (pad);

  if (peer) {
    if (GST_PAD_IS_SRC (pad))
      gst_pad_unlink (pad, peer);
    else
      gst_pad_unlink (peer, pad);
    gst_object_unref (peer);
  }
  gst_pad_set_active (pad, FALSE);
  gst_object_unref (pad);
}

static inline GstPad *
bench_static_pad (GstElement * e, const gchar * name)
{
  GstPad *pad = gst_element_get_static_pad (e, name);

  if (!pad)
    bench_die ("%s has no pad %s", GST_OBJECT_NAME (e), name);
  return pad;
}

/* The decoder's parity input: a request pad fec_0 on both decoders. */
static inline GstPad *
bench_request_fec_pad (GstElement * dec)
{
  GstPad *pad = gst_element_request_pad_simple (dec, "fec_0");

  if (!pad)
    bench_die ("%s gave no fec_0 request pad", GST_OBJECT_NAME (dec));
  return pad;
}

static inline void
bench_set_state (GstElement * e, GstState state)
{
  if (gst_element_set_state (e, state) == GST_STATE_CHANGE_FAILURE)
    bench_die ("%s refused state %s", GST_OBJECT_NAME (e),
        gst_element_state_get_name (state));
}

/* ------------------------------------------------------------------ */
/* Capturing an encoder's output in wire order */

typedef enum
{
  WIRE_MEDIA = 0,
  WIRE_FEC = 1,
} WireKind;

typedef struct
{
  GstBuffer *buf;
  guint8 kind;
  guint32 index;                /* media index, or parity emission index */
} WireItem;

typedef struct
{
  GArray *items;                /* WireItem, in the order the encoder pushed */
  guint n_media, n_fec;
  GstClockTime cur_pts;         /* PTS of the media packet being encoded */
} Wire;

static inline void
wire_init (Wire * w)
{
  memset (w, 0, sizeof (*w));
  w->items = g_array_new (FALSE, FALSE, sizeof (WireItem));
}

static inline void
wire_clear (Wire * w)
{
  for (guint i = 0; w->items && i < w->items->len; i++)
    gst_buffer_unref (g_array_index (w->items, WireItem, i).buf);
  if (w->items)
    g_array_unref (w->items);
  memset (w, 0, sizeof (*w));
}

static inline GstFlowReturn
wire_media_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  Wire *w = gst_pad_get_element_private (pad);
  WireItem it = { buf, WIRE_MEDIA, w->n_media++ };

  g_array_append_val (w->items, it);
  return GST_FLOW_OK;
}

static inline GstFlowReturn
wire_fec_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  Wire *w = gst_pad_get_element_private (pad);
  WireItem it = { buf, WIRE_FEC, w->n_fec++ };

  /* rtpst2022-1-fecenc leaves its FEC packets unstamped; a receiver would
   * stamp them on arrival, i.e. with the time of the media packet whose
   * chain call pushed them. */
  if (!GST_BUFFER_PTS_IS_VALID (buf)) {
    buf = gst_buffer_make_writable (buf);
    GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = w->cur_pts;
    it.buf = buf;
  }
  g_array_append_val (w->items, it);
  return GST_FLOW_OK;
}

/* Runs @media[0..n) through a fresh encoder of scheme @s, geometry k x l,
 * and captures media and parity in the order the encoder pushed them. */
static inline void
bench_encode (Scheme s, guint k, guint l, GstBuffer ** media, guint n,
    Wire * w)
{
  GstElement *enc = bench_make_encoder (s, k, l);
  GstPad *esink, *esrc, *efec, *src, *msink, *fsink;

  wire_init (w);
  bench_set_state (enc, GST_STATE_PAUSED);
  esink = bench_static_pad (enc, "sink");
  esrc = bench_static_pad (enc, "src");
  efec = bench_static_pad (enc, "fec_0");
  msink = bench_sink_pad_new (esrc, wire_media_chain, w);
  fsink = bench_sink_pad_new (efec, wire_fec_chain, w);
  src = bench_src_pad_new (esink, BENCH_MEDIA_CAPS, "bench-media");

  for (guint i = 0; i < n; i++) {
    GstFlowReturn ret;
    w->cur_pts = GST_BUFFER_PTS (media[i]);
    ret = gst_pad_push (src, gst_buffer_ref (media[i]));
    if (ret != GST_FLOW_OK)
      bench_die ("%s encoder refused packet %u: %s", scheme_name[s], i,
          gst_flow_get_name (ret));
  }
  if (w->n_media != n)
    bench_die ("%s encoder passed %u of %u media packets", scheme_name[s],
        w->n_media, n);

  bench_pad_free (src);
  bench_set_state (enc, GST_STATE_NULL);
  bench_pad_free (msink);
  bench_pad_free (fsink);
  gst_object_unref (esink);
  gst_object_unref (esrc);
  gst_object_unref (efec);
  gst_object_unref (enc);
}

#endif /* __BENCH_COMMON_H__ */
