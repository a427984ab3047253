#!/usr/bin/env python3
"""RLM (issue 18): the video decodes at every level. One sender (the stream
of test_rlm_single.py: 4 layers, cumulative 250, 500, 1000, 2000 kbit/s,
30 frames/s, layer 0 every 8th frame) and four receivers on one snooping
bridge, each behind its own tbf so that its best level is 1, 2, 3 or 4.
Each runs rlmsrc ! rtph264depay ! avdec_h264 thread-type=frame with the
paper's defaults (with the slice threads avdec_h264 picks in a live
pipeline, levels 1 and 2 lose nearly every picture: docs/protocols/rlm.md).
Passes when each receiver converges to its level, and while it is steady
there the decoder reports no error and gives out that level's frame rate
(3.75, 7.5, 15, 30 frames/s): no more, so the layers above were not
played, and no less, so every layer below was."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_rlm_single as rlm  # noqa: E402

SECONDS = 60
# Receiver: (tbf rate in bit/s, best level). 375 kbit/s carries layer 0
# (250 kbit/s) with room for its key frames, not level 2's 500 kbit/s.
RECEIVERS = {"l1": (375_000, 1), "l2": (750_000, 2),
             "l3": (rlm.B, 3), "l4": (4_000_000, 4)}
SOURCE_FPS = 30.0
# Seconds steady at the level that must be decoded, at least.
MIN_STEADY = 15.0


def level_fps(level):
    """Frame rate of levels 1..LAYERS: layer k adds the frames of its
    position in x264layerenc's dyadic period of 2^(LAYERS-1) frames."""
    return SOURCE_FPS / 2 ** (rlm.LAYERS - level)


def check_receiver(check, name, rx, best, t0, t_end):
    lv = rlm.levels(rx)
    print(f"{name} levels:", [(round(t - t0, 1), lvl, why) for t, lvl, why in lv])
    conv = rlm.convergence(lv, best, t0)
    check(f"{name} converged to level {best} and kept it", conv is not None,
          f"convergence time {conv and round(conv, 1)} s")
    windows = rlm.steady_windows(lv, best, t_end)
    steady = sum(b - a for a, b in windows)
    errs = rlm.decoder_errors(rx, windows)
    check(f"{name}: no decoder error while steady at level {best}",
          steady >= MIN_STEADY and not errs,
          f"{steady:.0f} s steady, {len(errs)} errors {errs[:2]}")
    fps, want = rlm.decoded_fps(rx, windows), level_fps(best)
    check(f"{name}: the decoder gives out level {best}'s frame rate",
          0.9 * want <= fps <= 1.1 * want,
          f"{fps:.2f} frames/s ({want} expected)")
    return f"{name}_fps={fps:.2f}"


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    with netbed.NetBed() as bed:
        rxs, t0, t_end = rlm.run_behind_ports(
            bed, check, {n: rate for n, (rate, _) in RECEIVERS.items()}, "l1",
            SECONDS)
        results = [check_receiver(check, name, rxs[name], best, t0, t_end)
                   for name, (_, best) in RECEIVERS.items()]
        print("RESULT decode_levels " + " ".join(results))
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
