//! The values of pushing inputs: a [`Fix`] for
//! [`Session::push_fix`](crate::Session::push_fix), the [`Batch`] outcome of
//! [`Session::push_jsonl`](crate::Session::push_jsonl).

use crate::error::{Error, Result};
use crate::sys;

/// One GPS fix for [`Session::push_fix`](crate::Session::push_fix), the fast path (same rules as
/// a JSON fix).
///
/// NaN means unknown; a negative finite `speed`, `course`, `h_acc` or `v_acc` also means
/// unknown (as on phones). `lat` and `lon` are required; `t` is required with the replay clock
/// and may be NaN ("now") with the live clock.
///
/// ```
/// let fix = runway::Fix::new(1_700_000_000.0, 52.0, 4.0).with_speed(3.2).with_h_acc(4.0);
/// assert!(fix.alt.is_nan());
/// assert_eq!(fix.speed, 3.2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fix {
    /// Unix seconds.
    pub t: f64,
    /// Degrees, -90..90.
    pub lat: f64,
    /// Degrees, -180..180.
    pub lon: f64,
    /// Metres above sea level.
    pub alt: f64,
    /// m/s, from the receiver (Doppler).
    pub speed: f64,
    /// Degrees clockwise from true north, 0..360.
    pub course: f64,
    /// Horizontal accuracy, metres.
    pub h_acc: f64,
    /// Vertical accuracy, metres.
    pub v_acc: f64,
}

impl Fix {
    /// A fix at time `t` and position `lat`, `lon`; everything else unknown (NaN).
    pub fn new(t: f64, lat: f64, lon: f64) -> Fix {
        Fix { t, lat, lon, ..Fix::default() }
    }
    /// Sets the altitude in metres.
    pub fn with_alt(mut self, alt: f64) -> Fix {
        self.alt = alt;
        self
    }
    /// Sets the receiver speed in m/s.
    pub fn with_speed(mut self, speed: f64) -> Fix {
        self.speed = speed;
        self
    }
    /// Sets the course in degrees clockwise from true north.
    pub fn with_course(mut self, course: f64) -> Fix {
        self.course = course;
        self
    }
    /// Sets the horizontal accuracy in metres.
    pub fn with_h_acc(mut self, h_acc: f64) -> Fix {
        self.h_acc = h_acc;
        self
    }
    /// Sets the vertical accuracy in metres.
    pub fn with_v_acc(mut self, v_acc: f64) -> Fix {
        self.v_acc = v_acc;
        self
    }
}

impl Default for Fix {
    /// Every field unknown (NaN).
    fn default() -> Fix {
        let n = f64::NAN;
        Fix { t: n, lat: n, lon: n, alt: n, speed: n, course: n, h_acc: n, v_acc: n }
    }
}

impl From<&Fix> for sys::runway_fix {
    fn from(f: &Fix) -> sys::runway_fix {
        sys::runway_fix {
            t: f.t,
            lat: f.lat,
            lon: f.lon,
            alt: f.alt,
            speed: f.speed,
            course: f.course,
            h_acc: f.h_acc,
            v_acc: f.v_acc,
        }
    }
}

/// The outcome of [`Session::push_jsonl`](crate::Session::push_jsonl): every line is processed,
/// good or bad.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a batch may have rejected lines; check `rejected` or `first_error`"]
pub struct Batch {
    /// Lines accepted.
    pub accepted: usize,
    /// Lines rejected.
    pub rejected: usize,
    /// The error of the first rejected line (its message names the 1-based line number), or
    /// `None` when every line was accepted.
    pub first_error: Option<Error>,
}

impl Batch {
    /// `Ok(())` when every line was accepted, else the first rejected line's error.
    pub fn into_result(self) -> Result<()> {
        match self.first_error {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }
}
