#!/usr/bin/env python3
"""The eighteenth pass's tables (docs/results.md): the seventeenth pass's
(summarize.py there, imported) with this pass's variant named.
--pairs A B: variant B against A in the same trial.
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py [--pairs A B] RUNS.json ..."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "summarize17", os.path.join(HERE, "..", "tpba-seventeenth-pass", "summarize.py"))
s17 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(s17)

s17.s14.LABEL["TPBA-ours-cap6-ratio3-step1-ceil2-eqep075"] = \
    "ceiling 2, equation-episodes, factor 0.75"

if __name__ == "__main__":
    s17.main(sys.argv[1:])
