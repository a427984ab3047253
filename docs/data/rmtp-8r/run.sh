#!/bin/sh
# Issue 20, RMTP at 8 receivers (docs/results.md, "RMTP at 8 receivers:
# retransmission against the ARQ bound, more runs"). 2 MiB at 8 Mbit/s on the
# namespace bed; needs root and uftp. From the worktree, after a build.
set -e
D=docs/data/rmtp-8r
R="BENCH_RMTP_RECEIVERS=8"
B="nice -n 10 meson test -C build --benchmark rmtp-uftp --verbose"
V="retransmit+release-on-ack+delta=500000"
# 10 %: UFTP, retransmission (the default) and the variant, alternating
env $R BENCH_RMTP_LOSSES=10 BENCH_RMTP_RUNS=7 BENCH_RMTP_MODES=uftp,retransmit,$V $B > $D/loss10-a.log 2>&1
env $R BENCH_RMTP_LOSSES=0,1 BENCH_RMTP_RUNS=4 BENCH_RMTP_MODES=uftp,retransmit,$V $B > $D/loss0-1.log 2>&1
env $R BENCH_RMTP_LOSSES=10 BENCH_RMTP_RUNS=6 BENCH_RMTP_MODES=uftp,retransmit $B > $D/loss10-b.log 2>&1
env $R BENCH_RMTP_LOSSES=10 BENCH_RMTP_RUNS=6 BENCH_RMTP_MODES=uftp,retransmit $B > $D/loss10-c.log 2>&1
# traced (the capture costs the sender's host some CPU): retransmission only,
# batches of 5, 6, 8, 10, 14, 30 and 40 runs; loss10-trace.log came from the
# first version of the trace (no launch or EOS split), trace2-3 from the
# second (no POLLed member, no loop lateness), trace4-7 from the one committed
n=1
for runs in 5 6 8 10 14 30 40; do
  t=trace$n; [ $n = 1 ] && t=trace
  env $R BENCH_RMTP_TRACE=1 BENCH_RMTP_LOSSES=10 BENCH_RMTP_RUNS=$runs BENCH_RMTP_MODES=retransmit $B > $D/loss10-$t.log 2>&1
  n=$((n + 1))
done
# control-copies=4 beside the default, traced, alternating
env $R BENCH_RMTP_TRACE=1 BENCH_RMTP_LOSSES=10 BENCH_RMTP_RUNS=40 BENCH_RMTP_MODES=retransmit,retransmit+control-copies=4 $B > $D/loss10-copies4.log 2>&1
python3 $D/split.py $D/loss*.log
