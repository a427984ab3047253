#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-core-auth: a sender bound byte, then
records [op][len:2][chunk] (fuzzrecords.h). Sealed packets are made here
with Python's hmac under the target's key (bytes 0..31) as sender 0x2000,
which none of the target's own senders uses."""
import hashlib
import hmac
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
KEY = bytes(range(32))
RLM_JOIN = bytes.fromhex("80cc0003") + struct.pack(">I", 0x1234) + b"RLM " + bytes([3, 0, 0, 0])


def seal(packet, sender, counter):
    head = packet + struct.pack(">IQ", sender, counter)
    return head + hmac.new(KEY, head, hashlib.sha256).digest()[:12]


def rec(op, chunk=b""):
    return bytes([op]) + struct.pack(">H", len(chunk)) + chunk


SEEDS = {
    # a sound packet, its replay, one behind the window, one reordered
    "raw-window": bytes([7]) + rec(0, seal(RLM_JOIN, 0x2000, 100)) +
    rec(0, seal(RLM_JOIN, 0x2000, 100)) + rec(0, seal(RLM_JOIN, 0x2000, 36)) +
    rec(0, seal(RLM_JOIN, 0x2000, 99)),
    # truncated and altered datagrams
    "raw-bad": bytes([0]) + rec(0, b"") + rec(0, seal(RLM_JOIN, 0x2000, 1)[:23]) +
    rec(0, seal(RLM_JOIN, 0x2000, 2)[:-1] + b"\0") + rec(0, RLM_JOIN),
    # the target's own senders: seal, replay, flip, over a bound of 2
    "seal-replay-flip": bytes([1]) + rec(1, b"\x00" + RLM_JOIN) + rec(2) +
    rec(3, b"\x00\x05\x03\x00") + rec(1, b"\x01abc") + rec(1, b"\x02") +
    rec(2) + rec(1, b"\x00more") + rec(3, b"\x00\x20\x07\x00"),
}

out = os.path.join(HERE, "corpus", "core-auth")
os.makedirs(out, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
