#!/usr/bin/env bash
# Tests/stress/run.sh — concurrency stress and leak checks of librunway's C side (issue #7, items 3, 4).
# Runs from anywhere, against build/librunway.so (build it with `make lib`).
#
#   run.sh              stress.c for STRESS_SECONDS (default 10) with 8 pushers and 64 subscriber
#                       slots, then three negative controls that must fail: queue subscriptions
#                       too small (the gap check reports the overflow), a replay missing one input
#                       (the summary check reports the difference), and a callback that never
#                       returns (close waits on it: the watchdog names the phase and exits 2)
#   run.sh --long       the issue's version: 60 s, 8 pushers, 64 subscriber slots
#   run.sh --valgrind   under valgrind memcheck: a short stress (3 s, 4 pushers, 16 slots) and the
#                       C host example (examples/c/runway_host) on generated input, a bad input
#                       file and a refused config; each must have no memcheck error and 0 bytes
#                       definitely and indirectly lost (and a host that does not free a string
#                       must be caught, as a control). "possibly lost" and "still reachable"
#                       (the Swift runtime's statically linked globals, per-thread storage of
#                       threads alive at exit) are printed, not failed.
#
# Environment: STRESS_SECONDS, STRESS_SEED (default: from the clock, printed), STRESS_ARGS (extra
# arguments for stress, e.g. "--pace-us 0"), RUNWAY_LIB_DIR (default build/).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
inc="$root/include"
libdir="${RUNWAY_LIB_DIR:-$root/build}"   # RUNWAY_LIB_DIR: another build of librunway.so to test
lib="$libdir/librunway.so"

mode="${1:-short}"
case "$mode" in
  short | --long | --valgrind) ;;
  *) echo "usage: run.sh [--long | --valgrind]" >&2; exit 64 ;;
esac

if [[ ! -f "$lib" ]]; then
  echo "run.sh: $lib not found (build it with 'make lib')" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

seed="${STRESS_SEED:-$(( $(date +%s) % 100000 ))}"
# shellcheck disable=SC2206
extra=(${STRESS_ARGS:-})

echo "== build stress.c (and the other stress_*.c)"
gcc -std=c11 -O2 -g -Wall -Wextra -Werror -I"$inc" "$here"/stress*.c -o "$work/stress" \
  -L"$libdir" -lrunway -Wl,-rpath,"$libdir" -lpthread -lm

# control NAME EXPECTED_EXIT EXPECTED_MESSAGE ARGS... : a stress run that must fail that way
control() {
  local name="$1" want_rc="$2" want="$3"; shift 3
  local rc=0
  "$work/stress" --seconds 2 --seed "$seed" "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  if [[ "$rc" == "$want_rc" ]] && grep -qF "$want" "$work/$name.err"; then
    echo "   $name: failed as it must (exit $rc): $(grep -m1 -F "$want" "$work/$name.err" | cut -c1-150)"
  else
    echo "run.sh: negative control $name did not fail with exit $want_rc and \"$want\" (exit $rc):" >&2
    sed 's/^/    /' "$work/$name.err" "$work/$name.out" >&2
    exit 1
  fi
}

if [[ "$mode" != --valgrind ]]; then
  seconds="${STRESS_SECONDS:-10}"
  [[ "$mode" == --long ]] && seconds="${STRESS_SECONDS:-60}"
  echo "== stress: $seconds s, seed $seed, 8 pushers, 64 subscriber slots"
  "$work/stress" --seconds "$seconds" --seed "$seed" --pushers 8 --subscribers 64 "${extra[@]}"
  if [[ "$mode" == short ]]; then
    echo "== negative controls (each must fail)"
    control small_queues 1 "overflow event" --queue-capacity 1
    control replay_drop 1 "differs from the single-threaded replay" --replay-drop 1
    control hung_callback 2 'HUNG in phase "close"' --hang-control 1 --stall 3
  fi
  exit 0
fi

# ---- valgrind --------------------------------------------------------------------------------
if ! command -v valgrind >/dev/null; then
  echo "run.sh --valgrind: SKIPPED (valgrind not installed; apt-get install valgrind)"
  exit 0
fi

failed=0
# vg NAME COMMAND... : runs COMMAND under memcheck; sets rc, def, ind, pos, reach, errs (bytes)
vg() {
  local name="$1"; shift
  log="$work/$name.vg"
  rc=0
  valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --num-callers=30 \
    --log-file="$log" "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  def="$(sed -nE 's/.*definitely lost: ([0-9,]+) bytes.*/\1/p' "$log" | tr -d , | head -1)"
  ind="$(sed -nE 's/.*indirectly lost: ([0-9,]+) bytes.*/\1/p' "$log" | tr -d , | head -1)"
  pos="$(sed -nE 's/.*possibly lost: ([0-9,]+) bytes.*/\1/p' "$log" | tr -d , | head -1)"
  reach="$(sed -nE 's/.*still reachable: ([0-9,]+) bytes.*/\1/p' "$log" | tr -d , | head -1)"
  errs="$(sed -nE 's/.*ERROR SUMMARY: ([0-9,]+) errors.*/\1/p' "$log" | tr -d , | tail -1)"
  if grep -q "All heap blocks were freed" "$log"; then def=0; ind=0; pos=0; reach=0; fi
}

