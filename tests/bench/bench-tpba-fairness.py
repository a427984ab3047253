#!/usr/bin/env python3
"""TPBA against TCP on the test bed: the experiment of section 6 of Tobe et
al., "TCP-Rate-Probing-Based Adaptation" (docs/results.md, "TPBA: fairness
against TCP").

Topology: snd -> rtr -> rcv. The router shapes its egress toward rcv with a
tbf of the bottleneck rate (queue: the longest of 50 ms, the base RTT (about
a BDP) and 20 packets of 1500 bytes (200 ms at 1.2 Mbit/s: a few packets per
flow, or TCP lives in timeouts)) and, for a long base RTT, delays everything from snd by the RTT
(nfq-impair; the ACK path is not delayed). The bottleneck is on a router,
not on the sending host: a sender-side qdisc reports its drops to local TCP
at once (and TSQ throttles each socket), which is not a shared link.

One tpbasink -> tpbasrc flow (a greedy raw-video RTP source, 15.6 Mbit/s, so
the scheme and not the source sets the rate; the sink drops whole ADUs above
what it may send) and n greedy TCP flows start together at t = 0 (the paper's
section 6.2); at JOIN one more TCP flow joins (the paper's Flow 4 at 200 s)
and it leaves at LEAVE (Table 3's case b); the run ends at END. The TCP flows connect
first and send their first data when the bench sees tpbasink's probing connection at
the sender (polled every 1 ms; the sink sends as it connects), so that no flow is the
later starter by construction: on this drop-tail bed the later starter keeps a higher
RTT and more loss events (issue 17, docs/results.md, twentieth pass and issue 17's
section). BENCH_TPBA_START=before keeps the old order (the TCP flows, then gst-launch,
whose connection came 0.2-0.5 s after theirs). The TCP reference starts by the same
rule: with "together" the TCP flows connect first and send when the reference's
connection shows; with "before" every flow connects at t = 0. All TCP, including TPBA's probing connection, uses the same congestion control.
The reference variants put, in the same place and beside the same TCP flows,
one more TCP flow ("TCP") or UDP paced at exactly the fair share ("CBR-fair"):
what the bed lets any TCP-friendly scheme reach on each metric.

Rates are measured at the receivers: TPBA from the tpbasrc `tpba-stats`
messages (RTP bytes over UDP + TCP every 100 ms, interpolated), TCP by the
bytes each Python receiver counts. Metrics (the paper's, section 6.2, with
S_average = 1 s): Jain's f over all active flows per 1 s window, its median
over [WARMUP, JOIN) and over [JOIN + 5, LEAVE); n_cross (first window with
R_tpba >= R of some original TCP flow; without one, the paper's fallback: the
first n with the TPBA rate within 20 kbit/s over [n - 10, n]); dR_intra and
dR_ave1 over [n_cross, JOIN - 1] (the paper's n_change); n_join (first window
from JOIN where the joiner's rate >= that of an original TCP flow) and dR_ave2
over [n_join, LEAVE - 1] (n_final). Response times (Table 3; TPBA only: LDA
has no period to time): T_pr after JOIN and T_pi after LEAVE = the length of
the first probing period that starts after the change (the paper's values,
2.0 s / 2.8 s on average with T_tcp = 1 s, are about three probing cycles),
and T_wait = from the change to that probing period (T_running's share).

The bottleneck is the tbf or, with BENCH_TPBA_QDISC=droptail, red or codel, netbed's
user-space aqm_bottleneck (nfq-bottleneck) with the same rate, overhead and queue length:
drop-tail there is the tbf's twin; RED and CoDel are where TCP is fair among itself.

Environment (comma-separated lists): BENCH_TPBA_BOTTLENECK (Mbit/s, 1.2,10),
BENCH_TPBA_QDISC (tbf),
BENCH_TPBA_NTCP (1,3), BENCH_TPBA_CC (cubic,reno), BENCH_TPBA_RTT (base RTT
added, ms: 0,160), BENCH_TPBA_VARIANTS (see VARIANTS and REFERENCES; default
TPBA,LDA),
BENCH_TPBA_TRIALS (1), BENCH_TPBA_MTU (RTP packet size in bytes, 1200),
BENCH_TPBA_TIMES ("END,JOIN,LEAVE" s: 90,45,70),
BENCH_TPBA_SHARD ("i/n": run every n-th case from i, for parallel lanes),
BENCH_TPBA_JSON (write the runs), BENCH_TPBA_PLOTS (directory: an SVG of every
flow's rate over time per run), BENCH_TPBA_SS (ms: sample every TCP connection
of the sender, TPBA's probe and the competitors, with `ss -ti` this often and
store it in the run as "ss"; 0, the default, does not), BENCH_TPBA_REF_START (s: the
TCP reference starts this long after the TCP flows beside it; 0, the default, starts
them together; a reference run whose connect() is more than MAX_START_SKEW off
that is flagged; each run stores the flows' connect() times and first bytes),
BENCH_TPBA_START (together, on-connect or before: see TPBA_START; a TPBA run whose
sink shows more than MAX_START_SKEW off the TCP flows' start is flagged; each run
stores the times as the reference's do (for "together" the TCP flows' entry is when
they began to send), and tpba_first_tx, when the sink's socket first held unacked data),
BENCH_TPBA_CHANGE_IN (running or probing: Table 3's cases; the joiner joins
BENCH_TPBA_CHANGE_DELAY s (1) into the first period of that kind the sink decides at or
after JOIN, and leaves as far into the first one at or after LEAVE (at least 6 s after
the join); the run stores join_at and leave_at, and the metrics use them for JOIN and
LEAVE; empty, the default, joins at JOIN and leaves at LEAVE). `bench-tpba-fairness.py --report A.json ...`
prints the tables of runs saved before.

Needs root (network namespaces); exits 77 (skip) otherwise."""
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "net"))
import netbed  # noqa: E402
from fairness import jain, report_and_status, save_runs, windows  # noqa: E402


def env_list(name, default, conv=str):
    return [conv(x) for x in os.environ.get(name, default).split(",") if x]


END, JOIN, LEAVE = env_list("BENCH_TPBA_TIMES", "90,45,70", int)
WARMUP = 10
PORT, CROSS_PORT = 5004, 6000
W, H, FPS = 240, 180, 30          # I420: 240*180*1.5*8*30 = 15.6 Mbit/s
MTU = int(os.environ.get("BENCH_TPBA_MTU", "1200"))
QUEUE = int(os.environ.get("BENCH_TPBA_QUEUE", "0")) or None     # packets
SS_MS = int(os.environ.get("BENCH_TPBA_SS", "0"))
RCVBUF = int(os.environ.get("BENCH_TPBA_RCVBUF", "0")) or None   # bytes
# the reference flow's start after the TCP flows', s (issue 17: it used to start
# 0.13-0.44 s after them, behind the capture's setup); and the setup time before t0
REF_START = float(os.environ.get("BENCH_TPBA_REF_START", "0"))
START_SETUP = 0.5
# a reference run that connects further than this (s) off its intended start is flagged
MAX_START_SKEW = 0.05
# how a TPBA run starts the TCP flows beside it (issue 17). "together": they
# connect first (gst-launch starts once their handshakes are done) and send their
# first data when the sink's probing connection shows at the sender. "on-connect": they connect
# then; their SYNs wait behind the sink's first window, so it starts first.
# "before": the old order, the TCP flows and then gst-launch, whose connection
# came 0.23-0.47 s after theirs.
TPBA_START = os.environ.get("BENCH_TPBA_START", "together")
TPBA_STARTS = ("together", "on-connect", "before")
# how long a TPBA run waits for the sink's connection before it starts the TCP flows anyway, s
TPBA_CONNECT_WAIT = 10.0
# Table 3's cases (issue 17): with "running" or "probing" the joiner joins, and later
# leaves, CHANGE_DELAY s into the first period of that kind the sink decides at or
# after JOIN (LEAVE); "" (the default) joins and leaves at JOIN and LEAVE themselves.
CHANGE_IN = os.environ.get("BENCH_TPBA_CHANGE_IN", "")
CHANGE_INS = ("", "running", "probing")
CHANGE_DELAY = float(os.environ.get("BENCH_TPBA_CHANGE_DELAY", "1.0"))

