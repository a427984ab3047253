#!/usr/bin/env python3
"""Runs the bed's tpss-admission or tpss-group with one member's gst-launch
stopped (SIGSTOP) for STALL_MS once a second, six times from 4 s into the
run: a host that holds a sender (or receiver) off the CPU, on demand
rather than by chance. The test's own checks decide the exit status.

  python3 scripts/tpss_member_stall.py admission|group p2|p4 STALL_MS [PROPS]

PROPS (admission only, quoted, e.g. "pacing-catch-up-budget=20000000"):
tpsssink properties for the stalled sender; with them its stats are kept
and its largest queue and last pacing-skipped, pacing-made-up and
queue-dropped printed at the end.

Run it in the environment meson gives the test (GST_PLUGIN_PATH,
GST_REGISTRY, see `meson test -C build tpss-admission -v`), as root."""
import os
import re
import signal
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "net"))
import netbed  # noqa: E402

STALLS = 6
FIRST = 4.0          # s after the start
PERIOD = 1.0         # s between stalls


def with_sender_props(test, member, props, out):
    """Makes @test's gst() give member @member's tpsssink @props and post
    its stats every 100 ms into the file @out."""
    gst = test.gst

    def patched(cmd):
        if "tpsssink " in cmd and f"member-id={member} " in cmd:
            cmd = ("-m " + cmd.replace(
                "tpsssink ", f"tpsssink {props} stats-interval=100000000 ", 1)
                + f" > {out}")
        return gst(cmd)

    test.gst = patched


def sender_summary(path):
    """The largest queue and the last pacing and queue counts in the stats
    of the file at @path."""
    with open(path) as f:
        text = f.read()
    queued = [int(x) for x in re.findall(r"queued=\(uint\)(\d+)", text)]

    def last(name):
        v = re.findall(name + r"=\((?:u?int64|guint64|gint64)\)(-?\d+)", text)
        return int(v[-1]) if v else 0

    return (f"sender: max queued={max(queued, default=0)} packets, "
            f"pacing-skipped={last('pacing-skipped') / 1e6:.1f} ms, "
            f"pacing-made-up={last('pacing-made-up') / 1e6:.1f} ms, "
            f"queue-dropped={last('queue-dropped')}")


def main():
    which, target, stall_ms = sys.argv[1], sys.argv[2], int(sys.argv[3])
    props = sys.argv[4] if len(sys.argv) > 4 else ""
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
    if not props:
        return test.main()
    if which != "admission":
        sys.exit("PROPS: admission only")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sender.txt")
        with_sender_props(test, target.lstrip("p"), props, out)
        rc = test.main()
        print(sender_summary(out))
    return rc


if __name__ == "__main__":
    sys.exit(main())
