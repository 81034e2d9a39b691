//! One event from a subscription: [`Event`].

use crate::error::Result;
use crate::json;

/// One event from a subscription: a JSON object with a `kind` and a per-session increasing
/// `seq` (see `docs/events.md` in the repository for every kind).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// `"flight"`, `"phase"`, `"tick"`, `"log"`, `"split"`, `"alert"` or `"overflow"` (`""`
    /// if the event had none).
    pub kind: String,
    /// The event's sequence number (0 if it had none).
    pub seq: u64,
    /// The whole event as JSON.
    pub json: String,
}

impl Event {
    /// Reads `kind` and `seq` from an event's JSON.
    pub fn from_json(json: String) -> Event {
        let kind = json::str_field(&json, "kind").unwrap_or_default();
        let seq = json::raw_field(&json, "seq")
            .and_then(|raw| {
                raw.parse::<u64>().ok().or_else(|| json::f64_field(&json, "seq").map(|f| f as u64))
            })
            .unwrap_or(0);
        Event { kind, seq, json }
    }

    /// The raw JSON text of a top-level member, e.g. `event.field("pfd")`.
    pub fn field(&self, key: &str) -> Option<&str> {
        json::raw_field(&self.json, key)
    }

    /// The event's time, unix seconds (`t`; `None` for an `overflow` event, which has none,
    /// and before any input).
    pub fn t(&self) -> Option<f64> {
        json::f64_field(&self.json, "t")
    }

    /// A top-level string member, e.g. `event.str_field("to")` of a phase event.
    pub fn str_field(&self, key: &str) -> Option<String> {
        json::str_field(&self.json, key)
    }

    /// A top-level number member, e.g. `event.f64_field("distance_m")`; `None` for `null`.
    pub fn f64_field(&self, key: &str) -> Option<f64> {
        json::f64_field(&self.json, key)
    }

    /// What the event carries, typed by its kind: a `flight` event's [`crate::Snapshot`], a
    /// `split` event's [`crate::Lap`], a phase change... ([`crate::EventBody::Other`] for a
    /// kind this crate does not know).
    pub fn body(&self) -> Result<crate::EventBody> {
        crate::EventBody::from_json(&self.kind, &self.json)
    }
}
