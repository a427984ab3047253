#!/usr/bin/env python3
"""RMTP streaming mode (issue 20): rmtpsink with window-size=4 MiB sends a
64 MiB file to 3 rmtpsrc receivers on a bridge, each losing 1 % of the
packets that reach it (nftables random loss at its ingress).

The sender's link is a 50 Mbit/s tbf, the sink sends at 40 Mbit/s with
1400-byte packets. Checks: every receiver ends with EOS and a file
sha256-identical to the source; the sink's rmtp-done says 3 complete, its
stats 16 windows and at most two windows held; the peak resident size
(VmHWM of /proc/PID/status, polled until the process ends) of the sink and
of each receiver is under half the data set's size.

RMTP_STREAM_COMPARE=1 also sends the same file in data-set mode on the same
bed, for the time against it (not a check: about 20 s more).
RMTP_STREAM_SINK="&key=value..." adds URI keys to the sink's (for benches,
e.g. &send-interval=1000000).

Prints one RESULT line per transfer: the time from the sender's start to
the last receiver's EOS, rounds, retransmissions, the peak resident sizes."""
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_rmtp_transfer as rt  # noqa: E402

MIB = 1024 * 1024
SIZE = 64 * MIB
WINDOW = 4 * MIB
RECEIVERS = 3
LOSS = 1
SENDER_LINK = 50_000_000
SINK = "&rate=40000000&packet-size=1400" + os.environ.get("RMTP_STREAM_SINK", "")
# the receivers' sockets hold a few windows' worth of bursts while the
# two shared cores are busy elsewhere
SRC = "&buffer-size=4194304"
TIMEOUT = 40


def watch_hwm(proc):
    """Polls the process's peak resident size (kB) into proc["hwm_kb"]
    until it ends."""
    proc["hwm_kb"] = 0

    def run():
        path = f"/proc/{proc['proc'].pid}/status"
        while proc["proc"].poll() is None:
            try:
                with open(path) as f:
                    for line in f:
                        if line.startswith("VmHWM:"):
                            proc["hwm_kb"] = max(proc["hwm_kb"], int(line.split()[1]))
            except OSError:
                break
            time.sleep(0.1)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    proc["hwm_thread"] = t


def transfer(hosts, snd, src_path, tmp, name, sink_keys):
    rxs = []
    for i, h in enumerate(hosts):
        out = os.path.join(tmp, f"{name}-r{i + 1}.bin")
        rxs.append(rt.start_receiver(h, i + 1, out, SRC))
        watch_hwm(rxs[-1])
    for rx in rxs:
        if not rt.wait_playing(rx):
            raise RuntimeError(f"receiver {rx['member']} did not start")
    t0 = time.monotonic()
    tx = rt.start_sender(snd, src_path, len(hosts), sink_keys)
    watch_hwm(tx)
    end = t0 + TIMEOUT
    rt.wait_exit(tx, end)
    for rx in rxs:
        rt.wait_exit(rx, end)
        rx["ended"] = rt.eos_time(rx) or rx["ended"]
    for p in [tx] + rxs:
        p["hwm_thread"].join(2)
    return tx, rxs, t0


def report(name, tx, rxs, t0):
    st = rt.last_stats(tx)
    last = max(rx["ended"] - t0 for rx in rxs)
    hwm = " ".join(f"r{rx['member']}={rx['hwm_kb'] // 1024}MiB" for rx in rxs)
    print(f"RESULT {name}: last-receiver-eos={last:.2f}s windows={st.get('windows')} "
          f"rounds={st.get('rounds')} data-sent={st.get('data-sent')} "
          f"data-resent={st.get('data-resent')} polls={st.get('polls-sent')} "
          f"max-held-bytes={st.get('max-held-bytes')} "
          f"blocked-time={int(st.get('blocked-time', '0')) / 1e9:.2f}s "
          f"sink-loop-turns={st.get('loop-turns')} "
          f"peak-rss sink={tx['hwm_kb'] // 1024}MiB {hwm}", flush=True)
    return last


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    tmp = tempfile.mkdtemp(prefix="rmtp-stream-")
    src_path = os.path.join(tmp, "in.bin")
    with open(src_path, "wb") as f:
        for _ in range(SIZE // MIB):
            f.write(os.urandom(MIB))
    digest = rt.sha256(src_path)
    with netbed.NetBed() as bed:
        rt.SENDER_LINK = SENDER_LINK
        _, snd, hosts, loss = rt.build_bed(bed, RECEIVERS)
        for imp in loss:
            imp.change(percent=LOSS)

        name = "stream"
        tx, rxs, t0 = transfer(hosts, snd, src_path, tmp, name,
                               f"{SINK}&window-size={WINDOW}")
        report(name, tx, rxs, t0)
        done, st = rt.done_message(tx), rt.last_stats(tx)
        check(f"{name}: the sink's pipeline reached EOS, {RECEIVERS} complete",
              tx["proc"].returncode == 0 and
              done.get("receivers-complete") == str(RECEIVERS),
              f"exit {tx['proc'].returncode}, rmtp-done {done}")
        rt.check_whole(check, name, rxs, digest)
        check(f"{name}: {SIZE // WINDOW} windows, at most two held",
              st.get("windows") == str(SIZE // WINDOW) and
              int(st.get("max-held-bytes", "0")) <= 2 * WINDOW + 1,
              f"windows {st.get('windows')}, max-held-bytes {st.get('max-held-bytes')}")
        for p, who in [(tx, "sink")] + [(rx, f"receiver {rx['member']}") for rx in rxs]:
            check(f"{name}: the {who}'s peak resident size is under half the data set",
                  0 < p["hwm_kb"] * 1024 < SIZE // 2, f"{p['hwm_kb'] // 1024} MiB")

        if os.environ.get("RMTP_STREAM_COMPARE"):
            name = "data-set"
            tx, rxs, t0 = transfer(hosts, snd, src_path, tmp, name, SINK)
            report(name, tx, rxs, t0)
            rt.check_whole(check, name, rxs, digest)
    shutil.rmtree(tmp, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
