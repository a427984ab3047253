#!/usr/bin/env python3
"""RLM media over SRTP (issue 21): a sender (x264layerenc, 4 layers,
rlmsink), a receiver r1 with the sender's SRTP key, a receiver r2 with
another key, and a third host m without the key, on one bridge.

m reads the base layer's packets (their headers, the layer extension
included, are in the clear under SRTP) and every 100 ms sends a forged
packet "from the source": the last real header with the next RTP sequence
number and a layer sequence number LEAP ahead of the last real or forged
one, and a random payload. To a receiver that takes it, LEAP - 1 packets of
the base layer look lost each time.

Two runs of RUN_S seconds, the receivers started anew, with join timers and
detection times short enough to climb 4 levels in a few seconds:
  1. SRTP: r1 climbs to level 4 and drops no layer; every forged packet is
     counted (srtp-auth-failed, or srtp-replayed when its RTP sequence
     number was already seen: libsrtp checks the index first) and none
     counts as loss. r2 (wrong key)
     outputs nothing and counts every packet as srtp-auth-failed.
  2. no SRTP (sender and r1 without a key): the effect is documented: the
     forged packets are taken as the source's, the base layer loses
     thousands of packets in r1's eyes and every join-experiment fails, so
     r1 stays below level 4 (at level 1 in the runs made here).
"""
import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_rlm_auth as auth  # noqa: E402
import test_rlm_single as rlm  # noqa: E402

RUN_S = 9
PERIOD_S = 0.1
LEAP = 40
EXT_ID = 6
BASE, PORT, LAYERS = rlm.BASE, rlm.PORT, rlm.LAYERS
KEY = "c0ffee" + "00112233445566778899aabbccddeeff00112233445566778899aa"
OTHER_KEY = "0bad" + "00112233445566778899aabbccddeeff00112233445566778899aabb"


def start_sender(host, key):
    return auth.start_sender(host, f"&srtp-key={key}" if key else "")


def start_receiver(host, key):
    return auth.start_receiver(host, key, "srtp-key")


def layer_ext(pkt):
    """(offset of the layer element's data, layer, layer seq) or None."""
    if len(pkt) < 12 or pkt[0] >> 6 != 2 or not pkt[0] & 0x10:
        return None
    off = 12 + 4 * (pkt[0] & 0x0f)
    if len(pkt) < off + 4:
        return None
    profile, words = struct.unpack_from(">HH", pkt, off)
    end = off + 4 + 4 * words
    i = off + 4
    while profile == 0xBEDE and i < min(end, len(pkt)):
        if pkt[i] == 0:
            i += 1
            continue
        eid, n = pkt[i] >> 4, (pkt[i] & 0x0f) + 1
        if eid == EXT_ID and n == 3 and i + 4 <= len(pkt):
            return i + 1, pkt[i + 1], struct.unpack_from(">H", pkt, i + 2)[0]
        i += 1 + n
    return None


class Attacker(auth.GroupHost):
    """Host m: keeps the newest base-layer header it hears and sends a
    forged packet with the layer sequence LEAP ahead every PERIOD_S."""

    def __init__(self, host):
        super().__init__(host, 0.01)
        self.last = None
        self.lseq = None                # the last forged layer sequence
        self.sent = 0
        self.t.start()

    def capture(self):
        data = self.receive(65536)
        ext = data and layer_ext(data)
        if ext and ext[1] == 0:
            self.last = (data, ext)

    def forge(self):
        data, (at, _, lseq) = self.last
        hdr = bytearray(data[:at + 3])
        seq = struct.unpack_from(">H", hdr, 2)[0]
        if self.lseq is not None and ((self.lseq - lseq) & 0xffff) < 0x8000:
            lseq = self.lseq
        self.lseq = (lseq + LEAP) & 0xffff
        struct.pack_into(">H", hdr, 2, (seq + 1) & 0xffff)
        struct.pack_into(">H", hdr, at + 1, self.lseq)
        hdr += bytes(random.getrandbits(8) for _ in range(120))
        self.sock.sendto(bytes(hdr), (BASE, PORT))
        self.sent += 1

    def run(self):
        next_t = time.monotonic()
        while not self.stop:
            self.capture()
            if self.last and time.monotonic() >= next_t:
                self.forge()
                next_t += PERIOD_S


