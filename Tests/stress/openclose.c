/*
 * openclose.c - opening and closing many sessions leaves the process's memory flat.
 *
 * Each round opens a session with a config, subscribes (a poll subscription every round, a
 * callback subscription - a library thread - every 10th), starts, pushes three fixes as structs
 * and one as JSON with heart rate, laps, reads a snapshot, drains the poll subscription, and
 * closes the session. After `warm` rounds (allocator pools, the library's shared state and
 * thread stacks have settled) and after `total` rounds it reads the resident set from
 * /proc/self/statm and the bytes malloc has handed out (mallinfo2: the main arena, i.e. this
 * thread's allocations) and prints them.
 *
 *   openclose [total [warm [max_growth_bytes]]]     defaults: 100000 10000 1048576
 *
 * Exit status 0 when the RSS grew by at most max_growth_bytes between the two readings and
 * the main arena's bytes in use by at most max_growth_bytes / 16, 1 otherwise (2: a library
 * call failed). A leak of one 32-byte block per session over 90 000 sessions is 2.9 MB of heap.
 */
#include <malloc.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runway.h"

static atomic_long delivered;

static void on_event(const char *event_json, void *user) {
  (void)user;
  if (event_json && event_json[0] == '{') atomic_fetch_add(&delivered, 1);
}

static long rss_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  if (!f) return -1;
  if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  fclose(f);
  return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

static long heap_in_use(void) { return (long)mallinfo2().uordblks; }

#define CHECK(call)                                                                    \
  do {                                                                                 \
    runway_status st_ = (call);                                                        \
    if (st_ != RUNWAY_OK) {                                                            \
      fprintf(stderr, "round %ld: %s failed: %s (%s)\n", round, #call,                 \
              runway_status_string(st_), runway_last_error());                         \
      exit(2);                                                                         \
    }                                                                                  \
  } while (0)

static void one_session(long round) {
  static const char *configs[] = {
      "{\"activity\":\"run\",\"auto_lap_m\":500,\"goal_m\":3000}",
      "{\"activity\":\"ride\",\"filters\":\"off\",\"hr_max\":185}",
      "{\"activity\":\"walk\",\"target_pace\":{\"min\":9,\"max\":12},\"minimums_m\":[1000]}",
  };
  runway_session *s = NULL;
  CHECK(runway_session_open(configs[round % 3], &s));
  uint64_t poll_id = 0, cb_id = 0;
  CHECK(runway_subscribe(s, "{\"policy\":\"queue\",\"capacity\":64}", NULL, NULL, &poll_id));
  if (round % 10 == 0) CHECK(runway_subscribe(s, NULL, on_event, NULL, &cb_id));
  double t0 = 1700000000.0 + (double)(round % 1000);
  CHECK(runway_start(s, t0));
  for (int i = 0; i < 3; i++) {
    runway_fix f = {t0 + i, 52.0 + i * 0.00003, 4.0, 10.0, 3.3, 0.0, 4.0, 6.0};
    CHECK(runway_push_fix(s, &f));
  }
  char json[160];
  snprintf(json, sizeof json, "{\"t\":%.1f,\"lat\":52.0001,\"lon\":4.0,\"hr\":150,\"cadence\":170}", t0 + 3);
  CHECK(runway_push_json(s, json));
  CHECK(runway_lap(s, NAN));
  char *out = NULL;
  CHECK(runway_snapshot_json(s, &out));
  if (!out || out[0] != '{') {
    fprintf(stderr, "round %ld: empty snapshot\n", round);
    exit(2);
  }
  runway_string_free(out);
  for (;;) {
    out = NULL;
    CHECK(runway_poll(s, poll_id, &out));
    if (!out) break;
    runway_string_free(out);
  }
  /* Every other round the subscription ends before the session (the other path is close). */
  if (round % 2 == 0) CHECK(runway_unsubscribe(s, poll_id));
  runway_session_close(s);
}

int main(int argc, char **argv) {
  long total = argc > 1 ? atol(argv[1]) : 100000;
  long warm = argc > 2 ? atol(argv[2]) : total / 10;
  long bound = argc > 3 ? atol(argv[3]) : 1048576;
  if (total <= 0 || warm <= 0 || warm >= total || bound <= 0) {
    fprintf(stderr, "usage: openclose [total [warm [max_growth_bytes]]], warm < total\n");
    return 2;
  }
  long rss_warm = 0, heap_warm = 0;
  for (long round = 0; round < total; round++) {
    one_session(round);
    if (round + 1 == warm) {
      rss_warm = rss_bytes();
      heap_warm = heap_in_use();
    }
  }
  long rss_end = rss_bytes(), heap_end = heap_in_use();
  long rss_growth = rss_end - rss_warm, heap_growth = heap_end - heap_warm;
  printf("sessions %ld; after %ld: RSS %ld bytes, heap in use %ld; after %ld: RSS %ld, heap %ld; "
         "growth over %ld sessions: RSS %ld bytes (%.2f per session), heap %ld bytes; "
         "callback events %ld\n",
         total, warm, rss_warm, heap_warm, total, rss_end, heap_end, total - warm, rss_growth,
         (double)rss_growth / (double)(total - warm), heap_growth, atomic_load(&delivered));
  if (rss_warm <= 0 || rss_end <= 0) {
    fprintf(stderr, "cannot read /proc/self/statm\n");
    return 2;
  }
  int ok = rss_growth <= bound && heap_growth <= bound / 16;
  printf("%s (bound: RSS %ld bytes, heap %ld bytes)\n", ok ? "flat" : "GROWING", bound, bound / 16);
  return ok ? 0 : 1;
}
