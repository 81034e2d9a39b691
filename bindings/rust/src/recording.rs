//! Recordings made elsewhere (GPX, TCX, FIT files) as librunway inputs.

use crate::error::{Error, Result, Status};
use crate::json;
use crate::session::{cstring, opt_cstring, opt_ptr, take_bytes, take_string};
use crate::sys;
use crate::RoutePoint;

/// Whether the loaded librunway can import recordings (it exports `runway_import`; libraries
/// built before it was added do not). See [`sys::runway_import`] for how it is found.
pub fn import_available() -> bool {
    // (A library that cannot be loaded has no import either.)
    sys::runway_import().is_some()
}

/// Turns a recording — the whole file's bytes, in `format` `"gpx"`, `"tcx"` or `"fit"` — into
/// librunway inputs: JSON Lines, one input a line, ready for
/// [`crate::Session::push_jsonl`]. `format` may carry `";salvage"` (`"fit;salvage"`: a damaged
/// FIT file's records before the damage; `"gpx;salvage"`, `"tcx;salvage"`: the points that ended
/// before the XML broke off, without those that cannot be read; with warnings in the report,
/// instead of [`Status::Input`]). Replayed as [`analyse`] does, the session is opened with the import
/// report's `activity`, its `altitude_source` as `fix_altitude` and its `auto_lap_m` (where
/// they are not null), the flight starts at the first line's time (a start line's, else the
/// first input's) and takes every line (a start line at the flight's own start time is
/// already true). A session opened with the defaults instead replays a ride as a run, with
/// 1 km auto laps besides the file's own and GPS altitudes (the ELEMNT ride of the
/// repository's `../shared/tracks`: 79.35 km and 80 laps as a run, 79.24 km and the device's
/// one lap as [`analyse`] reads it):
///
/// ```no_run
/// # fn main() -> runway::Result<()> {
/// let jsonl = runway::import_recording(&std::fs::read("ride.fit").unwrap(), "fit")?;
/// let report = jsonl.lines().last().unwrap_or("{}"); // {"type":"import_report",...}
/// let s = runway::Session::open(runway::replay_config(report, None)?.as_deref())?;
/// s.start(runway::json::f64_field(jsonl.lines().next().unwrap_or("{}"), "t"))?;
/// s.push_jsonl(&jsonl).into_result()?;
/// s.stop(None)?; // at the latest time seen: the flight runway::analyse gives
/// let gpx = s.export("gpx")?;
/// # let _ = gpx;
/// # Ok(()) }
/// ```
///
/// Fixes come in recorded order with `hr`/`cadence` where the file has them; values are as
/// recorded (pushing validates them); there are none when the file has no timed points.
/// A FIT file's timer becomes lines: `{"type":"start","t":..}` first when it started before the
/// first record, `{"type":"pause","t":..}` and `{"type":"resume","t":..}` among the inputs (a
/// session takes them as [`crate::Session::start`], [`crate::Session::pause`] and
/// [`crate::Session::resume`]). The last line is the import report (`"type":"import_report"`),
/// which a session accepts and ignores.
///
/// Errors: [`Status::Argument`] an unknown format; [`Status::Input`] data that is not a valid
/// recording of that format (or larger than 64 MiB); [`Status::Internal`] when the loaded library has
/// no `runway_import` ([`import_available`] is false), like any other library incompatibility.
pub fn import_recording(data: &[u8], format: &str) -> Result<String> {
    crate::load()?;
    let Some(import) = sys::runway_import() else {
        return Err(Error::new(
            Status::Internal,
            "the loaded librunway has no runway_import (built before import was added; rebuild it)",
        ));
    };
    let format = cstring(format, Status::Argument)?;
    // SAFETY: `import` is the library's runway_import; format is NUL-terminated and data is
    // valid for data.len() bytes during the call.
    let bytes = take_bytes(|out, len| unsafe {
        import(format.as_ptr(), data.as_ptr().cast(), data.len(), out, len)
    })?;
    String::from_utf8(bytes)
        .map_err(|e| Error::new(Status::Internal, format!("runway_import returned invalid UTF-8: {e}")))
}

