/*
 * runway.h — the C interface of librunway, a run-tracking engine.
 *
 * A host pushes GPS fixes and sensor samples in as JSON (or as a plain struct);
 * the engine turns them into live flight data (FlightData snapshots), discrete
 * events (phase changes, log lines, ticks) and, at the end, a flight record.
 *
 * Conventions that hold for every function below
 * ----------------------------------------------
 *  - Every fallible call returns a runway_status. Outputs come last and are
 *    written only on success (runway_push_jsonl always writes its counts).
 *  - On failure, runway_last_error() returns a message for the calling thread.
 *    Decide success from the status, never from the message.
 *  - Bad input never crashes the host and changes no run state.
 *  - Strings the library returns through `char **out` are the caller's; free
 *    them with runway_string_free(). Strings returned as `const char *` are
 *    owned by the library (see each function). An array of structs returned
 *    through `T **out` with its count (runway_analyse_route) is the caller's
 *    too; free it with the function its description names, never free().
 *  - Every function is safe to call from any thread, concurrently, on the same
 *    session. A closed session handle must not be used again (as with free()).
 *  - Callbacks run on threads the library owns, never while a library lock is
 *    held: a callback may call back into the library (snapshot, poll,
 *    unsubscribe itself or another subscription, push) — except
 *    runway_session_close(), which it must not call (detected and refused).
 *  - Times are unix seconds (double). In calls that take a time, NaN means
 *    "now": the wall clock with a live clock, the latest input's time with the
 *    replay clock (the default).
 *  - Numbers in JSON output that are unknown are `null`, never NaN or Infinity.
 *
 * Limits (docs/limits.md has the table). Every one is refused with
 * RUNWAY_ERR_LIMIT and a message naming the limit and the value; a refused
 * call changes no run state; a refused input is logged, like any rejected
 * input (a refused config, option or subscription has runway_last_error()):
 *  - one JSON input (a fix, a config, options, or one JSON Lines line, its
 *    "\n" or "\r\n" not counted) is at most RUNWAY_MAX_INPUT_BYTES bytes;
 *  - it is nested at most RUNWAY_MAX_JSON_DEPTH levels deep (the root object
 *    is level 1), checked by a scan before any parsing;
 *  - a session has at most RUNWAY_MAX_SUBSCRIBERS subscriptions at a time;
 *  - a queue subscription holds at most RUNWAY_MAX_QUEUE_CAPACITY events
 *    ("capacity" above it is refused; its other bad values are
 *    RUNWAY_ERR_ARGUMENT);
 *  - a flight's route holds at most the config's "max_route_points" points
 *    (default and largest value RUNWAY_MAX_ROUTE_POINTS). Once it is full, a
 *    fix that would add a point is refused; fixes that add none (filtered,
 *    within the distance filter, before start, while holding; a point due
 *    only for time or a stop is not kept and refuses nothing), samples, phase
 *    changes, laps, ticks, the summary and exports still work. Resuming or
 *    starting on a full route adds no point;
 *  - a flight has at most RUNWAY_MAX_LAPS laps, its final lap included. At
 *    RUNWAY_MAX_LAPS - 1 laps, auto laps stop (a "warning" log line says so;
 *    the rest of the flight is its final lap) and runway_lap is refused.
 *
 * Memory (measured with benchmarks/bench_mem.c on x86-64 Linux, glibc; RSS
 * is resident memory, VM reserved address space):
 *  - a session: about 1.3 MB of RSS when opened (the first one in a process
 *    includes the library's one-time set-up), no thread of its own (a live
 *    clock adds the process's one shared ticker thread);
 *  - a route point: 32 bytes (at most, by design; "max_route_points"
 *    bounds it);
 *  - a callback subscriber: one delivery thread with a 256 KiB stack (VM;
 *    10-40 KB of it resident) and its queue (a pointer per queued event);
 *    the thread allocates nothing itself, so glibc gives it no malloc arena
 *    of its own, unless the host's callback allocates;
 *  - a poll subscriber: its queue only;
 *  - a subscriber of flight snapshots with policy "latest" (the default):
 *    one snapshot buffer of about 2.5 KB, kept to be refilled;
 *  - an event waiting in queues: its JSON once (about 1.2 KB for a flight
 *    snapshot), shared by every subscriber.
 * One session with 4 callback subscribers after an hour at 1 Hz: 16 MB of
 * VM and 8 MB of RSS for the whole process (bench_mem host 3600 4).
 */
#ifndef RUNWAY_H
#define RUNWAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions ---------------------------------------------------------- */

#define RUNWAY_ABI_VERSION 1          /* bumped on any incompatible ABI change */
#define RUNWAY_VERSION_MAJOR 0
#define RUNWAY_VERSION_MINOR 1
#define RUNWAY_VERSION_PATCH 0
#define RUNWAY_VERSION_STRING "0.1.0"

#define RUNWAY_MAX_INPUT_BYTES (1024 * 1024)
/* Inputs are at most 3 levels deep (a config's "target_pace" object is level
 * 2); 64 leaves room for unknown nested keys while keeping the parser's
 * recursion (and a hostile input's cost) small and far below cJSON's own 1000. */
#define RUNWAY_MAX_JSON_DEPTH 64
#define RUNWAY_MAX_SUBSCRIBERS 256
#define RUNWAY_MAX_QUEUE_CAPACITY 65536
/* 1 000 000 points is 11.5 days at one point a second, about 32 MB of route
 * (32 bytes a point); a host with less memory sets "max_route_points" lower,
 * or "distance_filter_m" higher (fewer points): once the route is full, a fix
 * that would add a point is refused (RUNWAY_ERR_LIMIT), so distance and time
 * stop there; size it for the longest flight (docs/limits.md). */
#define RUNWAY_MAX_ROUTE_POINTS 1000000
/* The most laps a flight has, its final lap included: 50 000 km of 1 km laps,
 * a summary of about 10 MB, and within a FIT file's 16-bit lap index. */
