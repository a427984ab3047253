"""netbed: small network test beds in Linux network namespaces (stdlib only).

    import netbed
    netbed.require_or_skip()                  # exit 77 (meson: skipped) if unusable
    with netbed.NetBed() as bed:
        a, b = bed.host("a"), bed.host("b")
        bed.link(a, b, "10.77.1.1/24", "10.77.1.2/24")   # -> ("eth0", "eth0")
        bed.bottleneck(a, "eth0", rate_bps=2_000_000)
        a.run(["gst-launch-1.0", ...])

Every namespace is named "nbed<pid>-<n>-<name>"; all links live inside the namespaces
(none in the root namespace), addresses must lie in 10.77.0.0/16 and there is no default
route, so no traffic leaves the test bed.  Closing the bed (end of the `with` block, an
exception, SIGTERM/SIGINT/SIGHUP, interpreter exit) kills every process it started and
deletes its namespaces, which takes links, qdiscs and firewall rules with them.  Namespaces
left by a run that died (its pid no longer exists) are removed when a NetBed is created.

Impairments (each returns a handle with change(**params) and remove()): bottleneck (tbf
qdisc), random_loss (nftables `numgen random`, netdev ingress/egress hook), burst_loss,
delay and jitter (the nfq-impair program on an NFQUEUE; binary from $NFQ_IMPAIR or the nfq_impair
argument), aqm_bottleneck (a rate, delay and drop-tail/RED/CoDel queue in the
nfq-bottleneck program on an NFQUEUE; $NFQ_BOTTLENECK).  The NFQUEUE rule is made with iptables (xt NFQUEUE, needs the iptables
package): this kernel has no nft `queue` expression (CONFIG_NFT_QUEUE unset).
"""

import atexit
import contextlib
import ctypes
import ipaddress
import itertools
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import weakref

PREFIX = "nbed"
TEST_NET = ipaddress.ip_network("10.77.0.0/16")
SKIP_CODE = 77
_CLONE_NEWNET = 0x40000000
_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)
_bed_ids = itertools.count()


class NetBedError(RuntimeError):
    """A test bed operation failed (the message says which command and why)."""


def _cmd(args, check=True, input=None, timeout=30):
    try:
        r = subprocess.run(args, capture_output=True, text=True, input=input, timeout=timeout)
    except FileNotFoundError as e:
        raise NetBedError(f"{args[0]}: not found") from e
    if check and r.returncode != 0:
        msg = (r.stderr or r.stdout).strip()
        raise NetBedError(f"`{' '.join(map(str, args))}` failed ({r.returncode}): {msg}")
    return r


def _die_with_parent():
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _list_ns():
    r = _cmd(["ip", "netns", "list"], check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def _destroy_ns(ns):
    r = _cmd(["ip", "netns", "pids", ns], check=False)
    for pid in r.stdout.split():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)
    _cmd(["ip", "netns", "del", ns], check=False)


def cleanup_stale():
    """Delete namespaces (and kill their processes) left by netbed runs whose pid is dead."""
    for ns in _list_ns():
        m = re.match(rf"{PREFIX}(\d+)-", ns)
        if m and not _alive(int(m.group(1))):
            _destroy_ns(ns)


def missing(nfq=False, nfq_impair=None, aqm=False):
    """Reason (str) why a test bed cannot run here, or None.  nfq=True also needs delay and
    burst loss: the nfq-impair binary and a working NFQUEUE rule; aqm=True needs
    aqm_bottleneck: the nfq-bottleneck binary and a working NFQUEUE rule."""
    if not sys.platform.startswith("linux"):
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool in ("ip", "tc", "nft"):
        if not shutil.which(tool):
            return f"`{tool}` not found"
    if nfq:
        path = nfq_impair or os.environ.get("NFQ_IMPAIR")
        if not path:
            return "NFQ_IMPAIR is not set (nfq-impair not built: libnetfilter_queue missing?)"
        if not os.access(path, os.X_OK):
            raise NetBedError(f"nfq-impair binary not found or not executable: {path}")
    if aqm:
        path = os.environ.get("NFQ_BOTTLENECK")
        if not path:
            return "NFQ_BOTTLENECK is not set (nfq-bottleneck not built: libnetfilter_queue?)"
        if not os.access(path, os.X_OK):
            raise NetBedError(f"nfq-bottleneck binary not found or not executable: {path}")
    ns = f"{PREFIX}{os.getpid()}-probe"
    try:
        _cmd(["ip", "netns", "add", ns])
        _cmd(["ip", "-n", ns, "link", "set", "lo", "up"])
        _cmd(["ip", "netns", "exec", ns, "nft", "list", "ruleset"])
        if nfq or aqm:
            _cmd(["ip", "-n", ns, "link", "add", "p0", "type", "veth", "peer", "name", "p1"])
            _QueueRule(ns, "p0", "egress", "udp", None, 0).remove()
    except NetBedError as e:
        return str(e)
    finally:
        _cmd(["ip", "netns", "del", ns], check=False)
    return None


def require_or_skip(nfq=False, aqm=False):
    """Print the reason and exit with 77 (meson's 'skipped') if a test bed cannot run here."""
    reason = missing(nfq, aqm=aqm)
    if reason:
        print(f"SKIP: {reason}", flush=True)
        sys.exit(SKIP_CODE)


