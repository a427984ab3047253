#!/usr/bin/env python3
"""RMTP beside UFTP (issue 20) on the namespace bed of tests/net.

The bed of tests/net/test_rmtp_transfer.py: a bridge, the sender behind a
10 Mbit/s tbf, N receivers on their own ports, each losing each packet that
reaches it independently (nftables random loss at the ingress of its
interface). Both send at 8 Mbit/s:
  UFTP     uftp -R 8000 -H <ids> (closed group) to uftpd -U <id> on each host
  RMTP     rmtpsink rate=8000000 (repair=retransmit, then repair=parity) to
           rmtpsrc ! filesink on each host
Each time runs from the sender's start to the last receiver's end (uftp's
exit, which waits for every client's completion; the last rmtpsrc's EOS).
Every received file is checked against the source (sha256); a run where one
differs is reported as FAILED, not timed.

Prints one line per run, then the table: the median of the runs for UFTP,
RMTP (retransmit), RMTP (parity), the line time (size x 8 / 8 Mbit/s), the
ARQ bound (line time x expected sends until every receiver has a packet)
and the ideal erasure code (line time / (1 - loss)), and the CPU seconds
all processes of a run used per second of it (the machine's cores bound
what 32 receiver processes can do).

Needs root, uftp and uftpd (Debian uftp; exit 77 otherwise). Environment:
  BENCH_RMTP_RECEIVERS  receivers, comma-separated (1,8,32)
  BENCH_RMTP_LOSSES     loss in percent (0,1,10)
  BENCH_RMTP_RUNS       runs for each point (3)
  BENCH_RMTP_SIZE       bytes (2097152; 104857600 for the 100 MB point)
  BENCH_RMTP_MODES      of uftp,retransmit,parity (all three); a mode
                        written parity+early-repair adds &early-repair=true
                        to that mode's URI (any boolean key), and one written
                        parity+parity-block=512 adds &parity-block=512 (any
                        KEY=VALUE), so variants of one build alternate run
                        by run; a key written rx-KEY=VALUE goes to every
                        rmtpsrc's URI instead (parity+rx-parity-expect-rows
                        =true)
  BENCH_RMTP_EXTRA      more rmtpsink URI keys, e.g. &delta=500000 or
                        &release-on-ack=true&delta=500000 (docs/results.md) ()
  BENCH_RMTP_BEFORE     a directory with another build's libgstrmtp.so: a
                        mode written parity@before or retransmit@before
                        runs RMTP from there, in turn with the others, to
                        compare two builds in the same minutes ()
  BENCH_RMTP_PERF       1: every rmtpsrc runs under perf stat; each run and
                        the table give the median receiver's CPU (task-clock,
                        ms) and context switches (its wake-ups); record:
                        as 1, and each rmtpsrc also runs under perf record
                        (cpu-clock, 499 Hz), its samples kept as
                        BENCH_RMTP_RECORD_DIR/<mode>-<run>-r<i>.data ()
  BENCH_RMTP_RECORD_DIR where BENCH_RMTP_PERF=record keeps the samples
                        (./rmtp-perf-record)
  BENCH_RMTP_TRACE      1: each RMTP run captures the datagrams on the
                        sender's interface (rmtp_wire_trace.py) and adds a
                        trace line: the sender's start to its CONN, the
                        connection, each round's DATA time against the
                        pacer's, its answers and the wait to the next round,
                        each POLL's member and when it answered, the
                        release, and the last RACK to the last EOS; and a
                        line of the loops' lateness (loop-late-max of the
                        sink and each receiver, answers-redrawn, polls-held)
                        ()
  BENCH_RMTP_TRACE_DIR  with the trace: each run's capture is kept there as
                        <mode>-<run>.trace, its first line "# start END
                        end END" (the run's start and last EOS, CLOCK_REALTIME)
                        ()"""
import hashlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "net"))
import netbed  # noqa: E402
import test_rmtp_transfer as rt  # noqa: E402
import rmtp_wire_trace  # noqa: E402

RATE = 8_000_000
SENDER_LINK = 10_000_000
PACKET = 1024  # rmtpsink's default packet-size, bytes


def env_list(name, default, kind=int):
    return [kind(x) for x in os.environ.get(name, default).split(",") if x]


