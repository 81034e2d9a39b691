//! The flight store: flights journaled to SQLite, listed, read, recovered, exported, deleted.
//!
//! A session opened with `{"store":"runs.db"}` journals its flight to that file (SQLite,
//! WAL): every accepted input, phase change and lap, and every clock tick that moves the clock,
//! is durable when the call returns (`"durability":"every_fix"`, the default) or within about a
//! second (`"batched"`). [`Session::stop`] writes the finished record. If the host dies before
//! that, the flight stays unfinished: [`recover`] continues it (the journal is replayed, so
//! distance, time, laps, phase and every figure are those at the last acknowledged input or
//! tick), or [`finish_flight`] lands it as it is.
//!
//! Every function takes the store's path and opens it for the call; another process may read
//! the store while a session writes it. Errors: [`Status::NotFound`] for an unknown flight id
//! or a store file that does not exist (`"no store at ..."`), [`Status::State`] for a flight in
//! the wrong state (recovering or finishing a finished one) or one that an open session, in
//! any process, is writing (recovering, finishing or deleting it), [`Status::Store`] for a store
//! that cannot be opened or read (a directory, a file that is not a librunway store, a damaged
//! file), [`Status::Argument`] for a path that is not valid UTF-8 or has a NUL byte (the
//! library takes UTF-8 paths, and a session's `"store"` is a JSON string: a store cannot live
//! in a folder whose name is Latin-1 bytes; docs/limits.md).
//!
//! ```no_run
//! # fn main() -> runway::Result<()> {
//! let s = runway::Session::open(Some(r#"{"store":"runs.db"}"#))?;
//! s.start(Some(1_700_000_000.0))?;
//! // ... push fixes ...
//! s.stop(None)?;
//! let id = s.flight_id()?.expect("a stored session has a flight id");
//! drop(s);
//! let listing: Vec<runway::Flight> = runway::store::flights("runs.db")?; // oldest first
//! let gpx = runway::store::export_flight("runs.db", &id, "gpx")?;
//! # let _ = (listing, gpx);
//! # Ok(()) }
//! ```

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr;

use crate::error::{check, Error, Result, Status};
use crate::session::{cstring, opt_cstring, opt_ptr, take_bytes, take_string};
use crate::{sys, Session};

fn path_cstring(path: &Path) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|e| {
        Error::new(Status::Argument, format!("store path has a NUL byte at offset {}", e.nul_position()))
    })
}

fn id_cstring(flight_id: &str) -> Result<CString> {
    cstring(flight_id, Status::Argument)
}

/// Continues an unfinished stored flight after its host died.
///
/// The flight's journal is replayed through the engine, so the returned session is in the
/// phase, with the distance, elapsed time, laps and every figure, of the last acknowledged input
/// or tick; new inputs are journaled to the same flight, and [`Session::stop`] finishes it.
///
/// `config` is `None` (recommended: the flight's own config; `""` is the same) or an engine
/// config JSON; a different config replays differently. Its `"durability"` applies to the
/// recovered session's journal; `"store"` and `"flight_id"` are this function's arguments, not
/// config keys ([`Status::Argument`]).
///
/// Errors: [`Status::NotFound`] no such store or flight, [`Status::State`] the flight is
/// finished (read it with [`flight`]) or an open session (in any process) is writing it,
/// [`Status::Store`] the store cannot be read or written, [`Status::Argument`] a bad config.
pub fn recover(path: impl AsRef<Path>, flight_id: &str, config: Option<&str>) -> Result<Session> {
    Session::check_abi()?;
    let path = path_cstring(path.as_ref())?;
    let id = id_cstring(flight_id)?;
    let config = opt_cstring(config, Status::Argument)?;
    let mut raw = ptr::null_mut();
    // SAFETY: NUL-terminated strings (config may be NULL) alive for the call; raw is written
    // only on success.
    check(unsafe { sys::runway_session_recover(path.as_ptr(), id.as_ptr(), opt_ptr(&config), &mut raw) })?;
    Session::adopt(raw, "runway_session_recover")
}