#define RUNWAY_MAX_LAPS 50000
#define RUNWAY_DEFAULT_QUEUE_CAPACITY 1024
#define RUNWAY_LOG_LINES 20

/* ---- Types --------------------------------------------------------------- */

/** An open session: one flight. Opaque; created by runway_session_open(). */
typedef struct runway_session runway_session;

/** One GPS fix for runway_push_fix(). NaN = unknown. A negative finite speed,
 *  course, h_acc or v_acc also means unknown (as on phones); a negative v_acc
 *  makes alt unknown too (CoreLocation's invalid altitude: -1 with alt 0).
 *  `t` may be NaN only with the live clock ("now"). */
typedef struct runway_fix {
  double t;      /* unix seconds */
  double lat;    /* degrees, -90..90, required */
  double lon;    /* degrees, -180..180, required */
  double alt;    /* metres above sea level */
  double speed;  /* m/s, from the receiver (Doppler) */
  double course; /* degrees clockwise from true north, 0..360 */
  double h_acc;  /* horizontal accuracy, metres */
  double v_acc;  /* vertical accuracy, metres */
} runway_fix;

typedef enum runway_status {
  RUNWAY_OK = 0,
  RUNWAY_ERR_ARGUMENT = 1,  /* NULL pointer, bad config or options */
  RUNWAY_ERR_JSON = 2,      /* not JSON, or not a JSON object (also invalid UTF-8, a NUL byte) */
  RUNWAY_ERR_INPUT = 3,     /* well-formed but invalid: missing/ill-typed field, out of range,
                               non-finite, time going backwards */
  RUNWAY_ERR_STATE = 4,     /* not allowed in the session's current phase */
  RUNWAY_ERR_NOT_FOUND = 5, /* unknown subscription or record */
  RUNWAY_ERR_STORE = 6,     /* storage failure */
  RUNWAY_ERR_INTERNAL = 7,
  RUNWAY_ERR_LIMIT = 8      /* a documented limit was reached (see "Limits" above): input bytes,
                               nesting depth, subscribers, queue capacity, route points, laps */
} runway_status;

/* ---- Library ------------------------------------------------------------- */

/** The ABI version of the loaded library; compare with RUNWAY_ABI_VERSION. */
uint32_t runway_abi_version(void);

/** The library's version, e.g. "0.1.0". Static storage; never free it. */
const char *runway_version(void);

/** The message of the calling thread's last failed call, or "" if none.
 *  Owned by the library; valid until this thread's next failing call. */
const char *runway_last_error(void);

/** A fixed description of a status (like sqlite3_errstr). Static storage. */
const char *runway_status_string(runway_status status);

/* ---- Sessions ------------------------------------------------------------ */

/** Open a session (one flight) in phase "preflight".
 *
 *  config_json may be NULL or "" (all defaults) or a JSON object with any of
 *  (docs/inputs.md, "Session config", has the whole table):
 *    "clock": "replay" (default: times come from inputs; a replay is
 *             deterministic) | "live" (times may be omitted and are taken
 *             from the wall clock; a shared 1 Hz ticker emits "tick" events
 *             and advances elapsed time between fixes while in cruise)
 *    "activity": "run" (default) | "walk" | "ride"   the profile
 *    "filters": "on" (default: gate + track filter) | "off" (raw accumulation)
 *    "required_accuracy_m": 50, "speed_cap_mps": per activity, "gap_s": 30,
 *    "jump_m": 200, "count_gaps": true, "distance_filter_m": 5,
 *    "pace_window_s": 10, "auto_pause": per activity, "auto_lap_m": 1000,
 *    "hr_max": 190, "elevation_hysteresis_m": 3 (GPS; a third for a barometer),
 *    "position_sigma_m": 3 (0.1..100: the least position noise the track
 *             filter assumes; lower only for positions known to be clean),
 *    "fix_altitude": "gps" (default) | "barometric" (fixes' alt is the
 *             device's barometric altitude, as in a watch's recording),
 *    "target_pace": {"min":M,"max":N} (min/km), "target_power":
 *             {"min":W,"max":W} (watts: GPWS_POWER_LOW/HIGH on the 3 s power),
 *    "hr_ceiling": N, "goal_m": N,
 *    "minimums_m": [1000, 400], "simplify_m": 2 (the simplified route's
 *             tolerance in the record),
 *    "max_route_points": 1..RUNWAY_MAX_ROUTE_POINTS (default
 *             RUNWAY_MAX_ROUTE_POINTS): the most points the route keeps
 *  Unknown keys, a key given twice (in a nested object too), wrong types,
 *  out-of-range values, and a config that is not a
 *  JSON object at all are RUNWAY_ERR_ARGUMENT (a config is an argument, not
 *  an input); a config over a limit ("Limits" above, including a
 *  "max_route_points" above RUNWAY_MAX_ROUTE_POINTS) is RUNWAY_ERR_LIMIT; a
 *  config that is not valid UTF-8 is RUNWAY_ERR_JSON, its message the byte where
 *  and the text before it (a store path that is not UTF-8 names itself; JSON
 *  carries only UTF-8). On success *out receives the session; close it with
 *  runway_session_close(). */
runway_status runway_session_open(const char *config_json, runway_session **out);

/** Close a session: delivers to each callback subscription the events
 *  already queued for it (a "latest" one its newest snapshot), ends all its
 *  subscriptions, waits until none of its callbacks is running and every
 *  delivery thread it started has exited (joined), frees it. NULL is a no-op. Must not be called from
 *  inside a callback: that is detected, nothing is closed, and
 *  runway_last_error() says so. While it delivers, a callback's push, phase
 *  command, lap or subscribe on this session is RUNWAY_ERR_STATE. */
void runway_session_close(runway_session *s);

/* ---- Inputs -------------------------------------------------------------- */

