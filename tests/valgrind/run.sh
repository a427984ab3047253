#!/usr/bin/env bash
# valgrind memcheck over the element tests (issue 21).
#
#   tests/valgrind/run.sh [-C BUILD] [TEST ...]     (default: every elements/* test)
#
# Each test runs through `meson test --wrapper valgrind` (so it keeps its meson
# environment) with CK_FORK=no, G_SLICE=always-malloc, G_DEBUG=gc-friendly,
# definite leaks as errors and exit code 1 on any error. Its plugin registry
# is built first without valgrind and then not rescanned, so the plugin scan
# of every installed plugin stays out of the report.
#
# Suppressions: GLib's glib.supp (shipped with libglib2.0-dev), GStreamer's
# own (gstreamer.supp and gst-plugins-base.supp, from the GStreamer sources:
# subprojects/gstreamer/tests/check/ and subprojects/gst-plugins-base/tests/check/;
# not shipped by the distribution: point GST_SUPP_DIR at a directory holding
# them) and tests/valgrind/project.supp (third-party noise, each entry says why).
#
# Logs: BUILD/valgrind/<test>.log (valgrind) and a table on stdout. Exit 1 if
# any test had a valgrind error or failed. Slow: run it under nice.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=build
if [ "${1:-}" = "-C" ]; then build=$2; shift 2; fi
out=$build/valgrind
mkdir -p "$out"
out=$(cd "$out" && pwd)

# A copy of suppression file $1 in $out without the entries of kinds that this
# valgrind (3.19 here) does not know yet: it refuses the whole file otherwise.
compatible_copy() {
  local copy=$out/$(basename "$1")
  awk '/^{/ { block = ""; inside = 1 }
       inside { block = block $0 "\n" }
       !inside { print }
       /^}/ { if (block !~ /Memcheck:(ReallocZero|FishyValue)/) printf "%s", block; inside = 0 }' \
    "$1" > "$copy"
  echo "$copy"
}

suppressions() {
  local f
  for f in /usr/share/glib-2.0/valgrind/glib.supp \
           "${GST_SUPP_DIR:-/nonexistent}"/gstreamer.supp \
           "${GST_SUPP_DIR:-/nonexistent}"/gst-plugins-base.supp \
           "$here"/project.supp; do
    if [ -s "$f" ]; then echo "--suppressions=$(compatible_copy "$f")"
    elif [ "$f" != "$here"/project.supp ]; then echo "valgrind: no $f" >&2; fi
  done
}

element_tests() {
  meson test -C "$build" --suite elements --list 2>/dev/null \
    | sed -n 's|.* / \(elements/.*\)$|\1|p'
}

# Builds the test's registry (its GST_REGISTRY) with gst-inspect, outside valgrind.
warm_registry() {
  meson test -C "$build" "$1" --no-rebuild \
    --wrapper "sh -c 'gst-inspect-1.0 > /dev/null' warm" > /dev/null 2>&1
}

# Prints "<errors> <definitely lost bytes>" from a valgrind log.
valgrind_counts() {
  local errors lost
  errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$1" | tr -d , | tail -1)
  lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$1" | tr -d , | tail -1)
  echo "${errors:-?} ${lost:-0}"
}

run_one() {
  local name=$1 log=$out/${1//\//-}.log rc
  rm -f "$log"
  warm_registry "$name"
  # GIO_USE_PROXY_RESOLVER=dummy: GIO's libproxy module throws C++ exceptions
  # on a thread of its own, and libunwind's stack walk trips memcheck (invalid
  # reads in _Ux86_64_setcontext, uninitialised write(buf)) in every test that
  # resolves a proxy for a GSocketClient; none of that is ours.
  CK_FORK=no G_SLICE=always-malloc G_DEBUG=gc-friendly GST_REGISTRY_UPDATE=no \
    GIO_USE_PROXY_RESOLVER=dummy \
    meson test -C "$build" "$name" --no-rebuild -t 30 --print-errorlogs \
      --wrapper "valgrind --tool=memcheck --leak-check=full \
        --show-leak-kinds=definite --errors-for-leak-kinds=definite \
        --error-exitcode=1 --num-callers=40 \
        --log-file=$log $(suppressions | tr '\n' ' ')" \
      > "$out/${name//\//-}.meson.log" 2>&1
  rc=$?
  read -r errors lost < <(valgrind_counts "$log")
  printf '%-32s %-6s errors=%-5s definitely-lost=%s bytes\n' "$name" \
    "$([ $rc = 0 ] && echo clean || echo FAIL)" "$errors" "$lost"
  return $rc
}

tests=("$@")
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < <(element_tests)
status=0
for t in "${tests[@]}"; do
  run_one "$t" || status=1
done
exit $status
