#!/usr/bin/env python3
"""Medians of bench-erasure16-interleave logs written by the run scripts
(README.md): per (block, arm, MiB), the one-shot, incremental and batch
columns over the rounds, with each round's load. Usage: medians.py LOG..."""
import re,sys,statistics,collections
d=collections.defaultdict(list); loads=collections.defaultdict(list)
for f in sys.argv[1:]:
    cur=None
    for l in open(f):
        m=re.match(r"=== (?:(k\d+) )?round \d+ arm (\S+) e (\d+) \S+ ([\d.]+)",l) or re.match(r"=== (k\d+) arm (\S+) e (\d+) \S+ ([\d.]+)",l)
        if m:
            cur=(m[1] or 'k512',m[2],m[3]); loads[cur].append(float(m[4])); continue
        if l.startswith('| 32 |') and cur:
            c=[x.strip() for x in l.split('|')[1:-1]]
            d[cur].append((float(c[1]),float(c[2]),float(c[4])))
for k,v in sorted(d.items()):
    med=lambda i: statistics.median(x[i] for x in v)
    print(k, len(v), "one-shot %.2f inc %.2f bat %.2f"%(med(0),med(1),med(2)), "inc vals", [x[1] for x in v], "bat vals",[x[2] for x in v], "load", loads[k])
