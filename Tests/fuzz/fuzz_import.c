/* fuzz_import — runway_import of any bytes; the first byte picks the format (gpx, tcx, fit; its
 * high bit adds ";salvage", which keeps what a damaged FIT file gave before the damage).
 * Accepted output must be JSON Lines of objects, and pushing it into a session must not trap.
 * runway_analyse of the same bytes must refuse what runway_import refuses, with the same status,
 * and otherwise give one JSON object (or refuse a file without a timed point or a time that
 * cannot start a flight: RUNWAY_ERR_INPUT); runway_analyse_route gives the same verdict. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  static const char *formats[] = {"gpx", "tcx", "fit"};
  static const char *salvaging[] = {"gpx;salvage", "tcx;salvage", "fit;salvage"};
  const char *format = (data[0] & 0x80 ? salvaging : formats)[data[0] % 3];
  char *out = NULL;
  size_t len = (size_t)-1;
  runway_status st = checked(runway_import(format, (const char *)data + 1, size - 1, &out, &len), "import");
  static const char *options[] = {"{\"format\":\"gpx\"}", "{\"format\":\"tcx\"}", "{\"format\":\"fit\"}"};
  static const char *salvage_options[] = {"{\"format\":\"gpx\",\"salvage\":true}",
                                          "{\"format\":\"tcx\",\"salvage\":true}",
                                          "{\"format\":\"fit\",\"salvage\":true}"};
  char *analysed = NULL;
  size_t analysed_len = (size_t)-1;
  runway_status sa = checked(runway_analyse((data[0] & 0x80 ? salvage_options : options)[data[0] % 3],
                                            (const char *)data + 1, size - 1, &analysed, &analysed_len),
                             "analyse");
  if (st != RUNWAY_OK && sa != st) fail("analyse and import disagree on refusing the file", NULL);
  if (sa == RUNWAY_OK) {
    if (!analysed || strlen(analysed) != analysed_len) fail("analyse output length", NULL);
    if (!json_check(analysed, 0, 0)) fail("analyse output is not a valid JSON object", analysed);
  } else {
    if (analysed) fail("analyse wrote its output on failure", NULL);
    if (sa != RUNWAY_ERR_INPUT) fail("analyse refused an importable file with a status other than INPUT", NULL);
  }
  runway_string_free(analysed);
  /* runway_analyse_route: the same verdict; on success the route as structs of finite
   * coordinates and times (alt NaN or finite), nothing written on failure. */
  analysed = NULL;
  runway_route_point *route = NULL;
  size_t points = (size_t)-1;
  runway_status sr = checked(runway_analyse_route((data[0] & 0x80 ? salvage_options : options)[data[0] % 3],
                                                  (const char *)data + 1, size - 1, &analysed, NULL, &route,
                                                  &points),
                             "analyse_route");
  if (sr != sa) fail("analyse_route and analyse disagree", NULL);
  if (sr == RUNWAY_OK) {
    if (!analysed || !json_check(analysed, 0, 0)) fail("analyse_route output is not a valid JSON object", analysed);
    if ((points == 0) != (route == NULL)) fail("analyse_route: a route without points or points without a route", NULL);
    for (size_t i = 0; i < points; i++) {
      if (!(fabs(route[i].lat) <= 90 && fabs(route[i].lon) <= 180 && isfinite(route[i].t)) ||
          isinf(route[i].alt))
        fail("analyse_route: a point out of range", analysed);
    }
  } else if (analysed || route || points != (size_t)-1) {
    fail("analyse_route wrote an output on failure", NULL);
  }
  runway_route_free(route);
  runway_string_free(analysed);
  if (st != RUNWAY_OK) {
    if (out) fail("import wrote its output on failure", NULL);
    return 0;
  }
  if (!out || len == (size_t)-1 || strlen(out) != len) fail("import output length", NULL);
  /* Every line is one JSON object. */
  char *line = out;
  while (*line) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    if (*line) {
      if (!json_check(line, 0, 0)) fail("an imported line is not a valid JSON object", line);
    }
    if (!nl) break;
    *nl = '\n';
    line = nl + 1;
  }
  runway_session *s = open_session(NULL);
  checked(runway_start(s, NAN), "start");
  size_t acc = 0, rej = 0;
  checked(runway_push_jsonl(s, out, len, &acc, &rej), "push_jsonl");
  land(s, 0);
  runway_string_free(out);
  return 0;
}
