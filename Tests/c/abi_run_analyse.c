/*
 * abi_run_analyse.c — runway_analyse and runway_analyse_route against the separate calls, and
 * runway_replay_config, the config those calls open (a part of abi_run: see abi_run.c).
 */
#define _GNU_SOURCE /* pthread_getattr_np */

#include "abi_run.h"

/* runway_analyse: one call gives the summary the separate calls give (import, a session with
 * the file's sport by runway_replay_config, start at the first input, push_jsonl, stop, summary), and the report. */
static const char ANALYSE_GPX[] =
    "<?xml version=\"1.0\"?><gpx version=\"1.1\"><trk><type>cycling</type><trkseg>"
    "<trkpt lat=\"52.0000\" lon=\"4.0000\"><ele>1</ele><time>2024-05-01T10:00:00Z</time></trkpt>"
    "<trkpt lat=\"52.0001\" lon=\"4.0002\"><ele>2</ele><time>2024-05-01T10:00:02Z</time></trkpt>"
    "<trkpt lat=\"52.0002\" lon=\"4.0004\"><ele>3</ele><time>2024-05-01T10:00:04Z</time></trkpt>"
    "<trkpt lat=\"52.0003\" lon=\"4.0006\"><time>2024-05-01T10:00:06Z</time>"
    "<extensions><hr>400</hr></extensions></trkpt>"
    "<trkpt lat=\"52.0004\" lon=\"4.0008\"><ele>4</ele><time>2024-05-01T10:00:08Z</time></trkpt>"
    "<trkpt lat=\"52.0005\" lon=\"4.0010\"></trkpt>"
    "</trkseg></trk></gpx>";