VARIANTS = {
    "TPBA": "",
    "TPBA-prop": "end-criterion=proportional",
    "TPBA-cwnd": "probe-interval=cwnd",
    "TPBA-reprobe": "reprobe-on-reductions=true",
    "TPBA-all": "end-criterion=proportional probe-interval=cwnd "
                "reprobe-on-reductions=true",
    "TPBA-t3": "t-tcp=3000000000",
    "TPBA-paced": "tcp-pacing=true",
    "TPBA-loss": "allow-probe-loss=true",
    "TPBA-prop-loss": "end-criterion=proportional allow-probe-loss=true",
    "TPBA-ours": "tcp-pacing=true allow-probe-loss=true end-criterion=proportional",
    # the same with a UDP pacer that catches up late wake-ups by up to 5 ms
    # (the eleventh pass: without it the sink sends well under r_s)
    "TPBA-ours-burst": "tcp-pacing=true allow-probe-loss=true end-criterion=proportional "
                       "pace-burst=5000000",
    "TPBA-ours-noburst": "tcp-pacing=true allow-probe-loss=true end-criterion=proportional "
                         "pace-burst=0",
    # the thirteenth pass: a probe bounded at 6 cycles keeping their median,
    # and running periods at least 3 times the probe before them
    "TPBA-ours-cap6-ratio3": "tcp-pacing=true allow-probe-loss=true "
                              "end-criterion=proportional max-probe-cycles=6 "
                              "max-probe-median=true run-probe-ratio=3",
    # ... with step 1 (the tenth pass) under a ceiling of 1.5 or 2 r_s while running
    "TPBA-ours-cap6-ratio3-step1-ceil15": "tcp-pacing=true allow-probe-loss=true "
                                          "end-criterion=proportional max-probe-cycles=6 "
                                          "max-probe-median=true run-probe-ratio=3 "
                                          "running-increase=50000 running-increase-fraction=1 "
                                          "running-ceiling=1.5",
    "TPBA-ours-cap6-ratio3-step1-ceil2": "tcp-pacing=true allow-probe-loss=true "
                                         "end-criterion=proportional max-probe-cycles=6 "
                                         "max-probe-median=true run-probe-ratio=3 "
                                         "running-increase=50000 running-increase-fraction=1 "
                                         "running-ceiling=2",
    # issue 17, Table 3 inside a running period: the README's line with the
    # section-4 option that ends a running period after successive large cuts
    # (2 cuts of >= 20 %, the defaults; or 1)
    "TPBA-ours-cap6-ratio3-step1-ceil2-reprobe": "tcp-pacing=true allow-probe-loss=true "
                                                 "end-criterion=proportional "
                                                 "max-probe-cycles=6 max-probe-median=true "
                                                 "run-probe-ratio=3 running-increase=50000 "
                                                 "running-increase-fraction=1 "
                                                 "running-ceiling=2 reprobe-on-reductions=true",
    "TPBA-ours-cap6-ratio3-step1-ceil2-reprobe1": "tcp-pacing=true allow-probe-loss=true "
                                                  "end-criterion=proportional "
                                                  "max-probe-cycles=6 max-probe-median=true "
                                                  "run-probe-ratio=3 running-increase=50000 "
                                                  "running-increase-fraction=1 "
                                                  "running-ceiling=2 reprobe-on-reductions=true "
                                                  "reprobe-count=1",
    # ... and ours (off): a running cut below 0.6 r_s probes at once
    "TPBA-ours-cap6-ratio3-step1-ceil2-below06": "tcp-pacing=true allow-probe-loss=true "
                                                 "end-criterion=proportional "
                                                 "max-probe-cycles=6 max-probe-median=true "
                                                 "run-probe-ratio=3 running-increase=50000 "
                                                 "running-increase-fraction=1 "
                                                 "running-ceiling=2 reprobe-below=0.6",
    # the fourteenth pass: ... keeping the median of the cycles after the
    # probe's first loss, not the climb from the UDP rate before it
    "TPBA-ours-cap6-ratio3-step1-ceil2-afterloss": "tcp-pacing=true allow-probe-loss=true "
                                                   "end-criterion=proportional "
                                                   "max-probe-cycles=6 max-probe-median=true "
                                                   "max-probe-after-loss=true run-probe-ratio=3 "
                                                   "running-increase=50000 "
                                                   "running-increase-fraction=1 "
                                                   "running-ceiling=2",
    # the fifteenth pass: ... keeping the probe's largest cycle after the first
    # (bounded at 6 or at 8 cycles), not their median
    "TPBA-ours-cap6-ratio3-step1-ceil2-peak": "tcp-pacing=true allow-probe-loss=true "
                                              "end-criterion=proportional "
                                              "max-probe-cycles=6 max-probe-median=true "
                                              "max-probe-peak=true run-probe-ratio=3 "
                                              "running-increase=50000 "
                                              "running-increase-fraction=1 "
                                              "running-ceiling=2",
    "TPBA-ours-cap8-ratio3-step1-ceil2-peak": "tcp-pacing=true allow-probe-loss=true "
                                              "end-criterion=proportional "
                                              "max-probe-cycles=8 max-probe-median=true "
                                              "max-probe-peak=true run-probe-ratio=3 "
                                              "running-increase=50000 "
                                              "running-increase-fraction=1 "
                                              "running-ceiling=2",
    # the sixteenth pass: ... the peak only when the probe's cycles rise;
    # when they fall, the median of their later half
    "TPBA-ours-cap6-ratio3-step1-ceil2-peakrise": "tcp-pacing=true allow-probe-loss=true "
                                                  "end-criterion=proportional "
                                                  "max-probe-cycles=6 max-probe-median=true "
                                                  "max-probe-peak=true "
                                                  "max-probe-peak-if-rising=true "
                                                  "run-probe-ratio=3 running-increase=50000 "
                                                  "running-increase-fraction=1 "
                                                  "running-ceiling=2",
    # the seventeenth pass: ... keeping TCP's throughput equation (RFC 5348 3.1) on
    # the loss event rate and RTT the probe's cycles after the first saw
    "TPBA-ours-cap6-ratio3-step1-ceil2-eq": "tcp-pacing=true allow-probe-loss=true "
                                            "end-criterion=proportional "
                                            "max-probe-cycles=6 max-probe-median=true "
                                            "kept-rate=equation run-probe-ratio=3 "
                                            "running-increase=50000 "
                                            "running-increase-fraction=1 "
                                            "running-ceiling=2",
    # ... or the equation at the probe's loss events per second (the link's
    # congestion episodes, shared by every flow at a drop-tail queue)
    "TPBA-ours-cap6-ratio3-step1-ceil2-eqep": "tcp-pacing=true allow-probe-loss=true "
                                              "end-criterion=proportional "
                                              "max-probe-cycles=6 max-probe-median=true "
                                              "kept-rate=equation-episodes run-probe-ratio=3 "
                                              "running-increase=50000 "
                                              "running-increase-fraction=1 "
                                              "running-ceiling=2",
    # the eighteenth pass: ... the per-second rule times 0.75, the factor that
    # centred the seventeenth pass's runs (fitted there, tested here)
    "TPBA-ours-cap6-ratio3-step1-ceil2-eqep075": "tcp-pacing=true allow-probe-loss=true "
                                                 "end-criterion=proportional "
                                                 "max-probe-cycles=6 max-probe-median=true "
                                                 "kept-rate=equation-episodes "
                                                 "episodes-factor=0.75 run-probe-ratio=3 "
                                                 "running-increase=50000 "
                                                 "running-increase-fraction=1 "
                                                 "running-ceiling=2",
    # the nineteenth pass: ... the mean rate of the probe's own reno or cubic
    # cut at the probe's loss events a second (kept-rate=equation-sawtooth)
    "TPBA-ours-cap6-ratio3-step1-ceil2-eqsaw": "tcp-pacing=true allow-probe-loss=true "
                                               "end-criterion=proportional "
                                               "max-probe-cycles=6 max-probe-median=true "
                                               "kept-rate=equation-sawtooth run-probe-ratio=3 "
                                               "running-increase=50000 "
                                               "running-increase-fraction=1 "
                                               "running-ceiling=2",
    # the twenty-second pass: ... the climb stops at the probe's largest cycle
    # after the first (running-ceiling-peak), not at 2 r_s
    "TPBA-ours-cap6-ratio3-step1-peakceil1": "tcp-pacing=true allow-probe-loss=true "
                                             "end-criterion=proportional "
                                             "max-probe-cycles=6 max-probe-median=true "
                                             "run-probe-ratio=3 running-increase=50000 "
                                             "running-increase-fraction=1 "
                                             "running-ceiling=1 running-ceiling-peak=true",
    # issue 17: ... the climb under 2 r_s takes no step while the RR's RTT is more
    # than 20 (or 10) ms above the probe's mean TCP RTT (running-queue-margin)
    "TPBA-ours-cap6-ratio3-step1-ceil2-queue20": "tcp-pacing=true allow-probe-loss=true "
                                                 "end-criterion=proportional "
                                                 "max-probe-cycles=6 max-probe-median=true "
                                                 "run-probe-ratio=3 running-increase=50000 "
                                                 "running-increase-fraction=1 "
                                                 "running-ceiling=2 "
                                                 "running-queue-margin=20000000",
    "TPBA-ours-cap6-ratio3-step1-ceil2-queue10": "tcp-pacing=true allow-probe-loss=true "
                                                 "end-criterion=proportional "
                                                 "max-probe-cycles=6 max-probe-median=true "
                                                 "run-probe-ratio=3 running-increase=50000 "
                                                 "running-increase-fraction=1 "
                                                 "running-ceiling=2 "
                                                 "running-queue-margin=10000000",
    "TPBA-ours-cap6-ratio3-step1-peakceil125": "tcp-pacing=true allow-probe-loss=true "
                                               "end-criterion=proportional "
                                               "max-probe-cycles=6 max-probe-median=true "
                                               "run-probe-ratio=3 running-increase=50000 "
                                               "running-increase-fraction=1 "
                                               "running-ceiling=1.25 running-ceiling-peak=true",
    # issue 17, 10 Mbit/s and +160 ms: the README's line, but a point whose
    # loss allow-probe-loss tolerates holds the rate instead of stepping
    "TPBA-ours-cap6-ratio3-step1-ceil2-hold": "tcp-pacing=true allow-probe-loss=true "
                                              "end-criterion=proportional "
                                              "max-probe-cycles=6 max-probe-median=true "
                                              "run-probe-ratio=3 running-increase=50000 "
                                              "running-increase-fraction=1 "
                                              "running-ceiling=2 running-hold-on-loss=true",
    # issue 17: the README's line, but a point that would step while the RR's RTT
    # is more than 10 ms above the probe's goes halfway back to r_s (running-queue-cut)
    "TPBA-ours-cap6-ratio3-step1-ceil2-qcut10": "tcp-pacing=true allow-probe-loss=true "
                                                "end-criterion=proportional "
                                                "max-probe-cycles=6 max-probe-median=true "
                                                "run-probe-ratio=3 running-increase=50000 "
                                                "running-increase-fraction=1 "
                                                "running-ceiling=2 "
                                                "running-queue-cut=10000000",
    "TPBA-conf": "tcp-pacing=true allow-probe-loss=true end-criterion=confidence",
    "TPBA-conf-t20": "tcp-pacing=true allow-probe-loss=true end-criterion=confidence "
                     "t-running=20000000000",
    "TPBA-conf-t20-inc": "tcp-pacing=true allow-probe-loss=true end-criterion=confidence "
                         "t-running=20000000000 running-increase=50000",
    "TPBA-conf-t20-frac": "tcp-pacing=true allow-probe-loss=true end-criterion=confidence "
                          "t-running=20000000000 running-increase-fraction=0.1",
    "TPBA-conf-t20-inc-frac": "tcp-pacing=true allow-probe-loss=true "
                              "end-criterion=confidence t-running=20000000000 "
                              "running-increase=50000 running-increase-fraction=0.1",
    # the running step bound by TCP's growth alone (line C), for 10 Mbit/s where a
    # tenth of the rate per adaptation point falls behind the TCP flows
    "TPBA-conf-t20-inc-frac03": "tcp-pacing=true allow-probe-loss=true "
                                "end-criterion=confidence t-running=20000000000 "
                                "running-increase=50000 running-increase-fraction=0.3",
    "TPBA-conf-t20-inc-frac1": "tcp-pacing=true allow-probe-loss=true "
                               "end-criterion=confidence t-running=20000000000 "
                               "running-increase=50000 running-increase-fraction=1",
    # step 1 under a ceiling of a multiple of the rate the last probe kept
    # (running-ceiling): it climbs back after cuts but not past the share the
    # probe measured, where line C does not bind (4 reno at 10 Mbit/s)
    "TPBA-conf-t20-inc-frac1-ceil1": "tcp-pacing=true allow-probe-loss=true "
                                     "end-criterion=confidence t-running=20000000000 "
                                     "running-increase=50000 running-increase-fraction=1 "
                                     "running-ceiling=1",
    "TPBA-conf-t20-inc-frac1-ceil125": "tcp-pacing=true allow-probe-loss=true "
                                       "end-criterion=confidence t-running=20000000000 "
                                       "running-increase=50000 running-increase-fraction=1 "
                                       "running-ceiling=1.25",
    "TPBA-conf-t20-inc-frac1-ceil15": "tcp-pacing=true allow-probe-loss=true "
                                      "end-criterion=confidence t-running=20000000000 "
                                      "running-increase=50000 running-increase-fraction=1 "
                                      "running-ceiling=1.5",
    "TPBA-conf-t20-inc-frac1-ceil2": "tcp-pacing=true allow-probe-loss=true "
                                     "end-criterion=confidence t-running=20000000000 "
                                     "running-increase=50000 running-increase-fraction=1 "
                                     "running-ceiling=2",
    # step 1 under a ceiling of 1.5 r_s, with the kept rate of the settled
    # criterion: the median of the last 4 cycles once the probe stops climbing
    # (at most 12 cycles), not the mean of a period that includes the climb
    "TPBA-settled-t20-inc-frac1-ceil15": "tcp-pacing=true allow-probe-loss=true "
                                         "end-criterion=settled ci-max-cycles=12 "
                                         "t-running=20000000000 running-increase=50000 "
                                         "running-increase-fraction=1 running-ceiling=1.5",
    "TPBA-settled-t20-inc-frac1-ceil2": "tcp-pacing=true allow-probe-loss=true "
                                        "end-criterion=settled ci-max-cycles=12 "
                                        "t-running=20000000000 running-increase=50000 "
                                        "running-increase-fraction=1 running-ceiling=2",
    # the kept rate held for the whole running period (r-f=0: no cut, no step),
    # with either criterion: how near the share each one's r_s is, as a rate
    "TPBA-conf-t20-hold": "tcp-pacing=true allow-probe-loss=true end-criterion=confidence "
                          "t-running=20000000000 r-f=0",
    "TPBA-settled-t20-hold": "tcp-pacing=true allow-probe-loss=true end-criterion=settled "
                             "ci-max-cycles=12 t-running=20000000000 r-f=0",
    "TPBA-settled6-t20-hold": "tcp-pacing=true allow-probe-loss=true end-criterion=settled "
                              "settle-window=6 ci-max-cycles=12 t-running=20000000000 r-f=0",
    # the same two with a pacer that catches up late wake-ups by up to 5 ms: the
    # tenth pass found the sink sending 0.5-0.8 of its paced rate at 10 Mbit/s
    "TPBA-settled6-t20-hold-burst": "tcp-pacing=true allow-probe-loss=true "
                                    "end-criterion=settled settle-window=6 ci-max-cycles=12 "
                                    "t-running=20000000000 r-f=0 pace-burst=5000000",
    "TPBA-conf-t20-inc-frac1-burst": "tcp-pacing=true allow-probe-loss=true "
                                     "end-criterion=confidence t-running=20000000000 "
                                     "running-increase=50000 running-increase-fraction=1 "
                                     "pace-burst=5000000",
    "TPBA-conf-t20-inc-frac1-ceil125-burst": "tcp-pacing=true allow-probe-loss=true "
                                             "end-criterion=confidence t-running=20000000000 "
                                             "running-increase=50000 "
                                             "running-increase-fraction=1 running-ceiling=1.25 "
                                             "pace-burst=5000000",
    "TPBA-settled-t20-inc-frac1-ceil125-burst": "tcp-pacing=true allow-probe-loss=true "
                                                "end-criterion=settled ci-max-cycles=12 "
                                                "t-running=20000000000 running-increase=50000 "
                                                "running-increase-fraction=1 "
                                                "running-ceiling=1.25 pace-burst=5000000",
    # the same with the probing connection un-paced (issue 17: is the kept rate
    # biased low because a paced probe cannot take a greedy flow's share?)
    "TPBA-conf-t20-inc-frac-nopace": "tcp-pacing=false allow-probe-loss=true "
                                     "end-criterion=confidence t-running=20000000000 "
                                     "running-increase=50000 running-increase-fraction=0.1",
    "LDA": "mode=lda bottleneck={b}",
}
# Reference flows in place of tpbasink, no GStreamer: what the bed allows any
# TCP-friendly scheme. "TCP" is one more greedy TCP flow (what TPBA emulates);
# "CBR-fair" is UDP paced at exactly b / (n + 1) on the wire (a running period
# with a perfect r_s, which the joiner does not change).
REFERENCES = ("TCP", "CBR-fair")

