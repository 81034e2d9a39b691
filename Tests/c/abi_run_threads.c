/*
 * abi_run_threads.c — threads: unsubscribe and close while events flow, no delivery thread
 * outliving its session, the delivery thread's stack and address space (a part of abi_run: see abi_run.c).
 */
#define _GNU_SOURCE /* pthread_getattr_np */

#include "abi_run.h"

/* ---- Concurrency: unsubscribe and close while events flow ---------------- */

typedef struct {
  runway_session *s;
  int first, count;
  int failures;
} pusher_t;

static void *push_fixes(void *arg) {
  pusher_t *p = (pusher_t *)arg;
  for (int i = p->first; i < p->first + p->count; i++) {
    runway_fix f = fix_struct(T0 + i, i);
    if (runway_push_fix(p->s, &f) != RUNWAY_OK) p->failures++;
  }
  return NULL;
}

void test_concurrent_unsubscribe_and_close(void) {
  runway_session *s = NULL;
  if (!EXPECT(runway_session_open("{\"filters\":\"off\"}", &s), RUNWAY_OK)) return;
  sub_t x, y, z;
  sub_init(&x, s, SUB_SLOW);
  sub_init(&y, s, SUB_COUNT);
  sub_init(&z, s, SUB_SLOW);
  x.work_ms = 1;
  z.work_ms = 100;
  EXPECT(runway_subscribe(s, "{\"policy\":\"queue\",\"kinds\":[\"flight\"]}", on_event, &x, &x.id),
         RUNWAY_OK);
  EXPECT(runway_subscribe(s, NULL, on_event, &y, &y.id), RUNWAY_OK);
  EXPECT(runway_start(s, T0), RUNWAY_OK);

  pusher_t p = {s, 0, 300, 0};
  pthread_t th;
  pthread_create(&th, NULL, push_fixes, &p);
  CHECK(wait_for(&x, pred_events_at_least, 10), "x received fewer than 10 events");
  EXPECT(unsubscribe_outside(&x), RUNWAY_OK); /* while x is busy and the pusher pushes */
  long x_after = sub_events(&x);
  long y_before = sub_events(&y);
  pthread_join(th, NULL);
  CHECK(p.failures == 0, "%d concurrent pushes failed", p.failures);

  pusher_t more = {s, 300, 5, 0};
  push_fixes(&more);
  double seq_now = snapshot_num(s, "seq");
  CHECK(wait_for(&y, pred_seq_at_least, seq_now), "y did not reach seq %.0f", seq_now);
  CHECK(sub_events(&y) > y_before, "y received nothing after x was cancelled");
  CHECK(sub_events(&x) == x_after && sub_calls_after_unsub(&x) == 0,
        "x's callback ran %ld times after runway_unsubscribe returned", sub_calls_after_unsub(&x));

  /* Close while a callback is running: close returns only after it finished. */
  EXPECT(runway_subscribe(s, "{\"kinds\":[\"flight\"]}", on_event, &z, &z.id), RUNWAY_OK);
  runway_fix f = fix_struct(T0 + 400, 400);
  EXPECT(runway_push_fix(s, &f), RUNWAY_OK);
  CHECK(wait_for(&z, pred_running, 0), "z's callback never started");
  runway_session_close(s);
  pthread_mutex_lock(&z.mu);
  CHECK(!z.running && z.events >= 1, "a callback was still running after runway_session_close");
  pthread_mutex_unlock(&z.mu);
  sub_destroy(&x);
  sub_destroy(&y);
  sub_destroy(&z);
}

