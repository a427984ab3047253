#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-rmtp-stream: a whole stream of six
windows pushed in pieces with time steps between them, the same with lost
exchanges and with repair by parity (the first byte's bit 7), a stream
ended early, with a forged window CONN to the receiver, and a DROP of
window 1 to the receiver after window 0 (layouts in
docs/protocols/rmtp.md)."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "rmtp-stream")


def rec(op, data):
    return bytes([op]) + struct.pack(">H", len(data)) + data


def step(ms, lost=False):
    return rec(2 | (4 if lost else 0), struct.pack(">I", ms))


def push(n, end=False):
    return rec(3 | (4 if end else 0), struct.pack(">I", n))


def whole(lost_every=0):
    out = b""
    for i in range(14):
        out += push(500, end=i == 13)
        for j in range(16 if i < 13 else 40):
            out += step(40, lost=bool(lost_every) and j % lost_every == 1)
    return out


def forged_window_conn():
    hdr = struct.pack(">HBBI", 0x524D, 1, 1, 0x5E55 + 1)
    body = struct.pack(">QIIIIII", 1000, 256, 4, 2000, 6000, 32, 0) + bytes(32)
    body += struct.pack(">II", 1, 101) + struct.pack(">IQB", 1, 1000, 0)
    return rec(1, hdr + body)


def drop(window):
    hdr = struct.pack(">HBBI", 0x524D, 1, 14, 0x5E55)
    return rec(1, hdr + struct.pack(">I", window))


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "whole": whole(),
        "lossy": whole(lost_every=5),
        "parity": bytes([0x80 | 3]) + whole(lost_every=7)[1:],
        "forged": push(1500) + step(40) + forged_window_conn() + whole(),
        "dropped": push(1500) + b"".join(step(40) for _ in range(16)) + drop(1)
        + whole(),
    }
    for name, blob in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    main()
