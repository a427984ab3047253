#!/usr/bin/env python3
"""Every gst-launch-1.0 example of README.md, docs/*.md and docs/protocols/*.md runs as
written and shows video at the source's frame rate.

Extraction: every fenced block (```sh, ```bash, ```shell, ```console or a bare ```) that
contains `gst-launch-1.0`; backslash-newline is removed as the shell does; each resulting
line that starts with gst-launch-1.0 (after optional VAR=value words or a `$ ` prompt) is one
process, and the processes of one block run together, in the order written (0.5 s apart),
in a fresh network namespace of their own (so 127.0.0.1 and fixed ports collide with
nothing).  Blocks run one at a time (x264 at 720p is heavy on two shared cores).

The only changes to a command: `-v` after gst-launch-1.0, and each display sink
(autovideosink, autoaudiosink and the platform sinks) becomes
`fakesink name=readme_sinkN sync=true silent=false`: it renders on the clock like a display
sink and, under -v, prints one `chain` line per buffer, which the test timestamps on
arrival.  The rendered rate of a sink is its buffers from one second after its first one
(warm-up) until the interrupt, divided by that span; it must reach 90 % of the source's frame
rate (the last framerate= before the sink in its own command, else the one framerate= of
the block, else videotestsrc's 30/1).  A block runs until every sink has had WARMUP + MEASURE seconds since
its first frame, or MAX_RUN seconds, then every process gets SIGINT.  MAX_RUN leaves room for
a receiver started after its sender: it shows nothing until the next keyframe (x264enc's
default: every 250 frames), and the first-frame time is printed.  A display sink would also
drop frames later than 20 ms; the counting sink does not (it would make the verdict depend
on the load of the machine), so the rate is that of frames reaching the sink.

Every process must run to the interrupt (or end by itself with status 0) without an ERROR, a GLib CRITICAL, an unparsable
pipeline or gst-launch's "Pipeline construction is invalid, please add queues".

Arguments: markdown files to read instead of README.md and docs/ (to try the test itself).

Not run, and listed as SKIP with the reason: blocks with a `...` placeholder or a shell
variable (not runnable as written).  Blocks with no display sink run for MEASURE seconds and
are checked for errors only (their frame rate is not measured; the output says so)."""
import glob
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WARMUP, MEASURE, MAX_RUN = 1.0, 4.0, 20.0      # seconds
MIN_SPAN = 2.0                                 # least measured span (s) for a verdict
START_GAP = 0.5                                # between the processes of a block (s)
MIN_FRACTION = 0.9                             # of the source's frame rate
DEFAULT_FPS = 30.0                             # videotestsrc's default framerate

SHELL_FENCES = {"", "sh", "bash", "shell", "console"}
FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
LAUNCH = re.compile(r"^((?:\w+=\S*\s+)*)gst-launch-1\.0(?=\s|$)(.*)$")
DISPLAY_SINKS = re.compile(
    r"(?<![\w-])(autovideosink|autoaudiosink|xvimagesink|ximagesink|glimagesink|"
    r"waylandsink|kmssink|fbdevsink|gtksink|pulsesink|alsasink)(?![\w-])")
AUDIO_SINKS = {"autoaudiosink", "pulsesink", "alsasink"}
FRAMERATE = re.compile(r"framerate=(?:\(fraction\))?(\d+)/(\d+)")
CHAIN = re.compile(r"last-message = chain .*\((readme_sink\d+):sink\)")
PROBLEMS = [
    (re.compile(r"(?:^|\s)ERROR[: ]"), "ERROR"),
    (re.compile(r"-CRITICAL \*\*"), "CRITICAL"),
    (re.compile(r"erroneous pipeline"), "unparsable pipeline"),
    (re.compile(r"Pipeline construction is invalid"), "needs queues"),
]


class Block:
    """One fenced block: where it is, its logical lines (continuations joined)."""

    def __init__(self, path, line, lines):
        self.where = f"{os.path.relpath(path, ROOT)}:{line}"
        self.commands, self.others = [], []
        for text in join_continuations(lines):
            text = text.strip()
            if text.startswith("$ "):
                text = text[2:].strip()
            if not text or text.startswith("#"):
                continue
            (self.commands if LAUNCH.match(text) else self.others).append(text)

    def skip_reason(self):
        text = " ".join(self.commands)
        if "..." in text or "\u2026" in text:
            return "has a `...` placeholder: not runnable as written"
        if re.search(r"\$[{\w(]", text):
            return "uses a shell variable: not runnable as written"
        return None


