import json, glob, os, re, sys
# usage: merge.py [OUT]: the runs drive.sh left in OUT, merged into this folder
bed = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tpba-twentieth-bed"
here = os.path.dirname(os.path.abspath(__file__))
out = {}
for p in sorted(glob.glob(os.path.join(bed, "t*-*.json"))):
    m = re.match(r"t(\d+)-(\w+)\.json", os.path.basename(p))
    runs = json.load(open(p))
    for r in runs:
        r["trial"] = int(m.group(1))
    out.setdefault(m.group(2), []).extend(runs)
for case, runs in out.items():
    json.dump(runs, open(os.path.join(here, f"fair-1.2M-{case}.json"), "w"))
    print(case, len(runs))
