#!/usr/bin/env python3
"""tpss-capacity-stall's main() with the TPSS flow's D capped (max-rate,
from H115_TPSS_PROPS): a TPSS that stays below the capacity, which the rate
check must fail. Run with the environment meson gives the test."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tests/net"))
import test_tpss_capacity_tbf as cap
import test_tpss_capacity_stall as st
orig = cap.run_flow
def run_flow(snd, rcv, mode, **kw):
    if mode == "tpss":
        kw["common_props"] = (kw.get("common_props", "") + " " +
                              os.environ.get("H115_TPSS_PROPS", "")).strip()
    return orig(snd, rcv, mode, **kw)
cap.run_flow = run_flow
sys.exit(st.main())