/// Lands an unfinished stored flight without opening a session: it becomes `touchdown` with
/// `end_reason` `"recovered"` at its last journaled time.
///
/// Errors: [`Status::NotFound`] (no such store or flight), [`Status::State`] (already
/// finished, or an open session is writing it), [`Status::Store`].
pub fn finish_flight(path: impl AsRef<Path>, flight_id: &str) -> Result<()> {
    crate::load()?;
    let path = path_cstring(path.as_ref())?;
    let id = id_cstring(flight_id)?;
    // SAFETY: NUL-terminated strings alive for the call.
    check(unsafe { sys::runway_flight_finish(path.as_ptr(), id.as_ptr()) })
}

/// The store's flights, oldest first, each a [`crate::Flight`]: its id, start and end times,
/// end reason, whether it is finished, activity, distance, elapsed and moving time and average
/// pace (`None` where unknown), and whether it is damaged. A damaged flight is listed with its
/// id, `damaged` true, its `error` and every other value `None`; reading it with [`flight`]
/// fails with [`Status::Store`]. [`flights_json`] gives the same list as JSON.
///
/// Errors: [`Status::NotFound`] no store at `path` (`"no store at ..."`), [`Status::Store`] a
/// store that cannot be read.
pub fn flights(path: impl AsRef<Path>) -> Result<Vec<crate::Flight>> {
    crate::Flight::list_from_json(&flights_json(path)?)
}

/// The store's flights as the JSON array [`flights`] reads: objects with `"flight_id"`,
/// `"start_t"`, `"end_t"`, `"end_reason"`, `"finished"`, `"activity"`, `"distance_m"`,
/// `"elapsed_s"`, `"moving_s"`, `"avg_pace_min_per_km"` (unknown values `null`) and `"damaged"`
/// (a damaged one also `"error"`).
///
/// Errors: as [`flights`].
pub fn flights_json(path: impl AsRef<Path>) -> Result<String> {
    crate::load()?;
    let path = path_cstring(path.as_ref())?;
    // SAFETY: NUL-terminated string alive for the call.
    take_string(|out| unsafe { sys::runway_flights_json(path.as_ptr(), out) })
}

/// One stored flight: its summary with laps and route, as [`Session::summary`] gives it.
///
/// Errors: [`Status::NotFound`], [`Status::Store`].
pub fn flight(path: impl AsRef<Path>, flight_id: &str) -> Result<crate::Summary> {
    crate::Summary::from_json(&flight_json(path, flight_id)?)
}

/// One stored flight's record as JSON (what [`flight`] reads).
///
/// Errors: [`Status::NotFound`], [`Status::Store`].
pub fn flight_json(path: impl AsRef<Path>, flight_id: &str) -> Result<String> {
    crate::load()?;
    let path = path_cstring(path.as_ref())?;
    let id = id_cstring(flight_id)?;
    // SAFETY: NUL-terminated strings alive for the call.
    take_string(|out| unsafe { sys::runway_flight_json(path.as_ptr(), id.as_ptr(), out) })
}

/// Deletes a stored flight: its journal and its record.
///
/// Errors: [`Status::NotFound`] (no such store or flight; also when already deleted),
/// [`Status::State`] (an open session is writing it), [`Status::Store`].
pub fn delete_flight(path: impl AsRef<Path>, flight_id: &str) -> Result<()> {
    crate::load()?;
    let path = path_cstring(path.as_ref())?;
    let id = id_cstring(flight_id)?;
    // SAFETY: NUL-terminated strings alive for the call.
    check(unsafe { sys::runway_flight_delete(path.as_ptr(), id.as_ptr()) })
}

/// A stored flight as a file in `format` (`"gpx"`, `"tcx"`, `"fit"`, `"geojson"`, `"csv"`; see
/// [`Session::export`], which gives the same bytes for the same flight).
///
/// Errors: [`Status::Argument`] an unknown format, [`Status::NotFound`], [`Status::Store`].
pub fn export_flight(path: impl AsRef<Path>, flight_id: &str, format: &str) -> Result<Vec<u8>> {
    crate::load()?;
    let path = path_cstring(path.as_ref())?;
    let id = id_cstring(flight_id)?;
    let format = cstring(format, Status::Argument)?;
    // SAFETY: NUL-terminated strings alive for the call.
    take_bytes(|out, len| unsafe {
        sys::runway_flight_export(path.as_ptr(), id.as_ptr(), format.as_ptr(), out, len)
    })
}
