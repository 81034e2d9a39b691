/* json_check_test — tests json_check.h, the harnesses' JSON check: valid and invalid texts,
 * agreement with cJSON on every valid one, and every kind of output of a real flight accepted.
 * Run by run.sh before any fuzzing (a check that accepted garbage would hide findings; one that
 * refused good output would report false ones). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_check.h"
#include "runway.h"

static int failures;

static void expect(int got, int want, const char *what, const char *text) {
  if (got != want) {
    fprintf(stderr, "json_check_test: %s: json_check gave %d, want %d: %.300s\n", what, got, want, text);
    failures++;
  }
}

static void valid(const char *text, int want_array) {
  expect(json_check(text, want_array, 0), 1, "valid", text);
  expect(json_check(text, !want_array, 0), 0, "valid, other shape", text);
  cJSON *doc = cJSON_ParseWithOpts(text, NULL, 1);
  if (!doc) { fprintf(stderr, "json_check_test: cJSON refuses a valid case: %s\n", text); failures++; }
  cJSON_Delete(doc);
}

static void invalid(const char *text) {
  expect(json_check(text, 0, 0), 0, "invalid as object", text);
  expect(json_check(text, 1, 0), 0, "invalid as array", text);
}

static void output(char *text, int want_array, int want_kind, const char *what) {
  if (!text) { fprintf(stderr, "json_check_test: no output for %s\n", what); failures++; return; }
  expect(json_check(text, want_array, want_kind), 1, what, text);
  cJSON *doc = cJSON_ParseWithOpts(text, NULL, 1);
  if (!doc) { fprintf(stderr, "json_check_test: cJSON refuses the %s\n", what); failures++; }
  cJSON_Delete(doc);
  runway_string_free(text);
}

static void on_event(const char *event_json, void *user) {
  (void)user;
  expect(json_check(event_json, 0, 1), 1, "event", event_json);
}

int main(void) {
  valid("{}", 0);
  valid("[]", 1);
  valid(" \t\r\n{ \"a\" : [ 1 , -0 , 0.5 , -1.25e+10 , 2E-3 , 1e5 , true , false , null ] } \n", 0);
  valid("[\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\uD83D\\uDE00\"]", 1);
  valid("[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8f\x83 \xf4\x8f\xbf\xbf\"]", 1); /* 2, 3, 4 bytes; U+10FFFF */
  valid("{\"a\":{\"b\":{\"c\":[[[[{}]]]]}}}", 0);
  valid("[1700000012.3456788,5e-324,1.7976931348623157e+308]", 1);

  const char *bad[] = {
      "", " ", "{", "}", "[", "]", "{]", "[}", "{}x", "{} {}", "[],", "[1,]", "[,1]", "{,}", "{\"a\":1,}",
      "{\"a\"}", "{\"a\":}", "{\"a\":1 \"b\":2}", "[1 2]", "[{} {}]", "{a:1}", "{'a':1}", "{\"a\" 1}", "[01]", "[-]", "[1.]", "[.5]", "[+1]", "[1e]",
      "[1e+]", "[0x10]", "[NaN]", "[Infinity]", "[-Infinity]", "[nul]", "[tru]", "[True]", "[\"a]",
      "[\"\\x\"]", "[\"\\u12\"]", "[\"\\u12G4\"]", "[\"tab\there\"]", "[\"new\nline\"]",
      "[\"\xc3\"]", "[\"\xc3(\"]", "[\"\xc0\xaf\"]", "[\"\xe0\x80\xaf\"]", "[\"\xed\xa0\x80\"]",
      "[\"\xf4\x90\x80\x80\"]", "[\"\xf8\x88\x80\x80\x80\"]", "[\"\xff\"]", "[\"\x80\"]", "1", "\"s\"", "null",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) invalid(bad[i]);
  expect(json_check("{\"kind\":\"flight\",\"seq\":1}", 0, 1), 1, "kind", "");
  expect(json_check("{\"seq\":1,\"kind\":\"log\"}", 0, 1), 1, "kind last", "");
  expect(json_check("{\"kind\":1}", 0, 1), 0, "kind not a string", "");
  expect(json_check("{\"a\":{\"kind\":\"x\"}}", 0, 1), 0, "kind only nested", "");
  expect(json_check("{\"kinds\":\"x\"}", 0, 1), 0, "another key", "");

  char deep[2 * JSON_CHECK_MAX_DEPTH + 3];
  for (int d = JSON_CHECK_MAX_DEPTH; d <= JSON_CHECK_MAX_DEPTH + 1; d++) {
    int n = 0;
    for (int i = 0; i < d; i++) deep[n++] = '[';
    for (int i = 0; i < d; i++) deep[n++] = ']';
    deep[n] = 0;
    expect(json_check(deep, 1, 0), d <= JSON_CHECK_MAX_DEPTH, "depth", deep);
  }

  /* Every kind of output of a real flight, with a name and a log message that need escapes. */
  runway_session *s = NULL;
  if (runway_session_open("{\"auto_lap_m\":100,\"target_pace\":{\"min\":4.0,\"max\":4.2},\"goal_m\":300}", &s) != RUNWAY_OK) return 1;
  uint64_t id = 0, poll = 0;
  runway_subscribe(s, NULL, on_event, NULL, &id);
  runway_subscribe(s, "{\"policy\":\"queue\",\"capacity\":4096}", NULL, NULL, &poll);
  char fix[256];
  runway_push_json(s, "{\"lat\":46.05,\"lon\":14.5,\"t\":1700000000.25,\"h_acc\":5,\"alt\":300}");
  runway_start(s, NAN);
  for (int i = 1; i < 200; i++) {
    snprintf(fix, sizeof fix, "{\"lat\":%.7f,\"lon\":14.5,\"t\":%.3f,\"h_acc\":4,\"alt\":%d,\"speed\":2.9,\"hr\":%d}",
             46.05 + i * 0.000027, 1700000000.25 + i, 300 + i % 9, 140 + i % 30);
    runway_push_json(s, fix);
  }
  runway_push_json(s, "{\"lat\":\"caf\xc3\xa9 \\\" \\u0001\"}"); /* refused: its message quotes the input */
  runway_lap(s, NAN);
  char *out = NULL;
  size_t len = 0;
  runway_snapshot_json(s, &out); output(out, 0, 0, "snapshot");
  runway_log_json(s, &out); output(out, 1, 0, "log");
  for (char *ev = NULL; runway_poll(s, poll, &ev) == RUNWAY_OK && ev;) output(ev, 0, 1, "polled event");
  runway_stop(s, NAN);
  runway_summary_json(s, &out); output(out, 0, 0, "summary");
  if (runway_export(s, "geojson", &out, &len) == RUNWAY_OK) output(out, 0, 0, "geojson export");
  else { fprintf(stderr, "json_check_test: geojson export failed\n"); failures++; }
  runway_session_close(s);

  if (failures) { fprintf(stderr, "json_check_test: %d failures\n", failures); return 1; }
  printf("json_check_test: ok\n");
  return 0;
}
