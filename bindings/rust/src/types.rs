//! Typed results: the flight record ([`Summary`], with its [`Lap`]s and [`RoutePoint`]s), the
//! live snapshot ([`Snapshot`], with its [`Pfd`] strings), a stored flight's listing
//! ([`Flight`]) and what an [`crate::Event`] carries ([`EventBody`]), each parsed from the
//! library's JSON with this crate's own reader ([`crate::json`]).
//!
//! Values the library writes as `null` (unknown: no heart rate, no altitude, before the start)
//! are `None`. Members this crate does not know are ignored, so a newer library that adds some
//! still parses; a member it needs that is missing or of the wrong type is an [`Error`] with
//! [`Status::Internal`] naming it.

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
    /// last lap, at stop).
    pub trigger: String,
    /// When the lap began and ended, unix seconds.
    pub start_t: f64,
    /// When the lap ended, unix seconds.
    pub end_t: f64,
    /// Metres.
    pub distance_m: f64,
    /// Cruise seconds in the lap.
    pub elapsed_s: f64,
    /// Minutes per km; `None` without distance.
    pub pace_min_per_km: Option<f64>,
    /// Time-weighted average heart rate; `None` without samples.
    pub avg_hr_bpm: Option<f64>,
    /// Elevation gained and lost in the lap, metres.
    pub gain_m: f64,
    /// Elevation lost, metres.
    pub loss_m: f64,
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
            avg_hr_bpm: o.opt_f64("avg_hr_bpm")?,
            gain_m: o.opt_f64("gain_m")?.unwrap_or(0.0),
            loss_m: o.opt_f64("loss_m")?.unwrap_or(0.0),
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

/// Fixes refused as too fast for the session's profile that agreed with each other at a faster
/// profile's speed (a ride pushed as a run): the summary's `profile_mismatch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileMismatch {
    /// The profile the refused fixes fit, e.g. `"ride"`.
    pub suggested: String,
    /// Fixes refused as too fast.
    pub refused: u64,
}

impl ProfileMismatch {
    fn from_value(v: Option<&Value>) -> Result<Option<ProfileMismatch>> {
        nullable_object("summary profile_mismatch", v, |o| {
            Ok(ProfileMismatch { suggested: o.string("suggested")?, refused: o.u64("refused")? })
        })
    }
}

/// An object that may be `null` or absent (`None` then), read by `read`.
fn nullable_object<T>(
    what: &'static str,
    v: Option<&Value>,
    read: impl FnOnce(&Obj) -> Result<T>,
) -> Result<Option<T>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => read(&Obj::new(what, v)?).map(Some),
    }
}

/// A Doppler speed that disagreed with the positions over a long window, so the distance is
/// measured from the positions since: the summary's `doppler_check`.
#[derive(Debug, Clone, PartialEq)]
pub struct DopplerCheck {
    /// What measures the distance now: `"positions"`.
    pub preferred: String,
    /// Metres the Doppler speed integrated to over the window.
    pub doppler_m: f64,
    /// Metres the positions measured over the same window.
    pub positions_m: f64,
    /// Unix seconds when the disagreement was found.
    pub at_t: f64,
}

impl DopplerCheck {
    fn from_value(v: Option<&Value>) -> Result<Option<DopplerCheck>> {
        nullable_object("summary doppler_check", v, |o| {
            Ok(DopplerCheck {
                preferred: o.string("preferred")?,
                doppler_m: o.f64("doppler_m")?,
                positions_m: o.f64("positions_m")?,
                at_t: o.f64("at_t")?,
            })
        })
    }
}

