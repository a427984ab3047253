#!/usr/bin/env python3
"""The nineteenth pass (docs/results.md), offline on the eighteenth pass's
captures: does CUBIC's response function predict the TCP flows' rate from
their own loss events a second e and mean RTT R better than Reno's rule?

Rules, packets a second (s = 1448 bytes), e and R counted by the eighteenth
pass's shared.py (imported by path, as tpbacore counts them):
- reno: 3 / (2 e R^2), the rule kept-rate=equation-episodes uses;
- cubic: max(cubic region, Reno-friendly region), RFC 9438 section 5.1
  (RFC 8312 section 5.1) average windows with C = 0.4, beta = 0.7, solved
  for one loss event every 1 / e s (p = e R / W): the cubic region's average
  window is C (3 + beta) / (4 (1 - beta) e^3) packets, the Reno-friendly
  region (AIMD with alpha = 3 (1 - beta) / (1 + beta)) gives reno's rate;
- reno-p, cubic-p: the same two response functions on p = the flow's own
  loss events over its own data segments (ss data_segs_out), rate W / R:
  a check of the functions, not a rule TPBA can use (p needs the flow's
  packets, which is the rate to be predicted);
- fluid(k): a per-flow fluid model of Linux's reno or cubic (the flow's own
  algorithm; cubic with fast convergence and the Reno-friendly estimate),
  a loss event every 1 / e s at RTT R, no window growth for k RTTs after
  each event (detection and recovery); k fitted on two cases and applied
  to the third (leave one case out), and the same for a constant factor on
  reno (episodes-factor); fluid(1.4) is kept-rate=equation-sawtooth's
  default, k fitted on the reference runs' TCP flows of all three cases.
Windows: the reference runs (a TCP flow in TPBA's place) over [10, JOIN) s,
the TCP flows beside it ("TCP flows"), and the flow in TPBA's place itself
("in TPBA's place"); the equation-episodes (and equation-sawtooth) runs'
probing periods after the first, from cycle 1 to the period's end: the TCP flows beside the probe, and
the rules fed the probe's own e and R over the TCP flows' rate (what TPBA
would keep). Each row: the rule's rate over the measured mean rate; per run
the median, per case the median of run medians [range].
Usage: BENCH_TPBA_TIMES=80,65,75 response.py [RUNS.json ...]
(default: the eighteenth pass's fair-1.2M-*.json)"""
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PASS18 = os.path.join(HERE, "..", "tpba-eighteenth-pass")
spec = importlib.util.spec_from_file_location("shared18", os.path.join(PASS18, "shared.py"))
s18 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(s18)
cycles = s18.cycles

SEGMENT = s18.SEGMENT
C, BETA = 0.4, 0.7
ALPHA_FRIENDLY = 3 * (1 - BETA) / (1 + BETA)
CASES = ("1 cubic", "2 cubic", "1 reno")
HOLD = 1.4          # sawtooth-hold's default: fitted on all three cases


def reno(e, R):
    return 3 / (2 * e * R * R)


def cubic(e, R):
    return max(C * (3 + BETA) / (4 * (1 - BETA) * e ** 3) / R, reno(e, R))


def reno_p(p, R):
    return (3 / (2 * p)) ** 0.5 / R


def cubic_p(p, R):
    w_cubic = (C * (3 + BETA) / (4 * (1 - BETA))) ** 0.25 * (R / p) ** 0.75
    return max(w_cubic, (3 / (2 * p)) ** 0.5) / R


def fluid(cc, e, R, k, steps=100, cycles_n=40):
    """Mean rate (packets a second) of one flow of Linux's reno or cubic
    with a loss event every 1 / e s at RTT R and k RTTs without growth
    after each event, once the cycles repeat."""
    T, W, w_last, total = 1 / e, 10.0, 10.0, 0.0
    for _ in range(cycles_n):
        if cc == "reno":
            w0 = W / 2
        else:
            w_last = W * (1 + BETA) / 2 if W < w_last else W   # fast convergence
            w0 = W * BETA
        hold = min(k * R, T)
        K = ((w_last - w0) / C) ** (1 / 3) if cc != "reno" else 0.0

        def window(t):
            if cc == "reno":
                return w0 + t / R
            return max(w0 + ALPHA_FRIENDLY * t / R, w_last + C * (t - K) ** 3)
        dt = (T - hold) / steps
        total = hold * w0 + sum(window((i + 0.5) * dt) for i in range(steps)) * dt
        W = window(T - hold)
    return total / T / R


def pkts_to_bits(x):
    return 8 * SEGMENT * x


def flow_stats(fl, port, a, b):
    """(e 1/s, mean RTT s, loss events / data segments) of one connection."""
    samples, events = fl[port]
    e, R = s18.span_stats(samples, events, a, b)
    segs = [s[6] for s in samples if a <= s[0] < b and s[6] >= 0]
    n = sum(a <= t < b for t in events)
    p = n / (segs[-1] - segs[0]) if len(segs) > 1 and segs[-1] > segs[0] else -1
    return e, R, p


