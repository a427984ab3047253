#!/usr/bin/env python3
"""RMTP at scale (issue 20): rmtp-emu (N receiver cores in one process on
real sockets against a real rmtpsink, tests/emu/rmtp-emu.c) next to the
simulator (rmtp-sim's engine at the same N, loss, size and rate) and the
paper's model: transfer time against N like the paper's Figure 4, and the
DATA retransmitted per packet against Appendix A.

Each point's output is kept in BENCH_RMTP_EMU_DIR (/tmp/rmtp-emu by
default) as n<N>-l<loss>.txt and reused if present, so a long series can be
resumed. The emulator needs root (tests/emu/run-rmtp-emu.sh makes its
namespace). Writes the markdown table to stdout and the plot to
BENCH_RMTP_EMU_SVG (docs/img/rmtp-fig4-transfer-time.svg).

Environment: BENCH_RMTP_EMU_N ("10,100,1000,10000"), BENCH_RMTP_EMU_LOSS
("0,0.01"), BENCH_RMTP_EMU_RATE (bit/s, "1000000"; N:rate pairs such as
"10000:500000" after it override it for one N), RMTP_EMU (the binary,
build/tests/emu/rmtp-emu)."""
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
PACKET = 1024
TAT = 0.1          # the server's turn-around allowance (RmtpConfig.tat)
DELTA = 0.002      # backoff per receiver (RmtpConfig.delta)


def rates():
    spec = os.environ.get("BENCH_RMTP_EMU_RATE", "1000000").split(",")
    default = int(spec[0])
    per_n = dict((int(a), int(b)) for a, b in
                 (x.split(":") for x in spec[1:] if x))
    return lambda n: per_n.get(n, default)


def run_point(n, loss, rate, outdir):
    path = os.path.join(outdir, f"n{n}-l{loss:g}.txt")
    if not os.path.exists(path):
        exe = os.environ.get("RMTP_EMU",
                             os.path.join(ROOT, "build/tests/emu/rmtp-emu"))
        runner = os.path.join(ROOT, "tests/emu/run-rmtp-emu.sh")
        out = subprocess.run(["nice", "-n", "5", runner, exe,
                              f"--receivers={n}", f"--loss={loss}",
                              f"--rate={rate}", "--timeout=900", "--sim"],
                             capture_output=True, text=True)
        with open(path, "w") as f:
            f.write(out.stdout)
    return parse(open(path).read())


def parse(text):
    """The emu's and the sim's table rows and the emu's key=value line."""
    point = {}
    for line in text.splitlines():
        if line.startswith("# "):
            point["emu"] = dict(kv.split("=", 1) for kv in line[2:].split())
        elif line.startswith("|") and "| sim |" in line:
            f = [x.strip() for x in line.strip("|").split("|")]
            point["sim"] = dict(time=float(f[3].split()[0]), drops=int(f[6]),
                                resent=int(f[7]), polls=int(f[8]),
                                rounds=int(f[9]), complete=f[10])
        elif line.startswith("|") and "| emu |" in line:
            f = [x.strip() for x in line.strip("|").split("|")]
            point["emu_row"] = dict(polls=int(f[8]), rounds=int(f[9]))
    return point


def appendix_a(m, n, e):
    """(M_k, N_k) for k = 0, 1, ... by the paper's (a1)-(a2)."""
    mk, nk, out = float(m), float(n), [(float(m), float(n))]
    for k in range(1, 64):
        if e <= 0 or mk < 1e-3:
            break
        s = e ** (k - 1) * m * n
        mk, nk = (1 - (1 - e) ** (s / mk)) * mk, (1 - (1 - e) ** (s / nk)) * nk
        out.append((mk, nk))
    return out


def model_time(m, n, e, rate):
    """Equation (4) with alpha = 0 and no overflow (V = 0): connection
    establishment (3) plus every round (2)."""
    v = rate / (8.0 * PACKET)

    def pol(x):
        return 1 - (1 - e) ** x

    t = (1 + e * n) / v + n * DELTA + (1 + pol(n)) * TAT
    for mk, nk in appendix_a(m, n, e):
        t += (mk + e * nk) / v + nk * DELTA + (1 + pol(nk) + pol(e * nk)) * TAT
    return t