MSG = re.compile(r'^Got message #\d+ from element "(\w+)" \(element\): '
                 r'([\w-]+), (.*)$')
SENDER = (
    "videotestsrc is-live=true pattern=snow num-buffers={frames} ! "
    f"video/x-raw,format=I420,width={W},height={H},framerate={FPS}/1 ! "
    f"rtpvrawpay mtu={MTU} ! "
    "tpbasink name=snk host={dst} port={port} tcp-congestion={cc} "
    "stats-interval=1000000000 {extra}"
)
RECEIVER = (
    "tpbasrc name=src port={port} stats-interval=100000000 "
    "caps=\"application/x-rtp,media=video,clock-rate=90000,encoding-name=RAW,"
    f"sampling=YCbCr-4:2:0,depth=(string)8,width=(string){W},height=(string){H},"
    "payload=96\" ! fakesink sync=false"
)


def fields(text):
    return {k: v.strip('"') for k, v in
            re.findall(r'([\w-]+)=\([\w]+\)("[^"]*"|[^,;]+)', text)}


def queue_ms(b, rtt, packets=None):
    """the tbf's queue in ms of the rate: packets of 1500 bytes if given, else the
    longest of 50 ms, the base RTT and 20 packets"""
    if packets:
        return max(1, round(packets * 1500 * 8 * 1000 / b))
    return max(50, rtt, round(20 * 1500 * 8 * 1000 / b))


# --- the run ---------------------------------------------------------------

def read_messages(proc, t0, element, out):
    """(seconds since t0, message name, fields) of element's messages."""
    def reader():
        for line in proc.stdout:
            m = MSG.match(line.strip())
            if m and m.group(1) == element:
                out.append((time.monotonic() - t0, m.group(2), fields(m.group(3))))
    th = threading.Thread(target=reader, daemon=True)
    th.start()
    return th


