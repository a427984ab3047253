#!/usr/bin/env python3
"""slowrtt.py OUTDIR: per call kind and arm, over 20-30 s, the fast senders' round trip to
the slow member (median and 90th percentile, ms), their send rate to it and the rate it
notified (medians, kbit/s)."""
import json, os, statistics as S, sys
OUT=sys.argv[1]; slow={"C3":3,"C4":4}; res={}
for d in sorted(os.listdir(OUT)):
    p=os.path.join(OUT,d)
    if not os.path.isdir(p): continue
    k,a,i=d.split("-"); sl=slow[k]
    for s in (1,2):
        rows=[json.loads(l) for l in open(f"{p}/stats-{s}.json") if l.strip()]
        for r in rows:
            if 20<=r["t"]<=30:
                for m in r["members"]:
                    if m["id"]==sl:
                        res.setdefault((k,a),{}).setdefault("rtt",[]).append(m["rtt_ms"])
                        res[(k,a)].setdefault("send",[]).append(m["send_bps"])
                        res[(k,a)].setdefault("notified",[]).append(m["send_notified_bps"])
for k,v in sorted(res.items()):
    print(k, "fast->slow: rtt median %.0f ms, p90 %.0f; send %.0f kbit/s, notified %.0f" % (S.median(v["rtt"]), sorted(v["rtt"])[int(.9*len(v["rtt"]))], S.median(v["send"])/1e3, S.median(v["notified"])/1e3))
