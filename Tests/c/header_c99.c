/*
 * header_c99.c — compile-only check of include/runway.h.
 *
 * Built by Tests/c/run.sh as C99 (gcc -std=c99 -Wall -Wextra -Werror -pedantic)
 * and as C++11 (g++ -x c++ -Werror). Every declared function is assigned to a
 * pointer of the exact type the contract gives it, so a missing declaration or
 * a changed signature fails to compile. Every type, enumerator and macro is
 * used. Nothing here is linked or run.
 */
#include "runway.h"

#include <stddef.h>
#include <stdint.h>

/* The contract's signatures, spelled out independently of the header. */
typedef uint32_t (*abi_version_t)(void);
typedef const char *(*version_t)(void);
typedef const char *(*last_error_t)(void);
typedef const char *(*status_string_t)(runway_status);
typedef runway_status (*session_open_t)(const char *, runway_session **);
typedef void (*session_close_t)(runway_session *);
typedef runway_status (*push_json_t)(runway_session *, const char *);
typedef runway_status (*push_jsonl_t)(runway_session *, const char *, size_t, size_t *, size_t *);
typedef runway_status (*push_fix_t)(runway_session *, const runway_fix *);
typedef runway_status (*at_time_t)(runway_session *, double);
typedef runway_status (*json_out_t)(runway_session *, char **);
typedef void (*string_free_t)(char *);
typedef void (*event_fn_t)(const char *, void *);
typedef runway_status (*subscribe_t)(runway_session *, const char *, runway_event_fn, void *,
                                     uint64_t *);
typedef runway_status (*poll_t)(runway_session *, uint64_t, char **);
typedef runway_status (*unsubscribe_t)(runway_session *, uint64_t);
typedef size_t (*format_t)(double, char *, size_t);
typedef runway_status (*recording_t)(const char *, const char *, size_t, char **, size_t *);
typedef runway_status (*analyse_route_t)(const char *, const char *, size_t, char **, size_t *,
                                         runway_route_point **, size_t *);
typedef void (*route_free_t)(runway_route_point *);
typedef runway_status (*replay_config_t)(const char *, const char *, char **);

struct api {
  abi_version_t abi_version;
  version_t version;
  last_error_t last_error;
  status_string_t status_string;
  session_open_t session_open;
  session_close_t session_close;
  push_json_t push_json;
  push_jsonl_t push_jsonl;
  push_fix_t push_fix;
  at_time_t tick, start, pause, resume, stop;
  json_out_t snapshot_json, summary_json, log_json;
  string_free_t string_free;
  subscribe_t subscribe;
  poll_t poll;
  unsubscribe_t unsubscribe;
  format_t format_pace, format_pace_tape, format_direction, format_heading_tape, format_time,
      format_distance, format_altitude;
  recording_t import;
  replay_config_t replay_config;
  recording_t analyse;
  analyse_route_t analyse_route;
  route_free_t route_free;
};

/* Every function of the header, by address. */
static const struct api the_api = {
    runway_abi_version,
    runway_version,
    runway_last_error,
    runway_status_string,
    runway_session_open,
    runway_session_close,
    runway_push_json,
    runway_push_jsonl,
    runway_push_fix,
    runway_tick,
    runway_start,
    runway_pause,
    runway_resume,
    runway_stop,
    runway_snapshot_json,
    runway_summary_json,
    runway_log_json,
    runway_string_free,
    runway_subscribe,
    runway_poll,
    runway_unsubscribe,
    runway_format_pace,
    runway_format_pace_tape,
    runway_format_direction,
    runway_format_heading_tape,
    runway_format_time,
    runway_format_distance,
    runway_format_altitude,
    runway_import,
    runway_replay_config,
    runway_analyse,
    runway_analyse_route,
    runway_route_free,
};

/* The callback typedef must be exactly void(const char *, void *). */
static void on_event(const char *event_json, void *user) {
  (void)event_json;
  (void)user;
}
static const runway_event_fn callback = on_event;
static const event_fn_t callback_same_type = (runway_event_fn)0;

