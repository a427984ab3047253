#!/usr/bin/env python3
"""RMTP's control plane under attack (issue 21): a sender s (rmtpsink), two
receivers r1 and r2 (rmtpsrc) and a host without the key, m, on one bridge.

An observer in r1's namespace (a packet socket; it stands in for anyone on
the path) learns the sender's port, r1's answer port and the round under
way (from the DATA, which is not sealed), and keeps the last control
datagrams each way. From the sender's CONN on, m sends every PERIOD_S with
raw IP, so the address checks of the elements pass:
  - to the sender, as r1: NACKs of the whole data set for the round under
    way and the next, a NACK of 150 overlapping ranges, an ACK, a BUSY and
    an RRDY;
  - to the group, as the sender: POLLs of both members, an EOR of round
    1000 and a REL (in the keyed run the POLLs also with 24 random trailer
    bytes);
  - the last captured control datagrams of each direction, replayed.

Four runs: key without m (baseline), key with m, and without the key m
sending everything, then only the storm (the NACKs, and the POLLs in the
first half of each round's DATA). With the key
the transfer completes as in the baseline, both files are identical, the
sender stays within its rate and every datagram of m is counted by its
verdict. Without the key the effect is measured: everything at once sets r1
aside as BUSY (its forged NACKs are then late); the storm alone makes the
sender resend the whole set, within its rate, until r1's losses (all of the
set, where r2 lost none) set it aside as slow and a unicast round ends it;
the receivers answer the forged POLLs at most once per tat.
"""
import collections
import hashlib
import os
import secrets
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
from test_tpba_auth import ip_udp  # noqa: E402
from test_tpss_auth import Background  # noqa: E402

GROUP, PORT = "239.2.3.4", 6000
S_IP, R1_IP, R2_IP, M_IP = "10.77.23.1", "10.77.23.11", "10.77.23.12", "10.77.23.66"
SIZE = 1_000_000
PACKET = 1024
N_PACKETS = (SIZE + PACKET - 1) // PACKET
RATE = 4_000_000
DATA_WIRE = PACKET + 17          # RMTP header and DATA fields
PERIOD_S = 0.02
TIMEOUT = 12                     # s: a keyed run takes about 3
MARGIN_S = 0.3                   # what m sent this long before a stats
                                 # message must be counted in it
TYPES = {1: "CONN", 2: "CACK", 3: "DATA", 4: "EOR", 5: "NACK", 6: "ACK",
         7: "POLL", 8: "REL", 9: "RACK", 10: "BUSY", 11: "RRDY", 13: "PARITY"}


def gst(cmd):
    return ["sh", "-c", "exec gst-launch-1.0 -m " + cmd]


def launch(host, cmd):
    p = host.popen(gst(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines, t = netbed.timed_lines(p.stdout)
    return dict(proc=p, lines=lines, thread=t)


def key_param(key):
    return f"&key={key}" if key else ""


def start_receiver(host, member, out, key):
    return launch(host, f"rmtpsrc uri=\"rmtp://{GROUP}:{PORT}?member={member}"
                        f"&stats-interval=200000000{key_param(key)}\" ! "
                        f"filesink location={out}")


def start_sender(host, path, key):
    return launch(host, f"filesrc location={path} ! rmtpsink uri=\"rmtp://"
                        f"{GROUP}:{PORT}?receivers=2&rate={RATE}"
                        f"&stats-interval=200000000{key_param(key)}\"")


def messages(proc, element, name):
    """(arrival time, fields) of each element message."""
    out = []
    for t, ln in list(proc["lines"]):
        for m in netbed.element_messages(ln, element, name):
            out.append((t, m))
    return out


def wait_started(rx, timeout=10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if messages(rx, "rmtpsrc0", "rmtp-src-stats"):
            return True
        time.sleep(0.05)
    return False


def eos_time(proc):
    return next((t for t, ln in list(proc["lines"])
                 if 'Got EOS from element "pipeline0"' in ln), None)


class Observer(Background):
    """A packet socket in r1's namespace: the sender's address, r1's answer
    port, the round of the last DATA, the last control datagrams each
    way."""

    def __init__(self, host):
        self.sock = host.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                socket.htons(0x0003))
        self.sock.settimeout(0.1)
        self.sender_port = self.r1_port = None
        self.round = self.seq = 0
        self.last = {"from_s": [], "from_r1": []}
        self.forged = set()
        self.lock = threading.Lock()
        self.start()

    def keep(self, way, data):
        if data not in self.forged and data not in self.last[way]:
            self.last[way] = (self.last[way] + [data])[-4:]

    def take(self, frame):
        ip = frame[14:]
        if frame[12:14] != b"\x08\x00" or len(ip) < 28 or ip[9] != 17:
            return
        ihl = (ip[0] & 15) * 4
        src, dst = socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20])
        body = ip[ihl:struct.unpack("!H", ip[2:4])[0]]
        sport, dport = struct.unpack("!HH", body[:4])
        data = body[8:]
        if len(data) < 12 or data[:3] != b"RM\x01":
            return
        with self.lock:
            if src == S_IP and data[3] == 3:
                self.sender_port = sport
                self.round, self.seq = struct.unpack("!II", data[8:16])
            elif src == S_IP:
                self.sender_port = sport
                self.keep("from_s", data)
            elif src == R1_IP and dst == S_IP:
                self.r1_port = sport
                self.keep("from_r1", data)

    def ready(self):
        with self.lock:
            return self.sender_port is not None and self.r1_port is not None

    def step(self):
        try:
            self.take(self.sock.recv(65536))
        except (socket.timeout, OSError):
            pass


