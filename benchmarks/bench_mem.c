/*
 * bench_mem — resident memory of a long run, one process per measurement.
 *
 *   bench_mem baseline               the same process without a session (library loaded,
 *                                    generator running): the reference RSS
 *   bench_mem run N [CHECKPOINTS] [poll]
 *                                    a session with {"distance_filter_m":0} (every accepted fix
 *                                    is a route point), started, N fixes pushed with
 *                                    runway_push_fix; RSS is read at each checkpoint (a
 *                                    comma-separated list of fix counts) and at the end.
 *                                    "poll": one poll subscription (every kind, "queue" policy)
 *                                    drained after every push, so every event is delivered
 *
 * Fixes are generated on the fly (nothing input-sized is allocated). Prints one JSON line:
 *   {"bench":"mem","mode":"run","n":N,"poll":false,"rss0_kb":..,"points":[..],"rss_kb":[..],
 *    "hwm_kb":..,"events":..}
 */
#include <malloc.h>

#include "bench_common.h"

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "baseline") && strcmp(argv[1], "run")) ||
      (!strcmp(argv[1], "run") && argc < 3)) {
    fprintf(stderr, "usage: %s baseline | run N [CHECKPOINTS] [poll]\n", argv[0]);
    return 1;
  }
  gen_state g;
  gen_init(&g, 20240519);
  if (!strcmp(argv[1], "baseline")) {
    /* touch what a run touches outside the session: the library, the generator, stdio */
    double sum = 0;
    for (int i = 0; i < 1000; i++) sum += gen_fix(&g).lat;
    char buf[32];
    runway_format_pace(5.0, buf, sizeof buf);
    printf("{\"bench\":\"mem\",\"mode\":\"baseline\",\"rss_kb\":%ld,\"hwm_kb\":%ld,\"x\":%.1f}\n",
           proc_status_kb("VmRSS"), proc_status_kb("VmHWM"), sum * 0);
    return 0;
  }
  long n = atol(argv[2]);
  long checkpoints[16];
  int ncp = 0;
  int poll = 0;
  for (int a = 3; a < argc; a++) {
    if (!strcmp(argv[a], "poll")) { poll = 1; continue; }
    char *p = argv[a];
    while (*p && ncp < 16) {
      checkpoints[ncp++] = strtol(p, &p, 10);
      if (*p == ',') p++;
    }
  }
  runway_session *s = NULL;
  CHECK(runway_session_open("{\"distance_filter_m\":0}", &s));
  uint64_t sub = 0;
  if (poll) CHECK(runway_subscribe(s, "{\"policy\":\"queue\"}", NULL, NULL, &sub));
  CHECK(runway_start(s, BENCH_T0));
  long events = 0;
  long rss0 = proc_status_kb("VmRSS");
  printf("{\"bench\":\"mem\",\"mode\":\"run\",\"n\":%ld,\"poll\":%s,\"rss0_kb\":%ld", n,
         poll ? "true" : "false", rss0);
  double points[17];
  long rss[17];
  int k = 0;
  for (long i = 0; i < n; i++) {
    runway_fix f = gen_fix(&g);
    runway_status st = runway_push_fix(s, &f);
    if (st != RUNWAY_OK) die_status("runway_push_fix", st);
    if (poll) {
      char *ev;
      for (;;) {
        CHECK(runway_poll(s, sub, &ev));
        if (!ev) break;
        events++;
        runway_string_free(ev);
      }
    }
    if (k < ncp && i + 1 == checkpoints[k]) {
      points[k] = snapshot_number(s, "points");
      rss[k] = proc_status_kb("VmRSS");
      k++;
    }
  }
  points[k] = snapshot_number(s, "points");
  rss[k] = proc_status_kb("VmRSS");
  k++;
  long hwm = proc_status_kb("VmHWM");
  printf(",\"points\":[");
  for (int j = 0; j < k; j++) printf(j ? ",%.0f" : "%.0f", points[j]);
  printf("],\"rss_kb\":[");
  for (int j = 0; j < k; j++) printf(j ? ",%ld" : "%ld", rss[j]);
  printf("],\"hwm_kb\":%ld,\"events\":%ld}\n", hwm, events);
  runway_session_close(s);
  return 0;
}