SS_FIELDS = re.compile(r"\brtt:([\d.]+)/|\bcwnd:(\d+)|\bretrans:\d+/(\d+)|"
                       r"\bdelivery_rate (\d+)bps|\bbytes_acked:(\d+)|"
                       r"\bdata_segs_out:(\d+)")


def ss_sample(info):
    """[rtt ms, cwnd, total retransmissions, delivery_rate bit/s, bytes acked,
    data segments sent] of one `ss -ti` info line; -1 where absent."""
    out = [-1.0, -1, -1, -1, -1, -1]
    for m in SS_FIELDS.finditer(info):
        k = next(i for i, g in enumerate(m.groups()) if g is not None)
        out[k] = float(m.group(k + 1)) if k == 0 else int(m.group(k + 1))
    return out


def start_ss_capture(snd, t0, out):
    """Every SS_MS, `ss -ti` of the sender's established TCP connections:
    out[destination port] gets (seconds since t0, *ss_sample)."""
    loop = (f"while :; do echo @; ss -tinH state established; "
            f"sleep {SS_MS / 1000:g}; done")
    proc = snd.popen(["sh", "-c", loop], stdout=subprocess.PIPE, text=True)

    def reader():
        t, port = 0.0, None
        for line in proc.stdout:
            if line.startswith("@"):
                t = round(time.monotonic() - t0, 3)
            elif line[:1] in ("\t", " ") and port is not None:
                out.setdefault(port, []).append([t] + ss_sample(line))
                port = None
            else:
                cols = line.split()
                port = cols[3].rsplit(":", 1)[1] if len(cols) >= 4 else None
    threading.Thread(target=reader, daemon=True).start()
    return proc


def run_case(case):
    with netbed.NetBed() as bed:
        snd, rcv = build_bed(bed, case)
        if case["variant"] in REFERENCES:
            return run_reference(case, snd, rcv)
        return run_tpba(case, snd, rcv)


def build_bed(bed, case):
    """snd -> rtr -> rcv with the case's bottleneck and delay; returns (snd, rcv)."""
    snd, rtr, rcv = bed.host("snd"), bed.host("rtr", forwarding=True), bed.host("rcv")
    _, rtr_in = bed.link(snd, rtr, "10.77.1.2/24", "10.77.1.1/24")
    rtr_out, _ = bed.link(rtr, rcv, "10.77.2.1/24", "10.77.2.2/24")
    snd.run(["ip", "route", "add", "10.77.2.0/24", "via", "10.77.1.1"])
    rcv.run(["ip", "route", "add", "10.77.1.0/24", "via", "10.77.2.1"])
    qms = queue_ms(case["b"], case["rtt"], case.get("queue"))
    if case.get("qdisc", "tbf") == "tbf":
        bed.bottleneck(rtr, rtr_out, rate_bps=case["b"], latency_ms=qms)
    else:
        bed.aqm_bottleneck(rtr, rtr_out, case["b"], limit_bytes=int(case["b"] * qms / 8000),
                           qdisc=case["qdisc"])
    if case["rtt"]:
        bed.delay(rtr, rtr_in, case["rtt"], direction="ingress")
    # the other half of the paper's cwnd change (docs/protocols/tpba.md)
    snd.run(["sysctl", "-qw", "net.ipv4.tcp_slow_start_after_idle=0"])
    if case.get("rcvbuf"):         # window-limited TCP, every receiver alike
        rcv.run(["sysctl", "-qw",
                 f"net.ipv4.tcp_rmem=4096 {case['rcvbuf']} {case['rcvbuf']}"])
    return snd, rcv


def start_cross(case, snd, rcv, stop, t0, connected=None, go=None, connect_early=False,
                joiner=None):
    """The n TCP flows from 0 to END and the joiner from JOIN to LEAVE (none
    before go is set, if given); returns their (time, bytes) sample lists (and
    fills connected[k] with flow k's connect() time, if given). With joiner, a
    pair of events (join, leave), the joiner runs from join to leave instead."""
    ntcp = case["ntcp"]
    cross = [[] for _ in range(ntcp + 1)]
    for k in range(ntcp + 1):
        start, stop_at, flow_go, flow_stop = 0, END, go, stop
        if k == ntcp:
            start, stop_at = JOIN, LEAVE
            if joiner:
                (flow_go, flow_stop), start, stop_at = joiner, 0, END
        netbed.greedy_tcp(snd, rcv, "10.77.2.2", CROSS_PORT + k, case["cc"], flow_stop,
                          cross[k], t0=t0, start=start, stop_at=stop_at,
                          connected=connected[k] if connected else None, go=flow_go,
                          connect_early=connect_early and k < ntcp)
    return cross


def wait_in_period(msgs, kind, after, delay, t0, stop, poll=0.01):
    """Wait until delay s into the first `kind` period the sink decided at or
    after `after` (s since t0; tpba-period messages in msgs) and return that time
    (s since t0); a period that ends before then is skipped for the next one.
    None if stop is set first."""
    while not stop.is_set():
        periods = [(t, f.get("period")) for t, name, f in list(msgs) if name == "tpba-period"]
        start = first(lambda p: p[0] >= after and p[1] == kind, periods)
        now = time.monotonic() - t0
        if start is not None and now >= start[0] + delay:
            later = [t for t, _ in periods if t > start[0]]
            if not later:
                return round(now, 3)
            after = later[0]
            continue
        time.sleep(poll)
    return None


def drive_change(msgs, t0, stop, join, leave, times):
    """A thread that sets join, then leave, inside CHANGE_IN periods (Table 3's
    cases) and stores their times in times["join_at"], times["leave_at"]."""
    def drive():
        j = wait_in_period(msgs, CHANGE_IN, JOIN, CHANGE_DELAY, t0, stop)
        if j is None:
            return
        times["join_at"] = j
        join.set()
        end = wait_in_period(msgs, CHANGE_IN, max(LEAVE, j + 6), CHANGE_DELAY, t0, stop)
        if end is not None:
            times["leave_at"] = end
            leave.set()
    th = threading.Thread(target=drive, daemon=True)
    th.start()
    return th


def start_rule(case):
    """(go, connect_early) for start_cross under case["start"] (TPBA_START): the
    flow in TPBA's place (the sink or the TCP reference) sets go when its
    connection shows; None for "before", where every flow starts at once."""
    if case["start"] == "before":
        return None, False
    return threading.Event(), case["start"] == "together"


def wait_established(snd, ntcp, poll=0.001, timeout=TPBA_CONNECT_WAIT):
    """Wait until the first ntcp TCP flows' early connects have finished: with a
    long RTT their handshakes would otherwise end after the sink's connection
    and they would send after it, not with it."""
    ports = [CROSS_PORT + k for k in range(ntcp)]
    end = time.monotonic() + timeout
    with snd.inside():
        while time.monotonic() < end:
            socks = [netbed.tcp_sockets_to(p) for p in ports]
            if all(any(st == "01" for st, _ in x) for x in socks):
                return
            time.sleep(poll)


