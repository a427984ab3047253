#!/usr/bin/env python3
"""Self-test of the netbed harness with real traffic.  Exit 0 pass, 1 fail, 77 skip."""

import os
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import netbed  # noqa: E402

CHECK_TIMEOUT = 20      # s per check
NFQ_OK = False          # nfq-impair usable (set in main)
WIRE = 42               # Ethernet + IPv4 + UDP header bytes per datagram


class Fail(Exception):
    pass


def expect(cond, msg):
    if not cond:
        raise Fail(msg)


def two_hosts(bed):
    a, b = bed.host("a"), bed.host("b")
    bed.link(a, b, "10.77.1.1/24", "10.77.1.2/24")
    return a, b


def udp_pair(a, b, port):
    tx, rx = a.socket(), b.socket()
    rx.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 8 << 20)
    rx.bind(("0.0.0.0", port))
    return tx, rx


def send_seq(tx, dst, count, size, pps, stamp=False):
    """Send count datagrams (4-byte sequence number, padded to size bytes) at pps; with
    stamp, the sequence number is followed by the monotonic send time (a double)."""
    t0, pad = time.monotonic(), bytes(size - 12)
    for seq in range(count):
        head = struct.pack("!Id", seq, time.monotonic()) if stamp else struct.pack("!Iq", seq, 0)
        try:
            tx.sendto(head + pad, dst)
        except OSError:                 # socket closed by the bed (interrupted run)
            return
        wait = t0 + (seq + 1) / pps - time.monotonic()
        if wait > 0:
            time.sleep(wait)


def blast(tx, rx, dst, count, size=200, pps=4000, quiet=0.5, stamp=False):
    """Send in a thread, receive until quiet s without packets: [(time, seq, bytes)], or
    with stamp [(time, seq, bytes, send time)]."""
    th = threading.Thread(target=send_seq, args=(tx, dst, count, size, pps, stamp),
                          daemon=True)
    got = []
    rx.settimeout(quiet)
    th.start()
    while True:
        try:
            data = rx.recv(65536)
        except socket.timeout:
            if not th.is_alive():
                break
            continue
        seq, sent = struct.unpack("!Id", data[:12])
        got.append((time.monotonic(), seq, len(data)) + ((sent,) if stamp else ()))
    th.join()
    return got


def missing_runs(seqs, count):
    """Runs of consecutive missing sequence numbers: [(first, length)]."""
    have, runs, k = set(seqs), [], 0
    while k < count:
        if k not in have:
            start = k
            while k < count and k not in have:
                k += 1
            runs.append((start, k - start))
        k += 1
    return runs


def median_rtt(host, dst, count=5):
    rtts = host.ping(dst, count=count, interval=0.1)
    expect(None not in rtts, f"ping lost replies: {rtts}")
    return statistics.median(rtts)


# ---- checks: each returns a one-line detail string or raises ----

def check_ping():
    with netbed.NetBed() as bed:
        a, b = two_hosts(bed)
        rtts = a.ping(b.ip, count=3, interval=0.1)
        expect(None not in rtts, f"replies {rtts}")
        return f"rtt {max(rtts):.2f} ms"


def rate_mbps(got, t_from, t_to):
    pkts = [n for t, _, n in got if t_from <= t < t_to]
    return sum(n + WIRE for n in pkts) * 8 / (t_to - t_from) / 1e6


def check_tbf():
    with netbed.NetBed() as bed:
        a, b = two_hosts(bed)
        tbf = bed.bottleneck(a, "eth0", rate_bps=2_000_000, latency_ms=50)
        tx, rx = udp_pair(a, b, 5000)
        size, pps = 1200, 4_000_000 / ((1200 + WIRE) * 8)      # offer 4 Mbit/s
        th = threading.Thread(target=send_seq, args=(tx, (b.ip, 5000), int(pps * 5.5), size, pps),
                              daemon=True)
        rx.settimeout(1.0)
        got, changed, t0 = [], None, time.monotonic()
        th.start()
        while th.is_alive():
            n = len(rx.recv(65536))
            got.append((time.monotonic(), 0, n))
            if changed is None and got[-1][0] - t0 > 3.0:
                tbf.change(rate_bps=1_000_000)
                changed = time.monotonic()
        th.join()
        r2 = rate_mbps(got, t0 + 0.5, t0 + 3.0)
        r1 = rate_mbps(got, changed + 0.5, got[-1][0])
        tbf.remove()
        expect(1.6 <= r2 <= 2.4, f"2 Mbit/s bottleneck measured {r2:.2f} Mbit/s")
        expect(0.8 <= r1 <= 1.2, f"after change to 1 Mbit/s measured {r1:.2f} Mbit/s")
        return f"2 Mbit/s -> {r2:.2f} Mbit/s; changed to 1 Mbit/s -> {r1:.2f} Mbit/s"


