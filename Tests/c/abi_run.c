/*
 * abi_run.c — a C host driving librunway through its ABI, end to end.
 *
 * The "done when" program of the core: open a session, subscribe twice with
 * callbacks, push a run's fixes (JSON, struct and JSON Lines paths), cancel one
 * subscriber while the other keeps receiving, pause (fixes add no distance),
 * resume, stop, and check the flight record. Around it: the error contract
 * (NULL arguments, bad JSON, bad input, wrong phase), callbacks that call back
 * into the library (snapshot, unsubscribe itself, a refused session close),
 * poll subscriptions, concurrent unsubscribe and close, the PFD formatters, and
 * the delivery thread's stack: its size, and how much of it a callback doing real
 * work (parsing JSON, calling back into the library) uses.
 *
 * Every wait for another thread is a pthread_cond_timedwait with a deadline;
 * nothing sleeps to wait for an outcome. Prints "N passed, M failed" last and
 * exits non-zero when any check failed.
 *
 * Build (Tests/c/run.sh does this):
 *   gcc -std=c99 -Wall -Wextra -Werror -Iinclude Tests/c/abi_run.c \
 *       -Lbuild -lrunway -Wl,-rpath,$PWD/build -lcjson -lpthread -lm
 */
#define _GNU_SOURCE /* pthread_getattr_np */

#include <cjson/cJSON.h>
#include <math.h>
#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runway.h"

/* ---- Checks ------------------------------------------------------------- */

static int g_passed;
static int g_failed;

static int check_(int ok, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int check_(int ok, int line, const char *expr, const char *fmt, ...) {
  if (ok) {
    g_passed++;
    return 1;
  }
  g_failed++;
  fprintf(stderr, "FAIL abi_run.c:%d: %s\n      ", line, expr);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 0;
}

/* CHECK(condition, "printf format for the failure message", args...) */
#define CHECK(cond, ...) check_((cond) != 0, __LINE__, #cond, __VA_ARGS__)

static const char *status_name(runway_status st) {
  switch (st) {
  case RUNWAY_OK: return "RUNWAY_OK";
  case RUNWAY_ERR_ARGUMENT: return "RUNWAY_ERR_ARGUMENT";
  case RUNWAY_ERR_JSON: return "RUNWAY_ERR_JSON";
  case RUNWAY_ERR_INPUT: return "RUNWAY_ERR_INPUT";
  case RUNWAY_ERR_STATE: return "RUNWAY_ERR_STATE";
  case RUNWAY_ERR_NOT_FOUND: return "RUNWAY_ERR_NOT_FOUND";
  case RUNWAY_ERR_STORE: return "RUNWAY_ERR_STORE";
  case RUNWAY_ERR_INTERNAL: return "RUNWAY_ERR_INTERNAL";
  case RUNWAY_ERR_LIMIT: return "RUNWAY_ERR_LIMIT";
  }
  return "(not a runway_status)";
}

/* The call returned `want`; a failure also leaves a non-empty message. */
static int expect_status_(runway_status got, runway_status want, const char *call, int line) {
  const char *msg = runway_last_error();
  int ok = got == want;
  if (ok && want != RUNWAY_OK) ok = msg != NULL && msg[0] != '\0';
  return check_(ok, line, call, "got %s, want %s (last_error: \"%s\")", status_name(got),
                status_name(want), msg ? msg : "(NULL)");
}
#define EXPECT(call, want) expect_status_((call), (want), #call, __LINE__)

static int close_to(double got, double want, double rel_tol) {
  return fabs(got - want) <= rel_tol * fabs(want);
}

/* ---- Time and waits ------------------------------------------------------ */

#define WAIT_S 5.0 /* deadline for anything another thread must do */

static void deadline_after(struct timespec *ts, double seconds) {
  clock_gettime(CLOCK_MONOTONIC, ts);
  double whole = floor(seconds);
  ts->tv_sec += (time_t)whole;
  ts->tv_nsec += (long)((seconds - whole) * 1e9);
  if (ts->tv_nsec >= 1000000000L) {
    ts->tv_sec += 1;
    ts->tv_nsec -= 1000000000L;
  }
}

static void init_cond_monotonic(pthread_cond_t *cv) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(cv, &attr);
  pthread_condattr_destroy(&attr);
}

/* Simulated work inside a callback (a slow display), not a wait for an outcome. */
static void busy_for_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* ---- JSON helpers -------------------------------------------------------- */

