#!/usr/bin/env python3
"""VLMCC (issue 19): the paper's two plots from the simulator's real cores.

1. vlmcc-fig6-leader-timeline.svg, like the paper's Figure 6: the figure5
   scenario (`vlmcc-sim figure5-csv`; congestion moves from router 2 to
   router 3 at 27 s and back at 45 s): the sender's announced rate and each
   receiver's rate per 500 ms (one line for receivers whose rates are the
   same throughout), a dashed line at each leader change labelled with the
   new leader (r0, r1 behind router 2; r2, r3 behind router 3; "none" for
   a leadership loss).
2. vlmcc-feedback-against-n.svg: feedback packets per sender RTT against N
   (`vlmcc-sim scale-csv`), with one bottleneck and no receiver worse off
   than the leader ("quiet"), and with the worst branch moving every 5 s
   ("moving"; scale-csv's "churn"), the paper's followers and with the
   challenge echo: all feedback and the challenges alone.

Usage: vlmcc_plots.py [--sim build/tests/sim/vlmcc-sim] [--img docs/img]
[--data docs/data/vlmcc-plots] [--n 10,30,100,300,1000] [--check]
The CSVs go to --data, the SVGs to --img. --check exits 1 if the run does
not show what the plots are for: the leader moves to router 3 within 2 s of
27 s and back within 2 s of 45 s and nowhere else, the acks do not depend on
N (within 2 %), and all feedback per RTT at the largest N stays within 1.5
times that at the smallest (tests/sim/meson.build runs it as
sim/vlmcc-plots)."""
import argparse
import csv
import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, "..", "bench"))

from svgplot import svg_plot  # noqa: E402

TIMELINE_SVG = "vlmcc-fig6-leader-timeline.svg"
FEEDBACK_SVG = "vlmcc-feedback-against-n.svg"
ROUTER = {0: 2, 1: 2, 2: 3, 3: 3}      # receiver -> router (figure5)
MOVES = ((27.0, 3), (45.0, 2))         # congestion moves: time, router
MOVE_WITHIN_S = 2.0
BOUND = 1.5                            # feedback per RTT, largest N / smallest


def sim_csv(sim, args, out):
    """vlmcc-sim's CSV for @args, also written to @out."""
    text = subprocess.run([sim] + args, check=True, capture_output=True,
                          text=True).stdout
    with open(out, "w") as f:
        f.write(text)
    return text


# ------------------------------------------------------------ leader timeline

def timeline(text):
    """figure5-csv's bins (dicts by its header) and LEADER events ("leader"
    rows: time, receiver)."""
    lines = text.splitlines()
    bins = [r for r in csv.DictReader(lines) if r["kind"] == "bin"]
    changes = [(float(r[1]), int(r[2])) for r in csv.reader(lines)
               if r[0] == "leader"]
    return bins, changes


def rx_columns(bins):
    return [k for k in bins[0] if k.startswith("rx")]


def leader_labels(changes):
    """One label per burst of changes under 1 s apart (on its first line),
    the leaders in order, so that close lines stay readable."""
    out, last = [], None
    for t, rx in changes:
        name = f"r{rx}" if rx >= 0 else "none"
        if last is not None and t - last < 1.0:
            out[-1][1].append(name)
            out.append((t, None))
        else:
            out.append((t, [name]))
        last = t
    return [(t, "" if names is None else ",".join(names))
            for t, names in out]


def receiver_groups(bins):
    """Receivers whose rates are the same in every bin (those behind one
    router: the group's packets are the same), as [(indices, column)]."""
    groups = []
    for k in rx_columns(bins):
        i = int(k[2:k.index("_")])
        same = [g for g in groups
                if all(b[k] == b[g[1]] for b in bins)]
        if same:
            same[0][0].append(i)
        else:
            groups.append(([i], k))
    return groups


def plot_timeline(bins, changes, path):
    series = [("sender (announced)",
               [(float(b["t_s"]), float(b["sender_kbit"])) for b in bins],
               "line")]
    for ids, k in receiver_groups(bins):
        routers = sorted({ROUTER.get(i, "?") for i in ids})
        series.append((", ".join(f"r{i}" for i in ids) + " (router " +
                       ", ".join(map(str, routers)) + ")",
                       [(float(b["t_s"]), float(b[k])) for b in bins],
                       "line"))
    svg_plot(path, "VLMCC sim, Figure 5 scenario: rates and leader changes",
             "time (s); CBR into router 2 over 10-25 s and 41-60 s, into "
             "router 3 over 27-45 s; dashed: new leader",
             "rate per 500 ms (kbit/s)", series, xlog=False,
             xticks=range(0, 61, 5), markers=False,
             vlines=leader_labels(changes), width=760)
    return len(series)


