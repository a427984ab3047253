#!/bin/sh
# The batches of docs/results.md "RMTP: the digest taken with the data, output in large
# buffers, answers before output (issue 20)". From the top of the tree, root, with uftp;
# BEFORE: a directory holding the libgstrmtp.so of the tree before the change (49713bbc).
# Usage: drive.sh 20mib [NAME] | [LOSSES=10] drive.sh 100mib BATCH
# (The first 20 MiB batch and 100 MiB batch 1 ran MODES=uftp,retransmit@before,retransmit,
# the build's defaults then: answers-first on, except batch 1's 10 % run, which took the
# build with it off.)
set -e
D=docs/data/rmtp-digest-output
export BENCH_RMTP_BEFORE=${BEFORE:-/tmp/h145-before} BENCH_RMTP_TRACE=1 \
  BENCH_RMTP_RECEIVERS=8 \
  BENCH_RMTP_MODES=${MODES:-uftp,retransmit@before,retransmit+rx-answers-first=false,retransmit+rx-early-output=true} \
  GST_PLUGIN_PATH=build/gst/rmtp
case "$1" in
  20mib)
    BENCH_RMTP_MODES=${MODES:-$BENCH_RMTP_MODES,retransmit+rx-answers-first=true} \
    BENCH_RMTP_TRACE_DIR=$PWD/$D/traces-20mib$2 BENCH_RMTP_LOSSES=0 BENCH_RMTP_RUNS=3 \
    BENCH_RMTP_SIZE=20971520 nice -n 10 python3 tests/bench/bench_rmtp_uftp.py \
      > $D/bench-20mib$2.log ;;
  100mib)
    BENCH_RMTP_TRACE_DIR=$PWD/$D/traces-100mib-$2 BENCH_RMTP_LOSSES=${LOSSES:-0,10} BENCH_RMTP_RUNS=1 \
    BENCH_RMTP_SIZE=104857600 nice -n 10 python3 tests/bench/bench_rmtp_uftp.py \
      > $D/bench-100mib-$2.log ;;
esac
