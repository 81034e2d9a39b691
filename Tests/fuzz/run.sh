#!/usr/bin/env bash
# Tests/fuzz/run.sh — libFuzzer over every input surface of librunway's C ABI.
#
#   Tests/fuzz/run.sh [--seconds N | --runs N] [--parallel P] [harness ...]
#
# Builds librunway.so with AddressSanitizer and coverage instrumentation
# (Tests/sanitize/build-lib.sh address, the build the C hosts' AddressSanitizer run uses too;
# copied into build/fuzz/), tests the harnesses' JSON check
# (json_check_test.c), builds the harnesses Tests/fuzz/fuzz_*.c with clang
# -fsanitize=fuzzer,address, seeds each corpus (Tests/fuzz/seeds, the shared recordings in
# ../shared/tracks when present, examples/data), replays the saved regressions
# (Tests/fuzz/regressions/<harness>/), then fuzzes each harness for N seconds (default 30) or N
# executions, P harnesses at a time (default 2). Corpora grow in build/fuzz/corpus/<harness>;
# a crash leaves its input in build/fuzz/crashes/ and fails the run. One line of figures a
# harness goes to stdout and to build/fuzz/figures.tsv (time, commit, harness, executions,
# exec/s, coverage, exit status).
# Harnesses: push_json push_jsonl config options import stateful json_diff (default: all).
# json_diff is differential: the JSON fast path against cJSON, through an entry point only the
# fuzzing build has (runway_fuzz_json_difference); any difference is a crash.
# Stop a long campaign by its --seconds or --runs, not by SIGINT: interrupted in the middle of a
# unit, libFuzzer's exit can deadlock in AddressSanitizer's allocator (RELIABILITY.md).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/build/fuzz"
seconds=30 runs="" parallel=2 harnesses=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --parallel) parallel="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=(push_json push_jsonl config options import stateful json_diff)

CLANG="${CLANG:-$(dirname "$(readlink -f "$(command -v swiftc)")")/clang}"
[[ -x "$CLANG" ]] || CLANG=clang   # the toolchain's own clang: its sanitizer runtime matches swiftc's

mkdir -p "$out" "$out/crashes"
echo "== fuzz: instrumented librunway.so (AddressSanitizer + coverage; Tests/sanitize/build-lib.sh)"
lib="$("$root/Tests/sanitize/build-lib.sh" address)"
# Replaced by rename, so a campaign still running keeps its own copy.
cp "$lib" "$out/librunway.so.new" && mv -f "$out/librunway.so.new" "$out/librunway.so"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- Sources include Tests/fuzz 2>/dev/null || echo +dirty)"

# The harnesses' JSON check itself first: one that accepted garbage would hide findings.
"$CLANG" -fuse-ld=lld -g -O1 -fsanitize=address -Wall -Wextra -Werror -I"$root/include" \
  -o "$out/json_check_test" "$here/json_check_test.c" -L"$out" -lrunway -Wl,-rpath,"$out" -lcjson -lm -lpthread
SWIFT_BACKTRACE=enable=no "$out/json_check_test"

for h in "${harnesses[@]}"; do
  "$CLANG" -fuse-ld=lld -g -O1 -fsanitize=fuzzer,address -Wall -Wextra -Werror -I"$root/include" \
    -o "$out/fuzz_$h.new" "$here/fuzz_$h.c" -L"$out" -lrunway -Wl,-rpath,"$out" -lcjson -lm -lpthread
  mv -f "$out/fuzz_$h.new" "$out/fuzz_$h"
done

