#!/usr/bin/env python3
"""RLM (issue 18): rlmsrc join-reported on the bed, four receivers behind
one shared bottleneck, arriving a few seconds apart.

One sender (x264layerenc, 4 layers at cumulative 250, 500, 1000, 2000
kbit/s, 30 fps, as test_rlm_single.py) feeds two sessions at once, each to
its own groups: "on" (239.77.1.x) and "off" (239.77.2.x). Each session's
four receivers are hosts on a LAN (a bridge without snooping) hung from one
port of the sender's snooping bridge, and that port has a tbf of 1.5 Mbit/s:
the receivers share the bottleneck as receivers behind one router do, the
port carries every layer any of them holds (levels 1-3 fit, 4 does not).
(Not several receivers in one host: a shared host would give them one
link and one IGMP membership, not the LAN's separate receivers.) The receivers
of both sessions start at the same times (ARRIVALS); the newcomers of "on"
have join-reported=true, those of "off" the paper's behaviour. Passes
when, in "on":

- every newcomer climbs first by a join up to the reported level, to the
  first receiver's level 3, in one step (an rlm-level with reason
  `reported-level`), and none of them undoes it;
- the newcomers wait on their join timers (time in state S) before level
  3 at most half as long as the first receiver did (the paper's climb: two
  draws, about 8 s) and at most half as long as the newcomers of "off";
  the wall-clock time to level 3 of those that joined the reported level
  is below that of "off" on average (it varies more: a receiver in H, M
  or D runs no join timer, and every failed experiment at level 4
  congests the shared port for about 3 s);
- every receiver's loss of layers 0-2 from the first newcomer's arrival to
  the end is at most MAX_LOSS, and the newcomers hold level 3 most of the
  time after reaching it.

The reports (report-interval) come every second in both sessions: with the
default 5 s a newcomer of a session of four often hears its first settled
report only after its first join timer, runs the paper's experiment to
level 2 first and joins level 3 at its next timer (docs/results.md). RLM_JR_ARM_ON=false runs "on"
without the option (its checks must fail); RLM_REPORT_INTERVAL (ns)
changes the report interval."""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netbed  # noqa: E402
import test_rlm_single as rlm  # noqa: E402

ARMS = {"on": "239.77.1.1", "off": "239.77.2.1"}
# Start of each receiver after the first. The first reports level 3 settled
# once its experiment at level 4 failed or after 2 T_J^min in S there; time
# in H or M does not count, so a first receiver held there by losses
# settled only 24-28 s in (one CI run in eight, 2026-11-29: its newcomers at
# 17 and 21 s heard no settled report and climbed by experiments).
ARRIVALS = (0.0, 27.0, 31.0, 35.0)
SECONDS = 50
BEST = 3
# Each failed experiment at level 4 congests the shared port until the
# bridge prunes the group (about 3 s); over the 23 s from the first
# newcomer that is 3-10 % with the option and 0-6 % without, measured (the
# newcomers' unannounced joins suppress none of the first's experiments).
MAX_LOSS = 0.12
REPORT_INTERVAL = int(os.environ.get("RLM_REPORT_INTERVAL", "1000000000"))


def receiver_props(arm, newcomer):
    props = f"report-interval={REPORT_INTERVAL}"
    on = os.environ.get("RLM_JR_ARM_ON", "true")
    if arm == "on" and newcomer:
        props += f" join-reported={on}"
    return props


def first_reach(lv, level, t_start):
    """Seconds from t_start until the level first reached `level`."""
    return next((t - t_start for t, lvl, _ in lv if lvl >= level), None)


def steady_time(st, t_start, t_reach):
    """Seconds spent in state S between t_start and t_reach (the end of
    the stats when None), from the stats samples: join timers run only in
    S, so this is the time the climb waited on them."""
    total, prev = 0.0, None
    for t, f in st:
        if t_reach is not None and t > t_reach:
            break
        if prev is not None and prev[1] == "steady":
            total += t - max(prev[0], t_start)
        prev = (t, f.get("state"))
    return total


def reach_or_bound(r):
    """A receiver's time to level 3, or the time it ran without reaching it
    (a lower bound), and whether it is a bound."""
    return (r["reach"], False) if r["reach"] is not None else \
        (r["ran"], True)


def secs_list(rs):
    return ",".join(f"{'>' if bound else ''}{x:.1f}"
                    for x, bound in map(reach_or_bound, rs))


def first_climb(lv):
    """(level, reason) of the first change above the start level."""
    return next(((lvl, why) for _, lvl, why in lv if lvl > 1), (None, None))


def first_climb_time(levels):
    """When the first change above the start level came, or None."""
    return next((t for t, lvl, _ in levels if lvl > 1), None)


