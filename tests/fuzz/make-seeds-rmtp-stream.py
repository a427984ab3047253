#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-rmtp-stream: a whole stream of six
windows pushed in pieces with time steps between them, the same with lost
exchanges and with repair by parity (the first byte's bit 7), a stream
ended early, with a forged window CONN to the receiver, a DROP of
window 1 to the receiver after window 0, a whole forged window 1 (its
CONN and DATA, consistent with their own digest) that the stream's
digest in the last window's CONN refuses, the same at another stream offset
than where window 0 ended (found by libFuzzer: its data was given out
there), and forged last-window CONNs
with the stream's digest, without it, and after a trailer that is not
the last (layouts in docs/protocols/rmtp.md)."""
import hashlib
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


def window_conn(window, size=1000, digest=bytes(32), flags=0, tail=b"",
                offset=None):
    hdr = struct.pack(">HBBI", 0x524D, 1, 1, 0x5E55 + window)
    packets = (size + 255) // 256
    body = struct.pack(">QIIIIII", size, 256, packets, 2000, 6000, 32, 0) + digest
    body += struct.pack(">II", 1, 101)
    if offset is None:
        offset = window * 1000
    body += struct.pack(">IQB", window, offset, flags) + tail
    return rec(1, hdr + body)


def forged_window_conn():
    return window_conn(1)


def forged_window(window, data, offset=None):
    """A window's CONN and DATA that agree with each other (not with the
    stream the server sends)."""
    out = window_conn(window, len(data), hashlib.sha256(data).digest(),
                      offset=offset)
    for seq in range(0, (len(data) + 255) // 256):
        hdr = struct.pack(">HBBI", 0x524D, 1, 3, 0x5E55 + window)
        payload = data[seq * 256:(seq + 1) * 256]
        out += rec(1, hdr + struct.pack(">IIB", 0, seq, 0) + payload)
    return out


def window_zero_verified():
    """Window 0 goes out and is verified; window 1 waits for more data."""
    return push(1500) + b"".join(step(40) for _ in range(60))


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
        "forged-window": window_zero_verified()
        + forged_window(1, bytes(range(256)) * 3 + bytes(232)) + whole(),
        "forged-window-offset": window_zero_verified()
        + forged_window(1, bytes(range(256)) * 3 + bytes(232), offset=263144)
        + whole(),
        "forged-last": window_zero_verified()
        + window_conn(1, digest=bytes(32), flags=1, tail=bytes(range(32)))
        + whole(),
        "last-without-digest": window_zero_verified()
        + window_conn(1, flags=1) + whole(),
        "digest-after-middle": window_zero_verified()
        + window_conn(1, tail=bytes(32)) + whole(),
    }
    for name, blob in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    main()
