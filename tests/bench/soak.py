#!/usr/bin/env python3
"""Endurance soak (issue 21): memory and descriptors stay flat after warm-up.

In network namespaces (tests/net/netbed.py) this runs, for SOAK_SECONDS (default 3600):

(a) a 4-member TPSS conference: four examples/conference processes (headless, small tiles,
    low frame rate), each behind its own 4 Mbit/s link on one bridge;
(b) an RLM session: videotestsrc ! x264layerenc ! rtph264pay ! rlmsink on a snooping bridge,
    one steady rlmsrc receiver behind a bottleneck (so it runs join experiments all along)
    and a churning receiver: every SOAK_CYCLE seconds (default 60) the churning rlmsrc
    process stops and a new one starts on the other churn host.

Every SOAK_INTERVAL seconds (default 10) it samples VmRSS and the number of open descriptors
of each long-lived process (the four participants, the RLM sender and the steady receiver)
into soak.csv, in SOAK_OUT_DIR (default <build>/soak). At the end it compares the median of
a first window after warm-up with the median of the last window (for one hour: 5 min
warm-up, then minutes 5-15 against 50-60; scaled down in proportion for shorter runs), prints
a table and writes the plot to SOAK_SVG (default docs/img/soak.svg). It fails (exit 1) if a
process died, if its RSS grew by more than max(RSS_GROWTH_MB, RSS_GROWTH_SHARE of the
first window), or if its descriptors grew at all. Needs root (exit 77 without).
"""
import csv
import os
import re
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "net"))
import netbed  # noqa: E402

BUILD = os.environ.get("MESON_BUILD_ROOT", os.path.join(ROOT, "build"))
SECONDS = float(os.environ.get("SOAK_SECONDS", "3600"))
INTERVAL = float(os.environ.get("SOAK_INTERVAL", "10"))
CYCLE = float(os.environ.get("SOAK_CYCLE", "60"))
OUT_DIR = os.environ.get("SOAK_OUT_DIR", os.path.join(BUILD, "soak"))
SVG = os.environ.get("SOAK_SVG", os.path.join(ROOT, "docs", "img", "soak.svg"))

RSS_GROWTH_MB = 5.0
RSS_GROWTH_SHARE = 0.10
# For one hour: warm-up 5 min, windows of 10 min; shorter runs scale these down.
WARMUP_SHARE = 300 / 3600
WINDOW_SHARE = 600 / 3600

CONF_MEMBERS = 4
CONF_PORT = 5000
CONF_LINK_BPS = 4_000_000

RLM_BASE = "239.77.1.1"
RLM_PORT = 5000
RLM_LAYERS = 3
RLM_LAYER_RATES = [150_000, 150_000, 300_000]    # cumulative 150k, 300k, 600k
RLM_STEADY_LINK_BPS = 450_000                    # levels 1-2 fit, 3 does not
RLM_CAPS = "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264"


# ---------------------------------------------------------------- processes

def conference_command(pid):
    members = ",".join(f"{i}@10.77.0.{i}:{CONF_PORT}" for i in range(1, CONF_MEMBERS + 1))
    return [os.path.join(BUILD, "examples", "conference"), f"--id={pid}",
            f"--port={CONF_PORT}", f"--address=10.77.0.{pid}", f"--members={members}",
            f"--out-dir={OUT_DIR}", "--width=160", "--height=120", "--fps=10",
            "--headless", "--snapshot-interval=30"]


def rlm_uri():
    return f"rlm://{RLM_BASE}:{RLM_PORT}?layers={RLM_LAYERS}"


def rlm_sender_command():
    rates = ",".join(str(r) for r in RLM_LAYER_RATES)
    return ("exec gst-launch-1.0 -q videotestsrc is-live=true pattern=smpte "
            "horizontal-speed=3 ! video/x-raw,width=320,height=180,framerate=15/1 ! "
            f"x264layerenc layers={RLM_LAYERS} speed-preset=ultrafast tune=zerolatency "
            "key-int-max=30 ! rtph264pay config-interval=-1 mtu=1200 ! "
            f"rlmsink uri=\"{rlm_uri()}&ttl-mc=4\" layer-rates=\"<{rates}>\"")


