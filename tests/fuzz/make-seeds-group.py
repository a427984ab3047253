#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-tpss-group: HELLOs, media with a gap and
its parity from a configured member, a PLI, a stranger's media, packets
queued for sending (one with a one-byte extension block already), and time
steps, two copies' rates falling together (uplink-estimate). Record layout in
fuzz-tpss-group.c."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "tpss-group")
A, B, C = 0x11111111, 0x22222222, 0x33333333


def rec(op, body):
    return struct.pack(">BH", op, len(body)) + body


def hello(sender):
    return struct.pack(">BBHI4sIII", 0x84, 204, 4, sender, b"TPSS", sender, 1, sender)


def rtp(ssrc, seq, payload=b"\x00" * 40, ext=b""):
    b0 = 0x90 if ext else 0x80
    return struct.pack(">BBHII", b0, 96, seq, 1000 + seq, ssrc) + ext + payload


def fec_parity(ssrc, seq_base, count, xor_len):
    # RTP header of the parity stream, then the 20-byte FEC header (docs/protocols/tpss-fec.md).
    hdr = struct.pack(">BBHII", 0x80, 100, 0, 0, 0x12345678)
    ts = 0
    for s in range(seq_base, seq_base + count):
        ts ^= 1000 + s
    fec = struct.pack(">BBBBHHIHHI", 0x40, 0, 1, count, seq_base, count, ssrc, 0, 0, ts)
    return hdr + fec + b"\x00" * xor_len


def pli(sender, media):
    return struct.pack(">BBHII", 0x81, 206, 2, sender, media)


def sr(ssrc, ntp, rtp_ts):
    # RFC 3550 6.4.1 SR with no report blocks, then an SDES CNAME.
    cname = b"tpss"
    sdes = struct.pack(">BBHIBB", 0x81, 202, 3, ssrc, 1, len(cname)) + cname + b"\x00\x00"
    return struct.pack(">BBHIQIII", 0x80, 200, 6, ssrc, ntp, rtp_ts, 5, 500) + sdes


def step(ms):
    return rec(3, struct.pack(">I", ms))


def rate(sender, media, bps, seq):
    # TPSS RATE (APP subtype 2): rate, flags, echo, delay, sequence number
    body = struct.pack(">QB3xIII", bps, 0, 0, 0, seq)
    return struct.pack(">BBHI4sI", 0x82, 204, (16 + len(body)) // 4 - 1, sender, b"TPSS",
                       media) + body


def layered_frames(first):
    # op 4's v is the packet's first 4 bytes: v & 1 clear, (v >> 5) % 10 = 3 layers,
    # (v >> 1) % 10 the layer; sequence numbers 0x24, 0x26, 0x28 give layers 0, 1, 2
    return b"".join(rec(4, struct.pack(">BBH", 0x80, 0x60, seq) + rtp(0x5555, first + i)[4:])
                    for i, seq in enumerate((0x24, 0x28, 0x26, 0x28)))


SEEDS = {
    "join": bytes([4]) + rec(2, hello(0x44444444)) + step(10) + rec(0, hello(B)) + step(1500)
    + step(1999) + step(1999) + step(1999),
    "media-gap-parity": bytes([0]) + b"".join(rec(0, rtp(B, s)) for s in (10, 11, 13))
    + rec(0, fec_parity(B, 10, 4, 40)) + step(50) + step(300),
    "learn-and-forge": bytes([0]) + rec(1, rtp(C, 1)) + rec(0, rtp(C, 2)) + rec(2, rtp(B, 3))
    + rec(6, b"\x00\x00\x00\x01") + rec(0, rtp(B, 4)) + rec(0, pli(B, A)) + step(5),
    "send": bytes([16 | (1 << 5)]) + b"".join(rec(4, rtp(0x5555, s)) for s in range(8))
    + rec(4, rtp(0x5555, 9, ext=struct.pack(">HH", 0xBEDE, 1) + b"\x10\xaa\x00\x00"))
    + step(1) + step(20) + step(200) + rec(5, b"\x00\x00\x00\x01"),
    "sender-report": bytes([16]) + rec(0, rtp(B, 1)) + rec(0, sr(B, 0xE000000000000000, 9000))
    + rec(1, sr(B, 0xE000000100000000, 9000)) + rec(0, sr(B, 0xD000000000000000, 1))
    + rec(0, sr(B, 0xE000000200000000, 1)[:20]) + rec(4, b"\x80\x60\x02\x01" + rtp(0x5555, 1)[4:])
    + step(1) + step(1200) + step(1200),
    "multicast-feedback": bytes([8 | 2]) + rec(4, rtp(0x5555, 1)) + step(1) + step(1000)
    + rec(7, b"\x00\x00\x00\x00") + step(100),
    # keyed (0x80): ops 0 and 1 sealed by the member, op 8 its last datagram
    # replayed, op 2 a stranger's unsealed copy
    "keyed-exchange": bytes([0x80 | 16]) + rec(0, hello(B)) + rec(8, b"") + rec(2, hello(B))
    + rec(0, rtp(B, 1)) + rec(4, rtp(0x5555, 1)) + rec(4, b"\x80\x60\x02\x01" + rtp(0x5555, 2)[4:])
    + step(1) + rec(0, pli(B, A)) + rec(8, b"") + step(1200) + rec(0, sr(B, 0xE000000000000000, 9))
    + rec(8, b"") + rec(2, sr(B, 0xE000000100000000, 9)) + step(1200) + rec(6, b"\x00\x00\x00\x07"),
    # bit 4: uplink-estimate; B and C allow 3 Mbit/s, then past the hold of their joining
    # both fall to 0.4 Mbit/s 10 ms apart: a shared fall sets the bound
    "uplink-estimate": bytes([16]) + layered_frames(1) + step(1) + rec(0, rate(B, A, 3000000, 1))
    + rec(1, rate(C, A, 3000000, 1)) + step(1500) + step(1000) + layered_frames(5) + step(100)
    + rec(0, rate(B, A, 400000, 2)) + step(10) + rec(1, rate(C, A, 400000, 2)) + step(10)
    + step(1999),
    "keyed-join": bytes([0x80 | 4]) + rec(1, hello(C)) + rec(9, b"") + rec(2, hello(0x44444444))
    + rec(1, rtp(C, 1)) + step(10) + step(1999),
}

os.makedirs(OUT, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
