#!/usr/bin/env python3
"""TPSS vs traditional slow start (the paper's section 4.1, Table 1) between two
namespaces: member 1 (tpsssink) streams a fixed offered load of RTP (L16 audio,
1000 packets/s) to member 2 (tpsssrc) across a link with 100 ms one-way delay
(the paper's long fat pipe: RTT 200 ms there, 100 ms here, only the forward
path delayed) and burst loss on the data port (bursts of 2 packets, one every
50 packets). With TPSS the redundant phase's interleaved parity (k = 20)
repairs the bursts; with traditional slow start they reach the application.
Passes when the loss the application sees with TPSS is at most a third of the
traditional slow start's (the paper: 5.4% vs 21.9%).

run_pair() is also used by tests/bench/bench-tpss-tables.py."""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

PORT = 5004
SECONDS = 10
PPS = 1000                   # 48 kHz stereo L16, 1 ms per packet
DELAY_MS = 100
EVERY, BURST = 50, 2
# The receiver's first interval comes before any RTT sample (the RTT is
# measured from the RATE it answers), so it lasts min-report-interval: the
# paper's RTT, 200 ms, rather than the 20 ms default, or a first interval
# that falls between two bursts ends the redundant phase at once.
REPORT_NS = 200_000_000
# The paper's complete receipt, "all of the packets" for a round trip: with
# media gaps alone counted, a round trip whose two bursts both fell on
# parity ended the redundant phase about 0.6 s in (one run in about
# fifteen), and every later burst reached the application. With the option
# a round trip that lost only parity holds the probe (neither confirms nor
# steps), and the next one decides.
NEEDS_PARITY = "assign-needs-parity=true"
CAPS = ("application/x-rtp,media=audio,clock-rate=48000,encoding-name=L16,"
        "channels=2")


def parse_stats(text):
    """The last tpss-stats message of a gst-launch -m output, as
    (session fields, {member id: fields})."""
    lines = [ln for ln in text.splitlines() if "tpss-stats" in ln]
    if not lines:
        return {}, {}
    line = lines[-1].replace("\\", "")
    field = re.compile(r"([a-z-]+)=\((\w+)\)([^,;}\"]+)")

    def fields(s):
        out = {}
        for k, t, v in field.findall(s):
            v = v.strip()
            out[k] = int(v) if t in ("uint", "guint64", "int", "gint64") and \
                re.fullmatch(r"-?\d+", v) else v
        return out
    head, _, rest = line.partition("members=")
    members = {}
    for part in rest.split("member, ")[1:]:
        f = fields(part)
        if "id" in f:
            members[f["id"]] = f
    return fields(head), members


def first_assign(lines, t0):
    """Seconds from @t0 to the first tpss-stats message (timed lines) in
    which member 1 has been sent an ASSIGN; None if none was."""
    for t, ln in lines:
        if "tpss-stats" in ln and \
                parse_stats(ln)[1].get(1, {}).get("assigns", 0) > 0:
            return t - t0
    return None


def gst(cmd):
    return ["sh", "-c", "exec gst-launch-1.0 " + cmd]


def run_mode(bed, snd, rcv, slow_start, seconds=SECONDS, every=EVERY,
             burst=BURST, delay_ms=DELAY_MS, parity_props=NEEDS_PARITY):
    """Streams for `seconds`; returns a dict: offered, delivered, lost,
    recovered, raw_lost, dropped (by the impairment), loss (ratio),
    holds, assign_s (see first_assign)."""
    n = seconds * PPS
    imp = bed.nfq(snd, "eth0", udp_port=PORT, delay_ms=delay_ms, every=every,
                  burst_len=burst)
    members = f"1@{snd.ip}:{PORT},2@{rcv.ip}:{PORT}"
    common = (f"members={members} slow-start={slow_start} "
              f"initial-rate=4000000 fec-size-time=300000000 "
              f"min-report-interval={REPORT_NS} {parity_props}")
    rx = rcv.popen(gst(
        f"-m tpsssrc name=s port={PORT} member-id=2 {common} "
        f"stats-interval=200000000 caps=\"{CAPS}\" "
        f"s.src_1 ! fakesink sync=false async=false"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines, reader = netbed.timed_lines(rx.stdout)
    time.sleep(1.0)
    t0 = time.monotonic()
    snd.run(gst(
        f"-q audiotestsrc is-live=true num-buffers={n} samplesperbuffer=48 ! "
        f"audio/x-raw,rate=48000,channels=2 ! rtpL16pay ! "
        f"tpsssink port={PORT} member-id=1 {common}"), timeout=seconds + 30)
    time.sleep(1.5)
    rx.send_signal(signal.SIGINT)
    err = rx.stderr.read().decode(errors="replace")
    rx.wait(timeout=20)
    reader.join(timeout=5)
    st = imp.remove()
    _, members_stats = parse_stats("\n".join(ln for _, ln in lines))
    m = members_stats.get(1, {})
    delivered = m.get("packets-delivered", 0)
    return dict(offered=n, delivered=delivered, lost=n - delivered,
                recovered=m.get("packets-recovered", 0),
                raw_lost=m.get("packets-lost", 0),
                parity=m.get("parity-received", 0),
                dropped=st.get("dropped", 0), loss=(n - delivered) / n,
                holds=m.get("holds", 0), assign_s=first_assign(lines, t0),
                stderr=err[-2000:] if not m else "")


def run_pair(**kw):
    """Both modes on one fresh test bed: {"tpss": ..., "traditional": ...}."""
    with netbed.NetBed() as bed:
        snd, rcv = bed.host("snd"), bed.host("rcv")
        bed.link(snd, rcv, "10.77.1.1/24", "10.77.1.2/24")
        return {mode: run_mode(bed, snd, rcv, mode, **kw)
                for mode in ("tpss", "traditional")}


def main():
    netbed.require_or_skip(nfq=True)
    res = run_pair()
    failed = 0
    for mode, r in res.items():
        print(f"{mode:12s} offered={r['offered']} delivered={r['delivered']} "
              f"lost={r['lost']} ({100 * r['loss']:.2f}%) "
              f"raw-lost={r['raw_lost']} recovered={r['recovered']} "
              f"parity={r['parity']} impairment-dropped={r['dropped']}")
        if r["stderr"]:
            print(r["stderr"])

    def check(name, ok, detail):
        nonlocal failed
        print(f"{'ok' if ok else 'FAIL'}: {name}: {detail}")
        failed += not ok

    t, b = res["tpss"], res["traditional"]
    check("the link lost packets in both runs",
          t["dropped"] > 100 and b["dropped"] > 100,
          f"{t['dropped']} / {b['dropped']}")
    check("traditional slow start lets the bursts through", b["loss"] > 0.01,
          f"{100 * b['loss']:.2f}%")
    check("TPSS recovered packets from parity", t["recovered"] > 0,
          f"{t['recovered']}")
    check("TPSS loss at most a third of traditional",
          t["loss"] <= b["loss"] / 3,
          f"{100 * t['loss']:.2f}% vs {100 * b['loss']:.2f}% "
          f"(paper: 5.4% vs 21.9%)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
