/* fuzz_stateful — a byte stream decoded into a sequence of API calls on one session: pushes (JSON,
 * JSON Lines, struct), start, pause, resume, stop, lap, tick, subscribe (poll or callback, with
 * options from a table), unsubscribe (also from inside a callback), poll, snapshot, summary, log
 * and export. Times mostly move forward (so flights get somewhere), sometimes jump or go back.
 * Checked: statuses, JSON outputs, events parse, and a refused push changes no state. */
#include "fuzz_common.h"
#include <stdatomic.h>

typedef struct {
  const uint8_t *p;
  size_t n;
} stream;

static uint8_t byte(stream *s) {
  if (!s->n) return 0;
  s->n--;
  return *s->p++;
}

static uint16_t u16(stream *s) { return (uint16_t)(byte(s) | (byte(s) << 8)); }

static const char *options_table[] = {
    NULL,
    "{}",
    "{\"policy\":\"queue\"}",
    "{\"policy\":\"queue\",\"capacity\":2}",
    "{\"policy\":\"latest\",\"kinds\":[\"flight\",\"tick\"]}",
    "{\"kinds\":[\"phase\",\"log\",\"split\",\"alert\"],\"capacity\":1}",
    "{\"policy\":\"queue\",\"kinds\":[\"split\"]}",
    "{\"policy\":\"latest\"}",
};

static const char *configs[] = {
    NULL,
    "{\"activity\":\"ride\"}",
    "{\"activity\":\"walk\",\"auto_pause\":true,\"auto_lap_m\":200}",
    "{\"filters\":\"off\",\"pace_window_s\":3}",
    "{\"target_pace\":{\"min\":4.0,\"max\":4.5},\"hr_ceiling\":150,\"goal_m\":500,\"auto_lap_m\":100}",
    "{\"count_gaps\":false,\"hr_max\":170,\"elevation_hysteresis_m\":1}",
    "{\"max_route_points\":12,\"distance_filter_m\":0}", /* a route that fills up */
};

static const char *formats[] = {"gpx", "tcx", "fit", "geojson", "csv", "kml"};

#define MAX_SUBS 16

typedef struct {
  runway_session *session;
  _Atomic uint64_t id;     /* this subscription's id, set after subscribe returns */
  atomic_int self_cancel;  /* the callback unsubscribes itself at its next event */
  atomic_long events;
} sub_slot;

static void on_event(const char *event_json, void *user) {
  sub_slot *slot = user;
  if (!json_check(event_json, 0, 1)) fail("an event is not a valid JSON object with a kind", event_json);
  atomic_fetch_add(&slot->events, 1);
  uint64_t id = atomic_load(&slot->id);
  if (id && atomic_exchange(&slot->self_cancel, 0)) {
    runway_status st = runway_unsubscribe(slot->session, id);
    if (st != RUNWAY_OK && st != RUNWAY_ERR_NOT_FOUND) fail("unsubscribe from a callback", runway_last_error());
  }
}

/* The state before every 4th push, to check a refusal changed nothing (the summary carries the
 * whole route, so reading it before every push would make long inputs quadratic); else NULL. */
