#!/bin/sh
# alternates the before/after test binaries N times; counts failures per subtest
N=$1
export GST_STATE_IGNORE_ELEMENTS= CK_DEFAULT_TIMEOUT=60 GST_PLUGIN_LOADING_WHITELIST= GST_PLUGIN_PATH_1_0=/work/wt-h103/build/gst/tpss:/work/wt-h103/build/gst/tpba:/work/wt-h103/build/gst/rlm:/work/wt-h103/build/gst/vlmcc:/work/wt-h103/build/gst/rmtp:/work/wt-h103/build/ext/x264 GST_REGISTRY_FORK=no GST_REGISTRY=/tmp/h103-layers.registry LD_LIBRARY_PATH=/work/wt-h103/build/tests/check:/work/wt-h103/build/gst/vlmcc:/work/wt-h103/build/gst/rmtp:/work/wt-h103/build/gst/rlm:/work/wt-h103/build/gst/tpss:/work/wt-h103/build/gst/tpba:/work/wt-h103/build/ext/x264
for i in $(seq $N); do
  for arm in before after; do
    /tmp/h103-layers-$arm.bin > /tmp/h103-layers-run.log 2>&1
    echo "$arm rc=$? $(grep -oE 'tpsssink-layers.c:[0-9]+:[EF]:general:[a-z_]+' /tmp/h103-layers-run.log | tr '\n' ' ')"
  done
done
