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
("0,0.01"), BENCH_RMTP_EMU_RATE (bit/s, "1000000") and BENCH_RMTP_EMU_SIZE
(bytes, "2097152"), each with N:value pairs after it that override it for
one N (the CPU limits the emulator at large N: "1000000,10000:32000"),
RMTP_EMU (the binary, build/tests/emu/rmtp-emu).

The plot's curves are at the first rate and size: where a point of the
emulator ran at others, the plot takes the simulator's time at the plot's
setting (n<N>-l<loss>-plot-sim.txt, rmtp-emu --sim-only) and the table
says so."""
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
PACKET = 1024
TAT = 0.1          # the server's turn-around allowance (RmtpConfig.tat)
DELTA = 0.002      # backoff per receiver (RmtpConfig.delta)


def per_n_setting(name, default):
    """(the default value, a function of N giving its value)."""
    spec = os.environ.get(name, default).split(",")
    first = int(spec[0])
    per_n = dict((int(a), int(b)) for a, b in
                 (x.split(":") for x in spec[1:] if x))
    return first, lambda n: per_n.get(n, first)


def emu_exe():
    return os.environ.get("RMTP_EMU",
                          os.path.join(ROOT, "build/tests/emu/rmtp-emu"))


def cached_run(path, argv):
    if not os.path.exists(path):
        out = subprocess.run(argv, capture_output=True, text=True)
        with open(path, "w") as f:
            f.write(out.stdout)
    return parse(open(path).read())


def run_point(n, loss, rate, size, outdir):
    runner = os.path.join(ROOT, "tests/emu/run-rmtp-emu.sh")
    return cached_run(os.path.join(outdir, f"n{n}-l{loss:g}.txt"),
                      ["nice", "-n", "5", runner, emu_exe(),
                       f"--receivers={n}", f"--loss={loss}", f"--size={size}",
                       f"--rate={rate}", "--timeout=900", "--sim"])


def run_plot_sim(n, loss, rate, size, outdir):
    return cached_run(os.path.join(outdir, f"n{n}-l{loss:g}-plot-sim.txt"),
                      ["nice", "-n", "10", emu_exe(), "--sim-only",
                       f"--receivers={n}", f"--loss={loss}", f"--size={size}",
                       f"--rate={rate}"])


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


def svg_legend(x, y, series):
    """A key at (x, y): each series' stroke and name, 20 px apart."""
    out = []
    for row, (name, _, (color, dash)) in enumerate(series):
        yy = y + 20 * row
        out.append(f'<line stroke="{color}" stroke-width="2" '
                   f'stroke-dasharray="{dash}" x1="{x}" x2="{x + 25}" '
                   f'y1="{yy}" y2="{yy}"/><text x="{x + 30}" y="{yy + 4}">'
                   f'{name}</text>')
    return out


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
    for name, pts, (color, dash) in series:
        o.append(f'<polyline fill="none" stroke-width="2" stroke="{color}" '
                 f'stroke-dasharray="{dash}" points="'
                 + " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
                 + '"/>')
        o.extend(f'<circle r="3" fill="{color}" cx="{px(x):.1f}" '
                 f'cy="{py(y):.1f}"/>' for x, y in pts)
    o.extend(svg_legend(w - right + 10, top + 10, series))
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def main():
    ns = [int(x) for x in os.environ.get("BENCH_RMTP_EMU_N",
                                         "10,100,1000,10000").split(",")]
    losses = [float(x) for x in os.environ.get("BENCH_RMTP_EMU_LOSS",
                                               "0,0.01").split(",")]
    plot_rate, rate_of = per_n_setting("BENCH_RMTP_EMU_RATE", "1000000")
    plot_size, size_of = per_n_setting("BENCH_RMTP_EMU_SIZE", "2097152")
    outdir = os.environ.get("BENCH_RMTP_EMU_DIR", "/tmp/rmtp-emu")
    os.makedirs(outdir, exist_ok=True)
    print("| N | loss | size, rate | emu | sim | model (4) | responses sent | "
          "server dropped (late / dup / sink socket) | all UDP drops | "
          "max answers/round | "
          "POLLs emu / sim | rounds emu / sim | DATA resent | resent per "
          "packet | Appendix A | verified |")
    print("|" + "---|" * 16)
    plot_m = (plot_size + PACKET - 1) // PACKET
    curves = {}
    for loss in losses:
        for n in ns:
            rate, size = rate_of(n), size_of(n)
            p = run_point(n, loss, rate, size, outdir)
            e, s, r = p["emu"], p["sim"], p["emu_row"]
            m = int(e["packets"])
            model = model_time(m, n, loss, rate)
            resent_a = sum(mk for mk, _ in appendix_a(m, n, loss)[1:]) / m
            print(f"| {n:,} | {loss * 100:g} % | {size / 1048576:g} MiB, "
                  f"{rate / 1e6:g} Mbit/s | "
                  f"{float(e['time']):.1f} s | {s['time']:.1f} s | "
                  f"{model:.1f} s | {e['responses-sent']} | "
                  f"{e['late']} / {e['duplicates']} / "
                  f"{e.get('sink-socket-drops', '-')} | {e['kernel-drops']} | "
                  f"{e['max-responses-per-round']} | "
                  f"{r['polls']} / {s['polls']} | {r['rounds']} / "
                  f"{s['rounds']} | {e['data-resent']} | "
                  f"{float(e['resent-per-packet']):.3f} | {resent_a:.3f} | "
                  f"{e['verified']}/{n} |")
            points = [("model", model_time(plot_m, n, loss, plot_rate))]
            if (rate, size) == (plot_rate, plot_size):
                points += [("emu", float(e["time"])), ("sim", s["time"])]
            else:
                points.append(("sim", run_plot_sim(n, loss, plot_rate,
                                                   plot_size,
                                                   outdir)["sim"]["time"]))
            for kind, t in points:
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
    svg_figure4(svg, series, f"RMTP: transfer time of {plot_size / 1048576:g}"
                f" MiB at {plot_rate / 1e6:g} Mbit/s vs N")
    print(f"\nplot: {svg}", file=sys.stderr)


if __name__ == "__main__":
    main()