/** Push one input as a JSON object (NUL-terminated UTF-8):
 *    a fix:     {"lat":..,"lon":..,"t":..,"alt":..,"speed":..,"course":..,
 *                "h_acc":..,"v_acc":..,"hr":..,"cadence":..,"power":..}  (lat,
 *                lon required; t required with the replay clock; "type":"fix"
 *                is optional; hr/cadence on a fix count as samples at its
 *                time; power is watts 0..5000)
 *    a sample:  {"type":"hr","bpm":148,"t":..}  {"type":"cadence","spm":172,"t":..}
 *               {"type":"altimeter","alt":123.4,"t":..} (barometric altitude, m)
 *               {"type":"speed","speed":3.1,"t":..} (a speed sensor's: a wheel,
 *               a foot pod, a treadmill; 0..100 m/s. It measures distance and
 *               moving time where positions are silent: before the first fix
 *               in cruise, and once no fix came for three of the receiver's
 *               intervals, at most gap_s (a tunnel: 3 s at 1 Hz), when the
 *               snapshot's speed_mps is its speed; while fixes come, nothing:
 *               docs/inputs.md; sensor_distance_m)
 *               {"type":"power","watts":245,"t":..} (0..5000 W: the snapshot's
 *               power_w (3 s) and power_10s_w, the flight's, the lap in
 *               progress's (lap_*) and each lap's avg_power_w, max_power_w and
 *               normalized_power_w, the exports' per-point power)
 *    a start, pause or resume: {"type":"start","t":..}  {"type":"pause","t":..}
 *               {"type":"resume","t":..} (as runway_import writes a recording's
 *               timer): the same as runway_start / runway_pause / runway_resume
 *               at t (null or absent t: now), with their statuses (a start line
 *               after the start is RUNWAY_ERR_STATE, unless at the flight's own
 *               start time: already true, RUNWAY_OK, or the start's time is
 *               still pending: the line gives it); a refused one is logged
 *               like an input
 *    a lap:     {"type":"lap","t":..}: the same as runway_lap at t (null or
 *               absent t: now), journaled as the lap, with its statuses (before
 *               the start, after the stop or with nothing since the last lap
 *               RUNWAY_ERR_STATE; t not a number, out of range or before the
 *               latest input RUNWAY_ERR_INPUT); a refused one is logged like
 *               an input
 *    a device lap: {"type":"device_lap","t":..,"trigger":"distance"} (as
 *               runway_import writes a recording's laps): while auto laps are
 *               off, the lap line above, the lap's trigger the device's (manual,
 *               time, distance, position_start, position_lap, position_waypoint,
 *               position_marked, session_end, fitness_equipment, heart_rate;
 *               absent or null: manual; another RUNWAY_ERR_INPUT); with auto laps
 *               on accepted and changes nothing (docs/formats.md "Laps")
 *    runway_import's report line {"type":"import_report",...}: accepted and
 *               ignored (RUNWAY_OK, no state change, no event, not journaled)
 *  t is unix seconds, 0 <= t < 1e11 (1970 to year 5138): earlier placeholder times
 *  are RUNWAY_ERR_INPUT. A null value means unknown; unknown keys are ignored (a
 *  session logs a warning the first time it takes each, at most 8 of them:
 *  docs/inputs.md). Returns when the input is processed: a snapshot
 *  read afterwards reflects it. Fixes before start update the live position
 *  but add no distance; fixes while holding (paused) add none either (but the
 *  first after a pause that came after the leg's last fix counts the share of
 *  its step before the pause: docs/inputs.md, Phases); a valid
 *  input after stop is RUNWAY_ERR_STATE (the record is complete; an invalid
 *  one is still RUNWAY_ERR_JSON or RUNWAY_ERR_INPUT). An input
 *  over a limit (its size, its depth, a fix that would add a point to a full
 *  route) is RUNWAY_ERR_LIMIT. */
runway_status runway_push_json(runway_session *s, const char *json);

/** Push a JSON Lines batch (one input, or pause or resume, per line, blank lines skipped, "\r\n"
 *  accepted). Every line is processed, good or bad; *accepted and *rejected
 *  (either may be NULL) always receive the counts. Returns RUNWAY_OK when every
 *  line was accepted, else the status of the first rejected line, whose
 *  message names its line number (1-based). A line longer than
 *  RUNWAY_MAX_INPUT_BYTES (its terminator not counted) is rejected with
 *  RUNWAY_ERR_LIMIT without being parsed; the batch itself has no size limit.
 *  buf may be NULL when len is 0; a len over PTRDIFF_MAX (as runway_import's and
 *  runway_analyse's) is RUNWAY_ERR_ARGUMENT, nothing read. */
runway_status runway_push_jsonl(runway_session *s, const char *buf, size_t len,
                                size_t *accepted, size_t *rejected);

/** Push one fix as a struct: the fast path, same rules as a JSON fix. */
runway_status runway_push_fix(runway_session *s, const runway_fix *fix);

/** Advance the session's clock to t without a fix (NaN = now). While in
 *  cruise this advances elapsed time and emits a "tick" event; after stop it
 *  changes nothing (a time before the latest input is still RUNWAY_ERR_INPUT).
 *  Hosts with their own 1 Hz timer call it; the live clock calls it for them.
 *  A tick measures nothing: an input stamped before it but not before the
 *  latest input, command or lap is still taken at its own time (a location
 *  delivered late, a GPS time a second behind the wall clock); the clock does
 *  not go back, and heart rate, cadence and power are integrated up to that
 *  input. A tick before the latest tick is RUNWAY_ERR_INPUT.
 *  With a store, a tick that moves the clock once the flight has started is
 *  journaled like an input (and RUNWAY_ERR_STORE when that fails, nothing
 *  changed); one before the start moves no figure and is not. */
runway_status runway_tick(runway_session *s, double t);

