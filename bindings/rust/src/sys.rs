//! Raw declarations mirroring `include/runway.h` one to one.
//!
//! Everything here is `unsafe` to call and follows the C contract exactly: statuses are
//! returned as [`runway_status`] (a `c_int`), strings returned through `*mut *mut c_char` must be
//! freed with [`runway_string_free`], and a closed session pointer must not be used again.
//! Prefer the safe layer ([`crate::Session`]); this module exists for what it does not cover.

#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

// ---- Versions ---------------------------------------------------------------

/// Bumped on any incompatible ABI change; compare with [`runway_abi_version`].
pub const RUNWAY_ABI_VERSION: u32 = 1;
pub const RUNWAY_VERSION_MAJOR: u32 = 0;
pub const RUNWAY_VERSION_MINOR: u32 = 1;
pub const RUNWAY_VERSION_PATCH: u32 = 0;
pub const RUNWAY_VERSION_STRING: &str = "0.1.0";

pub const RUNWAY_MAX_INPUT_BYTES: usize = 1024 * 1024;
/// Deepest nesting of one JSON input (the root object is level 1).
pub const RUNWAY_MAX_JSON_DEPTH: usize = 64;
pub const RUNWAY_MAX_SUBSCRIBERS: usize = 256;
pub const RUNWAY_MAX_QUEUE_CAPACITY: usize = 65536;
/// Largest (and default) config `"max_route_points"`.
pub const RUNWAY_MAX_ROUTE_POINTS: usize = 1_000_000;
/// Most laps of one flight, its final lap included.
pub const RUNWAY_MAX_LAPS: usize = 50_000;
pub const RUNWAY_DEFAULT_QUEUE_CAPACITY: usize = 1024;
pub const RUNWAY_LOG_LINES: usize = 20;

// ---- Types ------------------------------------------------------------------

/// An open session (one flight). Opaque: only ever used behind a pointer.
#[repr(C)]
pub struct runway_session {
    _private: [u8; 0],
    // Not Send/Sync/Unpin by itself: the safe layer states why sharing it is sound.
    _marker: std::marker::PhantomData<(*mut u8, std::marker::PhantomPinned)>,
}

/// One GPS fix for [`runway_push_fix`]. NaN = unknown; a negative finite speed, course, h_acc
/// or v_acc also means unknown. `t` may be NaN only with the live clock.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct runway_fix {
    /// unix seconds
    pub t: f64,
    /// degrees, -90..90, required
    pub lat: f64,
    /// degrees, -180..180, required
    pub lon: f64,
    /// metres above sea level
    pub alt: f64,
    /// m/s, from the receiver (Doppler)
    pub speed: f64,
    /// degrees clockwise from true north, 0..360
    pub course: f64,
    /// horizontal accuracy, metres
    pub h_acc: f64,
    /// vertical accuracy, metres
    pub v_acc: f64,
}

/// `enum runway_status` (an `int` in the C ABI).
pub type runway_status = c_int;
pub const RUNWAY_OK: runway_status = 0;
/// NULL pointer, bad config or options
pub const RUNWAY_ERR_ARGUMENT: runway_status = 1;
/// not JSON, or not a JSON object (also invalid UTF-8)
pub const RUNWAY_ERR_JSON: runway_status = 2;
/// well-formed but invalid: missing/ill-typed field, out of range, non-finite, time going
/// backwards
pub const RUNWAY_ERR_INPUT: runway_status = 3;
/// not allowed in the session's current phase
pub const RUNWAY_ERR_STATE: runway_status = 4;
/// unknown subscription or record
pub const RUNWAY_ERR_NOT_FOUND: runway_status = 5;
/// storage failure
pub const RUNWAY_ERR_STORE: runway_status = 6;
pub const RUNWAY_ERR_INTERNAL: runway_status = 7;
/// a documented limit was reached: input bytes, nesting depth, subscribers, queue capacity,
/// route points
pub const RUNWAY_ERR_LIMIT: runway_status = 8;

