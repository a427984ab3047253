#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-vlmcc: a sender and its leader in steady
exchange, the same with data dropped (losses, leadership loss), raw acks,
challenges, START packets (with and without the sender's hold) and data
packets (layouts in
docs/protocols/vlmcc.md), a session with a rate floor, the sender on the forward delay input
(config bits 0x0c) with acks whose arrival stamps wrap, the challenge echo
(config bit 0x40) with data packets carrying the echo element, and with config bit
0x80 (a group key) the steady exchange and the raw packets, unsealed and
with 24 random trailer bytes."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "vlmcc")


def rec(op, data):
    return bytes([op]) + struct.pack(">H", len(data)) + data


def step(ms, drop=False, lag=0):
    """lag: the feedback of the exchange came lag * 10 ms before it was
    read (0-7), so the STARTs report a hold."""
    return rec(3 | (4 if drop else 0) | (lag << 3), struct.pack(">I", ms))


def app(subtype, ssrc, body):
    return struct.pack(">BBHI4s", 0x80 | subtype, 204, 2 + len(body) // 4, ssrc,
                       b"VLMC") + body


def ack(ssrc, seq, tstamp, arrival=0):
    return app(0, ssrc, struct.pack(">HHII", seq, 0, tstamp, arrival))


def challenge(ssrc, probe, tstamp, rtt, base, rate, win):
    return app(1, ssrc, struct.pack(">B3xIIIII", 0x80 if probe else 0, tstamp,
                                    rtt, base, rate, win))


def start(sender, target, seq, leader, rate, win, tstamp, sent=0, hold=0):
    """hold: the sender's hold of the probe, 10 us units (0: none)."""
    return app(2, sender, struct.pack(">IHHIIIII", target, seq, hold, leader,
                                      rate, win, tstamp, sent))


def data_packet(seq, leader, tstamp, drift, rate, echo=None):
    el = struct.pack(">HII", seq, leader, tstamp) + drift.to_bytes(3, "big") + \
        rate.to_bytes(3, "big")
    if echo is None:
        # one-byte RFC 8285 block: id 7, length 16 (L = 15), three padding
        ext = struct.pack(">HH", 0xBEDE, 5) + bytes([0x7F]) + el + b"\x00" * 3
    else:
        # and the challenge echo: id 8, length 2 (L = 1), hold-off left, ms
        ext = struct.pack(">HH", 0xBEDE, 6) + bytes([0x7F]) + el + \
            bytes([0x81]) + struct.pack(">H", echo) + b"\x00" * 2
    return struct.pack(">BBHII", 0x90, 96, 1, 0, 0xAB) + ext + b"\x00" * 20


def main():
    os.makedirs(OUT, exist_ok=True)
    steady = b"".join(step(10) for _ in range(400))
    lossy = b"".join(step(10, drop=(i % 7 == 0) or 200 <= i < 260)
                     for i in range(500))
    raw = (rec(0, ack(0x1234, 5, 1000)) + rec(0, ack(0x1234, 5, 1000)[:16]) +
           rec(0, challenge(0x1234, True, 10, 0, 0, 0, 0)) +
           rec(0, challenge(0x4321, False, 10, 50000, 40000, 1280, 1024)) +
           rec(2, start(0x5e4d, 0x1, 7, 0x1, 1280, 512, 0)) +
           rec(2, start(0x5e4d, 0x1, 7, 0x1, 1280, 512, 0)[:20]) +
           rec(2, start(0x5e4d, 0x1, 7, 0x1, 1280, 512, 0, 0xFFFFFFF0)) +
           rec(2, start(0x5e4d, 0x1, 7, 0x1, 1280, 512, 0, 0, 3000)) +
           rec(2, start(0x5e4d, 0x1, 7, 0x1, 1280, 512, 0, 0, 0xFFFF)) +
           rec(0 | (3 << 2), challenge(0x1234, True, 10, 0, 0, 0, 0)) +
           rec(1, data_packet(1, 0, 100, 0, 640)) +
           rec(1, data_packet(2, 0, 200, 100, 640)) +
           rec(1, data_packet(9, 7, 900, 0xFFFFFF, 0xFFFFFF)) +
           step(1000) + step(20) + step(20))
    seeds = {
        "steady": bytes([1]) + steady,
        "lossy": bytes([2]) + lossy,
        "raw": bytes([0]) + raw,
        "floor": bytes([0x33]) + steady[: len(steady) // 2] + lossy,
        "forward-steady": bytes([0x09]) + steady,
        "forward-raw": bytes([0x08]) + raw +
        rec(0, ack(0x1234, 6, 1100, 0xFFFFFFF0)) +
        rec(0, ack(0x1234, 7, 1200, 0x00000010)),
        # the probe read 30 ms after it came, 50 ms after it left
        "held-steady": bytes([0x01]) + step(50, lag=3) +
        b"".join(step(10, lag=3) for _ in range(400)),
        "echo-steady": bytes([0x41]) + steady,
        "echo-lossy": bytes([0x42]) + lossy,
        "echo-raw": bytes([0x40]) + raw +
        rec(1, data_packet(10, 0, 1000, 100, 640, echo=0)) +
        rec(1, data_packet(11, 0, 1100, 100, 640, echo=250)) +
        rec(1, data_packet(12, 0, 1200, 100, 640, echo=0xFFFF)) +
        step(20),
        "keyed-steady": bytes([0x81]) + steady,
        "keyed-lossy": bytes([0x82]) + lossy,
        "keyed-raw": bytes([0x80]) + raw +
        rec(0, challenge(0x4321, False, 10, 50000, 40000, 1280, 1024) +
            bytes(range(100, 124))) +
        rec(2, start(0x5e4d, 0x1, 7, 0x1, 1280, 512, 0) +
            bytes(range(24))),
    }
    for name, body in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(body)


if __name__ == "__main__":
    main()
