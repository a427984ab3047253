#!/usr/bin/env python3
"""The conferencing application over ICE (conference --ice): three participants, each
behind a NAT of its own, with a STUN/TURN server (coturn) and the TCP rendezvous on the
"public" side:

  p1 - nat1 ==+
  p2 - nat2 ==+== pub (turnserver, rendezvous)
  p3 - nat3 ==+

Every participant names the others by virtual addresses (10.99.0.<id>:5000, never on the
wire) and delivers its ICE blobs through the rendezvous.

(a) cone NATs (masquerade keeps the port), STUN and TURN offered, every candidate type
    allowed (the defaults): every pair connects by server-reflexive candidates, none relayed;
    p3 quits at 6 s and comes back a second later as a new process (new ICE credentials):
    the others restart their ICE sessions with it, and its media reaches them again;
(b) symmetric NATs (masquerade fully-random), TURN, --ice-candidates=relay: every pair
    relayed on both sides.
Before them, options that cannot work are refused with a message naming them.
In both, every participant's last snapshot shows its own tile and the two others', its
statistics show every other member `connected` and media received from each (rates > 0
over the last seconds), so media flows both ways on every pair, and its recording holds the
others' voices, which travel in the audio session's own ICE transport.  Exit 0 pass, 1 fail,
77 skip."""

import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import netbed  # noqa: E402
import conference  # noqa: E402
from test_nice_nat import nat_rules  # noqa: E402

MIN_TONE = 4000           # as tests/net/test_conference.py
MAX_OWN_TONE = 1000

CONFERENCE = sys.argv[1] if len(sys.argv) > 1 else "conference"
NICE_PEER = sys.argv[2] if len(sys.argv) > 2 else "nice-peer"
OUT = os.path.join(os.environ.get("MESON_BUILD_ROOT", os.path.join(ROOT, "build")),
                   "conference-ice-test")          # kept for a look after a failure
PUB = "10.77.100.1"
SERVER = f"{PUB}:3478"
RDV = f"{PUB}:7000"
IDS = (1, 2, 3)
DURATION = 21            # seconds the call lasts (the rejoined p3 needs ~5 s to reconnect)
REJOIN = (3, 6, 1)       # in case (a): p3 quits after 6 s and starts again 1 s later
TAIL = 5                 # the last seconds whose rates must be > 0
MEMBERS = ",".join(f"{i}@10.99.0.{i}:5000" for i in IDS)
checks = netbed.Checks()


def topology(bed, masq_opts):
    pub = bed.host("pub", forwarding=True)
    hosts = {}
    for pid in IDS:
        nat, h = bed.host(f"nat{pid}", forwarding=True), bed.host(f"p{pid}")
        bed.link(h, nat, f"10.77.{pid}.2/24", f"10.77.{pid}.1/24")                 # eth0s
        bed.link(nat, pub, f"10.77.{99 + pid}.2/24", f"10.77.{99 + pid}.1/24")   # nat eth1
        h.run(["ip", "route", "add", "default", "via", f"10.77.{pid}.1"])
        nat.run(["ip", "route", "add", "default", "via", f"10.77.{99 + pid}.1"])
        nat.run(["nft", "-f", "-"], input=nat_rules(masq_opts))
        hosts[pid] = h
    pub.popen(["turnserver", "-n", "--no-cli", "--no-tls", "--no-dtls",
               f"--listening-ip={PUB}", f"--relay-ip={PUB}", "--listening-port=3478",
               "--min-port=49152", "--max-port=49400", "--lt-cred-mech",
               "--user=nice:secret", "--realm=netbed",
               "--allowed-peer-ip=10.77.0.0-10.77.255.255",
               f"--pidfile=/tmp/netbed-turn-{os.getpid()}.pid", "--log-file=stdout",
               "--simple-log"], stdout=open(os.devnull, "w"), stderr=open(os.devnull, "w"))
    rdv = pub.popen([NICE_PEER, "--listen", RDV], stdout=open(os.devnull, "w"))
    time.sleep(1.0)
    if rdv.poll() is not None:
        raise netbed.NetBedError("the rendezvous host did not start")
    return hosts