/// The session config a recording replays with, as [`analyse`] (`runway_analyse`) opens its
/// session: `config` (a JSON object; `None`: none) with what the import `report` (the last line
/// of [`import_recording`]) says where `config` is silent: its `activity`, its
/// `altitude_source` as `fix_altitude`, and its `auto_lap_m` (0 when the file's own laps come
/// as device lap lines). The library's rule (`runway_replay_config`), the one `runway_analyse`
/// applies: the added members come first, then `config`'s own as written. `None` when neither
/// says anything (the config is then the defaults, `{}`).
///
/// ```
/// let report = r#"{"type":"import_report","activity":"ride","altitude_source":"barometric","auto_lap_m":0}"#;
/// let config = runway::replay_config(report, Some(r#"{"auto_lap_m":500}"#)).unwrap();
/// assert_eq!(config.as_deref(), Some(r#"{"activity":"ride","fix_altitude":"barometric","auto_lap_m":500}"#));
/// ```
///
/// Errors: [`Status::Argument`] when `config` is not a JSON object, or names `activity`,
/// `fix_altitude` or `auto_lap_m` as `null` (no value of a config key: the message is
/// [`crate::Session::open`]'s for it); [`Status::Json`] when
/// `report` is not one; [`Status::Input`] when it is not an import report (its `"type"`), or its
/// `activity`, `altitude_source` or `auto_lap_m` is not one a report has; [`Status::Limit`] for a
/// report line or config over the input limit (every line [`import_recording`] writes is within
/// it) or either nested too deep; [`Status::Internal`] when the loaded
/// library has no `runway_replay_config` (built before it was added).
pub fn replay_config(report: &str, config: Option<&str>) -> Result<Option<String>> {
    crate::load()?;
    let Some(replay_config) = sys::runway_replay_config() else {
        return Err(Error::new(
            Status::Internal,
            "the loaded librunway has no runway_replay_config (built before it was added; rebuild it)",
        ));
    };
    let report = cstring(report, Status::Json)?;
    let config = opt_cstring(config, Status::Argument)?;
    // SAFETY: `replay_config` is the library's runway_replay_config; both strings are
    // NUL-terminated (or the config NULL) for the call, and out is a valid `char **`.
    let text = take_string(|out| unsafe { replay_config(report.as_ptr(), opt_ptr(&config), out) })?;
    Ok(Some(text).filter(|t| t != "{}"))
}

/// A recording analysed in one call ([`analyse`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The flight record, as [`crate::Session::summary`] gives it (JSON).
    pub summary: String,
    /// The import report (JSON), the last line of [`import_recording`].
    pub report: String,
    /// Inputs read from the file.
    pub inputs: usize,
    /// Inputs the engine accepted.
    pub accepted: usize,
    /// Inputs the engine refused (logged; the rest went on).
    pub rejected: usize,
    /// The first refused line: its place among the lines (1-based; a FIT file's start, pause and
    /// resume lines count) and why.
    pub first_rejection: Option<(usize, String)>,
}

impl Analysis {
    /// The flight record typed: [`crate::Summary::from_json`] of [`Analysis::summary`] (its
    /// laps, figures and route as fields).
    ///
    /// ```no_run
    /// # fn main() -> runway::Result<()> {
    /// let a = runway::analyse(&std::fs::read("ride.fit").unwrap(), None)?;
    /// let record = a.parsed_summary()?;
    /// println!("{:.1} km in {} laps", record.distance_m / 1000.0, record.laps.len());
    /// # Ok(()) }
    /// ```
    pub fn parsed_summary(&self) -> Result<crate::Summary> {
        crate::Summary::from_json(&self.summary)
    }
}

/// A recording's flight in one library call (`runway_analyse`): the file read straight into a
/// flight of its own with the file's sport (unless `options`' config names an `activity`),
/// started at its first input (or by a FIT file's start line: its timer started before its
/// first record) and stopped at the latest time it saw.
///
/// `options`: `None` or `{"format":"auto","salvage":false,"route":true,"config":{...}}`
/// (runway.h).
///
/// ```no_run
/// # fn main() -> runway::Result<()> {
/// let a = runway::analyse(&std::fs::read("ride.fit").unwrap(), None)?;
/// let km = runway::json::f64_field(&a.summary, "distance_m").unwrap_or(0.0) / 1000.0;
/// # Ok(()) }
/// ```
///
/// Errors: [`Status::Argument`] bad options or config; [`Status::Input`] not a readable
/// recording, no timed point, or a first time that cannot start a flight; [`Status::Internal`]
/// when the loaded library has no `runway_analyse`.
pub fn analyse(data: &[u8], options: Option<&str>) -> Result<Analysis> {
    crate::load()?;
    let Some(call) = sys::runway_analyse() else {
        return Err(Error::new(Status::Internal, "the loaded librunway has no runway_analyse (rebuild it)"));
    };
    let options = options.map(|o| cstring(o, Status::Argument)).transpose()?;
    let ptr = options.as_ref().map_or(std::ptr::null(), |o| o.as_ptr());
    // SAFETY: `call` is the library's runway_analyse; options is NULL or NUL-terminated and data
    // is valid for data.len() bytes during the call.
    let bytes = take_bytes(|out, len| unsafe { call(ptr, data.as_ptr().cast(), data.len(), out, len) })?;
    analysis(bytes)
}