/* ---- Flight phases ------------------------------------------------------- */
/* preflight -> cruise (start) <-> holding (pause/resume) -> touchdown (stop,
 * from cruise or holding). Any other transition is RUNWAY_ERR_STATE and
 * changes nothing; a session is one flight. A start at the flight's own
 * start time (the same t) before the stop is already true: RUNWAY_OK, and
 * nothing changes (no event, nothing stored; paused, it stays paused), so a
 * host may start a replay at its first line's time and push every line, a
 * start line too. A start whose time is still pending (t = NaN before any
 * input) takes the next input's time: a start line with a time is such an
 * input and gives it (RUNWAY_OK, as runway_tick(t) would: a "tick" event,
 * journaled as one), so a host may also start a replay with NaN and push every
 * line. Each change emits a "phase" event,
 * then a "log" line, then a "flight" snapshot, in that seq order.
 * With the replay clock and t = NaN, the time is the latest time (an input's, a
 * command's or a tick's: inputs stamped before a tick leave the clock at the
 * tick), or, before any input, that of the next one (the events of that call then carry
 * "t": null; the summary's start_t/end_t get the next input's time). A t before the latest input
 * or tick is RUNWAY_ERR_INPUT. */

runway_status runway_start(runway_session *s, double t);
runway_status runway_pause(runway_session *s, double t);
runway_status runway_resume(runway_session *s, double t);
runway_status runway_stop(runway_session *s, double t);

/** A manual lap at t (NaN = now): ends the current lap and emits a "split"
 *  event. Allowed in cruise and holding (else RUNWAY_ERR_STATE); with nothing
 *  since the last lap, RUNWAY_ERR_STATE; with RUNWAY_MAX_LAPS - 1 laps, or
 *  with 100 laps already waiting for the next fix (below), RUNWAY_ERR_LIMIT.
 *  Auto-laps (config "auto_lap_m") keep their boundaries at
 *  multiples of that distance from the start. In cruise, a lap later than the
 *  latest fix or speed sample (between two fixes, as "now" is under the live
 *  clock) waits for the next: its "split" comes with it (or with the next command), timed
 *  at t, with the share of that step's distance its time makes (inside a gap,
 *  the gap's line up to t). While a gap's distance waits for the fix that
 *  confirms it, the lap waits for that fix too, and so does one asked for
 *  between a pause and the fix after it when the pause came after the leg's
 *  last fix (that fix measures the stretch before the pause), and one asked for while steps
 *  before it are held (the runner seemed to stand, movement not yet confirmed; or, moving, steps
 *  with a Doppler speed under a walker's, for up to 20 s): until they are credited (the lap
 *  takes those before t) or can no longer be (a quiet stretch, a pause or auto-pause, the stop,
 *  positions falling silent while speed samples measure on: the held steps are then judged as
 *  at a pause). A lap at the latest fix's time (the replay clock's "now") with nothing held is cut at
 *  once, as is one before any fix was
 *  accepted or speed sample came (nothing would measure its step). */
runway_status runway_lap(runway_session *s, double t);

/* ---- Outputs ------------------------------------------------------------- */

/** The latest FlightData snapshot as JSON (the same object a "flight" event
 *  carries, with the seq of the latest flight event; a rejected input does not change it, a tick
 *  moves its clock: t and, in cruise, elapsed_s, keeping the seq). "last_fix_t" is the time of
 *  the fix lat/lon/speed_mps come from (null before any; speed_mps is a speed sample's where one
 *  measures the flight after it); once the clock is past it by more than pace_window_s (or the
 *  last step, when longer), speed_mps is null and "accuracy" "unknown", and so are
 *  ground_speed_mps and the pace when no fix or speed sample measured them since (docs/events.md).
 *  Power: power_w (the last 3 s of samples), power_10s_w (the covered power of the last 10 s),
 *  the flight's avg/max/normalized_power_w, and lap_avg_power_w, lap_max_power_w and
 *  lap_normalized_power_w, the lap in progress's: what its "split" gives if it ends at the
 *  latest input (a tick moves the clock, not the power figures: they are taken up to each input).
 *  Free *out with runway_string_free(). */
runway_status runway_snapshot_json(runway_session *s, char **out);

/** The flight record so far (complete after stop: inputs after it are
 *  RUNWAY_ERR_STATE and a tick changes nothing): start_t, end_t, elapsed_s,
 *  distance_m, averages, maxima, and the route as [[lat, lon, alt|null, t],...].
 *  Free *out with runway_string_free(). */
runway_status runway_summary_json(runway_session *s, char **out);

/** The last RUNWAY_LOG_LINES log lines (oldest first) as a JSON array of log
 *  events. Free *out with runway_string_free(). */
runway_status runway_log_json(runway_session *s, char **out);

/** Free a string returned by the library. NULL is a no-op. */
void runway_string_free(char *p);

/* ---- Subscriptions ------------------------------------------------------- */

/** Receives one event as a NUL-terminated JSON object. event_json is valid
 *  only during the call; copy it to keep it. Runs on a thread the library
 *  owns (one per callback subscription), never concurrently with itself,
 *  never while a library lock is held. It may call any runway_* function
 *  except runway_session_close() on its own session. */
typedef void (*runway_event_fn)(const char *event_json, void *user);

/** Subscribe to the session's events, from the next one on (no replay: read
 *  the snapshot for the current state).
 *
 *  options_json may be NULL or "" (all defaults) or an object with any of:
 *    "kinds": ["flight","phase","tick","log","split","alert"] (default all)
 *    "policy": "latest" (default: flight and tick snapshots coalesce to the
 *              newest, and a callback gets at most one flight snapshot per
 *              0.25 ms interval (intervals shared by the session's callbacks,
 *              which share one snapshot written in the last 62 us; the
 *              newest always follows); discrete events are queued, up to
 *              RUNWAY_DEFAULT_QUEUE_CAPACITY, and never held back)
 *              | "queue" (every event in order)
 *    "capacity": N  queue length, 1..RUNWAY_MAX_QUEUE_CAPACITY (default
 *              RUNWAY_DEFAULT_QUEUE_CAPACITY). When full, newer events are
 *              dropped and counted; after the events queued before them,
 *              an event {"kind":"overflow","seq":<last dropped seq>,"dropped":N}
 *              comes, in seq order like every event (a subscription's seq always
 *              increases), whatever the subscription's "kinds".
 *  Unknown keys or kinds, a key given twice, and a capacity that is not an
 *  integer >= 1, are RUNWAY_ERR_ARGUMENT.
 *
 *  fn != NULL: events are delivered to fn(event_json, user) on a library
 *  thread. fn == NULL: a poll subscription; read it with runway_poll().
 *  *out_id receives the subscription's id (never 0). A session already holding
 *  RUNWAY_MAX_SUBSCRIBERS subscriptions refuses with RUNWAY_ERR_LIMIT, as it
 *  does a "capacity" above RUNWAY_MAX_QUEUE_CAPACITY. Called from a callback
 *  while its session closes (runway_session_close() delivers what was queued
 *  first): RUNWAY_ERR_STATE.
 *  `user` must stay valid until runway_unsubscribe() (called outside a
 *  callback) or runway_session_close() has returned. */
