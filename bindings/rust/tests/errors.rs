//! Every error status, with its message, and that bad input changes no run state.

mod common;

use std::ptr;

use common::*;
use runway::{sys, Error, Session, Status};

fn expect_err<T: std::fmt::Debug>(r: runway::Result<T>, status: Status) -> Error {
    let e = r.expect_err("the call succeeded");
    assert_eq!(e.status, status, "{e}");
    assert!(!e.message.is_empty(), "no message for {status:?}");
    assert!(e.to_string().contains(&e.message), "Display leaves out the message: {e}");
    e
}

/// The parts of a snapshot that make up run state (the seq moves: rejections are logged).
fn run_state(s: &Session) -> Vec<String> {
    let snap = s.snapshot_json().unwrap();
    ["phase", "t", "lat", "lon", "distance_m", "points", "fixes", "elapsed_s", "hr_bpm"]
        .iter()
        .map(|k| format!("{k}={:?}", runway::json::raw_field(&snap, k)))
        .collect()
}

fn cruising() -> Session {
    let s = Session::open(None).unwrap();
    s.start(Some(T0)).unwrap();
    s.push_json(&fix_json(T0, 0)).unwrap();
    s.push_json(&fix_json(T0 + 5.0, 1)).unwrap();
    s
}

#[test]
fn argument_errors() {
    expect_err(Session::open(Some(r#"{"distance_filtr_m":5}"#)), Status::Argument);
    expect_err(Session::open(Some(r#"{"clock":"sundial"}"#)), Status::Argument);
    expect_err(Session::open(Some("config\0")), Status::Argument);
    let s = cruising();
    expect_err(s.poll_subscription(Some(r#"{"polcy":"queue"}"#)), Status::Argument);
    expect_err(s.poll_subscription(Some(r#"{"kinds":["flight","weather"]}"#)), Status::Argument);
    expect_err(s.subscribe(Some(r#"{"capacity":0}"#), |_| {}), Status::Argument);

    // runway_poll on a callback subscription.
    let sub = s.subscribe(None, |_| {}).unwrap();
    let mut out = ptr::null_mut();
    let code = unsafe { sys::runway_poll(s.as_raw(), sub.id(), &mut out) };
    assert_eq!(code, sys::RUNWAY_ERR_ARGUMENT);
    assert!(out.is_null(), "output written on failure");
    // NULL pointers.
    assert_eq!(unsafe { sys::runway_push_json(s.as_raw(), ptr::null()) }, sys::RUNWAY_ERR_ARGUMENT);
    assert_eq!(unsafe { sys::runway_session_open(ptr::null(), ptr::null_mut()) }, sys::RUNWAY_ERR_ARGUMENT);
}

#[test]
fn json_errors_change_nothing() {
    let s = cruising();
    let before = run_state(&s);
    expect_err(s.push_json("not json"), Status::Json);
    expect_err(s.push_json("[1]"), Status::Json);
    expect_err(s.push_json(r#""a string""#), Status::Json);
    expect_err(s.push_json(r#"{"t":1700000010,"lat":52.1,"lon":4.0"#), Status::Json);
    expect_err(s.push_json("{\"t\":1700000010,\"lat\":52\0,\"lon\":4}"), Status::Json);
    assert_eq!(run_state(&s), before);
}

#[test]
fn input_errors_change_nothing() {
    let s = cruising();
    let before = run_state(&s);
    let missing_lat = expect_err(s.push_json(r#"{"t":1700000010,"lon":4.0}"#), Status::Input);
    assert!(missing_lat.message.contains("lat"), "{missing_lat}");
    expect_err(s.push_json(r#"{"t":1700000010,"lat":91,"lon":4.0}"#), Status::Input);
    expect_err(s.push_json(r#"{"t":1700000010,"lat":52,"lon":-180.5}"#), Status::Input);
    expect_err(s.push_json(r#"{"t":1700000010,"lat":"52","lon":4}"#), Status::Input);
    expect_err(s.push_json(r#"{"t":1700000010,"lat":52,"lon":4,"speed":1e999}"#), Status::Input);
    expect_err(s.push_json(r#"{"lat":52,"lon":4}"#), Status::Input); // no t with the replay clock
    expect_err(s.push_json(r#"{"type":"hr","bpm":301,"t":1700000010}"#), Status::Input);
    expect_err(s.push_json(r#"{"type":"cadence","spm":-1,"t":1700000010}"#), Status::Input);
    expect_err(s.push_fix(&runway::Fix::new(T0 + 10.0, f64::NAN, 4.0)), Status::Input);
    // Time going backwards, by every path.
    expect_err(s.push_json(&fix_json(T0 + 4.0, 2)), Status::Input);
    expect_err(s.push_fix(&runway::Fix::new(T0 + 4.0, lat_at(2), LON0)), Status::Input);
    expect_err(s.tick(Some(T0 + 4.0)), Status::Input);
    expect_err(s.pause(Some(T0 + 4.0)), Status::Input);
    assert_eq!(run_state(&s), before);
    // Equal times are fine.
    s.push_json(&fix_json(T0 + 5.0, 2)).unwrap();
}

#[test]
fn state_errors_change_nothing() {
    let s = Session::open(None).unwrap();
    expect_err(s.pause(Some(T0)), Status::State);
    expect_err(s.resume(Some(T0)), Status::State);
    expect_err(s.stop(Some(T0)), Status::State);
    assert_eq!(runway::json::str_field(&s.snapshot_json().unwrap(), "phase").unwrap(), "preflight");
    s.start(Some(T0)).unwrap();
    expect_err(s.start(Some(T0 + 0.5)), Status::State); // a second start at another time
    let started = run_state(&s);
    s.start(Some(T0)).unwrap(); // at the flight's own start time: already true, nothing changes
    assert_eq!(run_state(&s), started);
    expect_err(s.resume(Some(T0)), Status::State);
    s.pause(Some(T0)).unwrap();
    expect_err(s.pause(Some(T0)), Status::State);
    s.stop(Some(T0 + 1.0)).unwrap();
    let before = run_state(&s);
    let e = expect_err(s.start(Some(T0 + 2.0)), Status::State);
    assert!(!e.message.is_empty());
    expect_err(s.resume(Some(T0 + 2.0)), Status::State);
    expect_err(s.stop(Some(T0 + 2.0)), Status::State);
    assert_eq!(run_state(&s), before);
}

#[test]
fn not_found_errors() {
    let s = Session::open(None).unwrap();
    let mut out = ptr::null_mut();
    assert_eq!(unsafe { sys::runway_poll(s.as_raw(), 987_654, &mut out) }, sys::RUNWAY_ERR_NOT_FOUND);
    assert!(out.is_null());
    assert_eq!(unsafe { sys::runway_unsubscribe(s.as_raw(), 987_654) }, sys::RUNWAY_ERR_NOT_FOUND);
    let msg = unsafe { std::ffi::CStr::from_ptr(sys::runway_last_error()) }.to_string_lossy().into_owned();
    assert!(!msg.is_empty());
}

#[test]
fn the_message_is_this_threads_own() {
    let s = Session::open(None).unwrap();
    let here = s.push_json("not json").unwrap_err();
    // A different failure on another thread does not touch this thread's message.
    let there = std::thread::scope(|scope| scope.spawn(|| s.pause(None).unwrap_err()).join().unwrap());
    assert_eq!(there.status, Status::State);
    let now = unsafe { std::ffi::CStr::from_ptr(sys::runway_last_error()) }.to_string_lossy().into_owned();
    assert_eq!(now, here.message);
}

#[test]
fn statuses_round_trip_and_have_descriptions() {
    let all = [
        Status::Argument,
        Status::Json,
        Status::Input,
        Status::State,
        Status::NotFound,
        Status::Store,
        Status::Internal,
        Status::Limit,
    ];
    for (i, st) in all.iter().enumerate() {
        assert_eq!(st.code(), i as i32 + 1);
        assert_eq!(Status::from_code(st.code()), Some(*st));
        assert!(!st.description().is_empty());
    }
    assert_eq!(Status::from_code(sys::RUNWAY_OK), None);
    assert_eq!(Status::from_code(99), Some(Status::Internal));
    let descriptions: std::collections::HashSet<_> = all.iter().map(|s| s.description()).collect();
    assert_eq!(descriptions.len(), all.len(), "descriptions are not distinct");
}

#[test]
fn limit_errors_change_nothing() {
    let s = cruising();
    let max = sys::RUNWAY_MAX_INPUT_BYTES;
    let padded = |t: f64, i: usize, size: usize| {
        let head = format!("{},\"pad\":\"", fix_json(t, i).trim_end_matches('}'));
        format!("{head}{}\"}}", "x".repeat(size - head.len() - 2))
    };
    s.push_json(&padded(T0 + 10.0, 2, max)).expect("exactly RUNWAY_MAX_INPUT_BYTES");
    let before = run_state(&s);
    let e = expect_err(s.push_json(&padded(T0 + 15.0, 3, max + 1)), Status::Limit);
    assert!(e.message.contains("RUNWAY_MAX_INPUT_BYTES"), "{e}");
    let deep = format!(
        "{},\"x\":{}{}}}",
        fix_json(T0 + 15.0, 3).trim_end_matches('}'),
        "[".repeat(64),
        "]".repeat(64)
    );
    let e = expect_err(s.push_json(&deep), Status::Limit);
    assert!(e.message.contains("RUNWAY_MAX_JSON_DEPTH"), "{e}");
    expect_err(s.poll_subscription(Some(r#"{"capacity":65537}"#)), Status::Limit);
    assert_eq!(run_state(&s), before);

    expect_err(Session::open(Some(r#"{"max_route_points":1000001}"#)), Status::Limit);
    let full =
        Session::open(Some(r#"{"filters":"off","distance_filter_m":5,"max_route_points":2}"#)).unwrap();
    full.start(Some(T0)).unwrap();
    full.push_json(&fix_json(T0, 0)).unwrap();
    full.push_json(&fix_json(T0 + 5.0, 1)).unwrap();
    let before = run_state(&full);
    let e = expect_err(full.push_json(&fix_json(T0 + 10.0, 2)), Status::Limit);
    assert!(e.message.contains("route is full"), "{e}");
    assert_eq!(run_state(&full), before);
    full.stop(None).unwrap();

    // 10 m auto laps and fixes 1 km apart (10 m/s): 100 laps a fix, until RUNWAY_MAX_LAPS - 1.
    let laps = Session::open(Some(r#"{"filters":"off","auto_lap_m":10}"#)).unwrap();
    laps.start(Some(T0)).unwrap();
    for i in 0..=sys::RUNWAY_MAX_LAPS / 100 + 5 {
        let fix = format!(r#"{{"t":{},"lat":{},"lon":4}}"#, T0 + i as f64 * 100.0, 52.0 + i as f64 * 0.009);
        laps.push_json(&fix).unwrap();
    }
    let before = run_state(&laps);
    let e = expect_err(laps.lap(None), Status::Limit);
    assert!(e.message.contains("RUNWAY_MAX_LAPS"), "{e}");
    assert_eq!(run_state(&laps), before);
    laps.stop(None).unwrap();
    assert_eq!(laps.summary_json().unwrap().matches(r#""trigger":"#).count(), sys::RUNWAY_MAX_LAPS);
}
