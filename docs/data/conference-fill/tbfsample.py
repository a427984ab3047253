#!/usr/bin/env python3
"""tbfsample.py OUTFILE PID: while process PID (scripts/conference.py) runs, every 0.5 s, the
bytes each participant's tbfs have sent, as JSON lines {"t": time.monotonic(), "p1": bytes,
..., "up1": bytes, ...}: pN its download link (the tbf on port p-pN in the bridge's namespace
nbed<PID>-*-br), upN its upload link (the tbf on eth0 in its own namespace nbed<PID>-*-pN);
Ethernet frames, everything the link carried. times.json's t0 is on the same clock."""
import json, os, re, subprocess, sys, time

out, pid = sys.argv[1], int(sys.argv[2])
QDISC = re.compile(r"qdisc tbf \S+ dev (\S+) .*?Sent (\d+) bytes", re.S)


def sent(ns):
    r = subprocess.run(["ip", "netns", "exec", ns, "tc", "-s", "qdisc", "show"],
                       capture_output=True, text=True)
    return {m.group(1): int(m.group(2)) for m in QDISC.finditer(r.stdout)}


with open(out, "w") as f:
    while os.path.exists(f"/proc/{pid}"):
        names = os.listdir("/run/netns") if os.path.isdir("/run/netns") else []
        ours = [n for n in names if n.startswith(f"nbed{pid}-")]
        rec, start = {}, time.monotonic()
        for ns in ours:
            host = ns.rsplit("-", 1)[1]
            for dev, b in sent(ns).items():
                if host == "br" and dev.startswith("p-p"):
                    rec[dev[2:]] = b
                elif host.startswith("p") and dev == "eth0":
                    rec["up" + host[1:]] = b
        if rec:
            rec["t"] = (start + time.monotonic()) / 2     # the namespaces are read in turn
            f.write(json.dumps(rec) + "\n")
            f.flush()
        time.sleep(0.5)