def experimenting_at(levels, t):
    """Whether a receiver's own join experiment was under way at t, or had
    ended less than a report interval before: from a join-experiment to its
    next level change and its next report. Its reports are not settled
    until then, so a newcomer that heard no other settled report climbs by
    the paper's experiment, as it should (CI, 29 Nov: the first receiver's
    experiment failed at 33.9 s and a newcomer's first timer came at
    33.9 s, before its next report)."""
    settle = REPORT_INTERVAL / 1e9
    for (t0, _, why), nxt in zip(levels, levels[1:] + [None]):
        if why == "join-experiment" and t0 <= t and (nxt is None or
                                                     t < nxt[0] + settle):
            return True
    return False


def others_experimenting(rs, i):
    """Whether another receiver of the arm ran an experiment when receiver
    i first climbed."""
    t = first_climb_time(rs[i]["levels"])
    return t is not None and any(experimenting_at(r["levels"], t)
                                 for j, r in enumerate(rs) if j != i)


def make_lans(bed):
    """The sender's snooping bridge and per arm a LAN of len(ARRIVALS)
    receiver hosts behind one bottlenecked port; (sender, {arm: [host]})."""
    br = bed.bridge("br", mcast_igmp_version=3)
    snd = bed.host("s")
    bed.attach(snd, br, "10.77.3.1/24")
    hosts = {}
    for a, arm in enumerate(ARMS):
        lan = bed.bridge(f"l{arm}", snooping=False, querier=False)
        uplink, port = bed.attach(lan, br)
        lan.run(["ip", "link", "set", uplink, "master", lan.dev])
        bed.bottleneck(br, port, rate_bps=rlm.B, latency_ms=rlm.LATENCY_MS)
        hosts[arm] = [bed.host(f"{arm}{i + 1}") for i in range(len(ARRIVALS))]
        for i, h in enumerate(hosts[arm]):
            bed.attach(h, lan, f"10.77.3.{10 + 10 * a + i}/24")
    return snd, hosts


def run_arms(bed):
    """Runs both sessions; {arm: [(start time, receiver)]}, t0, t_end."""
    snd, hosts = make_lans(bed)
    counter = rlm.GroupCounter(hosts["on"][0])
    hold = rlm.hold_base_group(hosts["on"][0])
    waited = rlm.wait_snooping(snd, counter)
    counter.close()
    hold.close()
    if waited is None:
        raise netbed.NetBedError("the bridge still floods every group")
    tx = rlm.start_sender(snd, tuple(ARMS.values()))
    t0 = time.monotonic()
    rxs = {arm: [] for arm in ARMS}
    for i, at in enumerate(ARRIVALS):
        time.sleep(max(0.0, t0 + at - time.monotonic()))
        for arm, base in ARMS.items():
            rxs[arm].append((time.monotonic(), rlm.start_receiver(
                hosts[arm][i], receiver_props(arm, i > 0), base,
                decode=False)))
    time.sleep(max(0.0, t0 + SECONDS - time.monotonic()))
    t_end = time.monotonic()
    for arm in ARMS:
        for _, rx in rxs[arm]:
            rlm.stop(rx["proc"])
    rlm.stop(tx)
    for arm in ARMS:
        for _, rx in rxs[arm]:
            for t in rx["threads"]:
                t.join(5)
    return rxs, t0, t_end


def measure(rxs, t0, t_end):
    """Per receiver: start, time to level 3, first climb, loss of layers
    0-2 since the first newcomer came, fraction at level 3 after reaching
    it, undone reported joins."""
    t_new = t0 + ARRIVALS[1]
    out = []
    for start, rx in rxs:
        lv, st = rlm.levels(rx), rlm.stats(rx)
        reach = first_reach(lv, BEST, start)
        out.append(dict(
            start=start - t0, reach=reach, ran=t_end - start,
            steady=steady_time(st, start, None if reach is None
                               else start + reach),
            climb=first_climb(lv),
            loss=rlm.loss_between(st, max(start, t_new), t_end, BEST),
            held=rlm.time_at(lv, BEST, start + reach, t_end)
            if reach is not None and start + reach < t_end else 0.0,
            undone=st[-1][1].get("reported-joins-failed") if st else None,
            levels=[(round(t - t0, 1), lvl, why) for t, lvl, why in lv]))
    return out


def failed_above(rs, since):
    """Failed experiments above level 3 in an arm after `since` s."""
    return sum(1 for r in rs for t, lvl, why in r["levels"]
               if t >= since and lvl == BEST and why == "experiment-failed")


def secs(x):
    return "-" if x is None else f"{x:.1f}"


