/* gst/common/core: what every protocol core shares (GLib only; the cores,
 * tests, fuzzers and benchmarks link it, never GStreamer).
 *
 *   wire.h         big-endian access and the bounds-checked WireReader and
 *                  WireWriter
 *   rtp.h          RTP header (RFC 3550 5.1), CSRCs, padding, RFC 8285
 *                  one-byte and two-byte header extensions
 *   rtpseq.h       extended sequence numbers, RFC 3550 A.1 source
 *                  validation, A.3 loss accounting, A.8 jitter
 *   rtcp.h         compound walk (RFC 3550 6.1, A.2), SR/RR (6.4), SDES
 *                  CNAME (6.5), APP (6.7), RFC 4585 generic NACK and PLI,
 *                  key-unit hold-off
 *   ntp.h          NTP timestamps, LSR/DLSR round trip (RFC 3550 6.4.1)
 *   pacer.h        token-bucket pacer, sliding-window rate meter
 *   senderqueue.h  byte-bounded RTP queue, ADU drop, renumbering
 *   random.h       the injected random source
 *   rfc4571.h      RFC 4571 framing of packets over a byte stream
 *   tcpinfo.h      a TCP_INFO sample as a shell reads it and a core takes it
 *   polled.h       the queue of records a core keeps for its caller to poll
 *   auth.h         group key, sealed and opened control packets, replay
 *                  window
 *
 * The convention every core follows (as quinn-proto and str0m do):
 *
 * Time. A core has no clock. Every call that can change its state takes
 * `gint64 now` (ns, monotonic, any epoch the caller chooses, never going
 * back). `*_next_deadline()` / `next_timeout` returns the earliest time at
 * which the core wants `*_advance (core, now)` called even if nothing
 * arrives, or -1 for none; calling earlier is harmless, later only delays.
 *
 * Input. Received bytes are lent for the duration of the call: `*_on_rtp`,
 * `*_on_rtcp` parse them with the bounds-checked readers here and copy what
 * they keep. Malformed input is counted and refused, never trusted.
 *
 * Output. A core never sends: it queues what it wants sent and the caller
 * polls it (`*_pop_rtcp`, `*_pop_msg`, `*_pop_rtp`), writing into a buffer
 * the caller owns or handing over an object the caller then owns, until the
 * poll returns nothing. A packet the caller handed in for queueing (a
 * gpointer with a GDestroyNotify) belongs to the core until it is popped;
 * what the core drops it releases itself.
 *
 * Events. Changes the application must hear of (rate changed, key unit
 * wanted, member joined) are queued and polled with `*_pop_event` after
 * each call, in the order they happened. No callbacks run inside a core,
 * so a shell may hold whatever lock it likes around a call and dispatch the
 * results after releasing it.
 *
 * Randomness. A core draws only from the RandomSource it was given. */
#ifndef __CORE_CORE_H__
#define __CORE_CORE_H__

#include "core/wire.h"
#include "core/rtp.h"
#include "core/rtpseq.h"
#include "core/rtcp.h"
#include "core/ntp.h"
#include "core/pacer.h"
#include "core/senderqueue.h"
#include "core/random.h"
#include "core/rfc4571.h"
#include "core/tcpinfo.h"
#include "core/polled.h"
#include "core/auth.h"

#endif /* __CORE_CORE_H__ */