def rlm_receiver_command(messages=False):
    """With messages, gst-launch -m logs its level changes and stats once a minute.
    Frame threads: below the top two layers a live avdec_h264 otherwise fails to fill
    the frame_num gaps (docs/x264layerenc.md)."""
    return ("exec gst-launch-1.0 " + ("-m " if messages else "-q ")
            + f"rlmsrc uri=\"{rlm_uri()}\" caps=\"{RLM_CAPS}\" stats-interval=60000000000 ! "
            "rtph264depay ! avdec_h264 thread-type=frame ! fakesink sync=false async=false")


def log_file(name):
    return open(os.path.join(OUT_DIR, f"{name}.log"), "ab")


def start(host, name, cmd):
    """A process in @host with stdout and stderr in OUT_DIR/<name>.log."""
    log = log_file(name)
    env = dict(os.environ, GST_DEBUG="*:1", GST_DEBUG_NO_COLOR="1")
    p = host.popen(cmd, stdout=log, stderr=log, env=env)
    log.close()
    return p


# ---------------------------------------------------------------- test bed

def build_conference(bed):
    br = bed.bridge("cbr", snooping=False, querier=False)
    hosts = {}
    for pid in range(1, CONF_MEMBERS + 1):
        h = bed.host(f"p{pid}")
        hif, port = bed.attach(h, br, f"10.77.0.{pid}/24")
        bed.bottleneck(h, hif, CONF_LINK_BPS)
        bed.bottleneck(br, port, CONF_LINK_BPS)
        hosts[pid] = h
    return hosts


def build_rlm(bed):
    """Sender rs, steady receiver rr (behind a bottleneck), churn hosts ca and cb."""
    br = bed.bridge("rbr", mcast_igmp_version=3)
    hosts = {}
    for i, name in enumerate(["rs", "rr", "ca", "cb"]):
        hosts[name] = bed.host(name)
        bed.attach(hosts[name], br, f"10.77.3.{1 + i}/24")
    bed.bottleneck(br, "p-rr", rate_bps=RLM_STEADY_LINK_BPS, latency_ms=200)
    return hosts


# ---------------------------------------------------------------- sampling

def rss_kb(pid):
    """(VmRSS, RssAnon) in kB: the anonymous part is the heap, stacks and arenas, without
    the library pages that are mapped in as code runs."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon"):
                fields[key] = int(value.split()[0])
    return fields.get("VmRSS", 0), fields.get("RssAnon", 0)


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def sample(procs, t, writer, rows):
    """One row per live long-lived process; returns the names of those that are gone."""
    gone = []
    for name, p in procs.items():
        try:
            if p.poll() is not None:
                raise ProcessLookupError
            rss, anon = rss_kb(p.pid)
            row = (round(t, 1), name, p.pid, rss, fd_count(p.pid), anon)
        except (ProcessLookupError, FileNotFoundError):
            gone.append(name)
            continue
        writer.writerow(row)
        rows.append(row)
    return gone


# ---------------------------------------------------------------- the run

class Churn:
    """The churning RLM receiver: every CYCLE s the running one gets SIGINT and a new one
    starts on the other churn host."""

    def __init__(self, hosts):
        self.hosts = [hosts["ca"], hosts["cb"]]
        self.proc, self.started, self.count, self.bad_exits = None, 0.0, 0, 0

    def step(self, now):
        if self.proc is not None and now - self.started < CYCLE:
            return
        if self.proc is not None:
            netbed.interrupt(self.proc, timeout=10)
            if self.proc.returncode not in (0, -signal.SIGINT, 130):
                self.bad_exits += 1
        host = self.hosts[self.count % 2]
        self.proc = start(host, f"rlm-churn-{self.count}", ["sh", "-c", rlm_receiver_command()])
        self.started, self.count = now, self.count + 1


def run():
    os.makedirs(OUT_DIR, exist_ok=True)
    rows, died = [], {}
    with netbed.NetBed() as bed:
        conf_hosts = build_conference(bed)
        rlm_hosts = build_rlm(bed)
        procs = {f"conf-p{pid}": start(h, f"conf-p{pid}", conference_command(pid))
                 for pid, h in conf_hosts.items()}
        procs["rlm-steady-rx"] = start(rlm_hosts["rr"], "rlm-steady-rx",
                                       ["sh", "-c", rlm_receiver_command(True)])
        procs["rlm-sender"] = start(rlm_hosts["rs"], "rlm-sender",
                                    ["sh", "-c", rlm_sender_command()])
        churn = Churn(rlm_hosts)
        t0 = time.monotonic()
        next_sample = t0 + 1.0
        with open(os.path.join(OUT_DIR, "soak.csv"), "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["t_s", "process", "pid", "rss_kb", "fds", "rss_anon_kb"])
            while time.monotonic() - t0 < SECONDS:
                now = time.monotonic()
                churn.step(now - t0)
                if now >= next_sample:
                    for name in sample(procs, now - t0, writer, rows):
                        died.setdefault(name, round(now - t0))
                    f.flush()
                    next_sample += INTERVAL
                time.sleep(0.5)
        for p in list(procs.values()) + [churn.proc]:
            netbed.interrupt(p, timeout=15)
    print(f"soak: {SECONDS:.0f} s, {churn.count} churning receivers started "
          f"({churn.bad_exits} exited badly), samples in {OUT_DIR}/soak.csv", flush=True)
    print_rlm_progress(os.path.join(OUT_DIR, "rlm-steady-rx.log"))
    return rows, died, list(procs)


def print_rlm_progress(log):
    """The steady receiver's last stats and level changes: the session really ran."""
    with open(log, errors="replace") as f:
        lines = f.read().splitlines()
    stats = [ln for ln in lines if "rlm-src-stats" in ln]
    levels = [ln for ln in lines if "rlm-level" in ln]
    print(f"rlm-steady-rx: {len(levels)} level changes", flush=True)
    if stats:
        for key in ("level", "experiments-run", "experiments-failed", "layer-received",
                    "layer-lost"):
            m = re.search(rf"\b{key}=\(\w+\)(<[^>]*>|[^,;]+)", stats[-1])
            print(f"  {key} = {m.group(1) if m else '?'}")