def check_random_loss():
    with netbed.NetBed() as bed:
        a, b = two_hosts(bed)
        loss = bed.random_loss(a, "eth0", 10, direction="egress", udp_port=5001)
        tx, rx = udp_pair(a, b, 5001)
        got = blast(tx, rx, (b.ip, 5001), 2000)
        pct = 100 * (2000 - len(got)) / 2000
        expect(5 <= pct <= 15, f"10% loss measured {pct:.1f}%")
        loss.remove()
        after = blast(tx, rx, (b.ip, 5001), 500)
        expect(len(after) == 500, f"after remove() {500 - len(after)} of 500 lost")
        return f"10% -> {pct:.1f}% of 2000 lost; 0 of 500 after remove()"


def check_burst_loss():
    with netbed.NetBed() as bed:
        a, b = two_hosts(bed)
        bl = bed.burst_loss(a, "eth0", every=50, burst_len=5, udp_port=5002)
        tx, rx = udp_pair(a, b, 5002)
        got = blast(tx, rx, (b.ip, 5002), 2000)
        stats = bl.remove()
        runs = missing_runs([s for _, s, _ in got], 2000)
        expect(all(n == 5 for _, n in runs), f"runs not all of 5: {runs[:8]}")
        expect([s for s, _ in runs] == list(range(45, 2000, 50)), f"runs at {runs[:8]}")
        counts = {k: stats[k] for k in ("passed", "dropped", "bursts")}
        expect(counts == {"passed": 1800, "dropped": 200, "bursts": 40}, f"stats {stats}")
        return f"40 bursts of exactly 5 every 50; nfq-impair {stats}"


def check_burst_seeded():
    lost = []
    for _ in range(2):
        with netbed.NetBed() as bed:
            a, b = two_hosts(bed)
            bl = bed.burst_loss(a, "eth0", prob=0.02, burst_len=3, seed=7, udp_port=5002)
            tx, rx = udp_pair(a, b, 5002)
            got = blast(tx, rx, (b.ip, 5002), 1000)
            stats = bl.remove()
            lost.append(sorted(set(range(1000)) - {s for _, s, _ in got}))
            expect(stats["dropped"] == len(lost[-1]), f"stats {stats} vs {len(lost[-1])} lost")
    expect(lost[0] and lost[0] == lost[1], "two runs with seed 7 lost different packets")
    return f"seed 7: same {len(lost[0])} packets lost in both runs ({stats['bursts']} bursts)"


def check_delay():
    with netbed.NetBed() as bed:
        a, b = two_hosts(bed)
        base = median_rtt(a, b.ip)
        d = bed.delay(a, "eth0", 40)
        d40 = median_rtt(a, b.ip)
        tx, rx = udp_pair(a, b, 5004)
        got = blast(tx, rx, (b.ip, 5004), 3000, pps=6000)
        seqs = [s for _, s, _ in got]
        pps = (len(got) - 1) / (got[-1][0] - got[0][0])
        d.change(delay_ms=80)
        d80 = median_rtt(a, b.ip)
        stats = d.remove()
        after = median_rtt(a, b.ip)
        expect(d40 - base >= 35, f"40 ms delay: rtt {base:.2f} -> {d40:.2f} ms")
        expect(d80 - base >= 75, f"80 ms delay: rtt {base:.2f} -> {d80:.2f} ms")
        expect(after - base < 5, f"after remove(): rtt {after:.2f} ms")
        expect(seqs == list(range(3000)), f"UDP through the delay: {len(seqs)} of 3000, "
               f"in order: {seqs == sorted(seqs)}")
        return (f"rtt {base:.2f} -> {d40:.1f} (40 ms) -> {d80:.1f} (80 ms) -> {after:.2f} ms "
                f"removed; 3000 UDP at {pps:.0f}/s all in order; nfq-impair {stats}")


def one_way_ms(got):
    """One-way delays (ms) of stamped datagrams (sender and receiver share the clock)."""
    return [1000 * (t - sent) for t, _, _, sent in got]


