#!/usr/bin/env python3
"""The conferencing application between namespaces (scripts/conference.py).

1. The README's main command as written, `bash scripts/conference.sh`: 3 participants
   for 30 s, one behind a slow link. Every snapshot shows all three tiles, told apart by
   their colours; every recording and statistics file and the rate plot exist. One encoding,
   a rate for everyone (issue 16): the slow member decodes each sender at a lower frame rate
   than a fast member does (the layers that fit its link) but still decodes it, the fast
   members are sent at least twice its rate in the seconds their notified rates call for
   it, and what its link carries (the tbf's count: video, parity, audio, headers) is within
   15 % of its rate; the fast members
   send each other little parity. Every recording's
   audio (the last 10 s) holds the tone of each other participant, loud, and not its own (a
   participant does not hear itself); the slow member's voice decoders fill the holes its
   lossy link leaves in the audio. In both calls each participant ran few reports late
   (`late_reports`, at most MAX_LATE_REPORTS per member) and exited within EXIT_MAX_S of
   its SIGINT.
2. 4 participants, p4 (the slow link) joining 5 s late and p3 leaving at 18 s: every
   snapshot at the end shows a tile for exactly the participants present (p3's, taken as it
   left, all four); every participant's picture appears within 1 s of its first packet at
   the others, the slow member's included, and within 1.5 s at the late joiner on the slow
   link; p4 decodes the others at a lower frame rate than the fast members do, and its link
   carries its rate within 15 %. (The fast members' links are not checked: each carries about
   what the other fast member's uplink sends, held at its 0.85 share, docs/results.md,
   "Conference: how full the links are, with the uplink bound".)
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import netbed  # noqa: E402
import conference  # noqa: E402

BUILD = os.environ.get("MESON_BUILD_ROOT", os.path.join(ROOT, "build"))
# From a member's first packet to its first decoded picture (docs/conference.md, "First
# pictures at a slow joiner"), p4 joining on its 1 Mbit/s link a call whose fast links carry
# up to 4 times its rate. Twelve runs: between the fast members 7-852 ms (median 84; the 852
# at the call's start, where the first key frame did not arrive), p4's picture at the others
# 80-622 ms, the others' pictures at p4 48-1943 ms (31 of 36 within 1 s; a key frame lost on
# p4's lossy link costs the 500 ms retry and a new key frame's way, 0.7-0.9 s, two lost in a
# row 1.0-1.9 s). Before the decoder was flushed per access unit and the retry ran on a
# timer (sixteen runs): p4's picture at the others up to 1593 ms, the pictures at p4 up to
# 8182 ms (21 of 48 over 1 s). With the key-unit flush and the application-limited ASSIGN,
# 360 of 360 pictures at p4 within 1 s in 120 runs (the longest 975 ms); the bound at p4
# leaves room for a loaded 2-core machine.
FIRST_PICTURE_MAX_MS = 1000          # the goal, for every picture but those at p4
OF_SLOW_FIRST_PICTURE_MAX_MS = 1000  # the slow member's picture at the others (was 1500)
SLOW_FIRST_PICTURE_MAX_MS = 1500     # pictures at the slow member (was 2500, then 3000)
# x264layerenc layers=3 at 15 fps: the base layer is every fourth frame (3.75 fps).
SLOW_FPS_SHARE = 0.5      # the slow member decodes a sender at most at this share of the
MIN_SLOW_FPS = 1.0        # frame rate a fast member decodes it at, and at least at this
# A fast member's rate is what the other fast member's encoder makes (source-limited,
# docs/results.md, "how full the links are"), not its link's; what the issue asks of
# a sender is the layers that fit the rate each member notified. So the fast members' rates
# are compared at the sender, per second, in the seconds in which a fast member notified at
# least FAST_RATE_FACTOR x the slow member's rate and the whole stream did not fit the slow
# one. Comparing the receivers' means over the second half failed under load: a CPU-starved
# participant (up to 101 camera frames left out at its encoder in 15 s, reports late) notified
# its peer 180-360 kbit/s, no more than the slow member, and the whole stream shrank to fit
# it, so the fast member rightly got no more than p4 (receive ratios 1.07-1.88 in 2 of 12 calls
# with two busy loops beside, 2026-11-28). In those seconds the senders sent the fast
# member 2 x or more in 100 % of them in calm calls and 82-96 % in loaded ones (one overloaded
# call: 4 of 7).
FAST_RATE_FACTOR = 2.0    # fast members are sent at least this x the slow one
LAYERED_SHARE = 0.75      # in at least this share of the seconds that call for it
MIN_LAYERED_SECONDS = 5   # of which there are at least this many (of 2 x 15 in a call)
LINK_TOLERANCE = 0.15     # the slow member receives its link's rate within this share
# Tones are sent at amplitude 8192 (volume 0.25); measured per 100 ms block, a voice that
# arrives has a median near that (7800-8100 seen; the slow member misses 10-20 % of the
# blocks of each voice to loss), and a participant's own tone only leaks from the others'
# (under 200).
MIN_TONE = 4000
MAX_OWN_TONE = 1000
MIN_AUDIO_RMS = 2000
# Holes filled by the voice decoders per audio packet lost for good: 0.8-1.0 seen (runs of
# lost packets are one hole each); 0 when nothing tells the decoder of a hole.
HOLES_FILLED_SHARE = 0.5
# Parity packets per data packet from one fast member to the other over the second half: a
# lossless path needs few. 0.45-0.53 (five runs, both ways) while every clean interval started
# a probe of a rate the encoder did not use (docs/conference.md, "How full the links are");
# 0-0.29 since (five runs, both ways).
MAX_FAST_PARITY_SHARE = 0.38
# Reports a receiver ran more than a report interval late (`late_reports`, per member, over
# the whole call): 0-65 per pair in 30 s (median 15 of 270 pairs) in 30 runs of these two
# calls on the loaded 2-core machine (load 9-33); a session thread held up again (the tiles
# built on it held it 36 ms per pad and up to 2.4 s, docs/conference.md, "Why a joiner's
# reports ran late") makes more.
MAX_LATE_REPORTS = 100
# A participant exits within this many seconds of its SIGINT: the application's own bound
# (EXIT_BOUND_SECONDS in examples/conference/conference.c), plus the time a loaded machine
# takes to schedule the exit. Under load some were still running 15 s after it before.
EXIT_MAX_S = 11
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def check_tiles(out_dir, pid, expected):
    png = os.path.join(out_dir, f"participant-{pid}.png")
    shown = conference.tiles_shown(png) if os.path.exists(png) else []
    check(sorted(shown) == sorted(expected) and shown[0] == pid,
          f"p{pid}'s snapshot shows {sorted(expected)} with its own first: {shown}")


def check_first_pictures(out_dir, pid, slow):
    """Every picture at `pid` within FIRST_PICTURE_MAX_MS of its member's first packet, the
    slow member's within OF_SLOW_FIRST_PICTURE_MAX_MS, all of them within
    SLOW_FIRST_PICTURE_MAX_MS at the slow member."""
    with open(os.path.join(out_dir, f"participant-{pid}.log")) as f:
        log = f.read()
    times = [(int(m), int(ms)) for m, ms in
             re.findall(r"member (\d+): first picture (\d+) ms", log)]
    if not times:
        print(log[-2000:])

    def limit(member):
        if pid == slow:
            return SLOW_FIRST_PICTURE_MAX_MS
        return OF_SLOW_FIRST_PICTURE_MAX_MS if member == slow else FIRST_PICTURE_MAX_MS
    check(times and all(ms <= limit(m) for m, ms in times),
          f"p{pid} sees every picture within {FIRST_PICTURE_MAX_MS} ms of its first packet "
          f"({OF_SLOW_FIRST_PICTURE_MAX_MS} ms of p{slow}, {SLOW_FIRST_PICTURE_MAX_MS} ms at "
          f"p{slow}): {times}")
    return {m for m, _ in times}


def received(summary, receiver, sender):
    return summary[str(receiver)]["received"].get(str(sender))


def check_layers_fit(summary, slow, fast):
    """Each sender other than the slow member: the slow member decodes it at a lower frame
    rate than the fast receivers do, but decodes it."""
    for sender in fast:
        s = received(summary, slow, sender)
        for receiver in fast:
            f = received(summary, receiver, sender) if receiver != sender else None
            if f is None:
                continue
            check(s and MIN_SLOW_FPS <= s["fps"] <= SLOW_FPS_SHARE * f["fps"],
                  f"p{slow} decodes p{sender} at a lower frame rate than p{receiver} does "
                  f"(at most {SLOW_FPS_SHARE} x, at least {MIN_SLOW_FPS} fps): "
                  f"{s and round(s['fps'], 1)} vs {round(f['fps'], 1)} fps")


def layered_seconds(out_dir, sender, slow, fast, since):
    """`sender`'s seconds from `since` on in which a fast member notified it at least
    FAST_RATE_FACTOR x the slow member's rate and its whole stream did not fit the slow
    member's: (rate sent to the fast member, rate sent to the slow member) for each."""
    with open(os.path.join(out_dir, f"stats-{sender}.json")) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    seconds = []
    for r in recs:
        ms = {m["id"]: m for m in r["members"]}
        s = ms.get(slow)
        if r["t"] < since or not s or s.get("left"):
            continue
        for dest in fast:
            d = ms.get(dest)
            if dest == sender or not d or d.get("left"):
                continue
            if (d["send_notified_bps"] >= FAST_RATE_FACTOR * s["send_notified_bps"]
                    and r["data_bps"] > s["send_notified_bps"]):
                seconds.append((d["send_bps"], s["send_bps"]))
    return seconds