# ---------------------------------------------------------------- judgement

def windows(duration):
    """(first window, last window) in seconds from the start."""
    # at least two samples per window, for short smoke runs
    warm, width = WARMUP_SHARE * duration, max(WINDOW_SHARE * duration, 2 * INTERVAL)
    return (warm, warm + width), (duration - width, duration)


def slope_mb_per_hour(rows, name, since):
    """Least-squares slope of RSS after `since` s, MB per hour (None: too few samples)."""
    pts = [(r[0], r[3] / 1024) for r in rows if r[1] == name and r[0] >= since]
    if len(pts) < 3:
        return None
    mt = statistics.fmean(t for t, _ in pts)
    mv = statistics.fmean(v for _, v in pts)
    var = sum((t - mt) ** 2 for t, _ in pts)
    return 3600 * sum((t - mt) * (v - mv) for t, v in pts) / var if var else None


def median_in(rows, name, col, window):
    vals = [r[col] for r in rows if r[1] == name and window[0] <= r[0] <= window[1]]
    return statistics.median(vals) if vals else None


def judge(rows, died, names, duration):
    """Prints the table; returns the list of failures."""
    first, last = windows(duration)
    failures = []
    print(f"\nwindows: first {first[0]:.0f}-{first[1]:.0f} s, last {last[0]:.0f}-{last[1]:.0f} s "
          f"(medians); bound: RSS +max({RSS_GROWTH_MB:g} MB, {100 * RSS_GROWTH_SHARE:.0f} %), "
          "fds +0")
    print(f"{'process':<15} {'RSS first':>10} {'RSS last':>10} {'growth':>9} "
          f"{'slope':>10} {'fds first':>9} {'fds last':>8}  verdict")
    for name in names:
        r0, r1 = median_in(rows, name, 3, first), median_in(rows, name, 3, last)
        f0, f1 = median_in(rows, name, 4, first), median_in(rows, name, 4, last)
        why = []
        if name in died:
            why.append(f"gone at {died[name]} s")
        if None in (r0, r1, f0, f1):
            why.append("no samples")
        else:
            if r1 - r0 > max(RSS_GROWTH_MB * 1024, RSS_GROWTH_SHARE * r0):
                why.append("RSS grew")
            if f1 > f0:
                why.append("fds grew")
        fmt = lambda v, d=1024, u=" MB": "-" if v is None else f"{v / d:.1f}{u}"
        growth = "-" if None in (r0, r1) else f"{(r1 - r0) / 1024:+.1f} MB"
        slope = slope_mb_per_hour(rows, name, first[0])
        slope = "-" if slope is None else f"{slope:+.1f} MB/h"
        print(f"{name:<15} {fmt(r0):>10} {fmt(r1):>10} {growth:>9} {slope:>10} "
              f"{fmt(f0, 1, ''):>9} {fmt(f1, 1, ''):>8}  {'; '.join(why) or 'flat'}")
        failures += [f"{name}: {w}" for w in why]
    return failures


