#!/usr/bin/env python3
"""TPSS's control plane under attack (issue 21): members p1 and p2 (each a
tpsssink sending 8 kHz L16 audio and a tpsssrc, one session) and a host
without the key, m, on one bridge.

p1's data rate toward p2 is what p2's RATE messages set. Without an
attacker it settles at a few hundred kbit/s, below the initial 1 Mbit/s
(at most twice what the audio sends, the application-limited bound; the
audio needs about 150 kbit/s). A RATE
from p2 notifying 8 kbit/s would drop it to the floor (TPSS_MIN_RATE,
8 kbit/s) and, with a sequence number far ahead, make p1 ignore p2's real
RATEs after it.

An observer in p2's namespace (a packet socket; it stands in for anyone on
the path) keeps the last control datagrams (RTCP) between p1 and p2. m
then sends every PERIOD_S, with the source address of the member it
imitates (raw IP, so the members' address checks pass):
  - to p1, as p2: a RATE of 8 kbit/s with a sequence number far ahead, and
    the same RATE cut to 16 bytes;
  - to p2, as p1: a QOS announcing 100 MB queued (D), and a REPORT saying
    p1 sends at 8 kbit/s;
  - in the keyed run, the RATE with 24 random trailer bytes;
  - the last captured control datagrams of each direction, replayed.

Three runs of RUN_S seconds: key without m (baseline), key with m, no key
with m. With the key p1's data rate is as in the baseline and every forged
or replayed datagram is counted by its verdict; without it the effect is
documented: p1's rate at the floor.
"""
import collections
import os
import re
import secrets
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
from test_tpba_auth import ip_udp  # noqa: E402

RUN_S = 4.5
ATTACK_AT = 1.2               # s after the members start
PERIOD_S = 0.05
PORT = 5004
P1_IP, P2_IP, M_IP = "10.77.7.1", "10.77.7.2", "10.77.7.66"
INITIAL_RATE = 1_000_000
FORGED_RATE = 8000
CAPS = ("application/x-rtp,media=audio,clock-rate=8000,encoding-name=L16,"
        "channels=1,payload=96")
MEMBERS = f"1@{P1_IP}:{PORT},2@{P2_IP}:{PORT}"


def start_member(host, mid, key):
    k = f" key={key}" if key else ""
    cmd = ("exec gst-launch-1.0 -m -e audiotestsrc is-live=true "
           "samplesperbuffer=160 ! audio/x-raw,rate=8000,channels=1 ! "
           f"rtpL16pay ! tpsssink name=snk port={PORT} member-id={mid} "
           f"members={MEMBERS} initial-rate={INITIAL_RATE} "
           f"stats-interval=250000000{k} "
           f"tpsssrc name=src port={PORT} members={MEMBERS}{k} "
           f"caps=\"{CAPS}\" ! fakesink sync=false async=false")
    p = host.popen(["sh", "-c", cmd], stdout=subprocess.PIPE,
                   stderr=subprocess.DEVNULL)
    out, t = netbed.timed_lines(p.stdout)
    return dict(proc=p, out=out, thread=t)


_FIELD = re.compile(r"([a-z-]+)=\((\w+)\)([^,;}\"]+)")


def fields(text):
    out = {}
    for k, _, v in _FIELD.findall(text):
        v = v.strip()
        out[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
    return out


def stats(member):
    """The session fields of each tpss-stats message, numbers as ints, and
    in `peer-send-data-rate` the data rate D toward the other member."""
    out = []
    for _, line in member["out"]:
        if "tpss-stats" not in line:
            continue
        head, _, rest = line.replace("\\", "").partition("members=")
        f = fields(head)
        for part in rest.split("member, ")[1:]:
            peer = fields(part)
            if peer.get("id") not in (None, f.get("member-id")):
                f["peer-send-data-rate"] = peer.get("send-data-rate", 0)
        out.append(f)
    return out


class Background:
    """A daemon thread that calls step() until close()."""

    def start(self):
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.done.is_set():
            self.step()

    def close(self):
        self.done.set()
        self.thread.join(2)


class Observer(Background):
    """A packet socket in p2's namespace: the last control datagrams from
    p1 to p2 and from p2 to p1 (RTCP packet types, RFC 5761)."""

    def __init__(self, host):
        self.sock = host.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                socket.htons(0x0003))
        self.sock.settimeout(0.1)
        self.last = {P1_IP: [], P2_IP: []}      # by source
        self.forged = set()                     # what m made up
        self.lock = threading.Lock()
        self.start()

    def take(self, frame):
        ip = frame[14:]
        if frame[12:14] != b"\x08\x00" or len(ip) < 28 or ip[9] != 17:
            return
        ihl = (ip[0] & 15) * 4
        src = socket.inet_ntoa(ip[12:16])
        body = ip[ihl:struct.unpack("!H", ip[2:4])[0]]
        sport, dport = struct.unpack("!HH", body[:4])
        data = body[8:]
        if (src in self.last and sport == PORT and dport == PORT and
                len(data) >= 2 and 192 <= data[1] <= 223):
            with self.lock:
                # m's forgeries and its replays (already kept) left out
                if data not in self.forged and data not in self.last[src]:
                    self.last[src] = (self.last[src] + [data])[-4:]

    def captured(self, src):
        with self.lock:
            return list(self.last[src])

    def step(self):
        try:
            self.take(self.sock.recv(65536))
        except (socket.timeout, OSError):
            pass


