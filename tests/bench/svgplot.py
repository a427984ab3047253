"""One line/dot plot as a self-contained SVG (no plotting library): the
RLM bench's Figures 10-13 and the VLMCC plots of tests/sim/vlmcc_plots.py."""
import math

W, H, ML, MR, MT, MB = 520, 360, 64, 130, 36, 48
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
           "#8c564b")


def svg_plot(path, title, xlabel, ylabel, series, xlog=True, ylog=False,
             xticks=None, markers=True, vlines=(), width=W):
    """series: [(label, [(x, y)], 'line' | 'dots')]; writes an SVG.
    xticks: the x ticks (every distinct x by default); markers: a dot on
    each point of a line too; vlines: [(x, label)] drawn dashed, labelled
    at the top (a label within 40 px of the last one a row lower)."""
    xs = [x for _, pts, _ in series for x, _ in pts]
    ys = [y for _, pts, _ in series for _, y in pts if not ylog or y > 0]
    fx = math.log10 if xlog else (lambda v: v)
    fy = math.log10 if ylog else (lambda v: v)
    x0, x1 = fx(min(xs)), fx(max(xs))
    y0 = fy(min(ys)) if ylog else 0.0
    y1 = fy(max(ys)) * (1 if ylog else 1.1)
    if ylog:
        y0, y1 = math.floor(y0), math.ceil(y1)
    x1 = x1 if x1 > x0 else x0 + 1
    pad = 0.05 * (x1 - x0)     # keeps points off the frame
    x0, x1 = x0 - pad, x1 + pad
    y1 = y1 if y1 > y0 else y0 + 1
    pw, ph = width - ML - MR, H - MT - MB
    # the legend's text starts 22 px into the right margin; a label longer
    # than the margin holds (about 6.5 px a character) widens the picture
    legend = max(len(label) for label, _, _ in series) * 6.5 + 22
    width += max(0, math.ceil(legend - MR))

    def px(x):
        return ML + (fx(x) - x0) / (x1 - x0) * pw

    def py(y):
        return MT + ph - (fy(y) - y0) / (y1 - y0) * ph

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
         f'height="{H}" font-family="sans-serif" font-size="11">',
         f'<rect width="{width}" height="{H}" fill="white"/>',
         f'<text x="{ML + pw / 2}" y="18" text-anchor="middle" '
         f'font-size="13">{title}</text>',
         f'<rect x="{ML}" y="{MT}" width="{pw}" height="{ph}" fill="none" '
         f'stroke="black"/>',
         f'<text x="{ML + pw / 2}" y="{H - 10}" text-anchor="middle">'
         f'{xlabel}</text>',
         f'<text transform="translate(14,{MT + ph / 2}) rotate(-90)" '
         f'text-anchor="middle">{ylabel}</text>']
    for x in sorted(set(xs)) if xticks is None else xticks:
        o.append(f'<line x1="{px(x):.1f}" y1="{MT + ph}" x2="{px(x):.1f}" '
                 f'y2="{MT + ph + 4}" stroke="black"/><text x="{px(x):.1f}" '
                 f'y="{MT + ph + 16}" text-anchor="middle">{x:g}</text>')
    if ylog:
        yticks = [10 ** e for e in range(int(y0), int(y1) + 1)]
    else:
        step = 10 ** math.floor(math.log10(y1 / 4)) if y1 > 0 else 1
        while y1 / step > 8:
            step *= 2
        yticks = [k * step for k in range(int(y1 / step) + 1)]
    for y in yticks:
        o.append(f'<line x1="{ML - 4}" y1="{py(y):.1f}" x2="{ML + pw}" '
                 f'y2="{py(y):.1f}" stroke="#ddd"/><text x="{ML - 6}" '
                 f'y="{py(y) + 4:.1f}" text-anchor="end">{y:g}</text>')
    row, last = 0, None
    for x, label in vlines:
        if label:
            row = 1 - row if last is not None and px(x) - last < 40 else 0
            last = px(x)
        o.append(f'<line class="vline" x1="{px(x):.1f}" y1="{MT}" '
                 f'x2="{px(x):.1f}" y2="{MT + ph}" stroke="#888" '
                 f'stroke-dasharray="3,3"/><text x="{px(x) + 2:.1f}" '
                 f'y="{MT + 10 + 11 * row}" font-size="9">{label}</text>')
    for k, (label, pts, kind) in enumerate(series):
        c = COLOURS[k % len(COLOURS)]
        pts = [(x, y) for x, y in pts if not ylog or y > 0]
        if kind == "line":
            d = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(pts))
            o.append(f'<polyline points="{d}" fill="none" stroke="{c}" '
                     f'stroke-width="1.5"/>')
        if kind == "dots" or markers:
            for x, y in pts:
                o.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" '
                         f'r="2.5" fill="{c}" fill-opacity="0.6"/>')
        ly = MT + 14 + 16 * k
        o.append(f'<circle cx="{ML + pw + 14}" cy="{ly - 4}" r="4" '
                 f'fill="{c}"/><text x="{ML + pw + 22}" y="{ly}">{label}'
                 f'</text>')
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")
    print(f"wrote {path}")
