#!/usr/bin/env python3
"""VLMCC against greedy TCP on the namespace bed (issue 19), side by side with
its peers in the same place: one more TCP flow (the reference: what the bed
lets a TCP-friendly scheme reach) and UFTP's TFMCC (`uftp -C tfmcc`).

Topology (test_vlmcc_fig5.py's bed): a bridge with the multicast sender s,
the TCP sender t and the receiver r; the bridge port toward r is the
bottleneck: a tbf with a 100 ms drop-tail queue ("tbf") or netbed's
user-space aqm_bottleneck with the same rate and queue ("red", "codel").
Everything s and t send takes 20 ms more (nfq delay), so every flow has
the same base RTT.

Schemes in the scheme's place: "VLMCC" (the paper's Vegas), "VLMCC-vplus"
(the loss-based fallback of docs/protocols/vlmcc.md, vegas-plus=true),
"VLMCC-fwd" (Vegas on the forward delay, vegas-delay=forward),
"VLMCC-minrtt" (vegas-delay=min-rtt), "VLMCC-vplus-fwd" (both options)
"VLMCC-vplus-cubic" (vegas-plus=true plus-loss-mode=cubic: the
loss-based mode grows as CUBIC) and "VLMCC-vplus-cubic-linux"
(plus-loss-mode=cubic-linux: its Reno-friendly region as Linux's),
"VLMCC-nocatch" and "VLMCC-vplus-nocatch" (VLMCC and VLMCC-vplus with
pacing-catch-up=0: the sink's pace does not make up a late turn),
"VLMCC-vplus-hold" (VLMCC-vplus with plus-recovery-hold=true: no growth
for an RTT after a reduction), "VLMCC-vplus-seg" (plus-loss-segment=1448:
reductions in whole TCP segments) and "VLMCC-vplus-seg-hold" (both; these
ten are not in the default list),
"TCP" (one more greedy flow, the reference), "TCP-paced" (the same flow
with the kernel's pacing, netbed.greedy_tcp's paced: a loss-based flow that
paces as VLMCC does, beside the unpaced TCP flows), "CBR-fair" (UDP of MTU-byte
datagrams paced at exactly b / (N + 1) on the wire, netbed.paced_udp: how a
flow holding its fair share fares beside the TCP flows, and what they do
with the rest; not in the default list) and "TFMCC" (uftp sending a
file with a maximum rate of twice the bottleneck to one uftpd). The VLMCC
sender is greedy raw video (videotestsrc ! rtpvrawpay mtu=1000, 27 Mbit/s)
that vlmccsink paces to its window, so the scheme and not the source sets
the rate; one vlmccsrc receiver on r.

All flows start together; rates are measured at r: TCP by the bytes the
receiving sockets count, the multicast schemes by an nftables counter of
UDP payload to their port. Metrics over [WARMUP, END): Jain's f over the
flows' mean rates, its median per 1 s window, and the scheme's share of the
fair rate b / (N + 1). VLMCC runs report in [WARMUP, END) the packets the
receiver missed (drops), those the sender took as lost (drops and acks
later than its timeout) and its halvings (with N = 0: the paper's Figure
4b, no loss in steady state), and the sink's median window, base RTT and
RTT and the part of the time its window was loss-based (Vegas+); the saved
runs keep the sink's stats per 0.5 s (time, W, RTT, Vegas delay, loss-based,
losses taken, halvings, switches) for a closer look. Every run also keeps
the TCP sender's counters over [WARMUP, END) (all its flows together, from
nstat: segments sent and retransmitted, timeouts, tail loss probes, fast
recoveries), to set the scheme's reductions beside TCP's; with
BENCH_VLMCC_SS=1 also each TCP flow's cwnd, ssthresh and RTT every 0.25 s
(`ss -tin` on the sender).

Environment (comma-separated lists): BENCH_VLMCC_BOTTLENECK (Mbit/s: 2),
BENCH_VLMCC_QDISC (tbf,codel), BENCH_VLMCC_NTCP (1,2), BENCH_VLMCC_CC
(cubic), BENCH_VLMCC_SCHEMES (VLMCC,VLMCC-vplus,TCP,TFMCC),
BENCH_VLMCC_TRIALS (1), BENCH_VLMCC_TIMES ("END,WARMUP" s: 50,15),
BENCH_VLMCC_JITTER (ms: 0; jitter uniform in [0, ms] on everything r sends,
its acks, in order: netbed's jitter on r's link), BENCH_VLMCC_JSON (write
the runs), BENCH_VLMCC_MTU (bytes: 1000; the VLMCC sender's RTP packets
at most this, and the sink's packet-size: 1448 sends TCP's segment size).
`bench_vlmcc_fairness.py --report A.json ...` prints the tables of runs
saved before. The default grid is 16 runs, about 15 minutes. With
BENCH_VLMCC_NTCP=0 the scheme runs alone (Figure 4b).

Needs root (network namespaces), nfq-impair, nfq-bottleneck for red and
codel, and uftp for TFMCC; exits 77 (skip) otherwise."""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "net"))
import netbed  # noqa: E402
import test_vlmcc_fig5 as fig5  # noqa: E402
from fairness import jain, report_and_status, save_runs, windows  # noqa: E402


