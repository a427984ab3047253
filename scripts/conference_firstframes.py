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
QUERY = re.compile(r"camera query (\S+) (sent|answered) at (\w+):(\w+) " + AT)
TILE_ASKED = re.compile(r"member (\d+): key unit asked for " + AT)
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


def negotiation(log):
    """Before cammix's allocation query (ms on the monotonic clock, or None): the
    caps queries through the nameplate (to both of the tee's branches) as
    (sent, answered) pairs."""
    alloc, pairs, sent = None, [], []
    for line in log:
        m = QUERY.search(line)
        if not m or alloc is not None:
            continue
        kind, way, element, t = m.group(1), m.group(2), m.group(3), int(m.group(5))
        if kind == "allocation" and element == "cammix" and way == "sent":
            alloc = t
        elif kind == "caps" and element == "nameplate":
            if way == "sent":
                sent.append(t)
            elif sent:
                pairs.append((sent.pop(), t))
    return alloc, pairs


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
    packets, depay, pictures, asks = {}, {}, {}, {}
    for line in log:
        m = TILE_ASKED.search(line)
        if m:
            asks.setdefault(int(m.group(1)), []).append(int(m.group(2)))
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
            picture=member in pictures and packet + pictures[member] - spawn,
            asks=sum(1 for t in asks.get(member, []) if t < depay.get(member, 0)))
    return (playing and playing - spawn), rows


def fmt(v):
    return "-" if v is None or v is False else f"{v:.0f}"


def report(out_dir, joiner, summary):
    if not os.path.exists(os.path.join(out_dir, "times.json")):
        print(f"{out_dir}: no times.json (the call did not finish)")
        return
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
            alloc, pairs = negotiation(logs[p])
            longest = max((b - a for a, b in pairs), default=0)
            print(f"{out_dir} p{p}: camera -> cammix first output {d} ms "
                  f"(texture's first {fmt(t and t - first['camera'])} ms after the camera's; "
                  f"cammix's allocation query {fmt(alloc and alloc - first['camera'])} ms after "
                  f"it, the longest caps query through the nameplate before it {longest} ms)")
            if alloc:
                summary["camera -> allocation query"].append(alloc - first["camera"])
                summary["longest caps query"].append(longest)
                if p == joiner:
                    summary["joiner: camera -> allocation query"].append(alloc - first["camera"])
                    summary["joiner: allocation query -> cammix output"].append(
                        first["cammix"] - alloc)
    if "t0" not in times or str(joiner) not in times["starts"]:
        return
    playing, rows = joiner_way(out_dir, joiner, times, logs)
    print(f"{out_dir} p{joiner} (joiner): PLAYING {fmt(playing)} ms after its spawn")
    for member, r in rows.items():
        print(f"    p{member}: its encoder asked {fmt(r['asked'])}, key frame encoded "
              f"{fmt(r['encoded'])}, first packet {fmt(r['packet'])}, key frame depayloaded "
              f"{fmt(r['key'])}, first picture {fmt(r['picture'])} ms after the spawn; "
              f"{r['asks']} key unit requests of the joiner's before it")
        if r["picture"]:
            summary["picture"].append(r["picture"])
            summary["packet"].append(r["packet"])
        if r["asked"] is not None and r["encoded"] and r["key"] and r["picture"]:
            summary["asked"].append(r["asked"])
            summary["asked -> encoded"].append(r["encoded"] - r["asked"])
            summary["encoded -> depayloaded"].append(r["key"] - r["encoded"])
            summary["depayloaded -> picture"].append(r["picture"] - r["key"])
            summary["requests again"].append(r["asks"])
    if playing:
        summary["playing"].append(playing)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dirs", nargs="+")
    ap.add_argument("--joiner", type=int, default=4)
    a = ap.parse_args()
    summary = {k: [] for k in ("cammix", "cammix_joiner", "camera -> allocation query",
                               "longest caps query", "joiner: camera -> allocation query",
                               "joiner: allocation query -> cammix output", "playing", "packet", "picture",
                               "asked", "asked -> encoded", "encoded -> depayloaded",
                               "depayloaded -> picture", "requests again")}
    for d in a.out_dirs:
        report(d, a.joiner, summary)
    for k, v in summary.items():
        if v:
            print(f"{k}: n={len(v)} median {statistics.median(v):.0f}"
                  + (" ms" if k != "requests again" else f", {sum(v)} in all") + ", "
                  f"min {min(v):.0f}, max {max(v):.0f}"
                  + (f", within 1000 ms {sum(x <= 1000 for x in v)} of {len(v)}"
                     if k == "picture" else ""))


if __name__ == "__main__":
    main()
