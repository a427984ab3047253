#!/usr/bin/env python3
"""First frames in a scripts/conference.py run made with GST_DEBUG=conference:4.

Per participant: when its camera's first frame left `camera` (and the snow texture's
`texture`), and how long after that `cammix` put out its first mixed frame. For the
joiner: from its start (the process spawned, times.json's t0 + its start) to its pipeline
PLAYING, and per other member the way of its first picture: the member's encoder asked for
a key unit and encoding it (the member's log), the first packet at the joiner, the first
key frame out of the depayloader and the first decoded picture (all in ms after the spawn).

  python3 scripts/conference_firstframes.py OUT_DIR [OUT_DIR ...] [--joiner=4] [--csv]
"""
import argparse
import json
import os
import re
import statistics

AT = r"at (\d+) ms"
FRAME = re.compile(r"camera frame \S+ at (\w+):src, age (-?\d+) ms, " + AT)
PLAYING = re.compile(r"pipeline PLAYING " + AT)
FIRST_PACKET = re.compile(r"member (\d+): first packet " + AT)
KEY_DEPAY = re.compile(r"member (\d+): key frame depayloaded " + AT)
PICTURE = re.compile(r"member (\d+): first picture (\d+) ms after its first packet")
ASKED = re.compile(r"trace_key_units:\S* key unit asked for " + AT)
ENCODED = re.compile(r"key frame encoded, (\d+) bytes, " + AT)


def lines(out_dir, pid):
    path = os.path.join(out_dir, f"participant-{pid}.log")
    if not os.path.exists(path):
        return []
    with open(path, errors="replace") as f:
        return [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in f]


def first_frames(log):
    """{element: monotonic ms of its first traced frame}"""
    first = {}
    for line in log:
        m = FRAME.search(line)
        if m and m.group(1) not in first:
            first[m.group(1)] = int(m.group(3))
    return first


def encoder_events(log):
    """[(ms, 'asked'|'encoded')] of the participant's own encoder."""
    ev = []
    for line in log:
        m = ASKED.search(line)
        if m:
            ev.append((int(m.group(1)), "asked"))
        m = ENCODED.search(line)
        if m:
            ev.append((int(m.group(2)), "encoded"))
    return ev


def joiner_way(out_dir, joiner, times, logs):
    """Per other member: ms after the joiner's spawn of each step of its first picture."""
    spawn = (times["t0"] + times["starts"][str(joiner)]) * 1000
    log = logs[joiner]
    playing = next((int(m.group(1)) for m in map(PLAYING.search, log) if m), None)
    packets, depay, pictures = {}, {}, {}
    for line in log:
        m = FIRST_PACKET.search(line)
        if m:
            packets.setdefault(int(m.group(1)), int(m.group(2)))
        m = KEY_DEPAY.search(line)
        if m:
            depay.setdefault(int(m.group(1)), int(m.group(2)))
        m = PICTURE.search(line)
        if m:
            pictures.setdefault(int(m.group(1)), int(m.group(2)))
    rows = {}
    for member, packet in sorted(packets.items()):
        ev = [e for e in encoder_events(logs.get(member, [])) if e[0] >= spawn]
        asked = next((t for t, k in ev if k == "asked"), None)
        encoded = next((t for t, k in ev if k == "encoded" and asked and t >= asked), None)
        rows[member] = dict(
            asked=asked and asked - spawn, encoded=encoded and encoded - spawn,
            packet=packet - spawn, key=member in depay and depay[member] - spawn,
            picture=member in pictures and packet + pictures[member] - spawn)
    return (playing and playing - spawn), rows


def fmt(v):
    return "-" if v is None or v is False else f"{v:.0f}"


def report(out_dir, joiner, summary):
    with open(os.path.join(out_dir, "times.json")) as f:
        times = json.load(f)
    pids = sorted(int(p) for p in times["starts"])
    logs = {p: lines(out_dir, p) for p in pids}
    cam = []
    for p in pids:
        first = first_frames(logs[p])
        if "camera" in first and "cammix" in first:
            d = first["cammix"] - first["camera"]
            t = first.get("texture")
            cam.append(d)
            summary["cammix"].append(d)
            if p == joiner:
                summary["cammix_joiner"].append(d)
            print(f"{out_dir} p{p}: camera -> cammix first output {d} ms "
                  f"(texture's first {fmt(t and t - first['camera'])} ms after the camera's)")
    if "t0" not in times or str(joiner) not in times["starts"]:
        return
    playing, rows = joiner_way(out_dir, joiner, times, logs)
    print(f"{out_dir} p{joiner} (joiner): PLAYING {fmt(playing)} ms after its spawn")
    for member, r in rows.items():
        print(f"    p{member}: its encoder asked {fmt(r['asked'])}, key frame encoded "
              f"{fmt(r['encoded'])}, first packet {fmt(r['packet'])}, key frame depayloaded "
              f"{fmt(r['key'])}, first picture {fmt(r['picture'])} ms after the spawn")
        if r["picture"]:
            summary["picture"].append(r["picture"])
            summary["packet"].append(r["packet"])
    if playing:
        summary["playing"].append(playing)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dirs", nargs="+")
    ap.add_argument("--joiner", type=int, default=4)
    a = ap.parse_args()
    summary = {k: [] for k in ("cammix", "cammix_joiner", "playing", "packet", "picture")}
    for d in a.out_dirs:
        report(d, a.joiner, summary)
    for k, v in summary.items():
        if v:
            print(f"{k}: n={len(v)} median {statistics.median(v):.0f} ms, "
                  f"min {min(v):.0f}, max {max(v):.0f}"
                  + (f", within 1000 ms {sum(x <= 1000 for x in v)} of {len(v)}"
                     if k == "picture" else ""))


if __name__ == "__main__":
    main()
