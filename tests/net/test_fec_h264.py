#!/usr/bin/env python3
"""Live H.264 over RTP between two namespaces with burst loss on the media
port: with tpssfecenc/tpssfecdec every frame arrives bit-exact (decoded
frame hashes equal the sender's own decode); with parity turned off the same
loss corrupts or loses frames, so the test can tell the difference."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

FRAMES = 150                 # 5 s at 30 fps
K, L = 4, 5                  # packet distance, subsegment length
BURST, EVERY = 4, 45         # bursts of 4 media packets, one every 45
MEDIA_PORT, FEC_PORT = 5004, 5006

SENDER = (
    "videotestsrc num-buffers={frames} is-live=true pattern=ball ! "
    "video/x-raw,width=320,height=240,framerate=30/1 ! "
    "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=60 bitrate=600 ! "
    "tee name=t ! queue ! rtph264pay mtu=1000 pt=96 config-interval=-1 ! "
    "tpssfecenc name=fec packet-distance={k} subsegment-length={l} pt=100 ! "
    "udpsink host={dst} port={mport} "
    "fec.fec_0 ! udpsink host={dst} port={fport} async=false "
    "t. ! queue ! avdec_h264 ! videoconvert ! video/x-raw,format=I420 ! checksumsink"
)
RECEIVER = (
    "udpsrc port={mport} caps=\"application/x-rtp,media=video,clock-rate=90000,"
    "encoding-name=H264,payload=96\" ! tpssfecdec name=dec size-time=500000000 pt=100 ! "
    "rtph264depay ! avdec_h264 ! videoconvert ! video/x-raw,format=I420 ! checksumsink "
    "udpsrc port={fport} caps=\"application/x-rtp,payload=100\" ! dec.fec_0"
)


def run_once(bed, snd, rcv, parity_length):
    """Streams FRAMES frames; returns (sent hashes, received hashes, drops)."""
    loss = bed.burst_loss(snd, "eth0", every=EVERY, burst_len=BURST,
                          udp_port=MEDIA_PORT)
    rx = rcv.popen(["sh", "-c", "exec gst-launch-1.0 -q -e " + RECEIVER.format(
        mport=MEDIA_PORT, fport=FEC_PORT)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    tx = snd.run(["sh", "-c", "exec gst-launch-1.0 -q " + SENDER.format(
        frames=FRAMES, k=K, l=parity_length, dst=rcv.ip, mport=MEDIA_PORT,
        fport=FEC_PORT)], timeout=60)
    time.sleep(1.0)
    rx.send_signal(signal.SIGINT)
    out, err = rx.communicate(timeout=20)
    stats = loss.remove()
    return netbed.checksum_hashes(tx.stdout), netbed.checksum_hashes(out), stats, err


def main():
    netbed.require_or_skip(nfq=True)
    check = netbed.Checks()

    with netbed.NetBed() as bed:
        snd, rcv = bed.host("snd"), bed.host("rcv")
        bed.link(snd, rcv, "10.77.1.1/24", "10.77.1.2/24")

        sent, got, stats, err = run_once(bed, snd, rcv, L)
        check("sender produced every frame", len(sent) == FRAMES,
              f"{len(sent)} of {FRAMES}")
        check("burst loss hit the media", stats["dropped"] >= 10 * BURST,
              f"{stats}")
        check("with FEC every frame decodes bit-exact", got == sent,
              f"{len(got)} frames, {sum(a == b for a, b in zip(got, sent))} equal"
              + ("" if got == sent else f"; receiver said: {err[-500:]}"))

        sent, got, stats, _ = run_once(bed, snd, rcv, 0)
        check("without parity the same loss damages the video", got != sent,
              f"{len(got)} of {len(sent)} frames, "
              f"{sum(a == b for a, b in zip(got, sent))} equal, {stats}")

    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
