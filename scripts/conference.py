#!/usr/bin/env python3
"""A conference on this machine: one `conference` process (examples/conference)
per participant, each in its own network namespace on a bridge, behind a link
with its own rate (tbf both ways) and optional random loss.  Runs for
--duration seconds, then prints what every participant received, what its download link
carried over the second half, and which tiles its last snapshot shows, and leaves in --out-dir: participant-<id>.png
(snapshot), participant-<id>.mp4 (recording with the others' mixed audio, when headless:
without --headless and with a display each participant opens a window instead),
stats-<id>.json (the statistics of every second), times.json (when each participant
joined and left, seconds into the call, and how long each took to exit after its SIGINT)
and rates.svg (rates over time). Each participant's audio is a tone of its own frequency;
the report says how loud each other participant's tone is in a recording.

  python3 scripts/conference.py [--participants=3] [--duration=30]
      [--rates=4M,4M,1M] [--up-rates=...] [--uplink-share=0] [--voice-room=BPS] [--uplink-video-only] [--uplink-estimate] [--layer-max-spread=F] [--loss=0] [--join=ID:S ...] [--leave=ID:S ...] [--ice]

With --ice the participants connect through ICE (conference --ice, libnice): p1 also hosts
the rendezvous the ICE blobs go through, on 10.77.0.1:7000, and the pairs connect by host
candidates (one bridge, no NAT; tests/net/test_conference_ice.py runs them behind NATs).

Needs root (namespaces); scripts/conference.sh installs, builds and runs it.
"""
import argparse
import json
import math
import os
import signal
import struct
import subprocess
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "net"))
import netbed  # noqa: E402

PORT = 5000
RENDEZVOUS = "10.77.0.1:7000"     # p1's, with --ice
EXIT_WAIT = 15                    # s a participant has from SIGINT to exit before it is killed
# Each participant's copies of its video kept within this share of its upload rate (the
# app's --uplink-rate), the rest left for its voice and the headers: against none, the
# 4-participant call's fast members lost 0.07 % after FEC against 2.29 % and decoded each
# other at 15.0 against 14.0 fps (docs/results.md, "the copies within the sender's uplink").
UPLINK_SHARE = 0.85
# Must match the palette in examples/conference/conference.c (colour by id).
PALETTE = [0xd02828, 0x28b428, 0x2850d8, 0xd8c828, 0xc828c8, 0x28c8c8, 0xe08020, 0x808080]
TILE_W, TILE_H = 320, 240


AUDIO_RATE = 8000                 # Hz, what a recording's audio is analysed at


def tone_frequency(pid):
    """Must match conf_audio_frequency in examples/conference/confaudio.c."""
    return 300 + 137 * ((pid - 1) % 16)


def colour_of(pid):
    return PALETTE[(pid - 1) % len(PALETTE)]


def parse_rate(text):
    """"4M" -> 4000000, "800k" -> 800000, "1500000" -> 1500000 (bit/s)."""
    mult = {"k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9}
    if text and text[-1] in mult:
        return int(float(text[:-1]) * mult[text[-1]])
    return int(text)


def parse_times(items, n, what):
    """["2:5", ...] -> {2: 5.0}: participant id -> seconds."""
    out = {}
    for item in items or []:
        pid, _, sec = item.partition(":")
        if not pid.isdigit() or not 1 <= int(pid) <= n or not sec:
            raise SystemExit(f"conference: --{what} wants ID:SECONDS with 1 <= ID <= {n}, "
                             f"got {item!r}")
        out[int(pid)] = float(sec)
    return out


# ---------------------------------------------------------------- snapshots

def read_png(path):
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError(f"{path}: only 8-bit RGB/RGBA PNGs are read")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(v for i, v in enumerate(line) if i % 4 != 3))
        prev = line
    return width, height, rows


