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
 * Here main() and the checks of the library's info, the formatters and NULL arguments; the run
 * itself in abi_run_flight.c, threads and stacks in abi_run_threads.c, runway_analyse in
 * abi_run_analyse.c, what they share in abi_harness.c (declared in abi_run.h).
 *
 * Build (Tests/c/run.sh does this):
 *   gcc -std=c99 -Wall -Wextra -Werror -Iinclude Tests/c/abi_*.c \
 *       -Lbuild -lrunway -Wl,-rpath,$PWD/build -lcjson -lpthread -lm
 */
#define _GNU_SOURCE /* pthread_getattr_np */

#include "abi_run.h"

/* ---- Checks by area ------------------------------------------------------- */

void test_library_info(void) {
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
  return check_(ok, __FILE__, line, name, "%s(%g) wrote \"%s\" returning %zu, want \"%s\" (%zu)", name, x,
                buf, n, want, strlen(want));
}
#define FMT(fn, x, want) fmt_is(fn, x, want, __LINE__, #fn)

void test_formatters(void) {
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

void test_null_arguments(void) {
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

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_delivery_threads_reserve_little();   /* first: before any thread's stack or arena exists */
  test_library_info();
  test_formatters();
  test_null_arguments();
  test_run();
  test_analyse();
  test_analyse_route();
  test_replay_config();
  test_concurrent_unsubscribe_and_close();
  test_no_thread_outlives_its_session();
  test_unsubscribe_joins_its_thread();
  test_callback_stack();
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
