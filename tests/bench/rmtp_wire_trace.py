#!/usr/bin/env python3
"""Where an RMTP transfer's time goes, from the sender's interface (issue 20).

  rmtp_wire_trace.py capture IFACE OUT   (run in the sender's namespace)
      records every RMTP datagram sent or received on IFACE with the
      kernel's timestamp (SO_TIMESTAMPNS) until SIGTERM: one line a packet,
      "seconds direction type round" (direction out/in), into OUT.
  rmtp_wire_trace.py summary OUT RATE [PACKET]
      prints the phases: the connection (first CONN to the first DATA),
      each round (its DATA, the time they took against the pacer's time at
      RATE bit/s for DATA of 17 + PACKET bytes; from its last DATA, when its
      last NACK or ACK came and when the next round's first DATA left), and
      the release (last DATA to the last RACK); and, from the bench, the
      time from the sender's start to its first CONN and from the last
      RACK to the last receiver's EOS.

bench_rmtp_uftp.py runs it with BENCH_RMTP_TRACE=1."""
import signal
import socket
import struct
import sys

ETH_P_ALL = 0x0003
SO_TIMESTAMPNS = 35
SO_RCVBUFFORCE = 33
PACKET_OUTGOING = 4
NAMES = {1: "CONN", 2: "CACK", 3: "DATA", 4: "EOR", 5: "NACK", 6: "ACK",
         7: "POLL", 8: "REL", 9: "RACK", 10: "BUSY", 11: "RRDY"}
# where each type's round and member fields are, from the RMTP header's start
ROUND_AT = {3: 8, 4: 8, 5: 12, 6: 12, 7: 12, 8: 8}
MEMBER_AT = {2: 8, 5: 8, 6: 8, 7: 8, 9: 8, 10: 8, 11: 8}


def field(rmtp, at):
    return struct.unpack_from(">I", rmtp, at)[0] if at and len(rmtp) >= at + 4 \
        else -1


def rmtp_of(frame):
    """(type, round, member; -1 where the type has none) of an
    Ethernet/IPv4/UDP frame carrying RMTP, or None."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return None
    rmtp = frame[14 + (frame[14] & 0x0F) * 4 + 8:]
    if len(rmtp) < 8 or rmtp[:3] != b"RM\x01":
        return None
    kind = rmtp[3]
    return kind, field(rmtp, ROUND_AT.get(kind)), field(rmtp, MEMBER_AT.get(kind))


def capture(iface, out):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind((iface, 0))
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    print("ready", flush=True)
    with open(out, "w") as f:
        while not stop:
            try:
                frame, anc, _, addr = s.recvmsg(128, 64)
            except InterruptedError:
                continue
            got = rmtp_of(frame)
            if not got:
                continue
            ts = next((struct.unpack("qq", d[:16]) for lvl, typ, d in anc
                       if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS),
                      None)
            if ts:
                way = "out" if addr[2] == PACKET_OUTGOING else "in"
                f.write(f"{ts[0] + ts[1] * 1e-9:.6f} {way} {got[0]} {got[1]} "
                        f"{got[2]}\n")


def load(path):
    """(time, direction, type, round) of each packet, and (time, type, round,
    member) of each POLL out and each NACK or ACK in."""
    pkts, talk = [], []
    with open(path) as f:
        for t, way, k, r, m in (ln.split() for ln in f
                                if not ln.startswith("#")):
            pkts.append((float(t), way, int(k), int(r)))
            if (int(k) == 7) == (way == "out") and int(k) in (5, 6, 7):
                talk.append((float(t), int(k), int(r), int(m)))
    return pkts, talk


def polls_answered(talk):
    """Each POLL: its round, member, and when that member's answer came
    after it (ms), or None."""
    out = []
    for i, (t, k, r, m) in enumerate(talk):
        if k == 7:
            ans = next((tt for tt, kk, rr, mm in talk[i + 1:]
                        if kk != 7 and rr == r and mm == m), None)
            out.append((r, m, None if ans is None else 1e3 * (ans - t)))
    return out


def summary(path, rate, packet=1024, start=None, end=None):
    """start, end: when the sender's gst-launch was started and when the
    last receiver's EOS was read (CLOCK_REALTIME, as the trace), or None."""
    pkts, talk = load(path)
    if not pkts:
        return "trace: no packets"
    t0 = next((t for t, w, k, _ in pkts if k == 1 and w == "out"), pkts[0][0])
    data = [(t, r) for t, w, k, r in pkts if k == 3 and w == "out"]
    rounds = sorted({r for _, r in data})
    parts = [f"launch to CONN {1e3 * (t0 - start):.0f} ms" if start else "",
             f"conn {1e3 * (data[0][0] - t0):.0f} ms" if data else "no DATA"]
    for i, r in enumerate(rounds):
        times = [t for t, rr in data if rr == r]
        pacer = len(times) * (17 + packet) * 8 / rate
        part = (f"r{r} {len(times)} DATA {1e3 * (times[-1] - times[0]):.0f}"
                f"/{1e3 * pacer:.0f} ms")
        answers = [t for t, w, k, rr in pkts if k in (5, 6) and w == "in"
                   and rr == r]
        if answers:
            part += (f", {len(answers)} answers by "
                     f"+{1e3 * (answers[-1] - times[-1]):.0f} ms")
        if i + 1 < len(rounds):
            nxt = next(t for t, rr in data if rr == rounds[i + 1])
            part += f", next DATA +{1e3 * (nxt - times[-1]):.0f} ms"
        parts.append(part)
    racks = [t for t, w, k, _ in pkts if k == 9 and w == "in"]
    last = racks[-1] if racks else pkts[-1][0]
    polls = polls_answered(talk)
    parts.append(f"release {1e3 * (last - data[-1][0]):.0f} ms" if data else "")
    parts.append(f"polls {len(polls)}" + "".join(
        f" (r{r} m{m} answered {'never' if a is None else f'+{a:.0f} ms'})"
        for r, m, a in polls) + f", first CONN to last RACK {last - t0:.3f} s")
    if end:
        parts.append(f"last RACK to last EOS {1e3 * (end - last):.0f} ms")
    return "trace: " + "; ".join(p for p in parts if p)


if __name__ == "__main__":
    if sys.argv[1] == "capture":
        capture(sys.argv[2], sys.argv[3])
    else:
        print(summary(sys.argv[2], float(sys.argv[3]),
                      int(sys.argv[4]) if len(sys.argv) > 4 else 1024))
