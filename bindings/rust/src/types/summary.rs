//! The flight record: [`Summary`], with what it reports of the filters ([`ProfileMismatch`],
//! [`DopplerCheck`]).

use super::{bad, parse_doc, route, Filtered, Lap, Obj, RoutePoint};
use crate::error::{Error, Result, Status};
use crate::json::{self, Value};

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
    /// The stored flight's id; `None` without a store.
    pub flight_id: Option<String>,
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
    /// Watts: average power over the cruise seconds the samples cover; `None` without power
    /// samples.
    pub avg_power_w: Option<f64>,
    /// Watts: the highest power sample in cruise.
    pub max_power_w: Option<f64>,
    /// Watts: normalised power (`None` before the 30th covered second).
    pub normalized_power_w: Option<f64>,
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
    /// The tolerance `route_simplified` was simplified within, metres; `None` when the record
    /// was written without the route.
    pub simplify_m: Option<f64>,
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
            flight_id: o.opt_string("flight_id")?,
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
            avg_power_w: o.opt_f64("avg_power_w")?,
            max_power_w: o.opt_f64("max_power_w")?,
            normalized_power_w: o.opt_f64("normalized_power_w")?,
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
            simplify_m: o.opt_f64("simplify_m")?,
            route_simplified: simplified,
        })
    }
}