# ---------------------------------------------------------------- plot

COLOURS = ["#d02828", "#28a028", "#2850d8", "#c8a010", "#c828c8", "#20a0a0", "#e08020"]


def panel(names, rows, col, top, height, width, duration, label, scale):
    """One SVG panel (a list of elements): time against column `col` for every process."""
    pad_l, pad_r = 60, 130
    vals = [r[col] / scale for r in rows] or [1]
    lo, hi = 0, max(vals) * 1.1 or 1
    sx = lambda t: pad_l + (width - pad_l - pad_r) * t / max(duration, 1)
    sy = lambda v: top + height - height * (v - lo) / (hi - lo)
    out = [f'<line x1="{pad_l}" y1="{top + height}" x2="{width - pad_r}" y2="{top + height}" '
           'stroke="black"/>',
           f'<line x1="{pad_l}" y1="{top}" x2="{pad_l}" y2="{top + height}" stroke="black"/>',
           f'<text x="{pad_l}" y="{top - 8}">{label}</text>']
    for i in range(5):
        v = lo + (hi - lo) * i / 4
        out.append(f'<text x="{pad_l - 6}" y="{sy(v) + 4:.1f}" text-anchor="end">{v:.0f}</text>')
    for i in range(7):
        t = duration * i / 6
        out.append(f'<text x="{sx(t):.1f}" y="{top + height + 14}" text-anchor="middle">'
                   f'{t / 60:.0f}</text>')
    for k, name in enumerate(names):
        pts = " ".join(f"{sx(r[0]):.1f},{sy(r[col] / scale):.1f}" for r in rows if r[1] == name)
        colour = COLOURS[k % len(COLOURS)]
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{pts}"/>')
        out.append(f'<text x="{width - pad_r + 6}" y="{top + 14 + 14 * k}" fill="{colour}">'
                   f'{name}</text>')
    return out


def write_svg(path, rows, names, duration):
    w, h, ph = 760, 560, 200
    first, last = windows(duration)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>']
    out += panel(names, rows, 3, 30, ph, w, duration, "RSS (MB)", 1024)
    out += panel(names, rows, 4, 30 + ph + 60, ph, w, duration, "open descriptors", 1)
    out.append(f'<text x="{w / 2 - 60}" y="{h - 12}">time (min); windows compared: '
               f'{first[0] / 60:.0f}-{first[1] / 60:.0f} and {last[0] / 60:.0f}-'
               f'{last[1] / 60:.0f} min</text>')
    out.append("</svg>")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def plugin_path():
    """The build's plugins, when not run by meson (which sets GST_PLUGIN_PATH)."""
    if "GST_PLUGIN_PATH" not in os.environ:
        dirs = [os.path.join(BUILD, d) for d in ("gst", "ext")]
        os.environ["GST_PLUGIN_PATH"] = os.pathsep.join(
            os.path.join(top, sub) for top in dirs if os.path.isdir(top)
            for sub in sorted(os.listdir(top)))


def read_csv(path):
    with open(path) as f:
        return [(float(r["t_s"]), r["process"], int(r["pid"]), int(r["rss_kb"]), int(r["fds"]),
                 int(r.get("rss_anon_kb") or 0)) for r in csv.DictReader(f)]


def judge_csv(path):
    """`soak.py --from-csv PATH`: the table and the plot again from a run's samples."""
    rows = read_csv(path)
    names = list(dict.fromkeys(r[1] for r in rows))
    duration = SECONDS if "SOAK_SECONDS" in os.environ else max(r[0] for r in rows)
    failures = judge(rows, {}, names, duration)
    write_svg(SVG, rows, names, duration)
    print(f"plot: {SVG}")
    return 1 if failures else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--from-csv":
        return judge_csv(sys.argv[2])
    netbed.require_or_skip()
    plugin_path()
    conf = os.path.join(BUILD, "examples", "conference")
    if not os.access(conf, os.X_OK):
        print(f"SKIP: {conf} is not built", flush=True)
        return 77
    rows, died, names = run()
    failures = judge(rows, died, names, SECONDS)
    write_svg(SVG, rows, names, SECONDS)
    print(f"plot: {SVG}")
    for f in failures:
        print(f"FAIL: {f}")
    print("soak: " + ("FAILED" if failures else "flat after warm-up"), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
