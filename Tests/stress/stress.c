/*
 * stress.c — concurrency stress test of librunway's C ABI (issue #7, item 3).
 *
 * For N seconds, P host threads push into one session while S subscriber slots
 * subscribe and unsubscribe at random: callback or poll, policy latest or
 * queue, some with a "kinds" filter, some ended from inside their own callback,
 * some from outside, a few by another subscription's callback; poll
 * subscriptions are polled from their slot's own thread, and callbacks now and
 * then call back in (snapshot, poll).
 * Then: every subscription still held is ended, RUNWAY_MAX_SUBSCRIBERS new ones
 * succeed and one more is refused (none was left behind), a last burst of
 * inputs is pushed while those subscriptions receive, the session is stopped
 * and closed, and no callback runs after close returns. Finally the accepted
 * inputs are replayed single-threaded, in time order, into a fresh session, and
 * its summary must equal the stressed session's byte for byte.
 *
 * How "the same accepted inputs" is known without trusting the library: input
 * number k (taken from a shared atomic counter) is a pure function of k, at time
 * t0 + k seconds, on a loop course. A push that arrives after a later-numbered
 * one was accepted is refused (time going backwards, RUNWAY_ERR_INPUT); that is
 * the only refusal allowed, and each one is confirmed by waiting (bounded) for
 * some k' > k to be reported accepted. The accepted inputs therefore went in in
 * increasing k, so replaying them sorted by k must give the same flight.
 *
 * Checks, each a failure with a message (exit 1): unexpected statuses anywhere,
 * a refusal that is not "time going backwards", a queue-policy subscription
 * without a "kinds" filter whose seq is not consecutive (a gap, or an overflow
 * event: queues here hold RUNWAY_MAX_QUEUE_CAPACITY), seq not increasing for any
 * subscription, an event of a kind the subscription filtered out, a callback
 * after its unsubscribe returned (outside) or after it unsubscribed itself
 * (inside), a callback running when runway_session_close() returned or after,
 * every subscription made was ended exactly once, the subscriber limit, and the
 * replayed summary. A watchdog thread exits 2,
 * naming the phase, if the run exceeds its duration + --watchdog seconds or no
 * progress counter moves for 20 s (a deadlock).
 *
 * Usage: stress [--seconds N] [--seed S] [--pushers 8] [--subscribers 64]
 *               [--pace-us U] [--watchdog W] [--final-pushes F]
 *               [--queue-capacity N] [--replay-drop 1] [--hang-control 1] [--stall S]
 *               (negative controls, see below)
 * Prints one line of figures; exit 0 = passed, 1 = a check failed, 2 = hung.
 * Built and run by Tests/stress/run.sh.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "runway.h"

/* ---- Settings ------------------------------------------------------------ */

static double g_seconds = 10;
static uint64_t g_seed = 1;
static int g_pushers = 8;
static int g_slots = 64;
static long g_pace_us = 100;    /* pause of each pusher between two pushes */
static double g_watchdog = 60;  /* slack beyond --seconds before the watchdog fires */

static const double T0 = 1700000000.0;
/* Alerts (pace band, heart-rate ceiling) and auto-laps give every kind of
 * event but "tick" (replay clock) something to do. A route point every 20 m:
 * input k is about 3k m along the course, so the route holds at most about
 * 0.15 points per input number, far below RUNWAY_MAX_ROUTE_POINTS within the
 * input cap in main() (a full route would refuse fixes with RUNWAY_ERR_LIMIT). */
static const char *CONFIG =
    "{\"target_pace\":{\"min\":5.0,\"max\":5.5},\"hr_ceiling\":170,\"distance_filter_m\":20}";
static int g_final_pushes = 2000;  /* single-threaded pushes after the stress */
/* Negative controls, to show the checks can fail (run.sh runs both):
 * --queue-capacity N  queue subscriptions of the stress get N instead of the maximum: overflow
 *                     events follow, which the gap check must report;
 * --replay-drop 1     the replay leaves out one accepted input: the summaries must differ. */
static int g_queue_capacity = RUNWAY_MAX_QUEUE_CAPACITY;
static bool g_replay_drop = false;
/* --hang-control 1: the first callback subscription of the limit check never returns from its
 * callback, so runway_session_close() waits forever: the watchdog must fire (exit 2).
 * --stall S: the watchdog's no-progress window (default 20 s). */
static bool g_hang_control = false;
static double g_stall = 20;
static void *g_hang_user;
static atomic_bool g_hang_started; /* the hanging callback is running: close must wait on it */

/* ---- Failures and progress ----------------------------------------------- */

static atomic_int g_failures;
static atomic_uint_fast64_t g_progress;   /* moves on every push, event, subscribe, step */
static _Atomic(const char *) g_phase = "setup";

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
  int n = atomic_fetch_add(&g_failures, 1);
  if (n >= 20) return;  /* the first 20 say enough */
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "stress: FAIL [%s] %s\n", atomic_load(&g_phase), msg);
}

static void phase(const char *name) {
  atomic_store(&g_phase, name);
  atomic_fetch_add(&g_progress, 1);
}