/// The flight record ([`crate::Session::summary`], [`crate::store::flight`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// `"preflight"`, `"cruise"`, `"holding"` or `"touchdown"`.
    pub phase: String,
    /// `"stopped"`, `"recovered"`..., `None` before touchdown.
    pub end_reason: Option<String>,
    /// `"run"`, `"walk"` or `"ride"`.
    pub activity: String,
    /// `"on"` or `"off"`.
    pub filters: String,
    /// Unix seconds; `None` before the start.
    pub start_t: Option<f64>,
    /// Unix seconds; `None` before touchdown.
    pub end_t: Option<f64>,
    /// Cruise seconds.
    pub elapsed_s: f64,
    /// Seconds moving.
    pub moving_s: f64,
    /// Metres.
    pub distance_m: f64,
    /// Minutes per km over the elapsed time; `None` without distance.
    pub avg_pace_min_per_km: Option<f64>,
    /// Minutes per km over the moving time.
    pub avg_moving_pace_min_per_km: Option<f64>,
    /// m/s.
    pub avg_speed_mps: Option<f64>,
    /// m/s.
    pub max_speed_mps: Option<f64>,
    /// Metres of climb.
    pub gain_m: f64,
    /// Metres of descent.
    pub loss_m: f64,
    /// Metres above sea level.
    pub min_altitude_m: Option<f64>,
    /// Metres above sea level.
    pub max_altitude_m: Option<f64>,
    /// Time-weighted, cruise only, zeros excluded.
    pub avg_hr_bpm: Option<f64>,
    /// bpm.
    pub max_hr_bpm: Option<f64>,
    /// The `hr_max` the zones are relative to.
    pub hr_max_setting: f64,
    /// Seconds below zone 1, then in zones 1 to 5.
    pub hr_zone_s: Vec<f64>,
    /// Steps per minute.
    pub avg_cadence_spm: Option<f64>,
    /// Steps per minute.
    pub max_cadence_spm: Option<f64>,
    /// Fixes pushed.
    pub fixes: u64,
    /// Fixes refused, by reason.
    pub filtered: Filtered,
    /// Set when fixes refused as too fast fit a faster profile (`None` otherwise).
    pub profile_mismatch: Option<ProfileMismatch>,
    /// Set once the Doppler speed disagreed with the positions (`None` while it measures).
    pub doppler_check: Option<DopplerCheck>,
    /// Metres of the distance that speed samples measured (where positions were silent); 0 when none.
    pub sensor_distance_m: f64,
    /// Route points.
    pub points: u64,
    /// Route segments (a new one after a gap).
    pub segments: u64,
    /// Every lap, the final one included once stopped.
    pub laps: Vec<Lap>,
    /// The index in `route` where each segment starts.
    pub segment_starts: Vec<u64>,
    /// The route (empty when the record was written without it).
    pub route: Vec<RoutePoint>,
    /// The route simplified for drawing (`simplify_m`), when the record has it.
    pub route_simplified: Vec<RoutePoint>,
}

