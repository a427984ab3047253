import json, glob, os, re, sys
# usage: merge-ref.py [OUT]: the runs drive-ref.sh left in OUT (t<trial>-<case>-<ref start>.json),
# merged into this folder as ref-1.2M-<case>.json, each run with its trial number
bed = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tpba-twentieth-ref"
here = os.path.dirname(os.path.abspath(__file__))
out = {}
for p in sorted(glob.glob(os.path.join(bed, "t*-*.json"))):
    m = re.match(r"t(\d+)-(\d+[a-z]+)-(-?[\d.]+)\.json", os.path.basename(p))
    for r in json.load(open(p)):
        r["trial"] = int(m.group(1))
        out.setdefault(m.group(2), []).append(r)
for case, runs in out.items():
    json.dump(runs, open(os.path.join(here, f"ref-1.2M-{case}.json"), "w"))
    print(case, len(runs))