RECEIVERS = env_list("BENCH_RMTP_RECEIVERS", "1,8,32")
LOSSES = env_list("BENCH_RMTP_LOSSES", "0,1,10")
RUNS = int(os.environ.get("BENCH_RMTP_RUNS", "3"))
SIZE = int(os.environ.get("BENCH_RMTP_SIZE", str(2 * 1024 * 1024)))
MODES = env_list("BENCH_RMTP_MODES", "uftp,retransmit,parity", str)
EXTRA = os.environ.get("BENCH_RMTP_EXTRA", "")
BEFORE = os.environ.get("BENCH_RMTP_BEFORE", "")
PERF = os.environ.get("BENCH_RMTP_PERF", "") not in ("", "0")
RECORD = os.environ.get("BENCH_RMTP_PERF", "") == "record"
RECORD_DIR = os.environ.get("BENCH_RMTP_RECORD_DIR", "rmtp-perf-record")
TRACE = os.environ.get("BENCH_RMTP_TRACE", "") not in ("", "0")
TRACER = os.path.join(HERE, "rmtp_wire_trace.py")
TRACE_DIR = os.environ.get("BENCH_RMTP_TRACE_DIR", "")
# the slowest point (32 receivers, 10 % loss, UFTP) takes about 3.3 x
# the line time; a run past 10 x is a failure
TIMEOUT = 30 + 10 * SIZE * 8 / RATE


def line_time():
    return SIZE * 8 / RATE


def arq_bound(n, p):
    sends, k = 0.0, 0
    while True:
        term = 1.0 - (1.0 - p ** k) ** n
        sends += term
        k += 1
        if term < 1e-12 or k > 10000:
            return line_time() * sends


def ideal_code(p):
    return line_time() / (1.0 - p)


def cpu_seconds():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def perf_path(tmp, i):
    return os.path.join(tmp, f"perf-r{i + 1}.csv")


def file_name(tag):
    return "".join(c if c.isalnum() or c in "-=." else "_" for c in tag)


def record_path(tag, i):
    return os.path.abspath(os.path.join(RECORD_DIR,
                                        f"{file_name(tag)}-r{i + 1}.data"))


def perf_wrap(tmp, tag):
    """The gst() wrap of receiver i under perf stat (and perf record, its
    samples named by @tag), or None."""
    if not PERF:
        return None
    record = ""
    if RECORD:
        os.makedirs(RECORD_DIR, exist_ok=True)
        record = " perf record -q -F 499 -o {} --"
    return lambda i: (f"perf stat -x, -e task-clock,context-switches "
                      f"-o {perf_path(tmp, i)} --"
                      + record.format(record_path(tag, i)))


def receiver_cpu(tmp, n):
    """The median receiver's task-clock (ms) and context switches."""
    clock, switches = [], []
    for i in range(n):
        with open(perf_path(tmp, i)) as f:
            for fields in (ln.strip().split(",") for ln in f):
                if len(fields) > 2 and fields[2] == "task-clock":
                    clock.append(float(fields[0]))
                elif len(fields) > 2 and fields[2] == "context-switches":
                    switches.append(float(fields[0]))
    return statistics.median(clock), statistics.median(switches)


def start_trace(snd, tmp):
    """The capture on the sender's interface, once it is ready, or None."""
    if not TRACE:
        return None
    path = os.path.join(tmp, "trace.txt")
    p = snd.popen([sys.executable, TRACER, "capture", "eth0", path],
                  stdout=subprocess.PIPE, text=True)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError("the wire trace did not start")
    return p, path


def keep_trace(path, tag, start, end):
    """A copy of the capture in TRACE_DIR, headed by the run's start and end
    (CLOCK_REALTIME), for rmtp_wire_trace.py or other splits later."""
    if not TRACE_DIR:
        return
    os.makedirs(TRACE_DIR, exist_ok=True)
    with open(path) as f, open(os.path.join(TRACE_DIR,
                                            file_name(tag) + ".trace"),
                                "w") as out:
        out.write(f"# start {start:.6f} end {end:.6f}\n")
        shutil.copyfileobj(f, out)


def stop_trace(trace, t0, t1, tag=""):
    """The trace line; t0, t1: the run's start and end (monotonic)."""
    if not trace:
        return ""
    p, path = trace
    p.terminate()
    p.wait(timeout=10)
    to_real = time.time() - time.monotonic()
    keep_trace(path, tag, t0 + to_real, t1 + to_real)
    return "\n  " + rmtp_wire_trace.summary(path, RATE, PACKET, t0 + to_real,
                                             t1 + to_real)


