import re, statistics as S, os
from runs import runs, sink_rows
rows=[]
for d, out, m in runs():
    arm, n = os.path.basename(d).rsplit('-',1)
    ok = 'ok: the session takes' in out
    allok = re.search(r"(\d+) passed, (\d+) failed", out)
    load=[l.split('load average:')[1].split(',')[0].strip() for l in open(d+'/load.txt')]
    sink=sink_rows(d+'/stats.txt')
    t0=sink[0][0]-0.5 if sink else 0
    def win(a,b):
        xs=[(t,f) for t,f in sink if t0+a<=t<t0+b]
        if len(xs)<2: return None
        sent=(int(xs[-1][1]['sent'])-int(xs[0][1]['sent']))*8/(xs[-1][0]-xs[0][0])
        med=lambda k: S.median(float(f.get(k,0)) for _,f in xs)
        return sent, med('rate')/1e3, med('window'), med('rtt')/1e6, med('ack-hold')/1e6, med('in-flight')
    w=[win(4,12),win(31,42)]
    s=" ".join("sent %4.0f ann %4.0f W %2.0f rtt %4.1f hold %4.1f infl %2.0f" % x if x else "-" for x in w)
    rows.append((arm,int(n),ok,m.group(1),m.group(3),allok.group(0) if allok else '?',"-".join(load),s))
for r in sorted(rows, key=lambda r:(r[0],r[1])):
    print(f"{r[0]:5} {r[1]:3} r2check={'ok  ' if r[2] else 'FAIL'} r2 {r[3]:>5}/{r[4]:>5} [{r[5]}] load {r[6]} | {r[7]}")
