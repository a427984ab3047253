#!/usr/bin/env python3
"""assign-needs-parity off (media gaps alone make a round trip incomplete)
against on (a round trip that lost only parity holds: no ASSIGN, no step),
alternated run by run on the scenarios of tests/net/test_tpss_burst_loss.py
(Table 1b: TPSS loss after FEC), test_tpss_capacity_tbf.py (loss behind a
6 Mbit/s token bucket) and test_tpss_capacity_stall.py (goodput of a
receiver that stalls 40 ms every 200 ms), beside the traditional slow start
run once on each as the reference. Prints every run (with the 1-minute load
average), then the medians per arm and their ratio to the default's.

Needs root, nfq-impair and tpss-rate-src (TPSS_RATE_SRC; exit 77
otherwise). Usage: bench-tpss-parity-hold.py [rounds]"""
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "net"))
import netbed  # noqa: E402
import test_tpss_burst_loss as bl  # noqa: E402
import test_tpss_capacity_stall as cs  # noqa: E402
import test_tpss_capacity_tbf as ct  # noqa: E402

ARMS = {"default": "", "hold": "assign-needs-parity=true"}
METRICS = [("burst loss %", "burst", "loss", 100),
           ("burst ASSIGN s", "burst", "assign_s", 1),
           ("burst holds", "burst", "holds", 1),
           ("tbf loss %", "tbf", "loss", 100),
           ("tbf goodput Mbit/s", "tbf", "goodput", 1e-6),
           ("tbf ASSIGN s", "tbf", "assign_s", 1),
           ("tbf holds", "tbf", "holds", 1),
           ("stall loss %", "stall", "loss", 100),
           ("stall goodput Mbit/s", "stall", "goodput", 1e-6),
           ("stall ASSIGN s", "stall", "assign_s", 1),
           ("stall holds", "stall", "holds", 1)]


def load():
    return os.getloadavg()[0]


def run_all(slow_start, props):
    """One run of each scenario: {"burst": ..., "tbf": ..., "stall": ...}."""
    out = {}
    with netbed.NetBed() as bed:
        snd, rcv = bed.host("snd"), bed.host("rcv")
        bed.link(snd, rcv, "10.77.1.1/24", "10.77.1.2/24")
        out["burst"] = bl.run_mode(bed, snd, rcv, slow_start,
                                   parity_props=props)
    with netbed.NetBed() as bed:
        snd, rcv = ct.two_hosts(bed)
        bed.bottleneck(snd, "eth0", ct.CAPACITY, latency_ms=50)
        out["tbf"] = ct.run_flow(snd, rcv, slow_start, common_props=props)
    with netbed.NetBed() as bed:
        snd, rcv = ct.two_hosts(bed)
        out["stall"] = ct.run_flow(
            snd, rcv, slow_start, seconds=cs.SECONDS,
            rx_props=f"buffer-size={cs.BUFFER}", stall=cs.STALL,
            report_ns=cs.REPORT_NS, common_props=props)
    out["load"] = load()
    return out


def value(run, scenario, key, scale):
    v = run[scenario].get(key)
    return None if v is None else v * scale


def show(label, run):
    cells = []
    for _, scen, key, scale in METRICS:
        v = value(run, scen, key, scale)
        cells.append("-" if v is None else f"{v:.2f}")
    print(f"{label:22s} load {run['load']:5.1f}  " + "  ".join(cells),
          flush=True)


def median(runs, scen, key, scale):
    vals = [value(r, scen, key, scale) for r in runs]
    known = [v for v in vals if v is not None]
    return (statistics.median(known) if known else None,
            len(vals) - len(known))


def main():
    netbed.require_or_skip(nfq=True)
    if not ct.RATE_SRC:
        print("SKIP: TPSS_RATE_SRC not set")
        return 77
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print("columns: " + " | ".join(m[0] for m in METRICS))
    ref = run_all("traditional", "")
    show("traditional", ref)
    runs = {arm: [] for arm in ARMS}
    for i in range(rounds):
        order = list(ARMS) if i % 2 == 0 else list(reversed(ARMS))
        for arm in order:
            r = run_all("tpss", ARMS[arm])
            runs[arm].append(r)
            show(f"{arm} #{i + 1}", r)

    print(f"\nmedians over {rounds} runs (ratio to default; n/a: runs "
          f"without an ASSIGN)")
    print(f"{'':22s}{'traditional':>12s}" +
          "".join(f"{arm:>18s}" for arm in ARMS))
    for name, scen, key, scale in METRICS:
        base, _ = median(runs["default"], scen, key, scale)
        rv = value(ref, scen, key, scale)
        row = f"{name:22s}{'-' if rv is None else f'{rv:.2f}':>12s}"
        for arm in ARMS:
            med, none = median(runs[arm], scen, key, scale)
            cell = "-" if med is None else f"{med:.2f}"
            if med is not None and base:
                cell += f" ({med / base:.2f})"
            if none:
                cell += f" n/a {none}"
            row += f"{cell:>18s}"
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
