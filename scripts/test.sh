#!/usr/bin/env bash
# Builds everything and runs every test: unit, element, fuzz corpus and
# network-namespace tests; then the unit and element tests again under
# AddressSanitizer/UBSan, and a short libFuzzer run. Installs what it needs.
#
# Only the tests in simulated time share the cores: the sanitized and fuzz
# builds compile (at nice 10) while the core, simulator, app and fuzz-replay
# tests run. The element tests (real pipelines on loopback), the network
# suite and the loopback emulator measure in real time, so they run alone.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-12}
FUZZ_JOBS=${FUZZ_JOBS:-2}
passed=0
failed=0
stage_start=$SECONDS

count_results() {   # meson's JSON test log -> totals
  local log=$1/meson-logs/$2.json
  [ -f "$log" ] || return 0
  passed=$((passed + $(grep -c '"result": "OK"' "$log" || true)))
  failed=$((failed + $(grep -cE '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)))
}

stage_done() {      # the wall time of the stage that just ended
  echo "== stage $1: $((SECONDS - stage_start)) s"
  stage_start=$SECONDS
}

bash scripts/install-deps.sh

FUZZ_TARGETS=(tpss-fec tpss-msg tpss-group tpba core-rtp core-rtcp core-rfc4571 core-auth rlm vlmcc rmtp
  rmtp-stream nice-signal net-srtp)

[ -d build ] || meson setup build
[ -d build-asan ] || meson setup build-asan -Db_sanitize=address,undefined \
  -Db_lundef=false -Dbenchmarks=false -Dnet-tests=disabled
[ -d build-fuzz ] || CC=clang meson setup build-fuzz -Dfuzzing=true \
  -Db_sanitize=address,undefined -Db_lundef=false -Dbenchmarks=false \
  -Dnet-tests=disabled
stage_done setup

status=0
echo "== build and test"
ninja -C build
stage_done build

# The tests in simulated time measure no rate or delay, so the other two
# builds go on beside them, at nice 10.
(nice -n 10 ninja -C build-asan &&
  nice -n 10 ninja -C build-fuzz "${FUZZ_TARGETS[@]/#/tests/fuzz/fuzz-}") \
  > build-asan/side-builds.log 2>&1 &
side_builds=$!
meson test -C build --suite core --suite sim --suite app --suite fuzz \
  --print-errorlogs --num-processes 2 --logbase simlog || status=1
count_results build simlog
stage_done simulated
side_status=0
wait $side_builds || side_status=$?
cat build-asan/side-builds.log
[ $side_status -eq 0 ] || { echo "sanitized or fuzz build failed"; exit 1; }
stage_done side-builds

# Element tests run real pipelines on loopback: not beside a build.
meson test -C build --suite elements --print-errorlogs --num-processes 2 \
  --logbase elemlog || status=1
count_results build elemlog
stage_done elements

# The network suite and the loopback emulator measure real time: alone.
meson test -C build --suite net --suite emu --print-errorlogs \
  --num-processes 1 --logbase netlog || status=1
count_results build netlog
stage_done net

echo "== unit and element tests under AddressSanitizer/UBSan"
meson test -C build-asan --suite unit --print-errorlogs --num-processes 2 \
  --timeout-multiplier 3 --logbase testlog || status=1
count_results build-asan testlog
stage_done asan

# The plain scheduler (-entropic=0) makes 1.1-3.7x the executions of
# libFuzzer's default in the same time here (tests/fuzz/deep.sh). Each
# target is single-threaded: FUZZ_JOBS of them run at once, one a core.
echo "== libFuzzer, ${FUZZ_SECONDS} s per target, ${FUZZ_JOBS} at a time"
fuzz_one() {        # target -> its log; exit status of the run
  local target=$1 corpus rc=0
  corpus=$(mktemp -d)
  cp tests/fuzz/corpus/$target/* "$corpus"/
  G_DEBUG=fatal-warnings UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    build-fuzz/tests/fuzz/fuzz-$target -max_total_time="$FUZZ_SECONDS" \
    -entropic=0 -print_final_stats=1 "$corpus" > "build-fuzz/fuzz-$target.log" 2>&1 ||
    rc=$?
  rm -rf "$corpus"
  return $rc
}
declare -A fuzz_pid
for target in "${FUZZ_TARGETS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$FUZZ_JOBS" ]; do
    wait -n || true
  done
  fuzz_one "$target" &
  fuzz_pid[$target]=$!
done
for target in "${FUZZ_TARGETS[@]}"; do
  if wait "${fuzz_pid[$target]}"; then
    passed=$((passed + 1))
    echo "fuzz-$target:"
    grep -E "^Done|stat::number_of_executed_units" "build-fuzz/fuzz-$target.log" || true
  else
    failed=$((failed + 1)); status=1
    tail -40 "build-fuzz/fuzz-$target.log"
  fi
done
stage_done fuzz

echo "${passed} passed, ${failed} failed"
exit $status