/* Threads of this process, from /proc/self/task (Linux). */
static int thread_count(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

/* The number of threads once it has come down to `want`, or what it reads after 100 ms. A thread
 * that pthread_join has joined is gone from user space, but the kernel wakes the joiner before it
 * has finished tearing the thread down, so its task can still be listed in /proc/self/task for a
 * moment (measured: gone within 0.2 ms, but only when the other core is busy is it seen at all).
 * A thread left running (not joined, or blocked) is still there after 100 ms. */
static int thread_count_settled(int want) {
  int n = thread_count();
  for (int waited_us = 0; n != want && waited_us < 100000; waited_us += 100) {
    struct timespec pause = {0, 100000};
    nanosleep(&pause, NULL);
    n = thread_count();
  }
  return n;
}

/* The process's thread count once it has stayed the same for 10 ms (20 reads 0.5 ms apart; at
 * most a second): a thread of an earlier test still exiting is not counted as one that stays. */
static int thread_count_steady(void) {
  int n = thread_count();
  for (int same = 0, i = 0; same < 20 && i < 2000; i++) {
    struct timespec pause = {0, 500000};
    nanosleep(&pause, NULL);
    int m = thread_count();
    same = m == n ? same + 1 : 0;
    n = m;
  }
  return n;
}

/* No thread of a session outlives runway_session_close() or a runway_unsubscribe() called from
 * outside a callback: delivery threads are joined, not left to exit on their own. (Detached threads
 * still finishing after close would crash a host that unloads the library, and be counted here.) */
void test_no_thread_outlives_its_session(void) {
  for (int round = 0; round < 20; round++) {
    int before = thread_count_steady();   /* (each round: once measured, an exiting thread failed all 20) */
    runway_session *s = NULL;
    if (!EXPECT(runway_session_open(NULL, &s), RUNWAY_OK)) return;
    sub_t subs[12];
    uint64_t ids[12] = {0};
    for (int k = 0; k < 12; k++) {
      sub_init(&subs[k], s, k % 3 == 0 ? SUB_SELF_UNSUB : SUB_COUNT);
      EXPECT(runway_subscribe(s, NULL, on_event, &subs[k], &ids[k]), RUNWAY_OK);
      subs[k].id = ids[k];
    }
    char fix[256];
    for (int i = 0; i < 5; i++) {
      fix_json(fix, sizeof fix, T0 + i, i);
      runway_push_json(s, fix);
    }
    for (int k = 0; k < 12; k++)
      if (k % 3 == 0) wait_for(&subs[k], pred_self_unsub_done, 0);
    EXPECT(runway_unsubscribe(s, ids[1]), RUNWAY_OK);
    runway_session_close(s);
    int after = thread_count_settled(before);
    CHECK(after == before, "round %d: %d threads after close, %d before open", round, after, before);
    for (int k = 0; k < 12; k++) sub_destroy(&subs[k]);
  }
}

/* An unsubscribe from outside a callback joins that subscription's thread. Counted with no
 * other thread of the process ending meanwhile: /proc/self/task is read by position, so a
 * thread exiting during the read can hide another (why the test above counts only after close). */
void test_unsubscribe_joins_its_thread(void) {
  runway_session *s = NULL;
  if (!EXPECT(runway_session_open(NULL, &s), RUNWAY_OK)) return;
  int before = thread_count();
  sub_t subs[3];
  uint64_t ids[3] = {0};
  for (int k = 0; k < 3; k++) {
    sub_init(&subs[k], s, SUB_COUNT);
    EXPECT(runway_subscribe(s, NULL, on_event, &subs[k], &ids[k]), RUNWAY_OK);
  }
  CHECK(thread_count() == before + 3, "%d threads after 3 callback subscriptions, %d before", thread_count(), before);
  char fix[256];
  fix_json(fix, sizeof fix, T0, 0);
  runway_push_json(s, fix);
  for (int k = 0; k < 3; k++) wait_for(&subs[k], pred_events_at_least, 1);
  for (int k = 0; k < 3; k++) {
    EXPECT(runway_unsubscribe(s, ids[k]), RUNWAY_OK);
    int n = thread_count_settled(before + 2 - k);
    CHECK(n == before + 2 - k, "after unsubscribing %d of 3 from outside: %d threads, want %d", k + 1, n,
          before + 2 - k);
  }
  runway_session_close(s);
  for (int k = 0; k < 3; k++) sub_destroy(&subs[k]);
}

/* ---- The delivery thread's stack ------------------------------------------ */

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_ASAN __attribute__((no_sanitize_address))
#endif
#endif
#ifndef NO_ASAN
#define NO_ASAN
#endif

#define STACK_PAINT 0xA5

typedef struct stack_probe {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  runway_session *s;
  size_t size;        /* the delivery thread's stack, as pthread_getattr_np reports it */
  size_t used;        /* the deepest byte written below the stack's top, after the work */
  int done, parsed, pushed, snapshot_ok;
} stack_probe;

/* Fills the unused stack below this frame (from just above the guard) with a pattern. */
NO_ASAN __attribute__((noinline)) static void paint_below(volatile unsigned char *lo, volatile unsigned char *hi) {
  for (volatile unsigned char *p = lo; p < hi; p++) *p = STACK_PAINT;
}

/* The lowest address whose pattern was overwritten, from `lo` up. */
NO_ASAN __attribute__((noinline)) static const volatile unsigned char *first_touched(const volatile unsigned char *lo,
                                                                                     const volatile unsigned char *hi) {
  const volatile unsigned char *p = lo;
  while (p < hi && *p == STACK_PAINT) p++;
  return p;
}

/* Real work on the delivery thread: parse the event, read a snapshot, push a fix, parse it too. */
__attribute__((noinline)) static int callback_work(stack_probe *p, const char *json) {
  cJSON *ev = cJSON_Parse(json);
  int parsed = ev != NULL;
  cJSON_Delete(ev);
  char *snap = NULL;
  if (runway_snapshot_json(p->s, &snap) == RUNWAY_OK && snap) {
    cJSON *o = cJSON_Parse(snap);
    p->snapshot_ok = o != NULL && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "fixes"));
    cJSON_Delete(o);
    runway_string_free(snap);
  }
  char fix[200];
  fix_json(fix, sizeof fix, 1000.0, 3);
  p->pushed = runway_push_json(p->s, fix) == RUNWAY_OK;
  char *summary = NULL;
  if (runway_summary_json(p->s, &summary) == RUNWAY_OK) runway_string_free(summary);
  return parsed;
}

