//! The live flight data ([`Snapshot`], with its [`Pfd`] strings) and what an event carries
//! ([`EventBody`]).

use super::{bad, parse_doc, Filtered, Lap, Obj};
use crate::error::Result;
use crate::json::Value;

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
    /// Unix seconds of the fix `lat`, `lon` and `speed_mps` come from; `None` before any. Once
    /// the clock is past it by more than the pace window (or the last step, when longer),
    /// `speed_mps` is `None`, and so are `ground_speed_mps` and the pace when nothing measured
    /// them since.
    pub last_fix_t: Option<f64>,
    /// The horizontal accuracy the latest fix that gave one said (a fix the gate refused
    /// too), metres; `None` before any did.
    pub h_acc_m: Option<f64>,
    /// `"ok"`; `"reduced"` while fixes are worse than `required_accuracy_m` (refused, so the
    /// distance stands still: a UI's "weak GPS"); `"unknown"` before any fix gave its accuracy,
    /// and once the latest fix is older than `last_fix_t` allows (the receiver has gone quiet).
    pub accuracy: String,
    /// Metres.
    pub distance_m: f64,
    /// Route points.
    pub points: u64,
    /// Route segments.
    pub segments: u64,
    /// Fixes pushed.
    pub fixes: u64,
    /// Fixes refused, all reasons (`filtered_by.total()`).
    pub filtered: u64,
    /// Fixes refused, by reason.
    pub filtered_by: Filtered,
    /// The device's speed, m/s: the latest fix's Doppler speed, or a speed sample's where one
    /// measures the flight (positions silent, a tunnel) after that fix.
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
    /// Watts: the mean of the power samples of the last 3 s; `None` when none came in them.
    pub power_w: Option<f64>,
    /// Watts: the mean covered power of the last 10 s (time-weighted, each sample held until
    /// the next for at most 5 s; a sample that has just come is its own mean); `None` once no
    /// sample covers any of the 10 s.
    pub power_10s_w: Option<f64>,
    /// Watts: the flight's average power so far (cruise seconds the samples cover).
    pub avg_power_w: Option<f64>,
    /// Watts: the highest power sample in cruise so far.
    pub max_power_w: Option<f64>,
    /// Watts: the flight's normalised power so far (from its 30th covered second).
    pub normalized_power_w: Option<f64>,
    /// Watts: the current lap's average power so far (the lap's `split` gives the same figure
    /// if the lap ends at the latest input: a tick moves the clock, not the power figures);
    /// `None` where the split would give none.
    pub lap_avg_power_w: Option<f64>,
    /// Watts: the current lap's highest power in cruise so far.
    pub lap_max_power_w: Option<f64>,
    /// Watts: the current lap's normalised power so far (from its 30th covered second).
    pub lap_normalized_power_w: Option<f64>,
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
        let filtered_by = Filtered::from_value("snapshot filtered_by", o.get("filtered_by"))?;
        Ok(Snapshot {
            seq: o.u64_or_0("seq")?,
            t: o.opt_f64("t")?,
            phase: o.string("phase")?,
            holding_by: o.opt_string("holding_by")?,
            lat: o.opt_f64("lat")?,
            lon: o.opt_f64("lon")?,
            last_fix_t: o.opt_f64("last_fix_t")?,
            h_acc_m: o.opt_f64("h_acc_m")?,
            accuracy: o.opt_string("accuracy")?.unwrap_or_else(|| "unknown".into()),
            distance_m: o.f64("distance_m")?,
            points: o.u64_or_0("points")?,
            segments: o.u64_or_0("segments")?,
            fixes: o.u64_or_0("fixes")?,
            filtered: match o.get("filtered") {
                None => filtered_by.total(),
                Some(_) => o.u64("filtered")?,
            },
            filtered_by,
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
            power_w: o.opt_f64("power_w")?,
            power_10s_w: o.opt_f64("power_10s_w")?,
            avg_power_w: o.opt_f64("avg_power_w")?,
            max_power_w: o.opt_f64("max_power_w")?,
            normalized_power_w: o.opt_f64("normalized_power_w")?,
            lap_avg_power_w: o.opt_f64("lap_avg_power_w")?,
            lap_max_power_w: o.opt_f64("lap_max_power_w")?,
            lap_normalized_power_w: o.opt_f64("lap_normalized_power_w")?,
            pfd: Pfd::from_value(o.get("pfd"))?,
        })
    }
}

/// What an event carries, by its kind ([`crate::Event::body`]).
#[derive(Debug, Clone, PartialEq)]
pub enum EventBody {
    /// `flight`: the flight data after an input.
    Flight(Box<Snapshot>),
    /// `phase`: a phase change; `by` is `"user"` or `"auto"` when entering holding (and
    /// `"holding"` → `"holding"` by `"user"` when a pause takes over an auto pause).
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
        /// The display strings of these two: [`Pfd::time`] and [`Pfd::avg_pace`] (the others
        /// are empty: a tick moves the clock alone).
        pfd: Pfd,
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
        /// The figures behind it, by `code` (`remaining_m` of a `MINIMUMS` callout...).
        values: AlertValues,
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
                pfd: Pfd::from_value(o.get("pfd"))?,
            },
            "log" => EventBody::Log { level: o.string("level")?, message: o.string("message")? },
            "alert" => {
                let code = o.string("code")?;
                let values = AlertValues::from_value(&code, o.get("values"))?;
                EventBody::Alert { code, message: o.string("message")?, values }
            }
            "overflow" => EventBody::Overflow { dropped: o.u64("dropped")? },
            _ => EventBody::Other,
        })
    }
}

