#!/usr/bin/env python3
"""x264layerenc against x264enc: rate-distortion curves.

Codes the same raw clips with x264enc and with x264layerenc at 1, 3 and 5
layers (hierarchical-p), speed-preset veryfast, tune zerolatency, at several
rates, decodes every stream with ffmpeg and compares it with the source by
ffmpeg's psnr and ssim filters. Prints, per content, the curves side by side
(kbit/s coded, PSNR and SSIM as ffmpeg's psnr "average" and ssim "All"
print them, CPU ms per frame), then the gap to x264enc at equal rate and the
speed at equal quality (both by interpolating x264enc's curve in log rate),
and writes one SVG plot per content.

Contents (raw I420 640x360 30 fps, made once per run):
  bars       videotestsrc pattern=smpte horizontal-speed=3 (scrolling bars)
  zoneplate  videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 (moving rings)
  noisy      ffmpeg mandelbrot (zooming, fine detail) + temporal noise 12

Environment:
  BENCH_X264Q_SECONDS   clip length in s (default 5)
  BENCH_X264Q_RATES     kbit/s, comma-separated (default 300,600,1000,2000)
  BENCH_X264Q_CONTENTS  subset of bars,zoneplate,noisy (default all)
  BENCH_X264Q_CODERS    subset of x264enc,L1,L3,L5 (default all); also
                        Ln:r=R: n layers with layer-rates splitting the
                        rate so that a frame of layer k+1 gets R times the
                        bits of a frame of layer k (the default split is
                        R=1: by frames)
  BENCH_X264Q_SVG_DIR   where to write the plots (default: no plots)
  BENCH_X264Q_EXTRA     extra x264layerenc properties, e.g. "aq-strength=0"
Needs gst-launch-1.0 (x264enc, x264layerenc) and ffmpeg; exit 77 without.
CPU time is the encoding process's user+system time: only meaningful on an
otherwise idle machine (the load average is printed with the results)."""
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

W, H, FPS = 640, 360, 30
CODERS = {
    "x264enc": "x264enc bitrate={k} speed-preset=veryfast tune=zerolatency",
    "L1": "x264layerenc layers=1 bitrate={k} {extra}",
    "L3": "x264layerenc layers=3 bitrate={k} {extra}",
    "L5": "x264layerenc layers=5 bitrate={k} {extra}",
}
LABEL = {"x264enc": "x264enc", "L1": "x264layerenc layers=1",
         "L3": "x264layerenc layers=3", "L5": "x264layerenc layers=5"}
COLOUR = {"x264enc": "#000000", "L1": "#d62728", "L3": "#1f77b4",
          "L5": "#2ca02c"}


def env_list(name, default):
    v = os.environ.get(name, "").strip()
    return [x.strip() for x in (v or default).split(",") if x.strip()]


def make_source(name, frames, path):
    caps = f"video/x-raw,format=I420,width={W},height={H},framerate={FPS}/1"
    if name == "noisy":
        subprocess.run(
            ["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi",
             "-i", f"mandelbrot=s={W}x{H}:r={FPS}:maxiter=256,"
             "noise=alls=12:allf=t+u,format=yuv420p",
             "-frames:v", str(frames), "-f", "rawvideo", "-y", path],
            check=True)
        return
    src = {"bars": "videotestsrc pattern=smpte horizontal-speed=3",
           "zoneplate": "videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1"
           }[name]
    subprocess.run(["gst-launch-1.0", "-q"] + f"{src} num-buffers={frames} "
                   f"! {caps} ! filesink location={path}".split(),
                   check=True)


def split_rates(kbps, layers, r):
    frames = [1] + [2 ** (k - 1) for k in range(1, layers)]
    w = [frames[k] * r ** k for k in range(layers)]
    return [int(kbps * 1000 * x / sum(w)) for x in w]


def encoder_of(coder, kbps):
    extra = os.environ.get("BENCH_X264Q_EXTRA", "")
    if ":r=" in coder:
        layers, r = int(coder[1:coder.index(":")]), float(coder.split("=")[1])
        rates = ",".join(str(x) for x in split_rates(kbps, layers, r))
        return f"x264layerenc layers={layers} layer-rates=<{rates}> {extra}"
    return CODERS[coder].format(k=kbps, extra=extra)


def label(coder):
    if ":r=" in coder:
        r = float(coder.split("=")[1])
        how = "split by frames (the old default)" if r == 1 else \
            f"layer-rates split r={r:g}"
        return f"x264layerenc layers={coder[1:coder.index(':')]} {how}"
    return LABEL[coder]


