#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-nice-signal: blobs (mode byte 0) and
rendezvous line streams (mode byte 1), as ext/nice/gstnicesignal.h
describes them."""
import base64
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "nice-signal")
CREDS = "ice abcd 0123456789abcdefghijkl\n"
HOST = "a=candidate:1 1 UDP 2013266431 127.0.0.1 40000 typ host\n"
SRFLX = ("a=candidate:2 1 UDP 1677721855 203.0.113.7 51000 typ srflx "
         "raddr 10.0.0.2 rport 40000\n")
RELAY = ("a=candidate:3 1 UDP 16777215 198.51.100.1 49152 typ relay "
         "raddr 203.0.113.7 rport 51000\n")


def blob(*cands):
    return CREDS + "".join(cands)


def b64(text):
    return base64.b64encode(text.encode()).decode()


SEEDS = {
    "blob-host": b"\0" + blob(HOST).encode(),
    "blob-all": b"\0" + blob(HOST, SRFLX, RELAY).encode(),
    "blob-crlf": b"\0" + blob(HOST, SRFLX).replace("\n", "\r\n").encode(),
    "blob-creds-only": b"\0" + CREDS.encode(),
    "lines-participant": b"\1" + ("HELLO m0\nTO m1 %s\nTO m2 %s\n" % (
        b64(blob(HOST)), b64(blob(HOST, RELAY)))).encode(),
    "lines-host": b"\1" + ("FROM m1 %s\nERROR member m0 is already connected\n"
                            % b64(blob(SRFLX))).encode(),
}

os.makedirs(OUT, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