def app(kind, sender, media, body):
    """A TPSS control message: RTCP APP `TPSS`, subtype = its type."""
    n = 16 + len(body)
    return struct.pack(">BBHI4sI", 0x80 | kind, 204, n // 4 - 1, sender,
                       b"TPSS", media) + body


def forged_rate(k):
    # rate, A = 0, echo 0, delay 0, a sequence number far ahead
    return app(2, 2, 1, struct.pack(">QIIII", FORGED_RATE, 0, 0, 0,
                                    0x40000000 + k))


def forged_qos():
    return app(1, 1, 1, struct.pack(">III", 100_000_000, 10_000_000, 0))


def forged_report(k):
    return app(3, 1, 1, struct.pack(">IIIIQQBBBB", 2, 0x1000 + k, 0,
                                    0x40000000, FORGED_RATE, FORGED_RATE,
                                    1, 1, 0, 0))


class Attacker(Background):
    """Host m: spoofed forged and replayed control every PERIOD_S."""

    def __init__(self, host, obs, keyed):
        self.obs, self.keyed, self.k = obs, keyed, 0
        self.sent = collections.Counter()       # datagrams by kind
        self.sock = host.socket(socket.AF_INET, socket.SOCK_RAW,
                                socket.IPPROTO_RAW)
        self.start()

    def send(self, src, dst, payload, kind):
        if not kind.endswith("replayed"):
            with self.obs.lock:
                self.obs.forged.add(payload)
        self.sock.sendto(ip_udp(src, PORT, dst, PORT, payload), (dst, 0))
        self.sent[kind] += 1

    def step(self):
        self.k += 1
        for d in self.obs.captured(P2_IP):
            self.send(P2_IP, P1_IP, d, "to_p1_replayed")
        for d in self.obs.captured(P1_IP):
            self.send(P1_IP, P2_IP, d, "to_p2_replayed")
        rate = forged_rate(self.k)
        self.send(P2_IP, P1_IP, rate, "to_p1_forged")
        self.send(P2_IP, P1_IP, rate[:16], "to_p1_truncated")
        if self.keyed:
            self.send(P2_IP, P1_IP, rate + secrets.token_bytes(24),
                      "to_p1_forged")
        self.send(P1_IP, P2_IP, forged_qos(), "to_p2_forged")
        self.send(P1_IP, P2_IP, forged_report(self.k), "to_p2_forged")
        self.done.wait(PERIOD_S)


def run(p1, p2, m, key, attack):
    """One run; returns (p1's stats, p2's stats, attacker counts)."""
    obs = Observer(p2)
    a = start_member(p1, 1, key)
    b = start_member(p2, 2, key)
    t0 = time.monotonic()
    att = None
    if attack:
        time.sleep(ATTACK_AT)
        att = Attacker(m, obs, bool(key))
    time.sleep(max(0.0, t0 + RUN_S - time.monotonic()))
    if att:
        att.close()
    obs.close()
    # both at once (each then says BYE and ends its stream)
    stoppers = [threading.Thread(target=netbed.interrupt, args=(x["proc"],))
                for x in (a, b)]
    for t in stoppers:
        t.start()
    for t in stoppers:
        t.join()
    for x in (a, b):
        x["thread"].join(5)
    return stats(a), stats(b), att.sent if att else None


def last_rate(st):
    """p1's data rate toward p2 in its last stats while it ran."""
    rates = [s["peer-send-data-rate"] for s in st
             if s.get("peer-send-data-rate", 0) > 0]
    return rates[-1] if rates else 0


def min_rate(st):
    """p1's lowest data rate after its first second while it ran (the stats
    of both of its elements are the session's; 0 once it stopped)."""
    rates = [s["peer-send-data-rate"] for s in st[4:]
             if s.get("peer-send-data-rate", 0) > 0]
    return min(rates, default=0)


