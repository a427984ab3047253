#!/usr/bin/env python3
"""The runs drive.sh left in OUT (one JSON a run, named t{trial}-{case}-{arm}.json),
each given its trial, merged into this folder as fair-1.2M-{case}.json.
Usage: merge.py [OUT]"""
import glob
import json
import os
import re
import sys

bed = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tpba-twenty-first-bed"
here = os.path.dirname(os.path.abspath(__file__))
out = {}
for p in sorted(glob.glob(os.path.join(bed, "t*-*-*.json"))):
    m = re.match(r"t(\d+)-(\w+)-[\w-]+\.json$", os.path.basename(p))
    for r in json.load(open(p)):
        r["trial"] = int(m.group(1))
        out.setdefault(m.group(2), []).append(r)
for case, runs in out.items():
    with open(os.path.join(here, f"fair-1.2M-{case}.json"), "w") as f:
        json.dump(runs, f)
    print(case, len(runs))
