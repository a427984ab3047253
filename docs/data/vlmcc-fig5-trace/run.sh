#!/bin/sh
# run.sh ARM(main|fix) N : one fig5 run with the arm's vlmcc plugin
ARM=$1; N=$2
P=/tmp/h102/$ARM-vlmcc
OUT=/tmp/h102/runs/$ARM-$N
mkdir -p $OUT
uptime > $OUT/load.txt
Q=""; [ $ARM = deepq ] && Q="&alpha=6&beta=10"
H102_QUERY=$Q NFQ_IMPAIR=/tmp/h102/nfq-impair NFQ_BOTTLENECK=/tmp/h102/nfq-bottleneck GST_PLUGIN_PATH=$P GST_REGISTRY=/tmp/h102/reg-$ARM.bin nice -n 10 python3 /tmp/h102/driver.py /work/wt-h102/tests/net/test_vlmcc_fig5.py $OUT > $OUT/out.txt 2>&1
echo rc=$? >> $OUT/out.txt
uptime >> $OUT/load.txt
