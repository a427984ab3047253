#!/usr/bin/env python3
"""TPBA's control plane under attack (issue 21): a sender s (tpbasink), a
receiver r (tpbasrc) and a host without the key, m, on one bridge.

The sender runs mode=lda with bottleneck b = r_0 = 1 Mbit/s: without loss
reports its rate stays at b, and every adaptation point (T_adapt 500 ms)
that sees loss in the RRs cuts it, down to r_min (10 kbit/s). The stream
is 8 kHz L16 audio, about 133 kbit/s, so a rate cut below that empties
the receiver's stream into the sender's queue drops.

An observer in r's namespace (a packet socket; it stands in for anyone on
the path) captures the receiver's RRs and PLI, the sender's SRs and the
first bytes of the sender's TCP connection (its token message). m then
sends, every 50 ms, with the source address of the peer it imitates
(raw IP, so the elements' host checks pass):
  - to the sender: an RR reporting that every packet was lost (forged,
    about the sender's SSRC, which m knows as anyone on the path would),
    a PLI (forged), the last captured RR and PLI (replayed) and, in the
    keyed run, an RR with 24 random trailer bytes;
  - to the receiver: the last captured SR (replayed) and, in the keyed
    run, an SR of m's own making with a token APP packet of a random
    token (forged; the receiver takes its token from the first RTCP that
    opens, so a forged one must not be that).
Once, a process on the sender's host without the key connects to the
receiver's TCP port and presents the captured token message.

Three runs of RUN_S seconds: key without m (baseline), key with m, no key
with m. With the key the sender's rate, its reductions and the receiver's
stream are as in the baseline and every forged or replayed packet is
counted by its verdict; without it the effect is documented: the rate at
r_min, key units asked for, the probing connection taken over.
"""
import os
import secrets
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

RUN_S = 8
ATTACK_AT = 1.5               # s after the sender starts
TOKEN_REPLAY_AT = 4.0
PERIOD_S = 0.05
PORT, RTCP_PORT = 5004, 5005
SSRC = 0x5EED0001
S_IP, R_IP, M_IP = "10.77.6.1", "10.77.6.2", "10.77.6.66"
RATE = 1_000_000
CAPS = ("application/x-rtp,media=audio,clock-rate=8000,encoding-name=L16,"
        "channels=1,payload=96")


def gst(cmd):
    return ["sh", "-c", "exec gst-launch-1.0 -m -e " + cmd]