def run_tpba(case, snd, rcv):
    extra = VARIANTS[case["variant"]].format(b=int(case["b"]))
    stop = threading.Event()
    rx = rcv.popen(["sh", "-c", "exec gst-launch-1.0 -m -e " + RECEIVER.format(port=PORT)],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    t0 = time.monotonic()
    rx_msgs, tx_msgs = [], []
    read_messages(rx, t0, "src", rx_msgs)
    # the TCP flows start on the sink's connection (go), or at once in the old order
    go, connect_early = start_rule(case)
    connected, tpba_start = [[] for _ in range(case["ntcp"] + 1)], {}
    joiner = (threading.Event(), threading.Event()) if case.get("change_in") else None
    cross = start_cross(case, snd, rcv, stop, t0, connected, go, connect_early, joiner)
    if connect_early:
        wait_established(snd, case["ntcp"])
    ss = {}
    if SS_MS:
        start_ss_capture(snd, t0, ss)
    netbed.watch_connect(snd, PORT, t0, tpba_start, go,
                         timeout=TPBA_CONNECT_WAIT)
    tx = snd.popen(["sh", "-c", "exec gst-launch-1.0 -m " + SENDER.format(
        frames=END * FPS, dst="10.77.2.2", port=PORT, cc=case["cc"], extra=extra)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reader = read_messages(tx, t0, "snk", tx_msgs)
    change = {}
    if joiner:
        drive_change(tx_msgs, t0, stop, *joiner, change)
    try:
        tx.wait(timeout=END + 20)
    except subprocess.TimeoutExpired:
        tx.kill()
    reader.join(5)
    err_tx = tx.stderr.read()
    stop.set()
    if go is not None:
        go.set()                     # a sender that never connected: the flows end
    for event in joiner or ():
        event.set()                  # a change that never came: the joiner ends
    netbed.interrupt(rx)

    tpba = [(t, int(f.get("bytes-udp", 0)) + int(f.get("bytes-tcp", 0)))
            for t, name, f in rx_msgs if name == "tpba-stats"]
    udp = [(t, int(f.get("bytes-udp", 0))) for t, name, f in rx_msgs if name == "tpba-stats"]
    stats = [f for _, name, f in tx_msgs if name == "tpba-stats"]
    periods = [(round(t, 2), f.get("period"), int(f.get("r-s", 0)))
               for t, name, f in tx_msgs if name == "tpba-period"]
    # the running periods' loss (p-loss, per 1 s sample) and TCP's in probing (p-probe)
    losses = [(float(f["p-loss"]), float(f.get("p-probe", -1))) for f in stats
              if f.get("period") == "running" and "p-loss" in f]
    # the sink's 1 s samples: how much of the pacer's rate it sent (eleventh pass)
    sink = [(round(t, 2), f.get("period"), int(f.get("rate", 0)), int(f.get("bytes-udp", 0)))
            for t, name, f in tx_msgs if name == "tpba-stats"]
    # what TCP showed the probe (seventeenth pass): its RTT per 1 s sample, and the
    # last probing period's retransmitted fraction and, with kept-rate=equation,
    # its loss event rate, mean RTT (ns) and the equation's rate (bit/s)
    tcp = [(round(t, 2), f.get("period"), int(f.get("tcp-rtt", -1)),
            float(f.get("p-probe", -1)), float(f.get("equation-loss-event-rate", -1)),
            int(f.get("equation-rtt", -1)), int(f.get("equation-rate", 0)))
           for t, name, f in tx_msgs if name == "tpba-stats"]
    # running-queue-margin (issue 17): the last RR's RTT, the probe's mean TCP RTT
    # (ns, -1 unknown), the points held so far and those running-queue-cut acted on,
    # per 1 s sample
    rr_rtt = [(round(t, 2), f.get("period"), int(f.get("rtt", -1)),
               int(f.get("probe-rtt", -1)), int(f.get("queue-holds", 0)),
               int(f.get("queue-cuts", 0)))
              for t, name, f in tx_msgs if name == "tpba-stats"]
    ok, err = tx.returncode == 0 and len(tpba) > 2, "" if tx.returncode == 0 else err_tx[-300:]
    if ok and joiner and "join_at" not in change:
        ok, err = False, f"no {case['change_in']} period from {JOIN} s to the end: nobody joined"
    return dict(case, ok=ok, err=err,
                R=[windows(s, END) for s in [tpba] + cross], U=windows(udp, END),
                periods=periods, losses=losses, sink=sink, tcp=tcp, rr_rtt=rr_rtt, ss=ss,
                last=stats[-1] if stats else {}, first_bytes=first_bytes([tpba] + cross),
                connects=[tpba_start.get("connect")] + [c[0] if c else None for c in connected],
                tpba_first_tx=tpba_start.get("first_tx"), **change)


def run_reference(case, snd, rcv):
    """The reference flow of case["variant"] (REFERENCES) beside the same TCP flows.
    Every flow's threads and the capture are set up before t0, so the reference
    starts with the TCP flows (or REF_START s after them), not after the setup."""
    stop, flow = threading.Event(), []
    t0 = time.monotonic() + START_SETUP
    ss = {}
    if SS_MS:
        start_ss_capture(snd, t0, ss)
    connected = [[] for _ in range(case["ntcp"] + 2)]     # the reference, then start_cross's
    # the TCP reference starts as TPBA_START starts TPBA (issue 17): its connection
    # releases the TCP flows; with REF_START or CBR every flow starts at its own time
    go, connect_early = (None, False)
    if case["variant"] == "TCP" and not REF_START:
        go, connect_early = start_rule(case)
    ref_start = {}
    cross = start_cross(case, snd, rcv, stop, t0, connected[1:], go, connect_early)
    if case["variant"] == "TCP":
        netbed.greedy_tcp(snd, rcv, "10.77.2.2", PORT, case["cc"], stop, flow,
                          t0=t0, start=REF_START, stop_at=END, connected=connected[0])
        if go is not None:
            netbed.watch_connect(snd, PORT, t0, ref_start, go, timeout=START_SETUP + TPBA_CONNECT_WAIT)
    else:
        netbed.paced_udp(snd, rcv, "10.77.2.2", PORT, case["b"] / (case["ntcp"] + 1), MTU,
                         stop, flow, t0, END)
    time.sleep(max(0.0, t0 + END + 0.5 - time.monotonic()))
    stop.set()
    if go is not None:
        go.set()                     # a reference that never connected: the flows end
    return dict(case, ok=len(flow) > 2, err="" if len(flow) > 2 else "no bytes arrived",
                R=[windows(s, END) for s in [flow] + cross], periods=[], losses=[], ss=ss,
                last={}, ref_start=REF_START, first_bytes=first_bytes([flow] + cross),
                connects=[c[0] if c else None for c in connected],
                ref_seen=ref_start.get("connect"), ref_first_tx=ref_start.get("first_tx"))


def first_bytes(flows):
    """Seconds from t0 to each flow's first received bytes (None: none arrived;
    TPBA's come from tpbasrc's stats, so they are up to 100 ms late)."""
    return [next((round(t, 3) for t, b in s if b > 0), None) for s in flows]


def start_skew(run):
    """How much later the flow in TPBA's place (the sink's probing connection,
    or the reference) called connect() than the earliest of the TCP flows
    that start with it at 0, less the intended REF_START: about 0 on a bed
    that starts them together (None for runs without the times, and for the
    CBR reference, which does not connect). The sink's connect() is when the
    bench first saw its socket, up to a poll (1 ms) and a wake-up late."""
    conn = run.get("connects")
    if not conn or conn[0] is None:
        return None
    others = [t for t in conn[1:run["ntcp"] + 1] if t is not None]
    return conn[0] - min(others) - run.get("ref_start", 0.0) if others else None


def start_warning(run):
    """The line that flags a run whose flow in TPBA's place did not connect
    with the TCP flows (None when it did, or the times are missing)."""
    skew = start_skew(run)
    if skew is None or abs(skew) <= MAX_START_SKEW:
        return None
    who = "the reference" if run["variant"] in REFERENCES else "TPBA's probing connection"
    why = (" (expected: BENCH_TPBA_START=before starts the TCP flows first)"
           if run.get("start") == "before" and run["variant"] not in REFERENCES
           else ": the bed did not start them as asked")
    return (f"# WARNING: {who} connected {skew:+.3f} s off its intended start beside "
            f"the TCP flows (connect() at {run['connects']} s){why}")


# --- the metrics -------------------------------------------------------------

def first(cond, js, default=None):
    return next((j for j in js if cond(j)), default)


def response(periods, t_change, t_end):
    """(T_wait, T_probe): from t_change to the first probing period that starts
    after it, and that period's length; None where it does not end by t_end."""
    t_probe = first(lambda t: t >= t_change, (t for t, p, _ in periods if p == "probing"))
    if t_probe is None or t_probe >= t_end:
        return None, None
    t_run = first(lambda t: t > t_probe, (t for t, p, _ in periods if p == "running"))
    return t_probe - t_change, (t_run - t_probe if t_run is not None and t_run < t_end
                                else None)


def change_times(run):
    """When the joiner joined and left, s since t0: JOIN and LEAVE unless the run
    placed them inside TPBA's periods (BENCH_TPBA_CHANGE_IN; END for a leave that
    found no such period)."""
    if run.get("change_in"):
        return run.get("join_at", JOIN), run.get("leave_at", END)
    return JOIN, LEAVE


def settle(periods, t_change, t_end, fair):
    """(T_stable, r_s / fair): from t_change to the first running period that
    starts after it (the paper's "until the rate becomes stable": the probe that
    was on at the change, or the next one, has ended), and the r_s that period
    kept over the fair share after the change; (None, None) if none by t_end."""
    run = first(lambda p: t_change < p[0] < t_end and p[1] == "running", periods)
    if run is None:
        return None, None
    return run[0] - t_change, run[2] / fair


def probe_ratios(run):
    """[(k, TPBA's rate / the active TCP flows' mean rate in the k-th whole 1 s
    window of a probing period)] over the run's probing periods after the first
    (the first starts with everyone at t = 0)."""
    R, out = run["R"], []
    for t0, t1 in probing_spans(run["periods"])[1:]:
        for k, j in enumerate(range(int(t0) + 1, min(int(t1), END)), 1):
            tcp = [r[j] for r in R[1:] if r[j] > 1e3]
            if tcp:
                out.append((k, R[0][j] / statistics.mean(tcp)))
    return out


def probe_vs_tcp(run):
    """Median over TPBA's probing periods (whole 1 s windows, at least two, not
    across the join or the leave) of TPBA's rate against the mean rate of the
    TCP flows active then: how TCP-exact a probing connection is beside them."""
    R, ratios = run["R"], []
    for t0, t1 in probing_spans(run["periods"]):
        js = range(int(t0) + 1, min(int(t1), END))
        if len(js) < 2 or any(int(t0) < c <= int(t1) for c in (JOIN, LEAVE)):
            continue
        tcp = [statistics.mean(r[j] for j in js) for r in R[1:]]
        tcp = [x for x in tcp if x > 1e3]
        if tcp:
            ratios.append(statistics.mean(R[0][j] for j in js) / statistics.mean(tcp))
    return median_or_none(ratios)


def udp_share(run):
    """The share of TPBA's bytes that arrived over UDP in [WARMUP, END)."""
    if "U" not in run:
        return None
    total = sum(run["R"][0][WARMUP:END])
    return sum(run["U"][WARMUP:END]) / total if total else None


def kept_spans(run):
    """[(r_s, the TCP flows' mean rate, TPBA's own mean rate)] over the probing
    periods after the first (which starts with everyone at t = 0) that ended
    before JOIN (the TCP flows the same throughout), each mean over that
    probing period's whole 1 s windows at the receivers."""
    R, ntcp, out = run["R"], run["ntcp"], []
    spans = probing_spans(run["periods"])
    kept = [r for _, p, r in run["periods"] if p == "running"]
    for (t0, t1), r_s in list(zip(spans, kept))[1:]:
        js = range(int(t0) + 1, min(int(t1), JOIN))
        if len(js) < 2 or not r_s:
            continue
        tcp = [statistics.mean(r[j] for j in js) for r in R[1:ntcp + 1]]
        if tcp and statistics.mean(tcp) > 1e3:
            out.append((r_s, statistics.mean(tcp), statistics.mean(R[0][j] for j in js)))
    return out


def kept_bias(run):
    """Median over kept_spans of r_s against the TCP flows' mean over the same
    probing period: 1.0 is an unbiased kept rate."""
    return median_or_none([r_s / tcp for r_s, tcp, _ in kept_spans(run)])


def kept_own(run):
    """Median over kept_spans of r_s against TPBA's own rate at the receiver
    over the same probing period (issue 17): 1.0 is a kept rate that reads the
    probe without bias, whatever share the probe itself got."""
    return median_or_none([r_s / own for r_s, _, own in kept_spans(run) if own > 1e3])


def metrics(run):
    R, ntcp = run["R"], run["ntcp"]
    orig = R[:ntcp + 1]                  # TPBA and the TCP flows that run throughout
    joiner = R[ntcp + 1]
    tcp = R[1:ntcp + 1]
    join, leave = change_times(run)
    n_change, n_final = int(join) - 1, int(leave) - 1
    n_cross = first(lambda j: any(R[0][j] >= r[j] for r in tcp), range(n_change))
    if n_cross is None:                  # the paper's fallback for flows that never cross
        n_cross = first(lambda n: max(R[0][n - 10:n + 1]) - min(R[0][n - 10:n + 1])
                        < 20e3, range(10, n_change), WARMUP)
    span1 = range(n_cross, n_change + 1)
    d_intra = max(max(r[j] for j in span1) - min(r[j] for j in span1) for r in orig)
    means1 = [statistics.mean(r[j] for j in span1) for r in orig]
    n_join = first(lambda j: any(joiner[j] >= r[j] for r in tcp), range(int(join), n_final),
                   int(join))
    span2 = range(n_join, n_final + 1)
    means2 = [statistics.mean(r[j] for j in span2) for r in R]
    f1 = [jain([r[j] for r in orig]) for j in range(WARMUP, int(join))]
    f2 = [jain([r[j] for r in R]) for j in range(int(join) + 5, int(leave))] or [None]
    fair1 = run["b"] / (ntcp + 1)
    share1 = statistics.mean(R[0][j] for j in range(WARMUP, int(join))) / fair1
    rs_med = median_or_none([r for _, p, r in run["periods"] if p == "running"])
    f_tcp = (statistics.median(jain([r[j] for r in tcp]) for j in range(WARMUP, int(join)))
             if ntcp > 1 else None)
    return dict(
        f1=statistics.median(f1), f1_mean=statistics.mean(f1), f2=median_or_none(f2),
        f_tcp=f_tcp, share1=share1, n_cross=n_cross, n_join=n_join,
        d_intra=d_intra, d_ave1=max(means1) - min(means1),
        d_ave2=max(means2) - min(means2),
        pr=response(run["periods"], join, leave), pi=response(run["periods"], leave, END),
        settle_pr=settle(run["periods"], join, leave, run["b"] / (ntcp + 2)),
        settle_pi=(settle(run["periods"], leave, END, run["b"] / (ntcp + 1))
                   if leave < END else (None, None)),
        tpba_kbps=statistics.mean(R[0][j] for j in range(WARMUP, int(join))) / 1e3,
        tcp_kbps=[statistics.mean(r[j] for j in range(WARMUP, int(join))) / 1e3 for r in tcp],
        running=sum(1 for p in run["periods"] if p[1] == "running"),
        p_loss=median_or_none([p for p, _ in run.get("losses", [])]),
        p_probe=median_or_none([q for _, q in run.get("losses", []) if q >= 0]),
        reductions=int(run["last"].get("reductions", 0)),
        rs_share=rs_med / fair1 if rs_med is not None else None,
        f_means=jain(means1_window(R[:ntcp + 1])),
        udp_share=udp_share(run),
        kept_bias=kept_bias(run) if is_tpba(run["variant"]) else None,
        kept_own=kept_own(run) if is_tpba(run["variant"]) else None,
        probe_vs_tcp=probe_vs_tcp(run) if is_tpba(run["variant"]) else None)


def means1_window(rates):
    """Each flow's mean rate over [WARMUP, JOIN)."""
    return [statistics.mean(r[j] for j in range(WARMUP, JOIN)) for r in rates]


def is_tpba(variant):
    """True for the variants that run TPBA (not LDA, not a reference flow)."""
    return variant in VARIANTS and variant != "LDA"


def scenario(run):
    rtt = f"+{run['rtt']} ms" if run["rtt"] else "short"
    extra = (f", {run['qdisc']}" if run.get("qdisc", "tbf") != "tbf" else "") + \
        (f", queue {run['queue']} pkts" if run.get("queue") else "") + \
        (f", rcvbuf {run['rcvbuf'] // 1024} KiB" if run.get("rcvbuf") else "")
    return f"{run['b'] / 1e6:g} Mbit/s, {run['ntcp']} {run['cc']}, RTT {rtt}{extra}"


def fmt(x, scale=1.0, spec=".0f"):
    return "-" if x is None else format(x / scale, spec)


HEADER = ("| scenario | variant | f median [10, JOIN) | f TCP only | TPBA / fair share | "
          "TPBA kbit/s | TCP kbit/s | n_cross | dR_intra | dR_ave1 | f median after join | "
          "dR_ave2 | T_pr (T_wait) s | T_pi (T_wait) s | running periods |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def row(run, m):
    return (f"| {scenario(run)} | {run['variant']} | {m['f1']:.3f} | "
            f"{fmt(m['f_tcp'], spec='.3f')} | {m['share1']:.2f} | {m['tpba_kbps']:.0f} | "
            + "/".join(f"{x:.0f}" for x in m["tcp_kbps"])
            + f" | {m['n_cross']} | {fmt(m['d_intra'], 1e3)} | {fmt(m['d_ave1'], 1e3)} | "
            f"{fmt(m['f2'], spec='.3f')} | {fmt(m['d_ave2'], 1e3)} | {fmt_response(m['pr'])} | "
            f"{fmt_response(m['pi'])} | {m['running']} |")


def fmt_response(r):
    wait, probe = r
    return "-" if wait is None else f"{fmt(probe, spec='.1f')} ({wait:.1f})"


# --- plots (stdlib SVG, like the paper's figures 10 and 22) -----------------

COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#ff7f0e"]


def plot_svg(run, path):
    R, ntcp = run["R"], run["ntcp"]
    names = ["TPBA" if is_tpba(run["variant"]) else run["variant"]] + \
        [f"TCP {k + 1}" for k in range(ntcp)] + ["TCP joiner"]
    w, h, left, bottom = 640, 300, 50, 30
    top = max(max(r) for r in R) * 1.05 or 1
    x = lambda t: left + (w - left - 10) * t / END          # noqa: E731
    y = lambda v: h - bottom - (h - bottom - 24) * v / top  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="12">{scenario(run)}, {run["variant"]}: kbit/s per 1 s '
           f'window; grey: probing; dashed: join, leave</text>']
    for t0, t1 in probing_spans(run["periods"]) if is_tpba(run["variant"]) else []:
        out.append(f'<rect x="{x(t0):.1f}" y="{y(top):.1f}" width="{x(t1) - x(t0):.1f}" '
                   f'height="{y(0) - y(top):.1f}" fill="#f0f0f0"/>')
    for t in (JOIN, LEAVE):
        out.append(f'<line x1="{x(t):.1f}" y1="{y(0):.1f}" x2="{x(t):.1f}" y2="{y(top):.1f}" '
                   f'stroke="#888" stroke-dasharray="4 3"/>')
    for t in range(0, END + 1, 10 if END <= 120 else 50):
        out.append(f'<line x1="{x(t):.1f}" y1="{y(0):.1f}" x2="{x(t):.1f}" '
                   f'y2="{y(top):.1f}" stroke="#eee"/>'
                   f'<text x="{x(t):.1f}" y="{h - 12}" text-anchor="middle">{t}</text>')
    step = next(m * 10 ** e * 1e3 for e in range(8) for m in (1, 2, 5)
                if top / (m * 10 ** e * 1e3) <= 6)
    v = 0.0
    while v <= top:
        out.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" text-anchor="end">'
                   f'{v / 1e3:.0f}</text>')
        v += step
    for k, r in enumerate(R):
        pts = " ".join(f"{x(j + 0.5):.1f},{y(v):.1f}" for j, v in enumerate(r))
        c = COLOURS[k % len(COLOURS)]
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="1.5" points="{pts}"/>'
                   f'<text x="{w - 80}" y="{40 + 14 * k}" fill="{c}">{names[k]}</text>')
    out.append("</svg>")
    with open(path, "w") as fp:
        fp.write("\n".join(out) + "\n")


def probing_spans(periods):
    """[(start, end)] of TPBA's probing periods (it starts probing at 0)."""
    spans, start = [], 0.0
    for t, p, _ in periods:
        if p == "running" and start is not None:
            spans.append((start, t))
            start = None
        elif p == "probing" and start is None:
            start = t
    if start is not None:
        spans.append((start, END))
    return spans


def write_plot(run):
    plots = os.environ.get("BENCH_TPBA_PLOTS")
    if plots and run["ok"]:
        os.makedirs(plots, exist_ok=True)
        plot_svg(run, os.path.join(plots, plot_name(run)))


def plot_name(run):
    mbps = f"{run['b'] / 1e6:g}".replace(".", "_")
    return (f"tpba-{mbps}M-{run.get('qdisc', 'tbf')}-{run['ntcp']}{run['cc']}-"
            f"rtt{run['rtt']}-{run['variant']}-"
            f"{run.get('trial', 0)}.svg")


def report(runs):
    print(HEADER)
    scored = []                          # (run, its metrics) of the runs that worked
    for run in runs:
        if run["ok"]:
            scored.append((run, metrics(run)))
            print(row(run, scored[-1][1]))
        else:
            print(f"| {scenario(run)} | {run['variant']} | FAILED: {run['err'][-80:]!r} |")
    if scored:
        print()
        summary_by_variant(scored)
        by = by_scenario(scored)
        print()
        for v in dict.fromkeys(run["variant"] for run, _ in scored):
            if v != "LDA" and against_lda(by, v):
                print()
        variants_side_by_side(by)
        print()
        probe_convergence(scored)
        print()
        running_loss(scored)
        print()
        udp_and_kept_rate(scored)
        print()
        kept_rate_per_period(scored)
        if any(run.get("change_in") for run, _ in scored):
            print()
            table3(scored)


def med_range(xs, spec=".1f"):
    """'median [min-max]' of the values that are not None, with how many are."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return (f"{statistics.median(xs):{spec}} [{min(xs):{spec}}-{max(xs):{spec}}]"
            + ("" if len(xs) > 1 else " (1)"))


def period_at(periods, t):
    """The period the sink had decided last before t (None before the first)."""
    before = [p for pt, p, _ in periods if pt <= t]
    return before[-1] if before else None


def changes_inside(run):
    """How many of the run's join and leave fell inside a period of its
    change_in kind, and how many there were."""
    times = [run[k] for k in ("join_at", "leave_at") if k in run]
    return sum(period_at(run["periods"], t) == run["change_in"] for t in times), len(times)


def first_cut(run, t_change):
    """s from t_change to the first of the sink's 1 s samples, in the same running
    period, whose paced rate is below the rate at the change (the running period's
    own answer to a join: a cut at an adaptation point); None if there is none."""
    sink = run.get("sink", [])
    at = [rate for t, _, rate, _ in sink if t <= t_change]
    nxt = first(lambda p: p[0] > t_change, run["periods"])
    t_end = nxt[0] if nxt else END
    cut = first(lambda x: t_change < x[0] <= t_end and x[1] == "running" and x[2] < at[-1],
                sink) if at else None
    return cut[0] - t_change if cut else None


def answering_probe(periods, t_change, t_end):
    """The length (s) of the probing period that ended at the first running period
    after t_change (the one on at the change, or the next); None if none by t_end."""
    run = first(lambda p: t_change < p[0] < t_end and p[1] == "running", periods)
    if run is None:
        return None
    starts = [t for t, p, _ in periods if p == "probing" and t < run[0]]
    return run[0] - starts[-1] if starts else run[0]


def table3(scored):
    """Table 3 (the paper: T_pr 2.0 s, T_pi 2.8 s on average, 2.8 / 3.2 s at most):
    per variant and where the change fell, the time from the join (T_pr) or the
    leave (T_pi) to the next running period, the time to the end of the first probe
    begun after the change, the r_s kept then over the new fair share, the time
    from a join to the running period's first cut, and the length of the probe
    that ended at the next running period."""
    print("| variant | change inside | runs | changes inside it | T_pr s | T_pi s | "
          "T_pr, whole next probe s | T_pi, whole next probe s | r_s / fair after join | "
          "r_s / fair after leave | first cut after join s | probe that answered the "
          "join / the leave s |\n|---|---|---|---|---|---|---|---|---|---|---|---|")
    whole = lambda r: None if r[1] is None else r[0] + r[1]  # noqa: E731
    for key in dict.fromkeys((run["variant"], run.get("change_in", "")) for run, _ in scored):
        runs = [run for run, _ in scored if (run["variant"], run.get("change_in", "")) == key]
        ms = [m for run, m in scored if (run["variant"], run.get("change_in", "")) == key]
        inside = [changes_inside(run) for run in runs] if key[1] else []
        print(f"| {key[0]} | {key[1] or 'at JOIN / LEAVE'} | {len(ms)} | "
              + (f"{sum(a for a, _ in inside)} of {sum(n for _, n in inside)} | "
                 if key[1] else "- | ") +
              f"{med_range(m['settle_pr'][0] for m in ms)} | "
              f"{med_range(m['settle_pi'][0] for m in ms)} | "
              f"{med_range(whole(m['pr']) for m in ms)} | "
              f"{med_range(whole(m['pi']) for m in ms)} | "
              f"{med_range((m['settle_pr'][1] for m in ms), '.2f')} | "
              f"{med_range((m['settle_pi'][1] for m in ms), '.2f')} | "
              f"{med_range(first_cut(run, change_times(run)[0]) for run in runs)} "
              f"({sum(first_cut(run, change_times(run)[0]) is not None for run in runs)} "
              f"of {len(runs)}) | "
              f"{med_range(answering_probe(run['periods'], *change_times(run)) for run in runs)}"
              " / " + med_range(answering_probe(run["periods"], change_times(run)[1], END)
                                for run in runs if change_times(run)[1] < END) + " |")


def median_or_none(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def by_scenario(scored, runs=False):
    """{scenario: {variant: [metrics of each trial]}} (with runs, the runs)"""
    by = {}
    for run, m in scored:
        by.setdefault(scenario(run), {}).setdefault(run["variant"], []).append(
            run if runs else m)
    return by


def summary_by_variant(scored):
    """One line per variant over all its runs: medians, and how often f >= 0.95."""
    print("| variant | runs | f median (median over runs) | runs with f >= 0.95 | "
          "f after join | TPBA / fair share | T_pr s | T_pi s | T_wait after join / leave s |\n"
          "|---|---|---|---|---|---|---|---|---|")
    for v in dict.fromkeys(run["variant"] for run, _ in scored):
        ms = [m for run, m in scored if run["variant"] == v]
        col = lambda key, i=None: median_or_none(  # noqa: E731
            m[key] if i is None else m[key][i] for m in ms)
        print(f"| {v} | {len(ms)} | {col('f1'):.3f} | "
              f"{sum(m['f1'] >= 0.95 for m in ms)} / {len(ms)} | {fmt(col('f2'), spec='.3f')} | "
              f"{col('share1'):.2f} | {fmt(col('pr', 1), spec='.1f')} | "
              f"{fmt(col('pi', 1), spec='.1f')} | {fmt(col('pr', 0), spec='.1f')} / "
              f"{fmt(col('pi', 0), spec='.1f')} |")


# metric, its key, True where higher is better
COMPARED = [("f", "f1", True), ("f after join", "f2", True), ("dR_intra", "d_intra", False),
            ("dR_ave1", "d_ave1", False), ("dR_ave2", "d_ave2", False)]


def variants_side_by_side(by):
    """Per scenario run with more than one TPBA variant or reference flow: each
    one's median f over [10, JOIN) and its rate / fair share, over trials."""
    names = [v for v in list(VARIANTS) + list(REFERENCES)
             if v != "LDA" and any(v in d for d in by.values())]
    rows = [(s, d) for s, d in by.items() if sum(v in d for v in names) > 1]
    if not rows:
        return
    print("| scenario | " + " | ".join(f"{v}: f, share" for v in names)
          + " |\n|---|" + "---|" * len(names))
    for s, d in rows:
        cells = [f"{statistics.median(m['f1'] for m in d[v]):.3f}, "
                 f"{statistics.median(m['share1'] for m in d[v]):.2f}" if v in d else "-"
                 for v in names]
        print(f"| {s} | " + " | ".join(cells) + " |")


def probe_convergence(scored, seconds=10):
    """Per TPBA variant: the median over its probing periods (all runs) of TPBA's
    rate against the TCP flows' in the k-th second of the period."""
    names = [v for v in dict.fromkeys(run["variant"] for run, _ in scored) if is_tpba(v)]
    if not names:
        return
    print("| variant | periods | " + " | ".join(f"s {k}" for k in range(1, seconds + 1))
          + " |\n|---|---|" + "---|" * seconds)
    for v in names:
        ratios = [x for run, _ in scored if run["variant"] == v for x in probe_ratios(run)]
        cells = [median_or_none([r for k2, r in ratios if k2 == k]) for k in range(1, seconds + 1)]
        print(f"| {v} | {sum(1 for k, _ in ratios if k == 1)} | "
              + " | ".join(fmt(c, spec=".2f") for c in cells) + " |")


def running_loss(scored):
    """Per TPBA run with running periods: its rate while probing against the TCP
    flows', the probed r_s against the fair share,
    and the loss its RRs reported while running against the loss TCP had in
    the cycles behind r_s."""
    rows = [(run, m) for run, m in scored if is_tpba(run["variant"]) and m["p_loss"] is not None]
    if not rows:
        return
    print("| scenario | variant | probing: TPBA / TCP flows (median) | "
          "r_s / fair share (median) | running loss p_loss % "
          "(median of 1 s samples) | TCP loss p_probe % (median) | reductions | "
          "TPBA / fair share |\n|---|---|---|---|---|---|---|---|")
    for run, m in rows:
        print(f"| {scenario(run)} | {run['variant']} | {fmt(m['probe_vs_tcp'], spec='.2f')} | "
              f"{fmt(m['rs_share'], spec='.2f')} | "
              f"{fmt(m['p_loss'], 0.01, '.1f')} | {fmt(m['p_probe'], 0.01, '.1f')} | "
              f"{m['reductions']} | {m['share1']:.2f} |")


def udp_and_kept_rate(scored):
    """Per scenario and variant, medians over trials: Jain's f over the flows'
    mean rates in [WARMUP, JOIN) and per 1 s window, the share of the fair
    rate, the UDP share of TPBA's bytes and the kept rate r_s against the TCP
    flows' mean and against TPBA's own rate over the probing period behind it."""
    print("| scenario | variant | runs | f over mean rates | f per 1 s (median) | "
          "rate / fair share | UDP share of bytes | r_s / TCP mean while probing | "
          "r_s / TPBA while probing |\n"
          "|---|---|---|---|---|---|---|---|---|")
    for s, d in by_scenario(scored).items():
        for v, ms in d.items():
            col = lambda key: median_or_none(  # noqa: E731
                [m[key] for m in ms if m.get(key) is not None])
            print(f"| {s} | {v} | {len(ms)} | {fmt(col('f_means'), spec='.3f')} | "
                  f"{fmt(col('f1'), spec='.3f')} | {fmt(col('share1'), spec='.2f')} | "
                  f"{fmt(col('udp_share'), spec='.2f')} | {fmt(col('kept_bias'), spec='.2f')} | "
                  f"{fmt(col('kept_own'), spec='.2f')} |")


def kept_periods(run):
    """[(r_s / fair share when its probing period ended, r_s / the TCP flows' mean
    over the period's last 4 whole seconds, the period's length)] over the
    probing periods after the first that did not end within 5 s after the join
    or the leave (the flows then still settle)."""
    R, n, out = run["R"], run["ntcp"], []
    kept = [r for _, p, r in run["periods"] if p == "running"]
    for (t0, t1), r_s in list(zip(probing_spans(run["periods"]), kept))[1:]:
        if any(c <= t1 < c + 5 for c in (JOIN, LEAVE)):
            continue
        active = n + 1 + (JOIN <= t1 < LEAVE)          # TPBA, the TCP flows, the joiner
        js = range(max(int(t0) + 1, int(t1) - 4), min(int(t1), len(R[0])))
        tcp = [statistics.mean(r[j] for j in js) for r in R[1:active]] if len(js) else []
        out.append((r_s * active / run["b"],
                    r_s / statistics.mean(tcp) if tcp and statistics.mean(tcp) > 1e3 else None,
                    t1 - t0))
    return out


def kept_rate_per_period(scored):
    """Per scenario and TPBA variant, pooled over the runs' probing periods
    (kept_periods): medians [ranges] of r_s against the fair share and
    against the TCP flows at the end of the period, and the period's length."""
    def cell(xs, spec=".2f"):
        xs = [x for x in xs if x is not None]
        return (f"{format(statistics.median(xs), spec)} [{format(min(xs), spec)}-"
                f"{format(max(xs), spec)}]" if xs else "-")
    print("| scenario | variant | periods | r_s / fair share | r_s / TCP flows, last 4 s | "
          "probing period s |\n|---|---|---|---|---|---|")
    for s, d in by_scenario(scored, runs=True).items():
        for v, rs in d.items():
            ps = [p for run in rs for p in kept_periods(run)]
            if is_tpba(v) and ps:
                print(f"| {s} | {v} | {len(ps)} | {cell(p[0] for p in ps)} | "
                      f"{cell(p[1] for p in ps)} | {cell((p[2] for p in ps), '.1f')} |")


def against_lda(by, variant):
    """Per scenario, @variant's and LDA's median over trials, and which is
    better; FALSE when no scenario has both."""
    pairs = [s for s, d in by.items() if variant in d and "LDA" in d]
    if not pairs:
        return False
    print("| scenario | " + " | ".join(f"{name} {variant} / LDA" for name, _, _ in COMPARED)
          + f" | {variant} better on |\n|---|" + "---|" * (len(COMPARED) + 1))
    wins = dict.fromkeys((name for name, _, _ in COMPARED), 0)
    for s in pairs:
        cells, better = [], []
        for name, key, higher in COMPARED:
            t = statistics.median(m[key] for m in by[s][variant])
            l = statistics.median(m[key] for m in by[s]["LDA"])  # noqa: E741
            spec, scale = (".3f", 1) if higher else (".0f", 1e3)
            cells.append(f"{fmt(t, scale, spec)} / {fmt(l, scale, spec)}")
            if (t > l) if higher else (t < l):
                better.append(name)
                wins[name] += 1
        print(f"| {s} | " + " | ".join(cells) + f" | {len(better)} of {len(COMPARED)} |")
    print(f"| {variant} better in | " + " | ".join(f"{wins[n]} of {len(pairs)}" for n in wins)
          + " | |")
    return True


def cases():
    out = []
    for b, qdisc in [(b, q) for b in env_list("BENCH_TPBA_BOTTLENECK", "1.2,10", float)
                     for q in env_list("BENCH_TPBA_QDISC", "tbf")]:
        for cc in env_list("BENCH_TPBA_CC", "cubic,reno"):
            for rtt in env_list("BENCH_TPBA_RTT", "0,160", int):
                for ntcp in env_list("BENCH_TPBA_NTCP", "1,3", int):
                    # trials outside variants: the variants alternate, so a drift
                    # in the machine's load falls on all of them alike
                    for trial in range(int(os.environ.get("BENCH_TPBA_TRIALS", "1"))):
                        for v in env_list("BENCH_TPBA_VARIANTS", "TPBA,LDA"):
                            if v not in VARIANTS and v not in REFERENCES:
                                sys.exit(f"unknown variant {v!r}; known: "
                                         f"{', '.join(list(VARIANTS) + list(REFERENCES))}")
                            out.append(dict(b=b * 1e6, ntcp=ntcp, cc=cc, rtt=rtt, variant=v,
                                            trial=trial, mtu=MTU, queue=QUEUE, qdisc=qdisc,
                                            rcvbuf=RCVBUF, start=TPBA_START,
                                            change_in=CHANGE_IN))
    i, n = map(int, os.environ.get("BENCH_TPBA_SHARD", "0/1").split("/"))
    return out[i::n]


def main():
    if sys.argv[1:2] == ["--report"]:
        runs = [r for p in sys.argv[2:] for r in json.load(open(p))]
        report(runs)
        for run in runs:
            write_plot(run)
        return 0
    if TPBA_START not in TPBA_STARTS:
        sys.exit(f"BENCH_TPBA_START={TPBA_START!r}: one of {', '.join(TPBA_STARTS)}")
    if CHANGE_IN not in CHANGE_INS:
        sys.exit(f"BENCH_TPBA_CHANGE_IN={CHANGE_IN!r}: running, probing or empty")
    todo = cases()
    netbed.require_or_skip(nfq=any(c["rtt"] for c in todo),
                           aqm=any(c["qdisc"] != "tbf" for c in todo))
    print(f"# TPBA against TCP: {len(todo)} runs of {END} s, a TCP flow joins at {JOIN} s "
          f"and leaves at {LEAVE} s", flush=True)
    runs, t0 = [], time.monotonic()
    for c in todo:
        run = run_case(c)
        runs.append(run)
        print(f"# {time.monotonic() - t0:.0f} s elapsed; join, leave at {change_times(run)} s; "
              f"periods {run['periods'][:12]}; "
              f"sink {run['last']}", flush=True)
        print(row(run, metrics(run)) if run["ok"] else f"FAILED {scenario(run)} {run['variant']}: "
              f"{run['err']}", flush=True)
        warning = start_warning(run)
        if warning:
            print(warning, flush=True)
        write_plot(run)
        save_runs(runs, "BENCH_TPBA_JSON")
    return report_and_status(runs, report)


if __name__ == "__main__":
    sys.exit(main())