def join_continuations(lines):
    """The logical lines of a shell block: a trailing backslash joins the next line."""
    out, cur = [], ""
    for ln in lines:
        if ln.rstrip().endswith("\\"):
            cur += ln.rstrip()[:-1]
        else:
            out.append(cur + ln)
            cur = ""
    if cur:
        out.append(cur)
    return out


def shell_blocks(path):
    """The fenced shell blocks of a markdown file that mention gst-launch-1.0."""
    blocks, fence, start, body = [], None, 0, []
    with open(path, encoding="utf-8") as f:
        for n, ln in enumerate(f.read().splitlines(), 1):
            m = FENCE.match(ln)
            if fence is None and m:
                fence, lang, start, body = m.group(1), m.group(2).lower(), n, []
            elif fence is not None and ln.strip().startswith(fence[0] * 3) and not \
                    ln.strip().strip(fence[0]):
                if lang in SHELL_FENCES and any("gst-launch-1.0" in b for b in body):
                    blocks.append(Block(path, start, body))
                fence = None
            elif fence is not None:
                body.append(ln)
    return blocks


def documents():
    if sys.argv[1:]:                    # other markdown files, to check this test itself
        return [os.path.abspath(a) for a in sys.argv[1:]]
    return ([os.path.join(ROOT, "README.md")]
            + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
            + sorted(glob.glob(os.path.join(ROOT, "docs", "protocols", "*.md"))))


