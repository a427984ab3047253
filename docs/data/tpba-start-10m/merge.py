#!/usr/bin/env python3
"""The runs drive.sh left in its lanes' OUT folders (one JSON a run, named
t{trial}-{case}-{arm}.json), each given its trial, merged into this folder as
one JSON per case. Usage: merge.py OUT ..."""
import glob
import json
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
out = {}
for bed in sys.argv[1:]:
    for p in sorted(glob.glob(os.path.join(bed, "t*-*.json"))):
        m = re.match(r"t(\d+)-(.+)-(together|before)\.json$", os.path.basename(p))
        for r in json.load(open(p)):
            r["trial"] = int(m.group(1))
            out.setdefault(m.group(2), []).append(r)
for case, runs in out.items():
    with open(os.path.join(here, f"fair-{case}.json"), "w") as f:
        json.dump(runs, f)
    print(case, len(runs))
