/*
 * stress_subs.c — the stress test's subscriptions: the callback and its checks, polling, and the
 * subscriber slots that subscribe and unsubscribe at random (see stress.c).
 */
#define _GNU_SOURCE

#include "stress.h"

/* ---- Subscriptions ------------------------------------------------------------ */

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

static pthread_mutex_t g_dead_lock = PTHREAD_MUTEX_INITIALIZER;
struct sub *g_dead;

void bury(struct sub *s) {
  pthread_mutex_lock(&g_dead_lock);
  s->next_dead = g_dead;
  g_dead = s;
  pthread_mutex_unlock(&g_dead_lock);
}

/* The subscription each slot holds (NULL between two), for callbacks that end another one. */
_Atomic(struct sub *) *g_current;

atomic_bool g_closed;                 /* set once runway_session_close returned */
atomic_bool g_closing;                /* set just before runway_session_close is called */
atomic_int g_callbacks_running;
atomic_uint_fast64_t g_subscribes, g_unsub_inside, g_unsub_outside, g_unsub_fallback,
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

void on_event(const char *json, void *user) {
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
uint64_t drain(struct sub *s) {
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

void *slot_main(void *arg) {
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