class Process:
    """One gst-launch-1.0 command of a block, rewritten for counting."""

    def __init__(self, command, first_sink):
        self.command = command
        self.sinks = {}                         # name -> display sink it replaced
        self.expected = {}                      # name -> frames/s of the caps before it

        def to_counting_sink(m):
            name = f"readme_sink{first_sink + len(self.sinks)}"
            self.sinks[name] = m.group(1)
            rates = [int(n) / int(d) for n, d in FRAMERATE.findall(m.string[:m.start()])
                     if int(d)]
            self.expected[name] = rates[-1] if rates else None
            return f"fakesink name={name} sync=true silent=false"

        env, rest = LAUNCH.match(command).groups()
        rest = DISPLAY_SINKS.sub(to_counting_sink, rest)
        self.run_as = f"{env}exec gst-launch-1.0 -v{rest}"
        self.proc = self.out = self.err = None
        self.exited_early = None

    def start(self, host):
        self.proc = host.popen(["sh", "-c", self.run_as], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
        self.out, self.out_reader = netbed.timed_lines(self.proc.stdout)
        self.err, self.err_reader = netbed.timed_lines(self.proc.stderr)

    def frames(self, sink):
        """Arrival times of the buffers sink rendered."""
        return [t for t, ln in list(self.out) if (m := CHAIN.search(ln)) and m.group(1) == sink]

    def stop(self):
        if self.proc.poll() is not None and self.exited_early is None:
            self.exited_early = self.proc.returncode
        netbed.interrupt(self.proc)
        self.out_reader.join(5)
        self.err_reader.join(5)

    def problems(self):
        found = []
        for _, ln in self.out + self.err:
            for rx, what in PROBLEMS:
                problem = f"{what}: {ln.strip()[:200]}"
                if rx.search(ln) and problem not in found:
                    found.append(problem)
        if self.exited_early:                   # 0: the stream ended by itself
            found.append(f"exited before the interrupt (status {self.exited_early})")
        if found:                               # what the elements said last (-m)
            said = [ln.strip()[:200] for _, ln in self.out if "(element):" in ln]
            found += [f"said: {ln}" for ln in said[-4:]]
        return found


def block_rate(block):
    """The block's source frame rate: its one framerate=, else videotestsrc's default."""
    rates = {int(n) / int(d) for c in block.commands
             for n, d in FRAMERATE.findall(c) if int(d)}
    if len(rates) == 1:
        return rates.pop()
    if not rates and any("videotestsrc" in c for c in block.commands):
        return DEFAULT_FPS
    return None


def run_block(bed, index, block):
    """Runs the block's processes together; returns (verdict ok, per-process reports)."""
    host = bed.host(f"b{index}")
    procs, n_sinks = [], 0
    for c in block.commands:
        procs.append(Process(c, n_sinks))
        n_sinks += len(procs[-1].sinks)
    t0 = time.monotonic()
    for i, p in enumerate(procs):
        if i:
            time.sleep(START_GAP)
        p.start(host)
    sinks = [(p, s) for p in procs for s in p.sinks]
    while time.monotonic() - t0 < MAX_RUN:
        time.sleep(0.2)
        if any(p.proc.poll() is not None for p in procs):
            break
        firsts = [p.frames(s)[:1] for p, s in sinks]
        now = time.monotonic()
        if all(f and now - f[0] >= WARMUP + MEASURE for f in firsts):
            if sinks or now - t0 >= MEASURE:
                break
    t_stop = time.monotonic()
    for p in reversed(procs):                   # receivers (listed first or last) alike
        p.stop()

    ok, reports, fallback = True, [], block_rate(block)
    for i, p in enumerate(procs, 1):
        parts = []
        for s, replaced in p.sinks.items():
            expected = p.expected[s] or fallback
            sink_ok, text = judge_sink(p, s, replaced, expected, t0, t_stop,
                                       p.exited_early == 0)
            ok &= sink_ok
            parts.append(text)
        if not p.sinks:
            parts.append("no display sink (errors checked only)")
        problems = p.problems()
        ok &= not problems
        reports.append((f"p{i}: " + "; ".join(parts), problems))
    return ok, reports


def judge_sink(p, sink, replaced, expected, t0, t_stop, ended):
    """(ok, text) for one counting sink: its rate after warm-up against expected;
    ended: its process ended by itself (status 0), so a short span is no failure."""
    times = p.frames(sink)
    if not times:
        return False, f"{replaced}: no frame in {t_stop - t0:.1f} s"
    start = times[0] + WARMUP
    span = t_stop - start
    counted = sum(1 for t in times if t >= start)
    fps = counted / span if span > 0 else 0.0
    gaps = [b - a for a, b in zip(times, times[1:]) if a >= start]
    text = (f"{replaced}: {fps:.1f} fps over {span:.1f} s (first frame after "
            f"{times[0] - t0:.1f} s, longest gap {max(gaps, default=0) * 1000:.0f} ms)")
    if replaced in AUDIO_SINKS:
        return True, text + ", audio: rate not judged"
    if expected is None:
        return False, text + ", source frame rate unknown"
    text += f" of {expected:g} expected"
    if span < MIN_SPAN:
        if ended:
            return True, text + ", ended by itself: too short to judge the rate"
        return False, text + f", measured span under {MIN_SPAN:g} s"
    return fps >= MIN_FRACTION * expected, text


def main():
    netbed.require_or_skip()
    blocks = [b for path in documents() for b in shell_blocks(path)]
    if not blocks:
        print("FAIL: no gst-launch-1.0 block found in README.md or docs/")
        return 1
    passed, failed, skipped = [], [], []
    with netbed.NetBed() as bed:
        for index, block in enumerate(blocks):
            reason = block.skip_reason()
            if reason:
                skipped.append((block.where, reason))
                print(f"SKIP {block.where}: {reason}", flush=True)
                continue
            ok, reports = run_block(bed, index, block)
            summary = " | ".join(text for text, _ in reports)
            print(f"{'ok  ' if ok else 'FAIL'} {block.where}: {summary}", flush=True)
            for i, (_, problems) in enumerate(reports, 1):
                for problem in problems[:5]:
                    print(f"     p{i} {problem}")
            for other in block.others:
                print(f"     note: not a gst-launch-1.0 line, not run: {other[:100]}")
            if not ok:
                for i, c in enumerate(block.commands, 1):
                    print(f"     p{i}: {' '.join(c.split())}")
            (passed if ok else failed).append(block.where)
    print(f"{len(blocks)} blocks: {len(passed)} ok, {len(failed)} failed, "
          f"{len(skipped)} skipped")
    for where, reason in skipped:
        print(f"  skipped {where}: {reason}")
    for where in failed:
        print(f"  failed {where}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