impl Summary {
    /// Parses a flight record (`runway_summary_json`). The route is read straight from its
    /// text (a million points without a [`Value`] each).
    pub fn from_json(text: &str) -> Result<Summary> {
        const WHAT: &str = "summary";
        let members =
            json::members(text).ok_or_else(|| Error::new(Status::Internal, "summary: not a JSON object"))?;
        let mut rest = Vec::with_capacity(members.len());
        let (mut route_pts, mut simplified) = (Vec::new(), Vec::new());
        for (key, raw) in members {
            match key.as_str() {
                "route" => route_pts = route(WHAT, "route", raw)?,
                "route_simplified" => simplified = route(WHAT, "route_simplified", raw)?,
                _ => rest.push((key, parse_doc(WHAT, raw)?)),
            }
        }
        let v = Value::Object(rest);
        let o = Obj::new(WHAT, &v)?;
        if o.opt_string("kind")?.is_some_and(|k| k != "summary") {
            return Err(bad(WHAT, "kind", "is not \"summary\""));
        }
        Ok(Summary {
            phase: o.string("phase")?,
            end_reason: o.opt_string("end_reason")?,
            activity: o.string("activity")?,
            filters: o.opt_string("filters")?.unwrap_or_else(|| "on".into()),
            start_t: o.opt_f64("start_t")?,
            end_t: o.opt_f64("end_t")?,
            elapsed_s: o.f64("elapsed_s")?,
            moving_s: o.opt_f64("moving_s")?.unwrap_or(0.0),
            distance_m: o.f64("distance_m")?,
            avg_pace_min_per_km: o.opt_f64("avg_pace_min_per_km")?,
            avg_moving_pace_min_per_km: o.opt_f64("avg_moving_pace_min_per_km")?,
            avg_speed_mps: o.opt_f64("avg_speed_mps")?,
            max_speed_mps: o.opt_f64("max_speed_mps")?,
            gain_m: o.opt_f64("gain_m")?.unwrap_or(0.0),
            loss_m: o.opt_f64("loss_m")?.unwrap_or(0.0),
            min_altitude_m: o.opt_f64("min_altitude_m")?,
            max_altitude_m: o.opt_f64("max_altitude_m")?,
            avg_hr_bpm: o.opt_f64("avg_hr_bpm")?,
            max_hr_bpm: o.opt_f64("max_hr_bpm")?,
            hr_max_setting: o.f64("hr_max_setting")?,
            hr_zone_s: o.f64s("hr_zone_s")?,
            avg_cadence_spm: o.opt_f64("avg_cadence_spm")?,
            max_cadence_spm: o.opt_f64("max_cadence_spm")?,
            fixes: o.u64("fixes")?,
            filtered: Filtered::from_value("summary filtered", o.get("filtered"))?,
            profile_mismatch: ProfileMismatch::from_value(o.get("profile_mismatch"))?,
            doppler_check: DopplerCheck::from_value(o.get("doppler_check"))?,
            sensor_distance_m: o.opt_f64("sensor_distance_m")?.unwrap_or(0.0),
            points: o.u64("points")?,
            segments: o.u64("segments")?,
            laps: o.array("laps")?.iter().map(Lap::from_value).collect::<Result<_>>()?,
            segment_starts: match o.get("segment_starts") {
                None => Vec::new(),
                Some(_) => o
                    .array("segment_starts")?
                    .iter()
                    .map(|v| v.as_u64().ok_or_else(|| bad(WHAT, "segment_starts", "holds a non-index")))
                    .collect::<Result<_>>()?,
            },
            route: route_pts,
            route_simplified: simplified,
        })
    }
}

/// The PFD display strings of a [`Snapshot`] (`"--"` where a value is unknown).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pfd {
    /// Current pace, e.g. `"5:03"`.
    pub pace: String,
    /// Five paces around it.
    pub pace_tape: Vec<String>,
    /// Compass point, e.g. `"N"`.
    pub direction: String,
    /// Three compass points around it.
    pub heading_tape: Vec<String>,
    /// Elapsed, `"00:00:10"`.
    pub time: String,
    /// Kilometres, `"0.03"`.
    pub distance: String,
    /// Metres.
    pub altitude: String,
    /// `"AVG 4:59"`.
    pub avg_pace: String,
    /// Heart rate.
    pub hr: String,
    /// Cadence.
    pub cadence: String,
}

impl Pfd {
    fn from_value(v: Option<&Value>) -> Result<Pfd> {
        let Some(v) = v else { return Ok(Pfd::default()) };
        let o = Obj::new("pfd", v)?;
        let s = |k: &str| -> Result<String> { Ok(o.opt_string(k)?.unwrap_or_default()) };
        let tape = |k: &str| -> Result<Vec<String>> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(_) => o
                    .array(k)?
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| bad("pfd", k, "holds a non-string")))
                    .collect(),
            }
        };
        Ok(Pfd {
            pace: s("pace")?,
            pace_tape: tape("pace_tape")?,
            direction: s("direction")?,
            heading_tape: tape("heading_tape")?,
            time: s("time")?,
            distance: s("distance")?,
            altitude: s("altitude")?,
            avg_pace: s("avg_pace")?,
            hr: s("hr")?,
            cadence: s("cadence")?,
        })
    }
}