def check_fast_get_more(out_dir, slow, fast, since):
    """The fast members get the whole stream and the slow member the layers that fit its
    link, at each sender: in the seconds in which a fast member's notified rate called for
    that, the sender sent it FAST_RATE_FACTOR x what it sent the slow member or more."""
    seconds = [sec for sender in fast
               for sec in layered_seconds(out_dir, sender, slow, fast, since)]
    more = sum(1 for f, s in seconds if f >= FAST_RATE_FACTOR * s)
    check(len(seconds) >= MIN_LAYERED_SECONDS and more >= LAYERED_SHARE * len(seconds),
          f"{fast} send each other {FAST_RATE_FACTOR} x their rate to p{slow} or more in "
          f"{100 * LAYERED_SHARE:.0f} % of the seconds their notified rates call for it (at "
          f"least {MIN_LAYERED_SECONDS}): {more} of {len(seconds)}")


def check_link_filled(summary, pid, link_bps):
    """What the member's download link carried over the second half, by the link's own
    byte count (frames with their headers). The members' receive rates are each measured
    over one report interval, a few packets on the slow link: their means read 0.99-1.15
    (median 1.08) of a 1 Mbit/s link that carried 0.97-1.00 of its rate (docs/results.md, "Conference: how
    full the links are, with the uplink bound")."""
    carried = summary[str(pid)]["link_bps"]
    check(abs(carried - link_bps) <= LINK_TOLERANCE * link_bps,
          f"p{pid}'s link carries its {link_bps / 1e6:g} Mbit/s within "
          f"{100 * LINK_TOLERANCE:.0f} %: {carried / 1e3:.0f} kbit/s")


