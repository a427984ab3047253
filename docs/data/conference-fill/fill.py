#!/usr/bin/env python3
"""fill.py OUTDIR [SPREAD]: drive.sh's calls (C4-ARM-N, C3-ARM-N). Per call and receiver,
what its download link carried over its rate: (tbf) the bytes its tbf sent (tbfsample.py,
Ethernet frames: everything the link carried) over 15-30 s and 20-30 s of the call (C4: p3
left at 18 s); (up) the same for its upload link over 20-30 s; fps, loss after FEC and on the link from
the others (a fast member: from the other fast one), and a fast member's loss on the link from
the slow one, before and after FEC, and its fps there, over 20-30 s; (test) what tests/net/test_conference.py measures, summary.json's receive
rates over 15-30 s, video with parity plus audio (each a rate over one report interval, a
few packets at 1 Mbit/s: it reads high, 1.09-1.16 of a 1 Mbit/s link it cannot exceed).
Per fast sender -> fast receiver over 20-30 s (medians of the seconds): N, the rate the
receiver notified; D, the sender's data rate to it; T, the whole stream the encoder was
told; made, what it coded; the spread cap SPREAD (default 8) x share x the sender's lowest D;
the seconds in which T sat at that cap (spread-held), in which the uplink share was below 1
(uplink-held) and in which the encoder was at QP 0-1 and made under 0.9 T (picture-held).
Bound: per second, what the other senders could send the receiver at most, each sender's
uplink bound (0.85 x its upload rate) less what its other copies sent, plus the audio
received; over the receiver's link."""
import json, os, statistics as S, sys

OUT = sys.argv[1]
SPREAD = float(sys.argv[2]) if len(sys.argv) > 2 else 8.0
SHARE = 0.85
CALLS = {"C4": dict(links={1: 4e6, 2: 4e6, 3: 4e6, 4: 1e6}, fast=(1, 2), slow=4),
         "C3": dict(links={1: 4e6, 2: 4e6, 3: 1e6}, fast=(1, 2), slow=3)}


def med(xs):
    xs = [x for x in xs if x == x]          # without the missing (nan)
    return S.median(xs) if xs else float("nan")


def span(xs):
    xs = [x for x in xs if x == x]
    return f"({min(xs):.2f}-{max(xs):.2f})" if xs else "(-)"


def load(d, ids):
    starts = json.load(open(f"{d}/times.json"))["starts"]
    per = {}
    for i in ids:
        per[i] = {}
        for line in open(f"{d}/stats-{i}.json"):
            if line.strip():
                o = json.loads(line)
                per[i][round(o["t"] + starts[str(i)])] = o
    return per


def members(o):
    return {m["id"]: m for m in o["members"] if not m.get("left")}


def fill_window(st, r, link, lo, hi):
    tot = [sum(m["recv_bps"] + m["audio_recv_bps"] for m in members(o).values())
           for t, o in st[r].items() if lo <= t <= hi]
    return med(tot) / link if tot else float("nan")


def fill_tbf(path, key, link, lo, hi):
    try:
        t0 = json.load(open(f"{path}/times.json"))["t0"]
        rows = [json.loads(l) for l in open(f"{path}/tbf.json") if l.strip()]
    except (OSError, ValueError, KeyError):
        return float("nan")
    def at(t):
        return min(rows, key=lambda x: abs(x["t"] - t0 - t))
    a, b = at(lo), at(hi)
    if b["t"] - a["t"] < 0.8 * (hi - lo) or key not in a or key not in b:
        return float("nan")
    return (b[key] - a[key]) * 8 / (b["t"] - a["t"]) / link


def quality(st, r, senders, lo, hi):
    """Median fps r decodes the senders at, its loss after FEC and on the link (means of the
    seconds, %), over lo-hi."""
    fps, loss, link = [], [], []
    for t, o in st[r].items():
        if lo <= t <= hi:
            for s, m in members(o).items():
                if s in senders:
                    fps.append(m["fps"])
                    loss.append(100 * m["loss_after_fec"])
                    link.append(100 * m["loss_link"])
    return med(fps), (S.mean(loss) if loss else float("nan")), \
        (S.mean(link) if link else float("nan"))


def bound_window(st, r, links, lo, hi):
    out = []
    for t, o in st[r].items():
        if not lo <= t <= hi:
            continue
        b = 0.0
        for s, m in members(o).items():
            so = st.get(s, {}).get(t)
            if so is None:
                continue
            others = sum(x["send_bps"] for j, x in members(so).items() if j != r)
            b += max(0.0, SHARE * links[s] - others) + m["audio_recv_bps"]
        out.append(min(b, links[r]) / links[r])
    return med(out)