def _interface(addr):
    iface = ipaddress.ip_interface(addr if "/" in addr else addr + "/24")
    if iface.version != 4 or not iface.network.subnet_of(TEST_NET):
        raise NetBedError(f"address {addr} is outside the test range {TEST_NET}")
    return iface


class _Lines:
    """Line reader with timeout on a process's binary stdout pipe."""

    def __init__(self, f):
        self.f, self.buf = f, b""

    def readline(self, timeout):
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.f], [], [], left)[0]:
                return None
            chunk = os.read(self.f.fileno(), 4096)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()


class Host:
    """One network namespace.  Attributes: name, ns (namespace name), ifaces
    ({ifname: "10.77.x.y" or None}), ip (first address)."""

    def __init__(self, bed, name, ns):
        self.bed, self.name, self.ns = bed, name, ns
        self.ifaces = {}
        self.peers = {}          # ifname -> (Host, ifname) at the other end of the veth

    def __repr__(self):
        return f"<Host {self.name} {self.ns}>"

    @property
    def ip(self):
        """First IPv4 address of this host (str, no prefix)."""
        return next((a for a in self.ifaces.values() if a), None)

    def _wrap(self, cmd):
        cmd = ["sh", "-c", cmd] if isinstance(cmd, str) else [str(c) for c in cmd]
        return ["ip", "netns", "exec", self.ns] + cmd

    def run(self, cmd, check=True, timeout=60, input=None):
        """Run cmd (list, or str for sh -c) in this namespace and wait (timeout in s);
        returns subprocess.CompletedProcess with text stdout/stderr."""
        r = subprocess.run(self._wrap(cmd), capture_output=True, text=True, input=input,
                           timeout=timeout, preexec_fn=_die_with_parent)
        if check and r.returncode != 0:
            raise NetBedError(f"[{self.name}] `{cmd}` failed ({r.returncode}): "
                              f"{(r.stderr or r.stdout).strip()}")
        return r

    def popen(self, cmd, **kwargs):
        """Start cmd (list, or str for sh -c) in this namespace in the background; returns a
        subprocess.Popen that the bed kills (SIGTERM, then SIGKILL after 2 s) on close."""
        p = subprocess.Popen(self._wrap(cmd), start_new_session=True,
                             preexec_fn=_die_with_parent, **kwargs)
        self.bed.procs.append(p)
        return p

    @contextlib.contextmanager
    def inside(self):
        """Context in which the calling thread is in this namespace (sockets made there
        stay in it)."""
        own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        target = os.open(f"/run/netns/{self.ns}", os.O_RDONLY)
        try:
            if _libc.setns(target, _CLONE_NEWNET) != 0:
                raise NetBedError(f"setns {self.ns}: {os.strerror(ctypes.get_errno())}")
            yield self
        finally:
            if _libc.setns(own, _CLONE_NEWNET) != 0:
                raise NetBedError("setns back to own namespace failed")
            os.close(own)
            os.close(target)

    def socket(self, family=socket.AF_INET, type=socket.SOCK_DGRAM, proto=0):
        """A socket.socket created in this namespace; closed by the bed on close."""
        with self.inside():
            s = socket.socket(family, type, proto)
        self.bed.sockets.add(s)
        return s

    def ping(self, dst, count=5, interval=0.2, timeout=1.0):
        """ICMP echo to dst: list of round-trip times in ms (None if lost); interval and
        timeout in s.  (Python raw socket: needs no ping binary.)"""
        s = self.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        ident, rtts = os.getpid() & 0xFFFF, []
        try:
            for seq in range(count):
                body = struct.pack("!HH", ident, seq) + bytes(56)
                csum = _checksum(b"\x08\x00\x00\x00" + body)
                t0 = time.monotonic()
                s.sendto(struct.pack("!BBH", 8, 0, csum) + body, (dst, 0))
                rtt = None
                while rtt is None and (left := t0 + timeout - time.monotonic()) > 0:
                    if not select.select([s], [], [], left)[0]:
                        break
                    data = s.recv(2048)
                    icmp = data[(data[0] & 0x0F) * 4:]
                    if icmp[0] == 0 and struct.unpack("!HH", icmp[4:8]) == (ident, seq):
                        rtt = (time.monotonic() - t0) * 1000
                rtts.append(rtt)
                time.sleep(max(0.0, t0 + interval - time.monotonic()))
        finally:
            s.close()
        return rtts

    def _next_ifname(self, stem):
        return next(f"{stem}{k}" for k in itertools.count() if f"{stem}{k}" not in self.ifaces)

    def _up(self, ifname, addr):
        _cmd(["ip", "-n", self.ns, "link", "set", ifname, "up"])
        ip = None
        if addr:
            iface = _interface(addr)
            _cmd(["ip", "-n", self.ns, "addr", "add", str(iface), "dev", ifname])
            ip = str(iface.ip)
        if not self.ifaces:      # the first interface carries multicast by default
            _cmd(["ip", "-n", self.ns, "route", "add", "224.0.0.0/4", "dev", ifname])
        self.ifaces[ifname] = ip


class Bridge(Host):
    """A Linux bridge "br0" alone in its own namespace; ports are named "p-<host>"."""
    dev = "br0"


def _checksum(data):
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    s = (s & 0xFFFF) + (s >> 16)
    return ~(s + (s >> 16)) & 0xFFFF