def late_arrivals(seqs):
    """Datagrams that came after one sent later."""
    top, late = -1, 0
    for s in seqs:
        late += s < top
        top = max(top, s)
    return late


def held_since(before, after):
    """Mean and max hold beyond the fixed delay (us) of the packets nfq-impair passed
    between two stats() snapshots (the max is over the whole run)."""
    n = after["passed"] - before["passed"]
    total = after["jitter_mean_us"] * after["passed"] - before["jitter_mean_us"] * before["passed"]
    return total / max(n, 1), after["jitter_max_us"]


def jitter_spread(imp, tx, rx, dst, bound_ms):
    """100 stamped datagrams bound_ms + 2 ms apart (none waits for another)
    through a jitter of bound_ms.  nfq-impair's draws must lie within the bound with a
    mean about half of it; the receiver's one-way delays must spread likewise.  Late
    wake-ups (the receiver's, nfq-impair's) on a loaded machine only add to them, by up
    to 20 ms for a fifth of the datagrams at load 9, so the checks there are on
    quantiles and on 2 in 3 within the bound."""
    before = imp.stats()
    d = sorted(one_way_ms(blast(tx, rx, dst, 100, pps=1000 / (bound_ms + 2), stamp=True)))
    mean_us, max_us = held_since(before, imp.stats())
    expect(len(d) == 100, f"{len(d)} of 100 datagrams through {bound_ms} ms of jitter")
    expect(max_us <= bound_ms * 1000 and abs(mean_us - bound_ms * 500) <= bound_ms * 100,
           f"{bound_ms} ms jitter: nfq-impair held {mean_us:.0f} us on average, {max_us} "
           f"at most")
    q10, q50, q90 = d[10], d[50], d[89]
    within = sum(x <= bound_ms + 1 for x in d)
    expect(d[0] >= 0 and within >= 67 and q10 <= 0.3 * bound_ms
           and 0.35 * bound_ms <= q50 <= 0.85 * bound_ms and q90 >= 0.7 * bound_ms,
           f"{bound_ms} ms jitter: one-way delays from {d[0]:.2f} ms, {within} of 100 within "
           f"the bound + 1 ms, 10/50/90th percentiles {q10:.2f}/{q50:.2f}/{q90:.2f} ms")
    return (f"held mean {mean_us / 1000:.2f} ms, max {max_us / 1000:.2f}; one-way 10/50/90th "
            f"percentiles {q10:.1f}/{q50:.1f}/{q90:.1f} ms, {within} of 100 within the bound")


def check_jitter():
    with netbed.NetBed() as bed:
        a, b = two_hosts(bed)
        j = bed.jitter(a, "eth0", 10, udp_port=5005, seed=3)
        tx, rx = udp_pair(a, b, 5005)
        dst = (b.ip, 5005)
        at10 = jitter_spread(j, tx, rx, dst, 10)
        j.change(jitter_ms=20)
        at20 = jitter_spread(j, tx, rx, dst, 20)
        # 2000/s with up to 20 ms each: a packet mostly waits for an earlier one
        kept = blast(tx, rx, dst, 2000, pps=2000, stamp=True)
        kept_stats = j.stats()
        j.change(keep_order=False)
        free = blast(tx, rx, dst, 2000, pps=2000, stamp=True)
        stats = j.remove()
        late_kept = late_arrivals([s for _, s, _, _ in kept])
        late_free = late_arrivals([s for _, s, _, _ in free])
        expect(len(kept) == len(free) == 2000, f"received {len(kept)} and {len(free)} of 2000")
        expect(late_kept == 0 and kept_stats["reordered"] == 0,
               f"order kept: {late_kept} datagrams late, nfq-impair {kept_stats}")
        expect(late_free > 200, f"order free: only {late_free} of 2000 late")
        expect(stats["jitter_max_us"] <= 20000, f"held beyond 20 ms: {stats}")
        expect(stats["reordered"] == late_free, f"nfq-impair counted {stats['reordered']} "
               f"reordered, the receiver {late_free}")
        return (f"10 ms: {at10}; 20 ms: {at20}; 2000/s at 20 ms: in order (one-way median "
                f"{statistics.median(one_way_ms(kept)):.1f} ms), {late_free} late with order "
                f"free (median {statistics.median(one_way_ms(free)):.1f} ms); "
                f"nfq-impair {stats}")


