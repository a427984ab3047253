#!/usr/bin/env python3
"""A four-member live H.264 call over TPSS + NQCP: four namespaces on a
bridge, every member sends its own live video (videotestsrc is-live=true !
x264enc ! rtph264pay ! tpsssink) to the three others and receives theirs
(tpsssrc, one pad per other member, each to rtph264depay ! avdec_h264 ! a
counting fakesink). Passes when, for each of the 12 (receiver, sender)
pairs, the receiver decoded at least 75% of the frames the sender encoded,
counted as distinct timestamps (a depayloader that lost a marker may split
one frame in two). 75% tolerates one lost group of pictures (15 frames) at
the start, where the slow start's initial rate meets the first key frame;
on a loaded machine that happens (one pair at 81% seen).
Light on CPU: 160x120 at 15 fps for 5 s per member."""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

PORT = 5004
FPS = 15
SECONDS = 5
FRAMES = FPS * SECONDS
MEMBERS = (1, 2, 3, 4)
MIN_RATIO = 0.75
CAPS = ("application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,"
        "payload=96")
# fakesink silent=false under gst-launch -v prints one last-message per buffer.
CHAIN = re.compile(r"GstFakeSink:(\w+): last-message = chain.*?pts: ([\d:.]+|none)")

PIPELINE = (
    "-v videotestsrc is-live=true num-buffers={frames} pattern={pattern} ! "
    "video/x-raw,width=160,height=120,framerate={fps}/1 ! "
    "x264enc tune=zerolatency speed-preset=ultrafast key-int-max={fps} "
    "bitrate=150 threads=1 ! tee name=t ! queue ! "
    "rtph264pay mtu=1200 pt=96 config-interval=-1 ! "
    "tpsssink name=k port={port} member-id={me} {common} "
    "t. ! queue ! fakesink name=enc silent=false sync=false async=false "
    "tpsssrc name=r port={port} member-id={me} {common} caps=\"{caps}\" "
    "{receivers}")
RECEIVER = ("r.src_{src} ! queue ! rtph264depay ! avdec_h264 ! "
            "fakesink name=dec_{src} silent=false sync=false async=false")


def count(text):
    """{sink name: distinct buffer timestamps} from gst-launch -v output."""
    out = {}
    for m in CHAIN.finditer(text):
        out.setdefault(m.group(1), set()).add(m.group(2))
    return {name: len(pts) for name, pts in out.items()}


def main():
    netbed.require_or_skip()
    check = netbed.Checks()

    started = time.monotonic()
    with netbed.NetBed() as bed:
        br = bed.bridge("br")
        hosts = {i: bed.host(f"m{i}") for i in MEMBERS}
        for i, h in hosts.items():
            bed.attach(h, br, f"10.77.3.{i}/24")
        members = ",".join(f"{i}@{h.ip}:{PORT}" for i, h in hosts.items())
        common = f"members={members}"
        procs = {}
        patterns = {1: "ball", 2: "smpte", 3: "snow", 4: "pinwheel"}
        for i in MEMBERS:
            receivers = " ".join(RECEIVER.format(src=j)
                                 for j in MEMBERS if j != i)
            cmd = PIPELINE.format(frames=FRAMES, pattern=patterns[i], fps=FPS,
                                  port=PORT, me=i, common=common, caps=CAPS,
                                  receivers=receivers)
            procs[i] = hosts[i].popen(
                ["sh", "-c", "exec gst-launch-1.0 " + cmd],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Sources stop after FRAMES frames; leave time for the holding time,
        # the pacing and the receivers' jitter wait to drain.
        time.sleep(SECONDS + 4.0)
        for p in procs.values():
            p.send_signal(signal.SIGINT)
        outs, errs = {}, {}
        for i, p in procs.items():
            try:
                outs[i], errs[i] = p.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                outs[i], errs[i] = p.communicate()

    counts = {i: count(outs[i]) for i in MEMBERS}
    for i in MEMBERS:
        sent = counts[i].get("enc", 0)
        check(f"m{i} encoded its video", sent >= FRAMES * MIN_RATIO,
              f"{sent} of {FRAMES} frames"
              + ("" if sent else f"; stderr: {errs[i][-300:]}"))
    for rcv in MEMBERS:
        for snd in MEMBERS:
            if snd == rcv:
                continue
            sent = counts[snd].get("enc", 0)
            got = counts[rcv].get(f"dec_{snd}", 0)
            ok = sent > 0 and got >= MIN_RATIO * sent
            check(f"m{rcv} decoded m{snd}'s video", ok,
                  f"{got} of {sent} frames ({100 * got / max(sent, 1):.0f}%)"
                  + ("" if ok else f"; m{rcv} stderr: {errs[rcv][-300:]}"))
    elapsed = time.monotonic() - started
    check("the whole call took under a minute", elapsed < 60,
          f"{elapsed:.1f} s")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