runway_status runway_subscribe(runway_session *s, const char *options_json,
                               runway_event_fn fn, void *user, uint64_t *out_id);

/** Take the next event of a poll subscription: *out receives a JSON string
 *  (free it with runway_string_free()), or NULL when none is waiting; never
 *  blocks. On a callback subscription: RUNWAY_ERR_ARGUMENT. */
runway_status runway_poll(runway_session *s, uint64_t id, char **out);

/** End a subscription. From outside any callback it returns when that
 *  subscription's callback is not running and will never run again, and its
 *  delivery thread has exited. From
 *  inside a callback (any subscription's) it does not wait: the callback in
 *  progress finishes and no later one starts. Unknown or already-ended id:
 *  RUNWAY_ERR_NOT_FOUND (harmless). */
runway_status runway_unsubscribe(runway_session *s, uint64_t id);

/* ---- Flight store (SQLite) ----------------------------------------------- */
/* A session opened with {"store":"path.db"} journals its flight: every input
 * accepted (and every phase change, lap and tick that moves the clock) is
 * durable in the store when the call returns OK ("durability":"every_fix", the
 * default), or within about a second ("durability":"batched": committed at the
 * next input, tick or close once a second has passed). A journal write that
 * fails returns RUNWAY_ERR_STORE and the input is not processed.
 * "flight_id":"..." names the flight (default: the UTC time the session opened
 * and random hex, e.g. "20261129T180512Z-3fa9c2"). "flight_id" or "durability"
 * without "store" is RUNWAY_ERR_ARGUMENT (they would have no effect). One session at a time may
 * write a flight: a flight being written by an open session (in any process)
 * cannot be recovered, finished or deleted (RUNWAY_ERR_STATE); a flight whose
 * host died can. Functions that read a store need it to exist
 * (RUNWAY_ERR_NOT_FOUND). Stop writes the finished record in one transaction.
 * The store may be read by other processes while a session writes it (SQLite
 * WAL). A session's store path may name a file that does not exist yet or has
 * 0 bytes (a new store, as SQLite takes it); any other file that is not a
 * librunway store (no SQLite header, damaged, another program's database) is
 * RUNWAY_ERR_STORE, as is a store that cannot be written (opening writes the
 * new flight). */

/** The session's flight id (with a store), or "" without one. Free *out. */
runway_status runway_session_flight_id(runway_session *s, char **out);

/** Continues an unfinished stored flight after the host died: the journal is
 *  replayed, so distance, elapsed time, laps, phase and every figure are those
 *  at the last acknowledged input or tick, and new inputs are journaled to the
 *  same flight.
 *  config_json NULL or "" = the flight's own config (pass NULL unless you know the
 *  engine settings are the same: a different config replays differently;
 *  journaled entries it refuses, e.g. fixes past a smaller "max_route_points",
 *  are skipped and counted in a "warning" log line). Its "durability" applies
 *  to the recovered session's journal; "store" and "flight_id" in it are
 *  RUNWAY_ERR_ARGUMENT (the store and the flight are the arguments).
 *  RUNWAY_ERR_NOT_FOUND for an unknown id, RUNWAY_ERR_STATE for a finished
 *  flight, RUNWAY_ERR_STORE for a store that cannot be read, or written (a
 *  read-only file, a full disk: recovery writes and syncs a page that changes
 *  nothing before it returns, so a store that could not journal the next
 *  input is refused here, the flight left as it was). */
runway_status runway_session_recover(const char *store_path, const char *flight_id,
                                     const char *config_json, runway_session **out);

/** Finishes an unfinished stored flight as touchdown with end_reason
 *  "recovered" at its last journaled time, without opening a session (one
 *  that never started is finished in preflight, "recovered"). */
runway_status runway_flight_finish(const char *store_path, const char *flight_id);

/** The store's flights as a JSON array, oldest first: {"flight_id","start_t",
 *  "end_t","end_reason","finished","activity","distance_m","elapsed_s",
 *  "moving_s","avg_pace_min_per_km","damaged":false}. Unfinished flights get
 *  their figures by replaying their journals. A flight whose row or (when
 *  unfinished) journal is damaged does not hide the others: it is listed with
 *  its id as read (damage may have changed it too), every other field null,
 *  "damaged":true and "error" (why it cannot be read); reading it by that id
 *  gives RUNWAY_ERR_STORE unless the id itself was damaged. A flight deleted
 *  by another process while the list is read is left out. Damage SQLite
 *  itself meets while scanning the list of flights fails the whole call with
 *  RUNWAY_ERR_STORE. Free *out. */
runway_status runway_flights_json(const char *store_path, char **out);

/** One stored flight: its summary with laps and route (as runway_summary_json).
 *  Free *out. */
runway_status runway_flight_json(const char *store_path, const char *flight_id, char **out);

/** Deletes a stored flight (journal and record). */
runway_status runway_flight_delete(const char *store_path, const char *flight_id);

