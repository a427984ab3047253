"""Rate series and fairness metrics shared by the fairness benchmarks
(bench-tpba-fairness.py, bench_vlmcc_fairness.py): cumulative byte samples
taken at a receiver become rates per window, and Jain's index compares
flows."""
import json
import os


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


def windows(samples, n, width=1.0):
    """bit/s over [j width, (j + 1) width), j < n (times relative to the start)."""
    return [8 * (bytes_at(samples, (j + 1) * width) - bytes_at(samples, j * width)) / width
            for j in range(n)]


def jain(rates):
    s, q = sum(rates), sum(r * r for r in rates)
    return s * s / (len(rates) * q) if q > 0 else 0.0


def save_runs(runs, env_name):
    """Writes the runs so far as JSON to the file named by $env_name, if set
    (after every run: an interrupted grid keeps what it measured)."""
    path = os.environ.get(env_name)
    if path:
        with open(path, "w") as fp:
            json.dump(runs, fp)


def report_and_status(runs, report):
    """Prints the tables of a finished grid; the exit status: 0 when every
    run worked."""
    print()
    report(runs)
    return 0 if all(r["ok"] for r in runs) else 1
