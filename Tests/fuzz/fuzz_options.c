/* fuzz_options — runway_subscribe with any bytes as its options, as a poll subscription and as a
 * callback subscription (both must give the same status); accepted ones then see a short flight. */
#include "fuzz_common.h"
#include <stdatomic.h>

static atomic_long delivered;

static void on_event(const char *event_json, void *user) {
  (void)user;
  if (!json_check(event_json, 0, 1)) fail("an event is not a valid JSON object with a kind", event_json);
  atomic_fetch_add(&delivered, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *options = nul_copy(data, size);
  runway_session *s = open_session(NULL);
  uint64_t poll_id = 0, cb_id = 0;
  runway_status a = checked(runway_subscribe(s, options, NULL, NULL, &poll_id), "subscribe poll");
  runway_status b = checked(runway_subscribe(s, options, on_event, NULL, &cb_id), "subscribe callback");
  if (a != b) fail("poll and callback subscriptions disagree on the same options", options);
  if (a == RUNWAY_OK) {
    if (!poll_id || !cb_id || poll_id == cb_id) fail("bad subscription ids", NULL);
    take_off(s);
    for (int i = 0; i < 20; i++) {
      runway_fix f = {1700000010.0 + i, 46.0502 + i * 0.00003, 14.5002, 302, 3.2, 0, 4, 5};
      checked(runway_push_fix(s, &f), "push_fix");
    }
    for (int i = 0; i < 5000; i++) {
      char *ev = NULL;
      if (checked(runway_poll(s, poll_id, &ev), "poll") != RUNWAY_OK) fail("poll failed", runway_last_error());
      if (!ev) break;
      check_json(ev, 0, "poll");
      runway_string_free(ev);
    }
    if (runway_unsubscribe(s, poll_id) != RUNWAY_OK) fail("unsubscribe failed", runway_last_error());
    if (runway_unsubscribe(s, poll_id) != RUNWAY_ERR_NOT_FOUND) fail("second unsubscribe not NOT_FOUND", NULL);
  } else if (poll_id || cb_id) {
    fail("subscribe wrote its id on failure", NULL);
  }
  runway_session_close(s);
  free(options);
  return 0;
}
