#!/usr/bin/env python3
"""VLMCC (issue 19): where the followers' RTT jitter on the Figure 5 bed
comes from. Not a test: a measurement (docs/results.md, "VLMCC: the
delay program against the receive loops").

The bed of test_vlmcc_fig5.py with the session running (no TCP flow). A
probe flow of UDP datagrams, each carrying its send time (CLOCK_REALTIME,
the one clock of all namespaces), goes from the sender's host s to the
host t, which is behind the same user-space delay program (nfq-impair,
20 ms) as the receivers but behind no bottleneck: the kernel's receive
stamp (SO_TIMESTAMPNS) less the send time less 20 ms is the delay
program's hold error. The time the probe's own loop read each datagram
after the kernel stamped it is the lateness of a loaded receive loop (the
elements take the kernel's stamp, so it should not reach them). Printed
beside both: the receivers' rtt-hat samples (100 ms stats) over their
least, which is what their Vegas sees as queueing.

Usage (root): vlmcc_jitter_probe.py [SECONDS [NFQ_PRIORITY]] (NetBed's
nfq_priority, default 1; 0: the delay program scheduled as any process)"""
import os
import socket
import statistics
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_vlmcc_fig5 as fig5  # noqa: E402

PROBE_PORT = 5301
PROBE_GAP_S = 0.005
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def probe_send(sock, dst, stop):
    while not stop.is_set():
        sock.sendto(struct.pack("!Q", time.time_ns()), (dst, PROBE_PORT))
        time.sleep(PROBE_GAP_S)


def probe_receive(sock, out, stop):
    """out gets (hold error ms, loop lateness ms) per datagram."""
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.settimeout(0.2)
    while not stop.is_set():
        try:
            data, anc, _, _ = sock.recvmsg(64, 256)
        except socket.timeout:
            continue
        read_ns = time.time_ns()
        kernel_ns = None
        for level, kind, raw in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", raw[:16])
                kernel_ns = sec * 1_000_000_000 + nsec
        if kernel_ns is None or len(data) < 8:
            continue
        sent_ns = struct.unpack("!Q", data[:8])[0]
        out.append(((kernel_ns - sent_ns) / 1e6 - fig5.DELAY_MS,
                    (read_ns - kernel_ns) / 1e6))


def quantiles(xs):
    xs = sorted(xs)
    if not xs:
        return "none"
    q = lambda p: xs[min(len(xs) - 1, int(p * len(xs)))]  # noqa: E731
    return (f"n={len(xs)} median={statistics.median(xs):.2f} p90={q(0.9):.2f} "
            f"p99={q(0.99):.2f} max={xs[-1]:.2f}")


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    priority = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    netbed.require_or_skip(nfq=True)
    with netbed.NetBed(nfq_priority=priority) as bed:
        br, snd, tcp, hosts = fig5.make_bed(bed, ["r1", "r2"])
        bed.bottleneck(br, "p-r1", rate_bps=3_000_000, latency_ms=100)
        bed.bottleneck(br, "p-r2", rate_bps=2_000_000, latency_ms=100)
        rxs = {n: fig5.start_receiver(h) for n, h in hosts.items()}
        time.sleep(0.5)
        t0 = time.monotonic()
        tx = fig5.start_sender(snd)
        rsock = tcp.socket()
        rsock.bind(("10.77.5.2", PROBE_PORT))
        ssock = snd.socket()
        stop = threading.Event()
        samples = []
        threads = [threading.Thread(target=probe_receive,
                                    args=(rsock, samples, stop)),
                   threading.Thread(target=probe_send,
                                    args=(ssock, "10.77.5.2", stop))]
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join(2)
        fig5.stop(tx["proc"])
        for rx in rxs.values():
            fig5.stop(rx["proc"])
        for p in [tx] + list(rxs.values()):
            for t in p["threads"]:
                t.join(5)
        print(f"load {os.getloadavg()[0]:.1f}; {seconds:.0f} s; nfq_priority "
              f"{priority}; ms")
        print("delay program hold error:", quantiles([h for h, _ in samples]))
        print("probe loop read lateness:", quantiles([r for _, r in samples]))
        ids = {fig5.receiver_id(rx): n for n, rx in rxs.items()}
        tl = fig5.leaders(tx, ids)
        print("elections:", len(tl), [(round(t - t0, 1), w) for t, w in tl][:30])
        for n, rx in rxs.items():
            rtts = [int(f["rtt"]) / 1e6 for t, f in fig5.stats(rx)
                    if "rtt" in f and t - t0 >= 4 and f.get("role") != "none"]
            if rtts:
                least = min(rtts)
                print(f"{n} rtt-hat: least {least:.2f},",
                      "over it:", quantiles([x - least for x in rtts]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
