#!/usr/bin/env python3
"""The joiner's first seconds in a scripts/conference.py run made with
GST_DEBUG=tpsssrc:6: per video packet at the joiner, its lag (its delay at the
joiner's tpsssrc less the least delay of the same sender's audio over the
window, so the clocks' offset cancels), and per sender the parity and media
packets it sent toward the joiner over the window (from stats-<id>.json;
parity that never left, parity_dropped, is not counted).

  python3 scripts/conference_joinlag.py OUT_DIR [--joiner=4] [--window=5]

Prints one line per call: median, p95 and max lag (ms), packets over 500 ms
and 1 s, and parity per 100 media for each sender.
"""
import argparse
import json
import os
import re
import statistics
import sys

COLOUR = re.compile(r"\x1b\[[0-9;]*m")
LINE = re.compile(r"^(\d+):(\d+):([\d.]+) .*sync_pts:<(a?rx)> member (\d+): "
                  r"delay (-?\d+) us")
JUMP_US = 10_000_000   # a stream's delay moving this much between packets is no queue


def sync_delays(log, window):
    """(stream, sender, delay in us) of each sync_pts line in the log's first window s.
    Warns on stderr when a stream's delay jumps by more than JUMP_US: the receiver's
    time reference changed (before the fix in tpsssrc, a buffer that came before the
    element was PLAYING was stamped on the clock less a base time of 0, the host's
    uptime), and the lag figures of that call are not valid."""
    last = {}
    with open(log, errors="replace") as f:
        for line in f:
            m = LINE.match(COLOUR.sub("", line))
            if not m:
                continue
            if int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3]) > window:
                continue
            key, delay = (m[4], int(m[5])), int(m[6])
            if key in last and abs(delay - last[key]) > JUMP_US:
                print(f"warning: {log}: {key[0]} p{key[1]}'s delay jumps by "
                      f"{(delay - last[key]) / 1e6:.1f} s at {m[1]}:{m[2]}:{m[3]}",
                      file=sys.stderr)
            last[key] = delay
            yield key[0], key[1], delay


def lags(log, window):
    video, audio = [], {}
    for stream, member, delay in sync_delays(log, window):
        if stream == "arx":
            audio[member] = min(audio.get(member, delay), delay)
        else:
            video.append((member, delay))
    return [(d - audio[s]) / 1000.0 for s, d in video if s in audio]


def parity_share(out_dir, joiner, window):
    times = json.load(open(os.path.join(out_dir, "times.json")))
    join = times["starts"][str(joiner)]
    shares = {}
    for sender, start in times["starts"].items():
        if int(sender) == joiner:
            continue
        recs = []
        for line in open(os.path.join(out_dir, f"stats-{sender}.json")):
            r = json.loads(line)
            for m in r["members"]:
                if m["id"] == joiner:
                    recs.append((r["t"] + start, m["packets_sent"],
                                 m["parity_sent"] - m.get("parity_dropped", 0)))
        before = [r for r in recs if r[0] <= join]
        after = [r for r in recs if r[0] >= join + window]
        if not before or not after:
            continue
        span = recs[recs.index(before[-1]):recs.index(after[0]) + 1]
        # the core's media counter starts again when the member is added anew
        media = sum(c[1] - p[1] if c[1] >= p[1] else c[1]
                    for p, c in zip(span, span[1:]))
        shares[int(sender)] = 100.0 * (span[-1][2] - span[0][2]) / max(media, 1)
    return shares


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--joiner", type=int, default=4)
    ap.add_argument("--window", type=float, default=5.0)
    a = ap.parse_args()
    v = sorted(lags(os.path.join(a.out_dir, f"participant-{a.joiner}.log"), a.window))
    if not v:
        print("no video packets")
        return
    p95 = v[min(len(v) - 1, int(0.95 * len(v)))]
    shares = parity_share(a.out_dir, a.joiner, a.window)
    print(f"lag ms: median {statistics.median(v):.0f} p95 {p95:.0f} max {v[-1]:.0f} "
          f"n {len(v)} over500 {sum(x > 500 for x in v)} over1s {sum(x > 1000 for x in v)}; "
          "parity/100 media: " + " ".join(f"p{s} {x:.0f}" for s, x in sorted(shares.items())))


if __name__ == "__main__":
    main()
