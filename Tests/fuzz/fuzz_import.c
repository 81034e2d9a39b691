/* fuzz_import — runway_import of any bytes; the first byte picks the format (gpx, tcx, fit; its
 * high bit adds ";salvage", which keeps what a damaged FIT file gave before the damage).
 * For FIT, unless bit 0x40 of the first byte is set, the harness first rewrites the file's CRCs
 * (each chained file's header CRC when present and its file CRC) to match the mutated bytes:
 * otherwise a CRC would refuse almost every mutation of a record at the door, and the strict
 * reader's record parsing would go unfuzzed. With the bit set, the bytes go in as they are (the
 * CRC checks themselves; salvage reads records past a bad CRC either way). The library is the
 * same as the release in this (its CRC checks are on).
 * Accepted output must be JSON Lines of objects, and pushing it into a session must not trap.
 * runway_analyse of the same bytes must refuse what runway_import refuses, with the same status,
 * and otherwise give one JSON object (or refuse a file without a timed point or a time that
 * cannot start a flight: RUNWAY_ERR_INPUT); runway_analyse_route gives the same verdict. */
#include "fuzz_common.h"

/* The FIT CRC-16 (the FIT protocol's nibble table) of n bytes. */
static uint16_t fit_crc(const uint8_t *b, size_t n) {
  static const uint16_t t[16] = {0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
                                 0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400};
  uint16_t crc = 0;
  for (size_t i = 0; i < n; i++) {
    uint16_t tmp = t[crc & 0xF];
    crc = ((crc >> 4) & 0x0FFF) ^ tmp ^ t[b[i] & 0xF];
    tmp = t[crc & 0xF];
    crc = ((crc >> 4) & 0x0FFF) ^ tmp ^ t[(b[i] >> 4) & 0xF];
  }
  return crc;
}

/* Rewrites the CRCs of the chained FIT files in b[0..n) to match their bytes, as far as the
 * headers are whole and announce data that is there with room for its CRC. A header CRC of 0
 * (none) stays 0. */
static void fix_fit_crcs(uint8_t *b, size_t n) {
  size_t start = 0;
  while (n - start >= 12 && memcmp(b + start + 8, ".FIT", 4) == 0) {
    size_t header = b[start];
    if ((header != 12 && header != 14) || header > n - start) return;
    if (header == 14 && (b[start + 12] | b[start + 13])) {
      uint16_t c = fit_crc(b + start, 12);
      b[start + 12] = (uint8_t)c;
      b[start + 13] = (uint8_t)(c >> 8);
    }
    size_t data = (size_t)b[start + 4] | (size_t)b[start + 5] << 8 | (size_t)b[start + 6] << 16 |
                  (size_t)b[start + 7] << 24;
    if (data > n - start - header || n - start - header - data < 2) return;
    size_t end = start + header + data;
    uint16_t c = fit_crc(b + start, end - start);
    b[end] = (uint8_t)c;
    b[end + 1] = (uint8_t)(c >> 8);
    start = end + 2;
  }
}

static void import_one(const uint8_t *data, size_t size) {
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
    return;
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
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  if (size < 1) return 0;
  /* A copy the harness may change (libFuzzer's input is read-only); exactly size bytes, so
   * AddressSanitizer still sees any read past the end. */
  uint8_t *data = malloc(size);
  if (!data) return 0;
  memcpy(data, bytes, size);
  if (data[0] % 3 == 2 && !(data[0] & 0x40)) fix_fit_crcs(data + 1, size - 1);
  import_one(data, size);
  free(data);
  return 0;
}