def run(receivers, attacker_host):
    """One run: the receivers ({name: (host, key)}) for RUN_S s; returns
    ({name: (levels, last stats)}, forged packets sent)."""
    att = Attacker(attacker_host)
    t0 = time.monotonic()
    rxs = {n: start_receiver(h, k) for n, (h, k) in receivers.items()}
    time.sleep(RUN_S)
    att.close()
    return auth.finish(rxs, t0), att.sent


FIELDS = ("level", "drops", "layer-lost", "layer-received", "pushed",
          "srtp-accepted", "srtp-auth-failed", "srtp-replayed",
          "srtp-malformed")


def show(title, res, sent):
    print(f"{title}: attacker sent {sent} forged packets")
    for n, (lv, f) in res.items():
        print(f"  {n}: levels {lv}")
        print("     " + " ".join(f"{k}={f.get(k)}" for k in FIELDS))


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    with netbed.NetBed() as bed:
        br = bed.bridge("br", snooping=False, querier=False)
        snd, m = bed.host("s"), bed.host("m")
        r1, r2 = bed.host("r1"), bed.host("r2")
        bed.attach(snd, br, "10.77.6.1/24")
        bed.attach(m, br, "10.77.6.66/24")
        bed.attach(r1, br, "10.77.6.10/24")
        bed.attach(r2, br, "10.77.6.11/24")
        tx = start_sender(snd, KEY)
        time.sleep(1)
        keyed, sent_k = run({"r1": (r1, KEY), "r2": (r2, OTHER_KEY)}, m)
        show("SRTP, attacker", keyed, sent_k)
        rlm.stop(tx)
        tx = start_sender(snd, None)
        time.sleep(1)
        plain, sent_p = run({"r1": (r1, None)}, m)
        show("no SRTP, attacker", plain, sent_p)
        rlm.stop(tx)

    lv, f = keyed["r1"]
    check("the attacker forged packets (SRTP run)", sent_k > 30, str(sent_k))
    check("r1: level 4 with SRTP under the attack",
          f.get("level") == 4, f"levels {lv}")
    check("r1: no layer dropped", f.get("drops") == 0, str(f.get("drops")))
    refused = f.get("srtp-auth-failed", 0) + f.get("srtp-replayed", 0)
    check("r1: the forged packets counted (auth-failed or replayed)",
          refused >= 0.8 * sent_k,
          f"{f.get('srtp-auth-failed')} auth-failed + "
          f"{f.get('srtp-replayed')} replayed of {sent_k}")
    check("r1: none taken as loss of the base layer",
          (f.get("layer-lost") or [LEAP])[0] < LEAP,
          f"layer-lost {f.get('layer-lost')}")
    check("r1: media came out", f.get("pushed", 0) > 50 and
          f.get("srtp-accepted", 0) >= f.get("pushed", 0),
          f"pushed {f.get('pushed')}, accepted {f.get('srtp-accepted')}")
    _, f2 = keyed["r2"]
    check("r2 (another key): outputs nothing, counts every packet",
          f2.get("pushed") == 0 and f2.get("srtp-accepted") == 0 and
          f2.get("srtp-auth-failed", 0) > 100,
          f"pushed {f2.get('pushed')}, auth-failed "
          f"{f2.get('srtp-auth-failed')}")
    lv_p, f_p = plain["r1"]
    check("no SRTP: the forged packets count as loss and hold r1 down",
          f_p.get("level", 4) < 4 and (f_p.get("layer-lost") or [0])[0] >=
          LEAP, f"level {f_p.get('level')}, drops {f_p.get('drops')}, "
          f"layer-lost {f_p.get('layer-lost')}, levels {lv_p}")
    print(f"RESULT srtp_level={f.get('level')} srtp_drops={f.get('drops')} "
          f"srtp_refused={refused} forged={sent_k} "
          f"plain_level={f_p.get('level')} plain_drops={f_p.get('drops')}")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
