/* fuzz_import — runway_import of any bytes; the first byte picks the format (gpx, tcx, fit; its
 * high bit adds ";salvage", which keeps what a damaged FIT file gave before the damage).
 * Accepted output must be JSON Lines of objects, and pushing it into a session must not trap. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  static const char *formats[] = {"gpx", "tcx", "fit"};
  static const char *salvaging[] = {"gpx;salvage", "tcx;salvage", "fit;salvage"};
  const char *format = (data[0] & 0x80 ? salvaging : formats)[data[0] % 3];
  char *out = NULL;
  size_t len = (size_t)-1;
  runway_status st = checked(runway_import(format, (const char *)data + 1, size - 1, &out, &len), "import");
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
