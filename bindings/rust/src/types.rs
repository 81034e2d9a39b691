//! Typed results: the flight record ([`Summary`], with its [`Lap`]s and [`RoutePoint`]s), the
//! live snapshot ([`Snapshot`], with its [`Pfd`] strings), a stored flight's listing
//! ([`Flight`]) and what an [`crate::Event`] carries ([`EventBody`], an alert's figures as
//! [`AlertValues`]), each parsed from the library's JSON with this crate's own reader
//! ([`crate::json`]). Every member the library writes has a field (the event's `t` is
//! [`crate::Event::t`]), so a host reads none of the JSON itself.
//!
//! Values the library writes as `null` (unknown: no heart rate, no altitude, before the start)
//! are `None`. Members this crate does not know are ignored, so a newer library that adds some
//! still parses; a member it needs that is missing or of the wrong type is an [`Error`] with
//! [`Status::Internal`] naming it.
//!
//! Here the JSON reader they share and the pieces of several ([`Lap`], [`RoutePoint`],
//! [`Filtered`]); the flight record in `summary`, the live data and events in `live`, a stored
//! flight's listing in `flight`.

mod flight;
mod live;
mod summary;

pub use flight::Flight;
pub use live::{AlertValues, EventBody, Pfd, Snapshot};
pub use summary::{DopplerCheck, ProfileMismatch, Summary};

use crate::error::{Error, Result, Status};
use crate::json::{self, Value};

fn bad(what: &str, key: &str, why: &str) -> Error {
    Error::new(Status::Internal, format!("{what}: \"{key}\" {why}"))
}

/// Reading members of one JSON object, with errors that name the object and the member.
struct Obj<'a> {
    what: &'static str,
    v: &'a Value,
}

impl<'a> Obj<'a> {
    fn new(what: &'static str, v: &'a Value) -> Result<Obj<'a>> {
        match v {
            Value::Object(_) => Ok(Obj { what, v }),
            _ => Err(Error::new(Status::Internal, format!("{what}: not a JSON object"))),
        }
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.v.get(key)
    }

    /// A number that must be there.
    fn f64(&self, key: &str) -> Result<f64> {
        match self.get(key) {
            Some(Value::Number(n)) => Ok(*n),
            Some(_) => Err(bad(self.what, key, "is not a number")),
            None => Err(bad(self.what, key, "is missing")),
        }
    }

    /// A number or `null` (or absent).
    fn opt_f64(&self, key: &str) -> Result<Option<f64>> {
        match self.get(key) {
            Some(Value::Number(n)) => Ok(Some(*n)),
            Some(Value::Null) | None => Ok(None),
            Some(_) => Err(bad(self.what, key, "is not a number or null")),
        }
    }

    /// A count that must be there.
    fn u64(&self, key: &str) -> Result<u64> {
        self.get(key)
            .ok_or_else(|| bad(self.what, key, "is missing"))?
            .as_u64()
            .ok_or_else(|| bad(self.what, key, "is not a non-negative integer"))
    }

    /// A count, 0 when absent.
    fn u64_or_0(&self, key: &str) -> Result<u64> {
        match self.get(key) {
            None => Ok(0),
            Some(v) => v.as_u64().ok_or_else(|| bad(self.what, key, "is not a non-negative integer")),
        }
    }

    /// A string that must be there.
    fn string(&self, key: &str) -> Result<String> {
        match self.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(bad(self.what, key, "is not a string")),
            None => Err(bad(self.what, key, "is missing")),
        }
    }

    /// A string or `null` (or absent).
    fn opt_string(&self, key: &str) -> Result<Option<String>> {
        match self.get(key) {
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Null) | None => Ok(None),
            Some(_) => Err(bad(self.what, key, "is not a string or null")),
        }
    }

    fn bool_or_false(&self, key: &str) -> Result<bool> {
        match self.get(key) {
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::Null) | None => Ok(false),
            Some(_) => Err(bad(self.what, key, "is not a boolean")),
        }
    }

    fn array(&self, key: &str) -> Result<&'a [Value]> {
        match self.get(key) {
            Some(Value::Array(items)) => Ok(items),
            Some(_) => Err(bad(self.what, key, "is not an array")),
            None => Err(bad(self.what, key, "is missing")),
        }
    }

    fn f64s(&self, key: &str) -> Result<Vec<f64>> {
        self.array(key)?
            .iter()
            .map(|v| v.as_f64().ok_or_else(|| bad(self.what, key, "holds a non-number")))
            .collect()
    }
}

fn parse_doc(what: &'static str, text: &str) -> Result<Value> {
    json::parse(text).map_err(|e| Error::new(Status::Internal, format!("{what}: {e}")))
}