static void on_stack_probe(const char *json, void *user) {
  stack_probe *p = user;
  pthread_mutex_lock(&p->mu);
  int first = !p->done && !p->size;
  pthread_mutex_unlock(&p->mu);
  if (!first) return;
  pthread_attr_t attr;
  void *addr = NULL;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
  }
  volatile unsigned char *lo = (unsigned char *)addr + 4096, *top = (unsigned char *)addr + size;
  volatile unsigned char *hi = (unsigned char *)__builtin_frame_address(0) - 1024;
  if (addr && size > 8192 && hi > lo) paint_below(lo, hi);
  int parsed = callback_work(p, json);
  size_t used = addr && size > 8192 && hi > lo ? (size_t)(top - first_touched(lo, hi)) : 0;
  pthread_mutex_lock(&p->mu);
  p->size = size;
  p->used = used;
  p->parsed = parsed;
  p->done = 1;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

/* Delivery threads reserve 256 KiB of stack (not glibc's 8 MiB), and a callback that parses JSON
   and calls back into the library uses well under it: at most half, so a host has room. The
   figure is printed (Tests/sanitize/run.sh runs this under AddressSanitizer too). */
void test_callback_stack(void) {
  stack_probe p = {.mu = PTHREAD_MUTEX_INITIALIZER};
  init_cond_monotonic(&p.cv);
  CHECK(runway_session_open("{}", &p.s) == RUNWAY_OK, "open: %s", runway_last_error());
  uint64_t id = 0;
  CHECK(runway_subscribe(p.s, "{\"kinds\":[\"phase\"]}", on_stack_probe, &p, &id) == RUNWAY_OK, "subscribe: %s",
        runway_last_error());
  CHECK(runway_start(p.s, 999.0) == RUNWAY_OK, "start: %s", runway_last_error());
  struct timespec deadline;
  deadline_after(&deadline, 10);
  pthread_mutex_lock(&p.mu);
  while (!p.done && pthread_cond_timedwait(&p.cv, &p.mu, &deadline) == 0) {}
  pthread_mutex_unlock(&p.mu);
  runway_session_close(p.s);
  CHECK(p.done, "the phase callback never ran");
  CHECK(p.size > 0 && p.size <= 256 * 1024, "delivery thread stack %zu bytes, want at most 256 KiB", p.size);
  CHECK(p.parsed && p.snapshot_ok && p.pushed, "callback work: parsed %d, snapshot %d, pushed %d", p.parsed,
        p.snapshot_ok, p.pushed);
  CHECK(p.used > 0 && p.used <= p.size / 2, "a callback used %zu of %zu stack bytes, want at most half", p.used,
        p.size);
  printf("delivery thread stack: %zu bytes reserved, %zu used by a callback that parses JSON and calls back in\n",
         p.size, p.used);
  pthread_cond_destroy(&p.cv);
}

