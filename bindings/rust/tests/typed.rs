//! Typed results: `Summary`, `Lap`, `RoutePoint`, `Snapshot`, `Flight` and `EventBody` hold
//! what the library's JSON says, member by member (read independently with `json::parse`);
//! unknown values are `None`; a damaged document is an error naming the member, never a panic
//! or a made-up value.

mod common;

use common::*;
use runway::json::{self, Value};
use runway::{store, EventBody, Flight, Lap, Session, Snapshot, Status, Summary};

/// 40 fixes 2 s apart due north at 5.5 m/s, hr every 2 s, with auto laps every 200 m.
fn run(s: &Session, with_hr: bool) {
    s.start(Some(T0)).unwrap();
    for i in 0..40 {
        let t = T0 + 2.0 * i as f64;
        s.push_json(&format!(
            r#"{{"t":{t},"lat":{:.7},"lon":4.0,"alt":{:.1},"speed":5.5,"course":0}}"#,
            LAT0 + i as f64 * 11.0 / 111_257.0,
            10.0 + i as f64 * 0.5
        ))
        .unwrap();
        if with_hr {
            s.push_json(&format!(r#"{{"type":"hr","bpm":{},"t":{t}}}"#, 140 + i % 7)).unwrap();
        }
    }
    s.stop(None).unwrap();
}

fn f(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

#[test]
fn a_summary_holds_what_its_json_says() {
    let s = Session::open(Some(r#"{"auto_lap_m":200}"#)).unwrap();
    run(&s, true);
    let text = s.summary_json().unwrap();
    let j = json::parse(&text).unwrap();
    let sum = s.summary().unwrap();
    assert_eq!(sum, Summary::from_json(&text).unwrap());

    assert_eq!(sum.phase, "touchdown");
    assert_eq!(sum.end_reason.as_deref(), Some("stopped"));
    assert_eq!(sum.activity, "run");
    assert_eq!(Some(sum.distance_m), f(&j, "distance_m"));
    assert!((sum.distance_m - 39.0 * 11.0).abs() < 0.02 * 39.0 * 11.0, "{}", sum.distance_m);
    assert_eq!(sum.start_t, Some(T0));
    assert_eq!(sum.end_t, Some(T0 + 78.0));
    assert_eq!(Some(sum.elapsed_s), f(&j, "elapsed_s"));
    assert_eq!(sum.avg_pace_min_per_km, f(&j, "avg_pace_min_per_km"));
    assert_eq!(sum.max_speed_mps, f(&j, "max_speed_mps"));
    assert_eq!(sum.avg_hr_bpm, f(&j, "avg_hr_bpm"));
    let hr = sum.avg_hr_bpm.expect("heart rate was pushed");
    assert!((140.0..=146.0).contains(&hr), "{hr}");
    assert_eq!(sum.max_hr_bpm, Some(146.0));
    assert_eq!(sum.hr_zone_s.len(), 6);
    assert!((sum.hr_zone_s.iter().sum::<f64>() - sum.elapsed_s).abs() < 1e-6);
    assert_eq!(sum.avg_cadence_spm, None); // null: no cadence pushed
    assert!(j.get("avg_cadence_spm").unwrap().is_null());
    assert_eq!(sum.fixes, 40);
    assert_eq!(sum.filtered.total(), 0);
    assert_eq!(sum.min_altitude_m, f(&j, "min_altitude_m"));

    // Laps: 200 m auto laps and the final one, as the JSON lists them.
    let laps = j.get("laps").and_then(Value::as_array).unwrap();
    assert_eq!(sum.laps.len(), laps.len());
    assert!(sum.laps.len() >= 3, "{:?}", sum.laps);
    for (lap, raw) in sum.laps.iter().zip(laps) {
        assert_eq!(Some(lap.index), raw.get("index").and_then(Value::as_u64));
        assert_eq!(Some(lap.trigger.as_str()), raw.get("trigger").and_then(Value::as_str));
        assert_eq!(Some(lap.distance_m), f(raw, "distance_m"));
        assert_eq!(Some(lap.elapsed_s), f(raw, "elapsed_s"));
        assert_eq!(lap.avg_hr_bpm, f(raw, "avg_hr_bpm"));
    }
    assert_eq!(sum.laps.last().unwrap().trigger, "final");
    assert!(sum.laps[..sum.laps.len() - 1].iter().all(|l| l.trigger == "auto"));
    let total: f64 = sum.laps.iter().map(|l| l.distance_m).sum();
    assert!((total - sum.distance_m).abs() < 1e-6, "laps {total} vs {}", sum.distance_m);

    // The route: every point, as [lat, lon, alt, t].
    assert_eq!(sum.route.len() as u64, sum.points);
    let route = j.get("route").and_then(Value::as_array).unwrap();
    assert_eq!(sum.route.len(), route.len());
    for (p, raw) in sum.route.iter().zip(route) {
        assert_eq!(Some(p.lat), raw.at(0).and_then(Value::as_f64));
        assert_eq!(Some(p.lon), raw.at(1).and_then(Value::as_f64));
        assert_eq!(p.alt, raw.at(2).and_then(Value::as_f64));
        assert_eq!(Some(p.t), raw.at(3).and_then(Value::as_f64));
    }
    assert_eq!(sum.route[0].t, T0);
    assert_eq!(sum.segment_starts, vec![0]);
}

#[test]
fn unknown_values_are_none() {
    let s = Session::open(None).unwrap();
    let before = s.summary().unwrap();
    assert_eq!(before.phase, "preflight");
    assert_eq!((before.start_t, before.end_t, before.end_reason.as_deref()), (None, None, None));
    assert_eq!(before.avg_pace_min_per_km, None);
    assert!(before.route.is_empty() && before.laps.is_empty());
    let snap = s.snapshot().unwrap();
    assert_eq!((snap.t, snap.lat, snap.last_fix_t, snap.hr_bpm), (None, None, None, None));

    let s = Session::open(None).unwrap();
    run(&s, false);
    let sum = s.summary().unwrap();
    assert_eq!(sum.avg_hr_bpm, None);
    assert_eq!(sum.max_hr_bpm, None);
    assert!(sum.laps.iter().all(|l| l.avg_hr_bpm.is_none()));
}

#[test]
fn a_snapshot_holds_the_flight_data_and_its_pfd() {
    let s = Session::open(None).unwrap();
    s.start(Some(T0)).unwrap();
    s.push_json(&format!(r#"{{"t":{T0},"lat":52.0,"lon":4.0,"speed":3.3,"course":0}}"#)).unwrap();
    s.push_json(&format!(r#"{{"type":"hr","bpm":148,"t":{T0}}}"#)).unwrap();
    // A third fix: the engine counts a leg's first steps once three fixes in a row move.
    s.push_json(&format!(r#"{{"t":{},"lat":52.00015,"lon":4.0,"speed":3.35,"course":0}}"#, T0 + 5.0))
        .unwrap();
    s.push_json(&format!(r#"{{"t":{},"lat":52.0003,"lon":4.0,"speed":3.38,"course":0}}"#, T0 + 10.0))
        .unwrap();
    let text = s.snapshot_json().unwrap();
    let j = json::parse(&text).unwrap();
    let snap = s.snapshot().unwrap();
    assert_eq!(snap, Snapshot::from_json(&text).unwrap());
    assert_eq!(snap.phase, "cruise");
    assert_eq!(snap.t, Some(T0 + 10.0));
    assert_eq!(snap.lat, Some(52.0003));
    assert_eq!(snap.last_fix_t, Some(T0 + 10.0));
    assert_eq!(Some(snap.distance_m), f(&j, "distance_m"));
    // 0.0003° of latitude at 52° N is 33.39 m on WGS84: clean fixes measure it to 0.5 %.
    assert!((snap.distance_m - 33.39).abs() < 0.005 * 33.39, "{}", snap.distance_m);
    assert_eq!(snap.speed_mps, Some(3.38));
    assert_eq!(snap.hr_bpm, None); // the sample at T0 held 5 s: stale at T0 + 10
    assert_eq!(snap.fixes, 3);
    assert_eq!(snap.lap, 1);
    let pfd = j.get("pfd").unwrap();
    assert_eq!(Some(snap.pfd.time.as_str()), pfd.get("time").and_then(Value::as_str));
    assert_eq!(snap.pfd.time, "00:00:10");
    assert_eq!(snap.pfd.direction, "N");
    assert_eq!(snap.pfd.pace_tape.len(), 5);
    assert_eq!(snap.pfd.heading_tape.len(), 3);
    assert_eq!(snap.pfd.hr, "--");
}

#[test]
fn events_carry_typed_bodies() {
    let s = Session::open(Some(r#"{"auto_lap_m":200}"#)).unwrap();
    let poll = s
        .poll_subscription(Some(
            r#"{"kinds":["flight","phase","split","log"],"policy":"queue","capacity":4096}"#,
        ))
        .unwrap();
    run(&s, true);
    let events: Vec<_> = poll.drain().collect::<runway::Result<_>>().unwrap();
    let (mut phases, mut splits, mut flights) = (Vec::new(), Vec::new(), 0);
    for e in &events {
        match e.body().unwrap() {
            EventBody::Phase { from, to, .. } => phases.push((from, to)),
            EventBody::Split(lap) => {
                assert_eq!(lap, Lap::from_json(e.field("lap").unwrap()).unwrap());
                splits.push(lap)
            }
            EventBody::Flight(snap) => {
                assert_eq!(Some(snap.distance_m), e.f64_field("distance_m"));
                assert_eq!(snap.seq, e.seq);
                flights += 1;
            }
            EventBody::Log { level, message } => assert!(!level.is_empty() && !message.is_empty()),
            other => panic!("not subscribed: {other:?} from {}", e.json),
        }
    }
    assert_eq!(
        phases,
        vec![("preflight".to_owned(), "cruise".to_owned()), ("cruise".to_owned(), "touchdown".to_owned())]
    );
    assert_eq!(splits, s.summary().unwrap().laps);
    assert!(flights >= 80, "{flights} flight events for 80 inputs");
}

#[test]
fn a_flight_list_is_typed() {
    let dir = TempDir::new("typed");
    let db = dir.join("runs.db");
    let cfg = |id: &str| format!(r#"{{"store":{:?},"flight_id":"{id}"}}"#, db.to_str().unwrap());
    let done = Session::open(Some(&cfg("done"))).unwrap();
    run(&done, true);
    drop(done);
    let open = Session::open(Some(&cfg("open"))).unwrap();
    open.start(Some(T0)).unwrap();
    open.push_json(&format!(r#"{{"t":{T0},"lat":52.0,"lon":4.0}}"#)).unwrap();

    let text = store::flights_json(&db).unwrap();
    let flights = store::flights(&db).unwrap();
    assert_eq!(flights, Flight::list_from_json(&text).unwrap());
    let raw = json::parse(&text).unwrap();
    assert_eq!(flights.len(), raw.as_array().unwrap().len());
    let by_id = |id: &str| {
        flights.iter().find(|f| f.flight_id == id).unwrap_or_else(|| panic!("{id} in {flights:?}"))
    };
    let done = by_id("done");
    assert!(done.finished && !done.damaged);
    assert_eq!(done.end_reason.as_deref(), Some("stopped"));
    assert_eq!(done.activity.as_deref(), Some("run"));
    let record = store::flight(&db, "done").unwrap();
    assert_eq!(done.distance_m, Some(record.distance_m));
    assert_eq!(record.route.len() as u64, record.points);
    assert!(!by_id("open").finished);
    assert_eq!(by_id("open").end_reason, None);
}

#[test]
fn damaged_documents_are_errors_naming_the_member() {
    let s = Session::open(None).unwrap();
    run(&s, true);
    let good = s.summary_json().unwrap();
    let cases = [
        (good.replacen("\"distance_m\":", "\"distance_x\":", 1), "\"distance_m\" is missing"),
        (good.replacen("\"fixes\":40", "\"fixes\":-1", 1), "\"fixes\" is not a non-negative integer"),
        (good.replacen("\"phase\":\"touchdown\"", "\"phase\":7", 1), "\"phase\" is not a string"),
        (good.replacen("\"route\":[[", "\"route\":[[\"x\",", 1), "\"route\""),
        (
            good.replacen("\"route\":[[52.0,4.0,", "\"route\":[[52.0,", 1),
            "\"route\" has a point that is not [lat, lon, alt, t]",
        ),
        (good[..good.len() / 2].to_owned(), "not a JSON object"),
        ("[]".to_owned(), "not a JSON object"),
    ];
    for (text, want) in cases {
        let e = Summary::from_json(&text).expect_err(want);
        assert_eq!(e.status, Status::Internal);
        assert!(e.message.contains(want), "{want:?} not in {:?}", e.message);
    }
    assert!(Lap::from_json(r#"{"index":1}"#).unwrap_err().message.contains("\"trigger\" is missing"));
    assert!(Flight::list_from_json("{}").is_err());
    assert!(Snapshot::from_json("").is_err());
}

#[test]
fn a_long_route_is_read_whole() {
    let s = Session::open(Some(r#"{"filters":"off","distance_filter_m":0}"#)).unwrap();
    s.start(Some(T0)).unwrap();
    let n = 20_000;
    let mut lines = String::new();
    for i in 0..n {
        lines.push_str(&format!("{}\n", fix_json(T0 + i as f64, i)));
    }
    s.push_jsonl(&lines).into_result().unwrap();
    s.stop(None).unwrap();
    let sum = s.summary().unwrap();
    assert_eq!(sum.route.len(), n);
    assert_eq!(sum.points, n as u64);
    assert_eq!(sum.route[n - 1].t, T0 + (n - 1) as f64);
    assert!((sum.route[n - 1].lat - lat_at(n - 1)).abs() < 1e-7);
    assert_eq!(sum.route[5].alt, Some(12.5));
}

/// Speed samples (a treadmill's foot pod, no fix): the summary says how much of the distance
/// they measured; a summary written before that member existed (a stored flight of an older
/// build) reads as 0.
#[test]
fn a_summary_says_what_speed_samples_measured() {
    let s = Session::open(Some(r#"{"auto_pause":false}"#)).unwrap();
    s.start(Some(T0)).unwrap();
    for k in 1..=60 {
        s.push_json(&format!(r#"{{"type":"speed","speed":3.0,"t":{}}}"#, T0 + k as f64)).unwrap();
    }
    s.stop(None).unwrap();
    let sum = s.summary().unwrap();
    assert!((sum.distance_m - 180.0).abs() < 1e-9, "{}", sum.distance_m);
    assert_eq!(sum.sensor_distance_m, sum.distance_m);

    let text = s.summary_json().unwrap();
    let at = text.find(r#""sensor_distance_m":"#).expect("the member is written");
    let end = at + text[at..].find(',').unwrap() + 1;
    let older = format!("{}{}", &text[..at], &text[end..]);
    let read = Summary::from_json(&older).unwrap();
    assert_eq!((read.sensor_distance_m, read.distance_m), (0.0, sum.distance_m));
}