class Impairment:
    """Handle of one impairment: change(**params) alters it at run time, remove() ends it."""

    def __init__(self, host, ifname, params):
        self.host, self.ifname, self.params, self.removed = host, ifname, dict(params), False

    def change(self, **params):
        """Change some of the parameters given at creation (same names and units)."""
        unknown = set(params) - set(self.params)
        if unknown:
            raise NetBedError(f"unknown parameters {sorted(unknown)}")
        self.params.update(params)
        self._apply(False)

    def remove(self):
        """Remove the impairment (idempotent); nfq impairments return their final stats()."""
        if not self.removed:
            self.removed = True
            return self._remove()
        return None


class _Tbf(Impairment):
    def _apply(self, first):
        p = self.params
        _cmd(["tc", "-n", self.host.ns, "qdisc", "add" if first else "change", "dev",
              self.ifname, "root", "tbf", "rate", f"{int(p['rate_bps'])}bit",
              "burst", str(int(p["burst_bytes"])), "latency", f"{p['latency_ms']}ms"])

    def _remove(self):
        _cmd(["tc", "-n", self.host.ns, "qdisc", "del", "dev", self.ifname, "root"], check=False)

    def sent_bytes(self):
        """The bytes this tbf has sent so far (whole frames, headers too: what the link
        carried)."""
        r = _cmd(["tc", "-n", self.host.ns, "-s", "qdisc", "show", "dev", self.ifname])
        m = re.search(r"Sent (\d+) bytes", r.stdout)
        if not m:
            raise NetBedError(f"no byte count for the tbf on {self.ifname}: {r.stdout!r}")
        return int(m.group(1))


class _NftLoss(Impairment):
    ids = itertools.count()

    def __init__(self, host, ifname, params, direction):
        super().__init__(host, ifname, params)
        self.direction, self.table = direction, f"netbed_loss{next(self.ids)}"

    def _apply(self, first):
        p, t = self.params, self.table
        match = "meta protocol { ip, ip6 }"
        if p["udp_port"] is not None:
            match = f"meta l4proto udp udp dport {int(p['udp_port'])}"
        rule = f"{match} numgen random mod 10000 < {int(round(p['percent'] * 100))} drop"
        if first:
            script = (f"table netdev {t} {{\n chain c {{\n  type filter hook {self.direction} "
                      f"device \"{self.ifname}\" priority 0; policy accept;\n  {rule}\n }}\n}}\n")
        else:
            script = f"flush chain netdev {t} c\nadd rule netdev {t} c {rule}\n"
        _cmd(["ip", "netns", "exec", self.host.ns, "nft", "-f", "-"], input=script)

    def _remove(self):
        _cmd(["ip", "netns", "exec", self.host.ns, "nft", "delete", "table", "netdev",
              self.table], check=False)


class _QueueRule:
    """iptables NFQUEUE rule (mangle table) for ingress of a host interface (PREROUTING
    -i), egress (POSTROUTING -o), or a bridge port (physdev in/out, via br_netfilter),
    for UDP (optionally one dport) or all IPv4.  No --queue-bypass: without a listener the
    packets are dropped.  (This kernel has no nft `queue` expression, hence iptables.)"""

    def __init__(self, ns, ifname, direction, match, udp_port, queue, bridged=False):
        if not shutil.which("iptables"):
            raise NetBedError("iptables not found (needed for NFQUEUE: the kernel has no nft "
                              "`queue`); apt-get install iptables")
        self.ns, inp = ns, direction == "ingress"
        if bridged:
            dev = ["-m", "physdev", "--physdev-in" if inp else "--physdev-out", ifname]
        else:
            dev = ["-i" if inp else "-o", ifname]
        proto = []
        if match == "udp":
            proto = ["-p", "udp"]
            if udp_port is not None:
                proto += ["--dport", str(int(udp_port))]
        self.spec = (["PREROUTING" if inp else "POSTROUTING"] + dev + proto
                     + ["-j", "NFQUEUE", "--queue-num", str(queue)])
        self._ipt("-A")

    def _ipt(self, op, check=True):
        _cmd(["ip", "netns", "exec", self.ns, "iptables", "-w", "5", "-t", "mangle", op]
             + self.spec, check=check)

    def remove(self):
        self._ipt("-D", check=False)


class _NfqProgram(Impairment):
    """An impairment run by a program on an NFQUEUE (nfq-impair, nfq-bottleneck) that
    takes "name value" lines on stdin and prints a statistics line on "stats"."""
    PROGRAM = STATS = None

    def __init__(self, host, ifname, params, proc, lines, rule):
        super().__init__(host, ifname, params)
        self.proc, self.lines, self.rule = proc, lines, rule

    def _send(self, *commands):
        try:
            self.proc.stdin.write("".join(c + "\n" for c in commands).encode())
            self.proc.stdin.flush()
        except BrokenPipeError as e:
            raise NetBedError(f"{self.PROGRAM} has exited") from e

    def _read_stats(self, timeout=5.0):
        while (line := self.lines.readline(timeout)) is not None:
            m = self.STATS.search(line)
            if m:
                return self._parse_stats(m)
        raise NetBedError(f"no statistics line from {self.PROGRAM}")

    def stats(self):
        """The program's counters so far (a dict; see the subclass)."""
        self._send("stats")
        return self._read_stats()

    def _remove(self):
        self.rule.remove()
        self.proc.send_signal(signal.SIGTERM)
        stats = self._read_stats()
        self.proc.wait(5)
        return stats


