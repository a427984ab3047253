#!/usr/bin/env bash
# The deep fuzzing job (issue 21): every libFuzzer target runs a fixed number
# of executions (default 10^7) from its committed corpus, under ASan and
# UBSan, and what it learns is merged back into tests/fuzz/corpus/<target>
# (libFuzzer's -merge keeps the smallest inputs that cover the most). Not
# part of CI, which runs each target for FUZZ_SECONDS from the same corpus.
#
#   tests/fuzz/deep.sh [-C BUILD_FUZZ] [-n RUNS] [-t SECONDS] [-j JOBS]
#                      [-f FLAG] [TARGET ...]
#
# -t caps each target's run at SECONDS (libFuzzer -max_total_time), for a
# machine that cannot give every target its RUNS: the line then shows the
# executions it did reach, and what it learned is merged all the same.
#
# The runs use libFuzzer's plain scheduler (-entropic=0). With entropic
# scheduling (libFuzzer's default) every feature of every execution is
# looked up in a list of all features still counted as rare, which after
# replaying a corpus of thousands of features is most of them: that search
# took 60 to 80 % of rlm's and rmtp-stream's first minute (docs/results.md).
# -f FLAG passes one more libFuzzer flag, and may be repeated; -f -entropic=1
# brings entropic scheduling back.
#
# -j JOBS runs libFuzzer's fork mode with JOBS worker processes sharing the
# corpus (one run: RUNS counts the executions of all workers together), for
# a target too slow to reach RUNS on one core in the time there is.
#
# BUILD_FUZZ (default build-fuzz) is a clang build with -Dfuzzing=true
# -Db_sanitize=address,undefined, as scripts/test.sh makes it. Prints one
# line per target: executions, seconds, executions per second, corpus files
# before and after, and the verdict; exit 1 if any target found a fault (its
# log and crash input stay in BUILD_FUZZ/deep/).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=build-fuzz
runs=10000000
max_time=0
flags=(-entropic=0)
while [ $# -gt 0 ]; do
  case $1 in
    -C) build=$2; shift 2 ;;
    -n) runs=$2; shift 2 ;;
    -t) max_time=$2; shift 2 ;;
    -f) flags+=("$2"); shift 2 ;;
    -j) flags+=("-fork=$2"); shift 2 ;;
    *) break ;;
  esac
done
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(ls "$here/corpus"))
out=$build/deep
mkdir -p "$out"
status=0
printf '| target | executions | seconds | per second | corpus before | after | result |\n'
printf '|---|---|---|---|---|---|---|\n'
for t in "${targets[@]}"; do
  bin=$build/tests/fuzz/fuzz-$t
  corpus=$here/corpus/$t
  [ -x "$bin" ] || { echo "no $bin: build it first (see scripts/test.sh)" >&2; exit 2; }
  work=$(mktemp -d)
  cp "$corpus"/* "$work"/
  before=$(ls "$corpus" | wc -l)
  start=$(date +%s.%N)
  if G_DEBUG=fatal-warnings UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$bin" -runs="$runs" \
      -max_total_time="$max_time" -print_final_stats=1 "${flags[@]}" \
      -artifact_prefix="$out/$t-" "$work" > "$out/$t.log" 2>&1; then
    result=clean
  else
    result="FAULT (see $out/$t.log)"
    status=1
  fi
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
  # fork mode prints no final stats: its last progress line counts every job
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$out/$t.log" | tail -1)
  # keep what covers more, smallest first, in the committed corpus
  "$bin" -merge=1 "$corpus" "$work" > "$out/$t-merge.log" 2>&1 || true
  after=$(ls "$corpus" | wc -l)
  printf '| %s | %s | %.0f | %.0f | %s | %s | %s |\n' "$t" "${execs:-?}" "$secs" \
    "$(awk -v n="${execs:-0}" -v s="$secs" 'BEGIN { print n / s }')" "$before" \
    "$after" "$result"
  rm -rf "$work"
done
exit $status