def start(host, pid, out_dir, duration, extra):
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        if name.endswith(f"-{pid}.log") or name.endswith(f"-{pid}.json") or \
                name.endswith(f"-{pid}.png"):
            os.remove(os.path.join(out_dir, name))
    log = open(os.path.join(out_dir, f"participant-{pid}.log"), "w")
    return log, host.popen(
        [CONFERENCE, f"--id={pid}", "--ice", f"--rendezvous={RDV}", f"--members={MEMBERS}",
         "--headless", f"--duration={duration}", f"--out-dir={out_dir}",
         f"--stats-json={out_dir}/stats-{pid}.json", "--width=320", "--height=240"]
        + extra, stdout=log, stderr=log)


def rejoin(hosts, out_dir, extra, procs, logs):
    """REJOIN's participant lives twice: its first life's files go to first/."""
    pid, leave_at, away = REJOIN
    logs[pid].close()
    procs[pid].wait(timeout=leave_at + 20)
    checks(f"p{pid}'s first life exits 0", procs[pid].returncode == 0,
           f"status {procs[pid].returncode}")
    time.sleep(away)
    logs[pid], procs[pid] = start(hosts[pid], pid, out_dir, 0, extra)


def run_call(hosts, out_dir, extra, with_rejoin):
    procs, logs = {}, {}
    for name in os.listdir(out_dir) if os.path.isdir(out_dir) else []:
        if os.path.isfile(os.path.join(out_dir, name)):
            os.remove(os.path.join(out_dir, name))
    t0 = time.monotonic()
    for pid in IDS:
        first = with_rejoin and pid == REJOIN[0]
        logs[pid], procs[pid] = start(hosts[pid], pid,
                                      os.path.join(out_dir, "first") if first else out_dir,
                                      REJOIN[1] if first else 0, extra)
    if with_rejoin:
        rejoin(hosts, out_dir, extra, procs, logs)
    # The call ends for everyone at once (a duration of 0: until SIGINT), so
    # each takes its last snapshot before the others' BYEs take their tiles.
    time.sleep(max(0.0, t0 + DURATION - time.monotonic()))
    for p in procs.values():
        p.send_signal(signal.SIGINT)
    for pid, p in procs.items():
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            netbed.interrupt(p)
        logs[pid].close()
        checks(f"p{pid} exits 0", p.returncode == 0, f"status {p.returncode}")
    return {pid: conference.read_stats(os.path.join(out_dir, f"stats-{pid}.json"))
            for pid in IDS}


def connected_at(stats, me):
    """The first second at which every other member was connected, or None."""
    for rec in stats:
        ice = {m["id"]: m.get("ice", {}) for m in rec["members"]}
        if all(ice.get(o, {}).get("state") == "connected" for o in IDS if o != me):
            return rec["t"]
    return None


def before_left(stats, other):
    """`stats` without its last records in which `other` has left: everyone leaves
    at once, and a record written after the others' BYEs, before our own SIGINT
    was handled, shows them gone, with no rate (1 run in the CI of 86b28cf). A
    leave in the middle of the call (the rejoin) stays in."""
    end = len(stats)
    while end > 0 and any(m["id"] == other and m.get("left")
                          for m in stats[end - 1]["members"]):
        end -= 1
    return stats[:end]


def check_participant(out_dir, pid, stats, pair_ok, pair_what):
    png = os.path.join(out_dir, f"participant-{pid}.png")
    shown = conference.tiles_shown(png) if os.path.exists(png) else []
    checks(f"p{pid}'s snapshot shows its own tile first and the others'",
           shown[:1] == [pid] and sorted(shown) == list(IDS), f"{shown}")
    checks(f"p{pid} has statistics", len(stats) > TAIL, f"{len(stats)} records")
    if len(stats) <= TAIL:
        return
    last = {m["id"]: m for m in stats[-1]["members"]}
    t = connected_at(stats, pid)
    print(f"   p{pid}: every peer connected at t={t} s")
    for other in IDS:
        if other == pid:
            continue
        ice = last.get(other, {}).get("ice", {})
        checks(f"p{pid} -> p{other}: ICE connected, {pair_what}",
               ice.get("state") == "connected" and pair_ok(ice), f"{ice}")
        rates = [next((m["recv_bps"] for m in r["members"] if m["id"] == other), 0)
                 for r in before_left(stats, other)[-TAIL:]]
        checks(f"p{pid} receives media from p{other} in each of its last {TAIL} s",
               min(rates) > 0, f"{[round(r / 1e3) for r in rates]} kbit/s")
    check_audio(out_dir, pid)


