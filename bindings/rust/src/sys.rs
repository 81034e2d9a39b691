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
pub const RUNWAY_MAX_SUBSCRIBERS: usize = 256;
pub const RUNWAY_MAX_QUEUE_CAPACITY: usize = 65536;
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
/// backwards, too large
pub const RUNWAY_ERR_INPUT: runway_status = 3;
/// not allowed in the session's current phase
pub const RUNWAY_ERR_STATE: runway_status = 4;
/// unknown subscription or record
pub const RUNWAY_ERR_NOT_FOUND: runway_status = 5;
/// storage failure
pub const RUNWAY_ERR_STORE: runway_status = 6;
pub const RUNWAY_ERR_INTERNAL: runway_status = 7;

/// Receives one event as a NUL-terminated JSON object, valid only during the call. Runs on a
/// library thread (one per callback subscription), never concurrently with itself.
pub type runway_event_fn = Option<unsafe extern "C" fn(event_json: *const c_char, user: *mut c_void)>;

extern "C" {
    // ---- Library ----
    pub fn runway_abi_version() -> u32;
    pub fn runway_version() -> *const c_char;
    pub fn runway_last_error() -> *const c_char;
    pub fn runway_status_string(status: runway_status) -> *const c_char;

    // ---- Sessions ----
    pub fn runway_session_open(config_json: *const c_char, out: *mut *mut runway_session) -> runway_status;
    pub fn runway_session_close(s: *mut runway_session);

    // ---- Inputs ----
    pub fn runway_push_json(s: *mut runway_session, json: *const c_char) -> runway_status;
    pub fn runway_push_jsonl(
        s: *mut runway_session,
        buf: *const c_char,
        len: usize,
        accepted: *mut usize,
        rejected: *mut usize,
    ) -> runway_status;
    pub fn runway_push_fix(s: *mut runway_session, fix: *const runway_fix) -> runway_status;
    pub fn runway_tick(s: *mut runway_session, t: f64) -> runway_status;

    // ---- Flight phases ----
    pub fn runway_start(s: *mut runway_session, t: f64) -> runway_status;
    pub fn runway_pause(s: *mut runway_session, t: f64) -> runway_status;
    pub fn runway_resume(s: *mut runway_session, t: f64) -> runway_status;
    pub fn runway_stop(s: *mut runway_session, t: f64) -> runway_status;
    /// A manual lap at `t` (NaN = now): ends the current lap and emits a `split` event.
    /// Allowed in cruise and holding (else `RUNWAY_ERR_STATE`); with nothing since the last lap,
    /// `RUNWAY_ERR_STATE`.
    pub fn runway_lap(s: *mut runway_session, t: f64) -> runway_status;

    // ---- Outputs ----
    pub fn runway_snapshot_json(s: *mut runway_session, out: *mut *mut c_char) -> runway_status;
    pub fn runway_summary_json(s: *mut runway_session, out: *mut *mut c_char) -> runway_status;
    pub fn runway_log_json(s: *mut runway_session, out: *mut *mut c_char) -> runway_status;
    pub fn runway_string_free(p: *mut c_char);

    // ---- Subscriptions ----
    pub fn runway_subscribe(
        s: *mut runway_session,
        options_json: *const c_char,
        func: runway_event_fn,
        user: *mut c_void,
        out_id: *mut u64,
    ) -> runway_status;
    pub fn runway_poll(s: *mut runway_session, id: u64, out: *mut *mut c_char) -> runway_status;
    pub fn runway_unsubscribe(s: *mut runway_session, id: u64) -> runway_status;

    // ---- PFD formatting ----
    pub fn runway_format_pace(min_per_km: f64, buf: *mut c_char, cap: usize) -> usize;
    pub fn runway_format_pace_tape(min_per_km: f64, buf: *mut c_char, cap: usize) -> usize;
    pub fn runway_format_direction(heading_deg: f64, buf: *mut c_char, cap: usize) -> usize;
    pub fn runway_format_heading_tape(heading_deg: f64, buf: *mut c_char, cap: usize) -> usize;
    pub fn runway_format_time(elapsed_s: f64, buf: *mut c_char, cap: usize) -> usize;
    pub fn runway_format_distance(distance_m: f64, buf: *mut c_char, cap: usize) -> usize;
    pub fn runway_format_altitude(altitude_m: f64, buf: *mut c_char, cap: usize) -> usize;
}
