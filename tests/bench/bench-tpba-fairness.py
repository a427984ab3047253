#!/usr/bin/env python3
"""TPBA fairness against TCP: a first cut of the experiment of section 6 of
Tobe et al., "TCP-Rate-Probing-Based Adaptation" (docs/results.md,
"TPBA: fairness against TCP (first cut)").

One tpbasink -> tpbasrc flow (a greedy raw-video RTP source, ~15 Mbit/s, so
the scheme and not the source sets the rate) shares a tbf bottleneck with 1
or 3 greedy TCP flows (CUBIC, as the TPBA probing connection) on a short-RTT
link. Scenarios: bottleneck 1.2 and 10 Mbit/s x 1 and 3 TCP flows; variants:
TPBA (paper defaults), TPBA end-criterion=proportional (z 5 %), LDA (mode=lda,
bottleneck = the tbf rate). Each run lasts RUN s of TPBA.

Rates are measured at the receivers over 1 s windows (S_average = 1 s, as the
paper): TPBA from the tpbasrc `tpba-stats` messages (RTP bytes over UDP + TCP,
every 100 ms), TCP by counting the bytes each Python receiver gets. Per
window: Jain's index f = (sum R)^2 / (n sum R^2). Over the steady windows
[WARMUP, end - TAIL): f median / min, TPBA share / fair share. From the
paper's section 6.2 definitions, with n_cross = the first window where the
TPBA rate is >= that of some TCP flow (the paper's R_3 >= R_1 or R_2) and the
run's end standing in for n_change: dR_intra (largest max-min of a flow's
window rates) and dR_ave1 (largest difference of two flows' mean rates).
dR_ave2 (after a flow joins at 200 s) and the response times T_pr / T_pi (a
change of the available bandwidth) need a traffic change these runs do not
have: not computed.

Needs root (network namespaces); exits 77 (skip) otherwise.
Environment: BENCH_TPBA_RUN (s per run, default 40), BENCH_TPBA_DELAY_MS
(one-way delay added with netbed/nfq-impair, default 0: base RTT < 1 ms),
BENCH_TPBA_ONLY (comma-separated substrings: run only matching cases),
BENCH_TPBA_JSON (write every run's 1 s window rates, bit/s, flow 0 = TPBA)."""
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "net"))
import netbed  # noqa: E402

RUN = int(os.environ.get("BENCH_TPBA_RUN", "40"))
DELAY_MS = int(os.environ.get("BENCH_TPBA_DELAY_MS", "0"))
ONLY = [s for s in os.environ.get("BENCH_TPBA_ONLY", "").split(",") if s]
WARMUP, TAIL = 8, 2
PORT, CROSS_PORT = 5004, 6000
CC = "cubic"
W, H, FPS = 240, 180, 30          # I420: 240*180*1.5*8*30 = 15.6 Mbit/s

BOTTLENECKS = [1_200_000, 10_000_000]
NTCP = [1, 3]
VARIANTS = {
    "TPBA": "",
    "TPBA-prop": "end-criterion=proportional",
    "LDA": "mode=lda bottleneck={b}",
}

MSG = re.compile(r'^Got message #\d+ from element "(\w+)" \(element\): '
                 r'([\w-]+), (.*)$')
SENDER = (
    "videotestsrc is-live=true pattern=snow num-buffers={frames} ! "
    f"video/x-raw,format=I420,width={W},height={H},framerate={FPS}/1 ! "
    "rtpvrawpay mtu=1200 ! "
    "tpbasink name=snk host={dst} port={port} tcp-congestion={cc} "
    "stats-interval=1000000000 {extra}"
)
RECEIVER = (
    "tpbasrc name=src port={port} stats-interval=100000000 "
    "caps=\"application/x-rtp,media=video,clock-rate=90000,encoding-name=RAW,"
    f"sampling=YCbCr-4:2:0,depth=(string)8,width=(string){W},height=(string){H},"
    "payload=96\" ! fakesink sync=false"
)


def fields(text):
    return {k: v.strip('"') for k, v in
            re.findall(r'([\w-]+)=\([\w]+\)("[^"]*"|[^,;]+)', text)}