def check_fast_parity(out_dir, fast, since):
    """Each fast member sends another fast member little parity (its link loses next to
    nothing) from `since` seconds on."""
    for sender in fast:
        with open(os.path.join(out_dir, f"stats-{sender}.json")) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        first = next((r for r in recs if r["t"] >= since), recs[-1])
        for dest in fast:
            if dest == sender:
                continue
            count = {}
            for key in ("packets_sent", "parity_sent"):
                at = [next(m[key] for m in r["members"] if m["id"] == dest)
                      for r in (first, recs[-1])]
                count[key] = at[1] - at[0]
            share = count["parity_sent"] / max(count["packets_sent"], 1)
            check(share <= MAX_FAST_PARITY_SHARE,
                  f"p{sender} sends p{dest} at most {MAX_FAST_PARITY_SHARE} parity packets per "
                  f"data packet: {count['parity_sent']} for {count['packets_sent']}")


def check_audio(summary, pid, others):
    """`pid`'s recording: non-silent, each other participant's tone loud, its own absent."""
    a = summary[str(pid)].get("audio")
    check(a and a["seconds"] >= 9.5 and a["rms"] >= MIN_AUDIO_RMS,
          f"p{pid}'s recording has 10 s of audio, not silent: "
          f"{a and round(a['seconds'], 1)} s, rms {a and round(a['rms'])}")
    if not a:
        return
    tones = {int(t): v for t, v in a["tones"].items()}
    present = {int(t): v for t, v in a["present"].items()}
    check(all(tones[o] >= MIN_TONE for o in others) and tones[pid] <= MAX_OWN_TONE,
          f"p{pid} hears {others} (median amplitude >= {MIN_TONE}) and not itself (<= "
          f"{MAX_OWN_TONE}): " + ", ".join(f"p{t} {round(v)} ({100 * present[t]:.0f} % of "
                                           "the time)" for t, v in sorted(tones.items())))


def check_voice_holes_filled(out_dir, pid):
    """`pid`'s voice decoders fill the holes the audio session leaves (packets lost on the
    link and not repaired by its parity): opusdec conceals each (or rebuilds it from in-band
    FEC) on the GAP the lost-packet event becomes, where it used to play silence. A run of
    lost packets is one hole, so there may be fewer holes than packets."""
    with open(os.path.join(out_dir, f"stats-{pid}.json")) as f:
        last = [json.loads(line) for line in f if line.strip()][-1]
    lost = sum(m.get("audio_unrecovered", 0) for m in last["members"])
    filled = sum(m.get("audio_gaps", 0) for m in last["members"])
    check(filled >= HOLES_FILLED_SHARE * lost,
          f"p{pid}'s voice decoders filled the holes of its audio ({HOLES_FILLED_SHARE} x the "
          f"packets lost after FEC or more): {filled} holes for {lost} packets")


