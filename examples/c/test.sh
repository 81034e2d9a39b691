#!/usr/bin/env bash
# examples/c/test.sh — runs runway_host (built by `make`) on generated and real input.
# Run by `make test` in this folder, or `make test-example` at the repository root.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
host="${RUNWAY_HOST:-$here/runway_host}"   # RUNWAY_HOST: another build of it (Tests/sanitize)
tracks="$here/../../../shared/tracks"
[[ -x "$host" ]] || { echo "test.sh: $host not built (run make)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# run NAME EXPECTED_EXIT ARGS... : runs the host, stdout/stderr into $work/NAME.{out,err}
run() {
  local name="$1" want="$2"; shift 2
  local rc=0
  "$host" "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  if [[ "$rc" == "$want" ]]; then ok; else
    fail "$name: exit $rc, want $want"; sed 's/^/    /' "$work/$name.err" >&2
  fi
}

# check NAME PYTHON_EXPR_FILE... : python3 assertions on a summary JSON
check_summary() {
  local name="$1" file="$2"; shift 2
  if python3 - "$file" "$@" <<'PY'
import json, sys
path, *conds = sys.argv[1:]
with open(path) as f:
    lines = [l for l in f.read().splitlines() if l.strip()]
s = json.loads(lines[-1])  # the summary is the last line (stdout also carries events)
bad = [c for c in conds if not eval(c, {"s": s, "abs": abs, "len": len})]
for c in bad:
    print(f"    not true: {c}", file=sys.stderr)
if bad:
    print("    summary: " + json.dumps({k: v for k, v in s.items() if k != "route"}), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
  then ok; else fail "$name: summary checks"; fi
}

# ---- Generated input: 150 fixes 2 s apart due north at 3.2 m/s, hr every 10 s -----------
expected="$(python3 - "$work/run.jsonl" <<'PY'
import math, sys
T0, LAT0, LON0, DLAT, N = 1700000000.0, 52.0, 4.0, 0.0000575, 150  # ~6.4 m a step
with open(sys.argv[1], "w") as f:
    for i in range(N):
        t = T0 + 2 * i
        f.write('{"t":%.1f,"lat":%.7f,"lon":%.7f,"alt":%.1f,"speed":3.2,"course":0.0,"h_acc":5.0}\n'
                % (t, LAT0 + i * DLAT, LON0, 10 + 3 * math.sin(i / 20)))
        if i % 2 == 1:
            f.write('{"type":"hr","bpm":%d,"t":%.1f}\n' % (140 + i // 10, t))
# WGS84 meridian arc, Simpson's rule over M(phi) = a(1-e2)/(1-e2 sin^2 phi)^1.5
a, fl = 6378137.0, 1 / 298.257223563
e2 = fl * (2 - fl)
p1, p2, n = math.radians(LAT0), math.radians(LAT0 + (N - 1) * DLAT), 64
h = (p2 - p1) / n
M = lambda p: a * (1 - e2) / (1 - e2 * math.sin(p) ** 2) ** 1.5
print(h / 3 * sum(M(p1 + k * h) * (1 if k in (0, n) else 4 if k % 2 else 2) for k in range(n + 1)))
PY
)"
elapsed=$((2 * 149))

echo "== generated run ($(wc -l <"$work/run.jsonl") lines, expected $(printf '%.1f' "$expected") m)"
run gen 0 -e 30 -o "$work/gen.json" "$work/run.jsonl"
# Any PFD line (values may be unknown: "--"), and one in mid-run with every value known.
pfd_re='^PFD  ([0-9]{2}:[0-9]{2}:[0-9]{2}|--:--:--)  [0-9]+\.[0-9]{2} km  pace ([0-9]+:[0-9]{2}|--:--) \[[0-9: ]*\]  AVG ([0-9]+:[0-9]{2}|--:--)  hdg ([NESW]{1,2}|--)  alt (-?[0-9]+|--) m  hr ([0-9]+|--)$'
known_re='^PFD  [0-9]{2}:[0-9]{2}:[0-9]{2}  [0-9]+\.[0-9]{2} km  pace 5:1[0-9] \[4:45 5:00 5:15 5:30 5:45\]  AVG 5:[0-9]{2}  hdg N  alt 1[0-9] m  hr 1[45][0-9]$'
pfd_lines="$(grep -c '^PFD ' "$work/gen.out" || true)"
if [[ "$pfd_lines" -ge 5 ]]; then ok; else fail "gen: $pfd_lines PFD lines, want >= 5 (165 flight events, -e 30)"; fi
if ! grep '^PFD ' "$work/gen.out" | grep -qvE "$pfd_re"; then ok; else
  fail "gen: PFD lines not in the PFD format:"; grep '^PFD ' "$work/gen.out" | grep -vE "$pfd_re" | head -3 >&2
fi
last_pfd="$(grep '^PFD ' "$work/gen.out" | tail -n 1)"
if [[ "$last_pfd" =~ $known_re ]]; then ok; else fail "gen: last PFD line: $last_pfd"; fi
if grep -q '^PHASE  preflight -> cruise' "$work/gen.out" && grep -q '^PHASE  cruise -> touchdown' "$work/gen.out"
then ok; else fail "gen: phase lines missing"; sed 's/^/    /' "$work/gen.out" | head >&2; fi
check_summary gen "$work/gen.json" \
  "s['phase'] == 'touchdown'" \
  "abs(s['distance_m'] - $expected) <= 0.01 * $expected" \
  "abs(s['elapsed_s'] - $elapsed) < 1e-6" \
  "'route' not in s" \
  "s['max_hr_bpm'] == 154"

echo "== stdin, summary with route to stdout"
run stdin 0 -r -e 1000 - <"$work/run.jsonl"
check_summary stdin "$work/stdin.out" \
  "s['phase'] == 'touchdown'" "len(s['route']) == 150" "s['points'] == 150"
if [[ "$(grep -c '^PFD ' "$work/stdin.out" || true)" == 1 ]]; then ok; else fail "stdin: -e 1000 should print 1 PFD line"; fi

echo "== invalid lines are rejected, the run still finishes"
{ sed -n '1,2p' "$work/run.jsonl"; echo 'this is not json'
  echo '{"t":1690000000,"lat":52.0,"lon":4.0}'   # time going backwards
  echo '{"t":1700000004.0,"lat":95.0,"lon":4.0}' # latitude out of range
  sed -n '3,$p' "$work/run.jsonl"; } >"$work/bad.jsonl"
run bad 0 -o "$work/bad.json" "$work/bad.jsonl"
if grep -q 'bad.jsonl:3: rejected' "$work/bad.err" && grep -q 'bad.jsonl:4: rejected' "$work/bad.err" \
   && grep -q 'bad.jsonl:5: rejected' "$work/bad.err"; then ok; else
  fail "bad: rejections of lines 3-5 not reported"; sed 's/^/    /' "$work/bad.err" >&2; fi
if grep -qi '^LOG .*reject' "$work/bad.out"; then ok; else fail "bad: no LOG line for the rejections"; fi
check_summary bad "$work/bad.json" \
  "s['phase'] == 'touchdown'" "abs(s['distance_m'] - $expected) <= 0.01 * $expected"

echo "== exit codes"
run usage_e 1 -e 0 "$work/run.jsonl"
run usage_opt 1 -x "$work/run.jsonl"
run usage_two 1 "$work/run.jsonl" "$work/run.jsonl"
run help 0 --help
if grep -q '^usage:' "$work/help.out" && [[ ! -s "$work/help.err" ]]; then ok; else fail "--help: no usage on stdout, or an error"; fi
run missing 2 "$work/does-not-exist.jsonl"
: >"$work/empty.jsonl"
run empty 2 "$work/empty.jsonl"
run outdir 2 -o "$work/no/such/dir/summary.json" "$work/run.jsonl"
run config 3 -c '{"distance_filtre_m":0}' "$work/run.jsonl"
if grep -q 'distance_filtre_m\|RUNWAY_ERR\|argument\|config' "$work/config.err"; then ok; else
  fail "config: the library's message is not shown"; sed 's/^/    /' "$work/config.err" >&2; fi

friday="$tracks/fixes/togeojson__Friday-Evening-Run.gpx.jsonl"
if [[ -f "$friday" && -f "$tracks/reference.jsonl" ]]; then
  echo "== real track: togeojson__Friday-Evening-Run (filters off: every fix counts)"
  ref="$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["file"] == "togeojson__Friday-Evening-Run.gpx":
        print(r["geodesic_wgs84"]["distance_2d_fixes_m"], r["end_t"] - r["start_t"], r["n_points"])
' "$tracks/reference.jsonl")"
  read -r ref_m ref_s ref_n <<<"$ref"
  run friday 0 -r -e 5 -c '{"filters":"off"}' -o "$work/friday.json" "$friday"
  check_summary friday "$work/friday.json" \
    "s['phase'] == 'touchdown'" \
    "abs(s['distance_m'] - $ref_m) <= 1e-4 * $ref_m" \
    "abs(s['elapsed_s'] - $ref_s) < 1e-3" \
    "len(s['route']) == $ref_n"
  if grep -q '^PFD ' "$work/friday.out"; then ok; else fail "friday: no PFD line"; fi
else
  echo "== real track: skipped ($tracks not present)"
fi

ride="$tracks/fitparse__sample-activity.fit"
lib="$here/../../build/librunway.so"
if [[ -f "$ride" && -f "$lib" ]]; then
  echo "== imported ride: fitparse__sample-activity.fit (its import report sets the profile: runway_replay_config)"
  RUNWAY_LIBRARY="$lib" PYTHONPATH="$here/../../bindings/python" python3 -c '
import sys, librunway.recording as r
sys.stdout.write("".join(l + "\n" for l in r.import_recording(open(sys.argv[1], "rb").read(), "fit")))
' "$ride" >"$work/ride.jsonl"
  run ride 0 -e 100000 -o "$work/ride.json" "$work/ride.jsonl"
  # The flight runway_analyse gives the file: started at its first timed line, its timer
  # stops replayed as pauses.
  analysed="$(RUNWAY_LIBRARY="$lib" PYTHONPATH="$here/../../bindings/python" python3 -c '
import sys, librunway
s = librunway.analyse(sys.argv[1]).summary
print(s["elapsed_s"], s["distance_m"])
' "$ride")"
  read -r analysed_s analysed_m <<<"$analysed"
  check_summary ride "$work/ride.json" "s['activity'] == 'ride'" "s['profile_mismatch'] is None" \
    "s['elapsed_s'] == $analysed_s" "abs(s['distance_m'] - $analysed_m) < 1e-6" "len(s['laps']) == 4"
  if grep -q 'sets the session config: {"activity":"ride","fix_altitude":"barometric","auto_lap_m":0}' "$work/ride.err" &&
     ! grep -q 'rejected' "$work/ride.err"; then ok; else
    fail "ride: the report's profile is not said, or its line was pushed"; sed 's/^/    /' "$work/ride.err" >&2; fi
  # -c setting the activity wins; the ride pushed as a run is reported as a mismatch.
  run ride_as_run 0 -e 100000 -c '{"activity":"run"}' -o "$work/ride_as_run.json" "$work/ride.jsonl"
  check_summary ride_as_run "$work/ride_as_run.json" "s['activity'] == 'run'" \
    "s['profile_mismatch']['suggested'] == 'ride'" "s['profile_mismatch']['refused'] > 10"
else
  echo "== imported ride: skipped ($ride or $lib not present)"
fi

if [[ -f "$lib" ]]; then
  echo "== a flight whose first fix came 2 min after its start, exported as FIT and imported"
  # Its import begins with a start line: pushed, it starts the flight (the host calls no
  # runway_start), as runway_analyse replays it; started at the first fix, 2 min would be lost.
  late="$(RUNWAY_LIBRARY="$lib" PYTHONPATH="$here/../../bindings/python" python3 - "$work/late.jsonl" <<'PY'
import sys, librunway
T0, CONFIG = 1700000000.0, {"auto_pause": False}
with librunway.Session(CONFIG) as s:
    s.start(T0)
    for i in range(481):                     # 1 Hz, 3 m/s north, from T0 + 120 to T0 + 600
        s.push({"t": T0 + 120 + i, "lat": 52.0 + i * 3.0 / 111257.0, "lon": 4.0, "speed": 3.0})
    s.stop()
    fit = s.export("fit")
lines = librunway.import_recording(fit, "fit")
assert lines[0] == '{"type":"start","t":1700000000.0}', lines[0]
with open(sys.argv[1], "w") as f:
    f.write("".join(line + "\n" for line in lines))
a = librunway.analyse_recording(fit, "fit", CONFIG)       # runway_analyse
print(a["summary"]["elapsed_s"], a["summary"]["distance_m"], a["rejected"])
PY
)"
  read -r late_s late_m late_rejected <<<"$late"
  run late 0 -e 100000 -c '{"auto_pause":false}' -o "$work/late.json" "$work/late.jsonl"
  check_summary late "$work/late.json" "s['start_t'] == 1700000000" "s['elapsed_s'] == 600" \
    "s['elapsed_s'] == $late_s" "abs(s['distance_m'] - $late_m) < 1e-6" "$late_rejected == 0"
  if ! grep -q 'rejected' "$work/late.err"; then ok; else
    fail "late: a line was rejected"; sed 's/^/    /' "$work/late.err" >&2; fi
else
  echo "== a flight whose first fix came 2 min after its start: skipped ($lib not present)"
fi

echo "== an indoor flight: speed samples only (a treadmill's foot pod), no fix"
python3 - "$work/indoor.jsonl" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for k in range(1, 601):                  # 10 min at 3 m/s, the last minute standing
        f.write('{"type":"speed","speed":%s,"t":%d}\n' % ("3.0" if k <= 540 else "0.0", 1700000000 + k))
PY
run indoor 0 -e 100000 -c '{"auto_pause":false}' -o "$work/indoor.json" "$work/indoor.jsonl"
check_summary indoor "$work/indoor.json" "abs(s['distance_m'] - 1617) < 1e-6" \
  "abs(s['sensor_distance_m'] - 1617) < 1e-6" "s['moving_s'] == 539" "s['elapsed_s'] == 599" "s['points'] == 0"

echo "$passed passed, $failed failed"
[[ "$failed" == 0 ]]
