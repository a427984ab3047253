#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-tpss-fec: protected streams with losses."""
import os
import random
import struct
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "tpss-fec")


def rtp(seq, payload_len, rng):
    cc = rng.choice([0, 0, 1, 2])
    ext = rng.random() < 0.3
    pad = rng.choice([0, 0, 0, 3])
    hdr = bytes([0x80 | (0x20 if pad else 0) | (0x10 if ext else 0) | cc,
                 (0x80 if rng.random() < 0.2 else 0) | 96])
    hdr += struct.pack(">HII", seq & 0xFFFF, seq * 3000, 0x1234)
    hdr += b"".join(struct.pack(">I", c) for c in range(cc))
    if ext:
        hdr += struct.pack(">HH", 0xBEDE, 1) + b"\x10\x01\x00\x00"
    body = bytes(rng.randrange(256) for _ in range(payload_len))
    if pad:
        body += b"\x00" * (pad - 1) + bytes([pad])
    return hdr + body


def record(op, data):
    return bytes([op]) + struct.pack(">H", len(data)) + data


def seed(k, l, n, loss, start, rng):
    out = bytes([(k - 1) | (l << 5)])
    for i in range(n):
        op = 4 if rng.random() < loss else 3
        out += record(op, rtp(start + i, rng.randrange(0, 300), rng))
        if rng.random() < 0.1:
            out += record(2, b"")
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(1)
    cases = [(4, 3, 40, 0.1, 0), (2, 2, 20, 0.3, 65530), (8, 1, 30, 0.2, 100),
             (1, 6, 25, 0.1, 7), (3, 5, 60, 0.05, 40000)]
    for i, (k, l, n, loss, start) in enumerate(cases):
        with open(os.path.join(OUT, f"seed-{i}"), "wb") as f:
            f.write(seed(k, l, n, loss, start, rng))
    print(f"wrote {len(cases)} seeds to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