void test_analyse(void) {
  size_t len = sizeof ANALYSE_GPX - 1;
  /* The separate calls. */
  char *jsonl = NULL, *summary = NULL;
  size_t jsonl_len = 0, acc = 0, rej = 0;
  runway_session *s = NULL;
  if (!EXPECT(runway_import("gpx", ANALYSE_GPX, len, &jsonl, &jsonl_len), RUNWAY_OK)) return;
  char *config = NULL; /* the report's settings: {"activity":"ride"} (the file's cycling) */
  const char *report = strstr(jsonl, "{\"type\":\"import_report\"");
  if (!EXPECT(runway_replay_config(report, NULL, &config), RUNWAY_OK)) return;
  CHECK(strcmp(config, "{\"activity\":\"ride\"}") == 0, "replay config %s", config);
  EXPECT(runway_session_open(config, &s), RUNWAY_OK);
  runway_string_free(config);
  if (!s) return;
  EXPECT(runway_start(s, 1714557600.0), RUNWAY_OK);
  EXPECT(runway_push_jsonl(s, jsonl, jsonl_len, &acc, &rej), RUNWAY_ERR_INPUT); /* hr 400 */
  EXPECT(runway_stop(s, NAN), RUNWAY_OK);
  EXPECT(runway_summary_json(s, &summary), RUNWAY_OK);
  runway_session_close(s);
  runway_string_free(jsonl);

  char *out = NULL;
  size_t out_len = 0;
  if (EXPECT(runway_analyse(NULL, ANALYSE_GPX, len, &out, &out_len), RUNWAY_OK)) {
    const char *prefix = "{\"summary\":";
    size_t n = strlen(summary);
    CHECK(out_len == strlen(out), "out_len %zu, strlen %zu", out_len, strlen(out));
    CHECK(strncmp(out, prefix, strlen(prefix)) == 0 && strncmp(out + strlen(prefix), summary, n) == 0 &&
              strncmp(out + strlen(prefix) + n, ",\"report\":{\"type\":\"import_report\"",
                      strlen(",\"report\":{\"type\":\"import_report\"")) == 0,
          "runway_analyse's summary differs from the separate calls':\n%s\n%s", out, summary);
    CHECK(strstr(out, "\"activity\":\"ride\"") != NULL, "not replayed as the file's ride: %s", out);
    CHECK(strstr(out, "\"inputs\":5,\"accepted\":4,\"rejected\":1,\"first_rejection\":{\"index\":4,") != NULL,
          "counts: %s", out);
    CHECK(strstr(out, "\"untimed\":1") != NULL, "the report's untimed point: %s", out);
    runway_string_free(out);
  }
  /* The config's own activity wins; "route":false leaves the route out. */
  out = NULL;
  if (EXPECT(runway_analyse("{\"format\":\"gpx\",\"route\":false,\"config\":{\"activity\":\"walk\"}}",
                            ANALYSE_GPX, len, &out, NULL), RUNWAY_OK)) {
    CHECK(strstr(out, "\"activity\":\"walk\"") != NULL && strstr(out, "\"route\":") == NULL,
          "config activity / no route: %s", out);
    runway_string_free(out);
  }
  runway_string_free(summary);

  /* Refusals: nothing is written. */
  char *untouched = (char *)"untouched";
  out = untouched;
  EXPECT(runway_analyse("{\"format\":\"kml\"}", ANALYSE_GPX, len, &out, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse("{\"colour\":1}", ANALYSE_GPX, len, &out, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse("{\"config\":{\"store\":\"/tmp/x\"}}", ANALYSE_GPX, len, &out, NULL),
         RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse("{\"config\":{\"hr_max\":\"high\"}}", ANALYSE_GPX, len, &out, NULL),
         RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse("{not json", ANALYSE_GPX, len, &out, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse(NULL, NULL, 0, &out, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse(NULL, ANALYSE_GPX, len, NULL, NULL), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse(NULL, "hello, world", 12, &out, NULL), RUNWAY_ERR_INPUT);
  EXPECT(runway_analyse("{\"format\":\"gpx\"}", ANALYSE_GPX, len - 10, &out, NULL), RUNWAY_ERR_INPUT);
  EXPECT(runway_analyse(NULL, "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>", 63,
                        &out, NULL), RUNWAY_ERR_INPUT);
  CHECK(strcmp(runway_last_error(), "no timed points") == 0, "message: %s", runway_last_error());
  CHECK(out == untouched, "a failed runway_analyse wrote its output");
}

/* runway_analyse_route: the same flight and summary as runway_analyse, the route as structs
 * holding exactly the doubles of the JSON route (alt NaN where it says null). */
static const char ROUTE_GPX[] =
    "<?xml version=\"1.0\"?><gpx version=\"1.1\"><trk><trkseg>"
    "<trkpt lat=\"52.0000\" lon=\"4.0000\"><ele>1.5</ele><time>2024-05-01T10:00:00Z</time></trkpt>"
    "<trkpt lat=\"52.0001\" lon=\"4.0002\"><ele>2.25</ele><time>2024-05-01T10:00:05Z</time></trkpt>"
    "<trkpt lat=\"52.0002\" lon=\"4.0004\"><time>2024-05-01T10:00:10Z</time></trkpt>"
    "<trkpt lat=\"52.00031\" lon=\"4.00061\"><ele>3</ele><time>2024-05-01T10:00:15Z</time></trkpt>"
    "<trkpt lat=\"52.00042\" lon=\"4.00082\"><ele>4</ele><time>2024-05-01T10:00:20Z</time></trkpt>"
    "</trkseg></trk></gpx>";

void test_analyse_route(void) {
  size_t len = sizeof ROUTE_GPX - 1;
  char *json = NULL;
  if (!EXPECT(runway_analyse("{\"format\":\"gpx\"}", ROUTE_GPX, len, &json, NULL), RUNWAY_OK)) return;
  cJSON *want = cJSON_Parse(json);
  runway_string_free(json);
  cJSON *want_summary = cJSON_GetObjectItemCaseSensitive(want, "summary");
  cJSON *want_route = cJSON_DetachItemFromObjectCaseSensitive(want_summary, "route");
  int n = cJSON_GetArraySize(want_route);
  CHECK(cJSON_IsArray(want_route) && n == 5, "runway_analyse's route: %d points", n);

  char *out = NULL;
  size_t out_len = 0, count = 99;
  runway_route_point *points = NULL;
  if (EXPECT(runway_analyse_route("{\"format\":\"gpx\"}", ROUTE_GPX, len, &out, &out_len, &points,
                                  &count),
             RUNWAY_OK)) {
    cJSON *got = cJSON_Parse(out);
    CHECK(out_len == strlen(out), "out_len %zu, strlen %zu", out_len, strlen(out));
    CHECK(cJSON_Compare(got, want, 1), "the result is runway_analyse's without the route:\n%s", out);
    cJSON *summary = cJSON_GetObjectItemCaseSensitive(got, "summary");
    CHECK(cJSON_GetObjectItemCaseSensitive(summary, "route") == NULL &&
              cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(summary, "segment_starts")) &&
              cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(summary, "route_simplified")),
          "summary route members: %s", out);
    CHECK(count == (size_t)n && num_field(summary, "points") == (double)n && points != NULL,
          "%zu points, JSON %d", count, n);
    int nulls = 0;
    for (int i = 0; points && i < n && (size_t)i < count; i++) {
      cJSON *p = cJSON_GetArrayItem(want_route, i);
      double lat = cJSON_GetArrayItem(p, 0)->valuedouble, lon = cJSON_GetArrayItem(p, 1)->valuedouble;
      cJSON *alt = cJSON_GetArrayItem(p, 2);
      double t = cJSON_GetArrayItem(p, 3)->valuedouble;
      int alt_same = cJSON_IsNull(alt) ? isnan(points[i].alt) : points[i].alt == alt->valuedouble;
      nulls += cJSON_IsNull(alt);
      int same = points[i].lat == lat && points[i].lon == lon && alt_same && points[i].t == t;
      char *shown = same ? NULL : cJSON_PrintUnformatted(p);   /* printed only on failure */
      CHECK(same, "point %d: %.17g %.17g %.17g %.17g vs JSON %s", i, points[i].lat, points[i].lon,
            points[i].alt, points[i].t, shown ? shown : "?");
      cJSON_free(shown);
    }
    CHECK(nulls == 1 && points && isnan(points[2].alt) && points[1].alt == 2.25 &&
              points[0].lat == 52.0 && points[4].t == 1714557620.0,
          "the unknown altitude and the values as recorded");
    cJSON_Delete(got);
    runway_string_free(out);
    runway_route_free(points);
  }
  cJSON_Delete(want_route);
  cJSON_Delete(want);

  /* "route":false: runway_analyse's result, no array. */
  char *plain = NULL;
  out = NULL;
  points = (runway_route_point *)&count;
  count = 7;
  if (EXPECT(runway_analyse("{\"route\":false}", ROUTE_GPX, len, &plain, NULL), RUNWAY_OK) &&
      EXPECT(runway_analyse_route("{\"route\":false}", ROUTE_GPX, len, &out, NULL, &points, &count),
             RUNWAY_OK)) {
    CHECK(strcmp(out, plain) == 0 && points == NULL && count == 0,
          "route false: %zu points, %s", count, out);
    CHECK(strstr(out, "route") == NULL, "route false leaves every route member out: %s", out);
  }
  runway_string_free(plain);
  runway_string_free(out);
  runway_route_free(NULL);

  /* Refusals: nothing is written. */
  char *untouched = (char *)"untouched";
  runway_route_point sentinel;
  out = untouched;
  points = &sentinel;
  count = 7;
  EXPECT(runway_analyse_route(NULL, ROUTE_GPX, len, &out, NULL, NULL, &count), RUNWAY_ERR_ARGUMENT);
  CHECK(strcmp(runway_last_error(), "route_out is NULL") == 0, "message: %s", runway_last_error());
  EXPECT(runway_analyse_route(NULL, ROUTE_GPX, len, &out, NULL, &points, NULL), RUNWAY_ERR_ARGUMENT);
  CHECK(strcmp(runway_last_error(), "route_len is NULL") == 0, "message: %s", runway_last_error());
  EXPECT(runway_analyse_route(NULL, ROUTE_GPX, len, NULL, NULL, &points, &count), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse_route(NULL, NULL, 0, &out, NULL, &points, &count), RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse_route("{\"route\":\"structs\"}", ROUTE_GPX, len, &out, NULL, &points, &count),
         RUNWAY_ERR_ARGUMENT);
  EXPECT(runway_analyse_route("{\"format\":\"gpx\"}", ROUTE_GPX, len - 20, &out, NULL, &points, &count),
         RUNWAY_ERR_INPUT);
  EXPECT(runway_analyse_route(NULL, "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>",
                              63, &out, NULL, &points, &count),
         RUNWAY_ERR_INPUT);
  CHECK(strcmp(runway_last_error(), "no timed points") == 0, "message: %s", runway_last_error());
  CHECK(out == untouched && points == &sentinel && count == 7,
        "a failed runway_analyse_route wrote an output");
}

/* runway_replay_config(report_line, config, &out): the config the separate calls open, the report's
 * settings added where the config is silent, byte for byte; every bad input refused, nothing written. */
static void expect_config(const char *report, const char *config, const char *want) {
  char *out = NULL;
  if (!EXPECT(runway_replay_config(report, config, &out), RUNWAY_OK)) return;
  CHECK(strcmp(out, want) == 0, "config %s with report %s: %s, want %s", config ? config : "NULL", report, out,
        want);
  runway_session *s = NULL;
  /* (A session takes it, but for the unknown key.) */
  if (!strstr(want, "\"a\"") && EXPECT(runway_session_open(out, &s), RUNWAY_OK))
    runway_session_close(s);
  runway_string_free(out);
}

static void expect_refused(const char *report, const char *config, runway_status want, const char *message) {
  char *untouched = (char *)"untouched", *out = untouched;
  EXPECT(runway_replay_config(report, config, &out), want);
  CHECK(strstr(runway_last_error(), message) != NULL, "message %s, want it to hold %s", runway_last_error(),
        message);
  CHECK(out == untouched, "a refused runway_replay_config wrote its output");
}

void test_replay_config(void) {
  const char *fit = "{\"type\":\"import_report\",\"format\":\"fit\",\"sport\":\"cycling\",\"activity\":\"ride\","
                    "\"altitude_source\":\"barometric\",\"auto_lap_m\":0,\"inputs\":3,\"tracks\":[],\"device\":null}";
  const char *silent = "{\"type\":\"import_report\",\"format\":\"gpx\",\"activity\":null,"
                       "\"altitude_source\":null,\"auto_lap_m\":null}";
  expect_config(fit, NULL, "{\"activity\":\"ride\",\"fix_altitude\":\"barometric\",\"auto_lap_m\":0}");
  expect_config(fit, "", "{\"activity\":\"ride\",\"fix_altitude\":\"barometric\",\"auto_lap_m\":0}");
  expect_config(fit, " {} ", "{\"activity\":\"ride\",\"fix_altitude\":\"barometric\",\"auto_lap_m\":0}");
  /* The config's members win and follow the added ones as the host wrote them. */
  expect_config(fit, "\r\n{\"auto_lap_m\":500, \"hr_max\":185}",
                "{\"activity\":\"ride\",\"fix_altitude\":\"barometric\",\"auto_lap_m\":500, \"hr_max\":185}");
  expect_config(fit, "{\"activity\":\"run\",\"fix_altitude\":\"gps\",\"auto_lap_m\":1000}",
                "{\"activity\":\"run\",\"fix_altitude\":\"gps\",\"auto_lap_m\":1000}");
  expect_config(fit, "{\"activity\":\"walk\",\"fix_altitude\":\"gps\"}",
                "{\"auto_lap_m\":0,\"activity\":\"walk\",\"fix_altitude\":\"gps\"}");
  /* A report that says nothing: the config as given, "{}" for none. */
  expect_config(silent, NULL, "{}");
  expect_config(silent, "{ }", "{}");
  expect_config(silent, "{\"a\":1}", "{\"a\":1}");
  /* The line as runway_import wrote it, with its newline; absent members say nothing. */
  char *line = NULL;
  size_t line_len = 0;
  if (EXPECT(runway_import("gpx", ANALYSE_GPX, sizeof ANALYSE_GPX - 1, &line, &line_len), RUNWAY_OK)) {
    const char *report = strstr(line, "{\"type\":\"import_report\"");
    CHECK(report != NULL, "no report line: %s", line);
    if (report) expect_config(report, "{\"hr_max\":185}", "{\"activity\":\"ride\",\"hr_max\":185}");
    runway_string_free(line);
  }
  expect_config("{\"type\":\"import_report\"}\n", NULL, "{}");
  expect_config("{\"type\":\"import_report\",\"auto_lap_m\":1e3}", NULL, "{\"auto_lap_m\":1000}");
  /* A report line of RUNWAY_MAX_INPUT_BYTES is read, a longer one refused, as runway_push_jsonl
   * takes and refuses a line (every line runway_import writes is within it). */
  char *long_report = malloc(RUNWAY_MAX_INPUT_BYTES + 2);
  if (long_report) {
    int n = snprintf(long_report, 100, "{\"type\":\"import_report\",\"activity\":\"walk\",\"warnings\":[\"");
    size_t fill = RUNWAY_MAX_INPUT_BYTES - (size_t)n - 3;
    memset(long_report + n, 'x', fill);
    strcpy(long_report + n + fill, "\"]}");
    CHECK(strlen(long_report) == RUNWAY_MAX_INPUT_BYTES, "report of %zu bytes", strlen(long_report));
    expect_config(long_report, NULL, "{\"activity\":\"walk\"}");
    memmove(long_report + n + 1, long_report + n, fill + 4);   /* one byte more */
    expect_refused(long_report, NULL, RUNWAY_ERR_LIMIT,
                   "report_line of 1048577 bytes exceeds the limit of 1048576 bytes");
    free(long_report);
  }
  /* A config naming a setting null, which no session takes: refused with the session's message. */
  expect_refused(fit, "{\"activity\":\"walk\",\"fix_altitude\":null}", RUNWAY_ERR_ARGUMENT,
                 "config: \"fix_altitude\" must be \"gps\" or \"barometric\"");

  /* Refusals. */
  expect_refused(NULL, NULL, RUNWAY_ERR_ARGUMENT, "report_line is NULL");
  EXPECT(runway_replay_config(fit, NULL, NULL), RUNWAY_ERR_ARGUMENT);
  CHECK(strcmp(runway_last_error(), "out_json is NULL") == 0, "message: %s", runway_last_error());
  expect_refused("", NULL, RUNWAY_ERR_JSON, "report_line: empty input");
  expect_refused("{\"type\":\"import_report\"", NULL, RUNWAY_ERR_JSON, "report_line: not valid JSON");
  expect_refused("[{\"type\":\"import_report\"}]", NULL, RUNWAY_ERR_JSON, "report_line: expected a JSON object");
  expect_refused("{\"type\":\"import_report\"} x", NULL, RUNWAY_ERR_JSON, "report_line: unexpected content");
  expect_refused("{\"type\":\"import_report\",\"sport\":\"\xff\"}", NULL, RUNWAY_ERR_JSON,
                 "report_line: invalid UTF-8");
  expect_refused("{\"type\":\"fix\",\"t\":1,\"lat\":1,\"lon\":1}", NULL, RUNWAY_ERR_INPUT,
                 "report_line: not an import report: its \"type\" is \"fix\"");
  expect_refused("{\"t\":1,\"lat\":1,\"lon\":1}", NULL, RUNWAY_ERR_INPUT, "its \"type\" is missing");
  expect_refused("{\"type\":7}", NULL, RUNWAY_ERR_INPUT, "its \"type\" is a number");
  expect_refused("{\"type\":\"import_report\",\"activity\":\"swim\"}", NULL, RUNWAY_ERR_INPUT,
                 "\"activity\" must be one of run, ride, walk, or null");
  expect_refused("{\"type\":\"import_report\",\"altitude_source\":1}", NULL, RUNWAY_ERR_INPUT, "\"altitude_source\"");
  expect_refused("{\"type\":\"import_report\",\"auto_lap_m\":-1}", NULL, RUNWAY_ERR_INPUT, "\"auto_lap_m\"");
  expect_refused("{\"type\":\"import_report\",\"auto_lap_m\":0.5}", NULL, RUNWAY_ERR_INPUT, "\"auto_lap_m\"");
  expect_refused("{\"type\":\"import_report\",\"auto_lap_m\":\"0\"}", NULL, RUNWAY_ERR_INPUT, "\"auto_lap_m\"");
  expect_refused("{\"type\":\"import_report\",\"auto_lap_m\":1e300}", NULL, RUNWAY_ERR_INPUT, "\"auto_lap_m\"");
  expect_refused(fit, "{not json", RUNWAY_ERR_ARGUMENT, "config: not valid JSON");
  expect_refused(fit, "[1]", RUNWAY_ERR_ARGUMENT, "config: expected a JSON object, got an array");
  expect_refused(fit, "{\"store\":\"\xff\"}", RUNWAY_ERR_JSON, "config is not valid UTF-8");
  char *nested = malloc(8 * (RUNWAY_MAX_JSON_DEPTH + 2));
  if (nested) {
    size_t k = 0;
    for (int i = 0; i <= RUNWAY_MAX_JSON_DEPTH; i++) k += (size_t)sprintf(nested + k, "{\"a\":");
    k += (size_t)sprintf(nested + k, "1");
    for (int i = 0; i <= RUNWAY_MAX_JSON_DEPTH; i++) nested[k++] = '}';
    nested[k] = 0;
    expect_refused(fit, nested, RUNWAY_ERR_LIMIT, "RUNWAY_MAX_JSON_DEPTH");
    expect_refused(nested, NULL, RUNWAY_ERR_LIMIT, "report_line: input nested deeper");
    free(nested);
  }
  char *huge = malloc(RUNWAY_MAX_INPUT_BYTES + 16);
  if (huge) {
    memset(huge, ' ', RUNWAY_MAX_INPUT_BYTES + 15);
    huge[0] = '{';
    strcpy(huge + RUNWAY_MAX_INPUT_BYTES + 13, "}");
    expect_refused(fit, huge, RUNWAY_ERR_LIMIT, "config of more than");
    free(huge);
  }
}
