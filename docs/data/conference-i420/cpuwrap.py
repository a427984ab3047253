#!/usr/bin/env python3
"""Runs the conference binary named in $CONF_REAL, forwards SIGINT/SIGTERM, and appends
'id user sys' (CPU seconds of the participant process) to $CONF_CPU_LOG."""
import os, resource, signal, subprocess, sys
child = subprocess.Popen([os.environ["CONF_REAL"]] + sys.argv[1:])
for s in (signal.SIGINT, signal.SIGTERM):
    signal.signal(s, lambda n, f: child.send_signal(n))
rc = child.wait()
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
pid = next((a.split("=")[1] for a in sys.argv[1:] if a.startswith("--id=")), "?")
with open(os.environ["CONF_CPU_LOG"], "a") as f:
    f.write(f"{pid} {ru.ru_utime:.2f} {ru.ru_stime:.2f}\n")
sys.exit(rc)
