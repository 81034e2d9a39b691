/*
 * limits_run.c — the route limit at its default, RUNWAY_MAX_ROUTE_POINTS, through the C ABI.
 *
 * Pushes RUNWAY_MAX_ROUTE_POINTS struct fixes (raw accumulation, each 1.1 m north of the last,
 * so each adds one route point), then checks that the next fix that would add a point is
 * refused with RUNWAY_ERR_LIMIT and changes nothing, that inputs adding no point still go in,
 * and that stop and the summary work on the full route. Prints the figures it measured (time
 * to fill, RSS, summary size) and "N passed, M failed"; exits non-zero on any failure.
 * Debug builds of the library take far longer; Tests/c/run.sh runs it against the release one.
 *
 * Build (Tests/c/run.sh does this):
 *   gcc -std=c99 -O2 -Iinclude Tests/c/limits_run.c -Lbuild -lrunway -Wl,-rpath,$PWD/build -lm
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runway.h"

static int g_passed, g_failed;

#define CHECK(cond, what)                                                                         \
  do {                                                                                            \
    if (cond) {                                                                                   \
      g_passed++;                                                                                 \
    } else {                                                                                      \
      g_failed++;                                                                                 \
      fprintf(stderr, "FAIL limits_run.c:%d: %s (%s; last_error: \"%s\")\n", __LINE__, what,      \
              #cond, runway_last_error());                                                        \
    }                                                                                             \
  } while (0)

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* VmRSS of this process in MiB (0 when /proc is unreadable). */
static double rss_mib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  double kib = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "VmRSS:", 6) == 0) kib = strtod(line + 6, NULL);
  }
  fclose(f);
  return kib / 1024.0;
}

/* The integer after "\"name\":" in a JSON text, or -1. */
static long field(const char *json, const char *name) {
  char key[64];
  snprintf(key, sizeof key, "\"%s\":", name);
  const char *p = json ? strstr(json, key) : NULL;
  return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static char *snapshot(runway_session *s) {
  char *out = NULL;
  return runway_snapshot_json(s, &out) == RUNWAY_OK ? out : NULL;
}

int main(void) {
  const double t0 = 1700000000.0, step_deg = 1e-5; /* 1.1 m of latitude */
  const long max = RUNWAY_MAX_ROUTE_POINTS;
  runway_session *s = NULL;
  CHECK(runway_session_open("{\"filters\":\"off\",\"distance_filter_m\":1}", &s) == RUNWAY_OK,
        "open with the default max_route_points");
  if (!s) return 1;
  CHECK(runway_start(s, t0) == RUNWAY_OK, "start");

  double rss0 = rss_mib(), began = seconds_now();
  runway_fix fix = {t0, 40.0, 4.0, NAN, NAN, NAN, NAN, NAN};
  long refused = 0;
  for (long i = 0; i < max; i++) {
    fix.t = t0 + (double)i;
    fix.lat = 40.0 + (double)i * step_deg;
    if (runway_push_fix(s, &fix) != RUNWAY_OK) refused++;
  }
  double fill_s = seconds_now() - began, rss1 = rss_mib();
  CHECK(refused == 0, "every fix up to the limit is accepted");

  char *before = snapshot(s);
  CHECK(field(before, "points") == max, "the route holds RUNWAY_MAX_ROUTE_POINTS points");

  /* One past: refused, named, nothing changed. */
  fix.t = t0 + (double)max;
  fix.lat = 40.0 + (double)max * step_deg;
  CHECK(runway_push_fix(s, &fix) == RUNWAY_ERR_LIMIT, "the fix past the limit is refused");
  CHECK(strstr(runway_last_error(), "RUNWAY_MAX_ROUTE_POINTS") != NULL, "the message names the limit");
  CHECK(strstr(runway_last_error(), "1000000 points") != NULL, "the message gives the value");
  char *after = snapshot(s);
  CHECK(before && after && strcmp(before, after) == 0, "the snapshot is unchanged");
  runway_string_free(after);

  /* What adds no point still goes in: a fix 0.6 m from the last point, a sample. */
  fix.lat = 40.0 + ((double)max - 1 + 0.5) * step_deg;
  CHECK(runway_push_fix(s, &fix) == RUNWAY_OK, "a fix within the distance filter is accepted");
  CHECK(runway_push_json(s, "{\"type\":\"hr\",\"bpm\":150,\"t\":1701000001}") == RUNWAY_OK,
        "a sample is accepted");
  after = snapshot(s);
  CHECK(field(after, "fixes") == max + 1 && field(after, "points") == max, "counted, no point");
  runway_string_free(after);
  runway_string_free(before);

  CHECK(runway_stop(s, t0 + (double)max + 2) == RUNWAY_OK, "stop");
  began = seconds_now();
  char *summary = NULL;
  CHECK(runway_summary_json(s, &summary) == RUNWAY_OK, "the summary of a full route");
  double summary_s = seconds_now() - began;
  size_t summary_len = summary ? strlen(summary) : 0;
  CHECK(field(summary, "points") == max, "the summary holds every point");
  runway_string_free(summary);
  runway_session_close(s);

  printf("limits_run: %ld struct fixes in %.2f s (%.0f ns/fix); RSS %.0f -> %.0f MiB "
         "(+%.1f bytes/point); summary %.1f MB in %.2f s\n",
         max, fill_s, fill_s * 1e9 / (double)max, rss0, rss1, (rss1 - rss0) * 1048576.0 / (double)max,
         (double)summary_len / 1e6, summary_s);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
