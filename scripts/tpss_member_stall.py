#!/usr/bin/env python3
"""Runs the bed's tpss-admission or tpss-group with one member's gst-launch
stopped (SIGSTOP) for STALL_MS once a second, six times from 4 s into the
run: a host that holds a sender (or receiver) off the CPU, on demand
rather than by chance. The test's own checks decide the exit status.

  python3 scripts/tpss_member_stall.py admission|group p2|p4 STALL_MS

Run it in the environment meson gives the test (GST_PLUGIN_PATH,
GST_REGISTRY, see `meson test -C build tpss-admission -v`), as root."""
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "net"))
import netbed  # noqa: E402

STALLS = 6
FIRST = 4.0          # s after the start
PERIOD = 1.0         # s between stalls


def main():
    which, target, stall_ms = sys.argv[1], sys.argv[2], int(sys.argv[3])
    procs = {}
    popen = netbed.Host.popen

    def recording_popen(self, cmd, **kwargs):
        p = popen(self, cmd, **kwargs)
        procs.setdefault(self.name, p)   # tpss-group: the notification run's
        return p

    netbed.Host.popen = recording_popen

    def staller():
        time.sleep(FIRST)
        for _ in range(STALLS):
            p = procs.get(target)
            if p is None or p.poll() is not None:
                return
            os.kill(p.pid, signal.SIGSTOP)
            time.sleep(stall_ms / 1000)
            os.kill(p.pid, signal.SIGCONT)
            time.sleep(PERIOD)

    threading.Thread(target=staller, daemon=True).start()
    if which == "admission":
        import test_tpss_admission as test
    else:
        import test_tpss_group as test
    return test.main()


if __name__ == "__main__":
    sys.exit(main())
