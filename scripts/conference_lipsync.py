#!/usr/bin/env python3
"""Where a conference's audio went unheld: per second and sender->receiver pair of a
joiner, the audio buffers lip sync stamped on their own delay because the video lagged
more than tpsssrc's `max-hold` (`audio_over_max_hold`, new in that second), the lag itself
(`av_lag_ms`: the video's least delay less the audio's), the sender's paced queue toward
the receiver (`send_queue_ms`) and the seconds since the join. Totals split at --startup
seconds after the join: startup (the joiner's first key unit and first sender reports)
against steady state.

  python3 scripts/conference_lipsync.py OUT_DIR [OUT_DIR ...] [--joiner=4] [--startup=6]

OUT_DIR is a `scripts/conference.py` output directory (its stats-<id>.json, times.json and
participant-<id>.log).
"""
import argparse
import json
import os
import re

LAG_SHOWN_MS = 700      # seconds with a lag above this are listed even with no audio unheld


def load(out_dir):
    with open(os.path.join(out_dir, "times.json")) as f:
        starts = {int(p): t for p, t in json.load(f)["starts"].items()}
    stats = {}
    for pid in starts:
        with open(os.path.join(out_dir, f"stats-{pid}.json")) as f:
            stats[pid] = [json.loads(line) for line in f if line.strip()]
    return starts, stats


def member(rec, mid):
    return next((m for m in rec["members"] if m["id"] == mid), None)


def queue_toward(stats, starts, sender, dest, at):
    """The sender's queue toward dest in its report nearest call time `at` (ms), or None."""
    best, dist = None, 0.6
    for rec in stats.get(sender, []):
        m = member(rec, dest)
        if m and abs(starts[sender] + rec["t"] - at) <= dist:
            best, dist = m["send_queue_ms"], abs(starts[sender] + rec["t"] - at)
    return best


def first_pictures(out_dir, pid, start):
    """member -> call time of its first picture at pid."""
    path = os.path.join(out_dir, f"participant-{pid}.log")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        found = re.findall(r"t=\s*([\d.]+) s\s+member (\d+): first picture", f.read())
    return {int(m): start + float(t) for t, m in found}


def pair_rows(out_dir, starts, stats, sender, receiver, joiner, startup):
    """The rows of one pair and its unheld audio as {"startup": n, "steady": n}."""
    rows, totals, prev = [], {"startup": 0, "steady": 0}, 0
    for rec in stats[receiver]:
        m = member(rec, sender)
        if not m:
            continue
        at = starts[receiver] + rec["t"]
        new = max(m["audio_over_max_hold"] - prev, 0)
        prev = m["audio_over_max_hold"]
        since = at - starts[joiner]
        totals["startup" if since < startup else "steady"] += new
        if new or m["av_lag_ms"] > LAG_SHOWN_MS:
            q = queue_toward(stats, starts, sender, receiver, at)
            rows.append(f"  p{sender}->p{receiver}  t={at:5.1f}  +{since:4.1f} s  "
                        f"unheld {new:3d}  lag {m['av_lag_ms']:5.0f} ms  "
                        f"queue {'?' if q is None else round(q):>5} ms")
    return rows, totals


def report(out_dir, joiner, startup):
    starts, stats = load(out_dir)
    totals = {"startup": 0, "steady": 0}
    print(f"{out_dir}: p{joiner} joined at {starts[joiner]:.1f} s")
    for receiver in sorted(stats):
        pictures = first_pictures(out_dir, receiver, starts[receiver])
        for sender in sorted(starts):
            if sender == receiver or joiner not in (sender, receiver):
                continue
            rows, t = pair_rows(out_dir, starts, stats, sender, receiver, joiner, startup)
            first = pictures.get(sender)
            print(f" p{sender}->p{receiver}: first picture "
                  + (f"+{first - starts[joiner]:.1f} s" if first else "none")
                  + f", unheld audio {t['startup']} in the first {startup:g} s, "
                    f"{t['steady']} after")
            if rows:
                print("\n".join(rows))
            for k in totals:
                totals[k] += t[k]
    return totals


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dirs", nargs="+")
    ap.add_argument("--joiner", type=int, default=4)
    ap.add_argument("--startup", type=float, default=6.0, help="seconds after the join")
    args = ap.parse_args()
    grand = {"startup": 0, "steady": 0}
    for d in args.out_dirs:
        t = report(d, args.joiner, args.startup)
        for k in grand:
            grand[k] += t[k]
    total = sum(grand.values())
    print(f"audio unheld, pairs of p{args.joiner}: {total}; within {args.startup:g} s of the "
          f"join {grand['startup']}"
          + (f" ({100 * grand['startup'] / total:.0f} %)" if total else "")
          + f", after {grand['steady']}")


if __name__ == "__main__":
    main()
