/*
 * abi_run.h — what the parts of abi_run (Tests/c/abi_run*.c) share: the checks and their
 * counters, waits with a deadline, JSON helpers, the counting subscriber, the generated run,
 * and the areas' entry points that main() calls. The definitions are in abi_harness.c.
 */
#ifndef ABI_RUN_H
#define ABI_RUN_H

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

extern int g_passed;
extern int g_failed;

int check_(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int expect_status_(runway_status got, runway_status want, const char *call, const char *file, int line);
const char *status_name(runway_status st);
int close_to(double got, double want, double rel_tol);

/* CHECK(condition, "printf format for the failure message", args...) */
#define CHECK(cond, ...) check_((cond) != 0, __FILE__, __LINE__, #cond, __VA_ARGS__)
/* The call returned `want`; a failure also leaves a non-empty message. */
#define EXPECT(call, want) expect_status_((call), (want), #call, __FILE__, __LINE__)

/* ---- Time and waits ------------------------------------------------------ */

#define WAIT_S 5.0 /* deadline for anything another thread must do */

void deadline_after(struct timespec *ts, double seconds);
void init_cond_monotonic(pthread_cond_t *cv);
void busy_for_ms(long ms);

/* ---- JSON helpers -------------------------------------------------------- */

const cJSON *field(const cJSON *obj, const char *key);
double num_field(const cJSON *obj, const char *key);
const char *str_field(const cJSON *obj, const char *key);
int str_is(const char *got, const char *want);
cJSON *snapshot(runway_session *s);
double snapshot_num(runway_session *s, const char *key);

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

typedef int (*sub_pred)(const sub_t *c, double arg);

void sub_init(sub_t *c, runway_session *s, enum sub_mode mode);
void sub_destroy(sub_t *c);
void on_event(const char *event_json, void *user);
int pred_seq_at_least(const sub_t *c, double seq);
int pred_events_at_least(const sub_t *c, double n);
int pred_close_tried(const sub_t *c, double unused);
int pred_running(const sub_t *c, double unused);
int pred_self_unsub_done(const sub_t *c, double unused);
int wait_for(sub_t *c, sub_pred pred, double arg);
long sub_events(sub_t *c);
double sub_max_seq(sub_t *c);
long sub_flights(sub_t *c);
long sub_calls_after_unsub(sub_t *c);
runway_status unsubscribe_outside(sub_t *c);

/* ---- The generated run ---------------------------------------------------- */

#define T0 1700000000.0
#define LAT0 52.0
#define LON0 4.0
#define DLAT 0.000027 /* ≈ 3.0 m north per step at 52°N; on the 1e-7° route grid */
#define ALT 10.0

double lat_at(int i);
void fix_json(char *buf, size_t cap, double t, int pos);
runway_fix fix_struct(double t, int pos);
double meridian_arc_m(double lat1_deg, double lat2_deg);

/* ---- The areas (abi_run.c, abi_run_flight.c, abi_run_threads.c, abi_run_analyse.c) ---- */

void test_library_info(void);
void test_formatters(void);
void test_null_arguments(void);
void test_run(void);
void test_analyse(void);
void test_analyse_route(void);
void test_replay_config(void);
void test_concurrent_unsubscribe_and_close(void);
void test_no_thread_outlives_its_session(void);
void test_unsubscribe_joins_its_thread(void);
void test_callback_stack(void);
void test_delivery_threads_reserve_little(void);

#endif
