#!/usr/bin/env python3
"""RLM's control plane under attack (issue 21): a sender (x264layerenc,
4 layers, rlmsink), two receivers and a third host without the key, m, on
one bridge. m joins the base group, captures a real announcement and, every
100 ms, resends it (a replay from another address) and sends forged ones of
random receiver ids: JOINs at level 2 (which suppress every experiment at
level 3 and above while they look in progress), JOINs at level 4, REPORTs
(which inflate the session size), and, in the keyed run, a JOIN with a
trailer of random bytes.

Three runs of RUN_S seconds each, the receivers started anew, with join
timers and detection times short enough to climb 4 levels in a few seconds
(no bottleneck: every experiment succeeds):
  1. key, no attacker: the baseline;
  2. key, attacker: the receivers climb to level 4 as in the baseline; the
     attacker's packets are counted (auth-truncated, auth-bad-tag,
     auth-replayed) and none is taken (control-received is at most what
     the other receiver sent, the session size stays 2);
  3. no key, attacker: the effect is documented: the forged JOINs are taken
     and hold both receivers at level 2, every experiment at 3 suppressed.
"""
import os
import random
import secrets
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_rlm_single as rlm  # noqa: E402

RUN_S = 10
PERIOD_S = 0.1
BASE, PORT, LAYERS = rlm.BASE, rlm.PORT, rlm.LAYERS
# T_J^min 300 ms, T_D 300 ms, sigma_D 50 ms: an experiment is in progress
# for 0.4 s and a receiver climbs a level about every second.
FAST = ("t-join-min=300000000&detection-time-init=300000000&"
        "detection-dev-init=50000000")
RATES = "<64000,64000,128000,256000>"


def rlm_app(subtype, ssrc, level):
    """An RLM announcement (RTCP APP "RLM ", docs/protocols/rlm.md)."""
    return struct.pack(">BBHI4sBBH", 0x80 | subtype, 204, 3, ssrc, b"RLM ",
                       level, 0, 0)