def encode(coder, kbps, raw, out):
    enc = encoder_of(coder, kbps)
    pipe = (f"filesrc location={raw} ! rawvideoparse width={W} height={H} "
            f"format=i420 framerate={FPS}/1 ! {enc} ! "
            f"video/x-h264,stream-format=byte-stream ! filesink location={out}")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(["gst-launch-1.0", "-q"] + pipe.split(), check=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def rate_matched(coder, kbps, raw, out, seconds):
    """Codes at a setting that gives @kbps within 1.5 % (x264enc's ABR
    overshoots by up to 9 % on these clips): up to 3 corrections."""
    setting = kbps
    for _ in range(4):
        wall, cpu = encode(coder, setting, raw, out)
        got = os.path.getsize(out) * 8 / seconds / 1000
        if abs(got / kbps - 1) <= 0.015:
            break
        setting = max(1, round(setting * kbps / got))
    return wall, cpu


def measure(stream, raw):
    # Frame n against frame n, whatever timestamps the demuxers invent.
    graph = ("[0:v]settb=1/30,setpts=N,split=2[d1][d2];"
             "[1:v]settb=1/30,setpts=N,split=2[r1][r2];"
             "[d1][r1]psnr;[d2][r2]ssim")
    p = subprocess.run(
        ["ffmpeg", "-hide_banner", "-nostats", "-f", "h264", "-framerate",
         str(FPS), "-i", stream, "-f", "rawvideo", "-pix_fmt", "yuv420p",
         "-video_size", f"{W}x{H}", "-framerate", str(FPS), "-i", raw,
         "-lavfi", graph, "-f", "null", "-"],
        capture_output=True, text=True, check=True)
    psnr = float(re.search(r"PSNR .*average:([\d.inf]+)", p.stderr).group(1))
    ssim = float(re.search(r"SSIM .*All:([\d.]+)", p.stderr).group(1))
    frames = int(re.findall(r"frame=\s*(\d+)", p.stderr)[-1])
    return psnr, ssim, frames


def interp(points, x, key):
    """Value of @key at log-rate @x on a curve of (kbps, psnr, ssim, ...)."""
    pts = sorted(points)
    lx = [math.log(p[0]) for p in pts]
    t = math.log(x)
    for i in range(len(pts) - 1):
        if lx[i] <= t <= lx[i + 1]:
            f = (t - lx[i]) / (lx[i + 1] - lx[i])
            return key(pts[i]) + f * (key(pts[i + 1]) - key(pts[i]))
    return None


def rate_for(points, q, key):
    """Rate at which a curve reaches quality @q (log-rate interpolation)."""
    pts = sorted(points)
    for i in range(len(pts) - 1):
        a, b = key(pts[i]), key(pts[i + 1])
        if min(a, b) <= q <= max(a, b) and a != b:
            f = (q - a) / (b - a)
            return math.exp(math.log(pts[i][0]) +
                            f * (math.log(pts[i + 1][0]) - math.log(pts[i][0])))
    return None


def svg_plot(path, title, curves):
    """Two panels (PSNR, SSIM against kbit/s, log axis) as plain SVG."""
    pw, ph, ml, mt, mb = 420, 300, 60, 40, 50
    all_pts = [p for c in curves.values() for p in c]
    x0, x1 = math.log(min(p[0] for p in all_pts) * 0.9), \
        math.log(max(p[0] for p in all_pts) * 1.1)
    legend_h = 18 * ((len(curves) + 1) // 2) + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * (pw + ml) + 40}"'
           f' height="{ph + mt + mb + legend_h}" font-family="sans-serif" '
           f'font-size="12"><rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="20" font-size="14">{title}</text>']
    for panel, (name, idx) in enumerate((("PSNR (dB)", 1), ("SSIM", 2))):
        ox = ml + panel * (pw + ml + 20)
        ys = [p[idx] for p in all_pts]
        y0, y1 = min(ys), max(ys)
        pad = (y1 - y0) * 0.08 or 0.01
        y0, y1 = y0 - pad, y1 + pad

        def X(v):
            return ox + (math.log(v) - x0) / (x1 - x0) * pw

        def Y(v):
            return mt + ph - (v - y0) / (y1 - y0) * ph
        out.append(f'<rect x="{ox}" y="{mt}" width="{pw}" height="{ph}" '
                   'fill="none" stroke="#888"/>')
        for k in range(6):
            v = y0 + (y1 - y0) * k / 5
            out.append(f'<text x="{ox - 5}" y="{Y(v) + 4:.1f}" '
                       f'text-anchor="end">{v:.{1 if idx == 1 else 4}f}</text>')
            out.append(f'<line x1="{ox}" x2="{ox + pw}" y1="{Y(v):.1f}" '
                       f'y2="{Y(v):.1f}" stroke="#eee"/>')
        for r in sorted({p[4] for p in all_pts}):
            out.append(f'<text x="{X(r):.1f}" y="{mt + ph + 15}" '
                       f'text-anchor="middle">{r:.0f}</text>')
        out.append(f'<text x="{ox + pw / 2}" y="{mt + ph + 32}" '
                   'text-anchor="middle">kbit/s (log axis, ticks at the '
                   'targets)</text>')
        out.append(f'<text x="{ox}" y="{mt - 8}">{name}</text>')
        for ci, (coder, pts) in enumerate(curves.items()):
            pts = sorted(pts)
            d = " ".join(f"{X(p[0]):.1f},{Y(p[idx]):.1f}" for p in pts)
            colour = COLOUR.get(coder, "#9467bd")
            out.append(f'<polyline points="{d}" fill="none" '
                       f'stroke="{colour}" stroke-width="1.5"/>')
            for p in pts:
                out.append(f'<circle cx="{X(p[0]):.1f}" cy="{Y(p[idx]):.1f}" '
                           f'r="2.5" fill="{colour}"/>')
            if panel == 0:
                lx = ml + (ci % 2) * (pw + ml + 20)
                ly = mt + ph + mb + 5 + 18 * (ci // 2)
                out.append(f'<line x1="{lx}" x2="{lx + 20}" y1="{ly}" '
                           f'y2="{ly}" stroke="{colour}" stroke-width="2"/>')
                out.append(f'<text x="{lx + 25}" y="{ly + 4}">'
                           f'{label(coder)}</text>')
    out.append("</svg>\n")
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    for tool in ("gst-launch-1.0", "ffmpeg", "gst-inspect-1.0"):
        if not shutil.which(tool):
            print(f"bench-x264layerenc-quality: {tool} not found, skipped")
            return 77
    if subprocess.run(["gst-inspect-1.0", "x264layerenc"],
                      capture_output=True).returncode != 0 or \
            subprocess.run(["gst-inspect-1.0", "x264enc"],
                           capture_output=True).returncode != 0:
        print("bench-x264layerenc-quality: x264enc or x264layerenc missing")
        return 77
    seconds = float(os.environ.get("BENCH_X264Q_SECONDS", "5"))
    frames = int(seconds * FPS)
    rates = [int(r) for r in env_list("BENCH_X264Q_RATES", "300,600,1000,2000")]
    contents = env_list("BENCH_X264Q_CONTENTS", "bars,zoneplate,noisy")
    coders = env_list("BENCH_X264Q_CODERS", "x264enc,L1,L3,L5")
    svg_dir = os.environ.get("BENCH_X264Q_SVG_DIR")
    tmp = tempfile.mkdtemp(prefix="bench-x264q-")
    print(f"{seconds:g} s of {W}x{H} at {FPS} fps per clip; veryfast, "
          f"zerolatency; load average at start {os.getloadavg()[0]:.2f}")
    try:
        for content in contents:
            raw = os.path.join(tmp, content + ".yuv")
            make_source(content, frames, raw)
            curves = {}
            for coder in coders:
                for k in rates:
                    out = os.path.join(tmp, f"{content}-{coder}-{k}.h264")
                    wall, cpu = rate_matched(coder, k, raw, out, seconds)
                    psnr, ssim, n = measure(out, raw)
                    if n != frames:
                        print(f"{content} {coder} {k}: {n} frames decoded, "
                              f"{frames} expected")
                    kbps = os.path.getsize(out) * 8 / seconds / 1000
                    curves.setdefault(coder, []).append(
                        (kbps, psnr, ssim, 1000 * cpu / frames, k))
                    os.unlink(out)
            os.unlink(raw)
            report(content, curves, rates)
            if svg_dir:
                svg_plot(os.path.join(svg_dir, f"x264layerenc-rd-{content}.svg"),
                         f"{content}: {seconds:g} s 640x360, veryfast, "
                         "zerolatency", curves)
        print(f"\nload average at end {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def report(content, curves, rates):
    coders = list(curves)
    print(f"\n### {content}\n")
    print("| target kbit/s | " + " | ".join(
        f"{label(c)}: kbit/s, PSNR dB, SSIM, CPU ms/frame" for c in coders)
        + " |")
    print("|---" * (len(coders) + 1) + "|")
    for i, k in enumerate(rates):
        cells = [f"{p[0]:.0f}, {p[1]:.2f}, {p[2]:.4f}, {p[3]:.2f}"
                 for p in (curves[c][i] for c in coders)]
        print(f"| {k} | " + " | ".join(cells) + " |")
    ref = curves.get("x264enc")
    if not ref:
        return
    print("\nAgainst x264enc at the same rate (every stream within 1.5 % of "
          "the target): dPSNR dB / dSSIM; and the CPU x264enc needs for the "
          "same PSNR (interpolated on its curve in log rate) over ours:\n")
    print("| target kbit/s | " + " | ".join(label(c) for c in coders
                                           if c != "x264enc") + " |")
    print("|---" * len(coders) + "|")
    for i, k in enumerate(rates):
        cells = []
        for c in coders:
            if c == "x264enc":
                continue
            p, r = curves[c][i], ref[i]
            cell = f"{p[1] - r[1]:+.2f} / {p[2] - r[2]:+.4f}"
            r_eq = rate_for(ref, p[1], lambda q: q[1])
            cpu_ref = interp(ref, r_eq, lambda q: q[3]) if r_eq else None
            cell += f", CPU x{cpu_ref / p[3]:.2f}" if cpu_ref else \
                ", CPU: PSNR outside x264enc's curve"
            cells.append(cell)
        print(f"| {k} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