def env_list(name, default, conv=str):
    return [conv(x) for x in os.environ.get(name, default).split(",") if x]


END, WARMUP = env_list("BENCH_VLMCC_TIMES", "50,15", int)
MTU = int(os.environ.get("BENCH_VLMCC_MTU", "1000"))
DELAY = fig5.DELAY_MS
QUEUE_MS = 100
CROSS_PORT = 6000
UFTP_PORT, UFTP_PUB, UFTP_PRIV = 1044, "230.4.4.1", "230.5.5.1"
R_ADDR = "10.77.5.10"
SCHEMES = {
    "VLMCC": "ttl-mc=4",
    "VLMCC-vplus": "ttl-mc=4&vegas-plus=true",
    "VLMCC-fwd": "ttl-mc=4&vegas-delay=forward",
    "VLMCC-minrtt": "ttl-mc=4&vegas-delay=min-rtt",
    "VLMCC-vplus-fwd": "ttl-mc=4&vegas-plus=true&vegas-delay=forward",
    "VLMCC-vplus-cubic": "ttl-mc=4&vegas-plus=true&plus-loss-mode=cubic",
    "VLMCC-vplus-cubic-linux": "ttl-mc=4&vegas-plus=true&plus-loss-mode=cubic-linux",
    "VLMCC-nocatch": "ttl-mc=4&pacing-catch-up=0",
    "VLMCC-vplus-nocatch": "ttl-mc=4&vegas-plus=true&pacing-catch-up=0",
    "VLMCC-vplus-hold": "ttl-mc=4&vegas-plus=true&plus-recovery-hold=true",
    "VLMCC-vplus-seg": "ttl-mc=4&vegas-plus=true&plus-loss-segment=1448",
    "VLMCC-vplus-seg-hold": "ttl-mc=4&vegas-plus=true&plus-loss-segment=1448"
                            "&plus-recovery-hold=true",
    "TCP": None,
    "TCP-paced": None,
    "CBR-fair": None,
    "TFMCC": None,
}


# --- the bed -----------------------------------------------------------------

def build_bed(bed, case):
    """fig5's bridge with s, t and r; the bottleneck on r's port; the delay on
    t as on s. Returns (s, t, r)."""
    br, snd, tcp, hosts = fig5.make_bed(bed, ["r"])
    bed.delay(tcp, "eth0", DELAY)
    b = case["b"]
    if case["qdisc"] == "tbf":
        bed.bottleneck(br, "p-r", rate_bps=b, latency_ms=QUEUE_MS)
    else:
        bed.aqm_bottleneck(br, "p-r", b, limit_bytes=int(b * QUEUE_MS / 8000),
                           qdisc=case["qdisc"])
    if case.get("jitter"):
        bed.jitter(hosts["r"], "eth0", case["jitter"])
    return snd, tcp, hosts["r"]