class _Nfq(_NfqProgram):
    PROGRAM = "nfq-impair"
    STATS = re.compile(r"nfq-impair: ((?:\w+=\d+ ?)+)$")

    def change(self, **params):
        """Change delay_ms, jitter_ms, keep_order, every, prob, burst_len or seed; every=
        and prob= exclude each other, so setting one non-zero clears the other."""
        if params.get("prob") and "every" not in params:
            params["every"] = 0
        if params.get("every") and "prob" not in params:
            params["prob"] = 0.0
        super().change(**params)

    @staticmethod
    def _parse_stats(m):
        """{"passed": n, "dropped": n, "bursts": n} (packets, bursts) and the jitter's
        "jitter_mean_us", "jitter_max_us" (hold beyond the fixed delay) and "reordered"
        (packets that left after a later one)."""
        return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(1))}

    def _apply(self, first):
        p = self.params
        _check_burst(p)
        self._send("every 0", f"burst {p['burst_len']}", f"prob {p['prob']}",
                   f"every {p['every']}", f"delay {p['delay_ms']}",
                   f"jitter {p['jitter_ms']}", f"order {int(bool(p['keep_order']))}",
                   f"seed {p['seed']}")
        self.stats()


class _AqmBottleneck(_NfqProgram):
    PROGRAM = "nfq-bottleneck"
    STATS = re.compile(r"nfq-bottleneck: ((?:\w+=\d+ ?)+)$")
    # netbed's parameter names -> nfq-bottleneck's
    NAMES = dict(rate_bps="rate", delay_ms="delay", limit_bytes="limit",
                 limit_packets="limit-packets", overhead_bytes="overhead", qdisc="qdisc",
                 min_th_bytes="min-th", max_th_bytes="max-th", max_p="max-p", w_q="w-q",
                 gentle="gentle", seed="seed", target_ms="target", interval_ms="interval")

    @staticmethod
    def _parse_stats(m):
        return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(1))}

    @classmethod
    def args(cls, params):
        """Command-line options for the parameters that are set (not None)."""
        out = []
        for k, v in params.items():
            if v is not None:
                out += [f"--{cls.NAMES[k]}", str(int(v) if isinstance(v, bool) else v)]
        return out

    def change(self, **params):
        """Change any parameter given at creation or a RED/CoDel one (same names)."""
        _check_aqm_params(params)
        self.params.update(params)
        opts = self.args(params)
        self._send(*(f"{opts[i][2:]} {opts[i + 1]}" for i in range(0, len(opts), 2)))
        self.stats()            # a round trip: the change is in force on return

    def reset(self):
        """Start the counters anew (e.g. after a warm-up)."""
        self._send("reset")


def _check_aqm_params(p):
    unknown = set(p) - set(_AqmBottleneck.NAMES)
    if unknown:
        raise NetBedError(f"unknown parameters {sorted(unknown)}")
    if p.get("qdisc", "droptail") not in ("droptail", "red", "codel"):
        raise NetBedError(f"qdisc must be droptail, red or codel, not {p['qdisc']!r}")
    if any(v is not None and k != "qdisc" and v < 0 for k, v in p.items()):
        raise NetBedError("aqm_bottleneck parameters must not be negative")
    if p.get("rate_bps") is not None and p["rate_bps"] <= 0:
        raise NetBedError("rate_bps must be above 0")


def _check_burst(p):
    if p["burst_len"] < 1 or (p["every"] and p["burst_len"] >= p["every"]):
        raise NetBedError("need 1 <= burst_len < every")
    if not 0 <= p["prob"] <= 1:
        raise NetBedError("prob must be within 0..1")