/// The live flight data ([`crate::Session::snapshot`], a `flight` event).
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The event sequence number it was taken at.
    pub seq: u64,
    /// Unix seconds; `None` before any input.
    pub t: Option<f64>,
    /// The flight phase.
    pub phase: String,
    /// `"user"` or `"auto"` while holding.
    pub holding_by: Option<String>,
    /// Degrees.
    pub lat: Option<f64>,
    /// Degrees.
    pub lon: Option<f64>,
    /// Metres.
    pub distance_m: f64,
    /// Route points.
    pub points: u64,
    /// Route segments.
    pub segments: u64,
    /// Fixes pushed.
    pub fixes: u64,
    /// Fixes refused, by reason.
    pub filtered_by: Filtered,
    /// The device's Doppler speed, m/s.
    pub speed_mps: Option<f64>,
    /// The engine's speed over the pace window, m/s.
    pub ground_speed_mps: Option<f64>,
    /// From `ground_speed_mps`.
    pub pace_min_per_km: Option<f64>,
    /// Over the elapsed time.
    pub avg_pace_min_per_km: Option<f64>,
    /// Metres.
    pub altitude_m: Option<f64>,
    /// Degrees clockwise from north.
    pub heading_deg: Option<f64>,
    /// Cruise seconds.
    pub elapsed_s: f64,
    /// Seconds moving.
    pub moving_s: f64,
    /// Metres.
    pub gain_m: f64,
    /// Metres.
    pub loss_m: f64,
    /// Percent.
    pub grade_pct: Option<f64>,
    /// m/s.
    pub vertical_speed_mps: Option<f64>,
    /// The current lap's number.
    pub lap: u64,
    /// Metres into the current lap.
    pub lap_distance_m: f64,
    /// Seconds into the current lap.
    pub lap_elapsed_s: f64,
    /// bpm.
    pub hr_bpm: Option<f64>,
    /// Steps per minute.
    pub cadence_spm: Option<f64>,
    /// The display strings.
    pub pfd: Pfd,
}

impl Snapshot {
    /// Parses flight data (`runway_snapshot_json`, or a `flight` event).
    pub fn from_json(text: &str) -> Result<Snapshot> {
        Snapshot::from_value(&parse_doc("snapshot", text)?)
    }

    fn from_value(v: &Value) -> Result<Snapshot> {
        let o = Obj::new("snapshot", v)?;
        Ok(Snapshot {
            seq: o.u64_or_0("seq")?,
            t: o.opt_f64("t")?,
            phase: o.string("phase")?,
            holding_by: o.opt_string("holding_by")?,
            lat: o.opt_f64("lat")?,
            lon: o.opt_f64("lon")?,
            distance_m: o.f64("distance_m")?,
            points: o.u64_or_0("points")?,
            segments: o.u64_or_0("segments")?,
            fixes: o.u64_or_0("fixes")?,
            filtered_by: Filtered::from_value("snapshot filtered_by", o.get("filtered_by"))?,
            speed_mps: o.opt_f64("speed_mps")?,
            ground_speed_mps: o.opt_f64("ground_speed_mps")?,
            pace_min_per_km: o.opt_f64("pace_min_per_km")?,
            avg_pace_min_per_km: o.opt_f64("avg_pace_min_per_km")?,
            altitude_m: o.opt_f64("altitude_m")?,
            heading_deg: o.opt_f64("heading_deg")?,
            elapsed_s: o.f64("elapsed_s")?,
            moving_s: o.opt_f64("moving_s")?.unwrap_or(0.0),
            gain_m: o.opt_f64("gain_m")?.unwrap_or(0.0),
            loss_m: o.opt_f64("loss_m")?.unwrap_or(0.0),
            grade_pct: o.opt_f64("grade_pct")?,
            vertical_speed_mps: o.opt_f64("vertical_speed_mps")?,
            lap: o.u64_or_0("lap")?,
            lap_distance_m: o.opt_f64("lap_distance_m")?.unwrap_or(0.0),
            lap_elapsed_s: o.opt_f64("lap_elapsed_s")?.unwrap_or(0.0),
            hr_bpm: o.opt_f64("hr_bpm")?,
            cadence_spm: o.opt_f64("cadence_spm")?,
            pfd: Pfd::from_value(o.get("pfd"))?,
        })
    }
}

/// One stored flight as [`crate::store::flights`] lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Flight {
    /// Its id in the store.
    pub flight_id: String,
    /// Unix seconds.
    pub start_t: Option<f64>,
    /// Unix seconds; `None` while unfinished.
    pub end_t: Option<f64>,
    /// `"stopped"`, `"recovered"`...; `None` while unfinished.
    pub end_reason: Option<String>,
    /// Whether it landed (touchdown).
    pub finished: bool,
    /// `"run"`, `"walk"` or `"ride"`.
    pub activity: Option<String>,
    /// Metres.
    pub distance_m: Option<f64>,
    /// Cruise seconds.
    pub elapsed_s: Option<f64>,
    /// Seconds moving.
    pub moving_s: Option<f64>,
    /// Minutes per km.
    pub avg_pace_min_per_km: Option<f64>,
    /// A damaged flight is listed with its id and this; reading it fails with
    /// [`Status::Store`].
    pub damaged: bool,
    /// Why it is damaged.
    pub error: Option<String>,
}

