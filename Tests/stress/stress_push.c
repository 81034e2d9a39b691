/*
 * stress_push.c — the stress test's inputs (input number k is a pure function of k) and the
 * pusher threads (see stress.c).
 */
#define _GNU_SOURCE

#include "stress.h"

/* ---- Inputs: number k is a pure function of k ---------------------------- */

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
runway_status push_input(runway_session *s, uint64_t k, int *kind) {
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

runway_session *g_session;
atomic_uint_fast64_t g_next_k;     /* the next input number to take */
uint64_t g_k_cap;                  /* size of g_outcome; pushers stop there */
_Atomic uint8_t *g_outcome;        /* per k: K_ACCEPTED or K_REFUSED */
static atomic_uint_fast64_t g_hi_accepted_plus1;  /* 1 + the highest k reported accepted */
atomic_bool g_stop_pushers;
atomic_bool g_stop_slots;
atomic_bool g_cap_reached;

void *pusher_main(void *arg) {
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
