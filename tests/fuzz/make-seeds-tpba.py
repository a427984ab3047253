#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-tpba: a flow switching between UDP and TCP,
with receiver and sender reports and time steps."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "tpba")


def rtp(seq, marker, ts, payload=b"\x00" * 40):
    return struct.pack(">BBHII", 0x80, (0x80 if marker else 0) | 96, seq & 0xFFFF, ts,
                       0x5678) + payload


def rr(ssrc, src, frac, cum, ext, jitter, lsr, dlsr):
    block = struct.pack(">IIIIII", src, (frac << 24) | (cum & 0xFFFFFF), ext, jitter, lsr, dlsr)
    return struct.pack(">BBHI", 0x81, 201, 7, ssrc) + block


def sr(ssrc, ntp, ts, pc, oc):
    return struct.pack(">BBHIQIII", 0x80, 200, 6, ssrc, ntp, ts, pc, oc)


def pli(sender, media):
    return struct.pack(">BBHII", 0x81, 206, 2, sender, media)


def token_app(ssrc, token):
    return struct.pack(">BBHI4sQ", 0x80, 204, 4, ssrc, b"TPBA", token)


def rec(op, data):
    return bytes([op]) + struct.pack(">H", len(data)) + data


def main():
    os.makedirs(OUT, exist_ok=True)
    flow = b""
    for i in range(60):
        transport = 1 if 20 <= i < 40 else 0
        if i % 7 != 3:
            flow += rec(transport, rtp(65500 + i, i % 4 == 3, 3000 * (i // 4)))
        if i % 10 == 9:
            flow += rec(4, b"")
    seeds = {
        "switching-flow": bytes([0]) + flow,
        "reports": bytes([1]) + rec(2, sr(0x5678, 1 << 32, 9000, 10, 400)) +
        rec(3, rr(0x1234, 0x5678, 26, 5, 65560, 30, 0x10000, 655)) + rec(10, b"") + flow[:400],
        "lda": bytes([2]) + flow + rec(3, rr(0x1234, 0x5678, 0, 0, 65560, 2, 0x10000, 10)),
        # a late joiner: PLIs reduced-size and in a compound, repeats inside the
        # hold-off, a key-unit request, the sink's token in its SR
        "key-units": bytes([0]) + rec(2, sr(0x5678, 1 << 32, 9000, 10, 400) +
                                      token_app(0x5678, 0x0123456789ABCDEF)) +
        flow[:200] + rec(3, pli(0x1234, 0x5678)) + rec(3, pli(0x1234, 0x5678)) +
        rec(10, b"") + rec(4, b"") + rec(5, b"") + rec(4, b"") +
        rec(3, rr(0x1234, 0x5678, 0, 0, 65560, 2, 0, 0) + pli(0x1234, 0x5678)) +
        rec(3, pli(0x1234, 0x5678)[:8]),
        # with the group key (bit 0x80): every RTCP chunk raw, then sealed
        "keyed": bytes([0x80]) + rec(2, sr(0x5678, 1 << 32, 9000, 10, 400) +
                                     token_app(0x5678, 0x0123456789ABCDEF)) +
        flow[:300] + rec(3, pli(0x1234, 0x5678)) +
        rec(3, rr(0x1234, 0x5678, 26, 5, 65560, 30, 0x10000, 655)) +
        rec(2, token_app(0x5678, 1) + bytes(24)) + rec(4, b"") + rec(10, b""),
    }
    for name, body in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(body)


if __name__ == "__main__":
    main()
