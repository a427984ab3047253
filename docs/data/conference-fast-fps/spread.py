#!/usr/bin/env python3
"""spread.py OUTDIR (drive.sh's): where the loss between the fast members (p1-p3) falls,
per arm, over the pair-seconds 6-17 s. Loss columns pool the seconds of all calls; "calls"
gives the median over the calls of the clean share. clean: share of the seconds with no
packet missing after FEC (link: none lost on the link); median, mean: of the per-second loss
after FEC, %; lossy: median of the seconds with some loss, %; recovered: share of the link
losses FEC repaired; pkts: packets a sender sends its two fast members a second (median);
media: RTP into both their tiles, Mbit/s (median); par_drop: parity dropped at the sender
as a share of parity made; queue: the sender's queue toward a fast member, mean ms;
same_sender / same_receiver: share of the seconds in which both copies of one sender
(both streams into one receiver) lose on the link, and the share expected if independent."""
import json, os, re, statistics as S, sys

OUT = sys.argv[1]
FAST = (1, 2, 3)


def load(d, i):
    try:
        return [json.loads(l) for l in open(f"{d}/stats-{i}.json") if l.strip()]
    except OSError:
        return []


def by_second(st, i):
    """{second: {member id: figures}} of participant i."""
    return {round(o["t"]): {m["id"]: m for m in o["members"]} for o in st[i]}


def call(d):
    st = {i: load(d, i) for i in FAST}
    sec = {i: by_second(st, i) for i in FAST}
    rows, senders, co_s, co_r = [], [], [], []
    for t in range(6, 18):
        for s in FAST:
            rs = [r for r in FAST if r != s]
            now, before = sec[s].get(t, {}), sec[s].get(t - 1, {})
            got = [sec[r].get(t, {}).get(s) for r in rs]
            if any(r not in now or r not in before for r in rs) or None in got:
                continue
            d_ = lambda k: sum(now[r][k] - before[r][k] for r in rs)
            senders.append(dict(pkts=d_("packets_sent"), par=d_("parity_sent"),
                                pdrop=d_("parity_dropped"),
                                media=sum(g["media_bps"] for g in got) / 1e6))
            rows += [dict(fec=g["loss_after_fec"], link=g["loss_link"], q=now[r]["send_queue_ms"],
                          pk=now[r]["packets_sent"] - before[r]["packets_sent"])
                     for r, g in zip(rs, got)]
            co_s.append([g["loss_link"] > 0 for g in got])
        for r in FAST:
            got = [sec[r].get(t, {}).get(s) for s in FAST if s != r]
            if None not in got:
                co_r.append([g["loss_link"] > 0 for g in got])
    return rows, senders, co_s, co_r


def both(co):
    p = sum(a + b for a, b in co) / (2 * len(co))
    return sum(a and b for a, b in co) / len(co), p * p


res = {}
for name in sorted(os.listdir(OUT)):
    m = re.fullmatch(r"([AB])-(\d+)", name)
    if m and os.path.exists(f"{OUT}/{name}/summary.json"):
        res.setdefault(m[1], []).append(call(f"{OUT}/{name}"))
for arm, calls in sorted(res.items()):
    rows = [x for c in calls for x in c[0]]
    snd = [x for c in calls for x in c[1]]
    fec = [x["fec"] for x in rows]
    lost = sum(x["link"] * x["pk"] for x in rows)
    per_call = [sum(x["fec"] == 0 for x in c[0]) / len(c[0]) for c in calls if c[0]]
    bs, bs0 = both([x for c in calls for x in c[2]])
    br, br0 = both([x for c in calls for x in c[3]])
    print(f"{arm}: {len(calls)} calls, {len(rows)} pair-seconds; clean {100 * S.mean(x == 0 for x in fec):.0f} % "
          f"(calls {100 * S.median(per_call):.0f} %), link clean {100 * S.mean(x['link'] == 0 for x in rows):.0f} %; "
          f"median {100 * S.median(fec):.2f} %, mean {100 * S.mean(fec):.2f} %, "
          f"lossy {100 * S.median([x for x in fec if x > 0] or [0]):.2f} %, "
          f"link mean {100 * S.mean(x['link'] for x in rows):.2f} %, "
          f"recovered {1 - sum(x['fec'] * x['pk'] for x in rows) / max(lost, 1e-9):.2f}")
    print(f"   pkts {S.median(x['pkts'] for x in snd):.0f}/s, media {S.median(x['media'] for x in snd):.2f} Mbit/s, "
          f"par_drop {sum(x['pdrop'] for x in snd) / max(1, sum(x['par'] for x in snd)):.2f}, "
          f"queue {S.mean(x['q'] for x in rows):.1f} ms; same_sender {bs:.2f} (indep {bs0:.2f}), "
          f"same_receiver {br:.2f} (indep {br0:.2f})")
