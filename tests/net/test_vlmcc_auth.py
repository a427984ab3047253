#!/usr/bin/env python3
"""VLMCC's control plane under attack (issue 21): a sender s, receivers r1
(behind 2 Mbit/s, so the leader) and r2 (behind 3 Mbit/s) and a host
without the key, m, on one bridge (the topology of test_vlmcc_fig5.py
without its delay and TCP flow).

An observer in s's namespace (a packet socket; it stands in for anyone on
the path) keeps the last VLMCC control datagrams: acks and challenges to
s, STARTs from s. From ATTACK_AT on, every PERIOD_S, m sends with raw IP:
  - to s, from m: a challenge from a new id claiming a one-packet window
    (to take the lead and cut the rate), and in the keyed run the same
    with 24 random trailer bytes;
  - to s, as the leader (its address and id, both captured): an ack of a
    packet one second before its time (claiming a huge RTT);
  - to each receiver, as s: a START naming it with a forged leader;
  - the last captured acks to s and STARTs to the receivers, again.

Three runs: key without m (baseline), key with m, no key with m. With the
key the leader and the rate are those of the baseline and every forged or
replayed datagram is counted by its verdict; without it the effect is
measured: the sender elects m's ids (at most once per hold-off, 100 ms)
and the session's rate collapses.
"""
import collections
import os
import secrets
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_vlmcc_fig5 as fig5  # noqa: E402
from test_tpba_auth import ip_udp  # noqa: E402
import test_tpss_auth as tpss_auth  # noqa: E402

S_IP, M_IP = "10.77.5.1", "10.77.5.66"
RUN_S = 8.0                   # s after the sender starts
ATTACK_AT = 3.0
ATTACK_END = RUN_S - 0.8      # the last stats then count every packet
PERIOD_S = 0.05
M_PORT = 40000
FORGED_ID = 0xBAD00000
HOLDOFF_MIN_S = 0.1           # VlmccConfig election_holdoff_min


def app(subtype, ssrc, body):
    """A VLMCC control packet: RTCP APP `VLMC`, subtype = its type."""
    return struct.pack(">BBHI4s", 0x80 | subtype, 204, 2 + len(body) // 4,
                       ssrc, b"VLMC") + body


def challenge(cid):
    # not a probe; tstamp, rtt 100 ms, base rtt 100 ms, 10 packets/s, W = 1
    return app(1, cid, struct.pack(">B3xIIIII", 0, 0, 100_000, 100_000,
                                   10 * 64, 256))


def start(target, leader):
    return app(2, 0x5EED, struct.pack(">IHHIIII", target, 0, 0, leader,
                                      10 * 64, 256, 0))


def udp_of(frame):
    """(source, its port, destination, its port, payload) of an Ethernet
    frame holding IPv4 UDP, or None."""
    if len(frame) < 42 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return None
    start = 14 + (frame[14] & 15) * 4
    total, = struct.unpack_from("!H", frame, 16)
    sport, dport = struct.unpack_from("!HH", frame, start)
    return (socket.inet_ntoa(frame[26:30]), sport,
            socket.inet_ntoa(frame[30:34]), dport,
            frame[start + 8:14 + total])


class Observer(tpss_auth.Background):
    """A packet socket in s's namespace: the last VLMCC control datagrams
    to s (by source) and from s (by destination), with their ports."""

    def __init__(self, host):
        self.sock = host.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                socket.htons(0x0003))
        self.sock.settimeout(0.1)
        self.to_s = collections.defaultdict(list)    # (ip, port): [data]
        self.from_s = collections.defaultdict(list)
        self.sink_port = None
        self.forged = set()
        self.lock = threading.Lock()
        self.start()

    def take(self, frame):
        udp = udp_of(frame)
        if not udp:
            return
        src, sport, dst, dport, data = udp
        if len(data) < 20 or data[1] != 204 or data[8:12] != b"VLMC":
            return
        with self.lock:
            if data in self.forged:
                return
            if dst == S_IP and src != M_IP:
                self.sink_port = dport
                kept = self.to_s[(src, sport)]
            elif src == S_IP:
                kept = self.from_s[(dst, dport)]
            else:
                return
            if data not in kept:
                kept[:] = (kept + [data])[-4:]

    def snapshot(self):
        with self.lock:
            return (self.sink_port, {k: list(v) for k, v in self.to_s.items()},
                    {k: list(v) for k, v in self.from_s.items()})

    def step(self):
        try:
            self.take(self.sock.recv(65536))
        except (socket.timeout, OSError):
            pass


