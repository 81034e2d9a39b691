/*
 * bench_count — a fixed workload for instruction counting under valgrind --tool=callgrind.
 *
 *   bench_count json|jsonl|fix GENERATED PUSHED [CONFIG] [poll]
 *   bench_count snapshot GENERATED SNAPSHOTS
 *
 * Generates GENERATED fixes (always the same ones, and always all of them, so generation costs
 * the same in every run), opens a session with the default config, starts it, pushes the first
 * PUSHED fixes with runway_push_json (json, one call per line), runway_push_jsonl (jsonl, one
 * call for all PUSHED lines) or runway_push_fix (fix), stops
 * and closes. Instructions per fix = (Ir(PUSHED = G) - Ir(PUSHED = 0)) / G: startup, generation,
 * open, start and close cancel out. benchmarks/callgrind.py runs it.
 *
 * Mode "snapshot" pushes all GENERATED fixes with runway_push_fix and, after each of the first
 * SNAPSHOTS of them, serialises the flight snapshot with runway_snapshot_json (and frees it):
 * instructions per snapshot = (Ir(SNAPSHOTS = G) - Ir(SNAPSHOTS = 0)) / G, the pushes cancel out.
 *
 * For profiles only (benchmarks/run.py): CONFIG is a session config ("-" = default), and "poll"
 * adds one poll subscription that is never drained (every event is then serialised once);
 * mode "floor" runs the JSON floor of bench_ingest (floor_line) over the first PUSHED lines
 * instead of pushing them.
 */
#include <cjson/cJSON.h>

#include "bench_common.h"

int main(int argc, char **argv) {
  if (argc < 4 || argc > 6 ||
      (strcmp(argv[1], "json") && strcmp(argv[1], "jsonl") && strcmp(argv[1], "fix") && strcmp(argv[1], "floor") &&
       strcmp(argv[1], "snapshot"))) {
    fprintf(stderr, "usage: %s json|jsonl|fix|floor|snapshot GENERATED PUSHED [CONFIG] [poll]\n", argv[0]);
    return 1;
  }
  int snapshot_mode = !strcmp(argv[1], "snapshot");
  int floor_mode = !strcmp(argv[1], "floor");
  int lines = !strcmp(argv[1], "jsonl");
  int json = floor_mode || lines || !strcmp(argv[1], "json");
  long n = atol(argv[2]), pushed = atol(argv[3]);
  if (pushed > n || pushed < 0) return 1;
  bench_input in;
  bench_input_make(&in, n, json);
  if (json && !lines)
    for (long i = 0; i < n; i++) in.jsonl[in.line_start[i + 1] - 1] = 0;
  const char *config = argc > 4 && strcmp(argv[4], "-") ? argv[4] : NULL;
  runway_session *s = NULL;
  CHECK(runway_session_open(config, &s));
  uint64_t sub = 0;
  if (argc > 5 && !strcmp(argv[5], "poll")) CHECK(runway_subscribe(s, NULL, NULL, NULL, &sub));
  CHECK(runway_start(s, BENCH_T0));
  if (floor_mode) {
    floor_state st = {0};
    for (long i = 0; i < pushed; i++) floor_line(&st, in.jsonl + in.line_start[i], strlen(in.jsonl + in.line_start[i]));
    printf("%.1f\n", st.sum);
    pushed = 0;
  }
  if (snapshot_mode) {
    for (long i = 0; i < n; i++) {
      CHECK(runway_push_fix(s, &in.fixes[i]));
      if (i < pushed) {
        char *text = NULL;
        CHECK(runway_snapshot_json(s, &text));
        runway_string_free(text);
      }
    }
    pushed = 0;
  }
  if (lines) {
    size_t accepted = 0, rejected = 0;
    if (runway_push_jsonl(s, in.jsonl, in.line_start[pushed], &accepted, &rejected) != RUNWAY_OK ||
        accepted != (size_t)pushed)
      die_status("runway_push_jsonl", RUNWAY_ERR_INPUT);
    pushed = 0;
  }
  for (long i = 0; i < pushed; i++) {
    runway_status st = json ? runway_push_json(s, in.jsonl + in.line_start[i]) : runway_push_fix(s, &in.fixes[i]);
    if (st != RUNWAY_OK) die_status(json ? "runway_push_json" : "runway_push_fix", st);
  }
  CHECK(runway_stop(s, NAN));
  runway_session_close(s);
  bench_input_free(&in);
  return 0;
}
