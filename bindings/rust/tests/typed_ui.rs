//! What a phone UI reads from the typed results, with no JSON of its own: the snapshot's
//! accuracy and power, each lap's and the record's power, the figures behind an alert ("400 m
//! to go"), a tick's display strings and every event's time. Each is checked against the
//! library's JSON (read independently with `json::parse`) and against what the flight did.

mod common;

use common::*;
use runway::json::{self, Value};
use runway::{store, AlertValues, Event, EventBody, Session, Snapshot, Status, Summary};

/// The config of `run`: 200 m laps, a pace band the run is too slow for, a heart-rate ceiling
/// it is above, and a 600 m goal called out at 400 m to go.
const ALERTS: &str = r#"{"auto_lap_m":200,"target_pace":{"min":1,"max":2.5},"hr_ceiling":150,"goal_m":600,"minimums_m":[400]}"#;

/// 70 fixes 2 s apart due north at 5.5 m/s (11 m each), 160 bpm; fixes 40 to 49 say h_acc 80 m
/// (over the 50 m gate), the others 4 m; power samples a second apart over the first 70 s,
/// 250 W but 400 W at fix 10. Snapshots after fixes 30 and 45 are returned.
fn run(s: &Session) -> (String, String) {
    let (mut at30, mut at45) = (String::new(), String::new());
    s.start(Some(T0)).unwrap();
    for i in 0..70 {
        let t = T0 + 2.0 * i as f64;
        let h_acc = if (40..50).contains(&i) { 80.0 } else { 4.0 };
        s.push_json(&format!(
            r#"{{"t":{t},"lat":{:.7},"lon":4.0,"alt":10,"speed":5.5,"course":0,"h_acc":{h_acc}}}"#,
            LAT0 + i as f64 * 11.0 / 111_257.0
        ))
        .unwrap();
        s.push_json(&format!(r#"{{"type":"hr","bpm":160,"t":{t}}}"#)).unwrap();
        if i < 35 {
            let w = if i == 10 { 400 } else { 250 };
            s.push_json(&format!(r#"{{"type":"power","watts":{w},"t":{t}}}"#)).unwrap();
            s.push_json(&format!(r#"{{"type":"power","watts":250,"t":{}}}"#, t + 1.0)).unwrap();
        }
        match i {
            30 => at30 = s.snapshot_json().unwrap(),
            45 => at45 = s.snapshot_json().unwrap(),
            _ => {}
        }
    }
    (at30, at45)
}

fn f(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

/// Every member the new fields read, equal to the JSON's.
fn same_as_json(snap: &Snapshot, text: &str) {
    let j = json::parse(text).unwrap();
    assert_eq!(snap.h_acc_m, f(&j, "h_acc_m"));
    assert_eq!(Some(snap.accuracy.as_str()), j.get("accuracy").and_then(Value::as_str));
    assert_eq!(Some(snap.filtered), j.get("filtered").and_then(Value::as_u64));
    assert_eq!(snap.power_w, f(&j, "power_w"));
    assert_eq!(snap.avg_power_w, f(&j, "avg_power_w"));
    assert_eq!(snap.max_power_w, f(&j, "max_power_w"));
    assert_eq!(snap.normalized_power_w, f(&j, "normalized_power_w"));
    assert_eq!(snap.power_10s_w, f(&j, "power_10s_w"));
    assert_eq!(snap.lap_avg_power_w, f(&j, "lap_avg_power_w"));
    assert_eq!(snap.lap_max_power_w, f(&j, "lap_max_power_w"));
    assert_eq!(snap.lap_normalized_power_w, f(&j, "lap_normalized_power_w"));
}

#[test]
fn a_snapshot_holds_its_accuracy_and_power() {
    let s = Session::open(Some(ALERTS)).unwrap();
    let before = s.snapshot().unwrap();
    assert_eq!((before.accuracy.as_str(), before.h_acc_m), ("unknown", None));
    assert_eq!(
        (before.power_w, before.avg_power_w, before.max_power_w, before.normalized_power_w),
        (None, None, None, None)
    );
    assert_eq!(before.filtered, 0);

    let (at30, at45) = run(&s);

    // Fix 30, a second after a 250 W sample: 61 s of power, one of them 400 W.
    let snap = Snapshot::from_json(&at30).unwrap();
    same_as_json(&snap, &at30);
    assert_eq!((snap.accuracy.as_str(), snap.h_acc_m), ("ok", Some(4.0)));
    assert_eq!(snap.filtered, 0);
    assert_eq!(snap.power_w, Some(250.0));
    assert_eq!(snap.max_power_w, Some(400.0));
    let avg = snap.avg_power_w.expect("power was pushed");
    assert!((avg - (250.0 + 150.0 / 61.0)).abs() < 1e-9, "{avg}");
    let np = snap.normalized_power_w.expect("past the 30th second");
    assert!(np > avg && np < 400.0, "normalised {np}, average {avg}");

    // Fix 45: six fixes of 80 m refused, the samples stale since 74 s.
    let snap = Snapshot::from_json(&at45).unwrap();
    same_as_json(&snap, &at45);
    assert_eq!((snap.accuracy.as_str(), snap.h_acc_m), ("reduced", Some(80.0)));
    assert_eq!((snap.filtered, snap.filtered_by.accuracy), (6, 6));
    assert_eq!(snap.power_w, None);
    assert_eq!(snap.max_power_w, Some(400.0));
    assert!(snap.avg_power_w.is_some() && snap.normalized_power_w.is_some());

    // Accurate fixes again; the record's power is the flight's.
    let text = s.snapshot_json().unwrap();
    let now = s.snapshot().unwrap();
    same_as_json(&now, &text);
    assert_eq!((now.accuracy.as_str(), now.h_acc_m, now.filtered), ("ok", Some(4.0), 10));
    s.stop(None).unwrap();
    let sum = s.summary().unwrap();
    assert_eq!(sum.avg_power_w, now.avg_power_w);
    assert_eq!(sum.max_power_w, Some(400.0));
    assert_eq!(sum.normalized_power_w, now.normalized_power_w);
}

#[test]
fn laps_and_the_record_hold_their_power() {
    let s = Session::open(Some(ALERTS)).unwrap();
    let poll = s.poll_subscription(Some(r#"{"kinds":["split"],"policy":"queue"}"#)).unwrap();
    run(&s);
    s.stop(None).unwrap();
    let text = s.summary_json().unwrap();
    let j = json::parse(&text).unwrap();
    let sum = Summary::from_json(&text).unwrap();

    assert_eq!(sum.avg_power_w, f(&j, "avg_power_w"));
    assert_eq!(sum.max_power_w, f(&j, "max_power_w"));
    assert_eq!(sum.normalized_power_w, f(&j, "normalized_power_w"));
    // 74 s of power (the last sample holds its 5 s), one second of it 400 W.
    let avg = sum.avg_power_w.unwrap();
    assert!((avg - (250.0 + 150.0 / 74.0)).abs() < 1e-9, "{avg}");
    assert_eq!(sum.max_power_w, Some(400.0));
    assert!(sum.normalized_power_w.unwrap() > avg);
    assert_eq!(sum.simplify_m, Some(2.0));
    assert_eq!(sum.flight_id, None);

    let laps = j.get("laps").and_then(Value::as_array).unwrap();
    assert_eq!(sum.laps.len(), 4);
    for (lap, raw) in sum.laps.iter().zip(laps) {
        assert_eq!(lap.avg_power_w, f(raw, "avg_power_w"));
        assert_eq!(lap.max_power_w, f(raw, "max_power_w"));
        assert_eq!(lap.normalized_power_w, f(raw, "normalized_power_w"));
        assert_eq!(lap.max_hr_bpm, f(raw, "max_hr_bpm"));
        assert_eq!(lap.max_cadence_spm, f(raw, "max_cadence_spm"));
    }
    // Each lap's max speed is the JSON's, of the flight's speeds: the flight's is the largest.
    for (lap, raw) in sum.laps.iter().zip(laps) {
        assert_eq!(lap.max_speed_mps, f(raw, "max_speed_mps"));
    }
    let fastest = sum.laps.iter().filter_map(|l| l.max_speed_mps).fold(f64::NAN, f64::max);
    assert_eq!(Some(fastest), sum.max_speed_mps);
    // Every lap had the strap's 160 bpm and no cadence sensor.
    assert!(sum.laps.iter().all(|l| l.max_hr_bpm == Some(160.0) && l.max_cadence_spm.is_none()));
    // The first 200 m (36.4 s) had the 400 W second, the second only 250 W; the last, after
    // the samples ended, none.
    assert_eq!(sum.laps[0].max_power_w, Some(400.0));
    let first = sum.laps[0].avg_power_w.unwrap();
    assert!(first > 250.0 && first < 260.0, "{first}");
    assert_eq!((sum.laps[1].avg_power_w, sum.laps[1].max_power_w), (Some(250.0), Some(250.0)));
    let last = &sum.laps[3];
    assert_eq!((last.trigger.as_str(), last.avg_power_w, last.max_power_w), ("final", None, None));
    assert_eq!(last.normalized_power_w, None);

    let splits: Vec<_> = poll
        .drain()
        .map(|e| match e.unwrap().body().unwrap() {
            EventBody::Split(lap) => lap,
            other => panic!("not subscribed: {other:?}"),
        })
        .collect();
    assert_eq!(splits, sum.laps);
}

/// An alert event's values, by key, as its JSON lists them.
fn json_values(e: &Event) -> Vec<(String, f64)> {
    let v = json::parse(&e.json).unwrap();
    match v.get("values") {
        Some(Value::Object(members)) => {
            members.iter().map(|(k, v)| (k.clone(), v.as_f64().unwrap())).collect()
        }
        other => panic!("no values object: {other:?} in {}", e.json),
    }
}

/// An alert event, its typed code and values, and its values as the JSON lists them.
type Alert = (Event, String, AlertValues, Vec<(String, f64)>);

/// Each alert event of a `run` with `config`.
fn alerts(config: &str) -> Vec<Alert> {
    let s = Session::open(Some(config)).unwrap();
    let poll = s.poll_subscription(Some(r#"{"kinds":["alert"],"policy":"queue"}"#)).unwrap();
    run(&s);
    s.stop(None).unwrap();
    poll.drain()
        .map(|e| {
            let e = e.unwrap();
            let raw = json_values(&e);
            match e.body().unwrap() {
                EventBody::Alert { code, message, values } => {
                    assert_eq!(Some(message), e.str_field("message"));
                    (e, code, values, raw)
                }
                other => panic!("not subscribed: {other:?}"),
            }
        })
        .collect()
}

/// 5.5 m/s in minutes per km.
const PACE: f64 = 1000.0 / (5.5 * 60.0);

#[test]
fn an_alert_holds_the_figures_behind_it() {
    let got = alerts(ALERTS);
    let codes: Vec<&str> = got.iter().map(|a| a.1.as_str()).collect();
    assert_eq!(codes, ["GPWS_HR_HIGH", "GPWS_PACE_SLOW", "MINIMUMS", "MINIMUMS_GOAL"]);
    for (e, code, values, raw) in &got {
        let get = |key: &str| {
            raw.iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| *v)
                .unwrap_or_else(|| panic!("{key} in {}", e.json))
        };
        // Each typed figure is the JSON's, and the JSON has no other.
        let typed: Vec<(&str, f64)> = match *values {
            AlertValues::HrHigh { hr_bpm, ceiling_bpm, held_s } => {
                assert_eq!((hr_bpm, ceiling_bpm), (160.0, 150.0));
                assert!(held_s >= 5.0, "{held_s}");
                vec![("hr_bpm", hr_bpm), ("ceiling_bpm", ceiling_bpm), ("held_s", held_s)]
            }
            AlertValues::PaceSlow { pace_min_per_km, target_max_min_per_km, held_s } => {
                assert!((pace_min_per_km - PACE).abs() < 1e-9, "{pace_min_per_km}");
                assert_eq!(target_max_min_per_km, 2.5);
                assert!(held_s >= 5.0, "{held_s}");
                vec![
                    ("pace_min_per_km", pace_min_per_km),
                    ("target_max_min_per_km", target_max_min_per_km),
                    ("held_s", held_s),
                ]
            }
            AlertValues::Minimums { remaining_m, mark_m, distance_m, goal_m } => {
                // "400 m to go": called at the fix that crossed it, 11 m a fix 2 s apart.
                assert_eq!((mark_m, goal_m), (400.0, 600.0));
                assert!((remaining_m - (goal_m - distance_m)).abs() < 1e-9);
                assert!(remaining_m <= 400.0 && remaining_m > 400.0 - 11.5, "{remaining_m}");
                assert_eq!(e.t(), Some(T0 + 2.0 * (distance_m / 11.0).round()));
                vec![
                    ("remaining_m", remaining_m),
                    ("mark_m", mark_m),
                    ("distance_m", distance_m),
                    ("goal_m", goal_m),
                ]
            }
            AlertValues::MinimumsGoal { distance_m, goal_m } => {
                assert_eq!(goal_m, 600.0);
                assert!((600.0..611.5).contains(&distance_m), "{distance_m}");
                assert_eq!(e.t(), Some(T0 + 2.0 * (distance_m / 11.0).round()));
                vec![("distance_m", distance_m), ("goal_m", goal_m)]
            }
            ref other => panic!("{code}: {other:?}"),
        };
        assert_eq!(typed.len(), raw.len(), "{}", e.json);
        for (key, v) in typed {
            assert_eq!(v, get(key), "{key} of {}", e.json);
        }
        assert_eq!(e.t(), json::parse(&e.json).unwrap().get("t").and_then(Value::as_f64));
    }

    // The other side of the band.
    let fast = alerts(r#"{"target_pace":{"min":4,"max":6}}"#);
    assert_eq!(fast.len(), 1, "{:?}", fast.iter().map(|a| &a.0.json).collect::<Vec<_>>());
    match fast[0].2 {
        AlertValues::PaceFast { pace_min_per_km, target_min_min_per_km, held_s } => {
            assert!((pace_min_per_km - PACE).abs() < 1e-9, "{pace_min_per_km}");
            assert_eq!(
                (target_min_min_per_km, Some(held_s)),
                (4.0, fast[0].3.iter().find(|(k, _)| k == "held_s").map(|(_, v)| *v))
            );
            assert!(held_s >= 5.0, "{held_s}");
        }
        ref other => panic!("{other:?}"),
    }

    // A code this crate does not know keeps its figures by key; a known code missing one is an
    // error naming it.
    let goal = &got[3].0.json;
    let newer = Event::from_json(goal.replacen("\"MINIMUMS_GOAL\"", "\"MINIMUMS_NEW\"", 1));
    match newer.body().unwrap() {
        EventBody::Alert { code, values: AlertValues::Other(values), .. } => {
            assert_eq!(code, "MINIMUMS_NEW");
            assert_eq!(values, got[3].3);
        }
        other => panic!("{other:?}"),
    }
    let damaged = Event::from_json(goal.replacen("\"goal_m\":", "\"goal_x\":", 1));
    let err = damaged.body().unwrap_err();
    assert_eq!(err.status, Status::Internal);
    assert!(err.message.contains("\"goal_m\" is missing"), "{err}");
}

/// `target_power`: the run's 250 W is below a 300–350 W band and above a 100–200 W one; each
/// alert's typed figures are its JSON's (and the JSON has no other).
#[test]
fn a_power_alert_holds_the_figures_behind_it() {
    for (config, low) in [
        (r#"{"target_power":{"min":300,"max":350}}"#, true),
        (r#"{"target_power":{"min":100,"max":200}}"#, false),
    ] {
        let got = alerts(config);
        assert!(!got.is_empty(), "{config}");
        for (e, code, values, raw) in &got {
            let typed: Vec<(&str, f64)> = match *values {
                AlertValues::PowerLow { power_w, target_min_w, held_s } if low => {
                    assert_eq!(code, "GPWS_POWER_LOW");
                    assert!(power_w < target_min_w && target_min_w == 300.0 && held_s >= 5.0, "{}", e.json);
                    vec![("power_w", power_w), ("target_min_w", target_min_w), ("held_s", held_s)]
                }
                AlertValues::PowerHigh { power_w, target_max_w, held_s } if !low => {
                    assert_eq!(code, "GPWS_POWER_HIGH");
                    assert!(power_w > target_max_w && target_max_w == 200.0 && held_s >= 5.0, "{}", e.json);
                    vec![("power_w", power_w), ("target_max_w", target_max_w), ("held_s", held_s)]
                }
                ref other => panic!("{config}: {code}: {other:?}"),
            };
            assert_eq!(typed.len(), raw.len(), "{}", e.json);
            for (key, v) in typed {
                assert_eq!(
                    Some(v),
                    raw.iter().find(|(k, _)| k == key).map(|(_, v)| *v),
                    "{key} of {}",
                    e.json
                );
            }
        }
    }
}

#[test]
fn a_tick_holds_its_display_strings_and_every_event_its_time() {
    let s = Session::open(None).unwrap();
    let poll = s.poll_subscription(Some(r#"{"policy":"queue","capacity":4096}"#)).unwrap();
    s.start(Some(T0)).unwrap();
    for i in 0..6 {
        s.push_json(&fix_json(T0 + 2.0 * i as f64, i)).unwrap();
    }
    s.tick(Some(T0 + 12.5)).unwrap();
    let events: Vec<_> = poll.drain().map(Result::unwrap).collect();
    for e in &events {
        assert_eq!(e.t(), json::parse(&e.json).unwrap().get("t").and_then(Value::as_f64), "{}", e.json);
    }
    assert_eq!(events[0].kind, "phase");
    assert_eq!(events[0].t(), Some(T0));
    let tick = events.last().unwrap();
    assert_eq!(tick.t(), Some(T0 + 12.5));
    match tick.body().unwrap() {
        EventBody::Tick { phase, elapsed_s, avg_pace_min_per_km, pfd } => {
            assert_eq!((phase.as_str(), elapsed_s), ("cruise", 12.5));
            let avg = avg_pace_min_per_km.expect("some distance");
            assert_eq!(pfd.time, "00:00:12");
            assert_eq!(pfd.avg_pace, format!("AVG {}", runway::format_pace(avg)));
            assert_eq!(
                Some(pfd.avg_pace.as_str()),
                json::parse(tick.field("pfd").unwrap()).unwrap().get("avg_pace").and_then(Value::as_str)
            );
            assert_eq!((pfd.pace.as_str(), pfd.pace_tape.len()), ("", 0)); // not in a tick
        }
        other => panic!("{other:?} from {}", tick.json),
    }
}

#[test]
fn a_stored_record_names_its_flight() {
    let dir = TempDir::new("typed-ui");
    let db = dir.join("runs.db");
    let config = format!(r#"{{"store":{:?},"flight_id":"phone","simplify_m":5}}"#, db.to_str().unwrap());
    let s = Session::open(Some(&config)).unwrap();
    s.start(Some(T0)).unwrap();
    for i in 0..6 {
        s.push_json(&fix_json(T0 + 2.0 * i as f64, i)).unwrap();
    }
    s.stop(None).unwrap();
    let live = s.summary().unwrap();
    assert_eq!((live.flight_id.as_deref(), live.simplify_m), (Some("phone"), Some(5.0)));
    drop(s);
    let stored = store::flight(&db, "phone").unwrap();
    assert_eq!((stored.flight_id.as_deref(), stored.simplify_m), (Some("phone"), Some(5.0)));

    // Without a store, no id.
    let s = Session::open(None).unwrap();
    assert_eq!(s.summary().unwrap().flight_id, None);
}

/// The ELEMNT ride in ../shared/tracks (power from its records), replayed as runway_analyse
/// does: the snapshot at its end and the record give the power docs/events.md quotes (106.5 W
/// average, 155.1 W normalised, the records' own 648 W maximum), and each of its 80 laps has
/// its own.
#[test]
fn a_real_ride_reads_its_power_typed() {
    let Some(dir) = tracks_dir() else {
        eprintln!("SKIPPED: ../shared/tracks absent");
        return;
    };
    let fit = std::fs::read(dir.join("fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit")).unwrap();
    let jsonl = runway::import_recording(&fit, "fit").unwrap();
    let s = Session::open(Some(r#"{"activity":"ride"}"#)).unwrap();
    start_replay(&s, &jsonl);
    assert_eq!(s.push_jsonl(&jsonl).rejected, 0);
    let text = s.snapshot_json().unwrap();
    let snap = s.snapshot().unwrap();
    same_as_json(&snap, &text);
    assert_eq!((snap.accuracy.as_str(), snap.h_acc_m), ("ok", Some(3.0)));
    assert_eq!(snap.power_w, Some(0.0)); // coasting at the end
    s.stop(None).unwrap();
    let sum = s.summary().unwrap();
    let round1 = |w: Option<f64>| w.map(|w| (w * 10.0).round() / 10.0);
    assert_eq!(round1(sum.avg_power_w), Some(106.5));
    assert_eq!(round1(sum.normalized_power_w), Some(155.1));
    assert_eq!(sum.max_power_w, Some(648.0));
    assert_eq!((snap.avg_power_w, snap.max_power_w), (sum.avg_power_w, sum.max_power_w));
    assert_eq!(snap.normalized_power_w, sum.normalized_power_w);

    assert_eq!(sum.laps.len(), 80);
    assert!(sum.laps.iter().all(|l| l.avg_power_w.is_some() && l.max_power_w.is_some()), "{:?}", sum.laps);
    let max = sum.laps.iter().filter_map(|l| l.max_power_w).fold(0.0, f64::max);
    assert_eq!(max, 648.0);
    let j = json::parse(&s.summary_json().unwrap()).unwrap();
    for (lap, raw) in sum.laps.iter().zip(j.get("laps").and_then(Value::as_array).unwrap()) {
        assert_eq!(lap.avg_power_w, f(raw, "avg_power_w"));
        assert_eq!(lap.normalized_power_w, f(raw, "normalized_power_w"));
    }
}
