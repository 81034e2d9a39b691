//! Sessions: one flight each, and the shared state that decides when the C session closes.
//!
//! Here [`Session`] and `Inner`; the values of pushing ([`Fix`], [`Batch`]) in `push`, the
//! strings and buffers across the C ABI in `cstr`.

mod cstr;
mod push;

pub(crate) use cstr::{copy_and_free, cstring, opt_cstring, opt_ptr, take_bytes, take_string};
pub use push::{Batch, Fix};

use std::os::raw::c_char;
use std::ptr;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{check, Error, Result, Status};
use crate::subscription::{self, PollSubscription, Subscription};
use crate::{sys, Event};

/// The C session shared by a [`Session`] and its [`Subscription`]s / [`PollSubscription`]s.
///
/// It is closed (`runway_session_close`) when the last of them is dropped, so a subscription
/// handle can never outlive the session it refers to.
pub(crate) struct Inner {
    raw: *mut sys::runway_session,
    /// Callback boxes that may still be called until the session closes: those of
    /// subscriptions ended from inside a callback (where `runway_unsubscribe` does not wait),
    /// and of detached subscriptions. Freed right after `runway_session_close` returns.
    deferred: Mutex<Vec<subscription::CallbackPtr>>,
}

// SAFETY: every runway_* function is safe to call from any thread, concurrently, on the same
// session (runway.h, "Conventions"); the pointer is only closed in Drop, when no other handle
// can use it any more. `deferred` is behind a Mutex.
unsafe impl Send for Inner {}
unsafe impl Sync for Inner {}

impl Inner {
    pub(crate) fn raw(&self) -> *mut sys::runway_session {
        self.raw
    }

    /// Keeps a callback box alive until the session is closed.
    pub(crate) fn defer(&self, data: subscription::CallbackPtr) {
        self.deferred.lock().unwrap_or_else(PoisonError::into_inner).push(data);
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let deferred = std::mem::take(self.deferred.get_mut().unwrap_or_else(PoisonError::into_inner));
        let job = CloseJob { raw: self.raw, deferred };
        if subscription::in_callback() {
            // The last handle went away inside a callback (for example a callback that dropped
            // its own Subscription after the Session was dropped). runway_session_close must not
            // run on a callback thread (it would wait for itself), so a helper thread closes the
            // session; the close waits until this callback has returned.
            let spawned = std::thread::Builder::new().name("runway-close".into()).spawn(move || job.run());
            if let Err(e) = spawned {
                // Without a thread the session cannot be closed safely: leak it rather than
                // deadlock or free a running callback. (The job went with the closure passed
                // to spawn; dropping a CallbackPtr frees nothing.)
                let _ = std::io::Write::write_fmt(
                    &mut std::io::stderr(),
                    format_args!("runway: could not spawn a thread to close a session ({e}); leaking it\n"),
                );
            }
        } else {
            job.run();
        }
    }
}

/// Closes a session, then frees the callback boxes that could run until then. Dropped without
/// `run`, it leaks both (CallbackPtr has no Drop).
struct CloseJob {
    raw: *mut sys::runway_session,
    deferred: Vec<subscription::CallbackPtr>,
}

// SAFETY: see Inner; the job is the only owner of the pointer and of the boxes.
unsafe impl Send for CloseJob {}

impl CloseJob {
    fn run(self) {
        // SAFETY: the last handle is gone, so nothing else uses `raw`. After close returns no
        // callback of the session starts any more, so the boxes can be freed (free() also
        // waits for a call still in progress).
        unsafe { sys::runway_session_close(self.raw) };
        for data in self.deferred {
            // SAFETY: each box was leaked by subscribe() and handed over exactly once.
            unsafe { data.free() };
        }
    }
}
/// One flight: a `runway_session`.
///
/// `Session` is `Send + Sync`: every method takes `&self` and may be called from any thread
/// concurrently (the C library is thread-safe). Share it with `Arc<Session>` or scoped threads.
///
/// # Lifetime
/// Dropping the `Session` closes the C session — unless [`Subscription`]s or
/// [`PollSubscription`]s made from it are still alive: each holds a reference to the same
/// shared state, and the C session is closed when the last of them is dropped. Closing delivers
/// to every subscription still active (for example [detached](Subscription::detach) ones) the
/// events already queued for it, ends it, and returns only when none of their callbacks is
/// running; no callback runs after that. (Dropping a `Subscription` ends it at once: what was
/// queued for it is dropped.)
///
/// If the last handle is dropped inside a callback (which must not close its own session), the
/// close runs on a short-lived helper thread and completes once that callback has returned.
///
/// A closure that owns a handle of its own session (a `Subscription`, or an `Arc<Session>`)
/// forms a cycle that keeps the session open until that subscription is cancelled.
pub struct Session {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("raw", &self.inner.raw).finish()
    }
}