class NetBed:
    """A set of namespaces, links and impairments, all removed by close()/end of `with`.
    nfq_impair, nfq_bottleneck: paths of the NFQUEUE programs (default: $NFQ_IMPAIR,
    $NFQ_BOTTLENECK).  ipv6: keep IPv6
    enabled in the namespaces (default off, so no IPv6 chatter disturbs counts).
    nfq_priority: SCHED_FIFO priority (1..99) of the NFQUEUE programs, 0 for ordinary
    scheduling (default 1: they stand in for kernel qdiscs, which no busy process delays;
    at nice 10 beside two busy loops nfq-impair held packets up to 60 ms late)."""

    def __init__(self, nfq_impair=None, ipv6=False, nfq_bottleneck=None, nfq_priority=1):
        cleanup_stale()
        self.tag = f"{PREFIX}{os.getpid()}-{next(_bed_ids)}"
        self.nfq_impair = nfq_impair or os.environ.get("NFQ_IMPAIR")
        self.nfq_bottleneck = nfq_bottleneck or os.environ.get("NFQ_BOTTLENECK")
        self.ipv6 = ipv6
        self.nfq_priority = nfq_priority
        self.hosts, self.procs, self.impairments = {}, [], []
        self.sockets = weakref.WeakSet()
        self._queues = itertools.count(1)
        self._closed = False
        self._old_handlers = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                self._old_handlers[sig] = signal.signal(sig, self._on_signal)
        atexit.register(self.close)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @staticmethod
    def _on_signal(signum, frame):
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signum)     # unwinds `with` blocks, so close() runs

    def _new_ns(self, cls, name):
        if not re.fullmatch(r"[a-z0-9_]{1,12}", name) or name in self.hosts:
            raise NetBedError(f"bad or duplicate host name {name!r} (a-z0-9_, <= 12 chars)")
        h = cls(self, name, f"{self.tag}-{name}")
        self.hosts[name] = h                # registered first: close() deletes it anyway
        _cmd(["ip", "netns", "add", h.ns])
        _cmd(["ip", "-n", h.ns, "link", "set", "lo", "up"])
        if not self.ipv6:
            for key in ("all", "default"):
                h.run(["sysctl", "-qw", f"net.ipv6.conf.{key}.disable_ipv6=1"])
        return h

    def host(self, name, forwarding=False):
        """A new namespace (Host) with loopback up; forwarding=True makes it an IPv4 router."""
        h = self._new_ns(Host, name)
        if forwarding:
            h.run(["sysctl", "-qw", "net.ipv4.ip_forward=1"])
        return h

    def link(self, h1, h2, addr1=None, addr2=None, ifname1=None, ifname2=None):
        """A veth pair between h1 and h2 (addresses like "10.77.1.1/24", /24 if omitted;
        interfaces default to eth0, eth1, ... per host); returns (ifname1, ifname2)."""
        for addr in (addr1, addr2):
            if addr:
                _interface(addr)            # refuse before creating anything
        if1, if2 = ifname1 or h1._next_ifname("eth"), ifname2 or h2._next_ifname("eth")
        _cmd(["ip", "-n", h1.ns, "link", "add", if1, "type", "veth", "peer", "name", if2,
              "netns", h2.ns])
        h1._up(if1, addr1)
        h2._up(if2, addr2)
        h1.peers[if1], h2.peers[if2] = (h2, if2), (h1, if1)
        return if1, if2

    def bridge(self, name, snooping=True, querier=True, **options):
        """A bridge "br0" in its own namespace, IGMP snooping and querier on by default;
        options are extra `ip link ... type bridge` settings, e.g.
        mcast_query_interval=1000 (centiseconds)."""
        b = self._new_ns(Bridge, name)
        opts = ["mcast_snooping", str(int(snooping)), "mcast_querier", str(int(querier))]
        for k, v in options.items():
            opts += [k, str(v)]
        _cmd(["ip", "-n", b.ns, "link", "add", b.dev, "type", "bridge"] + opts)
        _cmd(["ip", "-n", b.ns, "link", "set", b.dev, "up"])
        return b

    def attach(self, host, bridge, addr=None, ifname=None):
        """Connect host to bridge with a veth (host side ethN, bridge side "p-<host>");
        returns (host_ifname, port_ifname)."""
        if addr:
            _interface(addr)
        hif = ifname or host._next_ifname("eth")
        port = f"p-{host.name}"
        if port in bridge.ifaces:
            port = bridge._next_ifname(port[:11] + "-")
        _cmd(["ip", "-n", host.ns, "link", "add", hif, "type", "veth", "peer", "name", port,
              "netns", bridge.ns])
        _cmd(["ip", "-n", bridge.ns, "link", "set", port, "master", bridge.dev, "up"])
        bridge.ifaces[port] = None
        host._up(hif, addr)
        host.peers[hif], bridge.peers[port] = (bridge, port), (host, hif)
        return hif, port

    def _track(self, imp, first=True):
        imp._apply(first)
        self.impairments.append(imp)
        return imp

    def bottleneck(self, host, ifname, rate_bps, burst_bytes=None, latency_ms=50):
        """Token bucket (tbf) on egress of ifname: rate_bps in bit/s, burst_bytes in bytes
        (default 10 ms of rate, at least 3028), latency_ms = maximum queueing delay in ms.
        change(rate_bps=, burst_bytes=, latency_ms=)."""
        if burst_bytes is None:
            burst_bytes = max(3028, int(rate_bps / 8 / 100))
        return self._track(_Tbf(host, ifname, dict(rate_bps=rate_bps, burst_bytes=burst_bytes,
                                                   latency_ms=latency_ms)))

    def random_loss(self, host, ifname, percent, direction="egress", udp_port=None):
        """Drop percent % (0..100, step 0.01) of IP packets at ingress or egress of ifname,
        only UDP to udp_port if given (nftables numgen in a netdev-family table).
        change(percent=, udp_port=)."""
        _check_dir(direction)
        return self._track(_NftLoss(host, ifname, dict(percent=percent, udp_port=udp_port),
                                    direction))

    def burst_loss(self, host, ifname, every=0, prob=0.0, burst_len=1, udp_port=None,
                   direction="egress", seed=1):
        """Drop bursts of burst_len consecutive UDP packets (to udp_port if given): either
        the last burst_len of every `every` packets (deterministic) or bursts starting with
        probability prob per packet (PRNG seeded with seed).  See nfq() for placement;
        handle has stats() and change(every=, prob=, burst_len=, seed=, delay_ms=)."""
        if bool(every) == bool(prob):
            raise NetBedError("give exactly one of every= or prob=")
        return self.nfq(host, ifname, direction, "udp", udp_port, every=every, prob=prob,
                        burst_len=burst_len, seed=seed)

    def delay(self, host, ifname, ms, direction="egress", udp_port=None):
        """Fixed one-way delay of ms milliseconds (order kept) at ingress or egress of
        ifname, for all IPv4 packets, or only UDP to udp_port if given.  See nfq() for
        placement; handle has change(delay_ms=) and stats()."""
        return self.nfq(host, ifname, direction, "ip" if udp_port is None else "udp",
                        udp_port, delay_ms=ms)

    def jitter(self, host, ifname, ms, direction="egress", udp_port=None, keep_order=True,
               seed=1, delay_ms=0):
        """Jitter: each packet is held a time drawn uniformly from [0, ms] milliseconds
        (after a fixed delay_ms), from a PRNG seeded with seed; with keep_order (default) a
        packet also waits for the one before it, so none overtakes another.  For all IPv4
        packets, or only UDP to udp_port if given, at ingress or egress of ifname; see nfq()
        for placement.  Handle has change(jitter_ms=, keep_order=, delay_ms=, seed=) and
        stats() (with jitter_mean_us, jitter_max_us, reordered)."""
        return self.nfq(host, ifname, direction, "ip" if udp_port is None else "udp",
                        udp_port, delay_ms=delay_ms, jitter_ms=ms, keep_order=keep_order,
                        seed=seed)

    def nfq(self, host, ifname, direction="egress", match="udp", udp_port=None, delay_ms=0,
            every=0, prob=0.0, burst_len=1, seed=1, jitter_ms=0, keep_order=True):
        """General nfq-impair impairment (delay in ms, jitter (see jitter()) and/or burst
        loss, see burst_loss) for match="udp" (optionally one udp_port) or "ip" (all IPv4).
        Egress of a host's link is applied at the ingress of its other end (same packets;
        held packets would otherwise count against the sender's socket buffer and cap its
        rate at SO_SNDBUF/delay); a bridge port is impaired in the bridge (br_netfilter,
        physdev).
        One per interface and direction; handle has stats() and change(**params)."""
        params = dict(delay_ms=delay_ms, every=every, prob=prob, burst_len=burst_len, seed=seed,
                      jitter_ms=jitter_ms, keep_order=keep_order)
        _check_burst(params)
        args = ["-d", delay_ms, "-j", jitter_ms, "-o", int(bool(keep_order)), "-b", burst_len,
                "-s", seed]
        args += ["-n", every] if every else ["-p", prob] if prob else []
        return self._nfq_program(_Nfq, self.nfq_impair, "NFQ_IMPAIR", "nfq_impair", args,
                                 host, ifname, direction, match, udp_port, params)

    def aqm_bottleneck(self, host, ifname, rate_bps, delay_ms=0, limit_bytes=None,
                       qdisc="droptail", direction="egress", match="ip", udp_port=None,
                       **params):
        """A bottleneck link in user space (nfq-bottleneck): rate_bps in bit/s (each IP
        packet plus overhead_bytes=14 takes its size * 8 / rate), a one-way delay_ms after
        serialisation, a queue of limit_bytes (default: 200 ms of the rate, at least 20
        packets of 1514 bytes) and/or limit_packets, and qdisc "droptail", "red" (min_th_bytes,
        max_th_bytes, max_p, w_q, gentle, seed; unset ones follow from the rate) or
        "codel" (target_ms=5, interval_ms=100).  For all IPv4 packets, or UDP
        (match="udp", optionally one udp_port).  Placed like nfq(); handle has
        change(**params), stats() (packets and bytes passed, dropped_aqm, dropped_limit,
        delay_mean_us/delay_max_us in the queue, link_bps), reset() and remove()."""
        params = dict(rate_bps=rate_bps, delay_ms=delay_ms, limit_bytes=limit_bytes,
                      qdisc=qdisc, **params)
        _check_aqm_params(params)
        return self._nfq_program(_AqmBottleneck, self.nfq_bottleneck, "NFQ_BOTTLENECK",
                                 "nfq_bottleneck", _AqmBottleneck.args(params),
                                 host, ifname, direction, match, udp_port, params)

    def _nfq_place(self, host, ifname, direction):
        """Where an nfq impairment of (host, ifname, direction) runs: (host, ifname,
        direction, bridged); refuses a second one at the same place."""
        _check_dir(direction)
        bridged = isinstance(host, Bridge)
        if direction == "egress" and not bridged and ifname in host.peers:
            # Held packets still count against the sending socket's buffer, which would cap
            # its rate at SO_SNDBUF/delay: impair at the ingress of the other end instead.
            host, ifname = host.peers[ifname]
            bridged, direction = isinstance(host, Bridge), "ingress"
        for imp in self.impairments:
            if (isinstance(imp, _NfqProgram) and not imp.removed
                    and imp.where == (host, ifname, direction)):
                raise NetBedError(f"{host.name}/{ifname} {direction} already has an nfq "
                                  f"impairment (egress of a link is applied at the ingress "
                                  f"of its other end); change() that one instead")
        return host, ifname, direction, bridged

    def _nfq_program(self, cls, path, env, arg, args, host, ifname, direction, match,
                     udp_port, params):
        """Start cls's program (path; from $env or NetBed(arg=PATH)) with args on a new
        queue and send the matched packets of ifname to it."""
        host, ifname, direction, bridged = self._nfq_place(host, ifname, direction)
        if not path or not os.access(path, os.X_OK):
            raise NetBedError(f"{cls.PROGRAM} binary not found ({path or env + ' not set'}); "
                              f"build tests/net (meson) or pass NetBed({arg}=PATH)")
        queue = next(self._queues)
        proc = host.popen([path, "-q", queue] + args, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, bufsize=0)
        lines = _Lines(proc.stdout)
        if not (lines.readline(5.0) or "").startswith(f"{cls.PROGRAM}: ready"):
            raise NetBedError(f"{cls.PROGRAM} did not start in {host.name} "
                              f"(exit {proc.poll()})")
        if self.nfq_priority:
            # `ip netns exec` has exec'd the program by now: same pid
            os.sched_setscheduler(proc.pid, os.SCHED_FIFO,
                                  os.sched_param(self.nfq_priority))
        if bridged:
            host.run(["sysctl", "-qw", "net.bridge.bridge-nf-call-iptables=1"])
        rule = _QueueRule(host.ns, ifname, direction, match, udp_port, queue, bridged)
        imp = cls(host, ifname, params, proc, lines, rule)
        imp.where = (host, ifname, direction)
        self.impairments.append(imp)
        return imp

    def close(self):
        """Kill all processes, close sockets and delete all namespaces (idempotent)."""
        if self._closed:
            return
        self._closed = True
        for sig in self._old_handlers:          # no second interruption while cleaning
            signal.signal(sig, signal.SIG_IGN)
        try:
            for p in reversed(self.procs):
                _stop(p)
            for s in list(self.sockets):
                s.close()
            for h in self.hosts.values():
                _destroy_ns(h.ns)
        finally:
            for sig, old in self._old_handlers.items():
                signal.signal(sig, old)
            atexit.unregister(self.close)


