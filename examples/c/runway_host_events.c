/*
 * runway_host_events.c — runway_host's events, printed as one-line PFDs on the library's
 * callback thread (see runway_host.c).
 */
#define _POSIX_C_SOURCE 200809L

#include "runway_host.h"

/* ---- Event printing (runs on the library's callback thread) -------------- */

static const char *str_or(const cJSON *obj, const char *key, const char *dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : dflt;
}

/* "PFD  00:12:34  2.41 km  pace 5:12 [4:45 5:00 5:15 5:30 5:45]  AVG 5:08  hdg E  alt 12 m  hr 148" */
static void print_pfd(const cJSON *ev) {
  const cJSON *pfd = cJSON_GetObjectItemCaseSensitive(ev, "pfd");
  char tape[128] = "";
  const cJSON *tick;
  const cJSON *ticks = cJSON_GetObjectItemCaseSensitive(pfd, "pace_tape");
  size_t used = 0;
  cJSON_ArrayForEach(tick, ticks) {
    if (!cJSON_IsString(tick) || used >= sizeof tape) continue;
    int n = snprintf(tape + used, sizeof tape - used, "%s%s", used ? " " : "", tick->valuestring);
    if (n > 0) used += (size_t)n;
  }
  printf("PFD  %s  %s km  pace %s [%s]  %s  hdg %s  alt %s m  hr %s\n",
         str_or(pfd, "time", "--:--:--"), str_or(pfd, "distance", "--"),
         str_or(pfd, "pace", "--:--"), tape, str_or(pfd, "avg_pace", "AVG --:--"),
         str_or(pfd, "direction", "--"), str_or(pfd, "altitude", "--"), str_or(pfd, "hr", "--"));
}

void on_event(const char *event_json, void *user) {
  printer *p = (printer *)user;
  cJSON *ev = cJSON_Parse(event_json);
  const char *kind = str_or(ev, "kind", "?");
  const cJSON *seq = cJSON_GetObjectItemCaseSensitive(ev, "seq");

  pthread_mutex_lock(&p->mu);
  int print_flight = 0;
  if (strcmp(kind, "flight") == 0) print_flight = (p->flights++ % p->every) == 0;
  pthread_mutex_unlock(&p->mu);

  if (ev == NULL) {
    printf("EVENT  (unparsable) %s\n", event_json);
  } else if (strcmp(kind, "flight") == 0) {
    if (print_flight) print_pfd(ev);
  } else if (strcmp(kind, "phase") == 0) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(ev, "t");
    printf("PHASE  %s -> %s  t %.3f\n", str_or(ev, "from", "?"), str_or(ev, "to", "?"),
           cJSON_IsNumber(t) ? t->valuedouble : NAN);
  } else if (strcmp(kind, "log") == 0) {
    printf("LOG    %s: %s\n", str_or(ev, "level", "info"), str_or(ev, "message", ""));
  } else if (strcmp(kind, "overflow") == 0) {
    const cJSON *dropped = cJSON_GetObjectItemCaseSensitive(ev, "dropped");
    printf("LOG    warning: %.0f events dropped (callback too slow)\n",
           cJSON_IsNumber(dropped) ? dropped->valuedouble : 0.0);
  } else if (strcmp(kind, "tick") != 0) { /* split, alert, and kinds added later */
    printf("%-6s %s\n", kind, event_json);
  }
  fflush(stdout);

  pthread_mutex_lock(&p->mu);
  if (cJSON_IsNumber(seq) && seq->valuedouble > p->last_seq) p->last_seq = seq->valuedouble;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  cJSON_Delete(ev);
}

/* Wait until the callback has handled seq, or the deadline passes. */
int wait_for_seq(printer *p, double seq) {
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += DRAIN_TIMEOUT_S;
  pthread_mutex_lock(&p->mu);
  int rc = 0;
  while (p->last_seq < seq && rc == 0) rc = pthread_cond_timedwait(&p->cv, &p->mu, &deadline);
  int ok = p->last_seq >= seq;
  pthread_mutex_unlock(&p->mu);
  return ok;
}
