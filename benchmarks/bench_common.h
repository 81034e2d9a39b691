/*
 * bench_common.h — shared pieces of the librunway benchmark harnesses.
 *
 *  - a deterministic 1 Hz run generator (no libc rand: the same fixes on every machine),
 *  - the fixes as JSON Lines, formatted the way a host would send them,
 *  - the engine's distance formula (RunwayCore/Geodesy.swift: WGS84, local scales at the
 *    segment's mid-latitude), for the bare C baselines,
 *  - a monotonic clock, RSS readers, and small statistics helpers.
 *
 * Harnesses print their raw measurements as one JSON object per line on stdout; the driver
 * (benchmarks/run.py) turns them into ratios, medians and spreads.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runway.h"

#define BENCH_T0 1700000000.0

/* ---- clock ------------------------------------------------------------------------------ */

static inline uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double seconds_since(uint64_t start_ns) { return (double)(now_ns() - start_ns) / 1e9; }

/* ---- the engine's distance (Geodesy.swift) ------------------------------------------------ */

static inline double wgs84_distance(double lat1, double lon1, double lat2, double lon2) {
  static const double a = 6378137.0, f = 1.0 / 298.257223563;
  const double e2 = f * (2 - f), rad = M_PI / 180.0, m = a * rad;
  double c = cos((lat1 + lat2) / 2 * rad);
  double w2 = 1 / (1 - e2 * (1 - c * c));
  double w = sqrt(w2);
  double kx = m * w * c, ky = m * w * w2 * (1 - e2);
  double dlon = lon2 - lon1;
  if (dlon > 180) dlon -= 360; else if (dlon < -180) dlon += 360;
  double dx = dlon * kx, dy = (lat2 - lat1) * ky;
  return sqrt(dx * dx + dy * dy);
}

/* ---- deterministic run generator ---------------------------------------------------------- */
/* A runner at 2.6–3.6 m/s on a slowly turning course starting in central Amsterdam, one fix a
 * second, with receiver-like position error (Gauss–Markov, sigma ~3 m, tau 30 s), Doppler speed
 * and course, gentle hills, and h_acc/v_acc of a phone in a city. */

typedef struct gen_state {
  uint64_t rng;
  long i;
  double lat, lon;          /* true position */
  double course;            /* true course, degrees */
  double turn;              /* degrees per second */
  double ex, ey;            /* position error, metres (Gauss–Markov) */
} gen_state;