SO_MAX_PACING_RATE = getattr(socket, "SO_MAX_PACING_RATE", 47)     # Linux


def greedy_tcp(snd, rcv, dst, port, cc, stop, out, t0=0.0, start=0.0, stop_at=None,
               connected=None, go=None, connect_early=False, paced=False):
    """A greedy TCP flow from host snd to dst:port on host rcv (congestion control
    cc), sending from t0 + start until stop is set or t0 + stop_at (monotonic
    clock); with go (a threading.Event), not before go is set (with
    connect_early, it connects at once and only its data waits for go). The
    receiver appends (seconds since t0, cumulative bytes) to out; the sender
    appends to the list connected, if given, the seconds since t0 at which it
    called connect() (with connect_early, at which it began to send). With paced,
    the kernel paces the sender's segments (TCP's internal pacing, switched on
    by SO_MAX_PACING_RATE: about 1.2 cwnd per smoothed RTT once past slow
    start) instead of sending them as the acks come. Returns the two threads,
    already started."""
    lsock = rcv.socket(type=socket.SOCK_STREAM)
    lsock.bind((dst, port))
    lsock.listen(1)

    def rx():
        c, _ = lsock.accept()
        c.settimeout(0.2)
        total = 0
        while not stop.is_set():
            try:
                n = len(c.recv(65536))
            except socket.timeout:
                continue
            except OSError:
                break
            if n == 0:
                break
            total += n
            out.append((time.monotonic() - t0, total))
        c.close()
        lsock.close()

    def tx():
        # made (and with connect_early connected) before the start, so that it adds
        # nothing to the time from go to the first data
        s = snd.socket(type=socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        if paced:
            # any cap but ~0 turns the internal pacing on; 1 GB/s caps nothing here
            s.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, 10 ** 9)
        if connect_early:
            s.connect((dst, port))
        if go is not None:
            go.wait()
        time.sleep(max(0.0, t0 + start - time.monotonic()))
        if stop.is_set():
            return
        if connected is not None:
            connected.append(round(time.monotonic() - t0, 4))
        if not connect_early:
            s.connect((dst, port))
        s.settimeout(0.2)
        buf = bytes(65536)
        while not stop.is_set() and (stop_at is None or time.monotonic() < t0 + stop_at):
            try:
                s.send(buf)
            except socket.timeout:
                continue
            except OSError:
                break
        s.close()

    threads = [threading.Thread(target=f, daemon=True) for f in (rx, tx)]
    for t in threads:
        t.start()
    return threads