/// Receives one event as a NUL-terminated JSON object, valid only during the call. Runs on a
/// library thread (one per callback subscription), never concurrently with itself.
pub type runway_event_fn = Option<unsafe extern "C" fn(event_json: *const c_char, user: *mut c_void)>;

// The functions are called through pointers that `crate::library` resolves with `dlsym` in the
// librunway it loads at run time (see the crate docs, "Loading"), not linked: so an application
// needs no rpath, no `LD_LIBRARY_PATH` and no build script of its own. Each `runway_*` below is
// an `unsafe fn` with the C function's signature; it loads the library on first use and panics,
// with every place tried, when none can be loaded (the safe layer loads it first and returns
// that as an `Error` instead).
crate::library::functions! {
    // ---- Library ----
    fn runway_abi_version() -> u32;
    fn runway_version() -> *const c_char;
    fn runway_last_error() -> *const c_char;
    fn runway_status_string(status: runway_status) -> *const c_char;

    // ---- Sessions ----
    fn runway_session_open(config_json: *const c_char, out: *mut *mut runway_session) -> runway_status;
    fn runway_session_close(s: *mut runway_session);

    // ---- Inputs ----
    fn runway_push_json(s: *mut runway_session, json: *const c_char) -> runway_status;
    fn runway_push_jsonl(
        s: *mut runway_session,
        buf: *const c_char,
        len: usize,
        accepted: *mut usize,
        rejected: *mut usize,
    ) -> runway_status;
    fn runway_push_fix(s: *mut runway_session, fix: *const runway_fix) -> runway_status;
    fn runway_tick(s: *mut runway_session, t: f64) -> runway_status;

    // ---- Flight phases ----
    fn runway_start(s: *mut runway_session, t: f64) -> runway_status;
    fn runway_pause(s: *mut runway_session, t: f64) -> runway_status;
    fn runway_resume(s: *mut runway_session, t: f64) -> runway_status;
    fn runway_stop(s: *mut runway_session, t: f64) -> runway_status;
    /// A manual lap at `t` (NaN = now): ends the current lap and emits a `split` event.
    /// Allowed in cruise and holding (else `RUNWAY_ERR_STATE`); with nothing since the last lap,
    /// `RUNWAY_ERR_STATE`.
    fn runway_lap(s: *mut runway_session, t: f64) -> runway_status;

    // ---- Outputs ----
    fn runway_snapshot_json(s: *mut runway_session, out: *mut *mut c_char) -> runway_status;
    fn runway_summary_json(s: *mut runway_session, out: *mut *mut c_char) -> runway_status;
    fn runway_log_json(s: *mut runway_session, out: *mut *mut c_char) -> runway_status;
    fn runway_string_free(p: *mut c_char);

    // ---- Subscriptions ----
    fn runway_subscribe(
        s: *mut runway_session,
        options_json: *const c_char,
        func: runway_event_fn,
        user: *mut c_void,
        out_id: *mut u64,
    ) -> runway_status;
    fn runway_poll(s: *mut runway_session, id: u64, out: *mut *mut c_char) -> runway_status;
    fn runway_unsubscribe(s: *mut runway_session, id: u64) -> runway_status;

    // ---- Flight store (SQLite) ----
    /// The session's flight id (with a store), or "" without one. Free `*out`.
    fn runway_session_flight_id(s: *mut runway_session, out: *mut *mut c_char) -> runway_status;
    /// Continues an unfinished stored flight (the journal is replayed). `config_json` NULL = the
    /// flight's own config. `RUNWAY_ERR_NOT_FOUND` unknown id, `RUNWAY_ERR_STATE` finished flight,
    /// `RUNWAY_ERR_STORE` unreadable store.
    fn runway_session_recover(
        store_path: *const c_char,
        flight_id: *const c_char,
        config_json: *const c_char,
        out: *mut *mut runway_session,
    ) -> runway_status;
    /// Finishes an unfinished stored flight as touchdown with end_reason "recovered".
    fn runway_flight_finish(store_path: *const c_char, flight_id: *const c_char) -> runway_status;
    /// The store's flights as a JSON array, oldest first. Free `*out`.
    fn runway_flights_json(store_path: *const c_char, out: *mut *mut c_char) -> runway_status;
    /// One stored flight's summary with laps and route. Free `*out`.
    fn runway_flight_json(
        store_path: *const c_char,
        flight_id: *const c_char,
        out: *mut *mut c_char,
    ) -> runway_status;
    /// Deletes a stored flight (journal and record).
    fn runway_flight_delete(store_path: *const c_char, flight_id: *const c_char) -> runway_status;

    // ---- Export ----
    /// Exports the session's flight as it is now: `*out` is a buffer of `*len` bytes (FIT may
    /// contain NUL bytes), freed with [`runway_string_free`]. Unknown format:
    /// `RUNWAY_ERR_ARGUMENT`.
    fn runway_export(
        s: *mut runway_session,
        format: *const c_char,
        out: *mut *mut c_char,
        len: *mut usize,
    ) -> runway_status;
    /// Exports a stored flight, as [`runway_export`].
    fn runway_flight_export(
        store_path: *const c_char,
        flight_id: *const c_char,
        format: *const c_char,
        out: *mut *mut c_char,
        len: *mut usize,
    ) -> runway_status;

    // ---- PFD formatting ----
    fn runway_format_pace(min_per_km: f64, buf: *mut c_char, cap: usize) -> usize;
    fn runway_format_pace_tape(min_per_km: f64, buf: *mut c_char, cap: usize) -> usize;
    fn runway_format_direction(heading_deg: f64, buf: *mut c_char, cap: usize) -> usize;
    fn runway_format_heading_tape(heading_deg: f64, buf: *mut c_char, cap: usize) -> usize;
    fn runway_format_time(elapsed_s: f64, buf: *mut c_char, cap: usize) -> usize;
    fn runway_format_distance(distance_m: f64, buf: *mut c_char, cap: usize) -> usize;
    fn runway_format_altitude(altitude_m: f64, buf: *mut c_char, cap: usize) -> usize;
}