def start_sender(host, uri_extra=""):
    """The 4-layer sender; @uri_extra: more URI parameters ("&k=v")."""
    return host.popen(rlm.gst(
        "videotestsrc is-live=true pattern=ball ! "
        "video/x-raw,width=160,height=96,framerate=15/1 ! "
        f"x264layerenc layers={LAYERS} speed-preset=ultrafast "
        "tune=zerolatency ! rtph264pay config-interval=-1 ! "
        f"rlmsink uri=\"rlm://{BASE}:{PORT}?layers={LAYERS}{uri_extra}\" "
        f"layer-rates=\"{RATES}\""),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_receiver(host, key, key_param="key"):
    """A receiver with fast timers; @key (if any) as URI parameter
    @key_param."""
    uri = f"rlm://{BASE}:{PORT}?layers={LAYERS}&{FAST}"
    if key:
        uri += f"&{key_param}={key}"
    p = host.popen(rlm.gst(
        f"-m -e rlmsrc name=r uri=\"{uri}\" stats-interval=250000000 "
        f"caps=\"{rlm.CAPS}\" ! fakesink sync=false async=false"),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out, t = netbed.timed_lines(p.stdout)
    return dict(proc=p, out=out, threads=(t,))


class GroupHost:
    """A host on the base layer's group, its own packets not looped back
    (it must not capture its own forgeries), whose run() goes on in a
    thread from start() until close()."""

    def __init__(self, host, timeout):
        self.sock = host.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0", PORT))
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                             socket.inet_aton(BASE) + socket.inet_aton("0.0.0.0"))
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
        self.sock.settimeout(timeout)
        self.stop = False
        self.t = threading.Thread(target=self.run, daemon=True)

    def receive(self, size):
        """A datagram, or None after the timeout."""
        try:
            return self.sock.recv(size)
        except (socket.timeout, OSError):
            return None

    def close(self):
        self.stop = True
        self.t.join(2)
        self.sock.close()


class Attacker(GroupHost):
    """Host m: captures the first real announcement on the base group and
    floods forged and replayed ones until stopped."""

    def __init__(self, host, keyed):
        super().__init__(host, 0.05)
        self.keyed = keyed
        self.captured = None
        self.sent = dict(unsealed=0, bad_trailer=0, replayed=0)
        self.t.start()

    def capture(self):
        data = self.receive(2048)
        if data and len(data) >= 16 and data[1] == 204 and data[8:12] == b"RLM ":
            self.captured = data

    def send(self, data, kind):
        self.sock.sendto(data, (BASE, PORT))
        self.sent[kind] += 1

    def flood_once(self):
        rnd = random.getrandbits
        self.send(rlm_app(0, rnd(32), 2), "unsealed")
        self.send(rlm_app(0, rnd(32), 4), "unsealed")
        self.send(rlm_app(1, rnd(32), 1), "unsealed")
        if self.keyed:
            self.send(rlm_app(0, rnd(32), 2) + secrets.token_bytes(24),
                      "bad_trailer")
        if self.captured:
            self.send(self.captured, "replayed")

    def run(self):
        next_t = time.monotonic()
        while not self.stop:
            if not self.captured:
                self.capture()
            if time.monotonic() >= next_t:
                self.flood_once()
                next_t += PERIOD_S
            else:
                time.sleep(0.01)


def run(hosts, key, attacker_host):
    """One run: both receivers for RUN_S s; returns ({name: (levels,
    final stats)}, attacker's counts or None)."""
    att = Attacker(attacker_host, bool(key)) if attacker_host else None
    t0 = time.monotonic()
    rxs = {n: start_receiver(h, key) for n, h in hosts.items()}
    time.sleep(RUN_S)
    if att:
        att.close()
    return finish(rxs, t0), att and dict(att.sent,
                                          captured=att.captured is not None)


def finish(rxs, t0):
    """Stops the receivers ({name: receiver}); returns {name: (levels
    since t0, last stats)}."""
    for rx in rxs.values():
        rlm.stop(rx["proc"])
    out = {}
    for n, rx in rxs.items():
        for t in rx["threads"]:
            t.join(5)
        st = rlm.stats(rx)
        lv = [(round(t - t0, 1), lvl) for t, lvl, _ in rlm.levels(rx)]
        out[n] = (lv, st[-1][1] if st else {})
    return out


FIELDS = ("level", "experiments-run", "experiments-suppressed",
          "control-received", "forged", "session-size", "auth-accepted",
          "auth-truncated", "auth-bad-tag", "auth-replayed",
          "announcements-sent", "reports-sent")


def show(title, res, sent):
    print(f"{title}: attacker sent {sent}")
    for n, (lv, f) in res.items():
        print(f"  {n}: levels {lv}")
        print("     " + " ".join(f"{k}={f.get(k)}" for k in FIELDS))


def time_to(lv, level):
    return next((t for t, lvl in lv if lvl >= level), None)


def other_sent(res, name):
    (_, f), = [v for n, v in res.items() if n != name]
    return f.get("announcements-sent", 0) + f.get("reports-sent", 0)


def other_announced(res, name):
    (_, f), = [v for n, v in res.items() if n != name]
    return f.get("announcements-sent", 0)


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    key = secrets.token_hex(32)
    with netbed.NetBed() as bed:
        br = bed.bridge("br", snooping=False, querier=False)
        snd, m = bed.host("s"), bed.host("m")
        bed.attach(snd, br, "10.77.5.1/24")
        bed.attach(m, br, "10.77.5.66/24")
        hosts = {}
        for i, name in enumerate(("r1", "r2")):
            hosts[name] = bed.host(name)
            bed.attach(hosts[name], br, f"10.77.5.{10 + i}/24")
        tx = start_sender(snd)
        time.sleep(1)
        base, _ = run(hosts, key, None)
        show("key, no attacker", base, None)
        keyed, sent_k = run(hosts, key, m)
        show("key, attacker", keyed, sent_k)
        plain, sent_p = run(hosts, None, m)
        show("no key, attacker", plain, sent_p)
        rlm.stop(tx)

    check("the attacker captured a real announcement (keyed run)",
          sent_k["captured"])
    for n in hosts:
        lv_b, f_b = base[n]
        lv_k, f_k = keyed[n]
        check(f"{n}: level 4 without the attacker",
              time_to(lv_b, 4) is not None, f"at {time_to(lv_b, 4)} s")
        check(f"{n}: level 4 with the attacker and the key",
              time_to(lv_k, 4) is not None and f_k.get("level") == 4,
              f"at {time_to(lv_k, 4)} s (baseline {time_to(lv_b, 4)} s)")
        # the attacker starts before the receivers, so all but the packets
        # of its last period reach them while they run
        got = {k: f_k.get("auth-" + k.replace("_", "-"), 0)
               for k in ("truncated", "bad_tag", "replayed")}
        want = {"truncated": sent_k["unsealed"],
                "bad_tag": sent_k["bad_trailer"],
                "replayed": sent_k["replayed"]}
        for kind in got:
            check(f"{n}: the attacker's {kind} packets counted",
                  got[kind] >= 0.8 * want[kind] > 0,
                  f"{got[kind]} of {want[kind]} sent")
        check(f"{n}: none of the attacker's packets taken",
              f_k.get("control-received", 0) <= other_sent(keyed, n) and
              f_k.get("session-size") == 2,
              f"control-received {f_k.get('control-received')}, the other "
              f"receiver sent {other_sent(keyed, n)}, session size "
              f"{f_k.get('session-size')}")
        # A suppression follows the other receiver's real experiments too,
        # when theirs and ours happen to overlap (3 against 0 in one CI run,
        # every control packet taken the other's own): allow two per
        # experiment it announced, beyond the baseline's.
        other_exps = other_announced(keyed, n)
        check(f"{n}: experiments suppressed as without the attacker",
              f_k.get("experiments-suppressed", 0) <=
              f_b.get("experiments-suppressed", 0) + 2 * other_exps,
              f"{f_k.get('experiments-suppressed')} (baseline "
              f"{f_b.get('experiments-suppressed')}, the other receiver "
              f"announced {other_exps})")
        lv_p, f_p = plain[n]
        check(f"{n}, no key: the forged announcements are taken",
              f_p.get("control-received", 0) > other_sent(plain, n) + 50,
              f"control-received {f_p.get('control-received')}, session "
              f"size {f_p.get('session-size')}")
        check(f"{n}, no key: held below level 4, experiments suppressed",
              f_p.get("level", 0) < 4 and
              f_p.get("experiments-suppressed", 0) > 3,
              f"level {f_p.get('level')}, "
              f"{f_p.get('experiments-suppressed')} suppressed")
    print(f"RESULT key_levels={[keyed[n][1].get('level') for n in hosts]} "
          f"no_key_levels={[plain[n][1].get('level') for n in hosts]} "
          f"no_key_suppressed="
          f"{[plain[n][1].get('experiments-suppressed') for n in hosts]}")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