def paced_udp(snd, rcv, dst, port, rate_bps, size, stop, out, t0, stop_at):
    """UDP datagrams of size bytes from snd to dst:port on rcv, paced so that they take
    rate_bps on an Ethernet wire (size + 42 bytes each), from t0 to t0 + stop_at
    (monotonic clock) or until stop is set; the receiver appends (seconds since t0,
    cumulative payload bytes) to out until stop is set.  Returns the two threads,
    already started."""
    rsock = rcv.socket()
    rsock.bind((dst, port))
    rsock.settimeout(0.2)

    def rx():
        total = 0
        while not stop.is_set():
            try:
                total += len(rsock.recv(65536))
            except socket.timeout:
                continue
            except OSError:             # closed by NetBed.close()
                break
            out.append((time.monotonic() - t0, total))

    def tx():
        s, payload = snd.socket(), bytes(size)
        gap = (size + 14 + 20 + 8) * 8 / rate_bps
        due = t0
        while not stop.is_set() and due < t0 + stop_at:
            time.sleep(max(0.0, due - time.monotonic()))
            s.sendto(payload, (dst, port))
            due += gap

    threads = [threading.Thread(target=f, daemon=True) for f in (rx, tx)]
    for t in threads:
        t.start()
    return threads


_TCP_ESTABLISHED = "01"


def tcp_sockets_to(port):
    """[(state, unacked bytes)] of the TCP sockets in the calling thread's
    namespace whose remote port is port (IPv4, /proc/net/tcp; state as the
    kernel's hex code: "01" established, "02" SYN sent)."""
    out = []
    with open("/proc/thread-self/net/tcp") as f:
        next(f)
        for line in f:
            cols = line.split()
            if int(cols[2].rsplit(":", 1)[1], 16) == port:
                out.append((cols[3], int(cols[4].split(":")[0], 16)))
    return out


