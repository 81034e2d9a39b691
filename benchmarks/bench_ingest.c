/*
 * bench_ingest — the engine's ingest paths against plain C floors, side by side.
 *
 *   bench_ingest json  N RUNS   runway_push_json, one call per line, vs a cJSON loop
 *   bench_ingest jsonl N RUNS   runway_push_jsonl, one call for all N lines, vs the same loop
 *                               over the same buffer
 *   bench_ingest fix   N RUNS   runway_push_fix (full pipeline, no subscribers) vs a bare loop
 *                               of the engine's distance formula over the same structs
 *
 * The floor parses each line with cJSON (as the engine does), reads the eight fields of a fix and
 * sums the WGS84 distances between consecutive fixes with the engine's formula. Sessions use the
 * default config (filters on) and are started before the timed loop; opening, starting and
 * closing are not timed. Engine and floor alternate which runs first. One JSON line per run:
 *   {"bench":"json","n":N,"run":r,"engine_s":..,"base_s":..,"engine_m":..,"base_m":..}
 */
#include <cjson/cJSON.h>

#include "bench_common.h"

/* NUL-terminated copies of the lines, for runway_push_json and the one-line-at-a-time floor. */
static char **split_lines(const bench_input *in, char **storage) {
  char *buf = malloc(in->jsonl_len + 1);
  memcpy(buf, in->jsonl, in->jsonl_len + 1);
  char **lines = malloc(sizeof(char *) * (size_t)in->n);
  for (long i = 0; i < in->n; i++) {
    lines[i] = buf + in->line_start[i];
    buf[in->line_start[i + 1] - 1] = 0; /* the '\n' */
  }
  *storage = buf;
  return lines;
}

static double run_floor_json(char **lines, long n, double *metres) {
  floor_state st = {0};
  uint64_t t0 = now_ns();
  for (long i = 0; i < n; i++) floor_line(&st, lines[i], strlen(lines[i]));
  double s = seconds_since(t0);
  if (st.bad) { fprintf(stderr, "floor: %ld bad lines\n", st.bad); exit(3); }
  *metres = st.sum + 0 * st.checksum;
  return s;
}

static double run_floor_jsonl(const bench_input *in, double *metres) {
  floor_state st = {0};
  uint64_t t0 = now_ns();
  const char *p = in->jsonl, *end = in->jsonl + in->jsonl_len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) nl = end;
    if (nl > p) floor_line(&st, p, (size_t)(nl - p));
    p = nl + 1;
  }
  double s = seconds_since(t0);
  if (st.bad) { fprintf(stderr, "floor: %ld bad lines\n", st.bad); exit(3); }
  *metres = st.sum + 0 * st.checksum;
  return s;
}

static double run_engine_json(char **lines, long n, double *metres) {
  runway_session *s = open_started(NULL);
  uint64_t t0 = now_ns();
  for (long i = 0; i < n; i++) {
    runway_status st = runway_push_json(s, lines[i]);
    if (st != RUNWAY_OK) die_status("runway_push_json", st);
  }
  double secs = seconds_since(t0);
  *metres = snapshot_number(s, "distance_m");
  runway_session_close(s);
  return secs;
}

static double run_engine_jsonl(const bench_input *in, double *metres) {
  runway_session *s = open_started(NULL);
  size_t acc = 0, rej = 0;
  uint64_t t0 = now_ns();
  runway_status st = runway_push_jsonl(s, in->jsonl, in->jsonl_len, &acc, &rej);
  double secs = seconds_since(t0);
  if (st != RUNWAY_OK || acc != (size_t)in->n) die_status("runway_push_jsonl", st);
  *metres = snapshot_number(s, "distance_m");
  runway_session_close(s);
  return secs;
}

static double run_engine_fix(const bench_input *in, double *metres) {
  runway_session *s = open_started(NULL);
  uint64_t t0 = now_ns();
  for (long i = 0; i < in->n; i++) {
    runway_status st = runway_push_fix(s, &in->fixes[i]);
    if (st != RUNWAY_OK) die_status("runway_push_fix", st);
  }
  double secs = seconds_since(t0);
  *metres = snapshot_number(s, "distance_m");
  runway_session_close(s);
  return secs;
}

/* The bare loop is ~1000x quicker than the engine: repeat it to time a stable interval, report
 * the time of one pass. */
static double run_floor_fix(const bench_input *in, double *metres) {
  const runway_fix *f = in->fixes;
  int reps = 0;
  volatile double sink = 0;
  double sum = 0;
  uint64_t t0 = now_ns();
  do {
    sum = 0;
    for (long i = 1; i < in->n; i++) sum += wgs84_distance(f[i - 1].lat, f[i - 1].lon, f[i].lat, f[i].lon);
    sink += sum;
    reps++;
  } while (now_ns() - t0 < 50000000ull || reps < 3);
  double secs = seconds_since(t0) / reps;
  *metres = sum + 0 * sink;
  return secs;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s json|jsonl|fix N RUNS\n", argv[0]);
    return 1;
  }
  const char *mode = argv[1];
  long n = atol(argv[2]);
  int runs = atoi(argv[3]);
  int is_json = !strcmp(mode, "json"), is_jsonl = !strcmp(mode, "jsonl"), is_fix = !strcmp(mode, "fix");
  if (!(is_json || is_jsonl || is_fix) || n < 2 || runs < 1) {
    fprintf(stderr, "usage: %s json|jsonl|fix N RUNS\n", argv[0]);
    return 1;
  }
  bench_input in;
  bench_input_make(&in, n, !is_fix);
  char *storage = NULL;
  char **lines = is_json ? split_lines(&in, &storage) : NULL;

  /* one untimed warm-up of each side (page faults, lazy binding, caches) */
  double m1, m2;
  if (is_json) { run_engine_json(lines, n < 2000 ? n : 2000, &m1); run_floor_json(lines, n, &m2); }
  if (is_jsonl) { run_floor_jsonl(&in, &m2); }
  if (is_fix) { run_floor_fix(&in, &m2); }

  for (int r = 0; r < runs; r++) {
    double e = 0, b = 0, em = 0, bm = 0;
    for (int k = 0; k < 2; k++) {
      int engine_turn = (k == 0) == (r % 2 == 0);
      if (engine_turn) {
        e = is_json ? run_engine_json(lines, n, &em) : is_jsonl ? run_engine_jsonl(&in, &em) : run_engine_fix(&in, &em);
      } else {
        b = is_json ? run_floor_json(lines, n, &bm) : is_jsonl ? run_floor_jsonl(&in, &bm) : run_floor_fix(&in, &bm);
      }
    }
    printf("{\"bench\":\"%s\",\"n\":%ld,\"run\":%d,\"engine_s\":%.6f,\"base_s\":%.9f,"
           "\"engine_m\":%.1f,\"base_m\":%.1f,\"bytes\":%zu}\n",
           mode, n, r, e, b, em, bm, in.jsonl_len);
    fflush(stdout);
  }
  free(lines);
  free(storage);
  bench_input_free(&in);
  return 0;
}