class UdpCounter:
    """Cumulative UDP payload bytes to a port as r receives them (an nftables
    counter in r's input hook), sampled every 0.25 s into out as
    (seconds since t0, bytes)."""

    def __init__(self, host, port, out, t0, stop):
        self.host, self.port = host, port
        table = ("table inet vlmccbench {\n counter c { }\n chain input {\n"
                 "  type filter hook input priority 0;\n"
                 f"  udp dport {port} counter name c\n }}\n}}\n")
        host.run(["nft", "-f", "-"], input=table)
        self.thread = threading.Thread(target=self._poll, args=(out, t0, stop), daemon=True)
        self.thread.start()

    def read(self):
        text = self.host.run(["nft", "list", "counter", "inet", "vlmccbench", "c"]).stdout
        m = re.search(r"packets (\d+) bytes (\d+)", text)
        return int(m.group(2)) - 28 * int(m.group(1)) if m else 0

    def _poll(self, out, t0, stop):
        while not stop.is_set():
            out.append((time.monotonic() - t0, self.read()))
            stop.wait(0.25)


# --- the runs ----------------------------------------------------------------

def run_case(case):
    with netbed.NetBed() as bed:
        snd, tcp, rcv = build_bed(bed, case)
        stop, flow, extra = threading.Event(), [], {}
        scheme = case["scheme"]
        if scheme in ("TCP", "TCP-paced"):
            t0 = time.monotonic()
            netbed.greedy_tcp(tcp, rcv, R_ADDR, fig5.PORT, case["cc"], stop, flow,
                              t0=t0, stop_at=END, paced=scheme == "TCP-paced")
            procs = []
        elif scheme == "CBR-fair":
            t0 = time.monotonic()
            netbed.paced_udp(tcp, rcv, R_ADDR, fig5.PORT, case["b"] / (case["ntcp"] + 1),
                             MTU, stop, flow, t0, END)
            procs = []
        else:
            t0 = time.monotonic() + 1.0
            UdpCounter(rcv, UDP_PORT[scheme], flow, t0, stop)
            procs, extra = START[scheme](snd, rcv, case)
        cross = []
        for k in range(case["ntcp"]):
            cross.append([])
            netbed.greedy_tcp(tcp, rcv, R_ADDR, CROSS_PORT + k, case["cc"], stop, cross[k],
                              t0=t0, stop_at=END)
        ss_trace = []
        if os.environ.get("BENCH_VLMCC_SS"):
            threading.Thread(target=sample_tcp_windows, args=(tcp, ss_trace, t0, stop),
                             daemon=True).start()
        time.sleep(max(0.0, t0 + WARMUP - time.monotonic()))
        tcp_before = tcp_counters(tcp)
        time.sleep(max(0.0, t0 + END - time.monotonic()))
        tcp_after = tcp_counters(tcp)
        time.sleep(max(0.0, t0 + END + 0.5 - time.monotonic()))
        stop.set()
        for p in procs:
            fig5.stop(p["proc"])
        result = dict(case, R=[windows(s, END) for s in [flow] + cross],
                      tcp={k: tcp_after[k] - tcp_before[k] for k in tcp_after})
        if ss_trace:
            result["tcp_windows"] = ss_trace
        if "sink" in extra:
            result["sink"] = sink_losses(extra["sink"], extra["src"], t0)
        if "tmp" in extra:
            shutil.rmtree(extra["tmp"], ignore_errors=True)
        result["ok"] = len(flow) > 2 and statistics.mean(result["R"][0][WARMUP:]) > 0
        return result


TCP_COUNTERS = ("TcpOutSegs", "TcpRetransSegs", "TcpExtTCPTimeouts", "TcpExtTCPLossProbes",
                "TcpExtTCPSackRecovery", "TcpExtTCPRenoRecovery")


def tcp_counters(host):
    """The TCP sender's namespace-wide counters (all its flows): segments
    sent and retransmitted, retransmission timeouts, tail loss probes and
    fast recoveries (SACK or Reno), from nstat's absolute values."""
    text = host.run(["nstat", "-asz"] + list(TCP_COUNTERS), check=False).stdout
    got = dict((f[0], int(f[1])) for f in (ln.split() for ln in text.splitlines())
               if len(f) >= 2 and f[0] in TCP_COUNTERS)
    return {k: got.get(k, 0) for k in TCP_COUNTERS}


