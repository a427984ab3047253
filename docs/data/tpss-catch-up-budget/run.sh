#!/bin/sh
# run.sh ARM(0|20) TEST(group|admission|tbf|stall|conf) N  -> /tmp/h103-ab/out/TEST-ARM-N.txt
ARM=$1; T=$2; N=$3
W=/work/wt-h103/build
if [ "$ARM" = 20 ]; then TP=/tmp/h103-b20/build/gst/tpss; else TP=$W/gst/tpss; fi
export NFQ_IMPAIR=$W/tests/net/nfq-impair NFQ_BOTTLENECK=$W/tests/net/nfq-bottleneck
export GST_PLUGIN_PATH=$TP:$W/gst/tpba:$W/gst/rlm:$W/gst/vlmcc:$W/gst/rmtp:$W/ext/x264
export LD_LIBRARY_PATH=$W/gst/vlmcc:$W/gst/rlm:$W/gst/rmtp:$TP:$W/gst/tpba:$W/ext/x264
export GST_REGISTRY=/tmp/h103-ab/reg-$ARM.registry
export TPSS_RATE_SRC=$W/tests/net/tpss-rate-src
O=/tmp/h103-ab/out/$T-$ARM-$N
cd /work/wt-h103/tests/net
{ echo "arm=$ARM test=$T n=$N start=$(date -u +%T) $(uptime)"
  case $T in
    group) nice -n 10 python3 test_tpss_group.py ;;
    admission) nice -n 10 python3 test_tpss_admission.py ;;
    tbf) nice -n 10 python3 test_tpss_capacity_tbf.py ;;
    stall) nice -n 10 python3 test_tpss_capacity_stall.py ;;
    conf) unset GST_PLUGIN_PATH LD_LIBRARY_PATH
          if [ "$ARM" = 20 ]; then B=/tmp/h103-b20/fake/examples/conference; else B=$W/examples/conference; fi
          rm -rf $O.d; nice -n 10 python3 /work/wt-h103/scripts/conference.py --headless --participants=4 --rates=4M,4M,4M,1M --join=4:5 --leave=3:18 --duration=20 --out-dir $O.d --binary $B ;;
  esac
  echo "rc=$? end=$(date -u +%T) $(uptime)"; } > $O.txt 2>&1
