/*
 * abi_run_flight.c — the run of the core issue: two callback subscribers, a poll
 * subscription, the three push paths, pause and resume, bad inputs, the flight record (a part of abi_run: see abi_run.c).
 */
#define _GNU_SOURCE /* pthread_getattr_np */

#include "abi_run.h"

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
void test_run(void) {
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