FIELDS = ("peer-send-data-rate", "control-sent", "control-received", "forged",
          "malformed", "auth-accepted", "auth-truncated", "auth-bad-tag",
          "auth-replayed", "auth-too-old", "auth-senders")


def show(title, res):
    s1, s2, sent = res
    print(f"{title}: attacker sent {sent}")
    for name, st in (("p1", s1), ("p2", s2)):
        if st:
            print(f"  {name}: " + " ".join(f"{k}={st[-1].get(k)}"
                                          for k in FIELDS))
    print(f"  p1 data rate after 1 s: min {min_rate(s1)}; over the run "
          f"(kbit/s): {[s.get('peer-send-data-rate', 0) // 1000 for s in s1]}")


# (title, with the key, with the attacker)
RUNS = (("key, no attacker", True, False), ("key, attacker", True, True),
        ("no key, attacker", False, True))


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    key = secrets.token_hex(32)
    results = []
    with netbed.NetBed() as bed:
        br = bed.bridge("br", snooping=False, querier=False)
        hosts = {name: bed.host(name) for name in ("p1", "p2", "m")}
        for name, ip in zip(hosts, (P1_IP, P2_IP, M_IP)):
            bed.attach(hosts[name], br, f"{ip}/24")
        for title, keyed, attack in RUNS:
            results.append(run(*hosts.values(), key if keyed else None,
                               attack))
            show(title, results[-1])
    base, keyed, plain = results

    mins = [min_rate(r[0]) for r in (base, keyed, plain)]
    last1 = [r[0][-1] if r[0] else {} for r in (base, keyed, plain)]
    last2 = [r[1][-1] if r[1] else {} for r in (base, keyed, plain)]
    sent = keyed[2]

    check("baseline: keyed members exchange control",
          last1[0].get("auth-accepted", 0) > 10 and
          last2[0].get("auth-accepted", 0) > 10 and
          last1[0].get("auth-bad-tag", 1) == 0,
          f"p1 accepted {last1[0].get('auth-accepted')}, p2 "
          f"{last2[0].get('auth-accepted')}")
    # adapting, the rate dips to about 140 kbit/s now and then
    check("baseline: p1's rate far above the floor",
          mins[0] >= 100_000, f"min {mins[0]}")
    # an application-limited flow: confirmed at most twice what it sends
    # (before, in 4 of 10 keyed runs it stayed at the initial rate)
    lasts = [last_rate(r[0]) for r in (base, keyed)]
    check("baseline: p1's rate adapted below the initial rate",
          0 < lasts[0] < INITIAL_RATE, f"last {lasts[0]}")
    check("key, attacker: p1's rate adapted below the initial rate",
          0 < lasts[1] < INITIAL_RATE, f"last {lasts[1]}")
    check("key, attacker: p1's rate far above the floor, as in the baseline",
          mins[1] >= 100_000, f"min {mins[1]} (baseline {mins[0]})")
    want = {
        (1, "auth-bad-tag"): sent["to_p1_forged"],
        (1, "auth-truncated"): sent["to_p1_truncated"],
        (1, "auth-replayed"): sent["to_p1_replayed"],
        (2, "auth-bad-tag"): sent["to_p2_forged"],
        (2, "auth-replayed"): sent["to_p2_replayed"],
    }
    for (who, f), n in want.items():
        got = (last1 if who == 1 else last2)[1].get(f, 0)
        if f == "auth-replayed":
            # a replay older than the sender's window counts as too-old
            got += (last1 if who == 1 else last2)[1].get("auth-too-old", 0)
        check(f"key, attacker: p{who} counted them ({f})",
              n > 0 and got >= 0.9 * n, f"{got} of {n} sent")
    check("key, attacker: each member kept one sender's window",
          last1[1].get("auth-senders") == 1 and
          last2[1].get("auth-senders") == 1,
          f"{last1[1].get('auth-senders')}, {last2[1].get('auth-senders')}")
    check("no key: the forged RATEs cut p1's rate to the floor",
          0 < mins[2] <= 2 * FORGED_RATE, f"min {mins[2]}")
    result = dict(key_min_rate=mins[1], base_min_rate=mins[0],
                  no_key_min_rate=mins[2])
    for who, last in (("p1", last1[1]), ("p2", last2[1])):
        for f in ("auth-bad-tag", "auth-truncated", "auth-replayed"):
            result[f"key_{who}_{f[5:].replace('-', '_')}"] = last.get(f)
    print("RESULT " + " ".join(f"{k}={v}" for k, v in result.items()))
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