// ---- Import (looked up at run time) ------------------------------------------

/// `runway_status runway_import(const char *format, const char *bytes, size_t len,
/// char **jsonl_out, size_t *out_len)`: a GPX, TCX or FIT file (`len` bytes) to JSON Lines of
/// fixes and samples for [`runway_push_jsonl`]; `*jsonl_out` (`*out_len` bytes) is freed with
/// [`runway_string_free`].
pub type runway_import_fn = unsafe extern "C" fn(
    format: *const c_char,
    bytes: *const c_char,
    len: usize,
    jsonl_out: *mut *mut c_char,
    out_len: *mut usize,
) -> runway_status;

/// `runway_import` of the loaded librunway, or `None` when the library predates it.
///
/// It is looked up on its own (not among the functions above, which must all be there), so this
/// crate runs with a librunway built before import existed and uses import as soon as the
/// library has it.
pub fn runway_import() -> Option<runway_import_fn> {
    let symbol = crate::library::loaded().ok()?.symbol(c"runway_import")?;
    // SAFETY: the address is that of the library's `runway_import`, whose C signature is the one
    // runway_import_fn states (runway.h).
    Some(unsafe { std::mem::transmute::<*mut std::ffi::c_void, runway_import_fn>(symbol) })
}

/// `runway_status runway_replay_config(const char *report_line, const char *config_json,
/// char **out_json)`: the session config a recording replays with, as `runway_analyse` opens it
/// (runway.h); `*out_json` is freed with [`runway_string_free`].
pub type runway_replay_config_fn = unsafe extern "C" fn(
    report_line: *const c_char,
    config_json: *const c_char,
    out_json: *mut *mut c_char,
) -> runway_status;

/// `runway_replay_config` of the loaded librunway, or `None` when the library predates it
/// (looked up at run time, as [`runway_import`]).
pub fn runway_replay_config() -> Option<runway_replay_config_fn> {
    let symbol = crate::library::loaded().ok()?.symbol(c"runway_replay_config")?;
    // SAFETY: the address is that of the library's `runway_replay_config`, whose C signature is
    // the one runway_replay_config_fn states (runway.h).
    Some(unsafe { std::mem::transmute::<*mut std::ffi::c_void, runway_replay_config_fn>(symbol) })
}

