/* fuzz_config — runway_session_open with any bytes as its config; an accepted config must then
 * carry a short flight (the store and the live clock are left out: one needs a file, the other
 * wall-clock threads; a config naming them is still parsed and validated up to that point). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *config = nul_copy(data, size);
  cJSON *doc = cJSON_Parse(config);
  int skip = doc && (cJSON_GetObjectItemCaseSensitive(doc, "store") || cJSON_GetObjectItemCaseSensitive(doc, "clock"));
  cJSON_Delete(doc);
  if (skip) { free(config); return 0; }
  runway_session *s = NULL;
  runway_status st = checked(runway_session_open(config, &s), "session_open");
  if (st == RUNWAY_OK) {
    if (!s) fail("session_open OK without a session", NULL);
    take_off_with(s, 0);
    for (int i = 0; i < 30; i++) {
      runway_fix f = {1700000010.0 + i * 2, 46.0502 + i * 0.0001, 14.5002, 302, 3.2, 0, 4, 5};
      checked(runway_push_fix(s, &f), "push_fix");
    }
    checked(runway_lap(s, NAN), "lap");
    land(s, 0); /* stop is refused only if start was (a phase rule) */
  } else if (s) {
    fail("session_open wrote its output on failure", NULL);
  }
  free(config);
  return 0;
}