# memcheck NAME EXPECTED_EXIT COMMAND... : runs COMMAND under memcheck and checks its leak summary
memcheck() {
  local name="$1" want="$2"; shift 2
  vg "$name" "$@"
  echo "   $name: exit $rc; definitely lost ${def:-?} B, indirectly lost ${ind:-?} B," \
       "possibly lost ${pos:-?} B, still reachable ${reach:-?} B; memcheck errors ${errs:-?}"
  if [[ "$rc" != "$want" || "${def:-x}" != 0 || "${ind:-x}" != 0 || "${errs:-x}" != 0 ]]; then
    echo "FAIL: $name under valgrind (want exit $want, 0 bytes definitely/indirectly lost, 0 errors)" >&2
    sed 's/^/    /' "$work/$name.err" | tail -20 >&2
    grep -vE '^==[0-9]+== *$' "$log" | sed 's/^/    /' | head -120 >&2
    failed=$((failed + 1))
  fi
}

echo "== valgrind memcheck: stress (3 s, 4 pushers, 16 subscriber slots), seed $seed"
memcheck stress 0 "$work/stress" --seconds 3 --seed "$seed" --pushers 4 --subscribers 16 \
  --final-pushes 200 --watchdog 600 "${extra[@]}"
sed 's/^/   /' "$work/stress.out"

echo "== valgrind memcheck: examples/c/runway_host"
gcc -std=c99 -Wall -Wextra -Werror -O2 -g -I"$inc" "$root"/examples/c/runway_host*.c \
  -o "$work/runway_host" -L"$libdir" -lrunway -Wl,-rpath,"$libdir" -lcjson -lpthread -lm
# 300 fixes 2 s apart due north at ~3.2 m/s, a heart-rate sample every other fix (as test.sh).
awk 'BEGIN { for (i = 0; i < 300; i++) {
  t = 1700000000 + 2 * i
  printf "{\"t\":%.1f,\"lat\":%.7f,\"lon\":4.0,\"alt\":%.1f,\"speed\":3.2,\"course\":0.0,\"h_acc\":5.0}\n", t, 52 + i * 0.0000575, 10 + 3 * sin(i / 20)
  if (i % 2) printf "{\"type\":\"hr\",\"bpm\":%d,\"t\":%.1f}\n", 140 + int(i / 10), t } }' >"$work/run.jsonl"
{ head -n 4 "$work/run.jsonl"; echo 'this is not json'; echo '{"t":1690000000,"lat":52.0,"lon":4.0}'
  echo '{"t":1700000004.0,"lat":95.0,"lon":4.0}'; tail -n +5 "$work/run.jsonl"; } >"$work/bad.jsonl"
memcheck host_run 0 "$work/runway_host" -e 30 -r -o "$work/host.json" "$work/run.jsonl"
grep -q '"phase":"touchdown"' "$work/host.json" || { echo "FAIL: host_run wrote no touchdown summary" >&2; failed=$((failed + 1)); }
memcheck host_bad_lines 0 "$work/runway_host" -e 30 -o "$work/bad.json" "$work/bad.jsonl"
memcheck host_bad_config 3 "$work/runway_host" -c '{"distance_filtre_m":0}' "$work/run.jsonl"

echo "== valgrind control: a host that loses a string the library returned must be caught"
cat >"$work/leaky.c" <<'C'
#include "runway.h"
int main(void) {
  runway_session *s = 0;
  char *snapshot = 0;
  if (runway_session_open(0, &s) != RUNWAY_OK) return 1;
  if (runway_snapshot_json(s, &snapshot) != RUNWAY_OK) return 1;
  snapshot = 0; /* lost, never runway_string_free()d */
  runway_session_close(s);
  return snapshot != 0;
}
C
gcc -std=c99 -O0 -g -I"$inc" "$work/leaky.c" -o "$work/leaky" -L"$libdir" -lrunway -Wl,-rpath,"$libdir"
vg leaky "$work/leaky"
if [[ "$rc" == 99 && "${def:-0}" -gt 0 ]]; then
  echo "   leaky: caught as it must (exit 99, definitely lost $def B)"
else
  echo "FAIL: the leak control was not caught (exit $rc, definitely lost ${def:-?} B)" >&2
  failed=$((failed + 1))
fi

if [[ "$failed" != 0 ]]; then
  echo "run.sh: $failed valgrind run(s) failed" >&2
  exit 1
fi
echo "valgrind: 0 bytes definitely or indirectly lost, 0 memcheck errors in every run"
