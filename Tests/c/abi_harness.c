/*
 * abi_harness.c — the harness of abi_run (declared in abi_run.h): checks and their counters,
 * waits with a deadline, JSON helpers, the counting subscriber, the generated run.
 */
#define _GNU_SOURCE /* pthread_getattr_np */

#include "abi_run.h"

/* ---- Checks ------------------------------------------------------------- */

int g_passed;
int g_failed;

int check_(int ok, const char *file, int line, const char *expr, const char *fmt, ...) {
  if (ok) {
    g_passed++;
    return 1;
  }
  g_failed++;
  fprintf(stderr, "FAIL %s:%d: %s\n      ", file, line, expr);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 0;
}

const char *status_name(runway_status st) {
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
int expect_status_(runway_status got, runway_status want, const char *call, const char *file, int line) {
  const char *msg = runway_last_error();
  int ok = got == want;
  if (ok && want != RUNWAY_OK) ok = msg != NULL && msg[0] != '\0';
  return check_(ok, file, line, call, "got %s, want %s (last_error: \"%s\")", status_name(got),
                status_name(want), msg ? msg : "(NULL)");
}

int close_to(double got, double want, double rel_tol) {
  return fabs(got - want) <= rel_tol * fabs(want);
}

/* ---- Time and waits ------------------------------------------------------ */

void deadline_after(struct timespec *ts, double seconds) {
  clock_gettime(CLOCK_MONOTONIC, ts);
  double whole = floor(seconds);
  ts->tv_sec += (time_t)whole;
  ts->tv_nsec += (long)((seconds - whole) * 1e9);
  if (ts->tv_nsec >= 1000000000L) {
    ts->tv_sec += 1;
    ts->tv_nsec -= 1000000000L;
  }
}

void init_cond_monotonic(pthread_cond_t *cv) {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(cv, &attr);
  pthread_condattr_destroy(&attr);
}

/* Simulated work inside a callback (a slow display), not a wait for an outcome. */
void busy_for_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* ---- JSON helpers -------------------------------------------------------- */

const cJSON *field(const cJSON *obj, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

double num_field(const cJSON *obj, const char *key) {
  const cJSON *v = field(obj, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *str_field(const cJSON *obj, const char *key) {
  const cJSON *v = field(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

int str_is(const char *got, const char *want) { return got && strcmp(got, want) == 0; }

/* The snapshot, parsed; NULL (and a failed check) if it cannot be read. */
cJSON *snapshot(runway_session *s) {
  char *json = NULL;
  if (!EXPECT(runway_snapshot_json(s, &json), RUNWAY_OK)) return NULL;
  cJSON *obj = cJSON_Parse(json);
  CHECK(cJSON_IsObject(obj), "snapshot is not a JSON object: %s", json);
  runway_string_free(json);
  return obj;
}

double snapshot_num(runway_session *s, const char *key) {
  cJSON *obj = snapshot(s);
  double v = obj ? num_field(obj, key) : NAN;
  cJSON_Delete(obj);
  return v;
}

/* ---- Subscribers --------------------------------------------------------- */

void sub_init(sub_t *c, runway_session *s, enum sub_mode mode) {
  memset(c, 0, sizeof *c);
  pthread_mutex_init(&c->mu, NULL);
  init_cond_monotonic(&c->cv);
  c->s = s;
  c->mode = mode;
  c->max_seq = -1;
  c->self_unsub_status = (runway_status)-1;
}

void sub_destroy(sub_t *c) {
  pthread_mutex_destroy(&c->mu);
  pthread_cond_destroy(&c->cv);
}

void on_event(const char *event_json, void *user) {
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

int pred_seq_at_least(const sub_t *c, double seq) { return c->max_seq >= seq; }
int pred_events_at_least(const sub_t *c, double n) { return c->events >= n; }
int pred_close_tried(const sub_t *c, double unused) { (void)unused; return c->close_tried; }
int pred_running(const sub_t *c, double unused) { (void)unused; return c->running; }
int pred_self_unsub_done(const sub_t *c, double unused) {
  (void)unused;
  return c->self_unsub_status != (runway_status)-1;
}

/* Wait (up to WAIT_S) until pred holds for c; 1 if it does. */
int wait_for(sub_t *c, sub_pred pred, double arg) {
  struct timespec deadline;
  deadline_after(&deadline, WAIT_S);
  pthread_mutex_lock(&c->mu);
  int rc = 0;
  while (!pred(c, arg) && rc == 0) rc = pthread_cond_timedwait(&c->cv, &c->mu, &deadline);
  int ok = pred(c, arg);
  pthread_mutex_unlock(&c->mu);
  return ok;
}

long sub_events(sub_t *c) {
  pthread_mutex_lock(&c->mu);
  long n = c->events;
  pthread_mutex_unlock(&c->mu);
  return n;
}

/* The main thread reads a subscriber's counters only under its lock: the delivery thread may be
   handling a later event (a live tick) while the main thread checks. */
double sub_max_seq(sub_t *c) {
  pthread_mutex_lock(&c->mu);
  double v = c->max_seq;
  pthread_mutex_unlock(&c->mu);
  return v;
}

long sub_flights(sub_t *c) {
  pthread_mutex_lock(&c->mu);
  long v = c->flights;
  pthread_mutex_unlock(&c->mu);
  return v;
}

long sub_calls_after_unsub(sub_t *c) {
  pthread_mutex_lock(&c->mu);
  long v = c->calls_after_unsub;
  pthread_mutex_unlock(&c->mu);
  return v;
}

/* Unsubscribe from outside any callback and note that it has returned. */
runway_status unsubscribe_outside(sub_t *c) {
  runway_status st = runway_unsubscribe(c->s, c->id);
  pthread_mutex_lock(&c->mu);
  c->unsub_returned = 1;
  pthread_mutex_unlock(&c->mu);
  return st;
}

/* ---- The generated run ---------------------------------------------------- */

double lat_at(int i) { return LAT0 + i * DLAT; }

void fix_json(char *buf, size_t cap, double t, int pos) {
  snprintf(buf, cap,
           "{\"t\":%.3f,\"lat\":%.7f,\"lon\":%.7f,\"alt\":%.1f,\"speed\":3.0,\"course\":0.0,"
           "\"h_acc\":4.0}",
           t, lat_at(pos), LON0, ALT);
}

runway_fix fix_struct(double t, int pos) {
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
double meridian_arc_m(double lat1_deg, double lat2_deg) {
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
