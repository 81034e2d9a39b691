//! Safe Rust bindings to **librunway**, a run-tracking engine behind a C ABI
//! (`include/runway.h`).
//!
//! A host pushes GPS fixes and samples into a [`Session`] (one *flight*), drives its phases
//! (`preflight` → `cruise` ⇄ `holding` → `touchdown`), receives events through
//! [`Subscription`]s (a closure on a library thread) or [`PollSubscription`]s, and reads the
//! flight record with [`Session::summary`]. Results are typed — [`Summary`] (with [`Lap`]s and
//! [`RoutePoint`]s), [`Snapshot`], [`Flight`], [`EventBody`] (an alert's figures as
//! [`AlertValues`]) — parsed by the crate's own std-only JSON reader, [`json`]; every one also
//! has its JSON (`summary_json`, `snapshot_json`, ...).
//!
//! ```
//! use std::sync::mpsc;
//! use std::time::Duration;
//! use runway::{Fix, Session};
//!
//! # fn main() -> runway::Result<()> {
//! let session = Session::open(Some(r#"{"distance_filter_m":5}"#))?;
//!
//! let (tx, rx) = mpsc::channel();
//! let phases = session.subscribe(Some(r#"{"kinds":["phase"]}"#), move |event| {
//!     let _ = tx.send(event.str_field("to").unwrap_or_default());
//! })?;
//!
//! let t0 = 1_700_000_000.0;
//! session.start(Some(t0))?;
//! session.push_json(r#"{"t":1700000000,"lat":52.0,"lon":4.0,"speed":3.2}"#)?;
//! session.push_fix(&Fix::new(t0 + 10.0, 52.0003, 4.0).with_speed(3.3))?;
//! session.push_json(r#"{"type":"hr","bpm":148,"t":1700000010}"#)?;
//! session.stop(None)?; // None = now: with the replay clock, the latest input's time
//!
//! assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), "cruise");
//! assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), "touchdown");
//!
//! let summary = session.summary()?; // a runway::Summary (summary_json() for the JSON)
//! assert!(summary.distance_m > 30.0);
//! assert_eq!(summary.laps.len(), 1);
//! assert_eq!(summary.route.len(), 2);
//! assert_eq!(runway::format_pace(5.05), "5:03");
//!
//! phases.cancel()?; // or just drop it
//! # Ok(()) }
//! ```
//!
//! # Store, export and import
//! A session opened with `{"store":"runs.db"}` journals its flight to SQLite so that it
//! survives a crash of the host; the [`store`] module lists, reads, recovers, finishes,
//! exports and deletes stored flights. [`Session::export`] writes the flight as GPX, TCX, FIT,
//! GeoJSON or CSV (bytes), and [`import_recording`] turns a GPX, TCX or FIT file into JSON Lines
//! inputs for [`Session::push_jsonl`] (with a librunway that has `runway_import`, which is
//! looked up at run time: see [`sys::runway_import`]).
//!
//! # Errors
//! Every fallible call returns [`Result`]; an [`Error`] carries the [`Status`] and the
//! library's message (`runway_last_error()`, read on the calling thread right after the failed
//! call). Bad input changes no run state.
//!
//! # Threads and lifetimes
//! [`Session`], [`Subscription`] and [`PollSubscription`] are `Send + Sync`. The C session is
//! closed when the `Session` and every subscription handle made from it are dropped (they share
//! it through an `Arc`); closing waits until no callback is running, and none runs after.
//! See [`Subscription`] for when a callback closure is freed and [`Session::subscribe`] for
//! what happens when it panics.
//!
//! # Loading
//! Nothing is linked at build time: the crate loads `librunway.so` with `dlopen` the first
//! time it is used, so an application that depends on it runs with no rpath, no
//! `LD_LIBRARY_PATH` and no build script of its own. It takes the first of: the path given to
//! [`load_from`]; `$RUNWAY_LIBRARY` (must load when set); `librunway.so.0` or `librunway.so`
//! beside the executable; the `make install` prefix known when the crate was built
//! (`$RUNWAY_PREFIX/lib`, else the `libdir` of the installed `runway.pc` that `pkg-config`
//! found: build with `PKG_CONFIG_PATH=PREFIX/lib/pkgconfig`); the system loader by SONAME,
//! `librunway.so.0` (a system-wide install, `LD_LIBRARY_PATH`); the repository's `build/`
//! folder the crate was built from. The order is the Python package's (`librunway`), with
//! the install prefix added. [`load`] loads it early and returns the file; [`library_path`]
//! tells which file is in use; [`library_candidates`] lists the places. A library with another
//! ABI version, or lacking a function of the header, is refused and the search goes on; when
//! none loads, the safe calls return [`Status::Internal`] with every place tried (the raw
//! [`sys`] functions, [`version`] and the `format_*` functions panic with it).
//!
#![warn(missing_docs)]

mod error;
mod format;
pub mod json;
mod library;
mod recording;
mod session;
pub mod store;
mod subscription;
#[allow(missing_docs)]
pub mod sys;
mod types;

pub use error::{Error, Result, Status};
pub use format::{
    format_altitude, format_direction, format_distance, format_heading_tape, format_pace, format_pace_tape,
    format_time,
};
pub use library::{candidates as library_candidates, library_path, load, load_from, SONAME};
pub use recording::{analyse, analyse_route, import_available, import_recording, replay_config, Analysis};
pub use session::{Batch, Fix, Session};
pub use subscription::{Drain, Event, PollSubscription, Subscription};
pub use types::{
    AlertValues, DopplerCheck, EventBody, Filtered, Flight, Lap, Pfd, ProfileMismatch, RoutePoint, Snapshot,
    Summary,
};

/// The loaded library's version, e.g. `"0.1.0"` (loads the library; panics when none loads:
/// see "Loading").
pub fn version() -> &'static str {
    // SAFETY: runway_version returns static storage.
    unsafe { error::static_str(sys::runway_version()) }
}

/// The loaded library's ABI version; this crate is written for [`sys::RUNWAY_ABI_VERSION`]
/// (and [`Session::open`] checks it).
pub fn abi_version() -> u32 {
    // SAFETY: no arguments, no preconditions.
    unsafe { sys::runway_abi_version() }
}