impl Session {
    /// Opens a session (one flight) in phase `preflight`.
    ///
    /// `config` is `None` (all defaults) or a JSON object with any of `"clock"`
    /// (`"replay"` | `"live"`), `"activity"` (`"run"` | `"walk"` | `"ride"`), `"filters"`
    /// (`"on"` | `"off"`: raw accumulation, distance the geodesic sum between kept fixes),
    /// `"distance_filter_m"`, `"required_accuracy_m"`, `"pace_window_s"`, `"gap_s"`, `"jump_m"`,
    /// `"count_gaps"`, `"speed_cap_mps"`, `"auto_pause"`, `"auto_lap_m"`, `"hr_max"`,
    /// `"elevation_hysteresis_m"`, `"position_sigma_m"`, `"target_pace"`, `"target_power"`, `"hr_ceiling"`,
    /// `"goal_m"`, `"minimums_m"`, `"fix_altitude"`, `"simplify_m"`, `"max_route_points"`,
    /// `"store"`, `"durability"`, `"flight_id"` (see `docs/inputs.md` in the repository). Unknown
    /// keys are [`Status::Argument`].
    ///
    /// Also fails with [`Status::Internal`] when no librunway can be loaded (the message lists
    /// every place tried) or its ABI version differs from the one this crate was written for
    /// ([`sys::RUNWAY_ABI_VERSION`]).
    pub fn open(config: Option<&str>) -> Result<Session> {
        Session::check_abi()?;
        let config = opt_cstring(config, Status::Argument)?;
        let mut raw = ptr::null_mut();
        // SAFETY: config is NULL or a NUL-terminated string alive for the call; raw is written
        // only on success.
        check(unsafe { sys::runway_session_open(opt_ptr(&config), &mut raw) })?;
        Session::adopt(raw, "runway_session_open")
    }

    /// Takes ownership of a session pointer the library just returned.
    pub(crate) fn adopt(raw: *mut sys::runway_session, what: &str) -> Result<Session> {
        if raw.is_null() {
            return Err(Error::new(Status::Internal, format!("{what} returned no session")));
        }
        Ok(Session { inner: Arc::new(Inner { raw, deferred: Mutex::new(Vec::new()) }) })
    }

    /// Loads the library if needed (an error when none loads: see the crate docs, "Loading")
    /// and checks its ABI version against [`sys::RUNWAY_ABI_VERSION`].
    pub(crate) fn check_abi() -> Result<()> {
        crate::load()?;
        let abi = crate::abi_version();
        if abi != sys::RUNWAY_ABI_VERSION {
            return Err(Error::new(
                Status::Internal,
                format!("librunway has ABI version {abi}; this crate needs {}", sys::RUNWAY_ABI_VERSION),
            ));
        }
        Ok(())
    }

    /// The raw session pointer, for calls through [`sys`]. It stays valid while this `Session`
    /// is alive; do not close it.
    pub fn as_raw(&self) -> *mut sys::runway_session {
        self.inner.raw
    }

    /// Pushes one input as a JSON object: a fix (`{"lat":..,"lon":..,"t":..,...}`) or a sample
    /// (`{"type":"hr","bpm":148,"t":..}`, `{"type":"cadence","spm":172,"t":..}`). Returns when
    /// the input is processed. A string with a NUL byte is [`Status::Json`].
    pub fn push_json(&self, json: &str) -> Result<()> {
        let json = cstring(json, Status::Json)?;
        // SAFETY: valid session and NUL-terminated string.
        check(unsafe { sys::runway_push_json(self.inner.raw, json.as_ptr()) })
    }