/* ---- Export and import --------------------------------------------------- */
/* Formats: "gpx" (GPX 1.1 + Garmin TrackPointExtension v2, one trkseg per
 * timer leg: a break where the timer stopped, none at a GPS gap), "tcx"
 * (Training Center XML with laps, one Track per timer leg in each), "fit" (a FIT activity
 * file, binary, with a timer start at the start and each resume and a stop_all
 * at each pause, auto-pause and the stop), "geojson" (a Feature: the route as LineString or
 * MultiLineString, the summary as properties), "csv" (one row per route point).
 * *out is a buffer of *len bytes (text formats are also NUL-terminated; FIT
 * may contain NUL bytes: use *len). Free it with runway_string_free(). An
 * unknown format, or a NULL out or len (for every format), is
 * RUNWAY_ERR_ARGUMENT, with *out untouched. */

/** Exports the session's flight as it is now. */
runway_status runway_export(runway_session *s, const char *format, char **out, size_t *len);

/** Exports a stored flight. */
runway_status runway_flight_export(const char *store_path, const char *flight_id,
                                   const char *format, char **out, size_t *len);

/** Reads a recording ("gpx", "tcx" or "fit" bytes) into JSON Lines inputs for
 *  runway_push_jsonl: fixes in recorded order, with hr/cadence/power where the
 *  file has them; a timed point without a position becomes {"type":"hr"},
 *  {"type":"cadence"} and {"type":"power","watts":W,"t":T} samples, and in
 *  FIT its altitude an {"type":"altimeter","alt":M,"t":T} sample (a FIT
 *  file's altitudes are the device's own: replay with its altitude_source)
 *  and its speed a {"type":"speed","speed":S,"t":T} sample (a wheel sensor's);
 *  in TCX a speed sample too: the Trackpoint's Speed, else its DistanceMeters
 *  since the Trackpoint before it in its Track over the time between.
 *  A FIT file's timer events become lines: when the timer's first event is a
 *  start before the first record, a {"type":"start","t":T} line first (the
 *  flight starts there, as the device's timer did; the changes up to the first
 *  record follow as they came), and {"type":"pause","t":T} and
 *  {"type":"resume","t":T} lines among the inputs: each stop of the device's running
 *  timer (its user's or its auto-pause) a pause after the record of that
 *  second, each restart a resume before it; a timer stopped when the first
 *  record comes (with no start line) is a pause at that record; changes after
 *  the last record are left out; events stamped in system time are placed as
 *  the records would be, else left out with a warning (docs/formats.md).
 *  A FIT or TCX file's laps become lines too: a {"type":"lap","t":T} at the
 *  start of each lap after the earliest (FIT lap start_time, TCX Lap
 *  StartTime; the laps in time order of their starts), just before the first input at or after T, and while the timer is stopped
 *  at a timer change of the same time: after a pause, before a resume (the
 *  stopped lap ends at the restart); a start at or before
 *  the flight's start, at or after the last input, or not after the lap before
 *  marks nothing (that lap joins the one before it), nor does the end of a lap
 *  that began and ended within one stop of the timer (it joins the next).
 *  A GPX or TCX file's segment breaks become lines too: where the points pass
 *  from one trkseg (or trk) to the next, or from one TCX Track to the next in
 *  its Lap, a {"type":"pause"} at the latest time before the break and a
 *  {"type":"resume"} at the first point after it, both before that point (a
 *  break to the next Lap's Track only when the Lap totals say the timer
 *  stopped there; a segment starting at or before the last time of the one
 *  before joins it, with a warning; a file of one segment has none).
 *  Replayed as runway_analyse does (runway_start at the first line's time:
 *  the start line's, else the first input's; then every line) with auto-pause
 *  off ("auto_pause":false; the run and walk default), the flight's elapsed_s
 *  is then the device's timer time up to the last record; with it on (the
 *  ride default) the engine's own auto-pause holds too, and elapsed_s is less
 *  by those holds (the ELEMNT ride of docs/formats.md: 12790 s, 13470 s with
 *  auto-pause off, the device's timer 13471 s). With the report's auto_lap_m
 *  its laps are the device's. The LAST
 *  line is always the import report (runway_push_jsonl accepts and ignores it):
 *    {"type":"import_report","format":"fit","sport":"cycling","activity":"ride",
 *     "altitude_source":"barometric","auto_lap_m":0,
 *     "inputs":4700,"untimed":0,"no_position":12,"unreadable":0,"pauses":0,
 *     "laps":3,
 *     "tracks":[{"index":0,"name":null,"points":4700,"untimed":0}],
 *     "warnings":["..."],
 *     "device":{"distance_m":..,"timer_s":..,"elapsed_s":..,"ascent_m":..,
 *               "descent_m":..,"calories_kcal":..,"avg_power_w":..,
 *               "max_power_w":..,"normalized_power_w":..,
 *               "laps":[{"start_t":..,"distance_m":..,"timer_s":..,
 *                        "elapsed_s":..,"ascent_m":..,"avg_power_w":..,
 *                        "max_power_w":..,"normalized_power_w":..}]}}
 *  sport: the file's own (FIT sport name as Garmin's SDK names it, TCX
 *  Activity Sport lower-cased, GPX first trk/type) or null; activity: the
 *  profile to replay with ("ride" for cycling/biking, "walk" for
 *  walking/hiking, "run" for running, else null). altitude_source: the
 *  session config's "fix_altitude" to replay with ("barometric" for FIT: the
 *  device's own altitude, unless its device_info lists a local GPS and no
 *  barometer: "gps"; for GPX and TCX what librunway's own
 *  <runway:altitude_source> element says, as its exports write it, else null:
 *  docs/formats.md "Altitude source"). auto_lap_m:
 *  the session config's "auto_lap_m" to replay with: 0 (no auto laps: the
 *  flight's laps are the device's, one lap being the whole flight) when the
 *  file stores laps (FIT lap messages, TCX Laps) and every lap after the first
 *  has a start time; null (the session's 1 km auto laps) for GPX, a FIT file
 *  without lap messages, or one with a later lap without a usable start time
 *  (with a warning). inputs: lines before the
 *  report (inputs, and start, pause, resume and lap lines); laps: the lap
 *  lines; pauses: the pause lines
 *  (FIT timer stops, GPX/TCX segment breaks); untimed: points with a position but no time (left out); no_position:
 *  timed points without a position (kept only as samples); unreadable: records
 *  that could not be decoded, GPX/TCX points that could not be read (only with
 *  ";salvage"). tracks: each GPX trk, TCX
 *  Track, or FIT file of a chain. The report line always fits what
 *  runway_push_jsonl takes (RUNWAY_MAX_INPUT_BYTES; under 600 KB): it lists the
 *  first 100 tracks, 50 warnings and 1000 device laps, each list then followed
 *  by "more_tracks", "more_warnings" or (in device) "more_laps", the count
 *  left out, when there are more; a sport, track name or warning longer than
 *  200 characters (Unicode scalars) is cut to 199 and a "…". device: the totals the file stores (FIT
 *  session and lap messages; TCX Lap totals), each member omitted when the file
 *  lacks it; null for GPX. Each of its laps: FIT lap start_time,
 *  total_distance, total_timer_time, total_elapsed_time, total_ascent,
 *  avg_power, max_power, normalized_power; TCX Lap StartTime, DistanceMeters,
 *  TotalTimeSeconds and its LX AvgWatts, MaxWatts (runway_export writes each
 *  lap's power as the summary's laps have it).
 *  format may carry options after ';': "fit;salvage" keeps the records read
 *  before damage in a FIT file and says what was damaged in "warnings";
 *  "gpx;salvage" and "tcx;salvage" keep the points that ended before the XML
 *  broke off (a file cut short) and leave out the points that cannot be read
 *  (counted as unreadable), each with a warning.
 *  Without it (strict, the default) a FIT file is RUNWAY_ERR_INPUT, with a
 *  message naming the byte offset, when it is truncated (its file CRC cut),
 *  its header or file CRC does not match, a chained file's header is corrupt,
 *  or bytes follow the last file's CRC. FIT records stamped in device system
 *  time (below 0x10000000) are placed by the file's timestamp_correlation,
 *  else by its first UTC timestamp (with a warning), else the file is refused
 *  (left out, with a warning, with ";salvage"). A timestamp no FIT date_time
 *  (uint32) can hold, in a field declared wider, is read as invalid: its record
 *  is untimed (counted in the report). An unknown option is
 *  RUNWAY_ERR_ARGUMENT. Without it a GPX or TCX file is RUNWAY_ERR_INPUT when
 *  it is not well-formed XML or a point cannot be read (a document that breaks
 *  off after its root element started, which salvage reads, says so: its
 *  message ends '; salvage keeps the points read before the break
 *  ("gpx;salvage")'); with it too when it breaks off before its root element
 *  or has a DTD.
 *  XML is parsed by expat; a document with a DTD is refused, so no entity is
 *  ever expanded or loaded.
 *  A file that is not a valid recording of that format (or larger than 64 MiB)
 *  is RUNWAY_ERR_INPUT; values are as recorded (pushing validates them), except
 *  cadence, which comes out in the engine's unit (steps per minute on foot, rpm
 *  on a bike): TCX RunCadence and, when the file's sport is on foot, FIT
 *  cadence and GPX cad count one foot and are doubled (docs/formats.md).
 *  Free *jsonl_out (NUL-terminated, *out_len bytes). */
