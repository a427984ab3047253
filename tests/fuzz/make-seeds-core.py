#!/usr/bin/env python3
"""Writes the seed corpora of fuzz-core-rtp, fuzz-core-rtcp and
fuzz-core-rfc4571: RTP headers with CSRCs, padding and both RFC 8285
extension forms; RTCP compounds with SR, RR, SDES, APP, generic NACK and PLI,
padded and not; RFC 4571 streams (a bound byte, a piece-size byte, then
length-prefixed frames) with empty, cut and oversize frames."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def rtp(seq, csrcs=(), ext=None, payload=b"payload", pad=0, marker=True):
    b0 = 0x80 | (0x20 if pad else 0) | (0x10 if ext else 0) | len(csrcs)
    hdr = struct.pack(">BBHII", b0, (0x80 if marker else 0) | 96, seq, 90000, 0x11223344)
    hdr += b"".join(struct.pack(">I", c) for c in csrcs)
    if ext:
        profile, body = ext
        body += b"\0" * (-len(body) % 4)
        hdr += struct.pack(">HH", profile, len(body) // 4) + body
    tail = (b"\0" * (pad - 1) + bytes([pad])) if pad else b""
    return hdr + payload + tail


def one_byte(*els):
    return 0xBEDE, b"".join(bytes([(i << 4) | (len(d) - 1)]) + d for i, d in els)


def two_byte(*els):
    return 0x1000, b"".join(bytes([i, len(d)]) + d for i, d in els)


def rtcp(pt, count, body, pad=0):
    body += (b"\0" * (pad - 1) + bytes([pad])) if pad else b""
    return struct.pack(">BBH", 0x80 | (0x20 if pad else 0) | count, pt,
                       (4 + len(body)) // 4 - 1) + body


def block(ssrc, frac, lost, ext, jitter, lsr, dlsr):
    return struct.pack(">IIIIII", ssrc, (frac << 24) | (lost & 0xffffff), ext, jitter, lsr, dlsr)


SR = rtcp(200, 1, struct.pack(">IQIII", 1, 0x1122334455667788, 90000, 10, 12000) +
          block(2, 26, -5, 70000, 12, 0x33445566, 65536))
RR = rtcp(201, 2, struct.pack(">I", 2) + block(1, 0, 0, 1, 0, 0, 0) + block(3, 255, 100, 5, 9, 1, 2))
SDES = rtcp(202, 1, struct.pack(">I", 1) + b"\x01\x09user@host\x00\x00")
APP = rtcp(204, 3, struct.pack(">I", 1) + b"TEST" + b"\x01\x02\x03\x04")
NACK = rtcp(205, 1, struct.pack(">IIHHHH", 1, 2, 100, 0x0005, 65534, 0xffff))
PLI = rtcp(206, 1, struct.pack(">II", 1, 2))

def framed(*packets):
    return b"".join(struct.pack(">H", len(p)) + p for p in packets)


SEEDS = {
    "core-rtp": {
        "plain": rtp(1),
        "csrc-padding": rtp(65535, csrcs=(0xaaaaaaaa, 0xbbbbbbbb), pad=3),
        "one-byte-ext": rtp(7, ext=one_byte((1, b"\x42"), (14, bytes(range(16))))),
        "two-byte-ext": rtp(8, ext=two_byte((2, bytes(17)), (200, b"\x07\x08\x09"), (5, b"")),
                            pad=4),
        "empty-payload": rtp(9, payload=b"", marker=False),
    },
    "core-rtcp": {
        "sr-sdes": SR + SDES,
        "rr-padded": RR + rtcp(201, 0, struct.pack(">I", 5), pad=8),
        "sr-app-nack-pli": SR + SDES + APP + NACK + PLI,
        "pli-only": PLI,
        "nack-only": NACK,
    },
    "core-rfc4571": {
        # bound 1024 (byte 130), pieces of 5 bytes
        "rtp-rtcp": bytes([130, 4]) + framed(rtp(1), SR + SDES, rtp(2, pad=3)),
        # empty frames between packets, whole stream at once
        "empty-frames": bytes([140, 255]) + framed(b"", rtp(3), b"", b"", PLI),
        # bound 64 (byte 63): the 300-byte frame is refused, the next found
        "oversize": bytes([63, 16]) + framed(rtp(4), bytes(300), rtp(5)),
        # the stream ends inside a frame
        "cut": bytes([255, 0]) + framed(rtp(6), rtp(7))[:-3],
    },
}

for target, seeds in SEEDS.items():
    out = os.path.join(HERE, "corpus", target)
    os.makedirs(out, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
