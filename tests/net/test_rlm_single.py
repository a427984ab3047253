#!/usr/bin/env python3
"""RLM (issue 18), the paper's topology (1): one sender, one receiver behind
a bottleneck, on a bridge with IGMP snooping (IGMPv3, querier), so a layer
the receiver leaves is pruned from its port.

The sender runs x264layerenc layers=4 at doubling cumulative rates
(250, 500, 1000, 2000 kbit/s) into rlmsink; each layer goes to its own group
239.77.1.1 .. .4. The receiver's bridge port has a tbf of 1.5 Mbit/s:
levels 1-3 fit, level 4 does not. rlmsrc ! rtph264depay ! avdec_h264 plays
it. Passes when the receiver converges to level 3 and keeps it (join
experiments to 4 fail and back off), its loss over the second half is low,
the packets of layer 4's group really stop arriving at the receiver's
interface after it leaves that group (counted with a packet socket in its
namespace), and the decoder reports no error while the receiver is steady at
level 3.

The helpers here are also used by test_rlm_two_sets.py (topology 3)."""
import os
import re
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

BASE = "239.77.1.1"
PORT = 5000
LAYERS = 4
# Not cumulative, bit/s: cumulative 250k, 500k, 1M, 2M.
LAYER_RATES = [250_000, 250_000, 500_000, 1_000_000]
SECONDS = 70
# The receiver's bottleneck (tbf on its bridge port): levels 1-3 fit.
B = 1_500_000
LATENCY_MS = 200
# Loss of the kept layers over the second half: each failed experiment at
# the next level costs about 2 s of congestion until the bridge prunes the
# group; measured 1.7-4.1 % (docs/protocols/rlm.md).
MAX_LOSS = 0.08
CAPS = "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264"
# libav's decoder complaints, through GST_DEBUG=libav:2 on stderr.
DECODER_ERROR = re.compile(r"error while decoding|concealing|decode_slice_header"
                           r"|no frame!|non-existing PPS|Invalid NAL|corrupt",
                           re.I)


def gst(cmd):
    return ["sh", "-c", "exec gst-launch-1.0 " + cmd]


def group(layer):
    a = BASE.split(".")
    return ".".join(a[:3] + [str(int(a[3]) + layer)])


def make_bed(bed, receivers):
    """A snooping bridge (IGMPv3, querier) with the sender s and the named
    receivers; returns (bridge, sender, {name: host})."""
    br = bed.bridge("br", mcast_igmp_version=3)
    snd = bed.host("s")
    bed.attach(snd, br, "10.77.3.1/24")
    hosts = {}
    for i, name in enumerate(receivers):
        hosts[name] = bed.host(name)
        bed.attach(hosts[name], br, f"10.77.3.{10 + i}/24")
    return br, snd, hosts