def start_sender(host, key):
    k = f" key={key}" if key else ""
    p = host.popen(gst(
        "audiotestsrc is-live=true samplesperbuffer=160 ! "
        "audio/x-raw,format=S16BE,rate=8000,channels=1 ! "
        f"rtpL16pay pt=96 ssrc={SSRC} ! "
        f"tpbasink name=snk host={R_IP} port={PORT} mode=lda r-0={RATE} "
        f"bottleneck={RATE} t-adapt=500000000 max-queue-bytes=8000 "
        f"stats-interval=250000000{k}"),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out, t = netbed.timed_lines(p.stdout)
    return dict(proc=p, out=out, thread=t)


def start_receiver(host, key):
    k = f" key={key}" if key else ""
    p = host.popen(gst(
        f"tpbasrc name=src port={PORT} t-rtcp=250000000 "
        f"stats-interval=250000000 caps=\"{CAPS}\"{k} ! "
        "fakesink sync=false async=false"),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out, t = netbed.timed_lines(p.stdout)
    return dict(proc=p, out=out, thread=t)


def stats(proc, element):
    """The element's tpba-stats messages, numbers as ints or floats."""
    text = "\n".join(line for _, line in proc["out"])
    out = []
    for m in netbed.element_messages(text, element, "tpba-stats"):
        f = {}
        for k, v in m.items():
            try:
                f[k] = int(v)
            except ValueError:
                try:
                    f[k] = float(v)
                except ValueError:
                    f[k] = v
        out.append(f)
    return out


class Observer:
    """A packet socket in r's namespace: the last RR, PLI and SR between s
    and r, the sink's RTCP port and the first TCP bytes towards r."""

    def __init__(self, host, token_len):
        # ETH_P_ALL: a protocol-bound packet socket misses outgoing frames
        self.sock = host.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                socket.htons(0x0003))
        self.sock.settimeout(0.1)
        self.token_len = token_len
        self.rr = self.pli = self.sr = self.token = None
        self.sink_port = None
        self.on_rr = None             # called on each real RR seen
        self.forged = set()           # m's own SRs, not to be captured
        self.stop = False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def take(self, frame):
        ip = frame[14:]
        if frame[12:14] != b"\x08\x00" or len(ip) < 20 or ip[0] >> 4 != 4:
            return
        ihl = (ip[0] & 15) * 4
        proto, src, dst = ip[9], socket.inet_ntoa(ip[12:16]), \
            socket.inet_ntoa(ip[16:20])
        body = ip[ihl:struct.unpack("!H", ip[2:4])[0]]
        if proto == 17 and len(body) >= 10:
            sport, dport = struct.unpack("!HH", body[:4])
            data = body[8:]
            if src == R_IP and sport == RTCP_PORT:
                self.sink_port = dport
                if data[1] == 201:
                    self.rr = data
                    if self.on_rr:
                        self.on_rr()
                elif data[1] == 206:
                    self.pli = data
            elif (dst == R_IP and dport == RTCP_PORT and data[1] == 200 and
                  data not in self.forged):
                self.sr = (data, sport)
        elif proto == 6 and dst == R_IP and self.token is None:
            sport, dport = struct.unpack("!HH", body[:4])
            data = body[(body[12] >> 4) * 4:]
            if dport == PORT and len(data) >= self.token_len:
                self.token = data[:self.token_len]

    def run(self):
        while not self.stop:
            try:
                self.take(self.sock.recv(65536))
            except (socket.timeout, OSError):
                pass

    def close(self):
        self.stop = True
        self.t.join(2)


def ip_udp(src, sport, dst, dport, payload):
    """An IPv4/UDP datagram (the kernel fills in the IP checksum and id; a
    zero UDP checksum means none)."""
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17,
                       0, socket.inet_aton(src), socket.inet_aton(dst)) + udp


def loss_rr(k):
    """An RR about SSRC reporting every packet since the last one lost:
    extended highest sequence and cumulative lost both grow by 1000."""
    return struct.pack(">BBHI", 0x81, 201, 7, 0xBADC0DE) + struct.pack(
        ">IIIIII", SSRC, (255 << 24) | (1000 * k), 0x100000 + 1000 * k, 0,
        0, 0)


def pli():
    return struct.pack(">BBHII", 0x81, 206, 2, 0xBADC0DE, SSRC)


def forged_sr(k):
    """An SR from SSRC (no report blocks) with a token APP packet (PT 204,
    subtype 0, name TPBA) carrying a random token: docs/protocols/tpba.md."""
    sr = struct.pack(">BBHIIIIII", 0x80, 200, 6, SSRC, 0xE0000000 + k, 0,
                     8000 * k, 100 * k, 32000 * k)
    app = struct.pack(">BBHI4s", 0x80, 204, 4, SSRC, b"TPBA")
    return sr + app + secrets.token_bytes(8)


class Attacker:
    """Host m: spoofed forged and replayed RTCP every PERIOD_S."""

    def __init__(self, host, obs, keyed):
        self.sock = host.socket(socket.AF_INET, socket.SOCK_RAW,
                                socket.IPPROTO_RAW)
        self.obs, self.keyed = obs, keyed
        self.sent = dict(forged_rr=0, forged_pli=0, bad_trailer=0,
                         replayed_to_sink=0, replayed_to_src=0,
                         forged_to_src=0)
        self.k = 0
        self.stop = False
        # a forged RR right behind every real one as well: the receiver's
        # RRs (every 250 ms) and the adaptation points (every 500 ms) keep
        # one phase for a whole run, and the RR the sender sees last before
        # a point must be a forged one for its loss to count in full
        obs.on_rr = self.forge_rr
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def forge_rr(self):
        if self.stop or self.obs.sink_port is None:
            return
        self.k += 1
        self.to_sink(loss_rr(self.k), "forged_rr")

    def to_sink(self, payload, kind):
        self.sock.sendto(ip_udp(R_IP, RTCP_PORT, S_IP, self.obs.sink_port,
                                payload), (S_IP, 0))
        self.sent[kind] += 1

    def once(self):
        o = self.obs
        if o.sink_port is None:
            return
        self.k += 1
        # the replayed real RR first: the forged one must be the last RR
        # the sender sees before an adaptation point to set its loss
        for captured in (o.rr, o.pli):
            if captured:
                self.to_sink(captured, "replayed_to_sink")
        self.to_sink(pli(), "forged_pli")
        if self.keyed:
            self.to_sink(loss_rr(self.k) + secrets.token_bytes(24),
                         "bad_trailer")
        self.to_sink(loss_rr(self.k), "forged_rr")
        if o.sr:
            data, sport = o.sr
            self.sock.sendto(ip_udp(S_IP, sport, R_IP, RTCP_PORT, data),
                             (R_IP, 0))
            self.sent["replayed_to_src"] += 1
            if self.keyed:
                forged = forged_sr(self.k)
                o.forged.add(forged)
                self.sock.sendto(ip_udp(S_IP, sport, R_IP, RTCP_PORT,
                                        forged), (R_IP, 0))
                self.sent["forged_to_src"] += 1

    def run(self):
        while not self.stop:
            self.once()
            time.sleep(PERIOD_S)

    def close(self):
        self.stop = True
        self.obs.on_rr = None
        self.t.join(2)


