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
 * Built and run by Tests/stress/run.sh. Here the settings and main(); the parts it runs are in
 * stress_support.c, stress_push.c and stress_subs.c, what they share in stress.h.
 */
#define _GNU_SOURCE

#include "stress.h"

/* ---- Settings ------------------------------------------------------------ */

double g_seconds = 10;
uint64_t g_seed = 1;
static int g_pushers = 8;
int g_slots = 64;
long g_pace_us = 100;    /* pause of each pusher between two pushes */
double g_watchdog = 60;  /* slack beyond --seconds before the watchdog fires */

const double T0 = 1700000000.0;
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
int g_queue_capacity = RUNWAY_MAX_QUEUE_CAPACITY;
static bool g_replay_drop = false;
/* --hang-control 1: the first callback subscription of the limit check never returns from its
 * callback, so runway_session_close() waits forever: the watchdog must fire (exit 2).
 * --stall S: the watchdog's no-progress window (default 20 s). */
bool g_hang_control = false;
double g_stall = 20;
void *g_hang_user;
atomic_bool g_hang_started; /* the hanging callback is running: close must wait on it */

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
