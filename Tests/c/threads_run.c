/* threads_run.c — no library thread outlives the last session (Tests/c/run.sh).
 *
 * Counts this process's threads in /proc/self/task around sessions: a live-clock session starts
 * the ticker thread and a callback subscription its delivery thread; once runway_session_close of
 * the last session returns, the count is back where it started, at once (no waiting: close joins
 * them; a thread that has exited and is being reaped is not counted). A second live session while one is open shares the ticker (one thread, ticks to both);
 * closing one keeps it ticking for the other. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runway.h"

static int failures = 0;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* Threads of this process that have not exited: a joined thread's task can stay listed in
   /proc/self/task for a moment as it is reaped (state Z or X), so those are not counted. */
static int threads(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d) { perror("/proc/self/task"); exit(2); }
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;   /* gone between readdir and open */
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = 0;
    const char *paren = strrchr(buf, ')');   /* "tid (comm) S ...": the state follows the name */
    if (paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X')) continue;
    n++;
  }
  closedir(d);
  return n;
}

/* The count once it has come to `want`, or what it reads after 100 ms: pthread_join returns when
   the kernel wakes the joiner, before the thread is torn down, so a joined thread can still be
   listed (and not yet as Z or X) for a moment; under load it is seen for up to a fraction of a
   millisecond. A thread left running is still counted after 100 ms. */
static int threads_settled(int want) {
  int n = threads();
  for (int waited_us = 0; n != want && waited_us < 100000; waited_us += 100) {
    struct timespec pause = {0, 100000};
    nanosleep(&pause, NULL);
    n = threads();
  }
  return n;
}

static void on_event(const char *json, void *user) { (void)json; (void)user; }

static void nap(double s) {
  struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
  nanosleep(&ts, NULL);
}

/* Ticks waiting on a poll subscription. */
static int drain(runway_session *s, uint64_t sub) {
  int n = 0;
  char *text;
  while (runway_poll(s, sub, &text) == RUNWAY_OK && text) { n++; runway_string_free(text); }
  return n;
}

static runway_session *open_live(void) {
  runway_session *s = NULL;
  if (runway_session_open("{\"clock\":\"live\"}", &s) != RUNWAY_OK) {
    fprintf(stderr, "open: %s\n", runway_last_error());
    exit(2);
  }
  return s;
}

int main(void) {
  const int base = threads();
  printf("threads before any session: %d\n", base);

  /* 1. A replay session starts no thread; a callback subscription starts one, close ends it. */
  runway_session *r = NULL;
  CHECK(runway_session_open("{}", &r) == RUNWAY_OK, "open replay: %s", runway_last_error());
  CHECK(threads_settled(base) == base, "replay session: %d threads, want %d", threads(), base);
  uint64_t cb;
  CHECK(runway_subscribe(r, "{\"kinds\":[\"flight\"]}", on_event, NULL, &cb) == RUNWAY_OK, "subscribe");
  CHECK(threads_settled(base + 1) == base + 1, "callback subscription: %d threads, want %d", threads(), base + 1);
  runway_session_close(r);
  CHECK(threads_settled(base) == base, "after close: %d threads, want %d", threads(), base);

  /* 2. Live sessions: one ticker thread for all of them, gone with the last. */
  for (int round = 0; round < 3; round++) {
    runway_session *a = open_live();
    CHECK(threads_settled(base + 1) == base + 1, "round %d, one live session: %d threads, want %d", round, threads(), base + 1);
    runway_session *b = open_live();
    CHECK(threads_settled(base + 1) == base + 1, "round %d, two live sessions: %d threads, want %d (one ticker)", round, threads(), base + 1);
    uint64_t sub;
    CHECK(runway_subscribe(b, "{\"kinds\":[\"tick\"],\"policy\":\"queue\"}", NULL, NULL, &sub) == RUNWAY_OK, "subscribe b");
    CHECK(runway_start(a, NAN) == RUNWAY_OK && runway_start(b, NAN) == RUNWAY_OK, "start: %s", runway_last_error());
    runway_session_close(a);
    CHECK(threads_settled(base + 1) == base + 1, "round %d, a closed, b open: %d threads, want %d", round, threads(), base + 1);
    if (round == 0) {
      /* The ticker still ticks b: 2.5 s of wall time hold at least 2 whole seconds. */
      drain(b, sub);
      nap(2.5);
      int ticks = drain(b, sub);
      CHECK(ticks >= 2 && ticks <= 3, "b got %d ticks in 2.5 s after a closed, want 2 or 3", ticks);
    }
    runway_session_close(b);
    CHECK(threads_settled(base) == base, "round %d, every session closed: %d threads, want %d", round, threads(), base);
  }

  /* 3. A session closed right after opening (the ticker may not have run yet) leaves nothing. */
  for (int i = 0; i < 50; i++) runway_session_close(open_live());
  CHECK(threads_settled(base) == base, "50 open/close: %d threads, want %d", threads(), base);

  printf("threads after the last session: %d\n", threads());
  if (failures) { fprintf(stderr, "threads_run: %d failure(s)\n", failures); return 1; }
  printf("threads_run: ok\n");
  return 0;
}
