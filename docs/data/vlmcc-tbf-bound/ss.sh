#!/bin/sh
# ss.sh: after all.sh, one trial of the two tbf cells with VLMCC-vplus and
# TCP-paced in turn and BENCH_VLMCC_SS=1 (each TCP flow's segments sent and
# retransmitted from ss: per-flow loss), to sN-*.
D=docs/data/vlmcc-tbf-bound
BENCH_VLMCC_SS=1 $D/run.sh s1 "tbf:2 tbf:4" VLMCC-vplus,TCP-paced