def main():
    netbed.require_or_skip()
    check = netbed.Checks()
    with netbed.NetBed() as bed:
        rxs, t0, t_end = run_arms(bed)
        res = {arm: measure(rxs[arm], t0, t_end) for arm in ARMS}
    for arm in ARMS:
        for i, r in enumerate(res[arm]):
            print(f"{arm} r{i + 1} start={r['start']:.1f} reach3="
                  f"{secs(r['reach'])} in_S={r['steady']:.1f} "
                  f"climb={r['climb']} loss="
                  f"{r['loss'] and round(100 * r['loss'], 2)}% held="
                  f"{100 * r['held']:.0f}% undone={r['undone']} "
                  f"levels={r['levels']}")
    on, off = res["on"], res["off"]
    first = on[0]["reach"]
    new_on = [r["reach"] for r in on[1:]]
    # "off" newcomers that did not reach level 3 count with the time they
    # ran, less than they would have needed
    new_off = [reach_or_bound(r)[0] for r in off[1:]]
    check("the first receiver reached level 3", first is not None,
          f"after {secs(first)} s")
    # a newcomer whose first timer fell inside another's experiment heard
    # no settled report (CI, 29 Nov: the first receiver's experiment at
    # level 4 ran 33.7-34.4 s, a newcomer's first timer came at 34.0 s)
    exempt = [others_experimenting(on, i) for i in range(1, len(on))]
    joined = [r["climb"] == (BEST, "reported-level") for r in on[1:]]
    check("every newcomer's first climb is a join to the reported level 3, "
          "unless another receiver's experiment was under way then, and at "
          "least two are",
          all(j or x for j, x in zip(joined, exempt)) and sum(joined) >= 2,
          f"{[r['climb'] for r in on[1:]]}, during another's experiment "
          f"{exempt}")
    check("no newcomer undid its join to the reported level",
          all(r["undone"] == 0 for r in on[1:]),
          f"{[r['undone'] for r in on[1:]]}")
    check("without the option no receiver joins a reported level",
          all(r["climb"][1] != "reported-level" for r in off))
    reached = None not in new_on and first is not None
    waits_on = [r["steady"] for r in on[1:]]
    waits_off = [r["steady"] for r in off[1:]]
    check("the newcomers wait on join timers at most half as long as the "
          "first receiver", reached and
          statistics.median(waits_on) <= on[0]["steady"] / 2,
          f"in S {[secs(x) for x in waits_on]} s, first "
          f"{secs(on[0]['steady'])} s")
    check("the newcomers wait on join timers at most half as long as "
          "without the option", reached and
          statistics.median(waits_on) <= statistics.median(waits_off) / 2,
          f"in S {[secs(x) for x in waits_on]} s against "
          f"{[secs(x) for x in waits_off]} s")
    # an exempt newcomer ran the paper's climb, and an experiment of its
    # that failed under another's costs it a backoff: only those that
    # joined the reported level carry the option's promise
    new_joined = [t for t, j in zip(new_on, joined) if j]
    check("the newcomers that joined the reported level reach level 3 "
          "sooner on average than without the option", reached and
          new_joined and statistics.mean(new_joined) <
          statistics.mean(new_off),
          f"{secs_list(on[1:])} s (joined {joined}) against "
          f"{secs_list(off[1:])} s, the first {secs(first)} s")
    check(f"every receiver's loss of layers 0-2 since the first newcomer at "
          f"most {100 * MAX_LOSS:.0f}%",
          all(r["loss"] is not None and r["loss"] <= MAX_LOSS for r in on),
          f"{[r['loss'] and round(100 * r['loss'], 2) for r in on]}%")
    check("the newcomers hold level 3 after reaching it",
          all(r["held"] >= 0.7 for r in on[1:]),
          f"{[round(100 * r['held']) for r in on[1:]]}%")
    print(f"RESULT first_s={secs(first)} "
          f"first_in_S={secs(on[0]['steady'])} "
          f"newcomers_in_S_on={','.join(secs(x) for x in waits_on)} "
          f"newcomers_in_S_off={','.join(secs(x) for x in waits_off)} "
          f"failed_at_4_on={failed_above(on, ARRIVALS[1])} "
          f"failed_at_4_off={failed_above(off, ARRIVALS[1])} "
          f"newcomers_on_s={secs_list(on[1:])} "
          f"newcomers_off_s={secs_list(off[1:])} "
          f"first_off_s={secs(off[0]['reach'])} "
          f"loss_on_max={100 * max(r['loss'] or 0 for r in on):.2f}% "
          f"loss_off_max={100 * max(r['loss'] or 0 for r in off):.2f}%")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
