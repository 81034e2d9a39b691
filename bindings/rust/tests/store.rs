//! The flight store: a stored run is listed, read, exported and deleted; an unfinished flight
//! (its session dropped without stop, as when the host dies) is recovered with the same
//! figures and goes on; unreadable stores, unknown ids and finished flights are refused.

mod common;

use std::path::Path;

use common::*;
use runway::{store, Session, Status};

const FORMATS: [&str; 5] = ["gpx", "tcx", "fit", "geojson", "csv"];

/// Fixes `from..to` of the walk north, 4 s apart from T0, with heart rate.
fn push_steps(s: &Session, from: usize, to: usize) {
    for i in from..to {
        let t = T0 + 4.0 * i as f64;
        s.push_json(&format!(
            r#"{{"t":{t},"lat":{:.7},"lon":{LON0},"alt":12.5,"speed":2.8,"hr":150}}"#,
            lat_at(i)
        ))
        .unwrap_or_else(|e| panic!("fix {i}: {e}"));
    }
}

/// A session on `store` with the given extra config members (`"k":v,...` or "").
fn stored(store: &Path, extra: &str) -> Session {
    let sep = if extra.is_empty() { "" } else { "," };
    Session::open(Some(&format!(r#"{{"store":{:?}{sep}{extra}}}"#, store.to_str().unwrap()))).unwrap()
}

/// The same inputs without a store: what a stored flight must show.
fn reference(steps: usize, stop: bool) -> String {
    let s = Session::open(None).unwrap();
    s.start(Some(T0)).unwrap();
    push_steps(&s, 0, steps);
    if stop {
        s.stop(None).unwrap();
    }
    s.summary_json().unwrap()
}

fn ids(store: &Path) -> Vec<String> {
    array_items(&store::flights_json(store).unwrap()).iter().map(|f| text(f, "flight_id")).collect()
}

#[test]
fn a_session_without_a_store_has_no_flight_id() {
    let s = Session::open(None).unwrap();
    assert_eq!(s.flight_id().unwrap(), None);
    assert_eq!(runway::json::raw_field(&s.summary_json().unwrap(), "flight_id"), None);
}

#[test]
fn a_stored_run_is_listed_finished_with_its_distance() {
    let dir = TempDir::new("listed");
    let db = dir.join("runs.db");
    let s = stored(&db, "");
    let id = s.flight_id().unwrap().expect("a stored session has a flight id");
    s.start(Some(T0)).unwrap();
    push_steps(&s, 0, 20);
    s.stop(None).unwrap();
    let summary = s.summary_json().unwrap();
    drop(s);
    assert_eq!(text(&summary, "flight_id"), id);
    assert!(num(&summary, "distance_m") > 150.0, "{summary:.300}");

    let listing = store::flights_json(&db).unwrap();
    let flights = array_items(&listing);
    assert_eq!(flights.len(), 1, "{listing}");
    let f = &flights[0];
    assert_eq!(text(f, "flight_id"), id);
    assert!(flag(f, "finished"));
    assert_eq!(num(f, "distance_m"), num(&summary, "distance_m"));
    assert_eq!(num(f, "elapsed_s"), num(&summary, "elapsed_s"));
    assert_eq!(num(f, "start_t"), T0);
    assert_eq!(num(f, "end_t"), T0 + 4.0 * 19.0);
    assert_eq!(text(f, "activity"), "run");
    // The journal reproduces the run exactly: the same figures as without a store.
    assert_eq!(num(&summary, "distance_m"), num(&reference(20, true), "distance_m"));
}

#[test]
fn flight_returns_the_summary_with_the_route() {
    let dir = TempDir::new("flight");
    let db = dir.join("runs.db");
    let s = stored(&db, r#""flight_id":"morning-run""#);
    assert_eq!(s.flight_id().unwrap().as_deref(), Some("morning-run"));
    s.start(Some(T0)).unwrap();
    push_steps(&s, 0, 12);
    s.lap(Some(T0 + 44.0)).unwrap();
    push_steps(&s, 12, 20);
    s.stop(None).unwrap();
    let summary = s.summary_json().unwrap();
    drop(s);

    let f = store::flight_json(&db, "morning-run").unwrap();
    assert_eq!(text(&f, "flight_id"), "morning-run");
    assert_eq!(text(&f, "phase"), "touchdown");
    assert_eq!(num(&f, "distance_m"), num(&summary, "distance_m"));
    assert_eq!(runway::json::raw_field(&f, "route"), runway::json::raw_field(&summary, "route"));
    assert_eq!(route_len(&f), 20);
    let laps = array_items(runway::json::raw_field(&f, "laps").unwrap());
    assert_eq!(laps.len(), array_len(runway::json::raw_field(&summary, "laps").unwrap()));
    assert_eq!(text(&laps[0], "trigger"), "manual");
}

#[test]
fn export_flight_gives_the_bytes_the_session_exported() {
    let dir = TempDir::new("export");
    let db = dir.join("runs.db");
    let s = stored(&db, "");
    s.start(Some(T0)).unwrap();
    push_steps(&s, 0, 20);
    s.stop(None).unwrap();
    let id = s.flight_id().unwrap().unwrap();
    let live: Vec<Vec<u8>> = FORMATS.iter().map(|f| s.export(f).unwrap()).collect();
    drop(s);
    for (fmt, bytes) in FORMATS.iter().zip(&live) {
        assert_eq!(&store::export_flight(&db, &id, fmt).unwrap(), bytes, "{fmt}");
    }
    assert_eq!(store::export_flight(&db, &id, "kml").unwrap_err().status, Status::Argument);
    assert_eq!(store::export_flight(&db, "no-such-flight", "gpx").unwrap_err().status, Status::NotFound);
}

#[test]
fn delete_removes_the_flight_and_only_it() {
    let dir = TempDir::new("delete");
    let db = dir.join("runs.db");
    for name in ["first", "second"] {
        let s = stored(&db, &format!(r#""flight_id":"{name}""#));
        s.start(Some(T0)).unwrap();
        push_steps(&s, 0, 5);
        s.stop(None).unwrap();
    }
    assert_eq!(ids(&db), ["first", "second"]);
    store::delete_flight(&db, "first").unwrap();
    assert_eq!(ids(&db), ["second"]);
    assert_eq!(store::flight_json(&db, "first").unwrap_err().status, Status::NotFound);
    assert_eq!(store::delete_flight(&db, "first").unwrap_err().status, Status::NotFound);
    assert_eq!(route_len(&store::flight_json(&db, "second").unwrap()), 5);
}

#[test]
fn an_id_already_in_the_store_or_a_bad_id_is_refused() {
    let dir = TempDir::new("ids");
    let db = dir.join("runs.db");
    drop(stored(&db, r#""flight_id":"twice""#));
    let err = Session::open(Some(&format!(r#"{{"store":{:?},"flight_id":"twice"}}"#, db.to_str().unwrap())))
        .unwrap_err();
    assert_eq!(err.status, Status::State, "{err}");
    assert!(err.message.contains("twice"), "{err}");
    for bad in ["", "two words"] {
        let err =
            Session::open(Some(&format!(r#"{{"store":{:?},"flight_id":{bad:?}}}"#, db.to_str().unwrap())))
                .unwrap_err();
        assert_eq!(err.status, Status::Argument, "{bad:?}: {err}");
    }
}

#[test]
fn a_flight_dropped_without_stop_is_unfinished_and_recovers_where_it_was() {
    let dir = TempDir::new("recover");
    let db = dir.join("runs.db");
    let s = stored(&db, "");
    let id = s.flight_id().unwrap().unwrap();
    s.start(Some(T0)).unwrap();
    push_steps(&s, 0, 12);
    let before = s.summary_json().unwrap();
    drop(s); // the host "dies": no stop

    let listing = store::flights_json(&db).unwrap();
    let f = &array_items(&listing)[0];
    assert_eq!(text(f, "flight_id"), id);
    assert!(!flag(f, "finished"));
    assert!(is_null(f, "end_reason"), "{f}");
    assert_eq!(num(f, "distance_m"), num(&before, "distance_m"));

    let r = store::recover(&db, &id, None).unwrap();
    assert_eq!(r.flight_id().unwrap().as_deref(), Some(id.as_str()));
    let again = r.summary_json().unwrap();
    assert_eq!(text(&again, "phase"), "cruise");
    assert_eq!(num(&again, "distance_m"), num(&before, "distance_m"));
    assert_eq!(num(&again, "elapsed_s"), num(&before, "elapsed_s"));
    assert_eq!(runway::json::raw_field(&again, "route"), runway::json::raw_field(&before, "route"));
    // It goes on: more inputs, journaled to the same flight, whose time may not go back.
    push_steps(&r, 12, 20);
    assert_eq!(r.push_json(&fix_json(T0, 3)).unwrap_err().status, Status::Input);
    r.stop(None).unwrap();
    let done = r.summary_json().unwrap();
    drop(r);

    let expected = reference(20, true);
    assert!(num(&done, "distance_m") > num(&before, "distance_m"));
    assert_eq!(num(&done, "distance_m"), num(&expected, "distance_m"));
    assert_eq!(num(&done, "elapsed_s"), num(&expected, "elapsed_s"));
    let f = &array_items(&store::flights_json(&db).unwrap())[0];
    assert!(flag(f, "finished"));
    assert_eq!(num(f, "distance_m"), num(&expected, "distance_m"));
    assert_eq!(store::recover(&db, &id, None).unwrap_err().status, Status::State);
}

#[test]
fn a_recovered_flight_keeps_its_phase_and_laps() {
    let dir = TempDir::new("held");
    let db = dir.join("runs.db");
    let s = stored(&db, r#""flight_id":"held""#);
    s.start(Some(T0)).unwrap();
    push_steps(&s, 0, 8);
    s.lap(Some(T0 + 28.0)).unwrap();
    push_steps(&s, 8, 10);
    s.pause(Some(T0 + 40.0)).unwrap();
    let before = s.summary_json().unwrap();
    drop(s);

    let r = store::recover(&db, "held", None).unwrap();
    let after = r.summary_json().unwrap();
    assert_eq!(text(&after, "phase"), "holding");
    assert_eq!(runway::json::raw_field(&after, "laps"), runway::json::raw_field(&before, "laps"));
    assert_eq!(r.pause(None).unwrap_err().status, Status::State); // already holding
    r.resume(Some(T0 + 50.0)).unwrap();
    r.stop(Some(T0 + 60.0)).unwrap();
    drop(r);
    assert_eq!(text(&store::flight_json(&db, "held").unwrap(), "phase"), "touchdown");
}

#[test]
fn finish_flight_lands_an_unfinished_flight_as_recovered() {
    let dir = TempDir::new("finish");
    let db = dir.join("runs.db");
    let s = stored(&db, r#""flight_id":"abandoned","durability":"batched""#);
    s.start(Some(T0)).unwrap();
    push_steps(&s, 0, 10);
    let distance = num(&s.summary_json().unwrap(), "distance_m");
    drop(s);

    store::finish_flight(&db, "abandoned").unwrap();
    let f = &array_items(&store::flights_json(&db).unwrap())[0];
    assert!(flag(f, "finished"));
    assert_eq!(text(f, "end_reason"), "recovered");
    assert_eq!(num(f, "end_t"), T0 + 36.0); // its last journaled time
    assert_eq!(num(f, "distance_m"), distance);
    assert_eq!(store::finish_flight(&db, "abandoned").unwrap_err().status, Status::State);
    assert_eq!(store::recover(&db, "abandoned", None).unwrap_err().status, Status::State);
}

#[test]
fn unknown_flight_ids_are_not_found() {
    let dir = TempDir::new("unknown");
    let db = dir.join("runs.db");
    drop(stored(&db, ""));
    let errors = [
        store::recover(&db, "nope", None).map(drop).unwrap_err(),
        store::finish_flight(&db, "nope").unwrap_err(),
        store::flight_json(&db, "nope").map(drop).unwrap_err(),
        store::delete_flight(&db, "nope").unwrap_err(),
        store::export_flight(&db, "nope", "gpx").map(drop).unwrap_err(),
    ];
    for err in errors {
        assert_eq!(err.status, Status::NotFound, "{err}");
        assert!(err.message.contains("nope"), "{err}");
    }
}

/// Every store call on `path` fails with Status::Store and a message.
fn all_refused_as_store_errors(path: &Path) {
    let config = format!(r#"{{"store":{:?}}}"#, path.to_str().unwrap());
    let errors = [
        ("open", Session::open(Some(&config)).map(drop).unwrap_err()),
        ("recover", store::recover(path, "x", None).map(drop).unwrap_err()),
        ("finish", store::finish_flight(path, "x").unwrap_err()),
        ("flights", store::flights_json(path).map(drop).unwrap_err()),
        ("flight", store::flight_json(path, "x").map(drop).unwrap_err()),
        ("delete", store::delete_flight(path, "x").unwrap_err()),
        ("export", store::export_flight(path, "x", "gpx").map(drop).unwrap_err()),
    ];
    for (call, err) in errors {
        assert_eq!(err.status, Status::Store, "{call}: {err}");
        assert!(!err.message.is_empty(), "{call}");
    }
}

#[test]
fn a_directory_is_not_a_store() {
    let dir = TempDir::new("dir");
    let folder = dir.join("a-folder.db");
    std::fs::create_dir(&folder).unwrap();
    all_refused_as_store_errors(&folder);
    assert!(folder.is_dir());
}

#[test]
fn a_file_of_random_bytes_is_not_a_store_and_is_left_alone() {
    let dir = TempDir::new("noise");
    let path = dir.join("noise.db");
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let noise: Vec<u8> = (0..8192)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(&path, &noise).unwrap();
    all_refused_as_store_errors(&path);
    assert_eq!(std::fs::read(&path).unwrap(), noise);
}

#[test]
fn a_nul_byte_in_a_path_or_id_is_an_argument_error() {
    let dir = TempDir::new("nul");
    let db = dir.join("runs.db");
    assert_eq!(store::flights_json("runs\0.db").unwrap_err().status, Status::Argument);
    assert_eq!(store::flight_json(&db, "a\0b").unwrap_err().status, Status::Argument);
    assert_eq!(store::export_flight(&db, "a", "gpx\0").unwrap_err().status, Status::Argument);
}

#[test]
fn the_documented_statuses_of_the_store_functions() {
    let dir = TempDir::new("documented");
    // No store file: NotFound, "no store at ...", for the listing too.
    let missing = dir.join("missing.db");
    for err in [
        store::flights(&missing).map(drop).unwrap_err(),
        store::flights_json(&missing).map(drop).unwrap_err(),
    ] {
        assert_eq!(err.status, Status::NotFound, "{err}");
        assert!(err.message.contains("no store at"), "{err}");
    }
    // A flight an open session is writing: State, not only for a finished one.
    let db = dir.join("runs.db");
    let s = stored(&db, r#""flight_id":"held""#);
    s.start(Some(T0)).unwrap();
    push_steps(&s, 0, 3);
    for err in [
        store::recover(&db, "held", None).map(drop).unwrap_err(),
        store::finish_flight(&db, "held").unwrap_err(),
        store::delete_flight(&db, "held").unwrap_err(),
    ] {
        assert_eq!(err.status, Status::State, "{err}");
    }
    drop(s);
    // A recover config names neither store nor flight; its durability applies.
    for config in [r#"{"store":"/tmp/other.db"}"#, r#"{"flight_id":"zzz"}"#] {
        let err = store::recover(&db, "held", Some(config)).map(drop).unwrap_err();
        assert_eq!(err.status, Status::Argument, "{config}: {err}");
    }
    let r = store::recover(&db, "held", Some(r#"{"durability":"batched"}"#)).unwrap();
    drop(r);
    let listing: Vec<runway::Flight> = store::flights(&db).unwrap();
    assert_eq!(listing.len(), 1);
}
