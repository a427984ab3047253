#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-tpss-msg: valid control messages of every
type (layouts in docs/protocols/tpss.md), PLIs (RFC 4585), data, queueing
and time steps."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "tpss-msg")
A, B, C = 0x11111111, 0x22222222, 0x33333333


def app(typ, sender, media, body):
    length = (12 + 4 + len(body)) // 4 - 1
    return struct.pack(">BBHI4sI", 0x80 | typ, 204, length, sender, b"TPSS", media) + body


def qos(sender, d, tt, ht):
    return app(1, sender, sender, struct.pack(">III", d, tt, ht))


def rate(sender, media, bps, assign, echo, delay, seq):
    return app(2, sender, media, struct.pack(">QIIIII", bps, 0x80000000 if assign else 0, 0,
                                             echo, delay, seq))


def report(sender, dest, ntp, rtt, rseq, s, d, phase, k, l):
    return app(3, sender, sender, struct.pack(">IIIIQQBBBB", dest, ntp, rtt, rseq, s, d,
                                              phase, k, l, 0))


def hello(sender, ntp):
    return app(4, sender, sender, struct.pack(">II", ntp, sender))


def pli(sender, media):
    return struct.pack(">BBHII", 0x81, 206, 2, sender, media)


def rec(op, data):
    return bytes([op]) + struct.pack(">H", len(data)) + data


def main():
    os.makedirs(OUT, exist_ok=True)
    rr = struct.pack(">BBHI", 0x80, 201, 1, B)     # an empty RR before ours
    seeds = {
        "hello-qos": rec(0, hello(B, 1) + qos(B, 3000, 2400, 100000)) +
        rec(1, struct.pack(">I", B) + b"x" * 100) + rec(2, struct.pack(">I", 30)),
        "report-rate": rec(0, report(B, A, 7, 6553, 0, 15_000_000, 10_000_000, 0, 20, 5)) +
        rec(0, rr + rate(B, A, 14_400_000, False, 7, 100, 1)) +
        rec(0, rate(B, A, 15_000_000, True, 7, 100, 2)) + rec(2, struct.pack(">I", 1500)),
        "queue": b"".join(rec(3, struct.pack(">I", 1200 + i)) + rec(2, struct.pack(">I", 5))
                          for i in range(30)),
        "overload": rec(0, qos(B, 60000, 6000, 1000) + qos(C, 50000, 5000, 1000)) +
        b"".join(rec(1, struct.pack(">I", B if i % 3 else C) + b"y" * 900) for i in range(40)) +
        rec(2, struct.pack(">I", 20)),
        "pli": rec(0, rr + pli(B, A)) + rec(0, hello(C, 2) + pli(C, A) + pli(C, B)) +
        rec(0, struct.pack(">BBHI", 0x81, 206, 1, B)) + rec(2, struct.pack(">I", 10)),
    }
    for cfg, (name, body) in enumerate(seeds.items()):
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(bytes([cfg * 3 % 16]) + body)
    # keyed (config 0x80): op 0x10 sealed by a member, op 0 a stranger's
    keyed = rec(0x10, hello(B, 1) + qos(B, 3000, 2400, 100000)) + rec(0, hello(C, 2)) + \
        rec(0x10, report(B, A, 7, 6553, 0, 15_000_000, 10_000_000, 0, 20, 5)) + \
        rec(0x10, rate(B, A, 15_000_000, True, 7, 100, 2)) + rec(0, rate(B, A, 8000, False, 0, 0, 9)) + \
        rec(0x10, b"") + rec(2, struct.pack(">I", 1500))
    with open(os.path.join(OUT, "keyed"), "wb") as f:
        f.write(bytes([0x80]) + keyed)


if __name__ == "__main__":
    main()
