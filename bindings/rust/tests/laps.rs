//! Laps: auto-laps by distance, manual laps (`Session::lap`), split events and the summary's laps.

mod common;

use common::*;
use runway::{PollSubscription, Session, Status};

const RUN_SPEED: f64 = 3.5; // m/s
const N_FIXES: usize = 715; // 1 Hz for 714 s: about 2.5 km

/// Fix `k` of a steady run due north at 1 Hz, with Doppler speed, course and heart rate.
fn run_fix(k: usize) -> String {
    let per_deg = meridian_arc_m(LAT0, LAT0 + 0.01) / 0.01;
    let lat = LAT0 + k as f64 * RUN_SPEED / per_deg;
    format!(
        r#"{{"t":{:.3},"lat":{lat:.7},"lon":{LON0:.7},"alt":10.0,"speed":{RUN_SPEED},"course":0.0,"h_acc":4.0,"v_acc":6.0,"hr":150}}"#,
        T0 + k as f64
    )
}

fn push_run(s: &Session, from: usize, to: usize) {
    for k in from..to {
        s.push_json(&run_fix(k)).unwrap_or_else(|e| panic!("fix {k}: {e}"));
    }
}

/// The `lap` objects of the split events waiting in `sub`.
fn splits(sub: &PollSubscription) -> Vec<String> {
    sub.drain()
        .map(|e| {
            let e = e.unwrap();
            assert_eq!(e.kind, "split", "{}", e.json);
            let lap = runway::json::raw_field(&e.json, "lap").expect("split without lap").to_owned();
            assert_eq!(num(&e.json, "t"), num(&lap, "end_t"), "a split's t is its lap's end");
            lap
        })
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn auto_laps_split_every_kilometre_and_the_summary_ends_with_the_final_lap() {
    let s = Session::open(Some(r#"{"auto_lap_m":1000}"#)).unwrap();
    let sub = s.poll_subscription(Some(r#"{"kinds":["split"],"policy":"queue"}"#)).unwrap();
    s.start(Some(T0)).unwrap();
    push_run(&s, 0, N_FIXES);
    let during = splits(&sub);
    let stop_t = T0 + (N_FIXES - 1) as f64;
    s.stop(Some(stop_t)).unwrap();
    let at_stop = splits(&sub);
    let sum = s.summary_json().unwrap();

    let total = num(&sum, "distance_m");
    assert!(total > 2450.0 && total < 2550.0, "distance_m {total}");
    assert_eq!(during.len(), 2, "{during:?}");
    for (i, lap) in during.iter().enumerate() {
        assert_eq!(num(lap, "index"), (i + 1) as f64, "{lap}");
        assert_eq!(text(lap, "trigger"), "auto");
        assert!(close(num(lap, "distance_m"), 1000.0, 1.0), "{lap}");
        // Cut at the boundary by interpolation: 1000 m at 3.5 m/s.
        assert!(close(num(lap, "elapsed_s"), 1000.0 / RUN_SPEED, 1.0), "{lap}");
        assert!(close(num(lap, "end_t") - num(lap, "start_t"), num(lap, "elapsed_s"), 1e-6), "{lap}");
        assert!(close(num(lap, "avg_hr_bpm"), 150.0, 1e-9), "{lap}");
    }
    assert_eq!(num(&during[0], "start_t"), T0);
    assert_eq!(num(&during[1], "start_t"), num(&during[0], "end_t"));

    // Stopping closes the partial lap: a third split, and the summary lists all three.
    assert_eq!(at_stop.len(), 1, "{at_stop:?}");
    let laps = array_items(runway::json::raw_field(&sum, "laps").expect("laps"));
    assert_eq!(laps.len(), 3, "{laps:?}");
    assert_eq!(&laps[..2], &during[..]);
    let last = &laps[2];
    assert_eq!(last, &at_stop[0]);
    assert_eq!(num(last, "index"), 3.0);
    assert_eq!(text(last, "trigger"), "final");
    assert_eq!(num(last, "start_t"), num(&during[1], "end_t"));
    assert_eq!(num(last, "end_t"), stop_t);
    assert_eq!(num(&sum, "end_t"), stop_t);
    let lap_sum: f64 = laps.iter().map(|l| num(l, "distance_m")).sum();
    assert!(close(lap_sum, total, 1e-6), "laps add up to {lap_sum}, distance_m {total}");
}

#[test]
fn a_manual_lap_mid_run_splits_with_trigger_manual() {
    let s = Session::open(Some(r#"{"auto_lap_m":1000}"#)).unwrap();
    let sub = s.poll_subscription(Some(r#"{"kinds":["split"],"policy":"queue"}"#)).unwrap();
    s.start(Some(T0)).unwrap();
    push_run(&s, 0, 101);
    s.lap(None).unwrap(); // now: the latest input's time, T0 + 100
    let manual = splits(&sub);
    let snap = s.snapshot_json().unwrap();
    push_run(&s, 101, 201);
    s.lap(Some(T0 + 200.0)).unwrap();
    let second = splits(&sub);
    s.stop(None).unwrap();

    assert_eq!(manual.len(), 1, "{manual:?}");
    let lap = &manual[0];
    assert_eq!(num(lap, "index"), 1.0);
    assert_eq!(text(lap, "trigger"), "manual");
    assert_eq!(num(lap, "start_t"), T0);
    assert_eq!(num(lap, "end_t"), T0 + 100.0);
    assert!(close(num(lap, "elapsed_s"), 100.0, 1e-9), "{lap}");
    assert!(close(num(lap, "distance_m"), 100.0 * RUN_SPEED, 3.5), "{lap}");
    // The snapshot has moved on to lap 2, which has run nothing yet.
    assert_eq!(num(&snap, "lap"), 2.0);
    assert_eq!(num(&snap, "lap_distance_m"), 0.0);

    assert_eq!(second.len(), 1, "{second:?}");
    assert_eq!(num(&second[0], "index"), 2.0);
    assert_eq!(text(&second[0], "trigger"), "manual");
    assert_eq!(num(&second[0], "start_t"), T0 + 100.0);
    let laps = array_items(runway::json::raw_field(&s.summary_json().unwrap(), "laps").unwrap());
    let triggers: Vec<String> = laps.iter().map(|l| text(l, "trigger")).collect();
    assert_eq!(triggers, ["manual", "manual"]);
}

#[test]
fn a_manual_lap_is_refused_outside_cruise_and_holding() {
    let s = Session::open(None).unwrap();
    s.push_json(&run_fix(0)).unwrap();
    let err = s.lap(Some(T0)).unwrap_err(); // before start
    assert_eq!(err.status, Status::State, "{err}");
    assert!(!err.message.is_empty());

    s.start(Some(T0)).unwrap();
    push_run(&s, 1, 3);
    s.pause(Some(T0 + 2.0)).unwrap();
    s.lap(Some(T0 + 3.0)).unwrap(); // holding: allowed
    assert_eq!(s.lap(Some(T0 + 3.0)).unwrap_err().status, Status::State, "nothing since the last lap");
    assert_eq!(s.lap(Some(T0 + 1.0)).unwrap_err().status, Status::Input, "before the latest input");
    s.stop(Some(T0 + 4.0)).unwrap();
    assert_eq!(s.lap(Some(T0 + 5.0)).unwrap_err().status, Status::State, "after stop");

    let laps = array_items(runway::json::raw_field(&s.summary_json().unwrap(), "laps").unwrap());
    assert_eq!(laps.len(), 1, "{laps:?}");
    assert_eq!(text(&laps[0], "trigger"), "manual");
}
