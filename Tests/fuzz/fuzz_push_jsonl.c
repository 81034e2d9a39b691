/* fuzz_push_jsonl — runway_push_jsonl on a flight in cruise: any bytes as a batch (NULs included). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  runway_session *s = open_session(NULL);
  take_off(s);
  static char *before; /* the same after every take_off() (replay clock): read once */
  if (!before) before = state_of(s);
  size_t accepted = (size_t)-1, rejected = (size_t)-1;
  runway_status st = checked(runway_push_jsonl(s, (const char *)data, size, &accepted, &rejected), "push_jsonl");
  if (accepted == (size_t)-1 || rejected == (size_t)-1) fail("push_jsonl did not write its counts", NULL);
  if ((st == RUNWAY_OK) != (rejected == 0)) fail("status and rejected count disagree", NULL);
  if (accepted == 0) same_state(before, s, "push_jsonl with nothing accepted");
  land(s, 1);
  return 0;
}