runway_status runway_import(const char *format, const char *bytes, size_t len,
                            char **jsonl_out, size_t *out_len);

/** The session config a recording replays with, as runway_analyse opens its
 *  flight: config_json (NULL or "": none) with what the import report says
 *  added where the config is silent: the report's "activity", its
 *  "altitude_source" as "fix_altitude" and its "auto_lap_m" (0 when the
 *  file's own laps come as lap lines), each where it is not null and the
 *  config has no member of that name (a member with a value keeps the
 *  report's out; null is no value of these keys, nor of any config key for
 *  runway_session_open, so a config naming one as null is refused with the
 *  message runway_session_open gives for it). A host that imports a recording and replays its
 *  lines itself opens its session with *out_json:
 *    runway_import(...) -> the last line, the report
 *    runway_replay_config(report, "{\"hr_max\":185}", &cfg)
 *      -> {"activity":"ride","fix_altitude":"barometric","auto_lap_m":0,"hr_max":185}
 *    runway_session_open(cfg, &s); runway_string_free(cfg); ...
 *  The added members come first, then the config's own as it wrote them; with
 *  nothing added, *out_json is the config as given, "{}" when there is none
 *  or it has no member. report_line: the report line as runway_import wrote it
 *  (its "\n" may follow; at most RUNWAY_MAX_INPUT_BYTES, as every line
 *  runway_import writes is; nested at most RUNWAY_MAX_JSON_DEPTH).
 *  The config is not checked beyond being a JSON object that names none of
 *  the three as null: runway_session_open judges the result. Free *out_json with runway_string_free(). Statuses:
 *  RUNWAY_ERR_ARGUMENT for a NULL report_line or out_json, a config that is
 *  not a JSON object, or one naming "activity", "fix_altitude" or
 *  "auto_lap_m" as null (as runway_session_open: "config: ..."); RUNWAY_ERR_JSON
 *  for a report line that is not a JSON object, or invalid UTF-8 in either
 *  ("report_line: ..."); RUNWAY_ERR_INPUT for an object that is not an import
 *  report (its "type" is not "import_report") or whose "activity",
 *  "altitude_source" or "auto_lap_m" is not one a report has (run, ride, walk;
 *  gps, barometric; a whole number of metres, 0 or more; or null);
 *  RUNWAY_ERR_LIMIT for a report line or config over RUNWAY_MAX_INPUT_BYTES
 *  (as runway_push_jsonl refuses such a line), or either nested deeper than
 *  RUNWAY_MAX_JSON_DEPTH. On an error *out_json is left unchanged.
 *  Thread-safe: touches no session. */
