//! Statuses and errors: the one place that turns a `runway_status` into a [`Result`].

use std::ffi::CStr;
use std::fmt;

use crate::sys;

/// Why a call failed: the non-OK values of the C `runway_status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// `RUNWAY_ERR_ARGUMENT`: a NULL pointer, a bad config or bad subscription options
    /// (unknown keys are typos and rejected), or a poll of a callback subscription.
    Argument,
    /// `RUNWAY_ERR_JSON`: not JSON, not a JSON object, or invalid UTF-8.
    Json,
    /// `RUNWAY_ERR_INPUT`: well-formed but invalid input (missing or ill-typed field, out of
    /// range, non-finite, time going backwards).
    Input,
    /// `RUNWAY_ERR_STATE`: not allowed in the session's current phase.
    State,
    /// `RUNWAY_ERR_NOT_FOUND`: unknown subscription or record.
    NotFound,
    /// `RUNWAY_ERR_STORE`: storage failure.
    Store,
    /// `RUNWAY_ERR_INTERNAL`, or a status code this binding does not know.
    Internal,
    /// `RUNWAY_ERR_LIMIT`: a documented limit was reached and nothing changed: an input over
    /// [`sys::RUNWAY_MAX_INPUT_BYTES`] or nested deeper than [`sys::RUNWAY_MAX_JSON_DEPTH`], a
    /// subscription past [`sys::RUNWAY_MAX_SUBSCRIBERS`], a queue capacity above
    /// [`sys::RUNWAY_MAX_QUEUE_CAPACITY`], a `max_route_points` above
    /// [`sys::RUNWAY_MAX_ROUTE_POINTS`], a fix that would add a point to a full route, or a
    /// manual lap on a flight with [`sys::RUNWAY_MAX_LAPS`]` - 1` laps.
    Limit,
}

impl Status {
    /// The status for a C status code; `None` for `RUNWAY_OK`. Unknown codes map to
    /// [`Status::Internal`].
    pub fn from_code(code: sys::runway_status) -> Option<Status> {
        Some(match code {
            sys::RUNWAY_OK => return None,
            sys::RUNWAY_ERR_ARGUMENT => Status::Argument,
            sys::RUNWAY_ERR_JSON => Status::Json,
            sys::RUNWAY_ERR_INPUT => Status::Input,
            sys::RUNWAY_ERR_STATE => Status::State,
            sys::RUNWAY_ERR_NOT_FOUND => Status::NotFound,
            sys::RUNWAY_ERR_STORE => Status::Store,
            sys::RUNWAY_ERR_LIMIT => Status::Limit,
            _ => Status::Internal,
        })
    }

    /// The C status code.
    pub fn code(self) -> sys::runway_status {
        match self {
            Status::Argument => sys::RUNWAY_ERR_ARGUMENT,
            Status::Json => sys::RUNWAY_ERR_JSON,
            Status::Input => sys::RUNWAY_ERR_INPUT,
            Status::State => sys::RUNWAY_ERR_STATE,
            Status::NotFound => sys::RUNWAY_ERR_NOT_FOUND,
            Status::Store => sys::RUNWAY_ERR_STORE,
            Status::Internal => sys::RUNWAY_ERR_INTERNAL,
            Status::Limit => sys::RUNWAY_ERR_LIMIT,
        }
    }

    /// The library's fixed description of this status (`runway_status_string`).
    pub fn description(self) -> &'static str {
        // SAFETY: runway_status_string returns static storage for every code.
        unsafe { static_str(sys::runway_status_string(self.code())) }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// A failed call: its [`Status`] and the library's message for it.
///
/// The message is read with `runway_last_error()` on the calling thread right after the failed
/// call. Decide what to do from [`Error::status`], never from the message text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What kind of failure it was.
    pub status: Status,
    /// A human-readable message (may be empty).
    pub message: String,
}

impl Error {
    /// An error made by this binding itself (for example a string with an interior NUL byte,
    /// which cannot cross the C boundary).
    pub fn new(status: Status, message: impl Into<String>) -> Error {
        Error { status, message: message.into() }
    }

    /// Reads this thread's `runway_last_error()` for a failed call that returned `code`.
    pub(crate) fn last(status: Status) -> Error {
        // SAFETY: runway_last_error returns a NUL-terminated string owned by the library, valid
        // until this thread's next failing call; it is copied at once.
        let message = unsafe {
            let p = sys::runway_last_error();
            if p.is_null() {
                String::new()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        Error { status, message }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{:?}: {}", self.status, self.status)
        } else {
            write!(f, "{:?}: {}", self.status, self.message)
        }
    }
}

impl std::error::Error for Error {}

/// The result of every fallible call of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Turns a C status into a `Result`, reading the message on failure. Call it directly after
/// the C call, on the same thread, before any other library call.
pub(crate) fn check(code: sys::runway_status) -> Result<()> {
    match Status::from_code(code) {
        None => Ok(()),
        Some(status) => Err(Error::last(status)),
    }
}

/// A `&'static str` from a static C string; "" for NULL or invalid UTF-8.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string in static storage.
pub(crate) unsafe fn static_str(p: *const std::os::raw::c_char) -> &'static str {
    if p.is_null() {
        ""
    } else {
        CStr::from_ptr(p).to_str().unwrap_or("")
    }
}