/// One lap (a `split` event's `lap`, or an element of [`Summary::laps`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Lap {
    /// 1 for the first lap.
    pub index: u64,
    /// `"auto"` (every `auto_lap_m`), `"manual"` ([`crate::Session::lap`]) or `"final"` (the
    /// last lap, at stop); for a recording's device lap (a `device_lap` line) what ended it on
    /// the device: `"time"`, `"distance"`, `"position_lap"`, `"session_end"`, ... (docs/formats.md
    /// "Laps").
    pub trigger: String,
    /// When the lap began, unix seconds.
    pub start_t: f64,
    /// When the lap ended, unix seconds.
    pub end_t: f64,
    /// Metres.
    pub distance_m: f64,
    /// Cruise seconds in the lap.
    pub elapsed_s: f64,
    /// Minutes per km; `None` without distance.
    pub pace_min_per_km: Option<f64>,
    /// m/s: the fastest of the speeds the flight's `max_speed_mps` is taken from that came in
    /// the lap (so the flight's is the largest of its laps'); `None` when none did.
    pub max_speed_mps: Option<f64>,
    /// Time-weighted average heart rate; `None` without samples.
    pub avg_hr_bpm: Option<f64>,
    /// The highest heart rate of the lap, over every sample the flight took in it; `None`
    /// without samples.
    pub max_hr_bpm: Option<f64>,
    /// The highest cadence of the lap (steps/min), over every sample; `None` without samples.
    pub max_cadence_spm: Option<f64>,
    /// Elevation gained in the lap, metres.
    pub gain_m: f64,
    /// Elevation lost, metres.
    pub loss_m: f64,
    /// Watts: the lap's average power (over the cruise seconds its samples cover); `None`
    /// without power samples.
    pub avg_power_w: Option<f64>,
    /// Watts: the lap's highest power sample.
    pub max_power_w: Option<f64>,
    /// Watts: the lap's normalised power, over its own covered seconds (the 30 s window starts
    /// empty at its start); `None` when the lap has fewer than 30.
    pub normalized_power_w: Option<f64>,
}

impl Lap {
    /// Parses a lap object (`{"index":1,"trigger":"auto",...}`).
    pub fn from_json(text: &str) -> Result<Lap> {
        Lap::from_value(&parse_doc("lap", text)?)
    }

    fn from_value(v: &Value) -> Result<Lap> {
        let o = Obj::new("lap", v)?;
        Ok(Lap {
            index: o.u64("index")?,
            trigger: o.string("trigger")?,
            start_t: o.f64("start_t")?,
            end_t: o.f64("end_t")?,
            distance_m: o.f64("distance_m")?,
            elapsed_s: o.f64("elapsed_s")?,
            pace_min_per_km: o.opt_f64("pace_min_per_km")?,
            max_speed_mps: o.opt_f64("max_speed_mps")?,
            avg_hr_bpm: o.opt_f64("avg_hr_bpm")?,
            max_hr_bpm: o.opt_f64("max_hr_bpm")?,
            max_cadence_spm: o.opt_f64("max_cadence_spm")?,
            gain_m: o.opt_f64("gain_m")?.unwrap_or(0.0),
            loss_m: o.opt_f64("loss_m")?.unwrap_or(0.0),
            avg_power_w: o.opt_f64("avg_power_w")?,
            max_power_w: o.opt_f64("max_power_w")?,
            normalized_power_w: o.opt_f64("normalized_power_w")?,
        })
    }
}

/// One point of the route: `[lat, lon, alt, t]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoutePoint {
    /// Degrees.
    pub lat: f64,
    /// Degrees.
    pub lon: f64,
    /// Metres above sea level; `None` when unknown.
    pub alt: Option<f64>,
    /// Unix seconds.
    pub t: f64,
}

fn route(what: &'static str, key: &str, text: &str) -> Result<Vec<RoutePoint>> {
    let mut points = Vec::new();
    let mut bad_row = false;
    json::number_rows(text, |row| match row {
        [Some(lat), Some(lon), alt, Some(t), ..] => {
            points.push(RoutePoint { lat: *lat, lon: *lon, alt: *alt, t: *t })
        }
        _ => bad_row = true,
    })
    .map_err(|e| bad(what, key, &e.to_string()))?;
    if bad_row {
        return Err(bad(what, key, "has a point that is not [lat, lon, alt, t]"));
    }
    Ok(points)
}

/// Fixes the filters refused, by reason (the summary's `filtered`, a snapshot's
/// `filtered_by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Filtered {
    /// Worse than `required_accuracy_m`.
    pub accuracy: u64,
    /// At 0°, 0° (a receiver's placeholder).
    pub null_island: u64,
    /// Faster than the activity's speed cap.
    pub speed: u64,
    /// The time of the fix before.
    pub repeated_time: u64,
}

impl Filtered {
    fn from_value(what: &'static str, v: Option<&Value>) -> Result<Filtered> {
        let Some(v) = v else { return Ok(Filtered::default()) };
        let o = Obj::new(what, v)?;
        Ok(Filtered {
            accuracy: o.u64_or_0("accuracy")?,
            null_island: o.u64_or_0("null_island")?,
            speed: o.u64_or_0("speed")?,
            repeated_time: o.u64_or_0("repeated_time")?,
        })
    }

    /// All of them.
    pub fn total(&self) -> u64 {
        self.accuracy + self.null_island + self.speed + self.repeated_time
    }
}
