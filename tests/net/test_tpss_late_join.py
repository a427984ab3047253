#!/usr/bin/env python3
"""A member that joins a live H.264 group late decodes at once: three
namespaces on a bridge; m1 sends live video (x264enc with key-int-max=300
at 30 fps, so its encoder on its own makes one key frame in 10 s, at the
start), m2 receives from the start, m3 starts 3 s later. m3's tpsssrc sends
m1 a PLI (RTCP picture loss indication) with m1's first packets; m1's
tpsssink turns it into an upstream force-key-unit event, and x264enc makes
a key frame (with SPS/PPS: all-headers, and rtph264pay config-interval=-1).

Passes when m3's first decoded frame comes within 1 s of m3's first packet
from m1 (both read from m3's debug log: the tpsssrc "new pad" line and the
decoder's fakesink's first buffer), m2 decoded most of the call, and m1's
tpsssink counted the PLIs and key-unit requests. Without PLI handling m3
decodes nothing (no SPS/PPS, no key frame before the call ends).
Light on CPU: 160x120 at 30 fps for 8 s."""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

PORT = 5004
FPS = 30
SECONDS = 8
LATE = 3.0
MAX_WAIT = 1.0
CAPS = ("application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,"
        "payload=96")

SENDER = (
    "videotestsrc is-live=true num-buffers={frames} pattern=ball ! "
    "video/x-raw,width=160,height=120,framerate={fps}/1 ! "
    "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=300 "
    "bitrate=200 threads=1 ! "
    "rtph264pay mtu=1200 pt=96 config-interval=-1 ! "
    "tpsssink name=k port={port} member-id=1 {common} stats-interval=500000000")
RECEIVER = (
    "tpsssrc name=r port={port} member-id={me} {common} caps=\"{caps}\" stats-interval=1000000000 "
    "r.src_1 ! queue ! rtph264depay ! avdec_h264 ! "
    "fakesink name=dec_1 sync=false async=false")
# Debug log lines: "0:00:01.234567890 pid thread LEVEL category file:line:func:<obj> msg"
LOG_TIME = re.compile(r"^(\d+):(\d+):(\d+\.\d+)\s")
FIRST_PACKET = "new pad for member 1"
DECODED = "gst_base_sink_chain_unlocked:<dec_1>"
PLI_RECEIVED = re.compile(r"tpss-stats.*?pli-received=\(guint64\)(\d+)")
KEY_UNIT = "requesting key unit"


def log_time(line):
    m = LOG_TIME.match(line)
    if not m:
        return None
    h, mi, s = m.groups()
    return int(h) * 3600 + int(mi) * 60 + float(s)


def first_time(log, needle):
    for line in log.splitlines():
        if needle in line:
            t = log_time(line)
            if t is not None:
                return t
    return None


def count_decoded(log):
    return sum(1 for line in log.splitlines()
               if DECODED in line and "got times" in line)


def launch(host, desc, debug, logdir):
    """gst-launch in @host, its output in files: a debug log is too much for
    a pipe nobody reads until the end (the writes would block streaming)."""
    env = dict(os.environ, GST_DEBUG=debug, GST_DEBUG_NO_COLOR="1")
    out = open(os.path.join(logdir, f"{host.name}.out"), "w+")
    err = open(os.path.join(logdir, f"{host.name}.err"), "w+")
    proc = host.popen(["sh", "-c", "exec gst-launch-1.0 -m " + desc],
                      stdout=out, stderr=err, text=True, env=env)
    return proc, out, err


def finish(launched):
    proc, out, err = launched
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    texts = []
    for f in (out, err):
        f.seek(0)
        texts.append(f.read())
        f.close()
    return texts


def main():
    netbed.require_or_skip()
    check = netbed.Checks()

    logdir = os.environ.get("TPSS_LATE_JOIN_LOGS") or tempfile.mkdtemp(prefix="tpss-late-join-")
    with netbed.NetBed() as bed:
        br = bed.bridge("br")
        hosts = {i: bed.host(f"m{i}") for i in (1, 2, 3)}
        for i, h in hosts.items():
            bed.attach(h, br, f"10.77.4.{i}/24")
        members = ",".join(f"{i}@{h.ip}:{PORT}" for i, h in hosts.items())
        common = f"members={members}"
        debug = os.environ.get("TPSS_LATE_JOIN_DEBUG", "tpsssrc:4,basesink:5")
        receiver = {i: RECEIVER.format(port=PORT, me=i, common=common, caps=CAPS)
                    for i in (2, 3)}
        m2 = launch(hosts[2], receiver[2], debug, logdir)
        m1 = launch(hosts[1], SENDER.format(frames=FPS * SECONDS, fps=FPS, port=PORT,
                                            common=common), "tpsssink:5", logdir)
        time.sleep(LATE)
        m3 = launch(hosts[3], receiver[3], debug, logdir)
        # The sender stops after SECONDS; m3 has had SECONDS - LATE of it.
        time.sleep(SECONDS - LATE + 1.5)
        out3, err3 = finish(m3)
        out2, err2 = finish(m2)
        out1, err1 = finish(m1)

    first = first_time(err3, FIRST_PACKET)
    decoded = first_time(err3, DECODED + " got times")
    check("m3 received m1's stream", first is not None,
          "first packet seen" if first is not None else f"stderr: {err3[-400:]}")
    if first is not None:
        wait = None if decoded is None else decoded - first
        check(f"m3 decoded within {MAX_WAIT:.0f} s of its first packet",
              wait is not None and wait <= MAX_WAIT,
              "nothing decoded" if wait is None else f"first frame after {wait:.3f} s")
    got3, late_frames = count_decoded(err3), int((SECONDS - LATE) * FPS)
    check("m3 decoded the rest of the call", got3 >= late_frames // 2,
          f"{got3} frames of about {late_frames}")
    got2 = count_decoded(err2)
    check("m2, there from the start, decoded the call", got2 >= FPS * SECONDS // 2,
          f"{got2} frames of {FPS * SECONDS}")
    stats = PLI_RECEIVED.findall(out1)
    pli = int(stats[-1]) if stats else 0
    requests = err1.count(KEY_UNIT)
    check("m1 turned the PLIs into key-unit requests", pli >= 2 and requests >= 2,
          f"pli-received={pli}, key-unit requests={requests}"
          + ("" if stats else f"; stderr: {err1[-400:]}"))
    if not os.environ.get("TPSS_LATE_JOIN_LOGS"):
        shutil.rmtree(logdir, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
