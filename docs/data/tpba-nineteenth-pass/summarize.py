#!/usr/bin/env python3
"""The nineteenth pass's bed tables (docs/results.md): the eighteenth pass's
(summarize.py there, imported, and through it the earlier passes') with this
pass's variant named.
--pairs A B: variant B against A in the same trial.
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py [--pairs A B] RUNS.json ..."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "summarize18", os.path.join(HERE, "..", "tpba-eighteenth-pass", "summarize.py"))
s18 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(s18)

s18.s17.s14.LABEL["TPBA-ours-cap6-ratio3-step1-ceil2-eqsaw"] = \
    "ceiling 2, equation-sawtooth"

if __name__ == "__main__":
    s18.s17.main(sys.argv[1:])