class Attacker(tpss_auth.Attacker):
    """Host m: spoofed forged and replayed control every PERIOD_S (TPSS's
    attacker with VLMCC's packets; addresses here carry their ports)."""

    def send(self, src, dst, payload, kind):
        if not kind.endswith("replayed"):
            with self.obs.lock:
                self.obs.forged.add(payload)
        self.sock.sendto(ip_udp(src[0], src[1], dst[0], dst[1], payload),
                         (dst[0], 0))
        self.sent[kind] += 1

    def at_sender(self, sink, to_s):
        c = challenge(FORGED_ID + self.k)
        self.send((M_IP, M_PORT), sink, c, "s_challenge_forged")
        if self.keyed:
            self.send((M_IP, M_PORT), sink, c + secrets.token_bytes(24),
                      "s_challenge_forged")
        for addr, kept in to_s.items():
            acks = [d for d in kept if d[0] & 0x1F == 0]
            if not acks:
                continue
            rid, = struct.unpack(">I", acks[-1][4:8])
            seq, tstamp = struct.unpack(">H2xI", acks[-1][12:20])
            ack = app(0, rid, struct.pack(">HHII", (seq + 1) & 0xFFFF, 0,
                                          (tstamp - 1_000_000) & 0xFFFFFFFF, 0))
            self.send(addr, sink, ack, "s_ack_forged")
            for d in acks:
                self.send(addr, sink, d, "s_replayed")

    def at_receivers(self, sink, to_s, from_s):
        for addr, starts in from_s.items():
            ids = [struct.unpack(">I", d[4:8])[0] for d in to_s.get(addr, [])]
            if ids:
                self.send((S_IP, sink[1]), addr, start(ids[-1], FORGED_ID),
                          f"{addr[0]}_start_forged")
            for d in starts:
                self.send((S_IP, sink[1]), addr, d, f"{addr[0]}_replayed")

    def step(self):
        self.k += 1
        port, to_s, from_s = self.obs.snapshot()
        if port:
            sink = (S_IP, port)
            self.at_sender(sink, to_s)
            self.at_receivers(sink, to_s, from_s)
        self.done.wait(PERIOD_S)


def sink_stats(tx):
    return [(t, f) for t, line in list(tx["out"])
            for f in [fig5.fields(line, "s", "vlmcc-sink-stats")] if f]