/// The figures behind an `alert` event, by its code ([`EventBody::Alert`]'s `values`): what
/// a UI shows or says with the callout ("1 km to go", the pace against its target). Every
/// figure of a known code is there (the library writes only finite ones).
#[derive(Debug, Clone, PartialEq)]
pub enum AlertValues {
    /// `GPWS_PACE_SLOW`: the current pace has been slower than the target band's slow end.
    PaceSlow {
        /// The current pace, minutes per km.
        pace_min_per_km: f64,
        /// The band's slow end (`target_pace`'s `max`), minutes per km.
        target_max_min_per_km: f64,
        /// How long the pace had been outside the band, seconds.
        held_s: f64,
    },
    /// `GPWS_PACE_FAST`: the current pace has been faster than the target band's fast end.
    PaceFast {
        /// The current pace, minutes per km.
        pace_min_per_km: f64,
        /// The band's fast end (`target_pace`'s `min`), minutes per km.
        target_min_min_per_km: f64,
        /// How long the pace had been outside the band, seconds.
        held_s: f64,
    },
    /// `GPWS_HR_HIGH`: the heart rate has been above `hr_ceiling`.
    HrHigh {
        /// The current heart rate, bpm.
        hr_bpm: f64,
        /// The ceiling, bpm.
        ceiling_bpm: f64,
        /// How long it had been above, seconds.
        held_s: f64,
    },
    /// `GPWS_POWER_LOW`: the current (3 s) power has been below `target_power`'s `min`.
    PowerLow {
        /// The current power, watts.
        power_w: f64,
        /// The band's low end (`target_power`'s `min`), watts.
        target_min_w: f64,
        /// How long the power had been below, seconds.
        held_s: f64,
    },
    /// `GPWS_POWER_HIGH`: the current (3 s) power has been above `target_power`'s `max`.
    PowerHigh {
        /// The current power, watts.
        power_w: f64,
        /// The band's high end (`target_power`'s `max`), watts.
        target_max_w: f64,
        /// How long the power had been above, seconds.
        held_s: f64,
    },
    /// `MINIMUMS`: the distance left to the goal came down to a mark of `minimums_m`.
    Minimums {
        /// Metres left to the goal (at most `mark_m`).
        remaining_m: f64,
        /// The mark called out, metres (1000 for "1 km to go").
        mark_m: f64,
        /// The flight's distance, metres.
        distance_m: f64,
        /// The goal (`goal_m`), metres.
        goal_m: f64,
    },
    /// `MINIMUMS_GOAL`: the goal distance is reached.
    MinimumsGoal {
        /// The flight's distance, metres.
        distance_m: f64,
        /// The goal (`goal_m`), metres.
        goal_m: f64,
    },
    /// A code this crate does not know (a newer library): its numeric values as the event
    /// lists them, by key.
    Other(Vec<(String, f64)>),
}

impl AlertValues {
    fn from_value(code: &str, v: Option<&Value>) -> Result<AlertValues> {
        const WHAT: &str = "alert values";
        let v = v.ok_or_else(|| bad("alert event", "values", "is missing"))?;
        let o = Obj::new(WHAT, v)?;
        Ok(match code {
            "GPWS_PACE_SLOW" => AlertValues::PaceSlow {
                pace_min_per_km: o.f64("pace_min_per_km")?,
                target_max_min_per_km: o.f64("target_max_min_per_km")?,
                held_s: o.f64("held_s")?,
            },
            "GPWS_PACE_FAST" => AlertValues::PaceFast {
                pace_min_per_km: o.f64("pace_min_per_km")?,
                target_min_min_per_km: o.f64("target_min_min_per_km")?,
                held_s: o.f64("held_s")?,
            },
            "GPWS_HR_HIGH" => AlertValues::HrHigh {
                hr_bpm: o.f64("hr_bpm")?,
                ceiling_bpm: o.f64("ceiling_bpm")?,
                held_s: o.f64("held_s")?,
            },
            "GPWS_POWER_LOW" => AlertValues::PowerLow {
                power_w: o.f64("power_w")?,
                target_min_w: o.f64("target_min_w")?,
                held_s: o.f64("held_s")?,
            },
            "GPWS_POWER_HIGH" => AlertValues::PowerHigh {
                power_w: o.f64("power_w")?,
                target_max_w: o.f64("target_max_w")?,
                held_s: o.f64("held_s")?,
            },
            "MINIMUMS" => AlertValues::Minimums {
                remaining_m: o.f64("remaining_m")?,
                mark_m: o.f64("mark_m")?,
                distance_m: o.f64("distance_m")?,
                goal_m: o.f64("goal_m")?,
            },
            "MINIMUMS_GOAL" => {
                AlertValues::MinimumsGoal { distance_m: o.f64("distance_m")?, goal_m: o.f64("goal_m")? }
            }
            _ => AlertValues::Other(match v {
                Value::Object(members) => {
                    members.iter().filter_map(|(k, v)| Some((k.clone(), v.as_f64()?))).collect()
                }
                _ => Vec::new(), // (not reached: Obj::new took only an object)
            }),
        })
    }
}