tracks="$root/../shared/tracks"
seed() { # harness corpus-dir
  local h="$1" dir="$2"
  mkdir -p "$dir"
  case "$h" in
    push_json|config|options|stateful) cp "$here/seeds/$h/"* "$dir/" ;;
    push_jsonl|json_diff)
      cp "$here/seeds/push_json/"* "$dir/"
      [[ "$h" == json_diff ]] && cp "$here/seeds/json_diff/"* "$dir/"
      if [[ -d "$tracks/fixes" ]]; then
        for f in "$tracks"/fixes/*.jsonl; do head -c 4096 "$f" >"$dir/$(basename "$f")"; done
      fi ;;
    import)
      # A first byte picks the format: 0 gpx, 1 tcx, 2 fit. Small whole files exported by the
      # library and one FIT file written by hand whose timestamps are 64-bit fields and compressed
      # headers, a system time among them (seeds/import: wide-times.fit), the shared recordings whole up to 16 KiB, larger GPX/TCX cut there
      # (still good seeds for the XML paths; larger FIT files are left out, as a cut FIT file
      # stops at its header's size check).
      cp "$here/seeds/import/"* "$dir/"
      local f i=0
      for f in "$root"/examples/data/*.gpx "$tracks"/*.gpx "$tracks"/*.tcx "$tracks"/*.fit; do
        [[ -f "$f" ]] || continue
        case "$f" in *.gpx) p='\x00' ;; *.tcx) p='\x01' ;; *.fit) p='\x02' ;; esac
        [[ "$f" == *.fit && $(stat -c %s "$f") -gt 16383 ]] && continue
        { printf "$p"; head -c 16383 "$f"; } >"$dir/seed$((i++))"
      done ;;
  esac
}

run_one() {
  local h="$1" corpus="$out/corpus/$1" log="$out/fuzz_$1.$$.log"   # a log of its own: runs may overlap
  [[ -d "$corpus" ]] || seed "$h" "$corpus"
  local regress=()
  if compgen -G "$here/regressions/$h/*" >/dev/null; then regress=("$here"/regressions/"$h"/*); fi
  if [[ ${#regress[@]} -gt 0 ]]; then   # saved crashes first: each must now pass
    "$out/fuzz_$h" "${regress[@]}" >"$log.regress" 2>&1 || { echo "fuzz $h: a saved regression fails"; tail -30 "$log.regress"; return 1; }
  fi
  local limit=(-max_total_time="$seconds")
  [[ -n "$runs" ]] && limit=(-runs="$runs")
  local max_len=4096   # JSON inputs: far beyond any real one, small enough to stay fast
  [[ "$h" == push_jsonl ]] && max_len=2048
  [[ "$h" == json_diff ]] && max_len=1024   # a few lines: ~4 times the executions of 4096
  [[ "$h" == import ]] && max_len=16384
  # A unit running longer than this is a finding. The stateful harness gets longer: it may build
  # a flight of up to RUNWAY_MAX_LAPS laps (raw mode cuts up to 100 a fix when fixes jump
  # continents) and ask for its summary again and again, about a second each under
  # AddressSanitizer (44 ms in a release build for 50 000 laps); such inputs ran 7 to 17 s alone
  # (regressions/stateful/summaries-*), and past 10 s when other work shared the cores.
  # The schedule favours fast inputs (-entropic_scale_per_exec_time: up to 30 times as often):
  # without it, stateful spent most of its time mutating its slowest inputs, flights of
  # thousands of laps, at 80-100 executions a second; they stay in the corpus all the same.
  local timeout=10
  [[ "$h" == stateful ]] && timeout=30
  local rc=0
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:malloc_context_size=8" \
    "$out/fuzz_$h" "${limit[@]}" -max_len="$max_len" -dict="$here/runway.dict" -print_final_stats=1 \
      -artifact_prefix="$out/crashes/$h-" -timeout="$timeout" -rss_limit_mb=4096 \
      -entropic_scale_per_exec_time=1 "$corpus" >"$log" 2>&1 || rc=$?
  local execs speed cov
  execs="$(grep -a -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)"
  speed="$(grep -a -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)"
  cov="$(grep -a -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$commit" "$h" "$execs" "$speed" "$cov" "$rc" >>"$out/figures.tsv"
  # 72: libFuzzer's exit after SIGINT (-interrupted_exitcode), a campaign stopped by hand: its
  # executions count, and it is no finding.
  printf 'fuzz %-10s %10s executions  %6s exec/s  cov %5s  corpus %5s  %s\n' "$h" "$execs" "$speed" "$cov" \
    "$(ls "$corpus" | wc -l)" "$(case $rc in 0) echo ok ;; 72) echo "interrupted (SIGINT)" ;; *) echo "FAILED (rc $rc, log $log)" ;; esac)"
  [[ $rc == 72 ]] && return 0
  if [[ $rc != 0 ]]; then grep -E "ERROR|broken promise|SUMMARY|#0|#1 |#2 |#3 |#4 " "$log" | head -30; return 1; fi
}
export -f run_one seed
export out here root tracks seconds runs commit

printf '%s\n' "${harnesses[@]}" | xargs -P "$parallel" -I{} bash -c 'run_one {}'
