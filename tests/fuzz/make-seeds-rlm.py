#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-rlm: a receiver climbing through join
experiments, another receiver's experiment and a loss it learns from,
congestion that drops a layer, and raw announcements and media (layouts in
docs/protocols/rlm.md)."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "rlm")


def rec(op, data):
    return bytes([op]) + struct.pack(">H", len(data)) + data


def step(ms):
    return rec(1, struct.pack(">I", ms))


def media(layer, skip=0):
    return rec(2 | (layer << 4), bytes([skip]))


def ctrl(report, level, peer, addr=1):
    return rec(3 | (4 if report else 0) | (addr << 6), bytes([level, peer]))


def app(subtype, ssrc, level):
    return struct.pack(">BBHI4sBBH", 0x80 | subtype, 204, 3, ssrc, b"RLM ", level, 0, 0)


def rtp_with_layer(layer, seq):
    # one-byte RFC 8285 block: id 6, length 3 (L = 2), then a padding byte
    ext = struct.pack(">HH", 0xBEDE, 1) + bytes([0x62, layer]) + struct.pack(">H", seq)
    return struct.pack(">BBHII", 0x90, 96, 1, 0, 0xAB) + ext + b"\x00" * 8


def ticks(n, layers, skip_every=0):
    out = b""
    for i in range(n):
        out += step(20)
        for layer in range(layers):
            lost = 1 if skip_every and i % skip_every == 0 else 0
            out += media(layer, lost)
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "climb": bytes([4]) + ticks(200, 1) + ticks(200, 2) + ticks(200, 3),
        "learn": bytes([4]) + ticks(50, 1) + ctrl(False, 2, 1) + ticks(5, 1) +
        media(0, 3) + ticks(300, 1),
        "congestion": bytes([2]) + ticks(200, 2) + ticks(400, 2, 3),
        "raw": bytes([0x45]) + rec(0, app(0, 0x101, 2)) + rec(0, app(1, 0x102, 1)) +
        rec(0, app(0, 0x101, 2)[:10]) + rec(0, rtp_with_layer(0, 7)) +
        rec(0, rtp_with_layer(0, 9)) + rec(0, rtp_with_layer(5, 1)) + step(6000) +
        ctrl(True, 1, 2, 2) + ctrl(True, 1, 2, 3) + ctrl(True, 1, 3, 3),
        # with the group key (config bit 0x80): sealed peers, raw ones refused
        "keyed": bytes([0x84]) + ticks(50, 1) + ctrl(False, 2, 1) + ticks(5, 1) +
        rec(0, app(0, 0x101, 2)) + rec(0, app(0, 0x101, 2) + bytes(24)) +
        media(0, 3) + ticks(300, 1) + ctrl(True, 1, 2, 2),
    }
    for name, body in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(body)


if __name__ == "__main__":
    main()
