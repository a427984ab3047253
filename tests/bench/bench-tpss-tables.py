#!/usr/bin/env python3
"""Tables 1 and 2 of Tojo et al. (section 4), ours beside the paper's.

Runs the scenarios of tests/net/test_tpss_capacity_tbf.py and
test_tpss_capacity_stall.py (TPSS vs traditional slow start with media that
follows the sink's rate, the loss caused by capacity: a 6 Mbit/s token
bucket, and a receiver that stalls 40 ms every 200 ms; Table 1, each beside
a reference flow at a fixed rate: the bucket's capacity, and TPSS's rate /
0.9), tests/net/test_tpss_burst_loss.py (a fixed load over a delayed link
with injected bursts, Table 1b) and tests/net/test_tpss_group.py (the
Figure 8 group, notification vs feedback at the receive-only p4, Table 2)
in network namespaces, and prints delivered / lost / recovered / loss ratio.

The paper's absolute numbers come from 30 kbyte packets at ~430 Mbit/s on
Gigabit Ethernet with receiver overruns; ours from 1200-byte packets at a
few Mbit/s: compare the ratios, not the counts.
Needs root, nfq-impair and tpss-rate-src (TPSS_RATE_SRC; exit 77
otherwise). Usage:
  bench-tpss-tables.py [seconds-table1] [seconds-table2]"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "net"))
import netbed  # noqa: E402
import test_tpss_burst_loss as t1  # noqa: E402
import test_tpss_capacity_stall as cs  # noqa: E402
import test_tpss_capacity_tbf as ct  # noqa: E402
import test_tpss_group as t2  # noqa: E402

PAPER_T1 = {"tpss": (267257, 15181, 2139, 5.4),
            "traditional": (275646, 77292, None, 21.9)}
PAPER_T2 = {"notification": {1: (21352, 7254, 23.5), 2: (50106, 2628, 5.0),
                             3: (20978, 677, 3.1)},
            "feedback": {1: (68173, 12468, 15.5), 2: (47166, 6889, 12.7),
                         3: (12790, 564, 4.2)}}


def capacity_table(title, res, ref, capacity):
    """res: {"tpss", "traditional"} and ref (a fixed flow) from run_flow."""
    print(title + "\n")
    cols = [("TPSS", res["tpss"]), ("slow start", res["traditional"]),
            ("reference", ref)]
    print(f"{'':34s}" + "".join(f"{c:>13s}" for c, _ in cols) +
          f"{'TPSS (paper)':>14s}{'slow start (paper)':>20s}")
    rows = [("# of packets sent (application)", "pushed", "{:d}"),
            ("# of packets delivered", "delivered", "{:d}"),
            ("# of packets lost (after FEC)", "lost", "{:d}"),
            ("# of packets recovered", "recovered", "{:d}"),
            ("# of packets lost on the way", "raw_lost", "{:d}")]
    paper = {"delivered": (267257, 275646), "lost": (15181, 77292),
             "recovered": (2139, "-")}
    for label, key, fmt in rows:
        p = paper.get(key, ("", ""))
        print(f"{label:34s}" + "".join(f"{fmt.format(r[key]):>13s}"
                                       for _, r in cols) +
              f"{str(p[0]):>14s}{str(p[1]):>20s}")
    print(f"{'(average loss ratio)':34s}" +
          "".join(f"{100 * r['loss']:>12.2f}%" for _, r in cols) +
          f"{5.4:>13.1f}%{21.9:>19.1f}%")
    print(f"{'application data, 2nd half, Mbit/s':34s}" +
          "".join(f"{r['goodput'] / 1e6:>13.2f}" for _, r in cols))
    print(f"{'  of the capacity':34s}" +
          "".join(f"{100 * r['goodput'] / capacity:>12.0f}%"
                  for _, r in cols))
    print()


def main():
    netbed.require_or_skip(nfq=True)
    if not ct.RATE_SRC:
        print("SKIP: TPSS_RATE_SRC not set")
        return 77
    s1 = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    s2 = int(sys.argv[2]) if len(sys.argv) > 2 else 30

    with netbed.NetBed() as bed:
        snd, rcv = ct.two_hosts(bed)
        bed.bottleneck(snd, "eth0", ct.CAPACITY, latency_ms=50)
        res = {mode: ct.run_flow(snd, rcv, mode, seconds=s1)
               for mode in ("tpss", "traditional")}
        ref = ct.run_flow(snd, rcv, "traditional", seconds=s1,
                          fixed_bps=int(ct.APP_CAPACITY),
                          common_props=cs.fixed_rate_props(ct.APP_CAPACITY))
    capacity_table(
        f"Table 1: TPSS vs traditional slow start, loss from a token bucket "
        f"({ct.CAPACITY / 1e6:.0f} Mbit/s, 50 ms queue), {s1} s, media that "
        f"follows the sink's rate from 1 Mbit/s; reference: a fixed flow at "
        f"the capacity ({ct.APP_CAPACITY / 1e6:.2f} Mbit/s of application "
        f"data)", res, ref, ct.APP_CAPACITY)

    res = cs.run_pair(seconds=s1, ref_seconds=s1)
    ref = res.pop("reference")
    capacity_table(
        f"Table 1 (overrun): the receiver stalls 40 ms every 200 ms "
        f"(buffer-size {cs.BUFFER}), {s1} s; reference: a fixed flow at "
        f"TPSS's rate / 0.9 ({ref['rate'] / 1e6:.2f} Mbit/s, "
        f"{100 * ref['loss']:.1f}% lost: it overruns the receiver, above "
        f"1%)", res, ref, ref["rate"] * 0.9)

    r1 = t1.run_pair(seconds=s1)
    print(f"Table 1b: TPSS vs traditional slow start, {s1} s at "
          f"{t1.PPS} packets/s, {t1.DELAY_MS} ms one-way delay, bursts of "
          f"{t1.BURST} every {t1.EVERY} packets\n")
    print(f"{'':28s}{'TPSS (ours)':>14s}{'TPSS (paper)':>14s}"
          f"{'slow start (ours)':>19s}{'slow start (paper)':>20s}")
    rows = [("# of packets delivered", "delivered", 0),
            ("# of packets lost", "lost", 1),
            ("# of packets recovered", "recovered", 2)]
    for label, key, i in rows:
        pt, pb = PAPER_T1["tpss"][i], PAPER_T1["traditional"][i]
        print(f"{label:28s}{r1['tpss'][key]:>14d}{pt:>14d}"
              f"{r1['traditional'][key]:>19d}"
              f"{(str(pb) if pb is not None else '-'):>20s}")
    print(f"{'(average loss ratio)':28s}"
          f"{100 * r1['tpss']['loss']:>13.2f}%{PAPER_T1['tpss'][3]:>13.1f}%"
          f"{100 * r1['traditional']['loss']:>18.2f}%"
          f"{PAPER_T1['traditional'][3]:>19.1f}%")
    print(f"{'(raw loss on the link)':28s}{r1['tpss']['raw_lost']:>14d}{'':14s}"
          f"{r1['traditional']['raw_lost']:>19d}")

    r2 = t2.run_group(seconds=s2)
    print(f"\nTable 2: the Figure 8 group at p4 (max-receive-rate "
          f"{t2.CAPACITY / 1e6:.1f} Mbit/s, p2 prioritized), {s2} s, each "
          f"sender {t2.PPS} packets/s\n")
    print(f"{'':4s}{'':26s}{'notification':>14s}{'(paper)':>10s}"
          f"{'feedback':>12s}{'(paper)':>10s}")
    for i in (1, 2, 3):
        n, f = r2["notification"][i], r2["feedback"][i]
        pn, pf = PAPER_T2["notification"][i], PAPER_T2["feedback"][i]
        print(f"p{i:<3d}{'# of packets delivered':26s}{n['delivered']:>14d}"
              f"{pn[0]:>10d}{f['delivered']:>12d}{pf[0]:>10d}")
        print(f"{'':4s}{'# of packets lost':26s}{n['lost']:>14d}{pn[1]:>10d}"
              f"{f['lost']:>12d}{pf[1]:>10d}")
        print(f"{'':4s}{'(average packet loss)':26s}{100 * n['loss']:>13.1f}%"
              f"{pn[2]:>9.1f}%{100 * f['loss']:>11.1f}%{pf[2]:>9.1f}%")
        print(f"{'':4s}{'  of which sender queue':26s}{n['queue_dropped']:>14d}"
              f"{'':10s}{f['queue_dropped']:>12d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