    /// Pushes a JSON Lines batch (one input a line; blank lines skipped, `"\r\n"` accepted).
    /// Every line is processed, good or bad; the returned [`Batch`] has the counts and the
    /// first rejected line's error.
    pub fn push_jsonl(&self, lines: impl AsRef<[u8]>) -> Batch {
        let buf = lines.as_ref();
        let (mut accepted, mut rejected) = (0usize, 0usize);
        // SAFETY: buf is valid for len bytes; the counts are always written.
        let code = unsafe {
            sys::runway_push_jsonl(
                self.inner.raw,
                buf.as_ptr().cast::<c_char>(),
                buf.len(),
                &mut accepted,
                &mut rejected,
            )
        };
        Batch { accepted, rejected, first_error: check(code).err() }
    }

    /// Pushes one fix as a struct (the fast path; same rules as a JSON fix).
    pub fn push_fix(&self, fix: &Fix) -> Result<()> {
        let c: sys::runway_fix = fix.into();
        // SAFETY: valid session; `c` lives for the call.
        check(unsafe { sys::runway_push_fix(self.inner.raw, &c) })
    }

    /// Advances the clock to `t` without a fix (`None` = now). In cruise this advances elapsed
    /// time and emits a `tick` event.
    pub fn tick(&self, t: Option<f64>) -> Result<()> {
        // SAFETY: valid session.
        check(unsafe { sys::runway_tick(self.inner.raw, time(t)) })
    }

    /// `preflight` → `cruise`. `None` = now (replay clock: the latest input's time, or before
    /// any input the next input's time). Other phases: [`Status::State`].
    pub fn start(&self, t: Option<f64>) -> Result<()> {
        // SAFETY: valid session.
        check(unsafe { sys::runway_start(self.inner.raw, time(t)) })
    }

    /// `cruise` → `holding`. Other phases: [`Status::State`].
    pub fn pause(&self, t: Option<f64>) -> Result<()> {
        // SAFETY: valid session.
        check(unsafe { sys::runway_pause(self.inner.raw, time(t)) })
    }

    /// `holding` → `cruise`. Other phases: [`Status::State`].
    pub fn resume(&self, t: Option<f64>) -> Result<()> {
        // SAFETY: valid session.
        check(unsafe { sys::runway_resume(self.inner.raw, time(t)) })
    }

    /// `cruise` or `holding` → `touchdown`; a session is one flight: the record is complete, a
    /// push after it is [`Status::State`] and a tick does nothing. Other phases:
    /// [`Status::State`].
    pub fn stop(&self, t: Option<f64>) -> Result<()> {
        // SAFETY: valid session.
        check(unsafe { sys::runway_stop(self.inner.raw, time(t)) })
    }

    /// A manual lap at `t` (`None` = now): ends the current lap and emits a `split` event
    /// (`{"kind":"split","seq":..,"t":..,"lap":{"index","trigger":"manual","start_t","end_t",
    /// "distance_m","elapsed_s","pace_min_per_km","avg_hr_bpm","gain_m","loss_m"}}`); the lap
    /// also joins the summary's `laps`. Auto-laps (config `"auto_lap_m"`) keep their boundaries
    /// at multiples of that distance from the start. In cruise, a lap later than the latest fix
    /// (between fixes, or "now" under the live clock) waits for the next fix, as one does while
    /// a gap waits for its confirming fix, or while paused when the pause came after the leg's
    /// last fix (the next fix measures the stretch before the pause), or while steps before it
    /// are held (movement not yet confirmed, or slow steps while moving: until they are
    /// credited, or can no longer be: a quiet stretch, a pause or auto-pause, the stop,
    /// positions falling silent while speed samples measure on): the
    /// split comes then (or with the next command), timed `t`, with its share of the step it
    /// falls in and of the held metres. Before any fix or speed sample (a
    /// heart-rate strap alone) it is cut at once.
    ///
    /// Outside `cruise` and `holding`, or with nothing (no time, no distance) since the last
    /// lap: [`Status::State`]. A `t` before the latest input: [`Status::Input`].
    pub fn lap(&self, t: Option<f64>) -> Result<()> {
        // SAFETY: valid session.
        check(unsafe { sys::runway_lap(self.inner.raw, time(t)) })
    }