def replay_token(host, token):
    """A process on the sender's host presents the captured token message;
    True if the receiver kept the connection open for a second."""
    if token is None:
        return None
    s = host.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(1.0)
    try:
        s.connect((R_IP, PORT))
        s.sendall(token)
        return s.recv(16) != b""
    except socket.timeout:
        return True
    except OSError:
        return False
    finally:
        s.close()


def run(snd, rcv, m, key, attack):
    """One run; returns (sink stats, src stats, attacker counts, token
    replay kept)."""
    obs = Observer(rcv, 32 if key else 8)
    rx = start_receiver(rcv, key)
    time.sleep(0.5)
    tx = start_sender(snd, key)
    t0 = time.monotonic()
    att, kept = None, None
    if attack:
        time.sleep(ATTACK_AT)
        att = Attacker(m, obs, bool(key))
        time.sleep(max(0.0, t0 + TOKEN_REPLAY_AT - time.monotonic()))
        kept = replay_token(snd, obs.token)
    time.sleep(max(0.0, t0 + RUN_S - time.monotonic()))
    if att:
        att.close()
    obs.close()
    netbed.interrupt(tx["proc"])
    netbed.interrupt(rx["proc"])
    for p in (tx, rx):
        p["thread"].join(5)
    sent = dict(att.sent) if att else None
    return stats(tx, "snk"), stats(rx, "src"), sent, kept


SINK_FIELDS = ("rate", "reductions", "p-loss", "rtcp-received",
               "pli-received", "key-unit-requests", "dropped-packets",
               "packets-udp", "tcp-failures", "auth-accepted",
               "auth-truncated", "auth-bad-tag", "auth-replayed")
SRC_FIELDS = ("sender-ssrc", "delivered", "skipped", "tcp-accepted", "tcp-refused",
              "tcp-bad-token", "foreign", "auth-accepted", "auth-bad-tag",
              "auth-replayed")


def min_rate(snk):
    return min((s["rate"] for s in snk if "rate" in s), default=0)


