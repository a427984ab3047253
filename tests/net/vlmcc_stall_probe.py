#!/usr/bin/env python3
"""vlmcc-fig5 with the sender's process stopped for a while: a host stall
made on purpose (issue 19). Runs test_vlmcc_fig5.py's main() unchanged,
except that the sink's gst-launch gets SIGSTOP and then SIGCONT at the
times given, in seconds from its start:

    vlmcc_stall_probe.py [AT:FOR ...]      (default: 6:2 34:2)

Each stop falls in one of the windows of the r2 check (4-12 s, 31-42 s),
so the check as it was (r2's rate over the whole window) fails for the
stall alone, and the check that takes the sink's loop-late-time out of
the window measures what VLMCC sent while it ran. The test's RESULT line
gives both: r2_kbps (whole windows) and stalled_s (the sink's stalls).
Run it as vlmcc-fig5 runs (meson's environment: GST_PLUGIN_PATH,
NFQ_IMPAIR, ...)."""
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_vlmcc_fig5 as fig5  # noqa: E402


def stops_from_args(args):
    return [tuple(float(x) for x in a.split(":")) for a in args] or \
        [(6.0, 2.0), (34.0, 2.0)]


def stall(pid, t0, stops):
    """Stops the process group @pid (the sender: its own session) at each
    (at, for) of @stops, seconds from @t0."""
    for at, length in stops:
        time.sleep(max(0.0, t0 + at - time.monotonic()))
        try:
            os.killpg(pid, signal.SIGSTOP)
            print(f"probe: sender stopped at {time.monotonic() - t0:.2f} s "
                  f"for {length} s", flush=True)
            time.sleep(length)
        finally:
            os.killpg(pid, signal.SIGCONT)


def main():
    stops = stops_from_args(sys.argv[1:])
    start_sender = fig5.start_sender

    def stalled_sender(host, query="ttl-mc=4"):
        tx = start_sender(host, query)
        threading.Thread(target=stall, daemon=True,
                         args=(tx["proc"].pid, time.monotonic(),
                               stops)).start()
        return tx

    fig5.start_sender = stalled_sender
    return fig5.main()


if __name__ == "__main__":
    sys.exit(main())