static const char *status_name(runway_status st) {
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
static bool expect(runway_status st, runway_status want, const char *what) {
  if (st == want) return true;
  fail("%s: %s, want %s (%s)", what, status_name(st), status_name(want), runway_last_error());
  return false;
}

/* ---- Time and randomness ------------------------------------------------- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static uint64_t splitmix(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t *state, uint64_t n) { return splitmix(state) % n; }

/* ---- Inputs: number k is a pure function of k ---------------------------- */

enum { IN_FIX_STRUCT, IN_FIX_JSON, IN_FIX_JSON_HR, IN_HR_JSON, IN_KINDS };

/* Which call input k goes through: half by struct, the rest JSON, some samples. */
static int input_kind(uint64_t k) {
  switch (k % 10) {
  case 0: case 2: case 4: case 6: case 8: return IN_FIX_STRUCT;
  case 1: case 5: return IN_FIX_JSON;
  case 3: case 7: return IN_FIX_JSON_HR;
  default: return IN_HR_JSON;
  }
}

/* The runner at second k: a 2 km loop (a circle), speed 3 m/s ± 0.3 m/s
 * (slowly varying, so the pace band alerts now and then). Distance along the
 * loop is the closed-form integral of the speed. */
static void make_fix(uint64_t k, runway_fix *f) {
  const double R = 2000.0 / (2 * M_PI), lat0 = 52.0, lon0 = 4.0, m_per_deg = 111320.0;
  double x = (double)k;
  double s = 3.0 * x - 0.3 * 37.0 * (cos(x / 37.0) - 1.0);
  double th = s / R;
  f->t = T0 + x;
  f->lat = lat0 + R * sin(th) / m_per_deg;
  f->lon = lon0 + R * (1.0 - cos(th)) / (m_per_deg * cos(lat0 * M_PI / 180.0));
  f->alt = 10.0 + 5.0 * sin(s / 500.0);
  f->speed = k % 13 == 0 ? NAN : 3.0 + 0.3 * sin(x / 37.0);
  f->course = fmod(th * 180.0 / M_PI, 360.0);
  f->h_acc = 4.0 + (double)(k % 7);
  f->v_acc = k % 3 == 0 ? NAN : 6.0;
}

static double make_bpm(uint64_t k) { return floor(150.0 + 30.0 * sin((double)k / 300.0)); }

/* Pushes input k; returns the status. *kind receives which call was used. */
static runway_status push_input(runway_session *s, uint64_t k, int *kind) {
  runway_fix f;
  make_fix(k, &f);
  char buf[512];
  *kind = input_kind(k);
  switch (*kind) {
  case IN_FIX_STRUCT:
    return runway_push_fix(s, &f);
  case IN_FIX_JSON:
  case IN_FIX_JSON_HR: {
    int n = snprintf(buf, sizeof buf, "{\"t\":%.17g,\"lat\":%.17g,\"lon\":%.17g,\"alt\":%.17g,", f.t,
                     f.lat, f.lon, f.alt);
    n += isnan(f.speed) ? snprintf(buf + n, sizeof buf - (size_t)n, "\"speed\":null,")
                        : snprintf(buf + n, sizeof buf - (size_t)n, "\"speed\":%.17g,", f.speed);
    n += snprintf(buf + n, sizeof buf - (size_t)n, "\"course\":%.17g,\"h_acc\":%.17g", f.course,
                  f.h_acc);
    if (!isnan(f.v_acc)) n += snprintf(buf + n, sizeof buf - (size_t)n, ",\"v_acc\":%.17g", f.v_acc);
    if (*kind == IN_FIX_JSON_HR)
      n += snprintf(buf + n, sizeof buf - (size_t)n, ",\"hr\":%.0f,\"cadence\":%d", make_bpm(k),
                    170 + (int)(k % 9));
    snprintf(buf + n, sizeof buf - (size_t)n, "}");
    return runway_push_json(s, buf);
  }
  default:
    snprintf(buf, sizeof buf, "{\"type\":\"hr\",\"bpm\":%.0f,\"t\":%.17g}", make_bpm(k), f.t);
    return runway_push_json(s, buf);
  }
}

/* ---- Pushers --------------------------------------------------------------- */

enum { K_UNSET = 0, K_ACCEPTED = 1, K_REFUSED = 2 };

static runway_session *g_session;
static atomic_uint_fast64_t g_next_k;     /* the next input number to take */
static uint64_t g_k_cap;                  /* size of g_outcome; pushers stop there */
static _Atomic uint8_t *g_outcome;        /* per k: K_ACCEPTED or K_REFUSED */
static atomic_uint_fast64_t g_hi_accepted_plus1;  /* 1 + the highest k reported accepted */
static atomic_bool g_stop_pushers;
static atomic_bool g_stop_slots;
static atomic_bool g_cap_reached;

struct pusher_stats {
  uint64_t attempted, accepted, refused, by_kind[IN_KINDS];
  double max_refusal_wait_s;
};

static void *pusher_main(void *arg) {
  struct pusher_stats *st = arg;
  while (!atomic_load(&g_stop_pushers)) {
    uint64_t k = atomic_fetch_add(&g_next_k, 1);
    if (k >= g_k_cap) {
      atomic_store(&g_cap_reached, true);
      break;
    }
    int kind;
    runway_status rc = push_input(g_session, k, &kind);
    st->attempted++;
    st->by_kind[kind]++;
    atomic_fetch_add_explicit(&g_progress, 1, memory_order_relaxed);
    if (rc == RUNWAY_OK) {
      st->accepted++;
      atomic_store(&g_outcome[k], K_ACCEPTED);
      uint_fast64_t hi = atomic_load(&g_hi_accepted_plus1);
      while (hi < k + 1 && !atomic_compare_exchange_weak(&g_hi_accepted_plus1, &hi, k + 1)) {}
    } else {
      st->refused++;
      atomic_store(&g_outcome[k], K_REFUSED);
      const char *msg = runway_last_error();
      if (rc != RUNWAY_ERR_INPUT || strstr(msg, "time going backwards") == NULL) {
        fail("push of input %" PRIu64 " refused with %s (%s): the only refusal expected is "
             "ERR_INPUT \"time going backwards\"", k, status_name(rc), msg);
        continue;
      }
      /* The library saw a later input first: its pusher must report it accepted. */
      double start = now_s(), waited = 0;
      while (atomic_load(&g_hi_accepted_plus1) <= k + 1) {
        waited = now_s() - start;
        if (waited > 10) {
          fail("input %" PRIu64 " refused as time going backwards, but no later input was "
               "accepted within 10 s", k);
          break;
        }
        sched_yield();
      }
      if (waited > st->max_refusal_wait_s) st->max_refusal_wait_s = waited;
    }
    if (g_pace_us > 0) sleep_us(g_pace_us);
  }
  return NULL;
}

/* ---- Subscriptions ------------------------------------------------------------ */

enum { KIND_FLIGHT = 1, KIND_PHASE = 2, KIND_TICK = 4, KIND_LOG = 8, KIND_SPLIT = 16,
       KIND_ALERT = 32, KIND_OVERFLOW = 64, ALL_KINDS = 63 };
static const char *const KIND_NAMES[] = {"flight", "phase", "tick", "log", "split", "alert",
                                         "overflow"};

static int kind_bit(const char *json) {
  static const char prefix[] = "{\"kind\":\"";
  if (strncmp(json, prefix, sizeof prefix - 1) != 0) return 0;
  const char *p = json + sizeof prefix - 1;
  for (int i = 0; i < 7; i++) {
    size_t n = strlen(KIND_NAMES[i]);
    if (strncmp(p, KIND_NAMES[i], n) == 0 && p[n] == '"') return 1 << i;
  }
  return 0;
}

/* How a subscription ends. */
enum { END_OUTSIDE, END_INSIDE, END_POLL };
/* Its state, changed by compare-and-swap: whoever moves it from LIVE ends it. */
enum { ST_LIVE, ST_ENDING_OUTSIDE, ST_ENDED_OUTSIDE, ST_ENDED_INSIDE, ST_ENDED_BY_OTHER };

/* One subscription's `user`. Kept (in a graveyard list) until the session is
 * closed: the header lets the library use `user` until runway_unsubscribe()
 * from outside or runway_session_close() has returned, and keeping it lets a
 * late callback be detected instead of being a use-after-free. */
struct sub {
  struct sub *next_dead;
  atomic_uint_fast64_t id;    /* 0 until runway_subscribe returned */
  atomic_int state;
  int end;                    /* END_* */
  bool queue;                 /* policy "queue" */
  int kinds;                  /* KIND_* bits asked for */
  double self_end_at;         /* END_INSIDE: unsubscribe in the first callback after this */
  /* Written only by this subscription's consumer (its callback, never
   * concurrently with itself, or its poll thread). */
  uint64_t last_seq;
  uint64_t events;
};

static pthread_mutex_t g_dead_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sub *g_dead;

static void bury(struct sub *s) {
  pthread_mutex_lock(&g_dead_lock);
  s->next_dead = g_dead;
  g_dead = s;
  pthread_mutex_unlock(&g_dead_lock);
}

/* The subscription each slot holds (NULL between two), for callbacks that end another one. */
static _Atomic(struct sub *) *g_current;

static atomic_bool g_closed;                 /* set once runway_session_close returned */
static atomic_bool g_closing;                /* set just before runway_session_close is called */
static atomic_int g_callbacks_running;
static atomic_uint_fast64_t g_subscribes, g_unsub_inside, g_unsub_outside, g_unsub_fallback,
    g_polls, g_events_cb, g_events_poll, g_overflow_latest, g_max_backlog, g_nested_calls,
    g_unsub_other;

static void atomic_max(atomic_uint_fast64_t *a, uint64_t v) {
  uint_fast64_t cur = atomic_load(a);
  while (cur < v && !atomic_compare_exchange_weak(a, &cur, v)) {}
}

/* Checks one event of subscription s. */
static void check_event(struct sub *s, const char *json) {
  int bit = kind_bit(json);
  const char *p = strstr(json, "\"seq\":");
  if (bit == 0 || p == NULL) {
    fail("subscription %" PRIu64 ": event without a known kind or a seq: %.200s",
         (uint64_t)atomic_load(&s->id), json);
    return;
  }
  uint64_t seq = strtoull(p + 6, NULL, 10);
  s->events++;
  if (bit == KIND_OVERFLOW) {
    if (s->queue)
      fail("subscription %" PRIu64 " (queue, capacity %d): overflow event %s",
           (uint64_t)atomic_load(&s->id), g_queue_capacity, json);
    else
      atomic_fetch_add(&g_overflow_latest, 1);
  } else if ((bit & s->kinds) == 0) {
    fail("subscription %" PRIu64 " asked for kinds 0x%x but got: %.200s",
         (uint64_t)atomic_load(&s->id), s->kinds, json);
  }
  /* Every event has a seq that increases per session. Gap-free applies only to
   * queue subscriptions of all kinds: one with a "kinds" filter skips the seqs
   * of the kinds it did not ask for, and a "latest" one coalesces snapshots. */
  if (s->last_seq != 0) {
    if (s->queue && s->kinds == ALL_KINDS && seq != s->last_seq + 1)
      fail("subscription %" PRIu64 " (queue, all kinds): seq %" PRIu64 " after %" PRIu64
           " (a gap)", (uint64_t)atomic_load(&s->id), seq, s->last_seq);
    else if (seq <= s->last_seq)
      fail("subscription %" PRIu64 ": seq %" PRIu64 " after %" PRIu64 " (not increasing)",
           (uint64_t)atomic_load(&s->id), seq, s->last_seq);
  }
  s->last_seq = seq;
  atomic_fetch_add_explicit(&g_progress, 1, memory_order_relaxed);
}

static void on_event(const char *json, void *user) {
  struct sub *s = user;
  atomic_fetch_add(&g_callbacks_running, 1);
  if (atomic_load(&g_closed)) fail("a callback ran after runway_session_close() returned");
  int st = atomic_load(&s->state);
  if (st == ST_ENDED_OUTSIDE)
    fail("subscription %" PRIu64 ": callback after runway_unsubscribe() returned",
         (uint64_t)atomic_load(&s->id));
  if (st == ST_ENDED_INSIDE)
    fail("subscription %" PRIu64 ": callback after it unsubscribed itself",
         (uint64_t)atomic_load(&s->id));
  check_event(s, json);
  atomic_fetch_add_explicit(&g_events_cb, 1, memory_order_relaxed);
  if (g_hang_control && user == g_hang_user) { /* a callback that hangs */
    atomic_store(&g_hang_started, true);
    for (;;) sleep_us(100000);
  }

  /* Now and then call back into the library, as the header allows. */
  if (s->events % 64 == 0) {
    char *snap = NULL;
    expect(runway_snapshot_json(g_session, &snap), RUNWAY_OK, "snapshot in a callback");
    runway_string_free(snap);
    uint64_t id = atomic_load(&s->id);
    char *none = NULL;
    if (id != 0) {
      runway_status rc = runway_poll(g_session, id, &none);
      /* NOT_FOUND is right once its slot, or another slot's callback, has begun to
       * unsubscribe it (the state changes before runway_unsubscribe is called), or once
       * runway_session_close has begun: close ends every subscription before it waits for the
       * callbacks still running. */
      int now_st = atomic_load(&s->state);
      if (!(rc == RUNWAY_ERR_NOT_FOUND &&
            (now_st == ST_ENDING_OUTSIDE || now_st == ST_ENDED_BY_OTHER || atomic_load(&g_closing))))
        expect(rc, RUNWAY_ERR_ARGUMENT, "poll of a callback subscription");
    }
    atomic_fetch_add(&g_nested_calls, 1);
  }

  /* About one event in 2000 ends another slot's subscription from inside this
   * callback (allowed by the header; it does not wait for that one's callback).
   * Records are never freed before close, so a stale pointer is still safe. */
  uint64_t h = (s->last_seq * 0x9e3779b97f4a7c15u) >> 32;
  if (g_current != NULL && h % 2000 == 0) {
    struct sub *other = atomic_load(&g_current[(h / 2000) % (uint64_t)g_slots]);
    int live = ST_LIVE;
    if (other != NULL && other != s &&
        atomic_compare_exchange_strong(&other->state, &live, ST_ENDED_BY_OTHER)) {
      expect(runway_unsubscribe(g_session, atomic_load(&other->id)), RUNWAY_OK,
             "runway_unsubscribe of another subscription inside a callback");
      atomic_fetch_add(&g_unsub_other, 1);
    }
  }

  if (s->end == END_INSIDE && now_s() >= s->self_end_at) {
    uint64_t id = atomic_load(&s->id);
    int live = ST_LIVE;
    if (id != 0 && atomic_compare_exchange_strong(&s->state, &live, ST_ENDED_INSIDE)) {
      /* From here on, `s` is not touched: its slot moves on. */
      runway_status rc = runway_unsubscribe(g_session, id);
      expect(rc, RUNWAY_OK, "runway_unsubscribe inside the callback");
      atomic_fetch_add(&g_unsub_inside, 1);
    }
  }
  atomic_fetch_sub(&g_callbacks_running, 1);
}

/* Drains a poll subscription; returns how many events it took. */
static uint64_t drain(struct sub *s) {
  uint64_t n = 0;
  for (;;) {
    char *ev = NULL;
    runway_status rc = runway_poll(g_session, atomic_load(&s->id), &ev);
    atomic_fetch_add_explicit(&g_polls, 1, memory_order_relaxed);
    /* A callback of another slot may have ended it (its state changes first). */
    if (rc == RUNWAY_ERR_NOT_FOUND && atomic_load(&s->state) == ST_ENDED_BY_OTHER) break;
    if (!expect(rc, RUNWAY_OK, "runway_poll") || ev == NULL) break;
    check_event(s, ev);
    runway_string_free(ev);
    n++;
  }
  atomic_fetch_add_explicit(&g_events_poll, n, memory_order_relaxed);
  atomic_max(&g_max_backlog, n);
  return n;
}

/* Picks random options; writes them to buf and fills s. */
static void random_options(uint64_t *rng, struct sub *s, char *buf, size_t cap) {
  s->queue = rnd(rng, 2) == 0;
  s->kinds = ALL_KINDS;
  int n = snprintf(buf, cap, "{\"policy\":\"%s\"", s->queue ? "queue" : "latest");
  if (s->queue) n += snprintf(buf + n, cap - (size_t)n, ",\"capacity\":%d", g_queue_capacity);
  if (rnd(rng, 4) == 0) {  /* a small "kinds" filter: one to three kinds */
    s->kinds = 0;
    int want = 1 + (int)rnd(rng, 3);
    while (__builtin_popcount((unsigned)s->kinds) < want) s->kinds |= 1 << rnd(rng, 6);
    n += snprintf(buf + n, cap - (size_t)n, ",\"kinds\":[");
    const char *sep = "";
    for (int i = 0; i < 6; i++)
      if (s->kinds & (1 << i)) {
        n += snprintf(buf + n, cap - (size_t)n, "%s\"%s\"", sep, KIND_NAMES[i]);
        sep = ",";
      }
    n += snprintf(buf + n, cap - (size_t)n, "]");
  }
  snprintf(buf + n, cap - (size_t)n, "}");
}

/* Ends s from outside (unless its callback ended it first). */
static void end_outside(struct sub *s) {
  int live = ST_LIVE;
  if (!atomic_compare_exchange_strong(&s->state, &live, ST_ENDING_OUTSIDE)) return;
  expect(runway_unsubscribe(g_session, atomic_load(&s->id)), RUNWAY_OK, "runway_unsubscribe");
  atomic_store(&s->state, ST_ENDED_OUTSIDE);
  atomic_fetch_add(&g_unsub_outside, 1);
  if (s->end == END_POLL) {  /* a poll of an ended subscription finds nothing to poll */
    char *ev = NULL;
    expect(runway_poll(g_session, atomic_load(&s->id), &ev), RUNWAY_ERR_NOT_FOUND,
           "runway_poll after unsubscribe");
    runway_string_free(ev);
  }
}

/* Sleeps until t or until the slots are told to stop. */
static void live_until(double t) {
  while (!atomic_load(&g_stop_slots) && now_s() < t) sleep_us(1000);
}

static void *slot_main(void *arg) {
  uintptr_t slot = (uintptr_t)arg;
  uint64_t rng = g_seed * 1000003u + (uint64_t)slot;
  char opts[160];
  while (!atomic_load(&g_stop_slots)) {
    struct sub *s = calloc(1, sizeof *s);
    if (s == NULL) { fail("out of memory"); return NULL; }
    random_options(&rng, s, opts, sizeof opts);
    int how = (int)rnd(&rng, 10);
    s->end = how < 3 ? END_POLL : how < 7 ? END_INSIDE : END_OUTSIDE;
    double life = 0.001 * (double)(1 + rnd(&rng, 300));  /* 1..300 ms */
    double born = now_s();
    s->self_end_at = born + life;
    uint64_t id = 0;
    runway_status rc = runway_subscribe(g_session, opts, s->end == END_POLL ? NULL : on_event, s, &id);
    if (!expect(rc, RUNWAY_OK, "runway_subscribe")) { free(s); sleep_us(10000); continue; }
    if (id == 0) fail("runway_subscribe gave id 0");
    atomic_store(&s->id, id);
    atomic_store(&g_current[slot], s);
    atomic_fetch_add(&g_subscribes, 1);
    atomic_fetch_add_explicit(&g_progress, 1, memory_order_relaxed);
    switch (s->end) {
    case END_POLL:
      while (!atomic_load(&g_stop_slots) && now_s() < born + life &&
             atomic_load(&s->state) == ST_LIVE) {
        drain(s);
        sleep_us(500 + (long)rnd(&rng, 1500));
      }
      drain(s);
      end_outside(s);
      break;
    case END_INSIDE:
      /* The callback ends it at its first event after `life`; a subscription
       * whose kinds are rare may see none, so after a grace it is ended here. */
      while (!atomic_load(&g_stop_slots) && atomic_load(&s->state) == ST_LIVE &&
             now_s() < born + life + 0.5)
        sleep_us(1000);
      if (atomic_load(&s->state) == ST_LIVE) {
        end_outside(s);
        if (atomic_load(&s->state) == ST_ENDED_OUTSIDE) atomic_fetch_add(&g_unsub_fallback, 1);
      }
      break;
    default:
      live_until(born + life);
      end_outside(s);
      break;
    }
    atomic_store(&g_current[slot], NULL);
    bury(s);
  }
  return NULL;
}

/* ---- Watchdog ---------------------------------------------------------------- */

static double g_deadline;
static atomic_bool g_done;  /* the run is over: the watchdog returns */

static void *watchdog_main(void *arg) {
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

/* ---- Main ---------------------------------------------------------------------- */

static long max_rss_kib(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

static char *summary_of(runway_session *s, const char *which) {
  char *out = NULL;
  if (!expect(runway_summary_json(s, &out), RUNWAY_OK, which)) return NULL;
  return out;
}

static void usage(void) {
  fprintf(stderr, "usage: stress [--seconds N] [--seed S] [--pushers P] [--subscribers S] "
                  "[--pace-us U] [--watchdog W] [--final-pushes F]\n"
                  "              [--queue-capacity N] [--replay-drop 0|1] [--hang-control 0|1] [--stall S]\n");
  exit(64);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) usage();
    const char *a = argv[i], *v = argv[++i];
    char *end;
    double x = strtod(v, &end);
    if (*end != '\0' || !(x >= 0)) usage();
    if (strcmp(a, "--seconds") == 0) g_seconds = x;
    else if (strcmp(a, "--seed") == 0) g_seed = (uint64_t)x;
    else if (strcmp(a, "--pushers") == 0 && x >= 1 && x <= 256) g_pushers = (int)x;
    else if (strcmp(a, "--subscribers") == 0 && x <= 1024) g_slots = (int)x;
    else if (strcmp(a, "--pace-us") == 0) g_pace_us = (long)x;
    else if (strcmp(a, "--watchdog") == 0) g_watchdog = x;
    else if (strcmp(a, "--final-pushes") == 0) g_final_pushes = (int)x;
    else if (strcmp(a, "--queue-capacity") == 0 && x >= 1 && x <= RUNWAY_MAX_QUEUE_CAPACITY)
      g_queue_capacity = (int)x;
    else if (strcmp(a, "--replay-drop") == 0) g_replay_drop = x != 0;
    else if (strcmp(a, "--hang-control") == 0) g_hang_control = x != 0;
    else if (strcmp(a, "--stall") == 0 && x > 0) g_stall = x;
    else usage();
  }
  if (g_slots + 1 > RUNWAY_MAX_SUBSCRIBERS) {
    fprintf(stderr, "stress: at most %d subscribers\n", RUNWAY_MAX_SUBSCRIBERS - 1);
    return 64;
  }

  /* Room for 200 000 inputs a second (far above what the library takes here),
   * but at most 4 RUNWAY_MAX_ROUTE_POINTS inputs (about 0.6 of the route limit,
   * see CONFIG). */
  double cap = (g_seconds + 1) * 200000;
  if (cap > 4.0 * RUNWAY_MAX_ROUTE_POINTS) cap = 4.0 * RUNWAY_MAX_ROUTE_POINTS;
  g_k_cap = (uint64_t)cap + (uint64_t)g_final_pushes;
  g_outcome = calloc(g_k_cap, 1);
  if (g_outcome == NULL) { fprintf(stderr, "stress: out of memory\n"); return 1; }

  double started = now_s();
  g_deadline = started + g_seconds + g_watchdog;
  pthread_t dog;
  pthread_create(&dog, NULL, watchdog_main, NULL);

  phase("open and start");
  runway_session *s = NULL;
  if (!expect(runway_session_open(CONFIG, &s), RUNWAY_OK, "runway_session_open")) return 1;
  g_session = s;
  expect(runway_start(s, T0), RUNWAY_OK, "runway_start");

  phase("stress: pushers and subscribers running");
  pthread_t *pushers = calloc((size_t)g_pushers, sizeof *pushers);
  pthread_t *slots = calloc((size_t)g_slots, sizeof *slots);
  struct pusher_stats *pst = calloc((size_t)g_pushers, sizeof *pst);
  g_current = calloc((size_t)g_slots + 1, sizeof *g_current);
  if (!pushers || !slots || !pst || !g_current) { fprintf(stderr, "stress: out of memory\n"); return 1; }
  for (int i = 0; i < g_slots; i++)
    pthread_create(&slots[i], NULL, slot_main, (void *)(uintptr_t)i);
  for (int i = 0; i < g_pushers; i++) pthread_create(&pushers[i], NULL, pusher_main, &pst[i]);
  while (now_s() < started + g_seconds && atomic_load(&g_failures) == 0) sleep_us(50000);

  phase("joining pushers");
  atomic_store(&g_stop_pushers, true);
  for (int i = 0; i < g_pushers; i++) pthread_join(pushers[i], NULL);
  double stress_s = now_s() - started;
  phase("joining subscriber slots (each ends the subscription it holds)");
  atomic_store(&g_stop_slots, true);
  for (int i = 0; i < g_slots; i++) pthread_join(slots[i], NULL);

  {
    uint64_t sub = atomic_load(&g_subscribes), ended = atomic_load(&g_unsub_inside) +
        atomic_load(&g_unsub_outside) + atomic_load(&g_unsub_other);
    if (sub != ended)
      fail("%" PRIu64 " subscriptions made but %" PRIu64 " ended", sub, ended);
  }

  /* None left behind: the session takes exactly the maximum again. Half of
   * them are queue callbacks of all kinds (gap-checked through the final
   * pushes and the stop), a quarter polls, a quarter latest callbacks. */
  phase("subscriber limit");
  struct sub *limit[RUNWAY_MAX_SUBSCRIBERS];
  for (int i = 0; i < RUNWAY_MAX_SUBSCRIBERS; i++) {
    struct sub *x = calloc(1, sizeof *x);
    if (x == NULL) { fprintf(stderr, "stress: out of memory\n"); return 1; }
    x->kinds = ALL_KINDS;
    x->queue = i % 4 != 3;
    x->end = i % 4 == 2 ? END_POLL : END_OUTSIDE;  /* none ends itself: close ends them */
    char opts[96];
    snprintf(opts, sizeof opts, "{\"policy\":\"%s\",\"capacity\":%d}", x->queue ? "queue" : "latest",
             RUNWAY_MAX_QUEUE_CAPACITY);
    uint64_t id = 0;
    runway_status rc = runway_subscribe(s, opts, x->end == END_POLL ? NULL : on_event, x, &id);
    if (!expect(rc, RUNWAY_OK, "subscription within RUNWAY_MAX_SUBSCRIBERS after the stress")) {
      fail("only %d of %d subscriptions accepted after every stress subscription ended: "
           "subscriptions were left behind", i, RUNWAY_MAX_SUBSCRIBERS);
      free(x);
      return 1;
    }
    atomic_store(&x->id, id);
    if (i == 0) g_hang_user = x;
    limit[i] = x;
    bury(x);
    atomic_fetch_add(&g_progress, 1); /* each subscription made is progress (192 new threads) */
  }
  {
    uint64_t id = 0;
    expect(runway_subscribe(s, NULL, NULL, NULL, &id), RUNWAY_ERR_LIMIT,
           "subscription number RUNWAY_MAX_SUBSCRIBERS + 1");
  }

  phase("final pushes");
  uint64_t final_accepted = 0;
  for (int i = 0; i < g_final_pushes; i++) {
    uint64_t k = atomic_fetch_add(&g_next_k, 1);
    if (k >= g_k_cap) break;
    int kind;
    /* One thread now: nothing can be out of order. */
    if (expect(push_input(s, k, &kind), RUNWAY_OK, "single-threaded push after the stress")) {
      atomic_store(&g_outcome[k], K_ACCEPTED);
      final_accepted++;
    } else {
      atomic_store(&g_outcome[k], K_REFUSED);
    }
    atomic_fetch_add(&g_progress, 1);
    if (i % 256 == 0)
      for (int j = 2; j < RUNWAY_MAX_SUBSCRIBERS; j += 4) drain(limit[j]);
  }
  uint64_t k_end = atomic_load(&g_next_k);
  if (k_end > g_k_cap) k_end = g_k_cap;
  double t_stop = T0 + (double)k_end;
  expect(runway_stop(s, t_stop), RUNWAY_OK, "runway_stop");
  for (int j = 2; j < RUNWAY_MAX_SUBSCRIBERS; j += 4) drain(limit[j]);
  char *stressed = summary_of(s, "summary of the stressed session");

  /* The hang control closes only once its callback runs: a close that comes first may end the
   * subscription with its events undelivered (as it should), and then nothing hangs. */
  if (g_hang_control) {
    phase("waiting for the hanging callback to start");
    for (int ms = 0; !atomic_load(&g_hang_started); ms++) {
      if (ms == 30000) {
        fprintf(stderr, "stress: the hang control's callback did not start within 30 s\n");
        return 1;
      }
      if (ms % 1000 == 0) atomic_fetch_add(&g_progress, 1); /* waiting is progress */
      sleep_us(1000);
    }
  }
  /* Close while the callback subscriptions may still have events queued. */
  phase("close");
  atomic_store(&g_closing, true);
  runway_session_close(s);
  atomic_store(&g_closed, true);
  int running = atomic_load(&g_callbacks_running);
  if (running != 0) fail("%d callback(s) still running when runway_session_close() returned", running);
  /* Any callback from here on fails in on_event; give a stray one time to show. */
  sleep_us(200000);

  phase("single-threaded replay");
  uint64_t accepted_total = 0, refused_total = 0;
  runway_session *r = NULL;
  char *replayed = NULL;
  if (expect(runway_session_open(CONFIG, &r), RUNWAY_OK, "open the replay session")) {
    expect(runway_start(r, T0), RUNWAY_OK, "runway_start (replay)");
    for (uint64_t k = 0; k < k_end; k++) {
      uint8_t o = atomic_load(&g_outcome[k]);
      if (o == K_REFUSED) refused_total++;
      if (o != K_ACCEPTED) continue;
      accepted_total++;
      if (g_replay_drop && accepted_total == 1000) continue;
      int kind;
      runway_status rc = push_input(r, k, &kind);
      if (rc != RUNWAY_OK) {
        fail("replay: input %" PRIu64 " accepted under stress is refused in time order: %s (%s)",
             k, status_name(rc), runway_last_error());
        break;
      }
      if (k % 4096 == 0) atomic_fetch_add(&g_progress, 1);
    }
    expect(runway_stop(r, t_stop), RUNWAY_OK, "runway_stop (replay)");
    replayed = summary_of(r, "summary of the replay");
    runway_session_close(r);
  }
  size_t summary_bytes = stressed ? strlen(stressed) : 0;
  bool identical = stressed && replayed && strcmp(stressed, replayed) == 0;
  if (stressed && replayed && !identical) {
    size_t i = 0;
    while (stressed[i] && stressed[i] == replayed[i]) i++;
    size_t from = i > 80 ? i - 80 : 0;
    fail("the stressed session's summary (%zu bytes) differs from the single-threaded replay's "
         "(%zu bytes) at byte %zu:\n  stressed: ...%.160s\n  replayed: ...%.160s",
         strlen(stressed), strlen(replayed), i, stressed + from, replayed + from);
  }
  const char *fixes_p = stressed ? strstr(stressed, "\"fixes\":") : NULL;
  long fixes = fixes_p ? strtol(fixes_p + 8, NULL, 10) : -1;
  const char *points_p = stressed ? strstr(stressed, "\"points\":") : NULL;
  long points = points_p ? strtol(points_p + 9, NULL, 10) : -1;
  runway_string_free(stressed);
  runway_string_free(replayed);

  /* Figures. */
  struct pusher_stats tot = {0};
  for (int i = 0; i < g_pushers; i++) {
    tot.attempted += pst[i].attempted;
    tot.accepted += pst[i].accepted;
    tot.refused += pst[i].refused;
    for (int j = 0; j < IN_KINDS; j++) tot.by_kind[j] += pst[i].by_kind[j];
    if (pst[i].max_refusal_wait_s > tot.max_refusal_wait_s) tot.max_refusal_wait_s = pst[i].max_refusal_wait_s;
  }
  if (accepted_total != tot.accepted + final_accepted || refused_total != tot.refused)
    fail("bookkeeping: %" PRIu64 " accepted / %" PRIu64 " refused recorded, pushers counted %" PRIu64
         " / %" PRIu64, accepted_total, refused_total, tot.accepted + final_accepted, tot.refused);
  if (atomic_load(&g_cap_reached))
    fprintf(stderr, "stress: note: pushers reached the input cap (%" PRIu64 ")\n", g_k_cap);

  while (g_dead) {  /* every record: the session is closed, none is used any more */
    struct sub *d = g_dead;
    g_dead = d->next_dead;
    free(d);
  }
  free(g_outcome);
  free(pushers);
  free(slots);
  free(pst);
  free((void *)g_current);
  atomic_store(&g_done, true);
  pthread_join(dog, NULL);  /* so that no thread of ours is alive at exit (valgrind) */

  int failures = atomic_load(&g_failures);
  printf("stress: %s in %.1f s (stress %.1f s, seed %" PRIu64 ", %d pushers, %d subscriber slots, "
         "pace %ld us): pushes attempted %" PRIu64 " accepted %" PRIu64 " refused %" PRIu64
         " (struct %" PRIu64 ", json fix %" PRIu64 ", json fix+hr %" PRIu64 ", json hr %" PRIu64
         "; max wait to confirm a refusal %.3f s) + %" PRIu64 " single-threaded; fixes %ld, route points %ld in the summary;"
         " events delivered %" PRIu64 " (callback %" PRIu64 ", poll %" PRIu64 "); subscribes %" PRIu64
         " (+%d limit check); unsubscribes inside callbacks %" PRIu64 ", outside %" PRIu64
         " (of which %" PRIu64 " self-ending ones that saw no event in time), of another subscription"
         " inside a callback %" PRIu64 "; polls %" PRIu64
         "; callbacks calling back in %" PRIu64 "; overflow events on latest subscriptions %" PRIu64
         "; most events taken in one poll drain %" PRIu64 "; max RSS %ld KiB; summary %zu bytes, replay %s\n",
         failures ? "FAILED" : "ok", now_s() - started, stress_s, g_seed, g_pushers, g_slots,
         g_pace_us, tot.attempted, tot.accepted, tot.refused, tot.by_kind[IN_FIX_STRUCT],
         tot.by_kind[IN_FIX_JSON], tot.by_kind[IN_FIX_JSON_HR], tot.by_kind[IN_HR_JSON],
         tot.max_refusal_wait_s, final_accepted, fixes, points,
         (uint64_t)(atomic_load(&g_events_cb) + atomic_load(&g_events_poll)),
         (uint64_t)atomic_load(&g_events_cb), (uint64_t)atomic_load(&g_events_poll),
         (uint64_t)atomic_load(&g_subscribes), RUNWAY_MAX_SUBSCRIBERS,
         (uint64_t)atomic_load(&g_unsub_inside), (uint64_t)atomic_load(&g_unsub_outside),
         (uint64_t)atomic_load(&g_unsub_fallback), (uint64_t)atomic_load(&g_unsub_other),
         (uint64_t)atomic_load(&g_polls),
         (uint64_t)atomic_load(&g_nested_calls), (uint64_t)atomic_load(&g_overflow_latest),
         (uint64_t)atomic_load(&g_max_backlog), max_rss_kib(), summary_bytes,
         identical ? "identical" : "DIFFERS (or was not made)");
  if (failures) {
    fprintf(stderr, "stress: %d check(s) failed\n", failures);
    return 1;
  }
  return 0;
}
