#!/usr/bin/env python3
"""VLMCC (issue 19), leadership loss (section 2.4): the topology of
test_vlmcc_fig5.py without the TCP flow, r2 behind the tighter link
(2 Mbit/s, r1 behind 3 Mbit/s) and so the leader. At T_KILL r2's process is
killed outright (SIGKILL: no leave, no goodbye). The sender must take the
leader as lost and r1 must become the new leader, and r1 must see no stall
longer than 2 s: its packet count (stats every 100 ms) never stands still
longer than that.

With a rate floor on the sink and the receivers, a third receiver r3 behind a link below the
floor (300 kbit/s, floor 600 kbit/s) leaves after leave-time, says so on
the bus (vlmcc-left), and the session's rate stays above the floor at
r1."""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_vlmcc_fig5 as fig5  # noqa: E402

T_KILL, T_END = 12.0, 22.0
MAX_STALL_S = 2.0
FLOOR = 600_000


def longest_stall(rx, t0, t1):
    """The longest time over [t0, t1) in which the receiver's count of
    packets did not grow (at the 100 ms resolution of its stats)."""
    st = [(t, int(f["received"])) for t, f in fig5.stats(rx)
          if "received" in f and t0 <= t < t1]
    longest, since, last = 0.0, None, None
    for t, n in st:
        if last is not None and n == last:
            since = since if since is not None else prev_t
            longest = max(longest, t - since)
        else:
            since = None
        last, prev_t = n, t
    return longest, len(st)


def left_messages(rx):
    return [(t, fig5.fields(line, "r", "vlmcc-left"))
            for t, line in list(rx["out"])
            if fig5.fields(line, "r", "vlmcc-left")]


def main():
    netbed.require_or_skip(nfq=True)
    check = netbed.Checks()
    with netbed.NetBed() as bed:
        br, snd, _, hosts = fig5.make_bed(bed, ["r1", "r2", "r3"])
        bed.bottleneck(br, "p-r1", rate_bps=3_000_000, latency_ms=100)
        bed.bottleneck(br, "p-r2", rate_bps=2_000_000, latency_ms=100)
        bed.bottleneck(br, "p-r3", rate_bps=300_000, latency_ms=100)
        rxs = {n: fig5.start_receiver(hosts[n]) for n in ("r1", "r2")}
        rxs["r3"] = fig5.start_receiver(hosts["r3"], f"?rate-floor={FLOOR}")
        time.sleep(0.5)
        t0 = time.monotonic()
        tx = fig5.start_sender(snd, f"ttl-mc=4&rate-floor={FLOOR}")
        time.sleep(T_KILL)
        ids = {fig5.receiver_id(rx): n for n, rx in rxs.items()}
        before = fig5.leader_at(fig5.leaders(tx, ids), time.monotonic())
        rxs["r2"]["proc"].send_signal(signal.SIGKILL)
        t_kill = time.monotonic()
        time.sleep(T_END - T_KILL)
        fig5.stop(tx["proc"])
        for n in ("r1", "r3"):
            fig5.stop(rxs[n]["proc"])
        for p in [tx] + list(rxs.values()):
            for t in p["threads"]:
                t.join(5)

        tl = fig5.leaders(tx, ids)
        print("leaders:", [(round(t - t0, 2), who) for t, who in tl])
        check("r2 led before the kill", before == "r2", f"leader {before}")
        new = fig5.first_change_to(tl, "r1", t_kill)
        check("r1 became the leader after the kill", new is not None,
              f"after {new and round(new - t_kill, 2)} s")
        stall, n = longest_stall(rxs["r1"], t_kill - 2, t0 + T_END - 0.5)
        check(f"r1 never stalled longer than {MAX_STALL_S} s around the kill",
              n > 50 and stall <= MAX_STALL_S,
              f"longest stall {stall:.2f} s over {n} stats")
        after = fig5.received_rate(rxs["r1"], t_kill + 3, t0 + T_END)
        check("the session goes on at r1's rate above the floor",
              after is not None and after >= FLOOR,
              f"{after and round(after / 1000)} kbit/s")
        left = left_messages(rxs["r3"])
        check("r3, below the floor, left and said so", len(left) == 1,
              f"{left and left[0][1]} at "
              f"{left and round(left[0][0] - t0, 2)} s")
        r3_role = [f.get("role") for _, f in fig5.stats(rxs["r3"])]
        check("r3 was never the leader at the end", r3_role and
              r3_role[-1] == "left", f"last role {r3_role and r3_role[-1]}")
        print(f"RESULT vlmcc_leader_kill new_leader_s="
              f"{new and round(new - t_kill, 2)} stall_s={stall:.2f} "
              f"r1_kbps_after={after and round(after / 1000)} "
              f"{fig5.sender_counts(tx)}")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