def start_receiver(host, extra="", base=BASE, decode=True):
    """rlmsrc ! rtph264depay ! avdec_h264 in @host (@decode False: rlmsrc !
    fakesink, levels and stats only); @extra: more rlmsrc properties
    ("name=value ..."); @base: the session's base group."""
    env = dict(os.environ, GST_DEBUG="libav:2,rlmsrc:3", GST_DEBUG_NO_COLOR="1")
    # Frame threads: in a live pipeline avdec_h264 otherwise uses slice
    # threads, and then drops every picture after a frame_num gap of more
    # than one frame, which levels below LAYERS - 1 have.
    play = ("-v", "rtph264depay ! avdec_h264 thread-type=frame ! "
            "identity name=frames silent=false ! ") if decode else ("", "")
    p = host.popen(gst(
        f"-m {play[0]} rlmsrc name=r uri=\"rlm://{base}:{PORT}?layers={LAYERS}\" "
        f"{extra} "
        f"stats-interval=250000000 caps=\"{CAPS}\" ! {play[1]}"
        f"fakesink sync=false async=false"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out, t1 = netbed.timed_lines(p.stdout)
    err, t2 = netbed.timed_lines(p.stderr)
    return dict(proc=p, out=out, err=err, threads=(t1, t2))


def wait_members(br, ports, timeout=15, base=BASE):
    """Until `bridge mdb show` lists the base group on every port."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        mdb = br.run(["bridge", "mdb", "show"]).stdout
        if all(re.search(rf"port {p} grp {base}\b", mdb) for p in ports):
            return True
        time.sleep(0.2)
    return False


def wait_snooping(snd, counter, timeout=25):
    """Until the bridge forwards by membership: for its first ~10 s (until
    its querier counts as present) it floods every group to every port, so
    every layer would reach every receiver. Probes from the sender to the
    base group (joined) must arrive at the receiver, probes to the top
    layer's group (joined by nobody) must not. Returns the seconds waited,
    or None."""
    tx = snd.socket()
    tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 4)
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < timeout:
            t = time.monotonic()
            for _ in range(3):
                tx.sendto(b"probe", (group(0), PORT + 1))
                tx.sendto(b"probe", (group(LAYERS - 1), PORT + 1))
                time.sleep(0.1)
            time.sleep(0.3)
            now = time.monotonic()
            if counter.count(0, t, now) > 0 and \
                    counter.count(LAYERS - 1, t, now) == 0:
                return now - t0
        return None
    finally:
        tx.close()


def hold_base_group(host):
    """A socket in @host joined to the base group, so the bridge forwards it
    to that port before any receiver runs (for wait_snooping)."""
    s = host.socket()
    s.bind(("0.0.0.0", PORT + 1))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                 socket.inet_aton(group(0)) + socket.inet_aton("0.0.0.0"))
    return s


def start_sender(host, bases=(BASE,)):
    """One layered encoder; its stream goes to a session per base group of
    @bases (an rlmsink each, behind a tee)."""
    rates = ",".join(str(r) for r in LAYER_RATES)
    sinks = [f"rlmsink uri=\"rlm://{b}:{PORT}?layers={LAYERS}&ttl-mc=4\" "
             f"layer-rates=\"<{rates}>\"" for b in bases]
    if len(sinks) > 1:
        sinks = ["tee name=t"] + [f"t. ! queue ! {s}" for s in sinks]
    return host.popen(gst(
        "videotestsrc is-live=true pattern=smpte horizontal-speed=5 ! "
        "video/x-raw,width=640,height=360,framerate=30/1 ! "
        f"x264layerenc layers={LAYERS} speed-preset=ultrafast tune=zerolatency "
        "key-int-max=60 "
        f"! rtph264pay config-interval=-1 mtu=1200 ! " + " ".join(sinks)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)


class GroupCounter:
    """Times of the IPv4 packets to each group arriving at @host's eth0 (a
    packet socket in its namespace)."""

    def __init__(self, host):
        # cooked packets: the data starts at the IP header
        self.sock = host.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                                socket.htons(0x0800))
        self.sock.settimeout(0.2)
        self.times = {g: [] for g in range(LAYERS)}
        self.addr = {socket.inet_aton(group(i)): i for i in range(LAYERS)}
        self.stop = False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while not self.stop:
            try:
                pkt = self.sock.recv(4096)
            except (socket.timeout, OSError):
                continue
            layer = self.addr.get(pkt[16:20])
            if layer is not None:
                self.times[layer].append(time.monotonic())

    def count(self, layer, t0, t1):
        return sum(t0 <= t < t1 for t in self.times[layer])

    def close(self):
        self.stop = True
        self.t.join(2)
        self.sock.close()


def levels(rx):
    """[(time, level, reason)] of the receiver's rlm-level messages."""
    out = []
    for t, line in rx["out"]:
        m = netbed.element_messages(line, "r", "rlm-level")
        if m:
            out.append((t, int(m[0]["level"]), m[0]["reason"]))
    return out


def stats(rx):
    """[(time, fields)] of the receiver's rlm-src-stats messages."""
    out = []
    for t, line in rx["out"]:
        if "rlm-src-stats" not in line:
            continue
        f = {}
        for k, typ, v in re.findall(r"([a-z-]+)=\((\w+)\)(<[^>]*>|[^,;]+)", line):
            v = v.strip()
            if v.startswith("<"):
                f[k] = [int(x) for x in re.findall(r"-?\d+", v)]
            elif re.fullmatch(r"-?\d+", v):
                f[k] = int(v)
            else:
                f[k] = v
        out.append((t, f))
    return out


def print_timeline(st, t0, every=2.0):
    """The receiver's state every `every` s: time, level, state, next join
    (s), loss estimate, packets lost so far."""
    last = None
    for t, f in st:
        if last is None or t - last >= every:
            last = t
            print(f"  t={t - t0:5.1f} level={f.get('level')} "
                  f"{f.get('state')} next-join="
                  f"{f.get('next-join', -1) / 1e9:.1f} "
                  f"loss-est={f.get('loss-estimate')} "
                  f"lost={sum(f.get('layer-lost', []))}")


def level_at(lv, t):
    cur = 0
    for tt, level, _ in lv:
        if tt > t:
            break
        cur = level
    return cur


def convergence(lv, best, t_start):
    """Seconds from t_start (the receiver's start) until the level reached
    `best` and never went below it again (None if it did not)."""
    reach = None
    for t, level, _ in lv:
        if level >= best and reach is None:
            reach = t
        elif level < best:
            reach = None
    return None if reach is None else reach - t_start


def time_at(lv, level, t0, t1):
    """Fraction of [t0, t1] spent at `level`."""
    total = 0.0
    for i, (t, lvl, _) in enumerate(lv):
        end = lv[i + 1][0] if i + 1 < len(lv) else t1
        a, b = max(t, t0), min(end, t1)
        if lvl == level and b > a:
            total += b - a
    return total / (t1 - t0)


def loss_between(st, t0, t1, layers):
    """Loss fraction of the first `layers` layers between the stats
    messages nearest t0 and t1."""
    a = next((f for t, f in st if t >= t0), None)
    b = next((f for t, f in reversed(st) if t <= t1), None)
    if not a or not b:
        return None
    lost = sum(b["layer-lost"][i] - a["layer-lost"][i] for i in range(layers))
    got = sum(b["layer-received"][i] - a["layer-received"][i]
              for i in range(layers))
    return lost / max(1, lost + got)


def steady_windows(lv, level, t_end, settle=5.0):
    """Intervals at `level` starting `settle` s after the change to it: a
    leave takes about 2 s to prune on this bridge (IGMPv3 group query, last
    member count 2) and the decoder recovers from loss at the next IDR (the
    sender's key-int-max is 2 s)."""
    out = []
    for i, (t, lvl, _) in enumerate(lv):
        end = lv[i + 1][0] if i + 1 < len(lv) else t_end
        if lvl == level and end - t > settle:
            out.append((t + settle, end))
    return out


def decoded_fps(rx, windows):
    """Frames the decoder gave out per second within `windows`."""
    n = sum(1 for t, line in rx["out"] if "frames: last-message = chain" in line
            and any(a <= t < b for a, b in windows))
    return n / max(1e-9, sum(b - a for a, b in windows))


def decoder_errors(rx, windows):
    return [line for t, line in rx["err"]
            if DECODER_ERROR.search(line) and any(a <= t < b for a, b in windows)]


def stop(p):
    netbed.interrupt(p)


def left_layer_stops(counter, lv, layer, t_end, prune=4.0):
    """For every stretch below level layer+1 longer than prune + 2 s:
    (packets of the layer during it after `prune` s, packets of the layer
    while it was joined)."""
    quiet, joined = 0, 0
    for i, (t, lvl, _) in enumerate(lv):
        end = lv[i + 1][0] if i + 1 < len(lv) else t_end
        if lvl <= layer and end - t > prune + 2 and i > 0 and \
                lv[i - 1][1] > layer:
            quiet += counter.count(layer, t + prune, end)
        if lvl > layer:
            joined += counter.count(layer, t + 0.5, end)
    return quiet, joined


def run_behind_ports(bed, check, ports, counted, seconds):
    """Receivers on the snooping bridge, each behind its own bottlenecked
    port ({name: rate in bit/s}), and the sender once their base groups are
    in the bridge's mdb; runs `seconds`, stops them all and joins the
    receivers' reader threads. `counted` names the host whose traffic shows
    the bridge forwarding by membership. ({name: receiver}, t0, t_end)."""
    br, snd, hosts = make_bed(bed, list(ports))
    for name, rate in ports.items():
        bed.bottleneck(br, f"p-{name}", rate_bps=rate, latency_ms=LATENCY_MS)
    counter = GroupCounter(hosts[counted])
    holds = [hold_base_group(h) for h in hosts.values()]
    waited = wait_snooping(snd, counter)
    check("the bridge forwards by membership", waited is not None,
          f"after {waited and round(waited, 1)} s")
    counter.close()
    t0 = time.monotonic()
    rxs = {name: start_receiver(h) for name, h in hosts.items()}
    check("receivers' base group in the bridge's mdb",
          wait_members(br, [f"p-{n}" for n in ports]))
    tx = start_sender(snd)
    time.sleep(seconds)
    t_end = time.monotonic()
    for rx in rxs.values():
        stop(rx["proc"])
    stop(tx)
    for h in holds:
        h.close()
    for rx in rxs.values():
        for t in rx["threads"]:
            t.join(5)
    return rxs, t0, t_end


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    with netbed.NetBed() as bed:
        br, snd, hosts = make_bed(bed, ["r1"])
        r1 = hosts["r1"]
        bed.bottleneck(br, "p-r1", rate_bps=B, latency_ms=LATENCY_MS)
        counter = GroupCounter(r1)
        hold = hold_base_group(r1)
        waited = wait_snooping(snd, counter)
        check("the bridge forwards by membership", waited is not None,
              f"after {waited and round(waited, 1)} s")
        t0 = time.monotonic()
        # RLM_SRC_PROPS: more rlmsrc properties ("join-reported=true")
        rx = start_receiver(r1, os.environ.get("RLM_SRC_PROPS", ""))
        ok = wait_members(br, ["p-r1"])
        check("receiver's base group in the bridge's mdb", ok)
        tx = start_sender(snd)
        time.sleep(SECONDS)
        t_end = time.monotonic()
        stop(rx["proc"])
        stop(tx)
        counter.close()
        hold.close()
        for t in rx["threads"]:
            t.join(5)
        lv = levels(rx)
        st = stats(rx)
        print("levels:", [(round(t - t0, 1), lvl, why) for t, lvl, why in lv])
        print_timeline(st, t0)
        if st:
            print("final stats:", {k: v for k, v in st[-1][1].items()
                                   if k in ("level", "state", "experiments-run",
                                            "experiments-failed",
                                            "experiments-succeeded",
                                            "layer-received", "layer-lost",
                                            "join-timers", "detection-time",
                                            "joins", "leaves")})
        conv = convergence(lv, 3, t0)
        half = t0 + SECONDS / 2
        frac3 = time_at(lv, 3, half, t_end) if lv else 0
        loss = loss_between(st, half, t_end, 3)
        check("converged to level 3 and kept it", conv is not None,
              f"convergence time {conv and round(conv, 1)} s")
        check("mostly at level 3 in the second half", frac3 >= 0.7,
              f"{100 * frac3:.0f}% of the time at level 3")
        check(f"loss of layers 0-2 in the second half at most "
              f"{100 * MAX_LOSS:.0f}%",
              loss is not None and loss <= MAX_LOSS,
              f"{loss and round(100 * loss, 2)}%")
        quiet, joined = left_layer_stops(counter, lv, 3, t_end)
        check("layer 4's packets arrived while it was joined", joined > 0,
              f"{joined} packets")
        check("layer 4's packets stopped at the receiver after it left",
              quiet == 0, f"{quiet} packets 4 s or more after a leave")
        windows = steady_windows(lv, 3, t_end)
        errs = decoder_errors(rx, windows)
        check("no decoder error while steady at level 3",
              sum(b - a for a, b in windows) > 5 and not errs,
              f"{sum(b - a for a, b in windows):.0f} s steady, "
              f"{len(errs)} errors {errs[:2]}")
        fps = decoded_fps(rx, windows)
        # level 3 of 4: layers 0-2, half the frames of the 30 fps source
        check("the decoder gives out level 3's frame rate when steady",
              fps >= 0.9 * 15, f"{fps:.1f} frames/s (15 expected)")
        print(f"RESULT topology=1 convergence_s={conv and round(conv, 1)} "
              f"loss_second_half={loss and round(100 * loss, 2)}% "
              f"time_at_3={100 * frac3:.0f}%")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