def run(bed_hosts, key, attack):
    """One run; returns a dict of what was measured."""
    s, m, r1, r2 = bed_hosts
    obs = Observer(s)
    q = f"?key={key}" if key else ""
    rxs = {"r1": fig5.start_receiver(r1, q), "r2": fig5.start_receiver(r2, q)}
    time.sleep(0.5)
    t0 = time.monotonic()
    tx = fig5.start_sender(s, "ttl-mc=4" + (f"&key={key}" if key else ""))
    att = None
    if attack:
        time.sleep(ATTACK_AT)
        att = Attacker(m, obs, bool(key))
        time.sleep(max(0.0, t0 + ATTACK_END - time.monotonic()))
        att.close()
    time.sleep(max(0.0, t0 + RUN_S - time.monotonic()))
    obs.close()
    for p in [tx] + list(rxs.values()):
        fig5.stop(p["proc"])
    for p in [tx] + list(rxs.values()):
        for t in p["threads"]:
            t.join(5)
    ids = {fig5.receiver_id(rx): n for n, rx in rxs.items()}
    tl = fig5.leaders(tx, ids)
    a, b = t0 + ATTACK_AT + 1, t0 + RUN_S
    ss = sink_stats(tx)
    attack_leaders = {fig5.leader_at(tl, t0 + ATTACK_AT)} | {
        w for t, w in tl if t0 + ATTACK_AT <= t}
    during = [f for t, f in ss if t0 + ATTACK_AT <= t]
    elections = (int(during[-1].get("elections", 0)) -
                 int(during[0].get("elections", 0))) if during else None
    return dict(
        ids=ids, timeline=[(round(t - t0, 2), w) for t, w in tl],
        leader_end=fig5.leader_at(tl, t0 + RUN_S),
        leader_share=fig5.share_of(tl, "r1", a, b),
        attack_leaders=attack_leaders,
        rate={n: fig5.received_rate(rx, a, b) for n, rx in rxs.items()},
        sink=ss[-1][1] if ss else {}, elections=elections,
        rx={n: (fig5.stats(rx)[-1][1] if fig5.stats(rx) else {})
            for n, rx in rxs.items()},
        rx_ip={"r1": r1.ip, "r2": r2.ip},
        sent=att.sent if att else collections.Counter())


def n(f, k):
    return int(f.get(k, 0) or 0)


SINK_FIELDS = ("leader", "rate", "elections", "challenges",
               "challenges-accepted", "refused-holdoff", "forged", "stale",
               "malformed", "auth-accepted", "auth-truncated",
               "auth-bad-tag", "auth-replayed", "auth-too-old",
               "auth-senders")
RX_FIELDS = ("role", "starts", "forged", "auth-accepted", "auth-bad-tag",
             "auth-replayed", "auth-too-old")


def show(title, r):
    print(f"{title}: attacker sent {dict(r['sent'])}")
    print(f"  leaders: {r['timeline']}")
    print("  sink: " + " ".join(f"{k}={r['sink'].get(k)}"
                                for k in SINK_FIELDS))
    for name, f in r["rx"].items():
        print(f"  {name}: " + " ".join(f"{k}={f.get(k)}" for k in RX_FIELDS))
    print(f"  kbit/s from {ATTACK_AT + 1:.0f} s: " + ", ".join(
        f"{k} {round((v or 0) / 1000)}" for k, v in r["rate"].items()) +
        f"; r1 led {100 * r['leader_share']:.0f} %; elections during the "
        f"attack window {r['elections']}")


RUNS = (("key, no attacker", True, False), ("key, attacker", True, True),
        ("no key, attacker", False, True))