def sample_tcp_windows(host, out, t0, stop):
    """Every 0.25 s until stop: each TCP socket's port, cwnd and ssthresh
    (segments), smoothed RTT (ms), and its data segments sent and
    retransmitted so far (per flow, where nstat counts all flows) from
    `ss -tin` on the sender, as (seconds since t0, [(port, cwnd, ssthresh,
    rtt_ms, segs_out, retrans)])."""
    pat = re.compile(r":(\d+)\s*$|\bcwnd:(\d+)|\bssthresh:(\d+)|\brtt:([\d.]+)|"
                     r"\bdata_segs_out:(\d+)|\bretrans:\d+/(\d+)")
    while not stop.is_set():
        text = host.run(["ss", "-tin", "state", "established"], check=False).stdout
        socks, cur = [], None
        for line in text.splitlines():
            if not line.startswith("\t") and not line.startswith(" "):
                cur = None
                port = re.search(r"\S+:(\d+)\s*$", line.strip())
                cur = [int(port.group(1)) if port else 0, 0, 0, 0.0, 0, 0]
                socks.append(cur)
                continue
            if cur is None:
                continue
            for m in pat.finditer(line):
                if m.group(2):
                    cur[1] = int(m.group(2))
                elif m.group(3):
                    cur[2] = int(m.group(3))
                elif m.group(4):
                    cur[3] = float(m.group(4))
                elif m.group(5):
                    cur[4] = int(m.group(5))
                elif m.group(6):
                    cur[5] = int(m.group(6))
        out.append((round(time.monotonic() - t0, 2), [tuple(c) for c in socks if c[1]]))
        stop.wait(0.25)


def start_vlmcc(snd, rcv, case):
    rx = fig5.start_receiver(rcv)
    time.sleep(0.5)
    tx = fig5.start_sender(snd, SCHEMES[case["scheme"]] + f"&packet-size={MTU}", mtu=MTU)
    return [tx, rx], dict(sink=tx, src=rx)


