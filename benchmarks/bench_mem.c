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
 *   bench_mem host N SUBS            a host: one session (default config), SUBS callback
 *                                    subscribers (default options) whose callbacks only count
 *                                    the event's bytes, started, N fixes pushed 1 s apart with
 *                                    runway_push_fix (an hour at 1 Hz is N = 3600: the replay
 *                                    clock, nothing waits for the wall clock); after the last fix
 *                                    has reached every callback, VmSize and VmRSS are read from
 *                                    /proc/self/status, and also before the session was opened
 *                                    (the reference: the same process, library loaded),
 *                                    after the open and after the subscribes
 *
 * Fixes are generated on the fly (nothing input-sized is allocated). Prints one JSON line:
 *   {"bench":"mem","mode":"run","n":N,"poll":false,"rss0_kb":..,"points":[..],"rss_kb":[..],
 *    "hwm_kb":..,"events":..}
 */
#include <malloc.h>
#include <pthread.h>

#include "bench_common.h"

static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  long last_t;   /* per subscriber: the t of the newest flight event seen */
  long seen[64];
  long bytes[64];
} H = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void host_event(const char *json, void *user) {
  long k = (long)(intptr_t)user;
  size_t n = strlen(json);
  long t = -1;
  if (!strncmp(json, "{\"kind\":\"flight\"", 16)) {
    const char *p = strstr(json, ",\"t\":");
    if (p) t = (long)strtod(p + 5, NULL);
  }
  pthread_mutex_lock(&H.mu);
  H.bytes[k] += (long)n;
  if (t > H.seen[k]) H.seen[k] = t;
  pthread_cond_broadcast(&H.cv);
  pthread_mutex_unlock(&H.mu);
}

static int host(gen_state *g, long n, int subs) {
  if (subs < 0 || subs > 64) return 1;
  long vm0 = proc_status_kb("VmSize"), rss0 = proc_status_kb("VmRSS");
  runway_session *s = NULL;
  CHECK(runway_session_open(NULL, &s));
  long vm_open = proc_status_kb("VmSize"), rss_open = proc_status_kb("VmRSS");
  for (int k = 0; k < subs; k++) {
    uint64_t id;
    H.seen[k] = -1;
    CHECK(runway_subscribe(s, NULL, host_event, (void *)(intptr_t)k, &id));
  }
  long vm_subs = proc_status_kb("VmSize"), rss_subs = proc_status_kb("VmRSS");
  CHECK(runway_start(s, BENCH_T0));
  runway_fix f = {0};
  for (long i = 0; i < n; i++) {
    f = gen_fix(g);
    runway_status st = runway_push_fix(s, &f);
    if (st != RUNWAY_OK) die_status("runway_push_fix", st);
  }
  /* wait (10 s at most) until every callback has seen the last fix's snapshot */
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 10;
  int timed_out = 0;
  pthread_mutex_lock(&H.mu);
  for (int k = 0; k < subs && !timed_out; k++)
    while (H.seen[k] < (long)f.t && !timed_out) timed_out = pthread_cond_timedwait(&H.cv, &H.mu, &deadline) != 0;
  pthread_mutex_unlock(&H.mu);
  long vm = proc_status_kb("VmSize"), rss = proc_status_kb("VmRSS");
  long bytes = 0;
  for (int k = 0; k < subs; k++) bytes += H.bytes[k];
  printf("{\"bench\":\"mem\",\"mode\":\"host\",\"n\":%ld,\"subs\":%d,\"vm0_kb\":%ld,\"rss0_kb\":%ld,"
         "\"vm_open_kb\":%ld,\"rss_open_kb\":%ld,\"vm_subs_kb\":%ld,\"rss_subs_kb\":%ld,"
         "\"vm_kb\":%ld,\"rss_kb\":%ld,\"delivered_bytes\":%ld,\"timed_out\":%s}\n",
         n, subs, vm0, rss0, vm_open, rss_open, vm_subs, rss_subs, vm, rss, bytes, timed_out ? "true" : "false");
  runway_session_close(s);
  return timed_out;
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "baseline") && strcmp(argv[1], "run") && strcmp(argv[1], "host")) ||
      (!strcmp(argv[1], "run") && argc < 3) || (!strcmp(argv[1], "host") && argc != 4)) {
    fprintf(stderr, "usage: %s baseline | run N [CHECKPOINTS] [poll] | host N SUBS\n", argv[0]);
    return 1;
  }
  gen_state g;
  gen_init(&g, 20240519);
  if (!strcmp(argv[1], "host")) return host(&g, atol(argv[2]), atoi(argv[3]));
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