static char *watch(runway_session *s, unsigned *pushes) {
  return (*pushes)++ % 4 == 0 ? state_of(s) : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  stream in = {data, size};
  unsigned pushes = 0;
  runway_session *s = open_session(configs[byte(&in) % (sizeof configs / sizeof *configs)]);
  /* Slots outlive every callback: runway_session_close() waits for them. */
  sub_slot *slots = calloc(MAX_SUBS, sizeof *slots);
  uint64_t ids[MAX_SUBS] = {0};
  int is_poll[MAX_SUBS] = {0};
  double t = 1700000000.0, lat = 46.05, lon = 14.5;
  char json[512];
  while (in.n) {
    uint8_t op = byte(&in);
    double when = (op & 0x80) ? NAN : t;
    switch (op % 20) {
    case 0: case 1: case 2: case 3: { /* a JSON fix, moving on */
      uint8_t dt = byte(&in), step = byte(&in), acc = byte(&in);
      t += (dt % 16) - 1;
      lat += ((int)(step & 15) - 4) * 0.00002;
      lon += ((int)(step >> 4) - 4) * 0.00002;
      int n;
      if (acc & 1)
        n = snprintf(json, sizeof json, "{\"lat\":%.7f,\"lon\":%.7f,\"t\":%.3f,\"h_acc\":%d,\"alt\":%d,\"speed\":%.2f,\"hr\":%d}",
                     lat, lon, t, acc >> 2, 300 + (step % 7), (dt >> 4) * 0.4, 90 + acc / 2);
      else
        n = snprintf(json, sizeof json, "{\"lat\":%.7f,\"lon\":%.7f,\"t\":%.3f}", lat, lon, t);
      if (n <= 0 || (size_t)n >= sizeof json) abort();
      char *before = watch(s, &pushes);
      if (checked(runway_push_json(s, json), "push_json") != RUNWAY_OK && before) same_state(before, s, "push_json");
      free(before);
      break;
    }
    case 4: { /* a struct fix, any values */
      runway_fix f;
      uint8_t kind = byte(&in);
      f.t = (kind & 1) ? t + (int16_t)u16(&in) : t + 1;
      f.lat = (kind & 2) ? ((int16_t)u16(&in)) / 300.0 : lat;
      f.lon = (kind & 4) ? ((int16_t)u16(&in)) / 150.0 : lon;
      f.alt = (kind & 8) ? NAN : (int16_t)u16(&in);
      f.speed = (kind & 16) ? -1 : byte(&in) / 10.0;
      f.course = byte(&in) * 2.0;
      f.h_acc = (kind & 32) ? NAN : byte(&in);
      f.v_acc = (kind & 64) ? INFINITY : 3;
      char *before = watch(s, &pushes);
      runway_status st = checked(runway_push_fix(s, &f), "push_fix");
      if (st != RUNWAY_OK && before) same_state(before, s, "push_fix");
      else if (f.t > t) t = f.t;
      free(before);
      break;
    }
    case 5: { /* raw bytes as one JSON input */
      uint8_t len = byte(&in);
      char raw[256];
      size_t k = 0;
      while (k < len && in.n) raw[k++] = (char)byte(&in);
      raw[k] = 0;
      char *before = watch(s, &pushes);
      if (checked(runway_push_json(s, raw), "push_json raw") != RUNWAY_OK && before) same_state(before, s, "push_json raw");
      free(before);
      break;
    }
    case 6: { /* a JSON Lines batch of sensor samples and fixes */
      uint8_t lines = byte(&in) % 8;
      char batch[2048];
      size_t used = 0;
      for (uint8_t i = 0; i < lines; i++) {
        uint8_t b = byte(&in);
        t += b & 3;
        int n;
        switch (b >> 6) {
        case 0: n = snprintf(batch + used, sizeof batch - used, "{\"type\":\"hr\",\"bpm\":%d,\"t\":%.1f}\n", 60 + b, t); break;
        case 1:
          n = (b & 4) ? snprintf(batch + used, sizeof batch - used, "{\"type\":\"speed\",\"speed\":%.1f,\"t\":%.1f}\n", (b & 15) * 0.7, t)
                      : snprintf(batch + used, sizeof batch - used, "{\"type\":\"cadence\",\"spm\":%d,\"t\":%.1f}\r\n", b, t);
          break;
        case 2: n = snprintf(batch + used, sizeof batch - used, "{\"type\":\"altimeter\",\"alt\":%d,\"t\":%.1f}\n\n", 250 + (b & 31), t); break;
        default: n = snprintf(batch + used, sizeof batch - used, "{\"lat\":%.7f,\"lon\":%.7f,\"t\":%.1f,\"h_acc\":4}\n", lat += 0.00003, lon, t); break;
        }
        if (n <= 0 || (size_t)n >= sizeof batch - used) break;
        used += (size_t)n;
      }
      size_t acc = 0, rej = 0;
      checked(runway_push_jsonl(s, batch, used, &acc, &rej), "push_jsonl");
      break;
    }
    case 7: checked(runway_start(s, when), "start"); break;
    case 8: checked(runway_pause(s, when), "pause"); break;
    case 9: checked(runway_resume(s, when), "resume"); break;
    case 10: checked(runway_stop(s, when), "stop"); break;
    case 11: checked(runway_lap(s, when), "lap"); break;
    case 12: t += byte(&in) % 4; checked(runway_tick(s, (op & 0x80) ? NAN : t), "tick"); break;
    case 13: { /* subscribe */
      uint8_t b = byte(&in);
      int k = b % MAX_SUBS;
      if (ids[k]) break;
      const char *opts = options_table[(b >> 4) % (sizeof options_table / sizeof *options_table)];
      int poll = b & 0x80 ? 0 : 1;
      sub_slot *slot = &slots[k];
      slot->session = s;
      atomic_store(&slot->id, 0);
      atomic_store(&slot->self_cancel, 0);
      uint64_t id = 0;
      if (checked(runway_subscribe(s, opts, poll ? NULL : on_event, slot, &id), "subscribe") == RUNWAY_OK) {
        ids[k] = id;
        is_poll[k] = poll;
        atomic_store(&slot->id, id);
      }
      break;
    }
    case 14: { /* unsubscribe: from here, or (callbacks) from inside the callback */
      uint8_t b = byte(&in);
      int k = b % MAX_SUBS;
      if (!ids[k]) {
        if (runway_unsubscribe(s, 0x7fffffff00000000ull + k) != RUNWAY_ERR_NOT_FOUND) fail("unknown id not NOT_FOUND", NULL);
        break;
      }
      if (!is_poll[k] && (b & 0x80)) {
        atomic_store(&slots[k].self_cancel, 1); /* may or may not happen before close */
      } else {
        runway_status st = runway_unsubscribe(s, ids[k]);
        if (st != RUNWAY_OK && st != RUNWAY_ERR_NOT_FOUND) fail("unsubscribe", runway_last_error());
      }
      ids[k] = 0; /* the slot is not reused: a self-cancelling callback may still hold it */
      break;
    }
    case 15: { /* poll every poll subscription until empty */
      for (int k = 0; k < MAX_SUBS; k++) {
        if (!ids[k] || !is_poll[k]) continue;
        for (int i = 0; i < 100000; i++) {
          char *ev = NULL;
          if (checked(runway_poll(s, ids[k], &ev), "poll") != RUNWAY_OK) fail("poll failed", runway_last_error());
          if (!ev) break;
          check_json(ev, 0, "poll");
          runway_string_free(ev);
        }
      }
      break;
    }
    case 16: { char *o = NULL; if (checked(runway_snapshot_json(s, &o), "snapshot") == RUNWAY_OK) check_json(o, 0, "snapshot"); else fail("snapshot failed", NULL); runway_string_free(o); break; }
    case 17: { char *o = NULL; if (checked(runway_summary_json(s, &o), "summary") == RUNWAY_OK) check_json(o, 0, "summary"); else fail("summary failed", NULL); runway_string_free(o); break; }
    case 18: { char *o = NULL; if (checked(runway_log_json(s, &o), "log") == RUNWAY_OK) check_json(o, 1, "log"); else fail("log failed", NULL); runway_string_free(o); break; }
    case 19: { /* export */
      const char *format = formats[byte(&in) % (sizeof formats / sizeof *formats)];
      char *o = NULL;
      size_t len = 0;
      runway_status st = checked(runway_export(s, format, &o, &len), "export");
      if (st == RUNWAY_OK && !o) fail("export OK without output", format);
      if (st == RUNWAY_OK && (!strcmp(format, "geojson"))) check_json(o, 0, "export geojson");
      runway_string_free(o);
      break;
    }
    }
  }
  runway_session_close(s);
  free(slots);
  return 0;
}