def check_late_reports(out_dir, pids):
    """Each participant's session ran its reports on each other member on time, but for at
    most MAX_LATE_REPORTS over the call."""
    for pid in pids:
        with open(os.path.join(out_dir, f"stats-{pid}.json")) as f:
            last = [json.loads(line) for line in f if line.strip()][-1]
        late = {m["id"]: m.get("late_reports", 0) for m in last["members"]}
        check(late and max(late.values()) <= MAX_LATE_REPORTS,
              f"p{pid} ran at most {MAX_LATE_REPORTS} reports late per member: "
              + ", ".join(f"p{m} {n}" for m, n in sorted(late.items())))


def check_exits(out_dir, pids):
    """Every participant exited on its SIGINT within EXIT_MAX_S, having stopped cleanly."""
    with open(os.path.join(out_dir, "times.json")) as f:
        exits = json.load(f).get("exits", {})
    took = {pid: exits.get(str(pid)) for pid in pids}
    check(all(t is not None and t <= EXIT_MAX_S for t in took.values()),
          f"every participant exits within {EXIT_MAX_S} s of its SIGINT: "
          + ", ".join(f"p{p} {'killed' if t is None else f'{t:.1f} s'}"
                      for p, t in took.items()))


def check_files(out_dir, pids):
    for pid in pids:
        for name in (f"participant-{pid}.mp4", f"stats-{pid}.json"):
            path = os.path.join(out_dir, name)
            check(os.path.exists(path) and os.path.getsize(path) > 1000, f"{name} written")
    check(os.path.exists(os.path.join(out_dir, "rates.svg")), "rates.svg written")


def print_losses(summary):
    worst = max((f["after_fec"] for s in summary.values() for f in s["received"].values()),
                default=0.0)
    print(f"worst loss after FEC over the second half: {100 * worst:.2f} %")


def readme_command():
    out_dir = os.path.join(ROOT, "conference-out")
    r = subprocess.run(["bash", "scripts/conference.sh"], cwd=ROOT, timeout=300,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout[-3000:])
    check(r.returncode == 0, "bash scripts/conference.sh exits 0")
    with open(os.path.join(out_dir, "summary.json")) as f:
        summary = json.load(f)
    for pid in (1, 2, 3):
        check_tiles(out_dir, pid, [1, 2, 3])
    check_layers_fit(summary, slow=3, fast=(1, 2))
    check_fast_get_more(out_dir, slow=3, fast=(1, 2), since=15)
    check_link_filled(summary, 3, 1e6)
    check_fast_parity(out_dir, (1, 2), since=15)
    for pid in (1, 2, 3):
        check_audio(summary, pid, [o for o in (1, 2, 3) if o != pid])
    check_voice_holes_filled(out_dir, 3)
    check_late_reports(out_dir, (1, 2, 3))
    check_exits(out_dir, (1, 2, 3))
    check_files(out_dir, (1, 2, 3))
    print_losses(summary)


def join_and_leave():
    out_dir = os.path.join(BUILD, "conference-test")      # kept for a look after a failure
    if True:
        r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "conference.py"),
                            "--participants=4", "--rates=4M,4M,4M,1M", "--join=4:5",
                            "--leave=3:18", "--duration=30", f"--out-dir={out_dir}",
                            f"--binary={os.path.join(BUILD, 'examples', 'conference')}"],
                           timeout=300, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        print(r.stdout[-3000:])
        check(r.returncode == 0, "conference.py exits 0")
        for pid in (1, 2, 4):
            check_tiles(out_dir, pid, [1, 2, 4])
        check_tiles(out_dir, 3, [1, 2, 3, 4])
        for pid in (1, 2, 3, 4):
            seen = check_first_pictures(out_dir, pid, slow=4)
            check(seen == {1, 2, 3, 4} - {pid}, f"p{pid} decoded every other participant: "
                  f"{sorted(seen)}")
        with open(os.path.join(out_dir, "summary.json")) as f:
            summary = json.load(f)
        # the second half; p3 leaves in it, so p1 and p2 are the fast ones
        check_layers_fit(summary, slow=4, fast=(1, 2))
        check_link_filled(summary, 4, 1e6)
        check_fast_get_more(out_dir, slow=4, fast=(1, 2), since=15)
        check_late_reports(out_dir, (1, 2, 3, 4))
        check_exits(out_dir, (1, 2, 3, 4))
        check_files(out_dir, (1, 2, 3, 4))


def main():
    netbed.require_or_skip()
    readme_command()
    join_and_leave()
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
