#!/usr/bin/env python3
"""RMTP (issue 20): a receiver that goes BUSY mid-transfer on the bed of
test_rmtp_transfer.py (the sender behind a 10 Mbit/s tbf, 4 receivers on one
bridge, 1 % random loss at each receiver's ingress, 2 MB at the sink's
default 8 Mbit/s).

Receivers 1-3 are `rmtpsrc ! filesink`; receiver 4 is rmtp-busy-src, the same
pipeline, which sets the source's `busy` once it has 400 DATA packets (about
a fifth of the set) and clears it, sending RRDY, when this test signals it.
The test signals it 1 s after the other three reached EOS. Checks:

- the other three reach EOS while receiver 4 is still BUSY, files identical
  (the server went on without it);
- receiver 4 reaches EOS after its RRDY, file identical, within RRDY_BOUND;
- the sink's rmtp-done says 4 complete, 0 failed; its stats count the
  BUSY and one RRDY taken (busy-received, rrdy-received), the member set
  aside (slow-receivers) and served by unicast (unicast-data-sent);
- receiver 4's stats: busy-sent >= 1, rrdy-sent 1, busy-dropped > 0; the
  others sent neither.

Prints a RESULT line: when receiver 4 went BUSY, the others' EOS, the RRDY,
receiver 4's EOS (seconds from the sender's start)."""
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_rmtp_transfer as rt  # noqa: E402

BUSY_SRC = os.environ.get("RMTP_BUSY_SRC", "")
RECEIVERS = 4
BUSY_AT = 400            # DATA packets of the 1954 in 2 MB
LOSS = 1                 # percent, each receiver
# After its RRDY the busy member gets what it lacks (about 1550 packets) by
# unicast at the sink's rate: 1.6 s at 8 Mbit/s; the rest is margin for load.
RRDY_BOUND = 10.0
TIMEOUT = 30


def start_busy_receiver(host, member, out):
    uri = f"rmtp://{rt.GROUP}:{rt.PORT}?member={member}"
    p = host.popen([BUSY_SRC, uri, out, str(BUSY_AT)],
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines, t = netbed.timed_lines(p.stdout)
    return dict(proc=p, lines=lines, thread=t, out=out, member=member)


def line_time(proc, prefix):
    """When proc printed its first line starting with prefix (None if not)."""
    return next((t for t, ln in proc["lines"] if ln.startswith(prefix)), None)


def wait_for(cond, until):
    while time.monotonic() < until:
        if cond():
            return True
        time.sleep(0.05)
    return False


def src_stats(rx):
    m = rt.messages(rx, "rmtpsrc0", "rmtp-src-stats")
    return m[-1] if m else {}


def run(hosts, snd, src_path, tmp):
    """The transfer; returns (sender, receivers, t0, time of the RRDY)."""
    rxs = [rt.start_receiver(h, i + 1, os.path.join(tmp, f"busy-r{i + 1}.bin"))
           for i, h in enumerate(hosts[:-1])]
    rxs.append(start_busy_receiver(hosts[-1], RECEIVERS,
                                   os.path.join(tmp, f"busy-r{RECEIVERS}.bin")))
    for rx in rxs:
        if not rt.wait_playing(rx):
            raise RuntimeError(f"receiver {rx['member']} did not start")
    t0 = time.monotonic()
    tx = rt.start_sender(snd, src_path, RECEIVERS)
    end = t0 + TIMEOUT
    wait_for(lambda: all(rt.eos_time(rx) for rx in rxs[:-1]), end)
    time.sleep(1.0)      # the sink idles for the busy member meanwhile
    ready = time.monotonic()
    rxs[-1]["proc"].send_signal(signal.SIGUSR1)
    rt.wait_exit(tx, end)
    for rx in rxs:
        rt.wait_exit(rx, end)
        rx["ended"] = rt.eos_time(rx) or rx["ended"]
    return tx, rxs, t0, ready


def main():
    netbed.require_or_skip()
    if not BUSY_SRC:
        print("SKIP: RMTP_BUSY_SRC not set")
        return 77
    check = netbed.Checks()
    tmp = tempfile.mkdtemp(prefix="rmtp-busy-")
    src_path = os.path.join(tmp, "in.bin")
    with open(src_path, "wb") as f:
        f.write(os.urandom(rt.SIZE))
    digest = rt.sha256(src_path)
    with netbed.NetBed() as bed:
        _, snd, hosts, loss = rt.build_bed(bed, RECEIVERS)
        for imp in loss:
            imp.change(percent=LOSS)
        tx, rxs, t0, ready = run(hosts, snd, src_path, tmp)
    busy_rx, others = rxs[-1], rxs[:-1]
    busy_at = line_time(busy_rx, "busy t=")
    others_eos = [rt.eos_time(rx) for rx in others]
    busy_eos = rt.eos_time(busy_rx)

    def rel(t):
        return f"{t - t0:.2f}" if t else "none"
    print(f"RESULT busy: busy={rel(busy_at)} others-eos="
          f"{','.join(rel(t) for t in others_eos)} rrdy={rel(ready)} "
          f"busy-eos={rel(busy_eos)}", flush=True)
    rt.report("busy", tx, rxs, t0)

    check("receiver 4 went BUSY mid-transfer, before the others' EOS",
          busy_at is not None and all(t and busy_at < t for t in others_eos),
          f"busy at {rel(busy_at)} s")
    check("the other three reached EOS while receiver 4 was BUSY",
          all(t and t < ready for t in others_eos),
          f"EOS at {[rel(t) for t in others_eos]} s, RRDY at {rel(ready)} s")
    check("receiver 4 reached EOS after its RRDY",
          busy_eos is not None and ready < busy_eos < ready + RRDY_BOUND,
          f"{busy_eos - ready:.2f} s after" if busy_eos else "no EOS")
    rt.check_whole(check, "busy", rxs, digest)

    done, st = rt.done_message(tx), rt.last_stats(tx)
    check("the sink's rmtp-done: 4 complete, 0 failed",
          tx["proc"].returncode == 0 and
          done.get("receivers-complete") == str(RECEIVERS) and
          done.get("receivers-failed") == "0", f"rmtp-done {done}")
    check("the sink took the BUSY and one RRDY, set the member aside and "
          "served it by unicast",
          int(st.get("busy-received", "0")) >= 1 and
          st.get("rrdy-received") == "1" and
          int(st.get("slow-receivers", "0")) >= 1 and
          int(st.get("unicast-data-sent", "0")) > 0,
          " ".join(f"{k} {st.get(k)}" for k in (
              "busy-received", "rrdy-received", "slow-receivers",
              "unicast-data-sent", "polls-sent")))
    bs = src_stats(busy_rx)
    check("receiver 4 sent BUSY and one RRDY and dropped DATA while BUSY",
          int(bs.get("busy-sent", "0")) >= 1 and bs.get("rrdy-sent") == "1"
          and int(bs.get("busy-dropped", "0")) > 0,
          " ".join(f"{k} {bs.get(k)}" for k in (
              "busy-sent", "rrdy-sent", "busy-dropped")))
    quiet = [src_stats(rx) for rx in others]
    check("the other receivers sent neither",
          all(s.get("busy-sent") == "0" and s.get("rrdy-sent") == "0"
              for s in quiet),
          " ".join(f"r{rx['member']} {s.get('busy-sent')}/{s.get('rrdy-sent')}"
                   for rx, s in zip(others, quiet)))
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
