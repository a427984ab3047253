#!/usr/bin/env python3
"""slowenc.py OUTDIR: per drive.sh call, the slow member's encoder over 20-30 s (medians of
the seconds): what it made, what it was told, and what its copies sent together (kbit/s);
medians per call kind and arm."""
import json, os, statistics as S, sys
OUT=sys.argv[1]
slow={"C3":3,"C4":4}
res={}
for d in sorted(os.listdir(OUT)):
    p=os.path.join(OUT,d)
    if not os.path.isdir(p): continue
    kind,arm,i=d.split("-")
    try:
        t0=json.load(open(f"{p}/times.json"))
    except Exception: continue
    rows=[json.loads(l) for l in open(f"{p}/stats-{slow[kind]}.json") if l.strip()]
    w=[r for r in rows if 20<=r["t"]<=30] or rows[-10:]
    enc=S.median(r["enc_bps"] for r in w); tgt=S.median(r["enc_target_bps"] for r in w)
    up=S.median(r["uplink_send_bps"]*r["uplink_share"] for r in w)
    res.setdefault((kind,arm),[]).append((enc,tgt,up))
    print(d, f"slow enc made {enc/1e3:.0f} told {tgt/1e3:.0f} copies {up/1e3:.0f} kbit/s")
for k,v in sorted(res.items()):
    print(k, "median made %.0f told %.0f copies %.0f kbit/s" % tuple(S.median(x[j] for x in v)/1e3 for j in range(3)))