def watch_connect(host, port, t0, times, go=None, poll=0.001, timeout=30.0):
    """Watch host's TCP sockets to port every poll seconds from a thread of
    its own: times["connect"] gets the seconds since t0 at which the first
    one was seen (its connect() came a poll and a wake-up before at most),
    and times["first_tx"] when it was first seen established with bytes not
    yet acknowledged (its first data). go, if given, is set when the socket
    is seen, or after timeout seconds if it is not. Returns the thread,
    already started."""
    def watch():
        end = time.monotonic() + timeout
        with host.inside():
            while time.monotonic() < end and "first_tx" not in times:
                socks = tcp_sockets_to(port)
                now = round(time.monotonic() - t0, 4)
                if socks:
                    times.setdefault("connect", now)
                if any(st == _TCP_ESTABLISHED and unacked for st, unacked in socks):
                    times["first_tx"] = now
                if go is not None and "connect" in times:
                    go.set()
                time.sleep(poll)
        if go is not None:
            go.set()

    th = threading.Thread(target=watch, daemon=True)
    th.start()
    return th


# checksumsink's line: running time, SHA-1. gst-launch -m prints a message's
# "Got message ... (element): " prefix and its structure in two writes, so a
# line from the streaming thread can land between them, after the prefix.
_CHECKSUM = re.compile(r"(?:^|\): )\d+:\d+:\d+\.\d+ ([0-9a-f]{40})$")


def checksum_hashes(text):
    """The frame hashes checksumsink printed in gst-launch output text, in order."""
    return [m.group(1) for m in map(_CHECKSUM.search, text.splitlines()) if m]


def timed_lines(stream):
    """Collect the lines of a binary pipe (e.g. a popen'd process's stdout) as they arrive:
    returns (lines, thread); lines gets (time.monotonic() on arrival, str line) appended by
    the daemon thread until end of file."""
    lines = []

    def read():
        buf = b""
        while True:
            try:
                chunk = os.read(stream.fileno(), 65536)
            except (OSError, ValueError):       # closed under us by NetBed.close()
                chunk = b""
            if not chunk:
                break
            buf += chunk
            now = time.monotonic()
            *complete, buf = buf.split(b"\n")
            lines.extend((now, ln.decode(errors="replace")) for ln in complete)
        if buf:
            lines.append((time.monotonic(), buf.decode(errors="replace")))

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return lines, t


_ELEMENT_MESSAGE = re.compile(
    r'^Got message #\d+ from element "(\w+)" \(element\): ([\w-]+), (.*)$')
_MESSAGE_PREFIX = re.compile(r'^Got message #\d+ from element "\w+" \(element\): ?')
_STRUCTURE = re.compile(r"^[\w-]+, [\w-]+=\(")


def message_lines(text):
    """The lines of gst-launch -m output text, with each element message's
    prefix joined again to its structure: another thread's whole lines (a
    checksumsink's) can land between the two writes gst-launch makes of one
    message, so the prefix ends a line of its own and the structure starts a
    later one. The lines that came between follow the joined one."""
    out, pending, between = [], None, []
    for line in (ln.strip() for ln in text.splitlines()):
        prefix = _MESSAGE_PREFIX.match(line)
        if pending is not None and _STRUCTURE.match(line):
            out.append(pending + line)
            out.extend(between)
            pending, between = None, []
        elif prefix and not _STRUCTURE.match(line[prefix.end():]):
            if pending is not None:       # a prefix whose structure never came
                out.append(pending)
                out.extend(between)
            pending = prefix.group(0).rstrip() + " "
            between = [line[prefix.end():]] if line[prefix.end():] else []
        elif pending is not None:
            between.append(line)
        else:
            out.append(line)
    if pending is not None:
        out.append(pending)
        out.extend(between)
    return out


def element_messages(text, element, name):
    """The fields of element messages `name` from `element` in gst-launch -m
    output, as dicts of strings."""
    out = []
    for line in message_lines(text):
        m = _ELEMENT_MESSAGE.match(line)
        if m and m.group(1) == element and m.group(2) == name:
            fields = dict(re.findall(r'([\w-]+)=\([\w]+\)("[^"]*"|[^,;]+)',
                                     m.group(3)))
            out.append({k: v.strip('"') for k, v in fields.items()})
    return out


class Checks:
    """A test's named checks: each call prints "ok: name: detail" or
    "FAIL: ..."; summary() prints the closing "N passed, N failed" line and
    returns the exit status."""

    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, name, ok, detail=""):
        print(f"{'ok' if ok else 'FAIL'}: {name}: {detail}", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return bool(ok)

    def summary(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 else 1


def interrupt(p, timeout=10):
    """SIGINT to p (gst-launch -e then ends the stream with EOS), wait up to timeout
    seconds for it to exit, and kill it if it does not."""
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()


def _check_dir(direction):
    if direction not in ("ingress", "egress"):
        raise NetBedError(f"direction must be 'ingress' or 'egress', not {direction!r}")


def _stop(p):
    if p.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
        try:
            p.wait(2)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    for f in (p.stdin, p.stdout, p.stderr):
        if f:
            with contextlib.suppress(OSError):
                f.close()
