//! Sessions: a whole run, replay, batches, the struct fast path, phases and time.

mod common;

use common::*;
use runway::{Fix, Session, Status};

/// Pushes fixes `from..=to` of the walk north, one per second starting at `t`.
fn walk(session: &Session, t: f64, from: usize, to: usize) {
    for (k, i) in (from..=to).enumerate() {
        session.push_json(&fix_json(t + k as f64, i)).unwrap_or_else(|e| panic!("fix {i}: {e}"));
    }
}

#[test]
fn a_whole_run_counts_cruise_distance_only() {
    // Raw accumulation (filters off): distance is the WGS84 geodesic sum between kept fixes, so
    // it can be checked against the meridian arc. The 5 m distance filter (off by default in raw
    // mode) keeps the repeated position at start and resume off the route.
    let s = Session::open(Some(r#"{"filters":"off","distance_filter_m":5}"#)).unwrap();
    assert_eq!(text(&s.snapshot_json().unwrap(), "phase"), "preflight");

    // Before start: walking 111 m to the start line moves the live position, adds no distance.
    s.push_fix(&Fix::new(T0 - 10.0, lat_at(0) - 0.001, LON0)).unwrap();
    s.push_json(&fix_json(T0 - 5.0, 0)).unwrap();
    let pre = s.snapshot_json().unwrap();
    assert_eq!(num(&pre, "distance_m"), 0.0, "{pre}");
    assert_eq!(num(&pre, "lat"), lat_at(0));

    // Cruise: 0..=12 at 1 Hz.
    s.start(Some(T0)).unwrap();
    walk(&s, T0, 0, 12);
    let cruising = s.snapshot_json().unwrap();
    assert_eq!(text(&cruising, "phase"), "cruise");
    let leg1 = meridian_arc_m(lat_at(0), lat_at(12));
    assert!(
        (num(&cruising, "distance_m") - leg1).abs() < 1e-6 * leg1,
        "distance {} want {leg1}",
        num(&cruising, "distance_m")
    );
    assert_eq!(num(&cruising, "elapsed_s"), 12.0);

    // Holding: moving on adds no distance and no time.
    s.pause(Some(T0 + 12.0)).unwrap();
    walk(&s, T0 + 13.0, 13, 18);
    let held = s.snapshot_json().unwrap();
    assert_eq!(text(&held, "phase"), "holding");
    assert_eq!(num(&held, "distance_m"), num(&cruising, "distance_m"), "distance grew while holding");
    assert_eq!(num(&held, "elapsed_s"), 12.0);
    assert_eq!(num(&held, "lat"), lat_at(18), "the live position follows while holding");

    // Resume at T0+30 where the held walk ended; 18..=24.
    s.resume(Some(T0 + 30.0)).unwrap();
    walk(&s, T0 + 30.0, 18, 24);
    s.stop(Some(T0 + 40.0)).unwrap();

    let end = s.snapshot_json().unwrap();
    assert_eq!(text(&end, "phase"), "touchdown");

    let sum = s.summary_json().unwrap();
    let want = leg1 + meridian_arc_m(lat_at(18), lat_at(24));
    assert_eq!(text(&sum, "kind"), "summary");
    assert_eq!(text(&sum, "phase"), "touchdown");
    assert_eq!(text(&sum, "end_reason"), "stopped");
    assert_eq!(num(&sum, "start_t"), T0);
    assert_eq!(num(&sum, "end_t"), T0 + 40.0);
    assert_eq!(num(&sum, "elapsed_s"), 12.0 + 10.0, "40 s less 18 s held");
    let got = num(&sum, "distance_m");
    assert!(got > 0.0);
    assert!((got - want).abs() < 1e-6 * want, "distance_m {got}, want WGS84 {want}");
    assert!((num(&sum, "avg_pace_min_per_km") - (22.0 / 60.0) / (want / 1000.0)).abs() < 1e-3);
    // The fixes say 2.5 m/s while their positions move 11.1 m a second: raw accumulation counts
    // the positions, and the max is never below the average moving speed (docs/accuracy.md), so
    // it is the legs' average (both legs move at the same pace), above every fix's speed.
    let moving = num(&sum, "moving_s");
    assert_eq!(moving, 12.0 + 6.0, "fixes 0..=12 and 18..=24 at 1 Hz");
    let max = num(&sum, "max_speed_mps");
    let average = want / moving;
    assert!(max > 2.5 && (max - average).abs() < 1e-6 * max, "max_speed_mps {max}, average moving {average}");

    // The route: cruise fixes only (13 + 7), each [lat, lon, alt|null, t].
    let route = runway::json::raw_field(&sum, "route").expect("route");
    let points = array_items(route);
    assert_eq!(points.len(), 20, "route {route:.300}");
    assert_eq!(num(&sum, "points"), 20.0);
    let first = array_items(&points[0]);
    assert_eq!(first.len(), 4);
    assert!((first[0].parse::<f64>().unwrap() - lat_at(0)).abs() < 2e-7);
    assert!((first[1].parse::<f64>().unwrap() - LON0).abs() < 2e-7);
    assert_eq!(first[2].parse::<f64>().unwrap(), 12.5);
    assert_eq!(first[3].parse::<f64>().unwrap(), T0);
    let last = array_items(&points[19]);
    assert!((last[0].parse::<f64>().unwrap() - lat_at(24)).abs() < 2e-7);
    assert_eq!(last[3].parse::<f64>().unwrap(), T0 + 36.0);
}

/// Runs a fixed script and returns the summary and every event a queue subscriber saw.
fn scripted_run() -> (String, Vec<String>) {
    let s = Session::open(Some(r#"{"distance_filter_m":3,"pace_window_s":5}"#)).unwrap();
    let sub = s.poll_subscription(Some(r#"{"policy":"queue","capacity":65536}"#)).unwrap();
    s.start(Some(T0)).unwrap();
    for i in 0..40usize {
        let t = T0 + i as f64;
        // A wiggly path with every field set, including samples and an unknown speed.
        let fix = Fix::new(t, lat_at(i) + (i % 3) as f64 * 1e-5, LON0 + (i % 5) as f64 * 2e-5)
            .with_alt(10.0 + (i % 7) as f64)
            .with_speed(if i % 4 == 0 { -1.0 } else { 2.0 + (i % 3) as f64 * 0.3 })
            .with_course((i * 37 % 360) as f64)
            .with_h_acc(if i == 17 { 80.0 } else { 4.0 })
            .with_v_acc(6.0);
        s.push_fix(&fix).unwrap();
        if i % 10 == 5 {
            s.push_json(&format!(r#"{{"type":"hr","bpm":{},"t":{t}}}"#, 140 + i)).unwrap();
            s.push_json(&format!(r#"{{"type":"cadence","spm":{},"t":{t}}}"#, 170 + i % 4)).unwrap();
        }
        if i == 20 {
            s.pause(None).unwrap();
        }
        if i == 25 {
            s.resume(None).unwrap();
        }
        s.tick(Some(t + 0.5)).unwrap();
    }
    s.stop(None).unwrap();
    let events = sub.drain().map(|e| e.unwrap().json).collect();
    (s.summary_json().unwrap(), events)
}

#[test]
fn replaying_the_same_inputs_gives_the_same_outputs() {
    let (sum1, events1) = scripted_run();
    let (sum2, events2) = scripted_run();
    assert!(num(&sum1, "distance_m") > 0.0);
    assert!(events1.len() > 40, "only {} events", events1.len());
    assert_eq!(sum1, sum2);
    assert_eq!(events1, events2);
}

#[test]
fn push_fix_and_push_json_are_the_same_input() {
    let a = Session::open(None).unwrap();
    let b = Session::open(None).unwrap();
    for s in [&a, &b] {
        s.start(Some(T0)).unwrap();
    }
    for i in 0..10usize {
        let t = T0 + i as f64;
        a.push_fix(&Fix::new(t, lat_at(i), LON0).with_alt(12.5).with_speed(2.5)).unwrap();
        b.push_json(&fix_json(t, i)).unwrap();
    }
    a.stop(None).unwrap();
    b.stop(None).unwrap();
    assert_eq!(a.summary_json().unwrap(), b.summary_json().unwrap());
    assert_eq!(a.snapshot_json().unwrap(), b.snapshot_json().unwrap());
}

#[test]
fn push_jsonl_counts_every_line_and_reports_the_first_bad_one() {
    let s = Session::open(None).unwrap();
    s.start(Some(T0)).unwrap();
    let lines = format!(
        "{}\nnot json\n{}\r\n\n{}\n{}\n",
        fix_json(T0, 0),
        fix_json(T0 + 1.0, 1),
        fix_json(T0 + 2.0, 2),
        r#"{"t":1700000003,"lat":91,"lon":4}"#,
    );
    let batch = s.push_jsonl(&lines);
    assert_eq!((batch.accepted, batch.rejected), (3, 2), "{batch:?}");
    let err = batch.first_error.clone().expect("an error for line 2");
    assert_eq!(err.status, Status::Json);
    assert!(names_number(&err.message, 2), "the message does not name line 2: {:?}", err.message);
    assert_eq!(batch.into_result().unwrap_err().status, Status::Json);
    assert_eq!(num(&s.snapshot_json().unwrap(), "fixes"), 3.0, "rejected lines changed the run");

    // All good, no final newline; bytes work too.
    let ok = s.push_jsonl(fix_json(T0 + 4.0, 4).as_bytes());
    assert_eq!((ok.accepted, ok.rejected, ok.first_error), (1, 0, None));
    let empty = s.push_jsonl("");
    assert_eq!((empty.accepted, empty.rejected, empty.first_error), (0, 0, None));
    // Invalid UTF-8 is a JSON error, counted.
    let bad = s.push_jsonl(b"{\"t\":1700000005,\"lat\":52,\"lon\":4,\"x\":\"\xff\"}\n".as_slice());
    assert_eq!((bad.accepted, bad.rejected), (0, 1));
    assert_eq!(bad.first_error.unwrap().status, Status::Json);
}

/// Whether `msg` contains `n` as a whole number (not part of a longer one).
fn names_number(msg: &str, n: u64) -> bool {
    msg.split(|c: char| !c.is_ascii_digit()).any(|tok| tok.parse() == Ok(n))
}

#[test]
fn phase_calls_without_a_time_use_the_inputs_time() {
    let s = Session::open(None).unwrap();
    s.start(None).unwrap(); // before any input: the next input's time
    s.push_json(&fix_json(T0, 0)).unwrap();
    s.push_json(&fix_json(T0 + 10.0, 1)).unwrap();
    s.stop(None).unwrap(); // the latest input's time
    let sum = s.summary_json().unwrap();
    assert_eq!(num(&sum, "start_t"), T0);
    assert_eq!(num(&sum, "end_t"), T0 + 10.0);
    assert_eq!(num(&sum, "elapsed_s"), 10.0);
}

#[test]
fn tick_advances_elapsed_time_in_cruise() {
    let s = Session::open(None).unwrap();
    let sub = s.poll_subscription(Some(r#"{"kinds":["tick"],"policy":"queue"}"#)).unwrap();
    s.tick(Some(T0 - 5.0)).unwrap(); // preflight: the clock moves, no tick event
    s.start(Some(T0)).unwrap();
    s.push_json(&fix_json(T0, 0)).unwrap();
    s.tick(Some(T0 + 7.0)).unwrap();
    assert_eq!(num(&s.snapshot_json().unwrap(), "elapsed_s"), 7.0);
    let ticks: Vec<_> = sub.drain().map(Result::unwrap).collect();
    assert_eq!(ticks.len(), 1, "{ticks:?}");
    assert_eq!(ticks[0].kind, "tick");
    assert_eq!(ticks[0].f64_field("elapsed_s"), Some(7.0));
    assert_eq!(ticks[0].f64_field("t"), Some(T0 + 7.0));
}

#[test]
fn the_log_keeps_the_last_lines() {
    let s = Session::open(None).unwrap();
    s.start(Some(T0)).unwrap();
    let log = s.log().unwrap();
    let lines = array_items(&log);
    assert!(!lines.is_empty(), "no log line for the phase change");
    assert!(lines.iter().all(|l| text(l, "kind") == "log"), "{log}");
    for _ in 0..30 {
        assert!(s.push_json("not json").is_err());
    }
    let lines = array_items(&s.log().unwrap());
    assert_eq!(lines.len(), runway::sys::RUNWAY_LOG_LINES);
    let seqs: Vec<f64> = lines.iter().map(|l| num(l, "seq")).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "oldest first: {seqs:?}");
    assert_eq!(text(lines.last().unwrap(), "level"), "error");
}

#[test]
fn one_session_takes_inputs_from_many_threads() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    let s = Session::open(None).unwrap();
    send_sync(&s);
    s.start(Some(T0)).unwrap();
    std::thread::scope(|scope| {
        for k in 0..4usize {
            let s = &s;
            scope.spawn(move || {
                for i in 0..25usize {
                    // Equal times are allowed, so the threads' order does not matter.
                    s.push_fix(&Fix::new(T0, lat_at(k * 25 + i), LON0)).unwrap();
                    s.snapshot_json().unwrap();
                }
            });
        }
    });
    assert_eq!(num(&s.snapshot_json().unwrap(), "fixes"), 100.0);
}

#[test]
fn versions_match_the_header() {
    assert_eq!(runway::version(), runway::sys::RUNWAY_VERSION_STRING);
    assert_eq!(runway::abi_version(), runway::sys::RUNWAY_ABI_VERSION);
}

#[test]
fn the_live_clock_ticks_by_itself_and_takes_fixes_without_time() {
    let s = Session::open(Some(r#"{"clock":"live"}"#)).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let _ticks = s
        .subscribe(Some(r#"{"kinds":["tick"]}"#), move |e| {
            let _ = tx.send(e.f64_field("elapsed_s"));
        })
        .unwrap();
    s.start(None).unwrap();
    s.push_json(r#"{"lat":52.0,"lon":4.0}"#).unwrap();
    s.push_fix(&Fix::new(f64::NAN, 52.0001, 4.0)).unwrap();
    let elapsed = rx.recv_timeout(WAIT).expect("no tick from the live clock");
    assert!(elapsed.is_some_and(|e| e >= 0.0), "{elapsed:?}");
    assert_eq!(num(&s.snapshot_json().unwrap(), "fixes"), 2.0);
}
