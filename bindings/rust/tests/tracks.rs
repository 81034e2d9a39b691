//! Real recorded tracks from `<repo>/../shared/tracks` (skipped when that folder is absent).

mod common;

use std::fs;
use std::path::Path;

use common::*;
use runway::{Session, Status};

/// The reference line of a recording (`reference.jsonl`).
fn reference(dir: &Path, file: &str) -> String {
    let text = fs::read_to_string(dir.join("reference.jsonl")).unwrap();
    text.lines()
        .find(|l| runway::json::str_field(l, "file").as_deref() == Some(file))
        .unwrap_or_else(|| panic!("{file} not in reference.jsonl"))
        .to_owned()
}

/// Raw accumulation: every fix kept, distance the WGS84 geodesic sum over them.
const RAW: &str = r#"{"filters":"off"}"#;

fn replay(config: Option<&str>, lines: &str) -> (runway::Batch, String) {
    let s = Session::open(config).unwrap();
    s.start(None).unwrap();
    let batch = s.push_jsonl(lines);
    s.stop(None).unwrap();
    (batch, s.summary_json().unwrap())
}

#[test]
fn a_recorded_run_replays_to_the_geodesic_distance() {
    let Some(dir) = tracks_dir() else {
        eprintln!("skipped: no shared/tracks folder");
        return;
    };
    let name = "fitparse__activity-small-fenix2-run.fit";
    let lines = fs::read_to_string(dir.join("fixes").join(format!("{name}.jsonl"))).unwrap();
    let n = lines.lines().filter(|l| !l.trim().is_empty()).count();
    let reference = reference(&dir, name);
    let geodesic = runway::json::raw_field(&reference, "geodesic_wgs84").unwrap();
    let want = num(geodesic, "distance_2d_fixes_m");
    let first_t = num(lines.lines().next().unwrap(), "t");
    let last_t = num(lines.lines().last().unwrap(), "t");

    let (batch, sum) = replay(Some(RAW), &lines);
    assert_eq!((batch.accepted, batch.rejected), (n, 0), "{:?}", batch.first_error);
    let got = num(&sum, "distance_m");
    assert!((got - want).abs() <= 1e-4 * want, "distance_m {got}, GeographicLib {want}");
    assert_eq!(num(&sum, "points") as usize, n);
    assert_eq!(array_len(runway::json::raw_field(&sum, "route").unwrap()), n);
    assert_eq!(num(&sum, "start_t"), first_t);
    assert_eq!(num(&sum, "end_t"), last_t);
    assert_eq!(num(&sum, "elapsed_s"), last_t - first_t);

    let (_, again) = replay(Some(RAW), &lines);
    assert_eq!(sum, again, "a replay is not deterministic");
}

#[test]
fn a_track_with_time_going_backwards_is_rejected_line_by_line() {
    let Some(dir) = tracks_dir() else {
        eprintln!("skipped: no shared/tracks folder");
        return;
    };
    let lines = fs::read_to_string(dir.join("fixes/gpxpy__Mojstrovka.gpx.jsonl")).unwrap();
    let n = lines.lines().filter(|l| !l.trim().is_empty()).count();
    let (batch, sum) = replay(None, &lines);
    assert_eq!(batch.accepted + batch.rejected, n);
    assert!(batch.rejected >= 1, "the backwards step was accepted");
    assert_eq!(batch.first_error.as_ref().map(|e| e.status), Some(Status::Input), "{:?}", batch.first_error);
    assert_eq!(num(&sum, "fixes") as usize, batch.accepted);
}

#[test]
fn a_ride_pushed_as_a_run_is_reported_as_a_profile_mismatch_in_the_typed_summary() {
    let Some(dir) = tracks_dir() else {
        eprintln!("skipped: no shared/tracks folder");
        return;
    };
    let name = "fitparse__2015-10-13-08-43-15.fit";
    let lines = fs::read_to_string(dir.join("fixes").join(format!("{name}.jsonl"))).unwrap();
    let (_, as_run) = replay(None, &lines);
    let summary = runway::Summary::from_json(&as_run).unwrap();
    let mismatch = summary.profile_mismatch.expect("a ride pushed as a run is a profile mismatch");
    assert_eq!(mismatch.suggested, "ride");
    // The refused fixes that agreed with each other at a ride's speed: some of those refused.
    assert!(mismatch.refused > 0 && mismatch.refused <= summary.filtered.speed, "{as_run}");
    assert!(summary.doppler_check.is_none(), "the ride's Doppler agrees with its positions");

    let (_, as_ride) = replay(Some(r#"{"activity":"ride"}"#), &lines);
    let summary = runway::Summary::from_json(&as_ride).unwrap();
    assert!(summary.profile_mismatch.is_none() && summary.doppler_check.is_none(), "{as_ride}");
}

#[test]
fn a_doppler_check_in_the_summary_is_typed() {
    // The cross-country ski TCX's speed field reads 6 % short of its positions: the distance
    // is measured from the positions, and the summary says so.
    let Some(dir) = tracks_dir() else {
        eprintln!("skipped: no shared/tracks folder");
        return;
    };
    let name = "tcxreader__cross-country-skiing_activity_1.tcx";
    let lines = fs::read_to_string(dir.join("fixes").join(format!("{name}.jsonl"))).unwrap();
    let (_, sum) = replay(None, &lines);
    let summary = runway::Summary::from_json(&sum).unwrap();
    let check = summary.doppler_check.expect("the ski's Doppler disagrees with its positions");
    assert_eq!(check.preferred, "positions");
    assert!(check.doppler_m < 0.97 * check.positions_m, "{check:?}");
    assert!(check.at_t >= summary.start_t.unwrap() && check.at_t <= summary.end_t.unwrap());
}
