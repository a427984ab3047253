import os, statistics as S
from runs import runs, sink_rows
for d, out, m in runs():
    sink=sink_rows(d+'/stats.txt')
    t0=sink[0][0]-0.5
    for a,b,k in ((4,12,1),(31,42,3)):
        xs=[(t,f) for t,f in sink if t0+a<=t<t0+b]
        rates=[]; low=0; lowt=0; tot=0
        for (ta,fa),(tb,fb) in zip(xs,xs[1:]):
            dt=tb-ta
            if dt<0.2: continue
            r=(int(fb['sent'])-int(fa['sent']))*8/dt
            tot+=dt
            if r<1200: low+=1; lowt+=dt
            else: rates.append(r)
        print(f"{os.path.basename(d):8} win{k} r2={m.group(k)} low(<1200) {low} intervals {lowt:4.1f}s of {tot:4.1f}s; others median {S.median(rates) if rates else 0:5.0f}; batched lines {sum(1 for (ta,_),(tb,_) in zip(xs,xs[1:]) if tb-ta<0.2)}")
