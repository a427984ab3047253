import os, statistics as S
from runs import runs
data={}
for d, out, m in runs(ordered=False):
    arm,n=os.path.basename(d).rsplit('-',1)
    load=float(open(d+'/load.txt').readline().split('load average:')[1].split(',')[0])
    ok='ok: the session takes' in out
    allok='0 failed' in out
    data.setdefault(arm,[]).append((load,ok,allok,int(m.group(1)),int(m.group(3))))
for arm,rs in sorted(data.items()):
    for band,sel in (("load>=11",lambda r:r[0]>=11),("load<11",lambda r:r[0]<11)):
        x=[r for r in rs if sel(r)]
        if not x: continue
        mins=[min(r[3],r[4]) for r in x]
        print(f"{arm:6} {band:9} runs {len(x)} r2-check ok {sum(r[1] for r in x)} all ok {sum(r[2] for r in x)} load {min(r[0] for r in x):.1f}-{max(r[0] for r in x):.1f} median r2 before {S.median(r[3] for r in x)} after {S.median(r[4] for r in x)} min-of-two median {S.median(mins)}")