    /// The latest flight data, typed (see [`Session::snapshot_json`] for the JSON).
    pub fn snapshot(&self) -> Result<crate::Snapshot> {
        crate::Snapshot::from_json(&self.snapshot_json()?)
    }

    /// The latest FlightData snapshot as JSON (the object a `flight` event carries).
    pub fn snapshot_json(&self) -> Result<String> {
        // SAFETY: valid session.
        take_string(|out| unsafe { sys::runway_snapshot_json(self.inner.raw, out) })
    }

    /// The flight record so far (complete after stop), typed: laps, route and every figure
    /// (see [`Session::summary_json`] for the JSON).
    pub fn summary(&self) -> Result<crate::Summary> {
        crate::Summary::from_json(&self.summary_json()?)
    }

    /// The flight record so far as JSON, with the route as `[[lat, lon, alt|null, t], ...]`.
    pub fn summary_json(&self) -> Result<String> {
        // SAFETY: valid session.
        take_string(|out| unsafe { sys::runway_summary_json(self.inner.raw, out) })
    }

    /// The last log lines (oldest first) as a JSON array of log events.
    pub fn log(&self) -> Result<String> {
        // SAFETY: valid session.
        take_string(|out| unsafe { sys::runway_log_json(self.inner.raw, out) })
    }

    /// The id of the flight this session journals to its store (config `"store"`; named by
    /// config `"flight_id"`, else made up at open, e.g. `"20261129T180512Z-3fa9c2"`), or `None`
    /// for a session without a store. The summary carries it too, as `"flight_id"`.
    pub fn flight_id(&self) -> Result<Option<String>> {
        // SAFETY: valid session.
        let id = take_string(|out| unsafe { sys::runway_session_flight_id(self.inner.raw, out) })?;
        Ok((!id.is_empty()).then_some(id))
    }

    /// The flight as it is now, as a file in `format`: `"gpx"` (GPX 1.1 with Garmin
    /// TrackPointExtension v2, one `trkseg` per timer leg: a break where the flight paused, none
    /// at a GPS gap), `"tcx"` (Training Center XML with laps, one `Track` per timer leg in
    /// each), `"fit"` (a FIT activity file: binary, with NUL bytes), `"geojson"` (a
    /// Feature, the summary as properties) or `"csv"` (one row per route point). A flight still
    /// in the air is exported with its lap in progress. Text formats are UTF-8.
    ///
    /// An unknown format (names are lower case) is [`Status::Argument`].
    pub fn export(&self, format: &str) -> Result<Vec<u8>> {
        let format = cstring(format, Status::Argument)?;
        // SAFETY: valid session and NUL-terminated format.
        take_bytes(|out, len| unsafe { sys::runway_export(self.inner.raw, format.as_ptr(), out, len) })
    }

    /// Subscribes `f` to the session's events, from the next one on.
    ///
    /// `options` is `None` or a JSON object with any of `"kinds"`, `"policy"` (`"latest"` |
    /// `"queue"`), `"capacity"`; unknown keys or kinds are [`Status::Argument`].
    ///
    /// `f` runs on a thread the library owns (one per subscription), never concurrently with
    /// itself. It may call back into the library through handles it owns, and may drop its
    /// own [`Subscription`] (see there). A panic in `f` is caught at the C boundary (it never
    /// unwinds into C): it is counted in [`Subscription::panic_count`], its message kept in
    /// [`Subscription::last_panic`], the panic hook reports it as usual (stderr by default),
    /// and later events are still delivered. With `panic = "abort"` a panic aborts as always.
    pub fn subscribe<F>(&self, options: Option<&str>, f: F) -> Result<Subscription>
    where
        F: FnMut(&Event) + Send + 'static,
    {
        subscription::subscribe(&self.inner, options, Box::new(f))
    }

    /// Opens a poll subscription (no callback): read it with [`PollSubscription::poll`].
    /// `options` as for [`Session::subscribe`], e.g. `Some(r#"{"policy":"queue"}"#)` for every
    /// event in order.
    pub fn poll_subscription(&self, options: Option<&str>) -> Result<PollSubscription> {
        subscription::poll_subscribe(&self.inner, options)
    }
}

fn time(t: Option<f64>) -> f64 {
    t.unwrap_or(f64::NAN)
}