static inline uint64_t gen_next_u64(gen_state *g) { /* splitmix64 */
  uint64_t z = (g->rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline double gen_uniform(gen_state *g) { return (double)(gen_next_u64(g) >> 11) / 9007199254740992.0; }

static inline double gen_gauss(gen_state *g) {
  double u1 = gen_uniform(g), u2 = gen_uniform(g);
  if (u1 < 1e-300) u1 = 1e-300;
  return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static inline void gen_init(gen_state *g, uint64_t seed) {
  memset(g, 0, sizeof *g);
  g->rng = seed;
  g->lat = 52.3700;
  g->lon = 4.8900;
  g->course = 80.0;
}

/* The next fix (1 Hz from BENCH_T0). */
static inline runway_fix gen_fix(gen_state *g) {
  const double rad = M_PI / 180.0;
  double t = BENCH_T0 + (double)g->i;
  double speed = 3.1 + 0.4 * sin((double)g->i / 420.0) + 0.08 * gen_gauss(g);
  if (speed < 2.2) speed = 2.2;
  /* a street grid: long straights with a gentle drift, a turn now and then */
  if (gen_uniform(g) < 1.0 / 90.0) g->turn = (gen_uniform(g) < 0.5 ? -1 : 1) * (6 + 6 * gen_uniform(g));
  if (g->turn != 0 && gen_uniform(g) < 0.12) g->turn = 0;
  g->course = fmod(g->course + g->turn + 0.3 * gen_gauss(g) + 360.0, 360.0);
  double kx = wgs84_distance(g->lat, g->lon, g->lat, g->lon + 1e-3) / 1e-3;
  double ky = wgs84_distance(g->lat, g->lon, g->lat + 1e-3, g->lon) / 1e-3;
  g->lat += speed * cos(g->course * rad) / ky;
  g->lon += speed * sin(g->course * rad) / kx;
  /* Gauss–Markov error, tau 30 s, sigma 3 m: x' = x e^-1/30 + sigma sqrt(1-e^-2/30) n */
  const double phi = exp(-1.0 / 30.0), q = 3.0 * sqrt(1 - phi * phi);
  g->ex = g->ex * phi + q * gen_gauss(g);
  g->ey = g->ey * phi + q * gen_gauss(g);
  runway_fix f;
  f.t = t;
  f.lat = g->lat + (g->ey + 0.5 * gen_gauss(g)) / ky;
  f.lon = g->lon + (g->ex + 0.5 * gen_gauss(g)) / kx;
  f.alt = 12.0 + 9.0 * sin((double)g->i / 300.0) + 4.0 * sin((double)g->i / 71.0) + 0.8 * gen_gauss(g);
  f.speed = speed + 0.15 * gen_gauss(g);
  if (f.speed < 0) f.speed = 0;
  f.course = fmod(g->course + 2.0 * gen_gauss(g) + 360.0, 360.0);
  f.h_acc = 3.0 + 5.0 * gen_uniform(g);
  f.v_acc = 5.0 + 5.0 * gen_uniform(g);
  g->i++;
  return f;
}

/* One fix as a JSON object, as a phone host would write it. Returns the length. */
static inline int format_fix_json(char *buf, size_t cap, const runway_fix *f) {
  return snprintf(buf, cap,
                  "{\"t\":%.1f,\"lat\":%.7f,\"lon\":%.7f,\"alt\":%.1f,\"speed\":%.2f,"
                  "\"course\":%.1f,\"h_acc\":%.1f,\"v_acc\":%.1f}",
                  f->t, f->lat, f->lon, f->alt, f->speed, f->course, f->h_acc, f->v_acc);
}

/* n fixes, and (when lines != NULL) the same fixes as one JSON Lines buffer with per-line
 * offsets. Caller frees *fixes, *jsonl, *offsets. */
typedef struct bench_input {
  long n;
  runway_fix *fixes;
  char *jsonl;          /* n lines, each ending with '\n', NUL-terminated as a whole */
  size_t jsonl_len;
  size_t *line_start;   /* n + 1 offsets */
} bench_input;

static inline void bench_input_make(bench_input *in, long n, int with_json) {
  gen_state g;
  gen_init(&g, 20240519);
  in->n = n;
  in->fixes = malloc(sizeof(runway_fix) * (size_t)(n > 0 ? n : 1));
  in->jsonl = NULL;
  in->line_start = NULL;
  in->jsonl_len = 0;
  for (long i = 0; i < n; i++) in->fixes[i] = gen_fix(&g);
  if (!with_json) return;
  size_t cap = (size_t)n * 160 + 1;
  in->jsonl = malloc(cap);
  in->line_start = malloc(sizeof(size_t) * (size_t)(n + 1));
  size_t off = 0;
  for (long i = 0; i < n; i++) {
    in->line_start[i] = off;
    off += (size_t)format_fix_json(in->jsonl + off, cap - off, &in->fixes[i]);
    in->jsonl[off++] = '\n';
  }
  in->line_start[n] = off;
  in->jsonl[off] = 0;
  in->jsonl_len = off;
}

static inline void bench_input_free(bench_input *in) {
  free(in->fixes);
  free(in->jsonl);
  free(in->line_start);
}

/* ---- the JSON floor (with <cjson/cJSON.h> included first) -------------------------------- */
#ifdef cJSON__h
/* What anything that reads a fix with cJSON must do: parse the line, read the eight fields of a
 * fix, and sum the WGS84 distance from the previous fix. */
typedef struct floor_state {
  double lat, lon, sum, checksum;
  int have;
  long bad;
} floor_state;

static inline double floor_field(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

__attribute__((noinline)) static void floor_line(floor_state *st, const char *line, size_t len) {
  cJSON *o = cJSON_ParseWithLength(line, len);
  if (!cJSON_IsObject(o)) { st->bad++; cJSON_Delete(o); return; }
  double t = floor_field(o, "t"), lat = floor_field(o, "lat"), lon = floor_field(o, "lon");
  double alt = floor_field(o, "alt"), speed = floor_field(o, "speed"), course = floor_field(o, "course");
  double hacc = floor_field(o, "h_acc"), vacc = floor_field(o, "v_acc");
  cJSON_Delete(o);
  if (isnan(lat) || isnan(lon) || isnan(t)) { st->bad++; return; }
  if (st->have) st->sum += wgs84_distance(st->lat, st->lon, lat, lon);
  st->lat = lat; st->lon = lon; st->have = 1;
  st->checksum += alt + speed + course + hacc + vacc;
}
#endif

/* ---- library helpers ---------------------------------------------------------------------- */

static inline void die_status(const char *what, runway_status st) {
  fprintf(stderr, "%s: %s (%s)\n", what, runway_status_string(st), runway_last_error());
  exit(3);
}

#define CHECK(call)                                              \
  do {                                                           \
    runway_status st_ = (call);                                  \
    if (st_ != RUNWAY_OK) die_status(#call, st_);                \
  } while (0)

static inline runway_session *open_started(const char *config) {
  runway_session *s = NULL;
  CHECK(runway_session_open(config, &s));
  CHECK(runway_start(s, BENCH_T0));
  return s;
}

/* A number field of the session's snapshot (e.g. "distance_m", "points"), NAN if absent. */
static inline double snapshot_number(runway_session *s, const char *key) {
  char *json = NULL;
  CHECK(runway_snapshot_json(s, &json));
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(json, pat);
  double v = p ? strtod(p + strlen(pat), NULL) : NAN;
  runway_string_free(json);
  return v;
}

/* ---- memory ------------------------------------------------------------------------------- */

/* VmRSS (current) or VmHWM (peak) of this process, in KiB. */
static inline long proc_status_kb(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  size_t n = strlen(field);
  long v = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, field, n) == 0 && line[n] == ':') { v = strtol(line + n + 1, NULL, 10); break; }
  }
  fclose(f);
  return v;
}

/* ---- statistics --------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of v[0..n) (sorts v in place; nearest rank). */
static inline double quantile(double *v, size_t n, double q) {
  if (n == 0) return NAN;
  qsort(v, n, sizeof *v, cmp_double);
  size_t k = (size_t)ceil(q * (double)n);
  if (k < 1) k = 1;
  if (k > n) k = n;
  return v[k - 1];
}

#endif
