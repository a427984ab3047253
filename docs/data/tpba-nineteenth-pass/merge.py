import json, glob, os, re
out = {}
for p in sorted(glob.glob("/tmp/h94-bed/t*-*.json")):
    m = re.match(r"t(\d+)-(\w+)\.json", os.path.basename(p))
    runs = json.load(open(p))
    for r in runs:
        r["trial"] = int(m.group(1))
    out.setdefault(m.group(2), []).extend(runs)
for case, runs in out.items():
    json.dump(runs, open(f"/work/wt-h94/docs/data/tpba-nineteenth-pass/fair-1.2M-{case}.json", "w"))
    print(case, len(runs))
