#!/usr/bin/env python3
"""A receiver that joins a running TPBA stream decodes within a second.

The sender (x264enc with key-int-max=300 at 30 fps: one keyframe every 10 s)
runs 3 s before the receiver starts, so no periodic keyframe can help: the
receiver's tpbasrc sends an RTCP PLI (RFC 4585) when the sender's first
packet arrives, tpbasink turns it into an upstream force-key-unit event, and
x264enc sends a keyframe. Pass: the first decoded frame comes within 1 s of
the first packet (both as running-time PTS of the receiver: tpbasrc stamps
packets on arrival and the decoder keeps the stamp of the keyframe's
packets), and the PLI is counted on both sides.

The sink runs mode=lda (UDP only, r-0 2 Mbit/s) so that packets flow to
nobody before the receiver exists, as for any late joiner; in the default
tpba mode the sink holds the stream in its queue until its TCP connection is
accepted, and the queue starts with the stream's first keyframe."""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

PORT = 5004
JOIN_AFTER = 3.0             # s between the sender's start and the receiver's
LIMIT = 1.0                  # s from the first packet to the first frame
PTS = re.compile(r'/(\w+):(\w+): last-message = chain .*pts: (\d+):(\d+):(\d+\.\d+)')

SENDER = (
    "videotestsrc num-buffers=270 is-live=true pattern=ball ! "
    "video/x-raw,width=320,height=240,framerate=30/1 ! "
    "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=300 bitrate=600 ! "
    "rtph264pay mtu=1000 pt=96 config-interval=-1 ! "
    "tpbasink name=snk host={dst} port={port} mode=lda r-0=2000000 "
    "connect-timeout=20000000000"
)
RECEIVER = (
    "tpbasrc name=src port={port} stats-interval=500000000 "
    "caps=\"application/x-rtp,media=video,clock-rate=90000,"
    "encoding-name=H264,payload=96\" ! identity name=arrived silent=false ! "
    "rtph264depay ! avdec_h264 output-corrupt=false ! "
    "fakesink name=decoded silent=false sync=false"
)


def first_pts(text, element):
    """The PTS (s) of the first buffer `element` reported (-v last-message)."""
    for line in text.splitlines():
        m = PTS.search(line)
        if m and m.group(2) == element:
            return int(m.group(3)) * 3600 + int(m.group(4)) * 60 + float(m.group(5))
    return None


def main():
    netbed.require_or_skip()
    check = netbed.Checks()

    with netbed.NetBed() as bed:
        snd, rcv = bed.host("snd"), bed.host("rcv")
        bed.link(snd, rcv, "10.77.3.1/24", "10.77.3.2/24")
        bed.bottleneck(snd, "eth0", rate_bps=4_000_000)

        tx = snd.popen(["sh", "-c", "exec gst-launch-1.0 -m " + SENDER.format(
            dst="10.77.3.2", port=PORT)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(JOIN_AFTER)
        # -v prints a line per buffer: to a file, which never blocks the
        # receiver's streaming thread as a full pipe would
        out_file = tempfile.TemporaryFile(mode="w+")
        rx = rcv.popen(["sh", "-c", "exec gst-launch-1.0 -m -v -e " +
                        RECEIVER.format(port=PORT)],
                       stdout=out_file, stderr=subprocess.PIPE, text=True)
        out_tx, err_tx = tx.communicate(timeout=60)
        time.sleep(1.0)
        netbed.interrupt(rx)
        _, err_rx = rx.communicate(timeout=20)
        out_file.seek(0)
        out_rx = out_file.read()
        out_file.close()

    if os.environ.get("TPBA_TEST_DUMP"):
        for name, text in (("tx.out", out_tx), ("tx.err", err_tx),
                           ("rx.out", out_rx), ("rx.err", err_rx)):
            with open(os.path.join(os.environ["TPBA_TEST_DUMP"], name), "w") as f:
                f.write(text)
    arrived, decoded = first_pts(out_rx, "arrived"), first_pts(out_rx, "decoded")
    sstats = netbed.element_messages(out_tx, "snk", "tpba-stats")
    rstats = netbed.element_messages(out_rx, "src", "tpba-stats")
    last_s = sstats[-1] if sstats else {}
    last_r = rstats[-1] if rstats else {}
    frames = sum(1 for line in out_rx.splitlines()
                 if "decoded: last-message = chain" in line)
    print(f"first packet at {arrived} s, first frame at {decoded} s (receiver "
          f"running time), {frames} frames decoded")
    print("sink:", {k: last_s.get(k) for k in (
        "pli-received", "pli-ignored", "key-unit-requests", "packets-udp")})
    print("src:", {k: last_r.get(k) for k in (
        "pli-sent", "key-unit-requests", "delivered", "tcp-accepted")})

    check("the sender ran to the end", tx.returncode == 0,
          f"exit {tx.returncode}; {err_tx[-300:]}")
    check("the receiver got packets", arrived is not None, err_rx[-300:])
    check(f"the first frame decoded within {LIMIT} s of the first packet",
          arrived is not None and decoded is not None and decoded - arrived <= LIMIT,
          "never decoded" if decoded is None or arrived is None
          else f"{decoded - arrived:.3f} s")
    check("the receiver sent a PLI and the sender asked for a key unit",
          int(last_r.get("pli-sent", 0)) >= 1
          and int(last_s.get("key-unit-requests", 0)) >= 1,
          f"pli-sent {last_r.get('pli-sent')}, pli-received "
          f"{last_s.get('pli-received')}, key-unit-requests "
          f"{last_s.get('key-unit-requests')}")

    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