/* runway_fix: the eight doubles of the contract, in order, nothing else. */
typedef char fix_is_eight_doubles[sizeof(runway_fix) == 8 * sizeof(double) ? 1 : -1];
typedef char fix_t_first[offsetof(runway_fix, t) == 0 ? 1 : -1];
typedef char fix_order_lat[offsetof(runway_fix, lat) == 1 * sizeof(double) ? 1 : -1];
typedef char fix_order_lon[offsetof(runway_fix, lon) == 2 * sizeof(double) ? 1 : -1];
typedef char fix_order_alt[offsetof(runway_fix, alt) == 3 * sizeof(double) ? 1 : -1];
typedef char fix_order_speed[offsetof(runway_fix, speed) == 4 * sizeof(double) ? 1 : -1];
typedef char fix_order_course[offsetof(runway_fix, course) == 5 * sizeof(double) ? 1 : -1];
typedef char fix_order_h_acc[offsetof(runway_fix, h_acc) == 6 * sizeof(double) ? 1 : -1];
typedef char fix_order_v_acc[offsetof(runway_fix, v_acc) == 7 * sizeof(double) ? 1 : -1];

/* runway_route_point: lat, lon, alt, t as doubles, in order, nothing else. */
typedef char point_is_four_doubles[sizeof(runway_route_point) == 4 * sizeof(double) ? 1 : -1];
typedef char point_order[(offsetof(runway_route_point, lat) == 0 &&
                          offsetof(runway_route_point, lon) == sizeof(double) &&
                          offsetof(runway_route_point, alt) == 2 * sizeof(double) &&
                          offsetof(runway_route_point, t) == 3 * sizeof(double))
                             ? 1
                             : -1];

/* The status values are part of the ABI. */
typedef char status_values[(RUNWAY_OK == 0 && RUNWAY_ERR_ARGUMENT == 1 && RUNWAY_ERR_JSON == 2 &&
                            RUNWAY_ERR_INPUT == 3 && RUNWAY_ERR_STATE == 4 &&
                            RUNWAY_ERR_NOT_FOUND == 5 && RUNWAY_ERR_STORE == 6 &&
                            RUNWAY_ERR_INTERNAL == 7 && RUNWAY_ERR_LIMIT == 8)
                               ? 1
                               : -1];

/* Macros: present and of the documented kind. */
typedef char abi_version_macro[RUNWAY_ABI_VERSION >= 1 ? 1 : -1];
typedef char version_macros[(RUNWAY_VERSION_MAJOR >= 0 && RUNWAY_VERSION_MINOR >= 0 &&
                             RUNWAY_VERSION_PATCH >= 0)
                                ? 1
                                : -1];
typedef char limits[(RUNWAY_MAX_INPUT_BYTES > 0 && RUNWAY_MAX_SUBSCRIBERS > 0 &&
                     RUNWAY_MAX_JSON_DEPTH > 0 && RUNWAY_MAX_ROUTE_POINTS > 0 && RUNWAY_MAX_LAPS > 1 &&
                     RUNWAY_DEFAULT_QUEUE_CAPACITY > 0 &&
                     RUNWAY_DEFAULT_QUEUE_CAPACITY <= RUNWAY_MAX_QUEUE_CAPACITY &&
                     RUNWAY_LOG_LINES > 0)
                        ? 1
                        : -1];
static const char version_string[] = RUNWAY_VERSION_STRING;

/* Referenced so that -Wunused does not fire; never called. */
size_t header_c99_use(void);
size_t header_c99_use(void) {
  runway_session *session = NULL;
  runway_fix fix = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  runway_status status = RUNWAY_OK;
  fix_is_eight_doubles a;
  fix_t_first b;
  fix_order_lat c;
  fix_order_lon d;
  fix_order_alt e;
  fix_order_speed f;
  fix_order_course g;
  fix_order_h_acc h;
  fix_order_v_acc i;
  status_values j;
  abi_version_macro k;
  version_macros l;
  limits m;
  point_is_four_doubles n;
  point_order o;
  runway_route_point point = {0.0, 0.0, 0.0, 0.0};
  (void)n;
  (void)o;
  (void)point;
  (void)session;
  (void)fix;
  (void)status;
  (void)a; (void)b; (void)c; (void)d; (void)e; (void)f; (void)g; (void)h; (void)i;
  (void)j; (void)k; (void)l; (void)m;
  (void)callback;
  (void)callback_same_type;
  return sizeof the_api + sizeof version_string;
}
