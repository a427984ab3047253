#!/usr/bin/env python3
"""The joiner's repair in a scripts/conference.py run made with GST_DEBUG=tpsssrc:6, per
sender: the joiner's video lag over its first seconds (as conference_joinlag.py: a video
packet's delay at the joiner less the least delay of the same sender's audio), the parity
the sender made toward the joiner over the call, how much of it was dropped before it
left and how much was not queued at all for the queue's backlog (tpsssink parity-max-backlog),
from the join on (stats-<sender>.json), and the joiner's loss from
that sender on the link and after FEC (the mean of its per-second figures in
stats-<joiner>.json).

  python3 scripts/conference_joinfec.py OUT_DIR [OUT_DIR ...] [--joiner=4] [--window=5]

Prints one line per sender and call, and one JSON line per call (for tables).
"""
import argparse
import json
import os
import statistics

from conference_joinlag import sync_delays


def lags_per_sender(log, window):
    video, audio = {}, {}
    for stream, sender, delay in sync_delays(log, window):
        if stream == "arx":
            audio[sender] = min(audio.get(sender, delay), delay)
        else:
            video.setdefault(sender, []).append(delay)
    return {s: [(d - audio[s]) / 1000.0 for d in ds] for s, ds in video.items() if s in audio}


def records(out_dir, pid):
    with open(os.path.join(out_dir, f"stats-{pid}.json")) as f:
        return [json.loads(line) for line in f if line.strip()]


def parity_toward(out_dir, sender, joiner, starts):
    """Parity made and dropped toward the joiner from its join on (the sender's last
    record before the join subtracted: parity was made toward it before it came)."""
    first = last = None
    for r in records(out_dir, sender):
        for m in r["members"]:
            if m["id"] != joiner:
                continue
            if r["t"] + starts[sender] <= starts[joiner]:
                first = m
            last = m
    if not last:
        return None
    base = first or dict(parity_sent=0, parity_dropped=0)
    skipped = last.get("parity_skipped", 0) - base.get("parity_skipped", 0)
    queued = last["parity_sent"] - base["parity_sent"]
    return dict(made=queued + skipped, skipped=skipped,
                dropped=last.get("parity_dropped", 0) - base.get("parity_dropped", 0),
                media=last["packets_sent"])


def loss_from(out_dir, joiner, sender):
    ms = [m for r in records(out_dir, joiner) for m in r["members"] if m["id"] == sender]
    if not ms:
        return None
    return (100 * statistics.mean(m["loss_link"] for m in ms),
            100 * statistics.mean(m["loss_after_fec"] for m in ms))


def report(out_dir, joiner, window):
    with open(os.path.join(out_dir, "times.json")) as f:
        starts = {int(p): t for p, t in json.load(f)["starts"].items()}
    senders = sorted(p for p in starts if p != joiner)
    lags = lags_per_sender(os.path.join(out_dir, f"participant-{joiner}.log"), window)
    call = {"dir": out_dir, "senders": {}}
    for s in senders:
        lag = sorted(lags.get(s, []))
        par = parity_toward(out_dir, s, joiner, starts)
        loss = loss_from(out_dir, joiner, s)
        row = dict(lag_median=statistics.median(lag) if lag else None,
                   lag_p95=lag[min(len(lag) - 1, int(0.95 * len(lag)))] if lag else None,
                   video_packets=len(lag), parity=par, loss=loss)
        call["senders"][s] = row
        print(f"{out_dir} p{s}->p{joiner}: lag median "
              f"{row['lag_median'] if lag else float('nan'):.0f} ms p95 "
              f"{row['lag_p95'] if lag else float('nan'):.0f} ms ({len(lag)} packets); parity "
              + (f"made {par['made']} skipped {par['skipped']} dropped {par['dropped']} left "
                 f"{par['made'] - par['skipped'] - par['dropped']}"
                 f" (media {par['media']})" if par else "none")
              + (f"; loss link {loss[0]:.2f} % after FEC {loss[1]:.2f} %" if loss else ""))
    print(json.dumps(call))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dirs", nargs="+")
    ap.add_argument("--joiner", type=int, default=4)
    ap.add_argument("--window", type=float, default=5.0)
    a = ap.parse_args()
    for d in a.out_dirs:
        report(d, a.joiner, a.window)


if __name__ == "__main__":
    main()
