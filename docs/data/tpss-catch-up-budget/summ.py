import glob, json, os, re, statistics as st
OUT = "/tmp/h103-ab/out"
def load(f):
    t = open(f).read()
    m = re.search(r"load average: ([\d.]+)", t)
    return t, float(m.group(1)) if m else None
def med(xs):
    return st.median(xs) if xs else float('nan')
rows = {}
for f in sorted(glob.glob(OUT + "/*.txt")):
    name = os.path.basename(f)[:-4]
    test, arm, n = name.split("-")
    t, ld = load(f)
    if "rc=" not in t:
        continue
    r = dict(n=int(n), load=ld)
    m = re.search(r"(\d+) passed, (\d+) failed", t)
    if m:
        r["pass"] = int(m.group(2)) == 0
        r["fails"] = [l[6:60] for l in t.splitlines() if l.startswith("FAIL")]
    if test == "group":
        for c in ("notification", "feedback"):
            for p in (1, 2, 3):
                m = re.search(rf"{c}\s+p{p}->p4 .*?\(([\d.]+)%\) not-delivered=(\d+) sender-queue-dropped=(\d+)", t)
                if m:
                    r[f"{c[0]}p{p}loss"] = float(m.group(1)); r[f"{c[0]}p{p}nd"] = int(m.group(2))
    elif test == "admission":
        for p in (1, 2, 3):
            m = re.search(rf"p{p}->p4 offered=(\d+) received=\d+ delivered=(\d+) not-delivered=(\d+)", t)
            if m:
                r[f"p{p}deliv%"] = 100 * int(m.group(2)) / int(m.group(1)); r[f"p{p}nd"] = int(m.group(3))
    elif test in ("tbf", "stall"):
        for mode in ("tpss", "traditional"):
            m = re.search(rf"^{mode}\s+pushed=\d+ delivered=\d+ lost=\d+ \(([\d.]+)%\).*?goodput=([\d.]+) Mbit/s", t, re.M)
            if m:
                r[f"{mode[:4]}loss"] = float(m.group(1)); r[f"{mode[:4]}gp"] = float(m.group(2))
        m = re.search(r"reference\s+fixed ([\d.]+) Mbit/s:.*lost=([\d.]+)%", t)
        if m:
            r["refloss"] = float(m.group(2))
    elif test == "conf":
        d = OUT + f"/{name}.d/summary.json"
        if os.path.exists(d):
            s = json.load(open(d))
            fecs, fpss = [], []
            for rid, v in s.items():
                for sid, x in v["received"].items():
                    fecs.append(100 * x["after_fec"]); fpss.append(x["fps"])
            r["afterfec%"] = st.mean(fecs); r["fps"] = st.mean(fpss)
            p4 = s.get("4", {}).get("received", {})
            r["p4fps"] = st.mean([x["fps"] for x in p4.values()]) if p4 else float('nan')
            r["p4fec%"] = st.mean([100 * x["after_fec"] for x in p4.values()]) if p4 else float('nan')
            r["pass"] = "exited with status" not in t
    rows.setdefault(test, {}).setdefault(arm, []).append(r)
for test, arms in rows.items():
    print(f"== {test}")
    for arm in ("0", "20"):
        rs = sorted(arms.get(arm, []), key=lambda r: r["n"])
        if not rs:
            continue
        keys = [k for k in rs[0] if k not in ("n", "fails", "pass")]
        print(f" arm {arm:>2}: runs {len(rs)} passed {sum(1 for r in rs if r.get('pass'))}")
        for k in keys:
            vals = [r[k] for r in rs if k in r and r[k] is not None]
            print(f"   {k:12s} median {med(vals):8.2f}  [" + ", ".join(f"{v:.2f}" for v in vals) + "]")
        for r in rs:
            if r.get("fails"):
                print(f"   run {r['n']} fails: {r['fails']}")