def check_multicast():
    group, port = "239.77.0.1", 5003
    with netbed.NetBed() as bed:
        br = bed.bridge("br")
        a, b, c = bed.host("a"), bed.host("b"), bed.host("c")
        for i, h in enumerate((a, b, c)):
            bed.attach(h, br, f"10.77.2.{i + 1}/24")
        rx = b.socket()
        rx.bind(("0.0.0.0", port))
        rx.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                      socket.inet_aton(group) + socket.inet_aton("0.0.0.0"))
        sniff = c.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
        sniff.setblocking(False)
        tx = a.socket()
        tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
        got = blast(tx, rx, (group, port), 20, size=100, pps=20)
        at_c = 0
        while True:
            try:
                at_c += sniff.recv(2048)[16:20] == socket.inet_aton(group)
            except BlockingIOError:
                break
        mdb = br.run(["bridge", "mdb", "show"]).stdout.strip()
        expect(len(got) == 20, f"member received {len(got)} of 20")
        expect(at_c == 0, f"non-member port saw {at_c} group packets (no IGMP pruning)")
        note = ""
        if NFQ_OK:                          # an impairment on a bridge port
            base = median_rtt(a, b.ip)
            bed.delay(br, "p-b", 30)
            rtt = median_rtt(a, b.ip)
            expect(rtt - base >= 25, f"30 ms delay on port p-b: rtt {base:.2f} -> {rtt:.2f}")
            note = f"; 30 ms delay on port p-b: rtt {base:.2f} -> {rtt:.1f} ms"
        return f"member got 20/20, non-member port 0 (snooping); mdb: {mdb}{note}"


CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import netbed
bed = netbed.NetBed()
a, b = bed.host("a"), bed.host("b")
bed.link(a, b, "10.77.1.1", "10.77.1.2")
p = a.popen(["sleep", "60"])
print(bed.tag, p.pid, flush=True)
time.sleep(60)
"""


def running(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def ours_left(tag, pids, wait=2.0):
    """Our namespaces and still running processes, after waiting up to wait s for them."""
    end = time.monotonic() + wait
    while True:
        ns = [n for n in netbed._list_ns() if n.startswith(tag + "-")]
        alive = [p for p in pids if running(p)]
        if not (ns or alive) or time.monotonic() > end:
            return ns, alive
        time.sleep(0.05)


def check_cleanup():
    links_before = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    notes = []

    def build(bed):
        a, b = two_hosts(bed)
        br = bed.bridge("br")
        bed.attach(a, br, "10.77.2.1")
        bed.random_loss(a, "eth0", 1)
        bed.bottleneck(a, "eth0", 10_000_000)
        pids = [a.popen(["sleep", "60"]).pid, b.popen("sleep 60").pid]
        if NFQ_OK:
            pids.append(bed.delay(b, "eth0", 5).proc.pid)
        a.socket()
        expect(len(ours_left(bed.tag, [], 0)[0]) == 3, "namespaces not created")
        return pids

    with netbed.NetBed() as bed:
        tag, pids = bed.tag, build(bed)
    left = ours_left(tag, pids)
    expect(left == ([], []), f"after normal exit left {left}")
    notes.append("normal exit")

    try:
        with netbed.NetBed() as bed:
            tag, pids = bed.tag, build(bed)
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    left = ours_left(tag, pids)
    expect(left == ([], []), f"after exception left {left}")
    notes.append("exception")

    for sig in (signal.SIGTERM, signal.SIGKILL):
        child = subprocess.Popen([sys.executable, "-c", CHILD, HERE], stdout=subprocess.PIPE,
                                 text=True)
        tag, pid = child.stdout.readline().split()
        expect(len(ours_left(tag, [], 0)[0]) == 2, f"child made no namespaces ({tag})")
        child.send_signal(sig)
        rc = child.wait(10)
        if sig == signal.SIGKILL:           # processes die with their parent (PDEATHSIG),
            expect(not ours_left(tag, [int(pid)])[1], "child's process outlived it")
            netbed.cleanup_stale()          # namespaces go at the next NetBed()
        left = ours_left(tag, [int(pid)])
        expect(left == ([], []), f"after {sig.name} (rc {rc}) left {left}")
        notes.append(f"{sig.name} (rc {rc})" + (" + stale cleanup" if sig == signal.SIGKILL else ""))

    links_after = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    expect(links_before.count("\n") == links_after.count("\n"), "root namespace links changed")
    return "nothing left after " + ", ".join(notes)


# gst-launch -m output where a checksumsink line landed between a message's
# prefix and its structure (the two writes gst-launch makes of one message)
SPLIT_OUTPUT = """\
Got message #143 from element "snk" (element): tpba-period, period=(string)running, r-s=(guint64)171571;
0:00:09.933333333 811850ec126c0a9699445c9e4165c2e19bd80ab7
Got message #147 from element "snk" (element): 0:00:09.966666666 420e30eba299bb86560150be4476a094e6f088ef
tpba-stats, period=(string)running, switches=(uint)5, dropped-packets=(guint64)0;
Got message #66 from element "pipeline0" (eos): no message details
"""


def check_split_messages():
    stats = netbed.element_messages(SPLIT_OUTPUT, "snk", "tpba-stats")
    periods = netbed.element_messages(SPLIT_OUTPUT, "snk", "tpba-period")
    hashes = netbed.checksum_hashes(SPLIT_OUTPUT)
    expect(stats == [{"period": "running", "switches": "5", "dropped-packets": "0"}],
           f"the split message read as {stats}")
    expect(len(periods) == 1 and periods[0]["r-s"] == "171571", f"periods {periods}")
    expect(len(hashes) == 2, f"{len(hashes)} of 2 checksums")
    return "a message split by another thread's line is read whole"


def check_watch_connect():
    """A flow held on watch_connect's go sends nothing before the watched
    connection, and starts after it."""
    with netbed.NetBed() as bed:
        a, b = two_hosts(bed)
        stop, go, times, held, sent = threading.Event(), threading.Event(), {}, [], []
        t0 = time.monotonic()
        netbed.watch_connect(a, 5004, t0, times, go, timeout=10)
        netbed.greedy_tcp(a, b, b.ip, 6000, "cubic", stop, held, t0=t0, go=go,
                          connect_early=True)
        time.sleep(0.5)
        expect(not held, f"the held flow sent {held[-1:]} before the connection")
        netbed.greedy_tcp(a, b, b.ip, 5004, "cubic", stop, sent, t0=t0)
        deadline = time.monotonic() + 5
        while not held and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
    expect(held and sent, f"bytes: held flow {len(held)} samples, watched {len(sent)}")
    expect(times.get("connect", 0) >= 0.5 and held[0][0] >= times["connect"],
           f"watched connection seen at {times.get('connect')} s, held flow's "
           f"first bytes at {held[0][0]:.3f} s")
    return (f"connection seen at {times['connect']:.3f} s, first data {times.get('first_tx')} s,"
            f" the held flow's first bytes {held[0][0]:.3f} s")


CHECKS = [
    ("(a) ping over veth", check_ping, False),
    ("(b) tbf bottleneck 2 Mbit/s", check_tbf, False),
    ("(c) random_loss 10%", check_random_loss, False),
    ("(d) burst_loss every 50, 5 long", check_burst_loss, True),
    ("(d2) burst_loss random, seeded", check_burst_seeded, True),
    ("(e) delay 40 ms", check_delay, True),
    ("(e2) jitter 10 and 20 ms, order kept and not", check_jitter, True),
    ("(f) bridge multicast with snooping", check_multicast, False),
    ("(g) cleanup", check_cleanup, False),
    ("(h) gst-launch -m message split by another thread's line", check_split_messages, False),
    ("(i) watch_connect holds a flow until a connection shows", check_watch_connect, False),
]


def on_alarm(signum, frame):
    raise TimeoutError(f"check took more than {CHECK_TIMEOUT} s")


def main():
    global NFQ_OK
    netbed.require_or_skip()
    try:
        nfq_reason = netbed.missing(nfq=True)
    except netbed.NetBedError as e:
        nfq_reason, nfq_error = None, str(e)
    else:
        nfq_error = None
    NFQ_OK = not (nfq_reason or nfq_error)
    signal.signal(signal.SIGALRM, on_alarm)
    passed = failed = 0
    for name, fn, needs_nfq in CHECKS:
        if needs_nfq and nfq_reason:
            print(f"SKIP {name}: {nfq_reason}", flush=True)
            continue
        t0 = time.monotonic()
        signal.alarm(CHECK_TIMEOUT)
        try:
            if needs_nfq and nfq_error:
                raise Fail(nfq_error)
            detail, ok = fn(), True
        except Exception as e:          # noqa: BLE001 - report every failure as FAIL
            detail, ok = f"{type(e).__name__}: {e}", False
        finally:
            signal.alarm(0)
        passed, failed = passed + ok, failed + (not ok)
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail} [{time.monotonic() - t0:.1f} s]",
              flush=True)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
