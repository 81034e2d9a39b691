#!/usr/bin/env bash
# Tests/sanitize/run.sh — the C hosts of librunway under a sanitizer.
#
#   Tests/sanitize/run.sh address|thread [--stress-seconds N]
#
# Builds librunway.so with -sanitize=address (AddressSanitizer + LeakSanitizer; the fuzzing build,
# Tests/sanitize/build-lib.sh) or -sanitize=thread (ThreadSanitizer) into build/<sanitizer>/, then
# builds with clang -fsanitize=<same> and runs:
#   - Tests/c/abi_run.c (with the other Tests/c/abi_*.c), the C ABI end to end (threads,
#     subscriptions, store);
#   - examples/c/runway_host through examples/c/test.sh (generated and real recordings);
#   - Tests/stress/stress.c for N seconds (default 5), when it exists.
# Any sanitizer report fails the run (halt_on_error; leaks fail under address). No suppressions.
# The Swift suites under the same sanitizers: swift test --sanitize=address|thread (RELIABILITY.md).
set -euo pipefail

san="${1:-}"
case "$san" in address|thread) ;; *) sed -n '2,14p' "$0"; exit 2 ;; esac
shift
stress_seconds=5
while [[ $# -gt 0 ]]; do
  case "$1" in --stress-seconds) stress_seconds="$2"; shift 2 ;; *) echo "unknown argument $1" >&2; exit 2 ;; esac
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/build/$san"
mkdir -p "$out"
CLANG="${CLANG:-$(dirname "$(readlink -f "$(command -v swiftc)")")/clang}"
[[ -x "$CLANG" ]] || CLANG=clang   # the toolchain's clang: its sanitizer runtimes match swiftc's

echo "== sanitize $san: librunway.so (Tests/sanitize/build-lib.sh)"
lib="$("$here/build-lib.sh" "$san")"
cp "$lib" "$out/librunway.so"
leaked="$(nm -D --defined-only "$out/librunway.so" | awk '$2 ~ /[TDBRVW]/ && $3 !~ /^runway_/' | wc -l)"
if [[ "$leaked" != 0 ]]; then
  echo "sanitize $san: librunway.so exports $leaked symbols besides runway_*"; exit 1
fi

swiftlib="$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/swift/linux"
extra=()   # ThreadSanitizer's runtime intercepts libdispatch, which the Swift toolchain carries
[[ "$san" == thread ]] && extra=(-L"$swiftlib" -Wl,-rpath,"$swiftlib" -ldispatch -lBlocksRuntime)
cc() { # output source...
  local o="$1"; shift
  "$CLANG" -fuse-ld=lld -std=gnu11 -g -O1 -fsanitize="$san" -fno-omit-frame-pointer -Wall -Wextra -Werror \
    -I"$root/include" -o "$o" "$@" -L"$out" -lrunway -Wl,-rpath,"$out" -lcjson -lpthread -lm "${extra[@]}"
}

export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0:exitcode=86"
export TSAN_OPTIONS="halt_on_error=1:exitcode=86:second_deadlock_stack=1"
status=0
run() { # name command...
  local name="$1"; shift
  local rc=0
  "$@" >"$out/$name.log" 2>&1 || rc=$?
  if [[ $rc == 0 ]] && ! grep -qE "(Address|Thread|Leak)Sanitizer" "$out/$name.log"; then
    echo "sanitize $san: $name ok"
  else
    echo "sanitize $san: $name FAILED (exit $rc; log $out/$name.log)"
    grep -E -A30 "(Address|Thread|Leak)Sanitizer|FAIL" "$out/$name.log" | head -60
    status=1
  fi
}

cc "$out/abi_run" "$root"/Tests/c/abi_*.c
run abi_run timeout 600 "$out/abi_run"

cc "$out/runway_host" "$root"/examples/c/runway_host*.c
run runway_host env RUNWAY_HOST="$out/runway_host" "$root/examples/c/test.sh"

if [[ -f "$root/Tests/stress/stress.c" ]]; then
  cc "$out/stress" "$root"/Tests/stress/stress*.c
  run stress timeout $((stress_seconds + 300)) "$out/stress" --seconds "$stress_seconds"
fi
exit $status