impl Flight {
    /// Parses a flight list (`runway_flights_json`, a JSON array).
    pub fn list_from_json(text: &str) -> Result<Vec<Flight>> {
        match parse_doc("flights", text)? {
            Value::Array(items) => items.iter().map(Flight::from_value).collect(),
            _ => Err(Error::new(Status::Internal, "flights: not a JSON array")),
        }
    }

    fn from_value(v: &Value) -> Result<Flight> {
        let o = Obj::new("flight", v)?;
        Ok(Flight {
            flight_id: o.string("flight_id")?,
            start_t: o.opt_f64("start_t")?,
            end_t: o.opt_f64("end_t")?,
            end_reason: o.opt_string("end_reason")?,
            finished: o.bool_or_false("finished")?,
            activity: o.opt_string("activity")?,
            distance_m: o.opt_f64("distance_m")?,
            elapsed_s: o.opt_f64("elapsed_s")?,
            moving_s: o.opt_f64("moving_s")?,
            avg_pace_min_per_km: o.opt_f64("avg_pace_min_per_km")?,
            damaged: o.bool_or_false("damaged")?,
            error: o.opt_string("error")?,
        })
    }
}

/// What an event carries, by its kind ([`crate::Event::body`]).
#[derive(Debug, Clone, PartialEq)]
pub enum EventBody {
    /// `flight`: the flight data after an input.
    Flight(Box<Snapshot>),
    /// `phase`: a phase change; `by` is `"user"` or `"auto"` when entering holding.
    Phase {
        /// The phase left.
        from: String,
        /// The phase entered.
        to: String,
        /// Who paused.
        by: Option<String>,
    },
    /// `split`: a lap ended.
    Split(Lap),
    /// `tick`: once a second with the live clock.
    Tick {
        /// The phase.
        phase: String,
        /// Cruise seconds.
        elapsed_s: f64,
        /// Minutes per km.
        avg_pace_min_per_km: Option<f64>,
    },
    /// `log`: a line of the session's log.
    Log {
        /// `"info"`, `"warning"` or `"error"`.
        level: String,
        /// The line.
        message: String,
    },
    /// `alert`: GPWS and minimums callouts.
    Alert {
        /// E.g. `"GPWS_PACE_SLOW"`.
        code: String,
        /// The callout.
        message: String,
    },
    /// `overflow`: this many events were dropped (a full queue).
    Overflow {
        /// How many.
        dropped: u64,
    },
    /// A kind this crate does not know (a newer library); read [`crate::Event::json`].
    Other,
}

impl EventBody {
    pub(crate) fn from_json(kind: &str, text: &str) -> Result<EventBody> {
        let v = parse_doc("event", text)?;
        let o = Obj::new("event", &v)?;
        Ok(match kind {
            "flight" => EventBody::Flight(Box::new(Snapshot::from_value(&v)?)),
            "phase" => {
                EventBody::Phase { from: o.string("from")?, to: o.string("to")?, by: o.opt_string("by")? }
            }
            "split" => EventBody::Split(Lap::from_value(
                o.get("lap").ok_or_else(|| bad("split event", "lap", "is missing"))?,
            )?),
            "tick" => EventBody::Tick {
                phase: o.string("phase")?,
                elapsed_s: o.f64("elapsed_s")?,
                avg_pace_min_per_km: o.opt_f64("avg_pace_min_per_km")?,
            },
            "log" => EventBody::Log { level: o.string("level")?, message: o.string("message")? },
            "alert" => EventBody::Alert { code: o.string("code")?, message: o.string("message")? },
            "overflow" => EventBody::Overflow { dropped: o.u64("dropped")? },
            _ => EventBody::Other,
        })
    }
}
