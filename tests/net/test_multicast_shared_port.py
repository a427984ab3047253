#!/usr/bin/env python3
"""Two multicast receivers of one host on one port each get the groups they
joined, and only those (gst/common's GstNetUdp, every multicast source).

A sender s and a receiver host r on a bridge. s runs the RLM sender of
test_rlm_single (4 layers, a group each, 239.77.1.1 .. .4, one port). In r,
receiver A (rlmsrc start-level=1) joins the base group only; receiver B
(start-level=4), started after it, all four. Neither may climb or drop a
level by itself (join timers of 1000 s, a loss threshold of 1). Their
sockets share the port: SO_REUSEADDR. As a SO_REUSEPORT group (GLib's
g_socket_bind with allow_reuse), Linux handed the datagrams of the groups
only B joined to A, the group's first socket, which dropped them
(`unsubscribed`), and B got none of layers 2-4.

Passes when B receives each layer at about the rate A receives the base
layer's (each layer has at least LAYER_SHARE of the base layer's packets
at B; the layers are 250, 250, 500, 1000 kbit/s), B loses at most MAX_LOSS
of each, A receives no packet of a layer it did not join, and both get the
base layer."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_rlm_single as rlm  # noqa: E402

RUN = 10.0
HOLD = ("t-join-min=1000000000000 t-join-max=1000000000000 loss-threshold=1.0 "
        "detection-time-init=1000000000000")
LAYER_SHARE = 0.5
MAX_LOSS = 0.05


def last_stats(rx):
    st = rlm.stats(rx)
    return st[-1][1] if st else {}


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    with netbed.NetBed() as bed:
        _, snd, hosts = rlm.make_bed(bed, ["r"])
        r = hosts["r"]
        sender = rlm.start_sender(snd)
        a = rlm.start_receiver(r, f"start-level=1 {HOLD}", decode=False)
        time.sleep(1.0)
        b = rlm.start_receiver(r, f"start-level=4 {HOLD}", decode=False)
        time.sleep(RUN)
        for p in (a["proc"], b["proc"], sender):
            rlm.stop(p)
        for rx in (a, b):
            for t in rx["threads"]:
                t.join(5)
    sa, sb = last_stats(a), last_stats(b)
    print(f"# A: level {sa.get('level')}, received {sa.get('layer-received')}, "
          f"lost {sa.get('layer-lost')}, unsubscribed {sa.get('unsubscribed')}")
    print(f"# B: level {sb.get('level')}, received {sb.get('layer-received')}, "
          f"lost {sb.get('layer-lost')}, unsubscribed {sb.get('unsubscribed')}")
    check("both receivers report stats", bool(sa) and bool(sb), "")
    if not (sa and sb):
        return check.summary()
    got_a, got_b = sa["layer-received"], sb["layer-received"]
    check("A and B get the base layer", got_a[0] > 100 and got_b[0] > 100,
          f"A {got_a[0]}, B {got_b[0]} packets")
    check("A gets no packet of the layers it did not join",
          sa["unsubscribed"] == 0 and sum(got_a[1:]) == 0,
          f"unsubscribed {sa['unsubscribed']}, layers 2-4 {got_a[1:]}")
    check("B stays at level 4", sb["level"] == 4, f"level {sb['level']}")
    check(f"B gets every layer (at least {LAYER_SHARE} of its base layer's packets)",
          all(n >= LAYER_SHARE * got_b[0] for n in got_b[1:]), f"{got_b}")
    lost = [l / max(1, l + n) for l, n in zip(sb["layer-lost"], got_b)]
    check(f"B loses at most {MAX_LOSS:.0%} of each layer", max(lost) <= MAX_LOSS,
          ", ".join(f"{x:.3f}" for x in lost))
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