/// [`analyse`], with the route handed over as numbers (`runway_analyse_route`) instead of in
/// the summary's JSON: the summary has no `"route"` member (its other route members stay), the
/// points come as [`RoutePoint`]s (`alt` `None` when unknown), the same values the JSON route
/// has. With `"route":false` in `options`, no points.
///
/// ```no_run
/// # fn main() -> runway::Result<()> {
/// let (a, route) = runway::analyse_route(&std::fs::read("ride.fit").unwrap(), None)?;
/// assert_eq!(runway::json::f64_field(&a.summary, "points"), Some(route.len() as f64));
/// # Ok(()) }
/// ```
///
/// Errors: as [`analyse`]; [`Status::Internal`] when the loaded library has no
/// `runway_analyse_route`.
pub fn analyse_route(data: &[u8], options: Option<&str>) -> Result<(Analysis, Vec<RoutePoint>)> {
    crate::load()?;
    let (Some(call), Some(free)) = (sys::runway_analyse_route(), sys::runway_route_free()) else {
        return Err(Error::new(
            Status::Internal,
            "the loaded librunway has no runway_analyse_route (rebuild it)",
        ));
    };
    let options = options.map(|o| cstring(o, Status::Argument)).transpose()?;
    let ptr = options.as_ref().map_or(std::ptr::null(), |o| o.as_ptr());
    let mut points: *mut sys::runway_route_point = std::ptr::null_mut();
    let mut count = 0usize;
    // SAFETY: `call` is the library's runway_analyse_route; options is NULL or NUL-terminated,
    // data is valid for data.len() bytes during the call, and the route outputs are valid.
    let bytes = take_bytes(|out, len| unsafe {
        call(ptr, data.as_ptr().cast(), data.len(), out, len, &mut points, &mut count)
    })?;
    let route = if points.is_null() {
        Vec::new()
    } else {
        // SAFETY: on success the library returned `count` structs at `points`; they are copied,
        // then freed once with runway_route_free.
        unsafe {
            let route = std::slice::from_raw_parts(points, count)
                .iter()
                .map(|p| RoutePoint {
                    lat: p.lat,
                    lon: p.lon,
                    alt: (!p.alt.is_nan()).then_some(p.alt),
                    t: p.t,
                })
                .collect();
            free(points);
            route
        }
    };
    Ok((analysis(bytes)?, route))
}

/// An [`Analysis`] from `runway_analyse`'s result.
fn analysis(bytes: Vec<u8>) -> Result<Analysis> {
    let text = String::from_utf8(bytes)
        .map_err(|e| Error::new(Status::Internal, format!("runway_analyse returned invalid UTF-8: {e}")))?;
    let bad = || Error::new(Status::Internal, "runway_analyse returned an unexpected result");
    let count = |key: &str| json::f64_field(&text, key).map(|v| v as usize).ok_or_else(bad);
    let first_rejection = match json::raw_field(&text, "first_rejection") {
        Some("null") | None => None,
        Some(r) => Some((
            json::f64_field(r, "index").map_or(0, |v| v as usize),
            json::str_field(r, "message").unwrap_or_default(),
        )),
    };
    Ok(Analysis {
        summary: json::raw_field(&text, "summary").ok_or_else(bad)?.to_string(),
        report: json::raw_field(&text, "report").ok_or_else(bad)?.to_string(),
        inputs: count("inputs")?,
        accepted: count("accepted")?,
        rejected: count("rejected")?,
        first_rejection,
    })
}