def check_counted(check, r):
    """With the key, each forged or replayed datagram m sent is counted by
    its verdict where it arrived."""
    sink, sent = r["sink"], r["sent"]
    # an unsealed ack (24 bytes) is as long as a trailer: a bad tag too
    want = [("sink", "auth-bad-tag", n(sink, "auth-bad-tag"),
             sent["s_challenge_forged"] + sent["s_ack_forged"]),
            ("sink", "auth-replayed/too-old", n(sink, "auth-replayed") +
             n(sink, "auth-too-old"), sent["s_replayed"])]
    for name, f in r["rx"].items():
        ip = r["rx_ip"][name]
        want.append((name, "auth-bad-tag", n(f, "auth-bad-tag"),
                     sent[f"{ip}_start_forged"]))
        want.append((name, "auth-replayed/too-old", n(f, "auth-replayed") +
                     n(f, "auth-too-old"), sent[f"{ip}_replayed"]))
    for who, field, got, made in want:
        check(f"key, attacker: {who} counted them ({field})",
              made > 0 and made * 0.9 <= got <= made,
              f"{got} of {made} sent")


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    key = secrets.token_hex(32)
    res = []
    with netbed.NetBed() as bed:
        br, s, hosts = make_bed(bed)
        m = bed.host("m")
        bed.attach(m, br, f"{M_IP}/24")
        bed.bottleneck(br, "p-r1", rate_bps=2_000_000, latency_ms=100)
        bed.bottleneck(br, "p-r2", rate_bps=3_000_000, latency_ms=100)
        for title, keyed, attack in RUNS:
            res.append(run((s, m, hosts["r1"], hosts["r2"]),
                           key if keyed else None, attack))
            show(title, res[-1])
    base, keyed, plain = res

    # r2 takes the lead now and then for a while, key or none: the shares
    # are loose
    check("baseline: r1 (the tighter link) leads, control sealed",
          base["leader_share"] >= 0.5 and n(base["sink"], "auth-accepted")
          > 100 and n(base["sink"], "auth-bad-tag") == 0,
          f"{100 * base['leader_share']:.0f} %, accepted "
          f"{base['sink'].get('auth-accepted')}")
    r_base = base["rate"]["r2"] or 0
    r_key = keyed["rate"]["r2"] or 0
    r_plain = plain["rate"]["r2"] or 0
    check("key, attacker: r1 leads as in the baseline",
          keyed["leader_share"] >= 0.5,
          f"{100 * keyed['leader_share']:.0f} % (baseline "
          f"{100 * base['leader_share']:.0f} %)")
    # "none": a leader taken as lost (section 2.4), as in the baseline
    check("key, attacker: only the receivers led during the attack",
          keyed["attack_leaders"] <= {"r1", "r2", "none"},
          f"{sorted(map(str, keyed['attack_leaders']))}, "
          f"{keyed['elections']} elections (baseline {base['elections']})")
    check("key, attacker: the rate as in the baseline (within half)",
          r_base > 500_000 and r_key >= 0.5 * r_base,
          f"{round(r_key / 1000)} kbit/s (baseline {round(r_base / 1000)})")
    check_counted(check, keyed)
    check("key, attacker: the sink kept windows of the receivers only",
          n(keyed["sink"], "auth-senders") == 2,
          f"{keyed['sink'].get('auth-senders')}")
    el = plain["elections"] or 0
    bound = (ATTACK_END - ATTACK_AT) / HOLDOFF_MIN_S + 2
    forged = [w for w in plain["attack_leaders"]
              if isinstance(w, int) and w >= FORGED_ID]
    check("no key: the forged challenges take the lead",
          plain["leader_share"] <= 0.5 and el >= 3 and len(forged) >= 3,
          f"r1 led {100 * plain['leader_share']:.0f} %, {el} elections, "
          f"leader at the end {plain['leader_end']}")
    check("no key: at most one election per hold-off all the same",
          el <= bound, f"{el} elections, bound {bound:.0f}")
    check("no key: the rate collapses", r_plain < 0.5 * r_base,
          f"{round(r_plain / 1000)} kbit/s (baseline {round(r_base / 1000)})")
    result = dict(base_kbps=round(r_base / 1000), key_kbps=round(r_key / 1000),
                  no_key_kbps=round(r_plain / 1000), no_key_elections=el,
                  key_sink_bad_tag=keyed["sink"].get("auth-bad-tag"),
                  key_sink_truncated=keyed["sink"].get("auth-truncated"),
                  key_sink_replayed=keyed["sink"].get("auth-replayed"))
    print("RESULT vlmcc_auth " + " ".join(f"{k}={v}"
                                          for k, v in result.items()))
    return check.summary()


def make_bed(bed):
    """A bridge (flooding) with s and the receivers r1, r2 (no delay)."""
    br = bed.bridge("br", snooping=False)
    s = bed.host("s")
    bed.attach(s, br, f"{S_IP}/24")
    hosts = {}
    for i, name in enumerate(("r1", "r2")):
        hosts[name] = bed.host(name)
        bed.attach(hosts[name], br, f"10.77.5.{10 + i}/24")
    return br, s, hosts


if __name__ == "__main__":
    sys.exit(main())
