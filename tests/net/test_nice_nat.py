#!/usr/bin/env python3
"""The nice transport (ext/nice) between two hosts behind NATs, with a STUN
and TURN server (coturn) and the TCP rendezvous on the "public" side:

  a - nata ==(masquerade)== pub (turnserver, rendezvous) == natb - b

(a) cone NATs (masquerade keeps the port: one mapping per source), STUN
    only: the pair connects by server-reflexive candidates, no relay;
(b) symmetric NATs (masquerade fully-random: a new port per destination),
    STUN and TURN, candidate-types relay: relayed on both sides;
(c) the same with cone NATs;
(d) symmetric NATs, STUN and TURN, every candidate type: libnice 0.1.21
    fails every pair here, relay to relay too (docs/nice-transport.md), so
    the transport's relay-fallback starts again relayed only: relayed on
    both sides, and each side says it fell back;
(e) the same with --no-relay-fallback: the pair fails (this shows (d)'s
    fallback is what connects it; if a libnice release mends the fault,
    this case says so and (e) can go).
In (a)-(d) each side gets every datagram of the other, from the other's
virtual address. Exit 0 pass, 1 fail, 77 skip."""

import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import netbed  # noqa: E402

PEER = sys.argv[1] if len(sys.argv) > 1 else "nice-peer"
PUB = "10.77.100.1"
SERVER = f"{PUB}:3478"
RDV_PORT = 7000
COUNT = 50


class Fail(Exception):
    pass


def expect(cond, msg):
    if not cond:
        raise Fail(msg)


def nat_rules(masq_opts):
    """Masquerade out of eth1; what comes in unsolicited is dropped silently,
    as a home router does (the NAT's own stack would answer ICMP port
    unreachable, which ends an ICE check at once)."""
    return ("table ip nat {\n chain post {\n  type nat hook postrouting priority srcnat;"
            f" policy accept;\n  oifname \"eth1\" masquerade {masq_opts}\n }}\n}}\n"
            "table ip filter {\n chain inbound {\n  type filter hook input priority 0;"
            " policy accept;\n  iifname \"eth1\" meta l4proto udp ct state new drop\n }\n"
            " chain forwarded {\n  type filter hook forward priority 0; policy accept;\n"
            "  iifname \"eth1\" ct state new drop\n }\n}\n")


def topology(bed, masq_opts):
    pub = bed.host("pub", forwarding=True)
    ends = []
    for name, lan, wan in (("a", 1, 100), ("b", 2, 101)):
        nat, h = bed.host("nat" + name, forwarding=True), bed.host(name)
        bed.link(h, nat, f"10.77.{lan}.2/24", f"10.77.{lan}.1/24")     # h eth0, nat eth0
        bed.link(nat, pub, f"10.77.{wan}.2/24", f"10.77.{wan}.1/24")   # nat eth1
        h.run(["ip", "route", "add", "default", "via", f"10.77.{lan}.1"])
        nat.run(["ip", "route", "add", "default", "via", f"10.77.{wan}.1"])
        nat.run(["nft", "-f", "-"], input=nat_rules(masq_opts))
        ends.append(h)
    pub.popen(["turnserver", "-n", "--no-cli", "--no-tls", "--no-dtls",
               f"--listening-ip={PUB}", f"--relay-ip={PUB}", "--listening-port=3478",
               "--min-port=49152", "--max-port=49300", "--lt-cred-mech",
               "--user=nice:secret", "--realm=netbed",
               "--allowed-peer-ip=10.77.0.0-10.77.255.255",
               f"--pidfile=/tmp/netbed-turn-{os.getpid()}.pid", "--log-file=stdout",
               "--simple-log"], stdout=open(os.devnull, "w"), stderr=open(os.devnull, "w"))
    rdv = pub.popen([PEER, "--listen", f"{PUB}:{RDV_PORT}"], stdout=open(os.devnull, "w"))
    time.sleep(1.0)
    expect(rdv.poll() is None, "the rendezvous host did not start")
    return ends


def run_pair(ends, extra, connected=True, timeout=40):
    procs = []
    for h, me in zip(ends, ("a", "b")):
        procs.append(h.popen([PEER, "--id", me, "--members", "a,b",
                              "--rendezvous", f"{PUB}:{RDV_PORT}", "--count", str(COUNT),
                              "--timeout", str(timeout)] + extra,
                             stdout=-1, stderr=-1, text=True))
    stats = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        lines = [json.loads(s) for s in out.splitlines() if s.startswith("{")]
        expect(p.returncode == (0 if connected else 1) and len(lines) == 1,
               f"a peer failed ({p.returncode}): {out.strip()} {err.strip()[-400:]}")
        stats += lines
    for s in stats:
        print(json.dumps(s))
        if not connected:
            expect(s["state"] == "failed", f"{s['self']}: not failed: {s}")
            continue
        expect(s["state"] == "connected", f"{s['self']}: not connected")
        expect(s["from_ok"] == COUNT and s["received"] == COUNT,
               f"{s['self']}: {s['from_ok']} of {COUNT} datagrams from {s['peer']}")
        expect(s["sent"] == COUNT and s["dropped"] == 0, f"{s['self']}: sent {s}")
    return stats


def case(name, masq_opts, extra, check, **run):
    print(f"# {name}")
    with netbed.NetBed() as bed:
        ends = topology(bed, masq_opts)
        check(run_pair(ends, extra, **run))


def check_srflx(stats):
    for s in stats:
        expect("relay" not in (s["local_type"], s["remote_type"]),
               f"{s['self']}: relayed with cone NATs: {s}")
        expect(s["remote_type"] in ("srflx", "prflx"), f"{s['self']}: {s}")
        expect(s["remote_address"].startswith("10.77.10"),
               f"{s['self']}: remote {s['remote_address']} is not a NAT's public address")


def check_relay_both(stats, fell_back=False):
    for s in stats:
        expect(s["local_type"] == "relay" and s["remote_type"] == "relay",
               f"{s['self']}: not relayed on both sides: {s}")
        expect(s["relay_fallback"] == fell_back,
               f"{s['self']}: relay_fallback {s['relay_fallback']}, not {fell_back}")


def check_fell_back(stats):
    check_relay_both(stats, fell_back=True)


def main():
    netbed.require_or_skip()
    if not shutil.which("turnserver"):
        print("SKIP: no turnserver (coturn)")
        return 77
    turn = ["--stun", SERVER, "--turn", SERVER, "--turn-user", "nice",
            "--turn-password", "secret"]
    try:
        case("cone NATs, STUN: server-reflexive", "", ["--stun", SERVER], check_srflx)
        case("symmetric NATs, relay only", "fully-random",
             turn + ["--candidate-types", "relay"], check_relay_both)
        case("cone NATs, relay only", "", turn + ["--candidate-types", "relay"],
             check_relay_both)
        case("symmetric NATs, every type: relay fallback", "fully-random", turn,
             check_fell_back)
        case("symmetric NATs, every type, no fallback", "fully-random",
             turn + ["--no-relay-fallback"], lambda stats: None, connected=False,
             timeout=10)
    except Fail as e:
        print(f"FAIL: {e}")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
