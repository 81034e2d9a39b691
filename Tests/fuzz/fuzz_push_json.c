/* fuzz_push_json — runway_push_json on a flight in cruise: any bytes as one input. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *json = nul_copy(data, size);
  runway_session *s = open_session(NULL);
  take_off(s);
  /* The state after take_off() is the same every time (replay clock): read it once. */
  static char *before;
  if (!before) before = state_of(s);
  runway_status st = checked(runway_push_json(s, json), "push_json");
  if (st != RUNWAY_OK) same_state(before, s, "push_json");
  char *log = NULL;
  if (runway_log_json(s, &log) != RUNWAY_OK) fail("log failed", runway_last_error());
  check_json(log, 1, "log_json");
  runway_string_free(log);
  land(s, 1);
  free(json);
  return 0;
}
