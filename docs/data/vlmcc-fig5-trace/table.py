import glob, re, statistics as S, os
rows=[]
for d in sorted(glob.glob('/tmp/h102/runs/*')):
    arm, n = os.path.basename(d).rsplit('-',1)
    out=open(d+'/out.txt').read()
    m=re.search(r"r2: kbit/s before / with / after TCP: \[(\d+), (\d+), (\d+)\]", out)
    if not m: continue
    ok = 'ok: the session takes' in out
    allok = re.search(r"(\d+) passed, (\d+) failed", out)
    load=[l.split('load average:')[1].split(',')[0].strip() for l in open(d+'/load.txt')]
    sink=[]
    for line in open(d+'/stats.txt'):
        p=line.split()
        if p[0]!='sink': continue
        f=dict(kv.split('=',1) for kv in p[2:] if '=' in kv)
        if 'sent' in f: sink.append((float(p[1]),f))
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