/* ---- Delivery threads leave the process's address space alone -------------- */

static long vm_size_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "VmSize:", 7)) kb = strtol(line + 7, NULL, 10);
  fclose(f);
  return kb;
}

typedef struct vm_sub {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  double last_t;
} vm_sub;

/* Does not allocate: reads the event's "t" in place. */
static void on_vm_event(const char *json, void *user) {
  vm_sub *c = user;
  if (strncmp(json, "{\"kind\":\"flight\"", 16) != 0) return;
  const char *p = strstr(json, ",\"t\":");
  if (!p) return;
  double t = strtod(p + 5, NULL);
  pthread_mutex_lock(&c->mu);
  if (t > c->last_t) c->last_t = t;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

/* Four callback subscribers whose callbacks allocate nothing, 600 fixes each delivered: the
   process's virtual memory grows by their 256 KiB stacks, not by 8 MiB stacks nor by a 64 MiB
   malloc arena per delivery thread (which glibc makes for a thread at its first malloc or free).
   Run first: glibc reuses the stacks of joined threads and the arenas of earlier ones. */
void test_delivery_threads_reserve_little(void) {
  enum { SUBS = 4, FIXES = 600 };
  runway_session *s = NULL;
  CHECK(runway_session_open("{}", &s) == RUNWAY_OK, "open: %s", runway_last_error());
  CHECK(runway_start(s, 1000.0) == RUNWAY_OK, "start: %s", runway_last_error());
  long before = vm_size_kb();
  vm_sub subs[SUBS];
  for (int k = 0; k < SUBS; k++) {
    pthread_mutex_init(&subs[k].mu, NULL);
    init_cond_monotonic(&subs[k].cv);
    subs[k].last_t = 0;
    uint64_t id;
    CHECK(runway_subscribe(s, NULL, on_vm_event, &subs[k], &id) == RUNWAY_OK, "subscribe: %s", runway_last_error());
  }
  double t = 1000.0;
  for (int i = 1; i <= FIXES; i++) {
    t = 1000.0 + i;
    runway_fix f = fix_struct(t, i);
    CHECK(runway_push_fix(s, &f) == RUNWAY_OK, "push %d: %s", i, runway_last_error());
  }
  for (int k = 0; k < SUBS; k++) {
    struct timespec deadline;
    deadline_after(&deadline, 10);
    pthread_mutex_lock(&subs[k].mu);
    while (subs[k].last_t < t && pthread_cond_timedwait(&subs[k].cv, &subs[k].mu, &deadline) == 0) {}
    CHECK(subs[k].last_t == t, "subscriber %d saw t %.0f, want the last fix's %.0f", k, subs[k].last_t, t);
    pthread_mutex_unlock(&subs[k].mu);
  }
  long after = vm_size_kb();
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1 /* its own allocator and shadow memory: VmSize says nothing of glibc's arenas */
#endif
#endif
#ifndef UNDER_SANITIZER
  CHECK(before > 0 && after - before < 16 * 1024, "VmSize grew %ld KiB with %d callback subscribers, want < 16 MiB",
        after - before, SUBS);
#endif
  printf("VmSize: +%ld KiB with %d callback subscribers after %d fixes\n", after - before, SUBS, FIXES);
  runway_session_close(s);
  for (int k = 0; k < SUBS; k++) {
    pthread_mutex_destroy(&subs[k].mu);
    pthread_cond_destroy(&subs[k].cv);
  }
}