static const cJSON *field(const cJSON *obj, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static double num_field(const cJSON *obj, const char *key) {
  const cJSON *v = field(obj, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_field(const cJSON *obj, const char *key) {
  const cJSON *v = field(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int str_is(const char *got, const char *want) { return got && strcmp(got, want) == 0; }

/* The snapshot, parsed; NULL (and a failed check) if it cannot be read. */
static cJSON *snapshot(runway_session *s) {
  char *json = NULL;
  if (!EXPECT(runway_snapshot_json(s, &json), RUNWAY_OK)) return NULL;
  cJSON *obj = cJSON_Parse(json);
  CHECK(cJSON_IsObject(obj), "snapshot is not a JSON object: %s", json);
  runway_string_free(json);
  return obj;
}

static double snapshot_num(runway_session *s, const char *key) {
  cJSON *obj = snapshot(s);
  double v = obj ? num_field(obj, key) : NAN;
  cJSON_Delete(obj);
  return v;
}

/* ---- Subscribers --------------------------------------------------------- */

enum sub_mode {
  SUB_COUNT,      /* count events */
  SUB_SNAPSHOT,   /* count, and read the snapshot from inside the callback */
  SUB_SELF_UNSUB, /* unsubscribe itself from inside its first callback */
  SUB_TRY_CLOSE,  /* call runway_session_close from inside its first callback */
  SUB_SLOW        /* count, taking work_ms per event (a slow display) */
};

typedef struct sub {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  enum sub_mode mode;
  runway_session *s;
  uint64_t id;
  long events;
  long flights;
  long phases;
  char phase_to[8][16];
  double max_seq;
  long seq_not_increasing;
  long bad_json;
  long work_ms;          /* SUB_SLOW */
  int running;           /* inside the callback now */
  long calls_after_unsub; /* callbacks that began after runway_unsubscribe returned */
  int unsub_returned;
  /* SUB_SNAPSHOT */
  long snapshot_ok, snapshot_bad;
  /* SUB_SELF_UNSUB */
  runway_status self_unsub_status;
  /* SUB_TRY_CLOSE */
  int close_tried;
  char close_error[512];
} sub_t;

static void sub_init(sub_t *c, runway_session *s, enum sub_mode mode) {
  memset(c, 0, sizeof *c);
  pthread_mutex_init(&c->mu, NULL);
  init_cond_monotonic(&c->cv);
  c->s = s;
  c->mode = mode;
  c->max_seq = -1;
  c->self_unsub_status = (runway_status)-1;
}

static void sub_destroy(sub_t *c) {
  pthread_mutex_destroy(&c->mu);
  pthread_cond_destroy(&c->cv);
}

static void on_event(const char *event_json, void *user) {
  sub_t *c = (sub_t *)user;
  cJSON *ev = cJSON_Parse(event_json);
  const char *kind = ev ? str_field(ev, "kind") : NULL;
  double seq = ev ? num_field(ev, "seq") : NAN;

  pthread_mutex_lock(&c->mu);
  c->running = 1;
  pthread_cond_broadcast(&c->cv);
  if (c->unsub_returned) c->calls_after_unsub++;
  if (!kind || isnan(seq)) c->bad_json++;
  if (!isnan(seq)) {
    if (seq <= c->max_seq) c->seq_not_increasing++;
    c->max_seq = seq;
  }
  c->events++;
  if (str_is(kind, "flight")) c->flights++;
  if (str_is(kind, "phase")) {
    const char *to = str_field(ev, "to");
    if (c->phases < 8) snprintf(c->phase_to[c->phases], sizeof c->phase_to[0], "%s", to ? to : "?");
    c->phases++;
  }
  enum sub_mode mode = c->mode;
  long n = c->events, work_ms = c->work_ms;
  uint64_t id = c->id;
  pthread_mutex_unlock(&c->mu);

  if (mode == SUB_SNAPSHOT) {
    char *snap = NULL;
    int ok = 0;
    if (runway_snapshot_json(c->s, &snap) == RUNWAY_OK && snap) {
      cJSON *obj = cJSON_Parse(snap);
      ok = obj && num_field(obj, "seq") >= seq;
      cJSON_Delete(obj);
    }
    runway_string_free(snap);
    pthread_mutex_lock(&c->mu);
    if (ok) c->snapshot_ok++; else c->snapshot_bad++;
    pthread_mutex_unlock(&c->mu);
  } else if (mode == SUB_SELF_UNSUB && n == 1) {
    runway_status st = runway_unsubscribe(c->s, id);
    pthread_mutex_lock(&c->mu);
    c->self_unsub_status = st;
    pthread_mutex_unlock(&c->mu);
  } else if (mode == SUB_TRY_CLOSE && n == 1) {
    runway_session_close(c->s); /* must be refused: we are inside a callback */
    const char *msg = runway_last_error();
    pthread_mutex_lock(&c->mu);
    snprintf(c->close_error, sizeof c->close_error, "%s", msg ? msg : "");
    c->close_tried = 1;
    pthread_mutex_unlock(&c->mu);
  } else if (mode == SUB_SLOW) {
    busy_for_ms(work_ms);
  }
  cJSON_Delete(ev);

  pthread_mutex_lock(&c->mu);
  c->running = 0;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

typedef int (*sub_pred)(const sub_t *c, double arg);
static int pred_seq_at_least(const sub_t *c, double seq) { return c->max_seq >= seq; }
static int pred_events_at_least(const sub_t *c, double n) { return c->events >= n; }
static int pred_close_tried(const sub_t *c, double unused) { (void)unused; return c->close_tried; }
static int pred_running(const sub_t *c, double unused) { (void)unused; return c->running; }
static int pred_self_unsub_done(const sub_t *c, double unused) {
  (void)unused;
  return c->self_unsub_status != (runway_status)-1;
}

/* Wait (up to WAIT_S) until pred holds for c; 1 if it does. */
static int wait_for(sub_t *c, sub_pred pred, double arg) {
  struct timespec deadline;
  deadline_after(&deadline, WAIT_S);
  pthread_mutex_lock(&c->mu);
  int rc = 0;
  while (!pred(c, arg) && rc == 0) rc = pthread_cond_timedwait(&c->cv, &c->mu, &deadline);
  int ok = pred(c, arg);
  pthread_mutex_unlock(&c->mu);
  return ok;
}

static long sub_events(sub_t *c) {
  pthread_mutex_lock(&c->mu);
  long n = c->events;
  pthread_mutex_unlock(&c->mu);
  return n;
}

/* The main thread reads a subscriber's counters only under its lock: the delivery thread may be
   handling a later event (a live tick) while the main thread checks. */
static double sub_max_seq(sub_t *c) {
  pthread_mutex_lock(&c->mu);
  double v = c->max_seq;
  pthread_mutex_unlock(&c->mu);
  return v;
}

static long sub_flights(sub_t *c) {
  pthread_mutex_lock(&c->mu);
  long v = c->flights;
  pthread_mutex_unlock(&c->mu);
  return v;
}

static long sub_calls_after_unsub(sub_t *c) {
  pthread_mutex_lock(&c->mu);
  long v = c->calls_after_unsub;
  pthread_mutex_unlock(&c->mu);
  return v;
}

/* Unsubscribe from outside any callback and note that it has returned. */
static runway_status unsubscribe_outside(sub_t *c) {
  runway_status st = runway_unsubscribe(c->s, c->id);
  pthread_mutex_lock(&c->mu);
  c->unsub_returned = 1;
  pthread_mutex_unlock(&c->mu);
  return st;
}

/* ---- The generated run ---------------------------------------------------- */

#define T0 1700000000.0
#define LAT0 52.0
#define LON0 4.0
#define DLAT 0.000027 /* ≈ 3.0 m north per step at 52°N; on the 1e-7° route grid */
#define ALT 10.0

static double lat_at(int i) { return LAT0 + i * DLAT; }

static void fix_json(char *buf, size_t cap, double t, int pos) {
  snprintf(buf, cap,
           "{\"t\":%.3f,\"lat\":%.7f,\"lon\":%.7f,\"alt\":%.1f,\"speed\":3.0,\"course\":0.0,"
           "\"h_acc\":4.0}",
           t, lat_at(pos), LON0, ALT);
}

static runway_fix fix_struct(double t, int pos) {
  runway_fix f;
  f.t = t;
  f.lat = lat_at(pos);
  f.lon = LON0;
  f.alt = ALT;
  f.speed = 3.0;
  f.course = 0.0;
  f.h_acc = 4.0;
  f.v_acc = NAN; /* unknown */
  return f;
}

/* WGS84 meridian arc length between two latitudes (degrees), by Simpson's rule
 * over the meridian radius of curvature M(phi) = a(1-e^2)/(1-e^2 sin^2 phi)^1.5. */
static double meridian_arc_m(double lat1_deg, double lat2_deg) {
  const double a = 6378137.0, f = 1.0 / 298.257223563, e2 = f * (2.0 - f);
  const double d2r = 3.14159265358979323846 / 180.0;
  const int n = 64;
  double p1 = lat1_deg * d2r, p2 = lat2_deg * d2r, h = (p2 - p1) / n, sum = 0.0;
  for (int i = 0; i <= n; i++) {
    double p = p1 + i * h, sp = sin(p);
    double m = a * (1.0 - e2) / pow(1.0 - e2 * sp * sp, 1.5);
    sum += m * (i == 0 || i == n ? 1.0 : (i % 2 ? 4.0 : 2.0));
  }
  return fabs(sum * h / 3.0);
}

/* ---- Checks by area ------------------------------------------------------- */

static void test_library_info(void) {
  CHECK(runway_abi_version() == RUNWAY_ABI_VERSION, "abi %u, header %d", runway_abi_version(),
        RUNWAY_ABI_VERSION);
  const char *v = runway_version();
  CHECK(v && strcmp(v, RUNWAY_VERSION_STRING) == 0, "version \"%s\", header \"%s\"",
        v ? v : "(NULL)", RUNWAY_VERSION_STRING);
  int all_named = 1;
  for (int st = RUNWAY_OK; st <= RUNWAY_ERR_LIMIT; st++) {
    const char *text = runway_status_string((runway_status)st);
    if (!text || !text[0]) {
      fprintf(stderr, "      status %d has no text\n", st);
      all_named = 0;
    }
  }
  CHECK(all_named, "every status 0..8 has a non-empty runway_status_string");
}

static int fmt_is(size_t (*fn)(double, char *, size_t), double x, const char *want, int line,
                  const char *name) {
  char buf[128];
  memset(buf, 'X', sizeof buf);
  size_t n = fn(x, buf, sizeof buf);
  int ok = strcmp(buf, want) == 0 && n == strlen(want);
  return check_(ok, line, name, "%s(%g) wrote \"%s\" returning %zu, want \"%s\" (%zu)", name, x,
                buf, n, want, strlen(want));
}
#define FMT(fn, x, want) fmt_is(fn, x, want, __LINE__, #fn)

static void test_formatters(void) {
  FMT(runway_format_pace, 4 + 29 / 60.0, "4:29");
  FMT(runway_format_pace, 4.9999, "5:00"); /* rounding carries into the minutes */
  FMT(runway_format_pace, NAN, "--:--");
  FMT(runway_format_pace, INFINITY, "--:--");
  FMT(runway_format_pace, 0.0, "--:--");
  FMT(runway_format_pace, -3.0, "--:--");
  FMT(runway_format_pace_tape, 4 + 29 / 60.0, "4:00 4:15 4:30 4:45 5:00");
  FMT(runway_format_pace_tape, NAN, "");
  FMT(runway_format_direction, 108.19, "E");
  FMT(runway_format_direction, 0.0, "N");
  FMT(runway_format_direction, 350.0, "N");
  FMT(runway_format_direction, 30.0, "NE");
  FMT(runway_format_direction, 225.0, "SW");
  FMT(runway_format_direction, NAN, "--");
  FMT(runway_format_heading_tape, 10.0, "W N E");
  FMT(runway_format_heading_tape, 100.0, "N E S");
  FMT(runway_format_time, 3725.9, "01:02:05");
  FMT(runway_format_time, NAN, "--:--:--");
  FMT(runway_format_distance, 5030.0, "5.03");
  FMT(runway_format_altitude, 123.4, "123");
  FMT(runway_format_altitude, NAN, "--");

  /* snprintf semantics: the return is the full length; the buffer is truncated
   * and NUL-terminated; cap 0 with buf NULL only measures. */
  char small[4];
  memset(small, 'X', sizeof small);
  size_t n = runway_format_time(3725.9, small, sizeof small);
  CHECK(n == 8 && memcmp(small, "01:", 4) == 0,
        "format_time into 4 bytes returned %zu and wrote \"%.4s\", want 8 and \"01:\"", n, small);
  n = runway_format_pace_tape(4 + 29 / 60.0, NULL, 0);
  CHECK(n == strlen("4:00 4:15 4:30 4:45 5:00"), "format_pace_tape(NULL, 0) returned %zu", n);
  char one[1] = {'X'};
  n = runway_format_pace(4 + 29 / 60.0, one, 1);
  CHECK(n == 4 && one[0] == '\0', "format_pace into 1 byte returned %zu, buf[0]=%d", n, one[0]);
}

static void test_null_arguments(void) {
  runway_session *s = NULL;
  EXPECT(runway_session_open(NULL, NULL), RUNWAY_ERR_ARGUMENT);

  runway_session *sentinel = (runway_session *)&s; /* never dereferenced */
  runway_session *out = sentinel;
  EXPECT(runway_session_open("{\"distance_filtre_m\":5}", &out), RUNWAY_ERR_ARGUMENT);
  CHECK(out == sentinel, "a failed open wrote its output");
  EXPECT(runway_session_open("{\"clock\":\"sundial\"}", &out), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_session_open("{not json", &out), RUNWAY_ERR_ARGUMENT); /* a bad config */

  runway_session_close(NULL); /* harmless */
  runway_string_free(NULL);   /* harmless */

  if (!EXPECT(runway_session_open(NULL, &s), RUNWAY_OK)) return;
  char *str = (char *)"untouched";
  uint64_t id = 0;
  size_t acc = 77, rej = 77;
  runway_fix f = fix_struct(T0, 0);
  EXPECT(runway_push_json(NULL, "{\"lat\":1,\"lon\":1,\"t\":1}"), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_push_json(s, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_push_fix(NULL, &f), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_push_fix(s, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_push_jsonl(s, NULL, 10, &acc, &rej), RUNWAY_ERR_ARGUMENT);
  CHECK(acc == 0 && rej == 0, "push_jsonl(NULL buf) counts %zu/%zu, want 0/0 (always written)",
        acc, rej);
  EXPECT(runway_push_jsonl(NULL, "{}", 2, NULL, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_tick(NULL, T0), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_start(NULL, T0), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_pause(NULL, T0), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_resume(NULL, T0), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_stop(NULL, T0), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_snapshot_json(s, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_snapshot_json(NULL, &str), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_summary_json(s, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_log_json(s, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_subscribe(s, NULL, on_event, NULL, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_subscribe(NULL, NULL, NULL, NULL, &id), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_poll(s, 1, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_unsubscribe(NULL, 1), RUNWAY_ERR_ARGUMENT);
  CHECK(strcmp(str, "untouched") == 0 && id == 0, "a failed call wrote its output");

  /* Bad subscription options. */
  EXPECT(runway_subscribe(s, "{\"kinds\":[\"flights\"]}", NULL, NULL, &id), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_subscribe(s, "{\"policy\":\"newest\"}", NULL, NULL, &id), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_subscribe(s, "{\"capacity\":0}", NULL, NULL, &id), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_subscribe(s, "{\"capacity\":65537}", NULL, NULL, &id), RUNWAY_ERR_LIMIT);
  EXPECT(runway_subscribe(s, "{\"colour\":1}", NULL, NULL, &id), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_unsubscribe(s, 987654321), RUNWAY_ERR_NOT_FOUND);

  /* Wrong phase: nothing but start is allowed in preflight. */
  EXPECT(runway_pause(s, T0), RUNWAY_ERR_STATE);
  EXPECT(runway_resume(s, T0), RUNWAY_ERR_STATE);
  EXPECT(runway_stop(s, T0), RUNWAY_ERR_STATE);
  runway_session_close(s);
}

/* Bad inputs are refused with the documented status and change no run state. */
static void test_bad_inputs(runway_session *s, double t_latest) {
  cJSON *before = snapshot(s);
  char buf[256];
  EXPECT(runway_push_json(s, "not json"), RUNWAY_ERR_JSON);
  EXPECT(runway_push_json(s, "[1,2]"), RUNWAY_ERR_JSON);
  snprintf(buf, sizeof buf, "{\"lat\":52.1,\"lon\":4.0,\"t\":%.3f,\"x\":\"%s\"}", t_latest,
           "\xff\xfe"); /* invalid UTF-8 */
  EXPECT(runway_push_json(s, buf), RUNWAY_ERR_JSON);
  snprintf(buf, sizeof buf, "{\"lat\":91.0,\"lon\":4.0,\"t\":%.3f}", t_latest);
  EXPECT(runway_push_json(s, buf), RUNWAY_ERR_INPUT);
  snprintf(buf, sizeof buf, "{\"lat\":\"52\",\"lon\":4.0,\"t\":%.3f}", t_latest);
  EXPECT(runway_push_json(s, buf), RUNWAY_ERR_INPUT);
  EXPECT(runway_push_json(s, "{\"lat\":52.1,\"lon\":4.0}"), RUNWAY_ERR_INPUT); /* replay: t needed */
  snprintf(buf, sizeof buf, "{\"lat\":52.1,\"lon\":4.0,\"t\":%.3f,\"speed\":1e999}", t_latest);
  EXPECT(runway_push_json(s, buf), RUNWAY_ERR_INPUT);
  fix_json(buf, sizeof buf, t_latest - 5.0, 200); /* time going backwards */
  EXPECT(runway_push_json(s, buf), RUNWAY_ERR_INPUT);
  runway_fix f = fix_struct(t_latest, 200);
  f.lat = NAN;
  EXPECT(runway_push_fix(s, &f), RUNWAY_ERR_INPUT);
  f = fix_struct(NAN, 200); /* NaN time needs the live clock */
  EXPECT(runway_push_fix(s, &f), RUNWAY_ERR_INPUT);
  EXPECT(runway_pause(s, t_latest - 1.0), RUNWAY_ERR_INPUT); /* before the latest input */

  cJSON *after = snapshot(s);
  if (before && after) {
    CHECK(num_field(after, "distance_m") == num_field(before, "distance_m") &&
              num_field(after, "points") == num_field(before, "points") &&
              num_field(after, "t") == num_field(before, "t") &&
              str_is(str_field(after, "phase"), str_field(before, "phase")),
          "bad inputs changed the run: distance %g -> %g, points %g -> %g, t %f -> %f",
          num_field(before, "distance_m"), num_field(after, "distance_m"),
          num_field(before, "points"), num_field(after, "points"), num_field(before, "t"),
          num_field(after, "t"));
  }
  cJSON_Delete(before);
  cJSON_Delete(after);
}

/* Drain a poll subscription; checks gap-free seq. Returns the number of events. */
static long drain_poll(runway_session *s, uint64_t id, long *flights, double *last_seq,
                       char phases[][16], int max_phases, int *n_phases) {
  long n = 0, gaps = 0, bad = 0;
  double prev = -1;
  *flights = 0;
  *n_phases = 0;
  for (;;) {
    char *ev = (char *)"untouched";
    runway_status st = runway_poll(s, id, &ev);
    if (!EXPECT(st, RUNWAY_OK)) break;
    if (ev == NULL) break;
    cJSON *obj = cJSON_Parse(ev);
    double seq = obj ? num_field(obj, "seq") : NAN;
    const char *kind = obj ? str_field(obj, "kind") : NULL;
    if (!kind || isnan(seq)) bad++;
    if (prev >= 0 && seq != prev + 1) {
      if (gaps == 0) fprintf(stderr, "      seq gap: %.0f after %.0f\n", seq, prev);
      gaps++;
    }
    if (str_is(kind, "flight")) (*flights)++;
    if (str_is(kind, "phase") && *n_phases < max_phases) {
      const char *to = str_field(obj, "to");
      snprintf(phases[(*n_phases)++], 16, "%s", to ? to : "?");
    }
    prev = seq;
    n++;
    cJSON_Delete(obj);
    runway_string_free(ev);
  }
  CHECK(gaps == 0, "a queue poll subscription saw %ld seq gaps", gaps);
  CHECK(bad == 0, "%ld polled events lacked kind or seq", bad);
  *last_seq = prev;
  return n;
}

/* The run of the core issue. */
static void test_run(void) {
  runway_session *s = NULL;
  if (!EXPECT(runway_session_open("{\"filters\":\"off\"}", &s), RUNWAY_OK)) return;

  sub_t a, b, snap, self, closer;
  sub_init(&a, s, SUB_COUNT);
  sub_init(&b, s, SUB_COUNT);
  sub_init(&snap, s, SUB_SNAPSHOT);
  sub_init(&self, s, SUB_SELF_UNSUB);
  sub_init(&closer, s, SUB_TRY_CLOSE);
  uint64_t id_a = 0, id_b = 0, id_snap = 0, id_self = 0, id_closer = 0, id_poll = 0;
  EXPECT(runway_subscribe(s, NULL, on_event, &a, &id_a), RUNWAY_OK);
  EXPECT(runway_subscribe(s, "{}", on_event, &b, &id_b), RUNWAY_OK);
  EXPECT(runway_subscribe(s, "{\"kinds\":[\"flight\"]}", on_event, &snap, &id_snap), RUNWAY_OK);
  EXPECT(runway_subscribe(s, "{\"kinds\":[\"flight\"],\"policy\":\"queue\"}", on_event, &self,
                          &id_self),
         RUNWAY_OK);
  EXPECT(runway_subscribe(s, "{\"kinds\":[\"flight\"]}", on_event, &closer, &id_closer),
         RUNWAY_OK);
  EXPECT(runway_subscribe(s, "{\"policy\":\"queue\"}", NULL, NULL, &id_poll), RUNWAY_OK);
  CHECK(id_a && id_b && id_snap && id_self && id_closer && id_poll,
        "a subscription id was 0");
  CHECK(id_a != id_b && id_b != id_poll && id_a != id_poll, "subscription ids are not distinct");
  /* Published before any event exists (a subscriber gets events from the next one on). */
  a.id = id_a;
  b.id = id_b;
  snap.id = id_snap;
  self.id = id_self;
  closer.id = id_closer;

  char *polled = (char *)"untouched";
  EXPECT(runway_poll(s, id_a, &polled), RUNWAY_ERR_ARGUMENT); /* a callback subscription */
  CHECK(strcmp(polled, "untouched") == 0, "a refused poll wrote its output");
  polled = (char *)"untouched";
  EXPECT(runway_poll(s, id_poll, &polled), RUNWAY_OK);
  CHECK(polled == NULL, "poll with nothing waiting gave %s, want NULL", polled ? polled : "");

  /* ---- cruise: fixes 0..19 as JSON --------------------------------------- */
  EXPECT(runway_start(s, T0), RUNWAY_OK);
  EXPECT(runway_start(s, T0 + 1), RUNWAY_ERR_STATE); /* a second start at another time */
  EXPECT(runway_start(s, T0), RUNWAY_OK);            /* at the flight's own start time: already true */
  EXPECT(runway_resume(s, T0), RUNWAY_ERR_STATE);
  long accepted_inputs = 0;
  char buf[512];
  int json_ok = 1;
  for (int i = 0; i <= 19; i++) {
    fix_json(buf, sizeof buf, T0 + i, i);
    if (runway_push_json(s, buf) == RUNWAY_OK) accepted_inputs++;
    else json_ok = 0;
  }
  CHECK(json_ok, "a valid JSON fix was refused: %s", runway_last_error());

  cJSON *snap19 = snapshot(s);
  if (snap19) {
    double want = meridian_arc_m(lat_at(0), lat_at(19));
    CHECK(str_is(str_field(snap19, "kind"), "flight") &&
              str_is(str_field(snap19, "phase"), "cruise"),
          "snapshot kind/phase %s/%s", str_field(snap19, "kind"), str_field(snap19, "phase"));
    CHECK(close_to(num_field(snap19, "distance_m"), want, 1e-4),
          "distance after 20 fixes %.4f m, want %.4f m (WGS84)", num_field(snap19, "distance_m"),
          want);
    CHECK(num_field(snap19, "elapsed_s") == 19.0, "elapsed_s %g, want 19",
          num_field(snap19, "elapsed_s"));
    CHECK(num_field(snap19, "speed_mps") == 3.0, "speed_mps %g, want the fix's 3.0",
          num_field(snap19, "speed_mps"));
    CHECK(close_to(num_field(snap19, "pace_min_per_km"), 1000.0 / (3.0 * 60.0), 1e-9),
          "pace_min_per_km %g, want %g", num_field(snap19, "pace_min_per_km"),
          1000.0 / 180.0);
    CHECK(num_field(snap19, "points") == 20.0, "points %g, want 20", num_field(snap19, "points"));
    const cJSON *pfd = field(snap19, "pfd");
    const cJSON *tape = field(pfd, "pace_tape");
    char *tape_s = tape ? cJSON_PrintUnformatted(tape) : NULL;
    CHECK(str_is(str_field(pfd, "pace"), "5:33") && str_is(str_field(pfd, "direction"), "N") &&
              str_is(str_field(pfd, "time"), "00:00:19") &&
              str_is(str_field(pfd, "distance"), "0.06") &&
              str_is(str_field(pfd, "altitude"), "10") && tape_s &&
              strcmp(tape_s, "[\"5:00\",\"5:15\",\"5:30\",\"5:45\",\"6:00\"]") == 0,
          "pfd pace/direction/time/distance/altitude/tape = %s/%s/%s/%s/%s/%s",
          str_field(pfd, "pace"), str_field(pfd, "direction"), str_field(pfd, "time"),
          str_field(pfd, "distance"), str_field(pfd, "altitude"), tape_s ? tape_s : "(none)");
    free(tape_s);
  }
  cJSON_Delete(snap19);

  test_bad_inputs(s, T0 + 19);

  /* Both counting subscribers catch up with the latest flight event (the snapshot's seq). */
  double seq_now = snapshot_num(s, "seq");
  CHECK(wait_for(&a, pred_seq_at_least, seq_now) && wait_for(&b, pred_seq_at_least, seq_now),
        "subscribers did not reach seq %.0f within %.0f s (a at %.0f, b at %.0f)", seq_now,
        WAIT_S, sub_max_seq(&a), sub_max_seq(&b));
  CHECK(sub_flights(&a) > 0 && sub_flights(&b) > 0, "flight events a=%ld b=%ld", sub_flights(&a),
        sub_flights(&b));

  /* The in-callback behaviours, triggered by the first fix. */
  CHECK(wait_for(&self, pred_self_unsub_done, 0) && self.self_unsub_status == RUNWAY_OK,
        "unsubscribing itself from inside the callback: %s",
        status_name(self.self_unsub_status));
  CHECK(wait_for(&closer, pred_close_tried, 0) && closer.close_error[0] != '\0',
        "runway_session_close inside a callback left no runway_last_error() on that thread");
  /* The refused close left the session usable. */
  snprintf(buf, sizeof buf, "{\"type\":\"hr\",\"bpm\":150,\"t\":%.3f}", T0 + 19);
  if (EXPECT(runway_push_json(s, buf), RUNWAY_OK)) accepted_inputs++;
  CHECK(wait_for(&snap, pred_events_at_least, 1), "the snapshot-reading callback never ran");

  /* ---- cancel a; b keeps receiving; fixes 20..29 as structs --------------- */
  EXPECT(unsubscribe_outside(&a), RUNWAY_OK);
  long a_after = sub_events(&a);
  long b_before = sub_events(&b);
  int struct_ok = 1;
  for (int i = 20; i <= 29; i++) {
    runway_fix f = fix_struct(T0 + i, i);
    if (runway_push_fix(s, &f) == RUNWAY_OK) accepted_inputs++;
    else struct_ok = 0;
  }
  CHECK(struct_ok, "a valid struct fix was refused: %s", runway_last_error());
  seq_now = snapshot_num(s, "seq");
  CHECK(wait_for(&b, pred_seq_at_least, seq_now), "b did not reach seq %.0f (at %.0f)", seq_now,
        sub_max_seq(&b));
  CHECK(sub_events(&b) > b_before, "b received nothing after a was cancelled");
  CHECK(sub_events(&a) == a_after && sub_calls_after_unsub(&a) == 0,
        "a's callback ran after runway_unsubscribe returned (%ld -> %ld events)", a_after,
        sub_events(&a));
  EXPECT(runway_unsubscribe(s, id_a), RUNWAY_ERR_NOT_FOUND); /* twice is harmless */
  EXPECT(runway_poll(s, id_a, &polled), RUNWAY_ERR_NOT_FOUND);

  /* ---- holding: fixes 30..39 move on but add no distance ------------------ */
  double d_paused = snapshot_num(s, "distance_m");
  EXPECT(runway_pause(s, T0 + 29), RUNWAY_OK);
  EXPECT(runway_pause(s, T0 + 29), RUNWAY_ERR_STATE);
  for (int i = 30; i <= 39; i++) {
    runway_fix f = fix_struct(T0 + i, i);
    if (EXPECT(runway_push_fix(s, &f), RUNWAY_OK)) accepted_inputs++;
  }
  cJSON *held = snapshot(s);
  if (held) {
    CHECK(num_field(held, "distance_m") == d_paused,
          "distance grew while holding: %.3f -> %.3f", d_paused, num_field(held, "distance_m"));
    CHECK(str_is(str_field(held, "phase"), "holding"), "phase %s, want holding",
          str_field(held, "phase"));
    CHECK(num_field(held, "elapsed_s") == 29.0, "elapsed_s while holding %g, want 29",
          num_field(held, "elapsed_s"));
  }
  cJSON_Delete(held);

  /* ---- resume at T0+45 (16 s held); positions 39.. from where the pause left off */
  EXPECT(runway_resume(s, T0 + 45), RUNWAY_OK);
  /* 10 fixes as JSON Lines with one bad line (line 4), a blank line and a CRLF. */
  char batch[4096];
  size_t used = 0;
  for (int k = 0; k <= 9; k++) {
    char line[256];
    fix_json(line, sizeof line, T0 + 45 + k, 39 + k);
    if (k == 3) used += (size_t)snprintf(batch + used, sizeof batch - used, "this is not json\n");
    if (k == 5) used += (size_t)snprintf(batch + used, sizeof batch - used, "\n");
    used += (size_t)snprintf(batch + used, sizeof batch - used, "%s%s", line,
                             k == 7 ? "\r\n" : "\n");
  }
  size_t acc = 99, rej = 99;
  EXPECT(runway_push_jsonl(s, batch, used, &acc, &rej), RUNWAY_ERR_JSON);
  const char *msg = runway_last_error();
  CHECK(msg && strstr(msg, "line 4") != NULL, "push_jsonl's message does not name line 4: \"%s\"",
        msg);
  CHECK(acc == 10 && rej == 1, "push_jsonl counts accepted=%zu rejected=%zu, want 10/1", acc, rej);
  accepted_inputs += (long)acc;
  snprintf(buf, sizeof buf, "{\"type\":\"hr\",\"bpm\":150,\"t\":%.3f}", T0 + 54);
  if (EXPECT(runway_push_json(s, buf), RUNWAY_OK)) accepted_inputs++;
  acc = rej = 99;
  fix_json(buf, sizeof buf, T0 + 55, 49);
  EXPECT(runway_push_jsonl(s, buf, strlen(buf), &acc, &rej), RUNWAY_OK); /* no final newline */
  CHECK(acc == 1 && rej == 0, "single-line push_jsonl counts %zu/%zu, want 1/0", acc, rej);
  accepted_inputs += (long)acc;
  for (int k = 11; k <= 19; k++) {
    fix_json(buf, sizeof buf, T0 + 45 + k, 39 + k);
    if (EXPECT(runway_push_json(s, buf), RUNWAY_OK)) accepted_inputs++;
  }

  /* ---- touchdown ------------------------------------------------------------- */
  EXPECT(runway_stop(s, T0 + 64), RUNWAY_OK);
  EXPECT(runway_start(s, T0 + 64), RUNWAY_ERR_STATE);
  EXPECT(runway_start(s, T0), RUNWAY_ERR_STATE); /* its own start time too: a session is one flight */
  EXPECT(runway_resume(s, T0 + 64), RUNWAY_ERR_STATE);
  EXPECT(runway_stop(s, T0 + 64), RUNWAY_ERR_STATE);

  char *summary = NULL;
  if (EXPECT(runway_summary_json(s, &summary), RUNWAY_OK)) {
    cJSON *sum = cJSON_Parse(summary);
    if (CHECK(cJSON_IsObject(sum), "summary is not a JSON object: %.200s", summary)) {
      double want_m = meridian_arc_m(lat_at(0), lat_at(29)) + meridian_arc_m(lat_at(39), lat_at(58));
      double got_m = num_field(sum, "distance_m");
      CHECK(str_is(str_field(sum, "phase"), "touchdown"), "phase %s", str_field(sum, "phase"));
      CHECK(str_is(str_field(sum, "end_reason"), "stopped"), "end_reason %s",
            str_field(sum, "end_reason"));
      CHECK(close_to(got_m, want_m, 0.01), "distance_m %.3f, want %.3f within 1%%", got_m, want_m);
      /* An ellipsoid, not a sphere: a sphere is 0.065% short along this meridian. */
      CHECK(close_to(got_m, want_m, 1e-4), "distance_m %.4f, want WGS84 %.4f within 0.01%%",
            got_m, want_m);
      CHECK(num_field(sum, "elapsed_s") == 48.0, "elapsed_s %g, want 48 (64 s less 16 s held)",
            num_field(sum, "elapsed_s"));
      CHECK(num_field(sum, "start_t") == T0 && num_field(sum, "end_t") == T0 + 64,
            "start_t %f end_t %f", num_field(sum, "start_t"), num_field(sum, "end_t"));
      CHECK(close_to(num_field(sum, "avg_pace_min_per_km"), (48.0 / 60.0) / (want_m / 1000.0),
                     1e-3),
            "avg_pace_min_per_km %g", num_field(sum, "avg_pace_min_per_km"));
      /* The fixes say 3.0 m/s, but a DLAT step is 3.0039 m of meridian a second: a leg's
       * average speed (distance over moving time) counts toward the max too, so the max is at
       * least both (docs/accuracy.md), within 0.1% of the ground speed. */
      double step_mps = meridian_arc_m(lat_at(0), lat_at(1));
      CHECK(num_field(sum, "max_speed_mps") >= 3.0 &&
                num_field(sum, "max_speed_mps") >= want_m / 48.0 &&
                close_to(num_field(sum, "max_speed_mps"), step_mps, 1e-3),
            "max_speed_mps %g, want at least 3.0 and the average %g, within 0.1%% of %g",
            num_field(sum, "max_speed_mps"), want_m / 48.0, step_mps);
      CHECK(num_field(sum, "avg_hr_bpm") == 150.0 && num_field(sum, "max_hr_bpm") == 150.0,
            "avg/max hr %g/%g, want 150", num_field(sum, "avg_hr_bpm"),
            num_field(sum, "max_hr_bpm"));
      const cJSON *route = field(sum, "route");
      int n = cJSON_GetArraySize(route);
      /* Cruise fixes only: 30 before the pause, 20 after; the first after, of the resume's
       * second, is where the new leg starts (no point repeats it). The held walk is not route. */
      CHECK(cJSON_IsArray(route) && n == 50, "route has %d points, want 50", n);
      if (n == 50) {
        const cJSON *leg = cJSON_GetArrayItem(route, 30), *before = cJSON_GetArrayItem(route, 29);
        CHECK(cJSON_GetArrayItem(leg, 3)->valuedouble == T0 + 45 &&
                  fabs(cJSON_GetArrayItem(leg, 0)->valuedouble - lat_at(39)) < 2e-7 &&
                  cJSON_GetArrayItem(before, 3)->valuedouble == T0 + 29,
              "the new leg does not start at the fix of the resume's second");
      }
      CHECK(num_field(sum, "points") == n, "points %g, route length %d",
            num_field(sum, "points"), n);
      if (n >= 2) {
        const cJSON *first = cJSON_GetArrayItem(route, 0);
        const cJSON *last = cJSON_GetArrayItem(route, n - 1);
        CHECK(cJSON_GetArraySize(first) == 4 &&
                  fabs(cJSON_GetArrayItem(first, 0)->valuedouble - lat_at(0)) < 2e-7 &&
                  fabs(cJSON_GetArrayItem(first, 1)->valuedouble - LON0) < 2e-7 &&
                  cJSON_GetArrayItem(first, 2)->valuedouble == ALT &&
                  cJSON_GetArrayItem(first, 3)->valuedouble == T0,
              "first route point is not [lat0, lon0, alt, T0]");
        CHECK(cJSON_GetArraySize(last) == 4 &&
                  fabs(cJSON_GetArrayItem(last, 0)->valuedouble - lat_at(58)) < 2e-7 &&
                  cJSON_GetArrayItem(last, 3)->valuedouble == T0 + 64,
              "last route point is not the last fix");
      }
    }
    cJSON_Delete(sum);
    runway_string_free(summary);
  }

  /* ---- what the subscribers saw -------------------------------------------- */
  seq_now = snapshot_num(s, "seq");
  CHECK(wait_for(&b, pred_seq_at_least, seq_now), "b did not reach seq %.0f", seq_now);
  pthread_mutex_lock(&b.mu);
  CHECK(b.phases == 4 && strcmp(b.phase_to[0], "cruise") == 0 &&
            strcmp(b.phase_to[1], "holding") == 0 && strcmp(b.phase_to[2], "cruise") == 0 &&
            strcmp(b.phase_to[3], "touchdown") == 0,
        "b's phase events: %ld (%s %s %s %s)", b.phases, b.phase_to[0], b.phase_to[1],
        b.phase_to[2], b.phase_to[3]);
  CHECK(b.seq_not_increasing == 0 && b.bad_json == 0,
        "b: %ld events out of seq order, %ld without kind/seq", b.seq_not_increasing, b.bad_json);
  pthread_mutex_unlock(&b.mu);
  pthread_mutex_lock(&self.mu);
  CHECK(self.events == 1, "the self-unsubscribed callback ran %ld times, want 1", self.events);
  pthread_mutex_unlock(&self.mu);
  pthread_mutex_lock(&snap.mu);
  CHECK(snap.snapshot_ok > 0 && snap.snapshot_bad == 0,
        "snapshots read inside a callback: %ld good, %ld bad", snap.snapshot_ok,
        snap.snapshot_bad);
  pthread_mutex_unlock(&snap.mu);

  long flights = 0;
  double last_seq = -1;
  char phases[8][16];
  int n_phases = 0;
  long n_polled = drain_poll(s, id_poll, &flights, &last_seq, phases, 8, &n_phases);
  CHECK(n_polled > 0 && last_seq >= seq_now,
        "poll queue ended at seq %.0f, before the snapshot's %.0f", last_seq, seq_now);
  CHECK(flights >= accepted_inputs, "poll queue has %ld flight events for %ld accepted inputs",
        flights, accepted_inputs);
  CHECK(n_phases == 4 && strcmp(phases[3], "touchdown") == 0, "poll queue phase events: %d",
        n_phases);
  EXPECT(runway_unsubscribe(s, id_poll), RUNWAY_OK);
  EXPECT(runway_poll(s, id_poll, &polled), RUNWAY_ERR_NOT_FOUND);

  char *log = NULL;
  if (EXPECT(runway_log_json(s, &log), RUNWAY_OK)) {
    cJSON *arr = cJSON_Parse(log);
    CHECK(cJSON_IsArray(arr) && cJSON_GetArraySize(arr) <= RUNWAY_LOG_LINES,
          "log_json is not an array of at most %d: %.200s", RUNWAY_LOG_LINES, log);
    cJSON_Delete(arr);
    runway_string_free(log);
  }

  runway_session_close(s); /* b, snap and closer are still subscribed: close ends them */
  sub_destroy(&a);
  sub_destroy(&b);
  sub_destroy(&snap);
  sub_destroy(&self);
  sub_destroy(&closer);
}

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

static void test_concurrent_unsubscribe_and_close(void) {
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

/* No thread of a session outlives runway_session_close() or a runway_unsubscribe() called from
 * outside a callback: delivery threads are joined, not left to exit on their own. (Detached threads
 * still finishing after close would crash a host that unloads the library, and be counted here.) */
static void test_no_thread_outlives_its_session(void) {
  int before = thread_count();
  for (int round = 0; round < 20; round++) {
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
static void test_unsubscribe_joins_its_thread(void) {
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
static void test_callback_stack(void) {
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
static void test_delivery_threads_reserve_little(void) {
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

/* runway_analyse: one call gives the summary the separate calls give (import, a session with
 * the file's sport, start at the first input, push_jsonl, stop, summary), and the report. */
static const char ANALYSE_GPX[] =
    "<?xml version=\"1.0\"?><gpx version=\"1.1\"><trk><type>cycling</type><trkseg>"
    "<trkpt lat=\"52.0000\" lon=\"4.0000\"><ele>1</ele><time>2024-05-01T10:00:00Z</time></trkpt>"
    "<trkpt lat=\"52.0001\" lon=\"4.0002\"><ele>2</ele><time>2024-05-01T10:00:02Z</time></trkpt>"
    "<trkpt lat=\"52.0002\" lon=\"4.0004\"><ele>3</ele><time>2024-05-01T10:00:04Z</time></trkpt>"
    "<trkpt lat=\"52.0003\" lon=\"4.0006\"><time>2024-05-01T10:00:06Z</time>"
    "<extensions><hr>400</hr></extensions></trkpt>"
    "<trkpt lat=\"52.0004\" lon=\"4.0008\"><ele>4</ele><time>2024-05-01T10:00:08Z</time></trkpt>"
    "<trkpt lat=\"52.0005\" lon=\"4.0010\"></trkpt>"
    "</trkseg></trk></gpx>";

static void test_analyse(void) {
  size_t len = sizeof ANALYSE_GPX - 1;
  /* The separate calls. */
  char *jsonl = NULL, *summary = NULL;
  size_t jsonl_len = 0, acc = 0, rej = 0;
  runway_session *s = NULL;
  if (!EXPECT(runway_import("gpx", ANALYSE_GPX, len, &jsonl, &jsonl_len), RUNWAY_OK)) return;
  if (!EXPECT(runway_session_open("{\"activity\":\"ride\"}", &s), RUNWAY_OK)) return;
  EXPECT(runway_start(s, 1714557600.0), RUNWAY_OK);
  EXPECT(runway_push_jsonl(s, jsonl, jsonl_len, &acc, &rej), RUNWAY_ERR_INPUT); /* hr 400 */
  EXPECT(runway_stop(s, NAN), RUNWAY_OK);
  EXPECT(runway_summary_json(s, &summary), RUNWAY_OK);
  runway_session_close(s);
  runway_string_free(jsonl);

  char *out = NULL;
  size_t out_len = 0;
  if (EXPECT(runway_analyse(NULL, ANALYSE_GPX, len, &out, &out_len), RUNWAY_OK)) {
    const char *prefix = "{\"summary\":";
    size_t n = strlen(summary);
    CHECK(out_len == strlen(out), "out_len %zu, strlen %zu", out_len, strlen(out));
    CHECK(strncmp(out, prefix, strlen(prefix)) == 0 && strncmp(out + strlen(prefix), summary, n) == 0 &&
              strncmp(out + strlen(prefix) + n, ",\"report\":{\"type\":\"import_report\"",
                      strlen(",\"report\":{\"type\":\"import_report\"")) == 0,
          "runway_analyse's summary differs from the separate calls':\n%s\n%s", out, summary);
    CHECK(strstr(out, "\"activity\":\"ride\"") != NULL, "not replayed as the file's ride: %s", out);
    CHECK(strstr(out, "\"inputs\":5,\"accepted\":4,\"rejected\":1,\"first_rejection\":{\"index\":4,") != NULL,
          "counts: %s", out);
    CHECK(strstr(out, "\"untimed\":1") != NULL, "the report's untimed point: %s", out);
    runway_string_free(out);
  }
  /* The config's own activity wins; "route":false leaves the route out. */
  out = NULL;
  if (EXPECT(runway_analyse("{\"format\":\"gpx\",\"route\":false,\"config\":{\"activity\":\"walk\"}}",
                            ANALYSE_GPX, len, &out, NULL), RUNWAY_OK)) {
    CHECK(strstr(out, "\"activity\":\"walk\"") != NULL && strstr(out, "\"route\":") == NULL,
          "config activity / no route: %s", out);
    runway_string_free(out);
  }
  runway_string_free(summary);

  /* Refusals: nothing is written. */
  char *untouched = (char *)"untouched";
  out = untouched;
  EXPECT(runway_analyse("{\"format\":\"kml\"}", ANALYSE_GPX, len, &out, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse("{\"colour\":1}", ANALYSE_GPX, len, &out, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse("{\"config\":{\"store\":\"/tmp/x\"}}", ANALYSE_GPX, len, &out, NULL),
         RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse("{\"config\":{\"hr_max\":\"high\"}}", ANALYSE_GPX, len, &out, NULL),
         RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse("{not json", ANALYSE_GPX, len, &out, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse(NULL, NULL, 0, &out, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse(NULL, ANALYSE_GPX, len, NULL, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse(NULL, "hello, world", 12, &out, NULL), RUNWAY_ERR_INPUT);
  EXPECT(runway_analyse("{\"format\":\"gpx\"}", ANALYSE_GPX, len - 10, &out, NULL), RUNWAY_ERR_INPUT);
  EXPECT(runway_analyse(NULL, "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>", 63,
                        &out, NULL), RUNWAY_ERR_INPUT);
  CHECK(strcmp(runway_last_error(), "no timed points") == 0, "message: %s", runway_last_error());
  CHECK(out == untouched, "a failed runway_analyse wrote its output");
}

/* runway_analyse_route: the same flight and summary as runway_analyse, the route as structs
 * holding exactly the doubles of the JSON route (alt NaN where it says null). */
static const char ROUTE_GPX[] =
    "<?xml version=\"1.0\"?><gpx version=\"1.1\"><trk><trkseg>"
    "<trkpt lat=\"52.0000\" lon=\"4.0000\"><ele>1.5</ele><time>2024-05-01T10:00:00Z</time></trkpt>"
    "<trkpt lat=\"52.0001\" lon=\"4.0002\"><ele>2.25</ele><time>2024-05-01T10:00:05Z</time></trkpt>"
    "<trkpt lat=\"52.0002\" lon=\"4.0004\"><time>2024-05-01T10:00:10Z</time></trkpt>"
    "<trkpt lat=\"52.00031\" lon=\"4.00061\"><ele>3</ele><time>2024-05-01T10:00:15Z</time></trkpt>"
    "<trkpt lat=\"52.00042\" lon=\"4.00082\"><ele>4</ele><time>2024-05-01T10:00:20Z</time></trkpt>"
    "</trkseg></trk></gpx>";

static void test_analyse_route(void) {
  size_t len = sizeof ROUTE_GPX - 1;
  char *json = NULL;
  if (!EXPECT(runway_analyse("{\"format\":\"gpx\"}", ROUTE_GPX, len, &json, NULL), RUNWAY_OK)) return;
  cJSON *want = cJSON_Parse(json);
  runway_string_free(json);
  cJSON *want_summary = cJSON_GetObjectItemCaseSensitive(want, "summary");
  cJSON *want_route = cJSON_DetachItemFromObjectCaseSensitive(want_summary, "route");
  int n = cJSON_GetArraySize(want_route);
  CHECK(cJSON_IsArray(want_route) && n == 5, "runway_analyse's route: %d points", n);

  char *out = NULL;
  size_t out_len = 0, count = 99;
  runway_route_point *points = NULL;
  if (EXPECT(runway_analyse_route("{\"format\":\"gpx\"}", ROUTE_GPX, len, &out, &out_len, &points,
                                  &count),
             RUNWAY_OK)) {
    cJSON *got = cJSON_Parse(out);
    CHECK(out_len == strlen(out), "out_len %zu, strlen %zu", out_len, strlen(out));
    CHECK(cJSON_Compare(got, want, 1), "the result is runway_analyse's without the route:\n%s", out);
    cJSON *summary = cJSON_GetObjectItemCaseSensitive(got, "summary");
    CHECK(cJSON_GetObjectItemCaseSensitive(summary, "route") == NULL &&
              cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(summary, "segment_starts")) &&
              cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(summary, "route_simplified")),
          "summary route members: %s", out);
    CHECK(count == (size_t)n && num_field(summary, "points") == (double)n && points != NULL,
          "%zu points, JSON %d", count, n);
    int nulls = 0;
    for (int i = 0; points && i < n && (size_t)i < count; i++) {
      cJSON *p = cJSON_GetArrayItem(want_route, i);
      double lat = cJSON_GetArrayItem(p, 0)->valuedouble, lon = cJSON_GetArrayItem(p, 1)->valuedouble;
      cJSON *alt = cJSON_GetArrayItem(p, 2);
      double t = cJSON_GetArrayItem(p, 3)->valuedouble;
      int alt_same = cJSON_IsNull(alt) ? isnan(points[i].alt) : points[i].alt == alt->valuedouble;
      nulls += cJSON_IsNull(alt);
      int same = points[i].lat == lat && points[i].lon == lon && alt_same && points[i].t == t;
      char *shown = same ? NULL : cJSON_PrintUnformatted(p);   /* printed only on failure */
      CHECK(same, "point %d: %.17g %.17g %.17g %.17g vs JSON %s", i, points[i].lat, points[i].lon,
            points[i].alt, points[i].t, shown ? shown : "?");
      cJSON_free(shown);
    }
    CHECK(nulls == 1 && points && isnan(points[2].alt) && points[1].alt == 2.25 &&
              points[0].lat == 52.0 && points[4].t == 1714557620.0,
          "the unknown altitude and the values as recorded");
    cJSON_Delete(got);
    runway_string_free(out);
    runway_route_free(points);
  }
  cJSON_Delete(want_route);
  cJSON_Delete(want);

  /* "route":false: runway_analyse's result, no array. */
  char *plain = NULL;
  out = NULL;
  points = (runway_route_point *)&count;
  count = 7;
  if (EXPECT(runway_analyse("{\"route\":false}", ROUTE_GPX, len, &plain, NULL), RUNWAY_OK) &&
      EXPECT(runway_analyse_route("{\"route\":false}", ROUTE_GPX, len, &out, NULL, &points, &count),
             RUNWAY_OK)) {
    CHECK(strcmp(out, plain) == 0 && points == NULL && count == 0,
          "route false: %zu points, %s", count, out);
    CHECK(strstr(out, "route") == NULL, "route false leaves every route member out: %s", out);
  }
  runway_string_free(plain);
  runway_string_free(out);
  runway_route_free(NULL);

  /* Refusals: nothing is written. */
  char *untouched = (char *)"untouched";
  runway_route_point sentinel;
  out = untouched;
  points = &sentinel;
  count = 7;
  EXPECT(runway_analyse_route(NULL, ROUTE_GPX, len, &out, NULL, NULL, &count), RUNWAY_ERR_ARGUMENT);
  CHECK(strcmp(runway_last_error(), "route_out is NULL") == 0, "message: %s", runway_last_error());
  EXPECT(runway_analyse_route(NULL, ROUTE_GPX, len, &out, NULL, &points, NULL), RUNWAY_ERR_ARGUMENT);
  CHECK(strcmp(runway_last_error(), "route_len is NULL") == 0, "message: %s", runway_last_error());
  EXPECT(runway_analyse_route(NULL, ROUTE_GPX, len, NULL, NULL, &points, &count), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse_route(NULL, NULL, 0, &out, NULL, &points, &count), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse_route("{\"route\":\"structs\"}", ROUTE_GPX, len, &out, NULL, &points, &count),
         RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse_route("{\"format\":\"gpx\"}", ROUTE_GPX, len - 20, &out, NULL, &points, &count),
         RUNWAY_ERR_INPUT);
  EXPECT(runway_analyse_route(NULL, "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>",
                              63, &out, NULL, &points, &count),
         RUNWAY_ERR_INPUT);
  CHECK(strcmp(runway_last_error(), "no timed points") == 0, "message: %s", runway_last_error());
  CHECK(out == untouched && points == &sentinel && count == 7,
        "a failed runway_analyse_route wrote an output");
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_delivery_threads_reserve_little();   /* first: before any thread's stack or arena exists */
  test_library_info();
  test_formatters();
  test_null_arguments();
  test_run();
  test_analyse();
  test_analyse_route();
  test_concurrent_unsubscribe_and_close();
  test_no_thread_outlives_its_session();
  test_unsubscribe_joins_its_thread();
  test_callback_stack();
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
