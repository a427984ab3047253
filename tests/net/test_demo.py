#!/usr/bin/env python3
"""Runs examples/tpss-fec-demo briefly and checks the figures it prints
against ground truth: the packet counts of tpssfecenc and tpssfecdec (their
`stats`, which the demo prints), and what must hold for the frame counts:
without loss every frame is intact; with parity on every packet (l=1) every
loss is repaired and every frame is intact; with bursts longer than the
packet distance k, packets stay missing and some decoded frames are damaged.
Runs on loopback, needs no root. Usage: test_demo.py PATH-TO-DEMO"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402

SECONDS = 3
FPS = 30

SUMMARY = re.compile(
    r"^media packets: (\d+) sent, (\d+) lost on the link \(([\d.]+)%\), "
    r"(\d+) still missing after FEC \(([\d.]+)%\)$", re.M)
FRAMES = re.compile(r"^frames: (\d+) sent, (\d+) decoded, (\d+) intact", re.M)
ROW = re.compile(r"^\s*\d+\s+\d+\s+\d+\s+[\d.]+%\s+\d+\s+[\d.]+%\s+\d+\s+\d+\s+\d+$", re.M)


def stat(out, element, field):
    m = re.search(rf"^{element} stats: .*[ ,]{field}=\(guint64\)(\d+)", out, re.M)
    return int(m.group(1)) if m else None


def pct(part, whole):
    return f"{100.0 * part / whole:.1f}" if whole else "0.0"


def run_demo(demo, *options):
    """Returns the demo's stdout and the figures it printed (None if missing)."""
    proc = subprocess.run([demo, f"--seconds={SECONDS}", *options],
                          capture_output=True, text=True, timeout=60)
    out = proc.stdout
    figures = {"rc": proc.returncode, "stderr": proc.stderr[-500:],
               "rows": len(ROW.findall(out))}
    m = SUMMARY.search(out)
    f = FRAMES.search(out)
    if m and f:
        figures.update(sent=int(m.group(1)), lost=int(m.group(2)),
                       lost_pct=m.group(3), missing=int(m.group(4)),
                       missing_pct=m.group(5), frames=int(f.group(1)),
                       decoded=int(f.group(2)), intact=int(f.group(3)))
    figures.update(protected=stat(out, "tpssfecenc", "protected"),
                   received=stat(out, "tpssfecdec", "received"),
                   recovered=stat(out, "tpssfecdec", "recovered"))
    return out, figures


def main():
    demo = sys.argv[1]
    check = netbed.Checks()

    def common_checks(label, out, f):
        print(out)
        check(f"{label}: exits 0", f["rc"] == 0, f"rc {f['rc']} {f['stderr']}")
        if "sent" not in f or None in (f["protected"], f["received"],
                                       f["recovered"]):
            check(f"{label}: prints packet, frame and element figures",
                  False, f"{f}")
            return False
        check(f"{label}: one line a second", SECONDS <= f["rows"] <= SECONDS + 5,
              f"{f['rows']} lines")
        check(f"{label}: media sent = tpssfecenc protected",
              f["sent"] == f["protected"], f"{f['sent']} vs {f['protected']}")
        check(f"{label}: lost on the link = sent - tpssfecdec received",
              f["lost"] == f["sent"] - f["received"],
              f"{f['lost']} vs {f['sent']} - {f['received']}")
        check(f"{label}: printed loss = lost / sent",
              f["lost_pct"] == pct(f["lost"], f["sent"]),
              f"{f['lost_pct']}% vs {pct(f['lost'], f['sent'])}%")
        check(f"{label}: missing after FEC = lost - tpssfecdec recovered",
              f["missing"] == f["lost"] - f["recovered"],
              f"{f['missing']} vs {f['lost']} - {f['recovered']}")
        check(f"{label}: printed missing share = missing / sent",
              f["missing_pct"] == pct(f["missing"], f["sent"]),
              f"{f['missing_pct']}% vs {pct(f['missing'], f['sent'])}%")
        check(f"{label}: every frame sent", f["frames"] == SECONDS * FPS,
              f"{f['frames']} of {SECONDS * FPS}")
        return True

    out, f = run_demo(demo, "--loss=0")
    if common_checks("no loss", out, f):
        check("no loss: nothing lost, every frame decoded intact",
              f["lost"] == 0 and f["missing"] == 0
              and f["intact"] == f["decoded"] == f["frames"], f"{f}")

    help_text = subprocess.run([demo, "--help"], capture_output=True,
                               text=True, timeout=30).stdout
    check("--help says what --loss is",
          re.search(r"--loss=PERCENT\s+Share of media packets the link loses",
                    help_text) is not None, help_text[-600:])

    out, f = run_demo(demo, "--loss=5", "--burst=3", "--k=4", "--l=1")
    # bursts of 3 losing 5% of the packets: p = r / (LEN (1 - r) + r)
    check("l=1: header states the loss share and the burst start chance",
          "loses 5.0% of media packets on average, in bursts of 3" in out
          and f"probability {100 * 0.05 / (3 * 0.95 + 0.05):.2f}%" in out,
          out.split("\n")[2:4])
    if common_checks("l=1", out, f):
        check("l=1: the link lost packets", f["lost"] > 0, f"{f['lost']}")
        check("l=1: FEC repaired all, every frame decoded intact",
              f["missing"] == 0 and f["intact"] == f["decoded"] == f["frames"],
              f"{f}")

    out, f = run_demo(demo, "--loss=5", "--burst=6", "--k=2", "--l=5")
    if common_checks("burst 6 > k=2", out, f):
        check("burst 6 > k=2: packets stay missing", f["missing"] > 0,
              f"{f['missing']} of {f['lost']} lost")
        check("burst 6 > k=2: fewer frames intact than decoded",
              f["intact"] < f["decoded"],
              f"{f['intact']} intact of {f['decoded']} decoded")

    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