def loop_lateness(tx, rxs):
    """With the trace: how late the sink's and each receiver's loop ran at
    worst (loop-late-max, ms), and the answers the receivers drew again
    (their timer past window + tat) or held."""
    def last(proc, element, name):
        m = rt.messages(proc, element, name)
        return m[-1] if m else {}

    def late(st):
        return f"{int(st.get('loop-late-max', 0)) / 1e6:.0f}"

    rx = [(r["member"], last(r, "rmtpsrc0", "rmtp-src-stats")) for r in rxs]
    return (f"\n  loop-late-max ms: sink {late(rt.last_stats(tx))}, m"
            + " m".join(f"{m}:{late(st)}" for m, st in rx)
            + "; answers-redrawn "
            + str(sum(int(st.get("answers-redrawn", 0)) for _, st in rx))
            + ", polls-held "
            + str(sum(int(st.get("polls-held", 0)) for _, st in rx)))


def run_rmtp(hosts, snd, src, digest, tmp, repair, keys="", rx_keys="",
             tag=""):
    trace = start_trace(snd, tmp)
    tx, rxs, t0 = rt.transfer(hosts, snd, src, tmp, f"rmtp-{repair}",
                              extra=f"&repair={repair}&rate={RATE}{EXTRA}"
                              f"{keys}",
                              timeout=TIMEOUT, wrap=perf_wrap(tmp, tag),
                              rx_extra=rx_keys)
    whole = all(rx["proc"].returncode == 0 and os.path.exists(rx["out"])
                and rt.sha256(rx["out"]) == digest for rx in rxs)
    st, done = rt.last_stats(tx), rt.done_message(tx)
    note = (f"sink-conn-to-end={done.get('seconds')} "
            f"rounds={st.get('rounds')} resent={st.get('data-resent')} "
            f"parity={st.get('parity-sent')} polls={st.get('polls-sent')}")
    rx = receiver_cpu(tmp, len(rxs)) if PERF else None
    if rx:
        note += f" receiver-cpu-ms={rx[0]:.1f} receiver-switches={rx[1]:.0f}"
    ended = max(rx_["ended"] for rx_ in rxs)
    note += stop_trace(trace, t0, ended, tag)
    if trace:
        note += loop_lateness(tx, rxs)
    return whole, ended - t0, note, rx


def uftp_id(i):
    return f"0x{0x0a000000 + i + 1:08x}"


