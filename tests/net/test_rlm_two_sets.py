#!/usr/bin/env python3
"""RLM (issue 18), the paper's topology (3): one sender, two receivers on
one snooping bridge, one behind a bottleneck of B = 1.5 Mbit/s (levels 1-3
fit) and one behind B/2 = 750 kbit/s (levels 1-2 fit), with the stream of
test_rlm_single.py (4 layers, cumulative 250, 500, 1000, 2000 kbit/s).
Passes when each receiver converges to its own level and keeps it, and the
loss of the layers each keeps is low in the second half."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_rlm_single as rlm  # noqa: E402

SECONDS = 70
MAX_LOSS = rlm.MAX_LOSS
SETS = {"fast": (rlm.B, 3), "slow": (rlm.B // 2, 2)}


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    with netbed.NetBed() as bed:
        rxs, t0, t_end = rlm.run_behind_ports(
            bed, check, {n: rate for n, (rate, _) in SETS.items()}, "slow",
            SECONDS)
        results = []
        for name, (rate, best) in SETS.items():
            rx = rxs[name]
            lv, st = rlm.levels(rx), rlm.stats(rx)
            print(f"{name} ({rate} bit/s) levels:",
                  [(round(t - t0, 1), lvl, why) for t, lvl, why in lv])
            if st:
                f = st[-1][1]
                print(f"{name} final: level={f.get('level')} "
                      f"experiments run={f.get('experiments-run')} "
                      f"failed={f.get('experiments-failed')} "
                      f"learned={f.get('experiments-learned')} "
                      f"suppressed={f.get('experiments-suppressed')} "
                      f"session-size={f.get('session-size')}")
            conv = rlm.convergence(lv, best, t0)
            half = t0 + SECONDS / 2
            frac = rlm.time_at(lv, best, half, t_end) if lv else 0
            loss = rlm.loss_between(st, half, t_end, best)
            check(f"{name} converged to level {best} and kept it",
                  conv is not None, f"convergence time "
                  f"{conv and round(conv, 1)} s")
            check(f"{name} mostly at level {best} in the second half",
                  frac >= 0.7, f"{100 * frac:.0f}% of the time")
            check(f"{name}: loss of its layers in the second half at most "
                  f"{100 * MAX_LOSS:.0f}%",
                  loss is not None and loss <= MAX_LOSS,
                  f"{loss and round(100 * loss, 2)}%")
            results.append(f"{name}_level={best} convergence_s="
                           f"{conv and round(conv, 1)} loss_second_half="
                           f"{loss and round(100 * loss, 2)}%")
        print("RESULT topology=3 " + " ".join(results))
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
