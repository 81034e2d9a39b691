/* fuzz_common.h — shared helpers of librunway's libFuzzer harnesses (Tests/fuzz).
 *
 * Each harness drives the public C ABI (include/runway.h) of a librunway.so built with
 * AddressSanitizer and coverage instrumentation (see run.sh). Besides "no crash, no sanitizer
 * report", the harnesses check the contract's promises that can be checked from outside:
 *   - every status is one the header defines, and a failure leaves a message;
 *   - every JSON the library returns is valid (json_check.h: strict, UTF-8, no allocation) and is
 *     an object or array as documented;
 *   - a refused input changes no state: snapshot and summary are byte-identical before and after.
 * A broken promise calls fail(), which prints what broke and aborts, so libFuzzer saves the input. */
#ifndef RUNWAY_FUZZ_COMMON_H
#define RUNWAY_FUZZ_COMMON_H

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "runway.h"

static inline void fail(const char *what, const char *detail) {
  fprintf(stderr, "runway fuzz: broken promise: %s%s%s\n", what, detail ? ": " : "",
          detail ? detail : "");
  abort();
}

/* A NUL-terminated copy of the fuzz input (the library takes C strings). */
static inline char *nul_copy(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  if (size) memcpy(s, data, size);
  s[size] = 0;
  return s;
}

/* The status is one the header defines, and a failure sets a non-empty message. */
static inline runway_status checked(runway_status st, const char *call) {
  if ((int)st < 0 || (int)st > 15) fail("status outside the header's enum", call);
  if (st != RUNWAY_OK) {
    const char *msg = runway_last_error();
    if (!msg || !msg[0]) fail("a failure without a message", call);
  }
  return st;
}

/* Output is valid JSON (strict, UTF-8; json_check.h), an object or (want_array) an array. */
static inline void check_json(char *json, int want_array, const char *call) {
  if (!json) fail("OK without output", call);
  if (!json_check(json, want_array, 0)) {
    fprintf(stderr, "output: %.400s\n", json);
    fail(want_array ? "output is not a valid JSON array" : "output is not a valid JSON object", call);
  }
}

/* Snapshot and summary concatenated: the session's observable state. Caller frees. */
static inline char *state_of(runway_session *s) {
  char *snap = NULL, *summ = NULL;
  if (checked(runway_snapshot_json(s, &snap), "snapshot") != RUNWAY_OK) fail("snapshot failed", runway_last_error());
  if (checked(runway_summary_json(s, &summ), "summary") != RUNWAY_OK) fail("summary failed", runway_last_error());
  size_t a = strlen(snap), b = strlen(summ);
  char *out = malloc(a + b + 2);
  if (!out) abort();
  memcpy(out, snap, a);
  out[a] = '\n';
  memcpy(out + a + 1, summ, b + 1);
  runway_string_free(snap);
  runway_string_free(summ);
  return out;
}

static inline void same_state(const char *before, runway_session *s, const char *call) {
  char *after = state_of(s);
  if (strcmp(before, after) != 0) {
    fprintf(stderr, "before: %.400s\nafter:  %.400s\n", before, after);
    fail("a refused call changed the session's state", call);
  }
  free(after);
}

static inline runway_session *open_session(const char *config) {
  runway_session *s = NULL;
  if (runway_session_open(config, &s) != RUNWAY_OK || !s) fail("session_open failed", runway_last_error());
  return s;
}

/* A plausible first fix and start, so later inputs meet a running flight. With the default
 * config each call must succeed; with a fuzzed config (strict 0) each may be refused, e.g. by a
 * route of max_route_points 1, and only has to return a proper status. */
static inline void take_off_with(runway_session *s, int strict) {
  runway_status a = checked(runway_push_json(s, "{\"lat\":46.05,\"lon\":14.5,\"t\":1700000000,\"h_acc\":5,\"alt\":300}"), "first fix");
  runway_status b = checked(runway_start(s, NAN), "start");
  runway_status c = checked(runway_push_json(s, "{\"lat\":46.0501,\"lon\":14.5001,\"t\":1700000005,\"h_acc\":5,\"alt\":301,\"hr\":140}"), "second fix");
  if (strict && (a != RUNWAY_OK || b != RUNWAY_OK || c != RUNWAY_OK)) fail("take-off refused", runway_last_error());
}

static inline void take_off(runway_session *s) { take_off_with(s, 1); }

/* Stop (which must succeed when `strict`), check the summary is a JSON object, close. */
static inline void land(runway_session *s, int strict) {
  runway_status st = checked(runway_stop(s, NAN), "stop");
  if (strict && st != RUNWAY_OK) fail("stop refused", runway_last_error());
  char *summary = NULL;
  if (runway_summary_json(s, &summary) != RUNWAY_OK) fail("summary failed", runway_last_error());
  check_json(summary, 0, "summary_json");
  runway_string_free(summary);
  runway_session_close(s);
}

#endif