def run_uftp(hosts, snd, src, digest, tmp):
    dirs, daemons = [], []
    for i, h in enumerate(hosts):
        d = os.path.join(tmp, f"uftp-r{i + 1}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        dirs.append(d)
        daemons.append(h.popen(["uftpd", "-d", "-q", "-U", uftp_id(i), "-D", d],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL))
    time.sleep(1.0)
    ids = ",".join(uftp_id(i) for i in range(len(hosts)))
    t0 = time.monotonic()
    p = snd.popen(["uftp", "-R", str(RATE // 1000), "-H", ids, "-x", "1", src],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        p.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    took = time.monotonic() - t0
    for dp in daemons:
        dp.terminate()
        dp.wait()
    name = os.path.basename(src)
    whole = p.returncode == 0 and all(
        os.path.exists(os.path.join(d, name))
        and rt.sha256(os.path.join(d, name)) == digest for d in dirs)
    return whole, took, f"exit={p.returncode}", None


class PluginsFrom:
    """While in effect, the gst-launch processes started load RMTP from
    directory (with a registry of their own); None leaves them alone."""

    def __init__(self, directory):
        self.directory, self.saved = directory, None

    def __enter__(self):
        if self.directory:
            keys = ("GST_PLUGIN_PATH", "GST_REGISTRY")
            self.saved = {k: os.environ.get(k) for k in keys}
            os.environ["GST_PLUGIN_PATH"] = self.directory
            os.environ["GST_REGISTRY"] = os.path.join(
                tempfile.gettempdir(), "rmtp-bench-before.registry")

    def __exit__(self, *exc):
        for k, v in (self.saved or {}).items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def measure(snd, hosts, src, digest, tmp, mode, tag=""):
    """Returns (whole, seconds, note, CPU seconds of all processes, the
    median receiver's (task-clock ms, context switches) or None)."""
    c0 = cpu_seconds()
    repair, _, build = mode.partition("@")
    repair, *flags = repair.split("+")
    rx_keys = "".join(f"&{f[3:]}" if "=" in f else f"&{f[3:]}=true"
                      for f in flags if f.startswith("rx-"))
    keys = "".join(f"&{f}" if "=" in f else f"&{f}=true" for f in flags
                   if not f.startswith("rx-"))
    if mode == "uftp":
        whole, took, note, rx = run_uftp(hosts, snd, src, digest, tmp)
    else:
        if build and not BEFORE:
            raise SystemExit(f"{mode}: set BENCH_RMTP_BEFORE")
        with PluginsFrom(BEFORE if build else None):
            whole, took, note, rx = run_rmtp(hosts, snd, src, digest, tmp,
                                             repair, keys, rx_keys, tag)
    return whole, took, note, cpu_seconds() - c0, rx


def fmt(times):
    if not times:
        return "failed"
    return f"{statistics.median(times):.2f} s"


def cpu_median(runs, field, digits=2):
    runs = [r for r in runs if len(r) > field]
    if not runs:
        return "-"
    return f"{statistics.median(r[field] for r in runs):.{digits}f}"


def main():
    netbed.require_or_skip()
    if "uftp" in MODES and not (shutil.which("uftp") and shutil.which("uftpd")):
        print("SKIP: uftp/uftpd not installed (Debian package uftp)")
        return 77
    # the registries are built before the first run, not inside it
    for build in {BEFORE if "@" in m else None for m in MODES if m != "uftp"}:
        with PluginsFrom(build):
            subprocess.run(["gst-inspect-1.0", "rmtpsink"],
                           stdout=subprocess.DEVNULL, check=True)
    tmp = tempfile.mkdtemp(prefix="rmtp-bench-")
    src = os.path.join(tmp, "in.bin")
    with open(src, "wb") as f:
        f.write(os.urandom(SIZE))
    with open(src, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    rows = []
    with netbed.NetBed() as bed:
        _, snd, all_hosts, loss = rt.build_bed(bed, max(RECEIVERS))
        for n in RECEIVERS:
            hosts = all_hosts[:n]
            for pct in LOSSES:
                for imp in loss:
                    imp.change(percent=pct)
                res = {m: [] for m in MODES}
                cpu = {m: [] for m in MODES}
                # the modes alternate run by run, in the same conditions
                for run in range(RUNS):
                    for mode in MODES:
                        whole, took, note, used, rx = measure(
                            snd, hosts, src, digest, tmp, mode,
                            f"n{n}-loss{pct}-{mode}-{run + 1}")
                        load = used / max(took, 1e-3)
                        print(f"RUN n={n} loss={pct}% {mode} #{run + 1}: "
                              f"{took:.2f} s {'whole' if whole else 'FAILED'}"
                              f" cpu={load:.2f} cpu-s={used:.2f} {note}",
                              flush=True)
                        if whole:
                            res[mode].append(took)
                            cpu[mode].append((load, used) + (rx or ()))
                rows.append((n, pct, res, cpu))
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n{SIZE} bytes at {RATE // 1000000} Mbit/s, median of {RUNS}\n")
    print("| receivers | loss | " + " | ".join(MODES) +
          " | line time | ARQ bound | ideal code | CPU s/s (" +
          ", ".join(MODES) + ") | CPU s a transfer |" +
          (" receiver CPU ms, switches |" if PERF else ""))
    print("|---" * (len(MODES) + 7 + PERF) + "|")
    for n, pct, res, cpu in rows:
        p = pct / 100
        loads = ", ".join(cpu_median(cpu[m], 0) for m in MODES)
        used = ", ".join(cpu_median(cpu[m], 1) for m in MODES)
        rx = ", ".join(f"{cpu_median(cpu[m], 2, 1)} / {cpu_median(cpu[m], 3, 0)}"
                       for m in MODES)
        print(f"| {n} | {pct} % | " + " | ".join(fmt(res[m]) for m in MODES)
              + f" | {line_time():.2f} s | {arq_bound(n, p):.2f} s | "
              f"{ideal_code(p):.2f} s | {loads} | {used} |"
              + (f" {rx} |" if PERF else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
