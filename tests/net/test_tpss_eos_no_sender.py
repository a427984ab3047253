#!/usr/bin/env python3
"""gst-launch-1.0 -e ends a receive-only tpsssrc on the first Ctrl-C, whether
its peer sent or not.  Two namespaces on a link; each case runs the receiver
(member 2: `tpsssrc ... ! fakesink`, the fakesink linked to the member's pad
when it appears), interrupts it once with SIGINT after RUN seconds and gives
it EXIT_WITHIN seconds to exit.

- peer silent: no pad ever appears, so the EOS cannot reach the fakesink;
  tpsssrc posts its error instead: exit status 1, the error's text printed.
- peer sending (member 1: live audio through tpsssink): the pad's EOS
  reaches the fakesink: exit status 0, no error.

Without tpsssrc's error on an EOS before any pad, the silent case waits for
a second Ctrl-C and fails here."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

PORT = 5004
RUN = 2.0
EXIT_WITHIN = 5.0
NO_MEDIA = "No member of the group sent media before the end of the stream"
RECEIVER = ("gst-launch-1.0 -e tpsssrc port={port} member-id=2 members={members} "
            "caps=application/x-rtp,media=audio,clock-rate=8000,encoding-name=L16,"
            "channels=1 ! fakesink")
SENDER = ("gst-launch-1.0 -e audiotestsrc is-live=true ! audio/x-raw,rate=8000,channels=1 ! "
          "rtpL16pay ! tpsssink port={port} member-id=1 members={members}")


def interrupt_once(proc):
    """SIGINT once; (exit status or None if still running, seconds to exit, output)."""
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    try:
        out, _ = proc.communicate(timeout=EXIT_WITHIN)
        return proc.returncode, time.monotonic() - t0, out
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        return None, time.monotonic() - t0, out


def run_case(rx_host, tx_host, members):
    sender = None
    if tx_host is not None:
        sender = tx_host.popen(SENDER.format(port=PORT, members=members).split(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rx = rx_host.popen(RECEIVER.format(port=PORT, members=members).split(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(RUN)
    result = interrupt_once(rx)
    if sender is not None:
        netbed.interrupt(sender, timeout=5)
    return result


def linked_members(bed):
    """Members 1 and 2 on a link: (host 1, host 2, the members list)."""
    m1, m2 = bed.host("m1"), bed.host("m2")
    bed.link(m1, m2, "10.77.31.1/24", "10.77.31.2/24")
    return m1, m2, f"1@10.77.31.1:{PORT},2@10.77.31.2:{PORT}"


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    with netbed.NetBed() as bed:
        m1, m2, members = linked_members(bed)
        # (case, sending host, exit status, what the output must hold)
        for case, sender, want, text in (("peer silent", None, 1, NO_MEDIA),
                                         ("peer sending", m1, 0, None)):
            status, took, out = run_case(m2, sender, members)
            tail = out.strip().splitlines()[-3:]
            check(f"{case}: exits on the first SIGINT", status is not None,
                  f"{took:.2f} s, status {status}")
            check(f"{case}: status {want}, " + ("tpsssrc's error" if text else "no error"),
                  status == want and (text in out if text else "ERROR" not in out), tail)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