def check_audio(out_dir, pid):
    """The audio session has its own ICE transport: `pid`'s recording holds every other
    participant's tone (median amplitude over 100 ms blocks, sent at 8192) and not its own."""
    mp4 = os.path.join(out_dir, f"participant-{pid}.mp4")
    a = conference.audio_levels(mp4, IDS) if os.path.exists(mp4) else None
    others = [o for o in IDS if o != pid]
    checks(f"p{pid} hears {others} over ICE (>= {MIN_TONE}) and not itself (<= {MAX_OWN_TONE})",
           a is not None and all(a["tones"][o] >= MIN_TONE for o in others)
           and a["tones"][pid] <= MAX_OWN_TONE,
           a and ", ".join(f"p{t} {round(v)}" for t, v in sorted(a["tones"].items())))


def case(name, masq_opts, extra, pair_ok, pair_what, with_rejoin=False):
    print(f"# {name}", flush=True)
    out_dir = os.path.join(OUT, name.split(",")[0].replace(" ", "-"))
    with netbed.NetBed() as bed:
        hosts = topology(bed, masq_opts)
        stats = run_call(hosts, out_dir, extra, with_rejoin)
    for pid in IDS:
        check_participant(out_dir, pid, stats[pid], pair_ok, pair_what)
    if with_rejoin:
        for pid in IDS:
            if pid != REJOIN[0]:
                with open(os.path.join(out_dir, f"participant-{pid}.log")) as f:
                    checks(f"p{pid} restarted its ICE session with p{REJOIN[0]}",
                           f"ice: p{REJOIN[0]} sent new credentials" in f.read())


def srflx_pair(ice):
    return "relay" not in (ice.get("local"), ice.get("remote")) and \
        ice.get("remote") in ("srflx", "prflx")


def relay_pair(ice):
    return ice.get("local") == "relay" and ice.get("remote") == "relay"


def check_refusals():
    """Bad --ice settings end the program at once, saying what is wrong."""
    base = [CONFERENCE, "--id=1", "--headless", f"--members={MEMBERS}"]
    for extra, says in ((["--ice"], "--ice needs --rendezvous"),
                        (["--port=5000", f"--stun={SERVER}"], "go with --ice"),
                        (["--ice", f"--rendezvous={RDV}", "--ice-candidates=host,tcp"],
                         '"tcp" is not host, srflx or relay'),
                        (["--ice", f"--rendezvous={RDV}", "--members=1@10.99.0.1:5000,2@b:5000"],
                         "with an IP address"),
                        (["--ice", f"--rendezvous={RDV}", "--ice-candidates=relay"],
                         "needs a turn-server")):
        r = subprocess.run(base + extra, capture_output=True, text=True, timeout=30)
        checks(f"refused: {' '.join(extra)}", r.returncode != 0 and says in r.stderr,
               f"status {r.returncode}: {r.stderr.strip()[-200:]}")


def main():
    netbed.require_or_skip()
    check_refusals()
    if not shutil.which("turnserver"):
        print("SKIP: no turnserver (coturn)")
        return netbed.SKIP_CODE
    turn = [f"--turn={SERVER}", "--turn-user=nice", "--turn-password=secret"]
    case("cone NATs, STUN and TURN", "", [f"--stun={SERVER}"] + turn, srflx_pair,
         "server-reflexive, not relayed", with_rejoin=True)
    case("symmetric NATs, relay only", "fully-random",
         [f"--stun={SERVER}"] + turn + ["--ice-candidates=relay"], relay_pair,
         "relayed on both sides")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