def svg_figure4(path, series, title):
    """Transfer time (s, linear) against receivers (log axis), one polyline
    and its markers per series; hand-written SVG."""
    w, h, left, right, top, bottom = 640, 420, 70, 170, 40, 50
    xs = [x for _, pts, _ in series for x, _ in pts]
    ys = [y for _, pts, _ in series for _, y in pts]
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    y1 = max(ys) * 1.1

    def px(x):
        return left + (math.log10(x) - x0) / (x1 - x0) * (w - left - right)

    def py(y):
        return h - bottom - y / y1 * (h - top - bottom)

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" '
         f'height="{h}" font-family="sans-serif" font-size="12">',
         f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="{w / 2 - 60}" y="20" font-size="14">{title}</text>']
    step = 10 ** math.floor(math.log10(y1 / 2))
    step *= 5 if y1 / step > 10 else 1
    y = 0.0
    while y <= y1:
        o.append(f'<line x1="{left}" x2="{w - right}" y1="{py(y):.1f}" '
                 f'y2="{py(y):.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{left - 8}" y="{py(y) + 4:.1f}" '
                 f'text-anchor="end">{y:g}</text>')
        y += step
    for d in range(int(x0), int(math.ceil(x1)) + 1):
        x = px(10 ** d)
        o.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" '
                 f'y2="{h - bottom}" stroke="#ddd"/>')
        o.append(f'<text x="{x:.1f}" y="{h - bottom + 18}" '
                 f'text-anchor="middle">{10 ** d:,}</text>')
    o.append(f'<text x="{(left + w - right) / 2}" y="{h - 10}" '
             f'text-anchor="middle">receivers N</text>')
    o.append(f'<text x="18" y="{(top + h - bottom) / 2}" text-anchor="middle" '
             f'transform="rotate(-90 18 {(top + h - bottom) / 2})">'
             f'transfer time (s)</text>')
    for i, (name, pts, style) in enumerate(series):
        color, dash = style
        line = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        o.append(f'<polyline points="{line}" fill="none" stroke="{color}" '
                 f'stroke-width="2" stroke-dasharray="{dash}"/>')
        for x, y in pts:
            o.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" '
                     f'fill="{color}"/>')
        ly = top + 10 + 20 * i
        o.append(f'<line x1="{w - right + 10}" x2="{w - right + 35}" '
                 f'y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="2" '
                 f'stroke-dasharray="{dash}"/>')
        o.append(f'<text x="{w - right + 40}" y="{ly + 4}">{name}</text>')
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def main():
    ns = [int(x) for x in os.environ.get("BENCH_RMTP_EMU_N",
                                         "10,100,1000,10000").split(",")]
    losses = [float(x) for x in os.environ.get("BENCH_RMTP_EMU_LOSS",
                                               "0,0.01").split(",")]
    rate_of = rates()
    outdir = os.environ.get("BENCH_RMTP_EMU_DIR", "/tmp/rmtp-emu")
    os.makedirs(outdir, exist_ok=True)
    print("| N | loss | rate | emu | sim | model (4) | responses sent | "
          "server dropped (late / dup / kernel) | max answers/round | "
          "POLLs emu / sim | rounds emu / sim | DATA resent | resent per "
          "packet | Appendix A | verified |")
    print("|" + "---|" * 15)
    curves = {}
    for loss in losses:
        for n in ns:
            rate = rate_of(n)
            p = run_point(n, loss, rate, outdir)
            e, s, r = p["emu"], p["sim"], p["emu_row"]
            m = int(e["packets"])
            model = model_time(m, n, loss, rate)
            resent_a = sum(mk for mk, _ in appendix_a(m, n, loss)[1:]) / m
            print(f"| {n:,} | {loss * 100:g} % | {rate / 1e6:g} Mbit/s | "
                  f"{float(e['time']):.1f} s | {s['time']:.1f} s | "
                  f"{model:.1f} s | {e['responses-sent']} | "
                  f"{e['late']} / {e['duplicates']} / {e['kernel-drops']} | "
                  f"{e['max-responses-per-round']} | "
                  f"{r['polls']} / {s['polls']} | {r['rounds']} / "
                  f"{s['rounds']} | {e['data-resent']} | "
                  f"{float(e['resent-per-packet']):.3f} | {resent_a:.3f} | "
                  f"{e['verified']}/{n} |")
            for kind, t in (("emu", float(e["time"])), ("sim", s["time"]),
                            ("model", model)):
                curves.setdefault((kind, loss), []).append((n, t))
    styles = {"emu": ("#c0392b", "none"), "sim": ("#2471a3", "6,3"),
              "model": ("#555", "2,3")}
    series = []
    for (kind, loss), pts in sorted(curves.items()):
        color, dash = styles[kind]
        if loss > 0:
            color = {"#c0392b": "#e67e22", "#2471a3": "#17a589",
                     "#555": "#999"}[color]
        series.append((f"{kind} {loss * 100:g} %", pts, (color, dash)))
    svg = os.environ.get("BENCH_RMTP_EMU_SVG", os.path.join(
        ROOT, "docs/img/rmtp-fig4-transfer-time.svg"))
    svg_figure4(svg, series, "RMTP: transfer time of 2 MB vs N")
    print(f"\nplot: {svg}", file=sys.stderr)


if __name__ == "__main__":
    main()