def bytes_at(samples, t):
    """cumulative bytes at time t: linear between the (t, bytes) samples."""
    if not samples or t <= samples[0][0]:
        return samples[0][1] if samples else 0
    lo, hi = 0, len(samples) - 1
    if t >= samples[hi][0]:
        return samples[hi][1]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if samples[mid][0] <= t:
            lo = mid
        else:
            hi = mid
    (ta, ba), (tb, bb) = samples[lo], samples[hi]
    return ba + (bb - ba) * (t - ta) / (tb - ta) if tb > ta else bb


def windows(samples, t0, n):
    """bit/s over [t0 + j, t0 + j + 1), j < n."""
    return [8 * (bytes_at(samples, t0 + j + 1) - bytes_at(samples, t0 + j))
            for j in range(n)]


def jain(rates):
    s, q = sum(rates), sum(r * r for r in rates)
    return s * s / (len(rates) * q) if q > 0 else 0.0


def run_case(bottleneck, ntcp, variant):
    extra = VARIANTS[variant].format(b=bottleneck)
    with netbed.NetBed() as bed:
        snd, rcv = bed.host("snd"), bed.host("rcv")
        bed.link(snd, rcv, "10.77.1.1/24", "10.77.1.2/24")
        bed.bottleneck(snd, "eth0", rate_bps=bottleneck, latency_ms=50)
        # the other half of the paper's cwnd change (docs/protocols/tpba.md)
        snd.run(["sysctl", "-q", "-w", "net.ipv4.tcp_slow_start_after_idle=0"])
        if DELAY_MS:
            bed.delay(snd, "eth0", DELAY_MS)

        stop = threading.Event()
        cross = [[] for _ in range(ntcp)]
        threads = []

        def cross_rx(lsock, out):
            c, _ = lsock.accept()
            c.settimeout(0.5)
            total = 0
            while not stop.is_set():
                try:
                    n = len(c.recv(65536))
                except socket.timeout:
                    continue
                except OSError:
                    break
                if n == 0:
                    break
                total += n
                out.append((time.monotonic(), total))
            c.close()

        def cross_tx(port):
            s = snd.socket(type=socket.SOCK_STREAM)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, CC.encode())
            s.connect(("10.77.1.2", port))
            buf = bytes(65536)
            try:
                while not stop.is_set():
                    s.send(buf)
            except OSError:
                pass
            s.close()

        for k in range(ntcp):
            lsock = rcv.socket(type=socket.SOCK_STREAM)
            lsock.bind(("10.77.1.2", CROSS_PORT + k))
            lsock.listen(1)
            threads.append(threading.Thread(target=cross_rx, args=(lsock, cross[k]),
                                            daemon=True))
            threads.append(threading.Thread(target=cross_tx, args=(CROSS_PORT + k,),
                                            daemon=True))
        for t in threads:
            t.start()
        time.sleep(2.0)

        tpba = []
        rx = rcv.popen(["sh", "-c", "exec gst-launch-1.0 -m -e " +
                        RECEIVER.format(port=PORT)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def rx_reader():
            for line in rx.stdout:
                m = MSG.match(line.strip())
                if m and m.group(1) == "src" and m.group(2) == "tpba-stats":
                    f = fields(m.group(3))
                    tpba.append((time.monotonic(), int(f.get("bytes-udp", 0))
                                 + int(f.get("bytes-tcp", 0))))
        threading.Thread(target=rx_reader, daemon=True).start()
        time.sleep(1.0)
        t_start = time.monotonic()
        tx = snd.popen(["sh", "-c", "exec gst-launch-1.0 -m " + SENDER.format(
            frames=RUN * FPS, dst="10.77.1.2", port=PORT, cc=CC, extra=extra)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out_tx, err_tx = tx.communicate(timeout=RUN + 20)
        except subprocess.TimeoutExpired:
            tx.kill()
            out_tx, err_tx = tx.communicate()
        t_end = time.monotonic()
        stop.set()
        rx.send_signal(signal.SIGINT)
        try:
            rx.wait(timeout=10)
        except subprocess.TimeoutExpired:
            rx.kill()

    last, periods = {}, []
    for line in out_tx.splitlines():
        m = MSG.match(line.strip())
        if m and m.group(1) == "snk":
            f = fields(m.group(3))
            if m.group(2) == "tpba-stats":
                last = f
            elif m.group(2) == "tpba-period":
                periods.append((f.get("period"), f.get("r-s")))

    n = int(t_end - t_start)
    if os.environ.get("BENCH_TPBA_DEBUG"):
        print("# sink stats:", last, "\n# periods:", periods, "\n# stderr:",
              err_tx[-500:], flush=True)
    R = [windows(tpba, t_start, n)] + [windows(c, t_start, n) for c in cross]
    steady = range(WARMUP, max(WARMUP + 1, n - TAIL))
    fs = [jain([r[j] for r in R]) for j in steady]
    # reference: how fair the TCP flows are among themselves (3 TCP only)
    f_tcp = statistics.median(jain([r[j] for r in R[1:]]) for j in steady) \
        if ntcp > 1 else None
    fair = bottleneck / (ntcp + 1)
    share = statistics.mean(R[0][j] for j in steady) / fair
    total = statistics.mean(sum(r[j] for r in R) for j in steady) / bottleneck
    # n_cross: first window with R_tpba >= R of some TCP flow (paper, 6.2)
    n_cross = next((j for j in range(n - TAIL)
                    if any(R[0][j] >= r[j] for r in R[1:])), None)
    j0 = n_cross if n_cross is not None else WARMUP
    span = range(j0, max(j0 + 1, n - TAIL))
    d_intra = max(max(r[j] for j in span) - min(r[j] for j in span) for r in R)
    means = [statistics.mean(r[j] for j in span) for r in R]
    d_ave1 = max(means) - min(means)
    return {
        "bottleneck": bottleneck, "ntcp": ntcp, "variant": variant,
        "ok": tx.returncode == 0 and len(tpba) > 2,
        "err": "" if tx.returncode == 0 else err_tx[-300:],
        "f_med": statistics.median(fs), "f_min": min(fs), "f_tcp": f_tcp,
        "R": R, "share": share,
        "util": total, "n_cross": n_cross, "d_intra": d_intra, "d_ave1": d_ave1,
        "tpba_kbps": statistics.mean(R[0][j] for j in steady) / 1e3,
        "tcp_kbps": [statistics.mean(r[j] for j in steady) / 1e3 for r in R[1:]],
        "periods": sum(1 for p in periods if p[0] == "running"),
        "switches": last.get("switches"), "reductions": last.get("reductions"),
        "dropped": last.get("dropped-adus"), "n": n,
    }


def fmt_row(r):
    nc = "-" if r["n_cross"] is None else str(r["n_cross"])
    tcp = "/".join(f"{x:.0f}" for x in r["tcp_kbps"])
    ft = "-" if r["f_tcp"] is None else f"{r['f_tcp']:.3f}"
    return (f"| {r['bottleneck'] / 1e6:g} Mbit/s, {r['ntcp']} TCP | {r['variant']} | "
            f"{r['f_med']:.3f} / {r['f_min']:.3f} | {ft} | {r['share']:.2f} | "
            f"{r['tpba_kbps']:.0f} | {tcp} | {r['util']:.2f} | {nc} | "
            f"{r['d_intra'] / 1e3:.0f} | {r['d_ave1'] / 1e3:.0f} | "
            f"{r['periods']} | {r['reductions']} |")


HEADER = ("| scenario | variant | f median / min | f TCP only | TPBA share / fair | "
          "TPBA kbit/s | "
          "TCP kbit/s | util | n_cross | dR_intra kbit/s | dR_ave1 kbit/s | "
          "running periods | reductions |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def main():
    netbed.require_or_skip(nfq=bool(DELAY_MS))
    print(f"# TPBA fairness: {RUN} s per run, steady windows [{WARMUP}, end-{TAIL}) s, "
          f"CC {CC}, added one-way delay {DELAY_MS} ms", flush=True)
    rows = []
    t0 = time.monotonic()
    for b in BOTTLENECKS:
        for k in NTCP:
            for v in VARIANTS:
                name = f"{b / 1e6:g}M-{k}tcp-{v}"
                if ONLY and not any(s in name for s in ONLY):
                    continue
                r = run_case(b, k, v)
                rows.append(r)
                print(f"# {name}: {time.monotonic() - t0:.0f} s elapsed"
                      + ("" if r["ok"] else f" FAILED {r['err']}"), flush=True)
                print(fmt_row(r), flush=True)
    print()
    print(HEADER)
    for r in rows:
        print(fmt_row(r))
    if os.environ.get("BENCH_TPBA_JSON"):
        import json
        with open(os.environ["BENCH_TPBA_JSON"], "w") as fp:
            json.dump(rows, fp)
    bad = [r for r in rows if not r["ok"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