def predict(cc, e, R, p, k_fluid):
    """Each rule's rate, bit/s (None where it has no value)."""
    if e <= 0 or R <= 0:
        return {}
    out = {"reno": reno(e, R), "cubic": cubic(e, R),
           "fluid(0)": fluid(cc, e, R, 0)}
    if p > 0:
        out["reno-p"], out["cubic-p"] = reno_p(p, R), cubic_p(p, R)
    for k in k_fluid:
        out[f"fluid({k:g})"] = fluid(cc, e, R, k)
    return {key: pkts_to_bits(v) for key, v in out.items()}


def tcp_side(fl, run, a, b):
    """The TCP flows' mean e, mean R and mean p over [a, b)."""
    st = [flow_stats(fl, str(s18.CROSS_PORT + k), a, b) for k in range(run["ntcp"])]
    ps = [p for *_, p in st if p > 0]
    return (statistics.mean(e for e, _, _ in st), statistics.mean(r for _, r, _ in st),
            statistics.mean(ps) if ps else -1)


def windows(run):
    """(window name, cc, e, R, p, measured bit/s) rows of one run."""
    fl = s18.flows(run)
    if fl is None:
        return
    cc = run["cc"]
    if run["variant"] == "TCP":
        a, b = s18.WARMUP, cycles.JOIN
        e, R, p = tcp_side(fl, run, a, b)
        yield "reference: TCP flows", cc, e, R, p, s18.tcp_mean(run, a, b)
        e, R, p = flow_stats(fl, str(s18.PROBE_PORT), a, b)
        yield "reference: in TPBA's place", cc, e, R, p, statistics.mean(run["R"][0][a:b])
        return
    arm = run["variant"].rsplit("-", 1)[1]
    if arm not in ("eqep", "eqsaw"):
        return
    for t0, t1, _, tcp in cycles.judged_periods(run):
        a, b = t0 + 1, t1
        if b - a < 2 or tcp <= 1e3:
            continue
        e, R, p = tcp_side(fl, run, a, b)
        yield f"probing, {arm}: TCP flows", cc, e, R, p, tcp
        e, R, _ = flow_stats(fl, str(s18.PROBE_PORT), a, b)
        yield f"probing, {arm}: the probe's e, R", cc, e, R, -1, tcp


def case_name(run):
    return f"{run['ntcp']} {run['cc']}"


def load(paths):
    """{(window, case): [[row dict per span] per run]} of ratios."""
    out = {}
    for path in paths:
        for run in json.load(open(path)):
            if not run.get("ok") or "ss" not in run:
                continue
            per_window = {}
            for name, cc, e, R, p, measured in windows(run):
                per_window.setdefault(name, []).append((cc, e, R, p, measured))
            for name, spans in per_window.items():
                out.setdefault((name, case_name(run)), []).append(spans)
    return out


def run_medians(spans_by_run, rule):
    meds = []
    for spans in spans_by_run:
        vals = [rule(*s[:4]) for s in spans if s[1] > 0 and s[2] > 0]
        vals = [v / s[4] for v, s in zip(vals, [s for s in spans if s[1] > 0 and s[2] > 0])
                if v is not None]
        if vals:
            meds.append(statistics.median(vals))
    return sorted(meds)


def fmt(meds):
    if not meds:
        return "-"
    return f"{statistics.median(meds):.2f} [{meds[0]:.2f}-{meds[-1]:.2f}]"


def fit(data, window, cases, make_rule, lo, hi):
    """The parameter in [lo, hi] that centres the pooled run medians of
    cases at 1 (bisection; the rule falls as the parameter rises)."""
    for _ in range(30):
        mid = (lo + hi) / 2
        meds = [m for c in cases for m in run_medians(data[(window, c)], make_rule(mid))]
        lo, hi = (mid, hi) if statistics.median(meds) > 1 else (lo, mid)
    return (lo + hi) / 2


def rule_of(key):
    def r(cc, e, R, p):
        return predict(cc, e, R, p, (HOLD,)).get(key)
    return r


def main(argv):
    paths = argv or [os.path.join(PASS18, f"fair-1.2M-{c}.json")
                     for c in ("1cubic", "2cubic", "1reno")]
    data = load(paths)
    keys = ("reno", "cubic", "reno-p", "cubic-p", "fluid(0)", f"fluid({HOLD:g})")
    names = sorted({w for w, _ in data})
    print("| window | case | runs | " + " | ".join(keys)
          + " | factor on reno, left out | fluid(k), k left out |")
    print("|---" * (len(keys) + 5) + "|")
    for w in names:
        fit_window = w.split(":")[0] + ": TCP flows"
        for case in CASES:
            if (w, case) not in data:
                continue
            runs = data[(w, case)]
            others = [c for c in CASES if c != case]
            f = 1 / statistics.median([m for c in others
                                       for m in run_medians(data[(fit_window, c)], rule_of("reno"))])
            k = fit(data, fit_window, others,
                    lambda k: (lambda cc, e, R, p: pkts_to_bits(fluid(cc, e, R, k))), 0.0, 4.0)
            cells = [fmt(run_medians(runs, rule_of(key))) for key in keys]
            factored = fmt([m * f for m in run_medians(runs, rule_of("reno"))])
            fl = fmt(run_medians(runs, lambda cc, e, R, p: pkts_to_bits(fluid(cc, e, R, k))))
            print(f"| {w} | {case} | {len(runs)} | " + " | ".join(cells)
                  + f" | {factored} (f = {f:.2f}) | {fl} (k = {k:.2f}) |")


if __name__ == "__main__":
    main(sys.argv[1:])