runway_status runway_replay_config(const char *report_line, const char *config_json,
                                   char **out_json);

/** Analyses a recording in one call: imports it (as runway_import does, with no
 *  JSON in between), replays it through a flight of its own and gives that
 *  flight's summary with the import report. The flight is the one these calls
 *  give: runway_import; runway_session_open with the report's "activity"
 *  and its "altitude_source" as "fix_altitude" (FIT: mostly "barometric") and
 *  its "auto_lap_m" (0 when the file's laps are replayed) unless
 *  the config names them (the config runway_replay_config gives);
 *  runway_start at the first line's time (a start line's, else the first
 *  input's); runway_push_jsonl of every line (a refused line is logged and counted,
 *  the rest go on); runway_stop(NaN) (the latest time seen);
 *  runway_summary_json. No session handle, thread or event is involved.
 *  options: NULL or "" (all defaults) or a JSON object, every key optional:
 *    {"format":"auto",      "auto" (default: by the first bytes: a FIT header,
 *                           or XML naming TrainingCenterDatabase or <gpx),
 *                           "gpx", "tcx" or "fit"
 *     "salvage":false,      as runway_import's ";salvage"
 *     "route":true,         false: the summary without its "route"
 *     "config":{...}}       a session config (clock "replay" only; no store,
 *                           flight_id or durability: nothing is journaled)
 *  *result_out (free with runway_string_free; NUL-terminated, *out_len bytes
 *  when out_len is not NULL) is one JSON object:
 *    {"summary":{...runway_summary_json...},
 *     "report":{...the import report line of runway_import...},
 *     "inputs":N,"accepted":N,"rejected":N,
 *     "first_rejection":null | {"index":I,"message":"..."}}
 *  (inputs: the lines replayed, start, pause, resume and lap lines included;
 *  index: the refused line's place, 1-based; message: why the engine refused it).
 *  Statuses: RUNWAY_ERR_ARGUMENT for bad options or config (unknown key, a key
 *  given twice, wrong type, a store or a live clock) or a NULL bytes/result_out;
 *  RUNWAY_ERR_LIMIT for options over RUNWAY_MAX_INPUT_BYTES; RUNWAY_ERR_INPUT
 *  for a file runway_import refuses (same message), one with no timed point
 *  ("no timed points"), or whose first time cannot start a flight. On an
 *  error *result_out is left unchanged. Thread-safe: touches no session. */
runway_status runway_analyse(const char *options, const char *bytes, size_t len,
                             char **result_out, size_t *out_len);

/** One point of a flight's route as runway_analyse_route() gives it: the
 *  [lat, lon, alt, t] of runway_summary_json's "route" as numbers (the same
 *  doubles the JSON prints), alt NaN where the JSON has null. 32 bytes. */
typedef struct runway_route_point {
  double lat; /* degrees (the route keeps 1e-7 degree) */
  double lon; /* degrees */
  double alt; /* metres above sea level, as recorded; NaN = unknown */
  double t;   /* unix seconds */
} runway_route_point;

/** runway_analyse with the route handed over as an array of structs instead of
 *  JSON: for a long recording, printing and parsing the route's numbers is
 *  most of the cost of the JSON result. Same options, flight, statuses and
 *  *result_out (free it with runway_string_free) as runway_analyse, except
 *  that the summary has no "route" member ("points", "segment_starts" (indices
 *  into the array), "simplify_m" and "route_simplified" are still there): its
 *  points, in order, are *route_out, an array of *route_len structs (the
 *  summary's "points"; at most RUNWAY_MAX_ROUTE_POINTS, 32 bytes each). Free
 *  it with runway_route_free(). With options "route":false, or a flight
 *  without route points, *route_out is NULL and *route_len 0 (the summary of
 *  "route":false has no route members at all, as runway_analyse's).
 *  route_out or route_len NULL is RUNWAY_ERR_ARGUMENT (out_len may be NULL).
 *  On an error no output is written. Thread-safe: touches no session. */
runway_status runway_analyse_route(const char *options, const char *bytes, size_t len,
                                   char **result_out, size_t *out_len,
                                   runway_route_point **route_out, size_t *route_len);

/** Free a route returned by runway_analyse_route(). NULL is a no-op. */
void runway_route_free(runway_route_point *route);

/* ---- PFD formatting ------------------------------------------------------ */
/* Each writes a NUL-terminated string into buf (capacity cap, may be 0 with
 * buf NULL) like snprintf, and returns the length the full string needs
 * (excluding the NUL). Pure functions, thread-safe. */

/** Pace "m:ss", rounded to the nearest second; "--:--" for NaN, ±inf, <= 0. */
size_t runway_format_pace(double min_per_km, char *buf, size_t cap);
/** Pace tape: pace rounded to the nearest 15 s, two ticks either side,
 *  space-separated ("4:00 4:15 4:30 4:45 5:00"); "" when pace is unknown. */
size_t runway_format_pace_tape(double min_per_km, char *buf, size_t cap);
/** Compass point of 8 by 45° sectors centred on N ("N","NE",...); "--" unknown. */
size_t runway_format_direction(double heading_deg, char *buf, size_t cap);
/** Heading tape: heading rounded to 90° with the neighbours at ±90° ("N E S"). */
size_t runway_format_heading_tape(double heading_deg, char *buf, size_t cap);
/** Elapsed time "HH:MM:SS" of whole seconds (floor); "--:--:--" when unknown. */
size_t runway_format_time(double elapsed_s, char *buf, size_t cap);
/** Distance in km with two decimals, rounded to the nearest 10 m ("5.03";
 *  4995 m is "5.00" before the 5 km split, which comes at 5000 m). */
size_t runway_format_distance(double distance_m, char *buf, size_t cap);
/** Altitude in whole metres ("123"); "--" when unknown. */
size_t runway_format_altitude(double altitude_m, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* RUNWAY_H */
