#!/usr/bin/env bash
# Builds everything and runs every test: unit, element, fuzz corpus and
# network-namespace tests; then the unit and element tests again under
# AddressSanitizer/UBSan, and a short libFuzzer run. Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-12}
passed=0
failed=0

count_results() {   # meson's JSON test log -> totals
  local log=$1/meson-logs/testlog.json
  [ -f "$log" ] || return 0
  passed=$((passed + $(grep -c '"result": "OK"' "$log" || true)))
  failed=$((failed + $(grep -cE '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)))
}

bash scripts/install-deps.sh

status=0
echo "== build and test"
[ -d build ] || meson setup build
ninja -C build
meson test -C build --print-errorlogs --num-processes 2 || status=1
count_results build

echo "== unit and element tests under AddressSanitizer/UBSan"
[ -d build-asan ] || meson setup build-asan -Db_sanitize=address,undefined \
  -Db_lundef=false -Dbenchmarks=false -Dnet-tests=disabled
ninja -C build-asan
meson test -C build-asan --suite unit --print-errorlogs --num-processes 2 \
  --timeout-multiplier 3 || status=1
count_results build-asan

# The plain scheduler (-entropic=0) makes 1.1-3.7x the executions of
# libFuzzer's default in the same time here (tests/fuzz/deep.sh).
echo "== libFuzzer, ${FUZZ_SECONDS} s per target"
[ -d build-fuzz ] || CC=clang meson setup build-fuzz -Dfuzzing=true \
  -Db_sanitize=address,undefined -Db_lundef=false -Dbenchmarks=false \
  -Dnet-tests=disabled
FUZZ_TARGETS=(tpss-fec tpss-msg tpss-group tpba core-rtp core-rtcp core-rfc4571 core-auth rlm vlmcc rmtp
  rmtp-stream nice-signal)
ninja -C build-fuzz "${FUZZ_TARGETS[@]/#/tests/fuzz/fuzz-}"
for target in "${FUZZ_TARGETS[@]}"; do
  corpus=$(mktemp -d)
  cp tests/fuzz/corpus/$target/* "$corpus"/
  if G_DEBUG=fatal-warnings UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      build-fuzz/tests/fuzz/fuzz-$target -max_total_time="$FUZZ_SECONDS" \
      -entropic=0 -print_final_stats=1 "$corpus" > "build-fuzz/fuzz-$target.log" 2>&1; then
    passed=$((passed + 1))
    grep -E "^Done|stat::number_of_executed_units" "build-fuzz/fuzz-$target.log" || true
  else
    failed=$((failed + 1)); status=1
    tail -40 "build-fuzz/fuzz-$target.log"
  fi
  rm -rf "$corpus"
done

echo "${passed} passed, ${failed} failed"
exit $status
