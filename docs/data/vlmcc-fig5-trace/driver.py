#!/usr/bin/env python3
"""Runs test_vlmcc_fig5.main() unchanged; dumps sink and receiver stats."""
import os, sys, time
test = sys.argv[1]
OUT = sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(test)))
import test_vlmcc_fig5 as T
os.makedirs(OUT, exist_ok=True)
rxs, txs = {}, []
sr, ss = T.start_receiver, T.start_sender
def start_receiver(host, query=""):
    rx = sr(host, query); rxs[getattr(host, "name", repr(host))] = rx; return rx
def start_sender(host, query="ttl-mc=4"):
    query += os.environ.get("H102_QUERY", "")
    tx = ss(host, query); txs.append(tx); return tx
T.start_receiver, T.start_sender = start_receiver, start_sender
t0 = time.monotonic()
rc = 1
try:
    rc = T.main()
finally:
    with open(f"{OUT}/stats.txt", "w") as f:
        for n, rx in rxs.items():
            for t, fl in T.stats(rx):
                f.write(f"{n} {t-t0:.3f} " + " ".join(f"{k}={v}" for k, v in fl.items()) + "\n")
        for tx in txs:
            for t, line in list(tx["out"]):
                fl = T.fields(line, "s", "vlmcc-sink-stats")
                if fl:
                    f.write(f"sink {t-t0:.3f} " + " ".join(f"{k}={v}" for k, v in fl.items()) + "\n")
sys.exit(rc)