def start_tfmcc(snd, rcv, case):
    """uftpd on r into a temporary directory; uftp on s sending a file larger
    than twice the bottleneck can carry in the run."""
    tmp = tempfile.mkdtemp(prefix="vlmcc-bench-uftp-")
    os.chmod(tmp, 0o777)
    path = os.path.join(tmp, "file.bin")
    with open(path, "wb") as fp:
        fp.truncate(int(case["b"] * 2 * END / 8))
    dest = os.path.join(tmp, "rx")
    os.mkdir(dest)
    kbps = int(case["b"] * 2 / 1000)
    rx = rcv.popen(["uftpd", "-d", "-x", "1", "-I", "eth0", "-M", UFTP_PUB, "-p",
                    str(UFTP_PORT), "-D", dest], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    tx = snd.popen(["uftp", "-x", "1", "-I", "eth0", "-M", UFTP_PUB, "-P", UFTP_PRIV,
                    "-p", str(UFTP_PORT), "-t", "4", "-C", f"tfmcc:max={kbps}",
                    "-R", str(kbps), path], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return [dict(proc=tx), dict(proc=rx)], dict(tmp=tmp)


VLMCC_SCHEMES = [s for s in SCHEMES if s.startswith("VLMCC")]
DEFAULT_SCHEMES = ",".join(s for s in SCHEMES
                           if s not in ("VLMCC-fwd", "VLMCC-minrtt", "VLMCC-vplus-fwd",
                                        "VLMCC-vplus-cubic", "VLMCC-nocatch",
                                        "VLMCC-vplus-nocatch", "VLMCC-vplus-hold",
                                        "VLMCC-vplus-seg", "VLMCC-vplus-seg-hold",
                                        "TCP-paced", "CBR-fair"))
START = dict({s: start_vlmcc for s in VLMCC_SCHEMES}, TFMCC=start_tfmcc)
UDP_PORT = dict({s: fig5.PORT for s in VLMCC_SCHEMES}, TFMCC=UFTP_PORT)


def sink_losses(tx, rx, t0):
    """In [WARMUP, END): the packets the sink took as lost (not acked in
    time: drops and late acks), its halvings and packets sent, from its
    stats; the packets the receiver missed (sequence gaps: drops) from
    its own; the Vegas+ switches; and how late the sink's loop ran (its
    late turns, their total in s, the longest in ms since the start)."""
    for t in tx["threads"] + rx["threads"]:
        t.join(5)
    st = [(t - t0, f) for t, line in list(tx["out"])
          if (f := fig5.fields(line, "s", "vlmcc-sink-stats")) and "lost" in f]
    src = [(t - t0, f) for t, f in fig5.stats(rx) if "lost" in f]
    if not st:
        return None

    def at(samples, t, key):
        before = [int(f[key]) for tt, f in samples if tt <= t]
        return before[-1] if before else 0

    def during(samples, key):
        return at(samples, END, key) - at(samples, WARMUP, key)
    return dict(lost=during(st, "lost"), halvings=during(st, "halvings"),
                sent=during(st, "sent"), rx_lost=during(src, "lost"),
                switches=at(st, END, "plus-switches"),
                switches_in=during(st, "plus-switches"),
                spurious=during(st, "spurious-losses"),
                undone=during(st, "halvings-undone"),
                late_turns=during(st, "loop-late-turns"),
                late_s=round(during(st, "loop-late-time") / 1e9, 3),
                late_max_ms=round(at(st, END, "loop-late-max") / 1e6, 1),
                trace=sink_trace(st),
                **sink_state(st))


def sink_trace(samples):
    """Per stats sample (0.5 s): time, window, smoothed RTT and Vegas delay
    (ms), loss-based (0/1), and the cumulative losses taken, halvings and
    Vegas+ switches; saved with the runs for a closer look."""
    return [(round(t, 2), round(float(f.get("window", 0)), 1),
             round(int(f.get("rtt", 0)) / 1e6, 1), round(int(f.get("vegas-rtt", 0)) / 1e6, 1),
             int(f.get("loss-based") == "true"), int(f.get("lost", 0)),
             int(f.get("halvings", 0)), int(f.get("plus-switches", 0)))
            for t, f in samples]


def sink_state(samples):
    """The sink's state over [WARMUP, END) from its stats: the median window
    (packets), base RTT, smoothed RTT, Vegas delay and forward queue (ms),
    and the fraction of samples in the loss-based mode."""
    span = [f for t, f in samples if WARMUP <= t < END and "window" in f]
    if not span:
        return {}

    def median(key, scale=1.0):
        return round(statistics.median(float(f.get(key, 0)) for f in span) / scale, 2)
    return dict(window=median("window"), base_ms=median("base-rtt", 1e6),
                rtt_ms=median("rtt", 1e6), vegas_ms=median("vegas-rtt", 1e6),
                fq_ms=median("forward-queue", 1e6),
                loss_based=round(sum(f.get("loss-based") == "true" for f in span)
                                 / len(span), 2))


# --- metrics and tables --------------------------------------------------------

def metrics(run):
    R, span = run["R"], range(WARMUP, END)
    means = [statistics.mean(r[j] for j in span) for r in R]
    fair = run["b"] / (run["ntcp"] + 1)        # alone: the bottleneck
    return dict(f_means=jain(means), f_window=statistics.median(jain([r[j] for r in R])
                                                                  for j in span),
                share=means[0] / fair, kbps=means[0] / 1e3,
                tcp_kbps=[m / 1e3 for m in means[1:]])


def scenario(run):
    jitter = f", {run['jitter']:g} ms ack jitter" if run.get("jitter") else ""
    return f"{run['b'] / 1e6:g} Mbit/s {run['qdisc']}, {run['ntcp']} {run['cc']}{jitter}"


def report(runs):
    print("| scenario | scheme | trial | f over means | f per 1 s (median) | share of fair | "
          "scheme kbit/s | TCP kbit/s | after warm-up: receiver lost / sender lost / halvings / "
          "sent; Vegas+ switches | sink median W / base RTT / RTT (ms) / time loss-based |\n"
          "|---|---|---|---|---|---|---|---|---|---|")
    by = {}
    for run in runs:
        if not run["ok"]:
            print(f"| {scenario(run)} | {run['scheme']} | {run['trial']} | FAILED |")
            continue
        m = metrics(run)
        by.setdefault(scenario(run), {}).setdefault(run["scheme"], []).append(m)
        s = run.get("sink")
        losses = (f"{s.get('rx_lost', '-')} / {s['lost']} / {s['halvings']} / {s['sent']} / "
                  f"{s.get('switches', 0)}" if s else "-")
        state = (f"{s['window']:.0f} / {s['base_ms']:.0f} / {s['rtt_ms']:.0f} / "
                 f"{s['loss_based']:.0%}" if s and "window" in s else "-")
        print(f"| {scenario(run)} | {run['scheme']} | {run['trial']} | {m['f_means']:.3f} | "
              f"{m['f_window']:.3f} | {m['share']:.2f} | {m['kbps']:.0f} | "
              + "/".join(f"{x:.0f}" for x in m["tcp_kbps"]) + f" | {losses} | {state} |")
    names = [s for s in SCHEMES if any(s in d for d in by.values())]
    print("\nMedians over trials: f over mean rates, f per 1 s window, share of the fair rate\n")
    print("| scenario | " + " | ".join(names) + " |\n|---|" + "---|" * len(names))
    for sc, d in by.items():
        cells = []
        for s in names:
            ms = d.get(s)
            cells.append("-" if not ms else " / ".join(
                f"{statistics.median(m[k] for m in ms):{spec}}"
                for k, spec in (("f_means", ".3f"), ("f_window", ".3f"), ("share", ".2f"))))
        print(f"| {sc} | " + " | ".join(cells) + " |")


def cases():
    out = []
    for b in env_list("BENCH_VLMCC_BOTTLENECK", "2", float):
        for qdisc in env_list("BENCH_VLMCC_QDISC", "tbf,codel"):
            for cc in env_list("BENCH_VLMCC_CC", "cubic"):
                for ntcp in env_list("BENCH_VLMCC_NTCP", "1,2", int):
                    for trial in range(int(os.environ.get("BENCH_VLMCC_TRIALS", "1"))):
                        out += trial_cases(dict(b=b * 1e6, qdisc=qdisc, cc=cc, ntcp=ntcp,
                                                trial=trial))
    return out


def trial_cases(base):
    """One trial's runs: the jitters, and inside each the schemes in turn (the
    same load for all)."""
    out = []
    for jitter in env_list("BENCH_VLMCC_JITTER", "0", float):
        for s in env_list("BENCH_VLMCC_SCHEMES", DEFAULT_SCHEMES):
            if s not in SCHEMES:
                sys.exit(f"unknown scheme {s!r}; known: {', '.join(SCHEMES)}")
            out.append(dict(base, jitter=jitter, scheme=s))
    return out


def sink_summary(run):
    """The run's sink figures without the trace, for the progress line."""
    return {k: v for k, v in (run.get("sink") or {}).items() if k != "trace"} or None


def main():
    if sys.argv[1:2] == ["--report"]:
        report([r for p in sys.argv[2:] for r in json.load(open(p))])
        return 0
    todo = cases()
    netbed.require_or_skip(nfq=True, aqm=any(c["qdisc"] != "tbf" for c in todo))
    if any(c["scheme"] == "TFMCC" for c in todo) and not shutil.which("uftp"):
        print("SKIP: uftp not installed (scripts/install-deps.sh)")
        return 77
    print(f"# VLMCC fairness: {len(todo)} runs of {END} s, rates over [{WARMUP}, {END}) s; "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    runs, t_start = [], time.monotonic()
    for c in todo:
        runs.append(run_case(c))
        m = metrics(runs[-1]) if runs[-1]["ok"] else {}
        print(f"# {time.monotonic() - t_start:.0f} s: {scenario(c)} {c['scheme']}: "
              f"{ {k: (round(v, 3) if isinstance(v, float) else v) for k, v in m.items()} } "
              f"sink {sink_summary(runs[-1])}; TCP sender {runs[-1]['tcp']}; load {os.getloadavg()[0]:.1f}", flush=True)
        save_runs(runs, "BENCH_VLMCC_JSON")
    return report_and_status(runs, report)


if __name__ == "__main__":
    sys.exit(main())