def pair(st, s, r, lo, hi):
    rows = []
    for t, o in st[s].items():
        ms = members(o)
        if not lo <= t <= hi or r not in ms:
            continue
        share = o["uplink_share"] or 1.0
        lowd = min((m["send_data_bps"] for m in ms.values() if m["send_data_bps"] > 0),
                   default=0)
        cap = SPREAD * share * lowd
        T = o["enc_target_bps"]
        rows.append(dict(N=ms[r]["send_notified_bps"], D=ms[r]["send_data_bps"], T=T,
                         made=o["enc_bps"], cap=cap,
                         spread=cap > 0 and T <= 1.03 * cap and cap < share * ms[r]["send_data_bps"],
                         uplink=share < 0.99, picture=o["enc_qp"] <= 1 and o["enc_bps"] < 0.9 * T))
    return rows


def main():
    dirs = sorted(d for d in os.listdir(OUT) if os.path.isdir(os.path.join(OUT, d)))
    print("call recv link | tbf_15-30 tbf_20-30 test_15-30 bound_20-30 | fps loss% linkloss% "
          "slowlinkloss% slowfecloss% slowfps | "
          "its uplink's tbf_20-30")
    agg, pairs_out = {}, []
    for d in dirs:
        parts = d.split("-")
        kind, arm = parts[0], parts[1] if len(parts) == 3 else "-"
        if kind not in CALLS:
            continue
        c = CALLS[kind]
        path = os.path.join(OUT, d)
        try:
            st = load(path, c["links"].keys())
            summ = json.load(open(f"{path}/summary.json"))
        except (OSError, ValueError, KeyError):
            print(d, "incomplete")
            continue
        present = [p for p in c["links"] if not (kind == "C4" and p == 3)]
        for r in list(c["fast"]) + [c["slow"]]:
            link = c["links"][r]
            f15 = fill_tbf(path, f"p{r}", link, 15, 30)
            f20 = fill_tbf(path, f"p{r}", link, 20, 30)
            up = fill_tbf(path, f"up{r}", link, 20, 30)
            ft = sum(f["rate"] + f.get("audio_rate", 0)
                     for f in summ[str(r)]["received"].values()) / link
            slow = r == c["slow"]
            bd = float("nan") if slow else bound_window(st, r, c["links"], 20, 30)
            senders = [p for p in present if p != r and (slow or p != c["slow"])]
            fps, loss, lloss = quality(st, r, senders, 20, 30)
            nan3 = (float("nan"),) * 3
            sfps, sfec, sloss = nan3 if slow else quality(st, r, [c["slow"]], 20, 30)
            agg.setdefault((kind, arm, slow), []).append(
                (f15, f20, ft, bd, fps, loss, up, lloss, sloss, sfec, sfps))
            print(f"{d:8s} p{r} {link / 1e6:g}M | {f15:.3f} {f20:.3f} {ft:.3f} {bd:.3f} | "
                  f"{fps:.1f} {loss:.2f} {lloss:.2f} {sloss:.2f} {sfec:.2f} {sfps:.1f} | "
                  f"up {up:.3f}")
        for s in c["fast"]:
            for r in c["fast"]:
                if s != r:
                    rows = pair(st, s, r, 20, 30)
                    if rows:
                        pairs_out.append((kind, arm, d, s, r, rows))
    print("\nmedians (range) of tbf_15-30, tbf_20-30, test_15-30, bound_20-30, fps, loss after "
          "FEC (mean %), its uplink's tbf_20-30, loss on the link (mean %), a fast member's loss on the "
          "link from the slow one (mean %), and after FEC (mean %), the slow one's fps at a fast one; "
          "tbf_20-30 within 15 %")
    for (kind, arm, slow), v in sorted(agg.items()):
        col = list(zip(*v))
        within = sum(1 for x in col[1] if abs(x - 1) <= 0.15)
        print(f"{kind} {arm} {'slow' if slow else 'fast'} n={len(v)}: " + ", ".join(
            f"{med(x):.3f} {span(x)}" for x in col) + f"; {within} of {len(v)}")
    print("\nfast pairs 20-30 s, medians kbit/s: N D T made cap | seconds held: spread uplink picture")
    held = {}
    for kind, arm, d, s, r, rows in pairs_out:
        k = lambda f: med([x[f] for x in rows]) / 1e3
        n = len(rows)
        h = [sum(x[f] for x in rows) for f in ("spread", "uplink", "picture")]
        held.setdefault((kind, arm), []).append((n, h, k("T"), k("made")))
        print(f"{d:8s} p{s}->p{r}: {k('N'):5.0f} {k('D'):5.0f} {k('T'):5.0f} {k('made'):5.0f} "
              f"{k('cap'):5.0f} | {h[0]}/{n} {h[1]}/{n} {h[2]}/{n}")
    for (kind, arm), v in sorted(held.items()):
        n = sum(x[0] for x in v)
        print(f"{kind} {arm}: seconds held, of {n}: spread {sum(x[1][0] for x in v)}, "
              f"uplink {sum(x[1][1] for x in v)}, picture {sum(x[1][2] for x in v)}; "
              f"T median {med([x[2] for x in v]):.0f}, made {med([x[3] for x in v]):.0f} kbit/s")


main()