def tile_colours(path):
    """The median colour (0xRRGGBB) of every grid cell of a snapshot, row by row."""
    width, height, rows = read_png(path)
    cells = []
    for top in range(0, height - TILE_H + 1, TILE_H):
        for left in range(0, width - TILE_W + 1, TILE_W):
            chans = [[], [], []]
            for y in range(top + TILE_H // 8, top + TILE_H, 8):    # below the name
                row = rows[y]
                for x in range(left, left + TILE_W, 8):
                    for ch in range(3):
                        chans[ch].append(row[3 * x + ch])
            med = [sorted(c)[len(c) // 2] for c in chans]
            cells.append((med[0] << 16) | (med[1] << 8) | med[2])
    return cells


def who_is(colour, tolerance=40):
    """The participant whose colour this is, or None (black: an empty cell)."""
    for i, ref in enumerate(PALETTE):
        if all(abs(((colour >> s) & 255) - ((ref >> s) & 255)) <= tolerance for s in (16, 8, 0)):
            return i + 1
    return None


def tiles_shown(path):
    """Participant ids whose tiles a snapshot shows, in grid order."""
    return [p for p in (who_is(c) for c in tile_colours(path)) if p is not None]


# ---------------------------------------------------------------- audio

def recording_audio(path, seconds):
    """The last `seconds` of a recording's audio track, 8 kHz mono samples ([]: none)."""
    raw = path + ".pcm"
    try:
        subprocess.run(["gst-launch-1.0", "-q", "filesrc", f"location={path}", "!", "qtdemux",
                        "name=d", "d.audio_0", "!", "opusdec", "!", "audioconvert", "!",
                        "audioresample", "!",
                        f"audio/x-raw,format=S16LE,channels=1,rate={AUDIO_RATE}", "!",
                        "filesink", f"location={raw}"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        with open(raw, "rb") as f:
            data = f.read()
    except (OSError, subprocess.TimeoutExpired):
        return []
    finally:
        if os.path.exists(raw):
            os.remove(raw)
    samples = struct.unpack(f"<{len(data) // 2}h", data[:len(data) // 2 * 2])
    return samples[-seconds * AUDIO_RATE:]


def tone_amplitude(samples, freq):
    """The amplitude of the sine at `freq` in `samples` (Goertzel)."""
    if not samples:
        return 0.0
    c = 2 * math.cos(2 * math.pi * freq / AUDIO_RATE)
    s1 = s2 = 0.0
    for v in samples:
        s1, s2 = v + c * s1 - s2, s1
    return 2 * math.sqrt(max(s1 * s1 + s2 * s2 - c * s1 * s2, 0.0)) / len(samples)


TONE_BLOCK = AUDIO_RATE // 10     # tones are measured per 100 ms (10 Hz apart at most)


def audio_levels(path, pids, seconds=10):
    """RMS of a recording's last `seconds` of audio and, for every listed participant, the
    median amplitude of its tone over 100 ms blocks (full scale 32767; a tone is sent at
    8192) and the share of blocks in which it is at least half that. Blocks, not one sum
    over the whole: a gap or a resynchronised mix shifts the phase, which a single
    Goertzel sum over seconds would take for silence."""
    samples = recording_audio(path, seconds)
    rms = math.sqrt(sum(v * v for v in samples) / len(samples)) if samples else 0.0
    tones, present = {}, {}
    for pid in pids:
        amps = sorted(tone_amplitude(samples[i:i + TONE_BLOCK], tone_frequency(pid))
                      for i in range(0, len(samples) - TONE_BLOCK + 1, TONE_BLOCK))
        tones[pid] = amps[len(amps) // 2] if amps else 0.0
        present[pid] = sum(a >= 4096 for a in amps) / len(amps) if amps else 0.0
    return dict(seconds=len(samples) / AUDIO_RATE, rms=rms, tones=tones, present=present)


# ---------------------------------------------------------------- statistics

def read_stats(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def mean(values):
    return sum(values) / len(values) if values else 0.0


def summary(stats, since):
    """Per sender id: mean receive rate (bit/s), decoded frame rate, loss on the link and
    after FEC, over the seconds from `since` on."""
    per = {}
    for rec in stats:
        if rec["t"] < since:
            continue
        for m in rec["members"]:
            per.setdefault(m["id"], []).append(m)
    return {pid: dict(rate=mean([m["recv_bps"] for m in ms]),
                      fps=mean([m.get("fps", 0.0) for m in ms]),
                      audio_rate=mean([m.get("audio_recv_bps", 0) for m in ms]),
                      loss=mean([m["loss_link"] for m in ms]),
                      after_fec=mean([m["loss_after_fec"] for m in ms]))
            for pid, ms in per.items()}


def write_svg(path, stats_by_id, duration, starts):
    """Rates over time: per participant, what it receives from all others (solid) and the
    data rate its encoder is told (dashed), in Mbit/s."""
    w, h, pad = 720, 360, 50
    peak = max([sum(m["recv_bps"] for m in r["members"]) for s in stats_by_id.values() for r in s]
               + [r["data_bps"] for s in stats_by_id.values() for r in s if r["data_bps"] < 1e9]
               + [1e6]) / 1e6
    sx = lambda t: pad + (w - 2 * pad) * t / max(duration, 1)
    sy = lambda v: h - pad - (h - 2 * pad) * min(v, peak) / peak
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="black"/>',
           f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="black"/>',
           f'<text x="{w / 2}" y="{h - 12}" text-anchor="middle">time (s)</text>',
           f'<text x="12" y="{pad - 12}">Mbit/s (solid: received from all; dashed: encoder '
           f'data rate)</text>']
    for i in range(5):
        v = peak * i / 4
        out.append(f'<text x="{pad - 6}" y="{sy(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    for pid, stats in sorted(stats_by_id.items()):
        colour = f"#{colour_of(pid):06x}"
        t0 = starts.get(pid, 0.0)
        recv = " ".join(f"{sx(t0 + r['t']):.1f},{sy(sum(m['recv_bps'] for m in r['members']) / 1e6):.1f}"
                        for r in stats)
        data = " ".join(f"{sx(t0 + r['t']):.1f},{sy(r['data_bps'] / 1e6):.1f}" for r in stats)
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{recv}"/>')
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-dasharray="4 3" '
                   f'points="{data}"/>')
        out.append(f'<text x="{w - pad + 4}" y="{pad + 14 * pid}" fill="{colour}">p{pid}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------- the run

def uplink_rate(args, pid, n):
    """The app's --uplink-rate for participant pid (bit/s): --uplink-share of its upload rate
    less --voice-room for each copy of its voice (one per other participant)."""
    room = args.up_rate_list[pid - 1] - args.voice_room * (n - 1)
    return max(1, int(args.uplink_share * room))


def conference_command(args, pid, n):
    members = ",".join(f"{i}@10.77.0.{i}:{PORT}" for i in range(1, n + 1))
    return [args.binary, f"--id={pid}", f"--port={PORT}", f"--address=10.77.0.{pid}",
            f"--members={members}", f"--out-dir={args.out_dir}",
            f"--stats-json={args.out_dir}/stats-{pid}.json",
            f"--width={TILE_W}", f"--height={TILE_H}", f"--fps={args.fps}"] + \
        (["--headless"] if args.headless else []) + \
        ([f"--initial-rate={args.initial_rate}"] if args.initial_rate else []) + \
        ([f"--uplink-rate={uplink_rate(args, pid, n)}"] if args.uplink_share > 0 else []) + \
        (["--uplink-video-only"] if args.uplink_video_only else []) + \
        (["--uplink-estimate"] if args.uplink_estimate else []) + \
        ([f"--layer-max-spread={args.layer_max_spread}"]
         if args.layer_max_spread is not None else []) + \
        ([f"--key-unit-queue-time={args.key_unit_queue_time}"]
         if args.key_unit_queue_time is not None else []) + \
        ([f"--max-frame-age={args.max_frame_age}"]
         if args.max_frame_age is not None else []) + \
        ([f"--max-queue-age={args.max_queue_age}"]
         if args.max_queue_age is not None else []) + \
        (["--parity-age-from-media"] if args.parity_age_from_media else []) + \
        ([f"--parity-max-backlog={args.parity_max_backlog}"]
         if args.parity_max_backlog else []) + \
        (["--parity-by-share"] if args.parity_by_share else []) + \
        (["--preload-decoders"] if args.preload_decoders else []) + \
        (["--ice", f"--rendezvous={RENDEZVOUS}"] if args.ice else []) + \
        (["--rendezvous-host"] if args.ice and pid == 1 else [])


def build_bed(bed, n, rates, up_rates, loss):
    """Participants p1..pN on one bridge, each behind its own rates (upload, download) and
    loss; returns the hosts and the download links' tbfs, by id."""
    br = bed.bridge("br", snooping=False, querier=False)
    hosts, downlinks = {}, {}
    for pid in range(1, n + 1):
        h = bed.host(f"p{pid}")
        hif, port = bed.attach(h, br, f"10.77.0.{pid}/24")
        bed.bottleneck(h, hif, up_rates[pid - 1])           # upload
        downlinks[pid] = bed.bottleneck(br, port, rates[pid - 1])
        if loss:
            bed.random_loss(br, port, loss)
        hosts[pid] = h
    return hosts, downlinks


def link_counts(downlinks):
    """(time.monotonic(), {id: bytes each download link has carried so far})."""
    return time.monotonic(), {pid: tbf.sent_bytes() for pid, tbf in downlinks.items()}


def link_rates(first, last):
    """Per id, the rate (bit/s) its download link carried between two link_counts()."""
    (t1, b1), (t2, b2) = first, last
    return {pid: (b2[pid] - b1[pid]) * 8 / (t2 - t1) for pid in b1} if t2 > t1 else {}


def run(args):
    n = args.participants
    rates = [parse_rate(r) for r in args.rates.split(",")]
    rates += [rates[-1]] * (n - len(rates))
    up_rates = [parse_rate(r) for r in args.up_rates.split(",")] if args.up_rates else rates[:]
    up_rates += [up_rates[-1]] * (n - len(up_rates))
    args.up_rate_list = up_rates        # bit/s, for --uplink-share
    joins, leaves = parse_times(args.join, n, "join"), parse_times(args.leave, n, "leave")
    os.makedirs(args.out_dir, exist_ok=True)
    for pid in range(1, n + 1):
        for name in (f"stats-{pid}.json", f"participant-{pid}.png", f"participant-{pid}.mp4",
                     f"participant-{pid}.log"):
            if os.path.exists(os.path.join(args.out_dir, name)):
                os.remove(os.path.join(args.out_dir, name))
    print(f"conference: {n} participants for {args.duration} s; links "
          + ", ".join(f"p{i + 1} {rates[i] / 1e6:g} Mbit/s"
                      + (f" (up {up_rates[i] / 1e6:g})" if up_rates[i] != rates[i] else "")
                      for i in range(n))
          + (f"; {args.loss} % loss" if args.loss else "")
          + ("; over ICE" if args.ice else ""), flush=True)
    with netbed.NetBed() as bed:
        hosts, downlinks = build_bed(bed, n, rates, up_rates, args.loss)
        procs, logs, starts, t0 = {}, {}, {}, time.monotonic()
        half = None                     # link_counts() at the second half's start
        args.t0 = t0                    # the call's start on CLOCK_MONOTONIC, for times.json
        interrupted, exits = {}, {}     # monotonic time of the SIGINT, seconds to exit
        while time.monotonic() - t0 < args.duration:
            now = time.monotonic() - t0
            for pid in range(1, n + 1):
                if pid not in procs and now >= joins.get(pid, 0.0) and now < leaves.get(pid, 1e9):
                    logs[pid] = open(os.path.join(args.out_dir, f"participant-{pid}.log"), "w")
                    procs[pid] = hosts[pid].popen(conference_command(args, pid, n),
                                                  stdout=logs[pid], stderr=logs[pid])
                    starts[pid] = now
                    print(f"t={now:5.1f} s  p{pid} joins", flush=True)
                if pid in procs and pid not in interrupted and now >= leaves.get(pid, 1e9):
                    interrupt(procs, pid, interrupted)          # it ends its streams and exits
                    print(f"t={now:5.1f} s  p{pid} leaves", flush=True)
            if half is None and now >= args.duration / 2:
                half = link_counts(downlinks)
            note_exits(procs, interrupted, exits)
            time.sleep(0.2)
        carried = link_rates(half, link_counts(downlinks)) if half else {}
        # The call ends for everyone at once: each takes its last snapshot
        # before the BYEs of the others take their tiles away.
        for pid in procs:
            if pid not in interrupted:
                interrupt(procs, pid, interrupted)
        wait_exits(procs, interrupted, exits)
        for pid, p in procs.items():
            if p.returncode != 0:
                print(f"conference: p{pid} exited with status {p.returncode}, see "
                      f"{args.out_dir}/participant-{pid}.log", flush=True)
        for f in logs.values():
            f.close()
    return report(args, n, rates, starts, leaves, exits, carried)


def interrupt(procs, pid, interrupted):
    procs[pid].send_signal(signal.SIGINT)
    interrupted[pid] = time.monotonic()


def note_exits(procs, interrupted, exits):
    """The seconds from its SIGINT to its exit of each participant that has exited since."""
    for pid, at in interrupted.items():
        if pid not in exits and procs[pid].poll() is not None:
            exits[pid] = time.monotonic() - at


def wait_exits(procs, interrupted, exits):
    """Every participant exits within EXIT_WAIT s of its SIGINT or is killed (its exit time
    is then missing from `exits`)."""
    while len(exits) < len(procs):
        note_exits(procs, interrupted, exits)
        for pid, at in interrupted.items():
            if pid not in exits and time.monotonic() - at > EXIT_WAIT:
                print(f"conference: p{pid} did not exit within {EXIT_WAIT} s of SIGINT, "
                      "killed", flush=True)
                procs[pid].kill()
                procs[pid].wait()
                exits[pid] = None
        time.sleep(0.05)
    for pid in sorted(exits):
        if exits[pid] is not None:
            print(f"p{pid} exited {exits[pid]:.1f} s after SIGINT", flush=True)


def report(args, n, rates, starts, leaves, exits, carried):
    stats = {pid: read_stats(os.path.join(args.out_dir, f"stats-{pid}.json"))
             for pid in range(1, n + 1)}
    result = {}
    for pid in sorted(starts):
        png = os.path.join(args.out_dir, f"participant-{pid}.png")
        tiles = tiles_shown(png) if os.path.exists(png) else []
        s = summary(stats[pid], since=args.duration / 2 - starts[pid])
        result[pid] = dict(tiles=tiles, received=s)
        if pid in carried:
            # the second half's bytes by the link's own count: the receive rates above are
            # each over one report interval, a few packets on a slow link, and read high
            result[pid]["link_bps"] = carried[pid]
        print(f"p{pid} (link {rates[pid - 1] / 1e6:g} Mbit/s): snapshot shows "
              + (" ".join(f"p{t}" for t in tiles) or "nothing")
              + (f"; its link carried {carried[pid] / 1e3:.0f} kbit/s in the second half "
                 f"({carried[pid] / rates[pid - 1]:.2f} of its rate)" if pid in carried else ""))
        for sender, f in sorted(s.items()):
            print(f"    from p{sender}: {f['rate'] / 1e3:6.0f} kbit/s, {f['fps']:4.1f} fps, "
                  f"lost {100 * f['loss']:.2f} % "
                  f"on the link, {100 * f['after_fec']:.2f} % after FEC; audio "
                  f"{f['audio_rate'] / 1e3:.0f} kbit/s")
        mp4 = os.path.join(args.out_dir, f"participant-{pid}.mp4")
        if args.headless and os.path.exists(mp4):
            a = audio_levels(mp4, range(1, n + 1))
            result[pid]["audio"] = a
            print(f"    recording's last {a['seconds']:.0f} s of audio: rms {a['rms']:.0f}, "
                  "tones (median amplitude, share of 100 ms present) "
                  + ", ".join(f"p{t} {v:.0f} {100 * a['present'][t]:.0f} %"
                              for t, v in sorted(a["tones"].items())))
    write_svg(os.path.join(args.out_dir, "rates.svg"),
              {pid: s for pid, s in stats.items() if s}, args.duration, starts)
    print(f"conference: snapshots, recordings, statistics and rates.svg in {args.out_dir}")
    with open(os.path.join(args.out_dir, "summary.json"), "w") as f:
        json.dump(result, f, indent=1)
    with open(os.path.join(args.out_dir, "times.json"), "w") as f:
        # call seconds per id; exits: seconds from SIGINT to exit (null: killed);
        # t0: the call's start in s on CLOCK_MONOTONIC, the clock of the logs' "at N ms"
        json.dump(dict(starts=starts, leaves=leaves, exits=exits, t0=args.t0), f)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--participants", type=int, default=3)
    ap.add_argument("--duration", type=float, default=30.0, help="seconds")
    ap.add_argument("--rates", default="4M,4M,1M",
                    help="link rate per participant, bit/s with k/M suffixes (last repeats)")
    ap.add_argument("--up-rates", default="",
                    help="upload rate per participant if not its --rates, as --rates")
    ap.add_argument("--uplink-share", type=float, default=UPLINK_SHARE,
                    help="each participant keeps the copies of its voice and video within "
                         "this share of its upload rate (the app's --uplink-rate, less its "
                         "voices for the video's tpsssink; the rest is for the video's "
                         "headers); 0: off, each copy as its member allows (default: "
                         f"{UPLINK_SHARE})")
    ap.add_argument("--uplink-video-only", action="store_true",
                    help="the app's --uplink-video-only: the share bounds the video's copies "
                         "alone, no room taken for the voices (before 2026-11-29)")
    ap.add_argument("--voice-room", type=int, default=0,
                    help="bit/s of each participant's upload rate kept for each copy of its "
                         "voice before --uplink-share is taken, beside the room the app takes "
                         "(default 0: none)")
    ap.add_argument("--layer-max-spread", type=float, default=None,
                    help="each participant's whole stream at most this many times the "
                         "slowest member's rate (the app's --layer-max-spread; default: the "
                         "app's, 8)")
    ap.add_argument("--uplink-estimate", action="store_true",
                    help="each participant's tpsssink finds a bound on its copies from their "
                         "losses when they come at once (the app's --uplink-estimate; with "
                         "--uplink-share=0 the only bound)")
    ap.add_argument("--loss", type=float, default=0.0, help="random loss on every link, %%")
    ap.add_argument("--join", action="append", help="ID:SECONDS, a participant joins late")
    ap.add_argument("--leave", action="append", help="ID:SECONDS, a participant leaves")
    ap.add_argument("--fps", type=int, default=15)
    ap.add_argument("--initial-rate", type=int, default=0,
                    help="bit/s, each sender's first rate toward a member (the app's default: 0)")
    ap.add_argument("--key-unit-queue-time", type=int, default=None,
                    help="ms, each sender's tpsssink key-unit-queue-time (0: off; "
                         "default: the app's)")
    ap.add_argument("--max-frame-age", type=int, default=None,
                    help="ms, camera frames older than this at the encoder are left out "
                         "(0: none; default: the app's)")
    ap.add_argument("--parity-age-from-media", action="store_true",
                    help="each sender ages its parity toward a member from when the media "
                         "it covers left (tpsssink parity-age-from-media; default: off)")
    ap.add_argument("--parity-max-backlog", type=int, default=0,
                    help="ms, each sender makes no parity toward a member while its media "
                         "queued toward it takes longer than this to leave (tpsssink "
                         "parity-max-backlog; 0: off, the default)")
    ap.add_argument("--parity-by-share", action="store_true",
                    help="each sender makes parity toward a member in the share of its recent "
                         "parity that left before going stale (tpsssink parity-by-share; "
                         "default: off)")
    ap.add_argument("--preload-decoders", action="store_true",
                    help="each participant loads its decoders' plugins before its pipeline "
                         "starts (conference --preload-decoders; default: off)")
    ap.add_argument("--max-queue-age", type=int, default=None,
                    help="ms, each sender's tpsssink max-queue-age (0: off; default: the app's)")
    ap.add_argument("--ice", action="store_true",
                    help="connect through ICE (libnice); p1 hosts the rendezvous")
    ap.add_argument("--headless", action="store_true",
                    help="no windows even with a display: record MP4s instead")
    ap.add_argument("--out-dir", default="conference-out")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "examples", "conference"))
    args = ap.parse_args()
    if not 2 <= args.participants <= 8:
        raise SystemExit("conference: --participants must be 2..8")
    if not os.access(args.binary, os.X_OK):
        raise SystemExit(f"conference: {args.binary} is not built (meson setup build && "
                         "ninja -C build)")
    args.out_dir = os.path.abspath(args.out_dir)
    args.headless = args.headless or not (os.environ.get("DISPLAY")
                                          or os.environ.get("WAYLAND_DISPLAY"))
    build = os.path.dirname(os.path.dirname(os.path.abspath(args.binary)))
    os.environ["GST_PLUGIN_PATH"] = os.pathsep.join(
        [os.path.join(build, "gst", "tpss"), os.path.join(build, "ext", "x264")]
        + [p for p in [os.environ.get("GST_PLUGIN_PATH")] if p])
    netbed.require_or_skip()
    run(args)


if __name__ == "__main__":
    main()
