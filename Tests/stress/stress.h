/*
 * stress.h — what the parts of the stress test share (stress.c: the settings and main;
 * stress_support.c: failures, progress, time, randomness, the watchdog; stress_push.c: the
 * inputs and the pushers; stress_subs.c: the subscriptions and their slots).
 */
#ifndef STRESS_H
#define STRESS_H

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

enum { IN_FIX_STRUCT, IN_FIX_JSON, IN_FIX_JSON_HR, IN_HR_JSON, IN_KINDS };

enum { K_UNSET = 0, K_ACCEPTED = 1, K_REFUSED = 2 };

struct pusher_stats {
  uint64_t attempted, accepted, refused, by_kind[IN_KINDS];
  double max_refusal_wait_s;
};

enum { KIND_FLIGHT = 1, KIND_PHASE = 2, KIND_TICK = 4, KIND_LOG = 8, KIND_SPLIT = 16,
       KIND_ALERT = 32, KIND_OVERFLOW = 64, ALL_KINDS = 63 };

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

/* ---- Settings (stress.c) ---------------------------------------------------- */

extern double g_seconds;
extern uint64_t g_seed;
extern int g_slots;
extern long g_pace_us;
extern double g_watchdog;
extern const double T0;
extern int g_queue_capacity;
extern bool g_hang_control;
extern double g_stall;
extern void *g_hang_user;
extern atomic_bool g_hang_started;

/* ---- Failures, progress, time, randomness, the watchdog (stress_support.c) ---- */

extern atomic_int g_failures;
extern atomic_uint_fast64_t g_progress;
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void phase(const char *name);
const char *status_name(runway_status st);
bool expect(runway_status st, runway_status want, const char *what);
double now_s(void);
void sleep_us(long us);
uint64_t rnd(uint64_t *state, uint64_t n);
extern double g_deadline;
extern atomic_bool g_done;
void *watchdog_main(void *arg);

/* ---- Inputs and pushers (stress_push.c) -------------------------------------- */

runway_status push_input(runway_session *s, uint64_t k, int *kind);
extern runway_session *g_session;
extern atomic_uint_fast64_t g_next_k;
extern uint64_t g_k_cap;
extern _Atomic uint8_t *g_outcome;
extern atomic_bool g_stop_pushers;
extern atomic_bool g_stop_slots;
extern atomic_bool g_cap_reached;
void *pusher_main(void *arg);

/* ---- Subscriptions (stress_subs.c) ------------------------------------------- */

extern struct sub *g_dead;
void bury(struct sub *s);
extern _Atomic(struct sub *) *g_current;
extern atomic_bool g_closed;
extern atomic_bool g_closing;
extern atomic_int g_callbacks_running;
extern atomic_uint_fast64_t g_subscribes, g_unsub_inside, g_unsub_outside, g_unsub_fallback,
    g_polls, g_events_cb, g_events_poll, g_overflow_latest, g_max_backlog, g_nested_calls,
    g_unsub_other;
void on_event(const char *json, void *user);
uint64_t drain(struct sub *s);
void *slot_main(void *arg);

#endif
