#!/usr/bin/env python3
"""tpbasink -> tpbasrc between two namespaces through a 4 Mbit/s tbf
bottleneck: a live H.264 stream switches between TCP (probing) and UDP
(running) several times and every frame decodes bit-exact (the receiver's
decoded frame hashes equal the sender's own decode, as test_fec_h264.py
checks); a third host's TCP connection to the source is refused and
counted."""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

FRAMES = 300                 # 10 s at 30 fps
PORT = 5004

# Short periods so that a 10 s run switches often: cycles of 500 ms, probing
# ends when three rates agree within 20 %, running lasts 2 s.
SENDER = (
    "videotestsrc num-buffers={frames} is-live=true pattern=ball ! "
    "video/x-raw,width=320,height=240,framerate=30/1 ! "
    "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 bitrate=600 ! "
    "tee name=t ! queue ! rtph264pay mtu=1000 pt=96 config-interval=-1 ! "
    "tpbasink name=snk host={dst} port={port} t-tcp=500000000 "
    "end-criterion=proportional z=0.2 max-probe-cycles=6 t-running=2000000000 "
    "max-queue-bytes=4000000 "
    "t. ! queue ! avdec_h264 ! videoconvert ! video/x-raw,format=I420 ! checksumsink"
)
RECEIVER = (
    "tpbasrc name=src port={port} stats-interval=500000000 "
    "caps=\"application/x-rtp,media=video,clock-rate=90000,"
    "encoding-name=H264,payload=96\" ! "
    "rtph264depay ! avdec_h264 ! videoconvert ! video/x-raw,format=I420 ! checksumsink"
)


def main():
    netbed.require_or_skip()
    check = netbed.Checks()

    with netbed.NetBed() as bed:
        snd, rcv, evil = bed.host("snd"), bed.host("rcv"), bed.host("evil")
        bed.link(snd, rcv, "10.77.1.1/24", "10.77.1.2/24")
        bed.link(evil, rcv, "10.77.2.1/24", "10.77.2.2/24")
        bed.bottleneck(snd, "eth0", rate_bps=4_000_000)

        rx = rcv.popen(["sh", "-c", "exec gst-launch-1.0 -m -e " +
                        RECEIVER.format(port=PORT)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        tx = snd.popen(["sh", "-c", "exec gst-launch-1.0 -m " + SENDER.format(
            frames=FRAMES, dst="10.77.1.2", port=PORT)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # mid-stream, a stranger connects to the source's TCP port
        time.sleep(4.0)
        s = evil.socket(type=netbed.socket.SOCK_STREAM)
        s.settimeout(3)
        try:
            s.connect(("10.77.2.2", PORT))
            closed = s.recv(16) == b""
        except OSError as e:
            closed = True
            print(f"stranger: {e}")
        s.close()
        out_tx, err_tx = tx.communicate(timeout=45)
        time.sleep(2.0)
        rx.send_signal(signal.SIGINT)
        out_rx, err_rx = rx.communicate(timeout=20)

    sent, got = netbed.checksum_hashes(out_tx), netbed.checksum_hashes(out_rx)
    periods = netbed.element_messages(out_tx, "snk", "tpba-period")
    transports = netbed.element_messages(out_tx, "snk", "tpba-transport")
    sstats = netbed.element_messages(out_tx, "snk", "tpba-stats")
    rstats = netbed.element_messages(out_rx, "src", "tpba-stats")
    last_s = sstats[-1] if sstats else {}
    if not sstats:   # the sink posts its stats at EOS: say how the sender ended
        print(f"no tpba-stats from the sink; sender exit {tx.returncode}, "
              f"its stderr ends: {err_tx[-400:]!r}")
    last_r = rstats[-1] if rstats else {}
    print("r_s per running period:", [p.get("r-s") for p in periods
                                      if p.get("period") == "running"])
    print("sink:", {k: last_s.get(k) for k in (
        "switches", "packets-tcp", "packets-udp", "dropped-packets", "r-s", "rate")})
    print("src:", {k: last_r.get(k) for k in (
        "packets-tcp", "packets-udp", "delivered", "duplicates", "late",
        "skipped", "tcp-refused", "tcp-accepted")})

    check("sender produced every frame", len(sent) == FRAMES,
          f"{len(sent)} of {FRAMES}" + ("" if sent else f"; {err_tx[-400:]}"))
    check("the stream switched transports several times",
          len(transports) >= 3 and int(last_s.get("packets-tcp", 0)) > 0
          and int(last_s.get("packets-udp", 0)) > 0,
          f"{len(transports)} switches: "
          f"{[t.get('transport') for t in transports]}")
    check("no packet dropped by the sender queue",
          last_s.get("dropped-packets") == "0", f"{last_s.get('dropped-packets')}")
    check("every frame decodes bit-exact across the switches", got == sent,
          f"{len(got)} frames, {sum(a == b for a, b in zip(got, sent))} equal"
          + ("" if got == sent else f"; receiver said: {err_rx[-500:]}"))
    check("no duplicates or skipped gaps at the receiver",
          last_r.get("duplicates") == "0" and last_r.get("skipped") == "0",
          f"duplicates {last_r.get('duplicates')} skipped {last_r.get('skipped')}")
    check("the stranger's TCP connection was refused and counted",
          closed and last_r.get("tcp-refused") == "1"
          and last_r.get("tcp-accepted") == "1",
          f"closed at once: {closed}, tcp-refused {last_r.get('tcp-refused')}, "
          f"tcp-accepted {last_r.get('tcp-accepted')}")

    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
