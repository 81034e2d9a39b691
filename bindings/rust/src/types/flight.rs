//! A stored flight as [`crate::store::flights`] lists it: [`Flight`].

use super::{parse_doc, Obj};
use crate::error::{Error, Result, Status};
use crate::json::Value;

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