/// `runway_status runway_analyse(const char *options, const char *bytes, size_t len,
/// char **result_out, size_t *out_len)`: a recording's flight in one call (runway.h);
/// `*result_out` (`*out_len` bytes) is freed with [`runway_string_free`].
pub type runway_analyse_fn = runway_import_fn;

/// `runway_analyse` of the loaded librunway, or `None` when the library predates it (looked up
/// at run time, as [`runway_import`]).
pub fn runway_analyse() -> Option<runway_analyse_fn> {
    let symbol = crate::library::loaded().ok()?.symbol(c"runway_analyse")?;
    // SAFETY: the address is that of the library's `runway_analyse`, whose C signature
    // (options, bytes, len, result_out, out_len) has the same types as runway_import's (runway.h).
    Some(unsafe { std::mem::transmute::<*mut std::ffi::c_void, runway_analyse_fn>(symbol) })
}

/// One point of a flight's route as [`runway_analyse_route`] gives it: the `[lat, lon, alt, t]`
/// of the summary's JSON `"route"` as numbers, `alt` NaN where the JSON has null.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct runway_route_point {
    /// degrees (the route keeps 1e-7 degree)
    pub lat: f64,
    /// degrees
    pub lon: f64,
    /// metres above sea level, as recorded; NaN = unknown
    pub alt: f64,
    /// unix seconds
    pub t: f64,
}

/// `runway_status runway_analyse_route(const char *options, const char *bytes, size_t len,
/// char **result_out, size_t *out_len, runway_route_point **route_out, size_t *route_len)`:
/// `runway_analyse` with the route as `*route_len` structs in `*route_out` (freed with
/// [`runway_route_free`]) and not in the summary's JSON (runway.h).
pub type runway_analyse_route_fn = unsafe extern "C" fn(
    options: *const c_char,
    bytes: *const c_char,
    len: usize,
    result_out: *mut *mut c_char,
    out_len: *mut usize,
    route_out: *mut *mut runway_route_point,
    route_len: *mut usize,
) -> runway_status;

/// `void runway_route_free(runway_route_point *route)`: frees a route of
/// `runway_analyse_route`; NULL is a no-op.
pub type runway_route_free_fn = unsafe extern "C" fn(route: *mut runway_route_point);

/// `runway_analyse_route` of the loaded librunway, or `None` when the library predates it
/// (looked up at run time, as [`runway_import`]).
pub fn runway_analyse_route() -> Option<runway_analyse_route_fn> {
    let symbol = crate::library::loaded().ok()?.symbol(c"runway_analyse_route")?;
    // SAFETY: the address is that of the library's `runway_analyse_route`, whose C signature is
    // the one runway_analyse_route_fn states (runway.h).
    Some(unsafe { std::mem::transmute::<*mut std::ffi::c_void, runway_analyse_route_fn>(symbol) })
}

/// `runway_route_free` of the loaded librunway, or `None` when the library predates it.
pub fn runway_route_free() -> Option<runway_route_free_fn> {
    let symbol = crate::library::loaded().ok()?.symbol(c"runway_route_free")?;
    // SAFETY: the address is that of the library's `runway_route_free`, whose C signature is the
    // one runway_route_free_fn states (runway.h).
    Some(unsafe { std::mem::transmute::<*mut std::ffi::c_void, runway_route_free_fn>(symbol) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_time_lookup_finds_symbols_of_the_loaded_library_only() {
        let lib = crate::library::loaded().expect("librunway loads");
        let abi = lib.symbol(c"runway_abi_version").expect("librunway exports runway_abi_version");
        // SAFETY: runway_abi_version has no arguments and no preconditions.
        let f = unsafe { std::mem::transmute::<*mut std::ffi::c_void, unsafe extern "C" fn() -> u32>(abi) };
        assert_eq!(unsafe { f() }, unsafe { runway_abi_version() });
        assert!(lib.symbol(c"runway_no_such_function").is_none());
        assert_eq!(runway_import().is_some(), lib.symbol(c"runway_import").is_some());
    }
}