def check_timeline(changes):
    """The leader's router after each change (leadership losses left out)
    must be 2, then 3 within MOVE_WITHIN_S of 27 s, then 2 within it of
    45 s, and move at no other time."""
    errors, moves, router = [], [], None
    for t, rx in changes:
        if rx < 0:
            continue
        if ROUTER[rx] != router:
            moves.append((t, ROUTER[rx]))
            router = ROUTER[rx]
    if not moves or moves[0][1] != 2:
        errors.append(f"first leader not behind router 2: {moves[:1]}")
    got = moves[1:]
    if len(got) != len(MOVES):
        errors.append(f"leader moved between routers {len(got)} times, "
                      f"expected {len(MOVES)}: {got}")
    for (t, r), (when, want) in zip(got, MOVES):
        if r != want or not when <= t <= when + MOVE_WITHIN_S:
            errors.append(f"move to router {r} at {t:.3f} s, expected "
                          f"router {want} within {MOVE_WITHIN_S} s of "
                          f"{when} s")
    return errors


# ------------------------------------------------------- feedback against N

def feedback(text):
    """{scenario: [(N, all per RTT, acks, challenges per RTT, peak
    challenges per 100 ms)]} from scale-csv's rows."""
    out = {}
    for r in csv.DictReader(io.StringIO(text)):
        total = sum(int(r[k]) for k in ("acks", "challenges", "probes",
                                        "other"))
        per = float(r["per_rtt"])
        out.setdefault(r["scenario"], []).append(
            (int(r["n"]), per, int(r["acks"]),
             per * int(r["challenges"]) / total,
             r["peak_challenges_100ms"]))
    return out


def plot_feedback(fb, path):
    names = {"quiet": "1 bottleneck", "churn": "moving",
             "churn-echo": "moving, echo"}
    series = [(f"{names[s]}: all", [(n, a) for n, a, _, _, _ in fb[s]],
               "line") for s in ("quiet", "churn", "churn-echo")]
    series += [(f"{names[s]}: challenges",
                [(n, c) for n, _, _, c, _ in fb[s]], "line")
               for s in ("churn", "churn-echo")]
    svg_plot(path, "VLMCC sim: feedback at the sender against N",
             "receivers N (log)", "feedback packets per RTT (log)", series,
             ylog=True)


def check_feedback(fb):
    errors = []
    for s, pts in fb.items():
        pts = sorted(pts)
        (n0, all0, acks0, _, _), (n1, all1, acks1, _, _) = pts[0], pts[-1]
        if all1 > BOUND * all0:
            errors.append(f"{s}: {all1:.2f} feedback per RTT at N = {n1} "
                          f"> {BOUND} x {all0:.2f} at N = {n0}")
        if abs(acks1 - acks0) > 0.02 * acks0:
            errors.append(f"{s}: {acks0} acks at N = {n0}, {acks1} at "
                          f"N = {n1}")
    return errors


def check_svg(path, polylines, vlines):
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    got = (len(root.findall(f"{ns}polyline")),
           len([e for e in root.findall(f"{ns}line")
                if e.get("class") == "vline"]))
    if got != (polylines, vlines):
        return [f"{path}: {got[0]} lines and {got[1]} leader lines, "
                f"expected {polylines} and {vlines}"]
    return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", default=os.environ.get(
        "VLMCC_SIM", os.path.join(ROOT, "build", "tests", "sim",
                                  "vlmcc-sim")))
    ap.add_argument("--img", default=os.path.join(ROOT, "docs", "img"))
    ap.add_argument("--data", default=os.path.join(ROOT, "docs", "data",
                                                   "vlmcc-plots"))
    ap.add_argument("--n", default="10,30,100,300,1000")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.img, exist_ok=True)
    os.makedirs(a.data, exist_ok=True)

    bins, changes = timeline(sim_csv(a.sim, ["figure5-csv"], os.path.join(
        a.data, "figure5-timeline.csv")))
    lines = plot_timeline(bins, changes, os.path.join(a.img, TIMELINE_SVG))
    for t, rx in changes:
        print(f"  {t:7.3f} s: leader {'r%d' % rx if rx >= 0 else 'none'}")

    fb = feedback(sim_csv(a.sim, ["scale-csv"] + a.n.split(","),
                          os.path.join(a.data, "feedback-against-n.csv")))
    plot_feedback(fb, os.path.join(a.img, FEEDBACK_SVG))
    for s, pts in fb.items():
        for n, per, acks, ch, peak in pts:
            print(f"  {s:10s} N {n:5d}: {per:6.2f} per RTT ({acks} acks, "
                  f"challenges {ch:5.2f} per RTT), peak challenges/100 ms "
                  f"{peak or '-'}")

    if not a.check:
        return 0
    errors = (check_timeline(changes) + check_feedback(fb) +
              check_svg(os.path.join(a.img, TIMELINE_SVG),
                        lines, len(changes)) +
              check_svg(os.path.join(a.img, FEEDBACK_SVG), 5, 0))
    for e in errors:
        print("FAIL:", e)
    print("ok" if not errors else f"{len(errors)} check(s) failed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
