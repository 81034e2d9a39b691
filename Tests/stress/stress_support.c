/*
 * stress_support.c — failures and progress, time and randomness, and the watchdog of the stress
 * test (see stress.c).
 */
#define _GNU_SOURCE

#include "stress.h"

/* ---- Failures and progress ----------------------------------------------- */

atomic_int g_failures;
atomic_uint_fast64_t g_progress;   /* moves on every push, event, subscribe, step */
static _Atomic(const char *) g_phase = "setup";

void fail(const char *fmt, ...) {
  int n = atomic_fetch_add(&g_failures, 1);
  if (n >= 20) return;  /* the first 20 say enough */
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "stress: FAIL [%s] %s\n", atomic_load(&g_phase), msg);
}

void phase(const char *name) {
  atomic_store(&g_phase, name);
  atomic_fetch_add(&g_progress, 1);
}

const char *status_name(runway_status st) {
  switch (st) {
  case RUNWAY_OK: return "OK";
  case RUNWAY_ERR_ARGUMENT: return "ERR_ARGUMENT";
  case RUNWAY_ERR_JSON: return "ERR_JSON";
  case RUNWAY_ERR_INPUT: return "ERR_INPUT";
  case RUNWAY_ERR_STATE: return "ERR_STATE";
  case RUNWAY_ERR_NOT_FOUND: return "ERR_NOT_FOUND";
  case RUNWAY_ERR_STORE: return "ERR_STORE";
  case RUNWAY_ERR_INTERNAL: return "ERR_INTERNAL";
  case RUNWAY_ERR_LIMIT: return "ERR_LIMIT";
  }
  return "(not a status)";
}

/* Fails unless `st` is `want`; returns whether it was. */
bool expect(runway_status st, runway_status want, const char *what) {
  if (st == want) return true;
  fail("%s: %s, want %s (%s)", what, status_name(st), status_name(want), runway_last_error());
  return false;
}

/* ---- Time and randomness ------------------------------------------------- */

double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static uint64_t splitmix(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

uint64_t rnd(uint64_t *state, uint64_t n) { return splitmix(state) % n; }

/* ---- Watchdog ---------------------------------------------------------------- */

double g_deadline;
atomic_bool g_done;  /* the run is over: the watchdog returns */

void *watchdog_main(void *arg) {
  (void)arg;
  uint64_t last = atomic_load(&g_progress);
  double last_move = now_s();
  while (!atomic_load(&g_done)) {
    sleep_us(250000);
    double t = now_s();
    uint64_t p = atomic_load(&g_progress);
    if (p != last) { last = p; last_move = t; }
    const char *why = NULL;
    if (t > g_deadline) why = "the run exceeded its duration + watchdog slack";
    else if (t - last_move > g_stall) why = "no progress within the stall window (deadlock?)";
    if (why) {
      fprintf(stderr, "stress: HUNG in phase \"%s\": %s (%.0f s without progress, %.0f s since "
              "start; callbacks running: %d)\n", atomic_load(&g_phase), why, t - last_move,
              t - (g_deadline - g_seconds - g_watchdog), atomic_load(&g_callbacks_running));
      fflush(stderr);
      _exit(2);
    }
  }
  return NULL;
}