def header(kind, session):
    return struct.pack("!2sBBI", b"RM", 1, kind, session)


class Attacker(Background):
    """Host m: forged and replayed control every PERIOD_S, once the
    observer knows the ports. sent: (time, kind) of each datagram."""

    def __init__(self, host, obs, keyed, storm_only):
        self.obs, self.keyed, self.storm_only = obs, keyed, storm_only
        self.sent = []
        self.sock = host.socket(socket.AF_INET, socket.SOCK_RAW,
                                socket.IPPROTO_RAW)
        self.start()

    def send(self, src, sport, dst, dport, payload, kind):
        if not kind.endswith("replayed"):
            with self.obs.lock:
                self.obs.forged.add(payload)
        self.sock.sendto(ip_udp(src, sport, dst, dport, payload), (dst, 0))
        self.sent.append((time.monotonic(), kind))

    def session(self):
        with self.obs.lock:
            for d in self.obs.last["from_s"]:
                return struct.unpack("!I", d[4:8])[0]
        return 0

    def at_sender(self, ses, rnd, sport, rport):
        def to_s(payload, kind):
            self.send(R1_IP, rport, S_IP, sport, payload, "to_s_" + kind)

        for r in (rnd, rnd + 1):
            to_s(header(5, ses) + struct.pack("!IIIII", 1, r, 1, 0, N_PACKETS),
                 "forged")
        over = b"".join(struct.pack("!II", 0, N_PACKETS) for _ in range(150))
        to_s(header(5, ses) + struct.pack("!III", 1, rnd, 150) + over,
             "forged")
        if self.storm_only:
            return
        to_s(header(6, ses) + struct.pack("!II", 1, rnd), "truncated")
        to_s(header(10, ses) + struct.pack("!I", 1), "truncated")
        to_s(header(11, ses) + struct.pack("!I", 1), "truncated")

    def at_group(self, ses, rnd, seq, sport):
        def to_g(payload, kind):
            self.send(S_IP, sport, GROUP, PORT, payload, "to_g_" + kind)

        # The storm POLLs in the first half of a round's DATA only: an answer
        # to a POLL just before the EOR would race m's NACK to the sender.
        polls = (1, 2) if not self.storm_only or seq < N_PACKETS // 2 else ()
        for member in polls:
            poll = header(7, ses) + struct.pack("!III", member, rnd, 0)
            to_g(poll, "truncated")
            if self.keyed:
                to_g(poll + secrets.token_bytes(24), "forged")
        if self.storm_only:
            return
        to_g(header(4, ses) + struct.pack("!II", 1000, 0), "truncated")
        to_g(header(8, ses) + struct.pack("!II", rnd, 0), "truncated")

    def step(self):
        if not self.obs.ready():
            self.done.wait(0.005)
            return
        with self.obs.lock:
            sport, rport, rnd, seq = (self.obs.sender_port, self.obs.r1_port,
                                      self.obs.round, self.obs.seq)
            from_s, from_r1 = (list(self.obs.last["from_s"]),
                               list(self.obs.last["from_r1"]))
        ses = self.session()
        for d in ([] if self.storm_only else from_s):
            self.send(S_IP, sport, GROUP, PORT, d, "to_g_replayed")
        for d in ([] if self.storm_only else from_r1):
            self.send(R1_IP, rport, S_IP, sport, d, "to_s_replayed")
        self.at_sender(ses, rnd, sport, rport)
        self.at_group(ses, rnd, seq, sport)
        self.done.wait(PERIOD_S)

    def count(self, kind, before):
        return sum(1 for t, k in self.sent if k == kind and t <= before)


def stop(proc):
    if proc["proc"].poll() is None:
        netbed.interrupt(proc["proc"], timeout=3)
    proc["thread"].join(5)


