#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-net-srtp: a config byte (bits 0-1 the
profile, bit 2 a second receiving session), then records [op][len:2][chunk]
(fuzzrecords.h). The target protects packets itself (op 1), so the seeds
hold plain RTP; op 0 datagrams are what a stranger without the key sends."""
import os
import struct


def rtp(seq, ssrc=0x11223344, payload=b"media", marker=0, ext=b""):
    first = 0x90 if ext else 0x80
    return struct.pack(">BBHII", first, (marker << 7) | 96, seq, seq * 160,
                       ssrc) + ext + payload


def rec(op, chunk=b""):
    return bytes([op]) + struct.pack(">H", len(chunk)) + chunk


# an RFC 8285 one-byte extension: RLM's layer element (id 6, 3 bytes)
LAYER_EXT = struct.pack(">HH", 0xBEDE, 1) + bytes([0x62, 1, 0, 7])

SEEDS = {
    # protect and open, again (replayed), then fresh packets opened first
    # with a bit flipped (where: the header's first bytes pick it)
    "protect-replay-flip": bytes([0]) + rec(1, rtp(1)) + rec(2) +
    rec(3, rtp(0x0302)) + rec(3, rtp(0x0407, payload=bytes(40))) +
    rec(3, rtp(0x0511)) + rec(1, rtp(0x0600, ext=LAYER_EXT)) + rec(2),
    # what a stranger sends: nothing, plain RTP, RTCP, version 0, a header
    # extension longer than the packet, a forged tag
    "raw": bytes([4]) + rec(0) + rec(0, rtp(5)) +
    rec(0, bytes.fromhex("80c80006") + bytes(24)) +
    rec(0, b"\x00" + rtp(6)[1:]) +
    rec(0, rtp(7, ext=struct.pack(">HH", 0xBEDE, 40))) +
    rec(0, rtp(8) + bytes(10)),
    # the sequence number wraps; a packet far behind; a second SSRC
    "wrap-and-old": bytes([0]) + rec(1, rtp(65534)) + rec(1, rtp(65535)) +
    rec(1, rtp(0)) + rec(1, rtp(1)) + rec(1, rtp(65000)) +
    rec(1, rtp(3, ssrc=0x55667788)) + rec(2),
}
for profile in (1, 2, 3):
    SEEDS[f"profile-{profile}"] = bytes([profile | 4]) + rec(1, rtp(10)) + \
        rec(2) + rec(3, rtp(0x0115)) + rec(1, rtp(0x0200, marker=1))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus",
                   "net-srtp")
os.makedirs(out, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
