#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-rmtp: a clean transfer, one with lost
exchanges, a BUSY/RRDY receiver, the same with repair by parity (the first
byte's bit 6 set: blocks of 4 packets; with bit 5, one block over GF(2^16)),
and raw packets of every type to both
sides (layouts in docs/protocols/rmtp.md); the transfers, lossy, with parity
and with raw packets again with a group key (bit 7), where no raw control
packet may be taken."""
import hashlib
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "rmtp")
SESSION = 0x5E55
DATA = bytes((i * 7 + 3) & 0xFF for i in range(4000))


def rec(op, data):
    return bytes([op]) + struct.pack(">H", len(data)) + data


def step(ms, lost=False):
    return rec(2 | (4 if lost else 0), struct.pack(">I", ms))


def to_server(pkt, member_slot=2):
    return rec(0 | (member_slot << 2), pkt)


def to_receiver(pkt):
    return rec(1, pkt)


def hdr(kind):
    return struct.pack(">HBBI", 0x524D, 1, kind, SESSION)


def conn(parity_block=0):
    return (hdr(1) + struct.pack(">QIIIIII", 4000, 256, 16, 2000, 6000, 32, parity_block)
            + hashlib.sha256(DATA).digest() + struct.pack(">IIII", 3, 100, 101, 102))


def conn_retry(member):
    """A CONN retried by unicast (type 16): the CONN's body listing one member."""
    return (hdr(16) + struct.pack(">QIIIIII", 4000, 256, 16, 2000, 2000, 1, 0)
            + hashlib.sha256(DATA).digest() + struct.pack(">II", 1, member))


def data(seq, rnd=0, flags=0):
    return hdr(3) + struct.pack(">IIB", rnd, seq, flags) + DATA[seq * 256:(seq + 1) * 256]


def raw():
    out = b""
    out += to_receiver(conn())
    out += to_receiver(conn_retry(101)) + to_receiver(conn_retry(7))
    out += to_receiver(data(0, flags=1)) + to_receiver(data(2, flags=2))
    out += to_receiver(hdr(4) + struct.pack(">II", 0, 6000))
    out += to_receiver(hdr(7) + struct.pack(">III", 101, 0, 0))
    out += to_receiver(hdr(8) + struct.pack(">II", 0, 6000))
    out += step(20)
    out += to_server(hdr(2) + struct.pack(">IB", 101, 1))
    out += to_server(hdr(5) + struct.pack(">IIIII", 101, 0, 1, 3, 4))
    out += to_server(hdr(6) + struct.pack(">II", 101, 0))
    out += to_server(hdr(9) + struct.pack(">I", 101))
    out += to_server(hdr(10) + struct.pack(">I", 101))
    out += to_server(hdr(11) + struct.pack(">I", 101))
    out += to_server(hdr(12) + struct.pack(">III", 101, 3, 4))
    out += to_server(hdr(6) + struct.pack(">II", 100, 0), member_slot=3)
    return out + step(500)


def parity(block, row, rnd=1):
    return hdr(13) + struct.pack(">IIB", rnd, block, row) + bytes(range(256))


def parity16(block, row, rnd=1, length=256):
    return hdr(15) + struct.pack(">IIH", rnd, block, row) + bytes(i & 0xFF for i in range(length))


def raw_parity16():
    out = rec(0x60 | 1, conn(parity_block=300))
    out += to_receiver(data(0)) + to_receiver(data(2))
    out += to_receiver(parity16(0, 0)) + to_receiver(parity16(0, 0))
    out += to_receiver(parity16(0, 65519)) + to_receiver(parity16(0, 65520))
    out += to_receiver(parity16(1, 0)) + to_receiver(parity16(0, 3, length=255))
    out += to_receiver(parity(0, 1)) + to_receiver(parity16(0, 4)[:-1])
    return out + step(500)


def raw_parity():
    out = rec(0x40 | 1, conn(parity_block=4))
    out += to_receiver(data(0)) + to_receiver(data(2))
    out += to_receiver(parity(0, 0)) + to_receiver(parity(0, 0))
    out += to_receiver(parity(0, 252)) + to_receiver(parity(9, 0))
    out += to_receiver(parity(3, 1)[:-1])
    return out + step(500)


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "transfer": b"".join(step(2) for _ in range(300)),
        "lossy": b"".join(step(3, lost=(i % 7 == 3)) for i in range(300)),
        "busy": (b"".join(step(1) for _ in range(3)) + rec(3, b"\x01")
                 + b"".join(step(50) for _ in range(10)) + rec(3, b"\x00")
                 + b"".join(step(50) for _ in range(60))),
        "raw": raw(),
        "parity-lossy": (rec(0x42, struct.pack(">I", 3))
                         + b"".join(step(3, lost=(i % 5 == 2)) for i in range(300))),
        "parity-raw": raw_parity(),
        "parity16-lossy": (rec(0x62, struct.pack(">I", 3))
                           + b"".join(step(3, lost=(i % 5 == 2)) for i in range(300))),
        "parity16-raw": raw_parity16(),
    }
    seeds.update({
        "keyed-transfer": rec(0x82, struct.pack(">I", 2)) + seeds["transfer"],
        "keyed-lossy": rec(0x82, struct.pack(">I", 3)) + seeds["lossy"],
        "keyed-parity-lossy": bytes([0xC2]) + seeds["parity-lossy"][1:],
        "keyed-parity16-lossy": bytes([0xE2]) + seeds["parity16-lossy"][1:],
        "keyed-raw": rec(0x82, struct.pack(">I", 1)) + raw(),
        "keyed-busy": rec(0x82, struct.pack(">I", 1)) + seeds["busy"],
    })
    for name, blob in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    main()
