import sys
from runs import sink_rows
rows=sink_rows(sys.argv[1])
prev=None
print("t  W rtt base vegas fwdq rate(k) sentk/s inflt hold queued halv lost spur leader turns/s spins")
for t,d in rows:
    if prev:
        dt=max(t-prev[0],1e-3); s=int(d['sent'])-int(prev[1]['sent'])
        tr=(int(d.get('loop-turns',0))-int(prev[1].get('loop-turns',0)))/dt
        print(f"{t:5.1f} {d['window']:>3} {int(d['rtt'])/1e6:5.1f} {int(d['base-rtt'])/1e6:5.1f} {int(d.get('vegas-rtt',0))/1e6:5.1f} {int(d.get('forward-queue',0))/1e6:5.1f} {int(d['rate'])/1e3:6.0f} {s*8/dt:6.0f} {d['in-flight']:>3} {int(d.get('ack-hold',0))/1e6:5.1f} {d['queued']:>4} {d['halvings']:>3} {d['lost']:>4} {d['spurious-losses']:>3} {d['leader'][-4:]} {tr:6.0f} {d.get('loop-spins')}")
    prev=(t,d)
