/*
 * bench_fanout — ingest throughput and push-to-delivery latency with 0, 1, 8 and 64 subscribers.
 *
 *   bench_fanout N RUNS
 *
 * Each run replays N fixes through runway_push_fix (default config, started) once per setup:
 * no subscriber (the reference), 1/8/64 callback subscribers, 1/8/64 poll subscribers; the order
 * of the setups rotates from run to run. Subscriptions use the default options (every kind, the
 * "latest" policy: flight snapshots coalesce to the newest).
 *
 * Latency: the pusher stamps CLOCK_MONOTONIC just before each push; a callback reads the clock
 * when it receives a flight event and maps the event back to its push by the event's "t" (one fix
 * a second from BENCH_T0, so the push index is t - BENCH_T0). Poll subscribers are drained by the
 * pushing thread right after each push (a host's loop: push, then poll), so their latency is the
 * push plus the polls before it. Throughput is N over the push loop (with its polls); the run
 * then waits (condition variable, 10 s timeout) until every callback has seen the last fix.
 * One JSON line per setup and run:
 *   {"bench":"fanout","mode":"callback","subs":8,"run":r,"n":N,"push_s":..,"lat_us":[...sample]}
 * The latency sample written is every delivered flight event's latency, in microseconds.
 */
#include <pthread.h>

#include "bench_common.h"

typedef struct sub_ctx {
  double *lat_us;     /* latency samples, microseconds */
  long count, cap;
  long last_idx;      /* highest push index seen */
  uint64_t id;
} sub_ctx;

static struct {
  volatile uint64_t *stamp; /* push start per fix index */
  long n;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int caught_up;            /* callbacks that have seen the last fix */
} G = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

/* The push index of a flight event, or -1 for other kinds. */
static long flight_index(const char *json) {
  if (strncmp(json, "{\"kind\":\"flight\"", 16) != 0) return -1;
  const char *p = strstr(json, ",\"t\":");
  if (!p) return -1;
  double t = strtod(p + 5, NULL);
  long idx = (long)llround(t - BENCH_T0);
  return (idx >= 0 && idx < G.n) ? idx : -1;
}

static void record(sub_ctx *c, long idx, uint64_t now) {
  uint64_t pushed = G.stamp[idx];
  if (c->count < c->cap) c->lat_us[c->count++] = (double)(now - pushed) / 1e3;
  if (idx > c->last_idx) c->last_idx = idx;
}

static void on_event(const char *json, void *user) {
  uint64_t now = now_ns();
  sub_ctx *c = user;
  long idx = flight_index(json);
  if (idx < 0) return;
  record(c, idx, now);
  if (idx == G.n - 1) {
    pthread_mutex_lock(&G.mu);
    G.caught_up++;
    pthread_cond_broadcast(&G.cv);
    pthread_mutex_unlock(&G.mu);
  }
}

static void drain(runway_session *s, sub_ctx *c) {
  for (;;) {
    char *ev = NULL;
    CHECK(runway_poll(s, c->id, &ev));
    if (!ev) return;
    uint64_t now = now_ns();
    long idx = flight_index(ev);
    if (idx >= 0) record(c, idx, now);
    runway_string_free(ev);
  }
}

static void run_setup(const bench_input *in, const char *mode, int subs, int run) {
  int callback = !strcmp(mode, "callback"), poll = !strcmp(mode, "poll");
  sub_ctx *ctx = calloc((size_t)(subs > 0 ? subs : 1), sizeof *ctx);
  runway_session *s = NULL;
  CHECK(runway_session_open(NULL, &s));
  G.caught_up = 0;
  for (int k = 0; k < subs; k++) {
    ctx[k].cap = in->n + 16;
    ctx[k].lat_us = malloc(sizeof(double) * (size_t)ctx[k].cap);
    ctx[k].last_idx = -1;
    CHECK(runway_subscribe(s, NULL, callback ? on_event : NULL, callback ? &ctx[k] : NULL, &ctx[k].id));
  }
  CHECK(runway_start(s, BENCH_T0));
  if (poll) for (int k = 0; k < subs; k++) drain(s, &ctx[k]); /* the start's events */

  uint64_t t0 = now_ns();
  for (long i = 0; i < in->n; i++) {
    G.stamp[i] = now_ns();
    runway_status st = runway_push_fix(s, &in->fixes[i]);
    if (st != RUNWAY_OK) die_status("runway_push_fix", st);
    if (poll) for (int k = 0; k < subs; k++) drain(s, &ctx[k]);
  }
  double push_s = seconds_since(t0);

  int timed_out = 0;
  if (callback) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&G.mu);
    while (G.caught_up < subs && !timed_out) timed_out = pthread_cond_timedwait(&G.cv, &G.mu, &deadline) != 0;
    pthread_mutex_unlock(&G.mu);
  }
  runway_session_close(s); /* ends the subscriptions: no callback runs after this */

  printf("{\"bench\":\"fanout\",\"mode\":\"%s\",\"subs\":%d,\"run\":%d,\"n\":%ld,\"push_s\":%.6f,\"timed_out\":%s",
         mode, subs, run, in->n, push_s, timed_out ? "true" : "false");
  long delivered = 0;
  for (int k = 0; k < subs; k++) delivered += ctx[k].count;
  printf(",\"delivered\":%ld,\"lat_us\":[", delivered);
  int first = 1;
  for (int k = 0; k < subs; k++) {
    for (long j = 0; j < ctx[k].count; j++) {
      printf(first ? "%.2f" : ",%.2f", ctx[k].lat_us[j]);
      first = 0;
    }
    free(ctx[k].lat_us);
  }
  printf("]}\n");
  fflush(stdout);
  free(ctx);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s N RUNS\n", argv[0]);
    return 1;
  }
  long n = atol(argv[1]);
  int runs = atoi(argv[2]);
  bench_input in;
  bench_input_make(&in, n, 0);
  G.n = n;
  G.stamp = calloc((size_t)n, sizeof(uint64_t));

  static const struct { const char *mode; int subs; } setups[] = {
      {"none", 0}, {"callback", 1}, {"callback", 8}, {"callback", 64},
      {"poll", 1}, {"poll", 8}, {"poll", 64},
  };
  const int count = (int)(sizeof setups / sizeof setups[0]);
  /* warm-up, untimed and not printed */
  bench_input warm = in;
  warm.n = n < 2000 ? n : 2000;
  long keep = G.n;
  G.n = warm.n;
  FILE *out = stdout;
  stdout = fopen("/dev/null", "w");
  run_setup(&warm, "none", 0, -1);
  run_setup(&warm, "callback", 8, -1);
  fclose(stdout);
  stdout = out;
  G.n = keep;

  for (int r = 0; r < runs; r++)
    for (int j = 0; j < count; j++) {
      int k = (j + r) % count;
      run_setup(&in, setups[k].mode, setups[k].subs, r);
    }
  bench_input_free(&in);
  free((void *)G.stamp);
  return 0;
}