def run(hosts, src_path, tmp, name, key, attack, timeout, storm_only=False):
    """One transfer: the receivers, then the sender; the attacker from the
    start. Returns a dict of what happened."""
    obs = Observer(hosts["r1"]) if attack else None
    rxs = []
    for i, h in enumerate((hosts["r1"], hosts["r2"])):
        out = os.path.join(tmp, f"{name}-r{i + 1}.bin")
        rxs.append(dict(start_receiver(h, i + 1, out, key), out=out))
    for rx in rxs:
        if not wait_started(rx):
            raise RuntimeError("a receiver did not start")
    att = Attacker(hosts["m"], obs, bool(key), storm_only) if attack else None
    t0 = time.monotonic()
    tx = start_sender(hosts["s"], src_path, key)
    try:
        tx["proc"].wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    ended = time.monotonic()
    for rx in rxs:
        try:
            rx["proc"].wait(timeout=max(0.1, t0 + timeout - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    if att:
        att.close()
        obs.close()
    for p in [tx] + rxs:
        stop(p)
    return dict(tx=tx, rxs=rxs, att=att, t0=t0, ended=ended)


def last(proc, element, name):
    m = messages(proc, element, name)
    return m[-1] if m else (0.0, {})


def num(fields, key):
    try:
        return int(float(fields.get(key, "0")))
    except ValueError:
        return 0


def within_rate(res):
    """The sender's DATA bytes against the rate at each stats message
    (elapsed since the CONN): the worst ratio, and the samples."""
    worst, n = 0.0, 0
    for _, st in messages(res["tx"], "rmtpsink0", "rmtp-sink-stats"):
        elapsed = num(st, "elapsed") / 1e9
        if elapsed < 0.5:
            continue
        sent = num(st, "data-sent") * DATA_WIRE * 8
        # the pacer's 20 ms credit and one packet may be ahead of the rate
        worst = max(worst, sent / (RATE * (elapsed + 0.02) + DATA_WIRE * 8))
        n += 1
    return worst, n


def summary(title, res, digest):
    done = last(res["tx"], "rmtpsink0", "rmtp-done")[1]
    st = last(res["tx"], "rmtpsink0", "rmtp-sink-stats")[1]
    same = [os.path.exists(rx["out"]) and hashlib.sha256(
        open(rx["out"], "rb").read()).hexdigest() == digest for rx in res["rxs"]]
    eos = [eos_time(rx) for rx in res["rxs"]]
    worst, n = within_rate(res)
    out = dict(done=done, stats=st, same=same, eos=eos, worst_rate=worst,
               rate_samples=n,
               seconds=float(done.get("seconds", "nan")) if done else None)
    print(f"{title}: sink {done or 'no rmtp-done'}; files identical {same}; "
          f"receivers to EOS " + " ".join(
              f"{t - res['t0']:.2f}s" if t else "none" for t in eos) +
          f"; sender DATA at most {worst:.3f} x the rate ({n} samples)")
    keys = ("rounds", "data-sent", "data-resent", "responses", "late",
            "duplicates", "forged", "nacks-overlapping", "slow-receivers",
            "auth-accepted", "auth-bad-tag", "auth-truncated",
            "auth-replayed", "auth-too-old")
    print("  sink: " + " ".join(f"{k}={st.get(k)}" for k in keys))
    for i, rx in enumerate(res["rxs"]):
        rs = last(rx, "rmtpsrc0", "rmtp-src-stats")[1]
        print(f"  r{i + 1}: " + " ".join(
            f"{k}={rs.get(k)}" for k in ("state", "nack-sent", "ack-sent",
                                         "polls-held", "late", "auth-accepted",
                                         "auth-bad-tag", "auth-truncated",
                                         "auth-replayed", "auth-too-old")))
    if res["att"]:
        print(f"  m sent: {dict(collections.Counter(k for _, k in res['att'].sent))}")
    return out


def check_counted(check, res):
    """Each verdict at each element counts at least what m sent MARGIN_S
    before the element's last stats, and no more than m sent."""
    att = res["att"]
    sides = [("sender", res["tx"], "rmtpsink0", "rmtp-sink-stats", "to_s_")]
    sides += [(f"r{i + 1}", rx, "rmtpsrc0", "rmtp-src-stats", "to_g_")
              for i, rx in enumerate(res["rxs"])]
    for who, proc, element, name, prefix in sides:
        t, st = last(proc, element, name)
        for kind, fields in (("forged", ("auth-bad-tag",)),
                             ("truncated", ("auth-truncated",)),
                             ("replayed", ("auth-replayed", "auth-too-old"))):
            low = att.count(prefix + kind, t - MARGIN_S)
            high = att.count(prefix + kind, t + 1)
            got = sum(num(st, f) for f in fields)
            # r2 takes once a replay of what went to r1 alone (a retry)
            check(f"key, attacker: the {who} counted m's {kind} datagrams",
                  low > 0 and low - 8 <= got <= high,
                  f"{got} counted; m sent {low} by {MARGIN_S} s before the "
                  f"last stats, {high} in all")


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    key = secrets.token_hex(32)
    tmp = tempfile.mkdtemp(prefix="rmtp-auth-")
    src_path = os.path.join(tmp, "in.bin")
    with open(src_path, "wb") as f:
        f.write(os.urandom(SIZE))
    digest = hashlib.sha256(open(src_path, "rb").read()).hexdigest()
    with netbed.NetBed() as bed:
        br = bed.bridge("br", snooping=False, querier=False)
        hosts = {n: bed.host(n) for n in ("s", "r1", "r2", "m")}
        for n, ip in zip(hosts, (S_IP, R1_IP, R2_IP, M_IP)):
            bed.attach(hosts[n], br, f"{ip}/24")
        base = run(hosts, src_path, tmp, "base", key, False, TIMEOUT)
        b = summary("key, no attacker", base, digest)
        keyed = run(hosts, src_path, tmp, "keyed", key, True, TIMEOUT)
        k = summary("key, attacker", keyed, digest)
        plain = run(hosts, src_path, tmp, "plain", None, True, TIMEOUT)
        a = summary("no key, attacker", plain, digest)
        storm = run(hosts, src_path, tmp, "storm", None, True, TIMEOUT,
                    storm_only=True)
        p = summary("no key, NACK and POLL storm", storm, digest)

    check("baseline: both receivers have the file", all(b["same"]),
          f"{b['same']}")
    check("key, attacker: the transfer completes, both files identical",
          k["done"].get("receivers-complete") == "2" and all(k["same"]),
          f"rmtp-done {k['done']}, identical {k['same']}")
    check("key, attacker: about as long as without m",
          k["seconds"] is not None and b["seconds"] is not None and
          k["seconds"] <= 1.3 * b["seconds"] + 0.5,
          f"{k['seconds']} s against {b['seconds']} s")
    check("key, attacker: nothing resent, nobody set aside",
          num(k["stats"], "data-resent") == 0 and
          num(k["stats"], "slow-receivers") == 0 and
          num(k["stats"], "nacks-overlapping") == 0, f"{k['stats']}")
    for title, r in (("key, attacker", k), ("no key, attacker", a),
                     ("no key, storm", p)):
        check(f"{title}: the sender's DATA within its rate",
              r["rate_samples"] > 0 and r["worst_rate"] <= 1.0,
              f"at most {r['worst_rate']:.3f} x {RATE} bit/s over "
              f"{r['rate_samples']} samples")
    check_counted(check, keyed)
    check("no key, attacker: the forged BUSY sets r1 aside",
          num(a["stats"], "slow-receivers") >= 1,
          f"slow-receivers {a['stats'].get('slow-receivers')}, late "
          f"{a['stats'].get('late')}")
    check("no key, storm: the forged NACKs make the sender resend the "
          "whole set at least once, and take longer than the baseline",
          num(p["stats"], "data-resent") >= N_PACKETS and
          num(p["stats"], "nacks-overlapping") > 0 and
          (p["seconds"] is None or p["seconds"] > 1.5 * b["seconds"]),
          f"rmtp-done {p['done'] or 'none'}, data-resent "
          f"{p['stats'].get('data-resent')}, rounds "
          f"{p['stats'].get('rounds')}, slow-detected "
          f"{p['stats'].get('slow-detected')}, nacks-overlapping "
          f"{p['stats'].get('nacks-overlapping')}")
    answers = [num(last(rx, "rmtpsrc0", "rmtp-src-stats")[1], "nack-sent") +
               num(last(rx, "rmtpsrc0", "rmtp-src-stats")[1], "ack-sent")
               for rx in storm["rxs"]]
    span = storm["ended"] - storm["t0"]
    check("no key, storm: each receiver answers at most once per tat (100 ms)",
          all(0 < n <= span * 10 + 2 for n in answers),
          f"answers {answers} in {span:.1f} s; m sent "
          f"{storm['att'].count('to_g_truncated', float('inf'))} POLLs")
    print(f"RESULT base_s={b['seconds']} key_attack_s={k['seconds']} "
          f"key_rate={k['worst_rate']:.3f} nokey_all_s={a['seconds']} "
          f"nokey_storm_s={p['seconds']} "
          f"nokey_rounds={p['stats'].get('rounds')} "
          f"nokey_resent={p['stats'].get('data-resent')} "
          f"nokey_rate={p['worst_rate']:.3f}")
    shutil.rmtree(tmp)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