def show(title, res):
    snk, src, sent, kept = res
    print(f"{title}: attacker sent {sent}, token replay kept: {kept}")
    if snk:
        print("  sink: " + " ".join(f"{k}={snk[-1].get(k)}"
                                    for k in SINK_FIELDS))
        print(f"  sink rate over the run: min {min_rate(snk)} last "
              f"{snk[-1].get('rate')}")
    if src:
        print("  src:  " + " ".join(f"{k}={src[-1].get(k)}"
                                    for k in SRC_FIELDS))


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    key = secrets.token_hex(32)
    with netbed.NetBed() as bed:
        br = bed.bridge("br", snooping=False, querier=False)
        snd, rcv, m = bed.host("s"), bed.host("r"), bed.host("m")
        bed.attach(snd, br, f"{S_IP}/24")
        bed.attach(rcv, br, f"{R_IP}/24")
        bed.attach(m, br, f"{M_IP}/24")
        base = run(snd, rcv, m, key, False)
        show("key, no attacker", base)
        keyed = run(snd, rcv, m, key, True)
        show("key, attacker", keyed)
        plain = run(snd, rcv, m, None, True)
        show("no key, attacker", plain)

    last = [r[0][-1] if r[0] else {} for r in (base, keyed, plain)]
    src = [r[1][-1] if r[1] else {} for r in (base, keyed, plain)]
    mins = [min_rate(r[0]) for r in (base, keyed, plain)]
    b, k, p = last
    sent_k, sent_p = keyed[2], plain[2]

    check("baseline: the rate stays at b", mins[0] == RATE and
          b.get("reductions") == 0, f"min {mins[0]}")
    check("key, attacker: the rate stays at b, no reduction",
          mins[1] == RATE and k.get("reductions") == 0,
          f"min {mins[1]}, reductions {k.get('reductions')}")
    check("key, attacker: the stream as in the baseline",
          src[1].get("delivered", 0) >= 0.9 * src[0].get("delivered", 1) and
          src[1].get("skipped", 0) <= src[0].get("skipped", 0) + 1,
          f"delivered {src[1].get('delivered')} (baseline "
          f"{src[0].get('delivered')}), skipped {src[1].get('skipped')}")
    check("key, attacker: no key unit asked for",
          k.get("key-unit-requests", 0) <= b.get("key-unit-requests", 0),
          f"{k.get('key-unit-requests')} (baseline "
          f"{b.get('key-unit-requests')})")
    want = {"auth-truncated": sent_k["forged_pli"],
            "auth-bad-tag": sent_k["forged_rr"] + sent_k["bad_trailer"],
            "auth-replayed": sent_k["replayed_to_sink"]}
    for f, n in want.items():
        check(f"key, attacker: the sink counted them ({f})",
              n > 0 and k.get(f, 0) >= 0.9 * n, f"{k.get(f)} of {n} sent")
    check("key, attacker: the source counted the replayed SRs",
          sent_k["replayed_to_src"] > 0 and src[1].get("auth-replayed", 0) >=
          0.9 * sent_k["replayed_to_src"] + 1,
          f"{src[1].get('auth-replayed')} (SRs {sent_k['replayed_to_src']} "
          "+ the token message)")
    check("key, attacker: the source counted the forged SRs (bad tag)",
          sent_k["forged_to_src"] > 0 and
          0.9 * sent_k["forged_to_src"] <= src[1].get("auth-bad-tag", 0) <=
          sent_k["forged_to_src"] and src[0].get("auth-bad-tag", 1) == 0,
          f"{src[1].get('auth-bad-tag')} of {sent_k['forged_to_src']} sent "
          f"(baseline {src[0].get('auth-bad-tag')})")
    check("key, attacker: the captured token message refused as a replay",
          keyed[3] is False and src[1].get("tcp-bad-token") == 1 and
          src[1].get("tcp-accepted") == 1,
          f"kept {keyed[3]}, tcp-bad-token {src[1].get('tcp-bad-token')}, "
          f"tcp-accepted {src[1].get('tcp-accepted')}")

    check("no key: the forged RRs cut the rate to r_min",
          mins[2] < RATE / 10 and p.get("reductions", 0) >= 1,
          f"min {mins[2]}, reductions {p.get('reductions')}")
    check("no key: the forged PLIs asked for key units",
          p.get("key-unit-requests", 0) >= 5,
          f"{p.get('key-unit-requests')} of {sent_p['forged_pli']} PLIs")
    check("no key: the stream starved (queue drops)",
          src[2].get("delivered", 0) < 0.8 * src[0].get("delivered", 1),
          f"delivered {src[2].get('delivered')} (baseline "
          f"{src[0].get('delivered')}), sender dropped "
          f"{p.get('dropped-packets')}")
    # the sink, cut off, reconnects at once and takes the connection back
    check("no key: the captured token took over the probing connection",
          src[2].get("tcp-accepted", 0) >= 2 and
          p.get("tcp-failures", 0) >= 1,
          f"tcp-accepted {src[2].get('tcp-accepted')}, sink tcp-failures "
          f"{p.get('tcp-failures')}")
    print(f"RESULT key_min_rate={mins[1]} no_key_min_rate={mins[2]} "
          f"key_delivered={src[1].get('delivered')} "
          f"base_delivered={src[0].get('delivered')} "
          f"no_key_delivered={src[2].get('delivered')}")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
