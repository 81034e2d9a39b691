//! `Session::export` writes each format as the file it claims to be, and `import_recording`
//! turns GPX, TCX and FIT files into as many fixes as an independent reader found in them (the
//! recordings in ../shared/tracks, when present). The import tests pass trivially, saying so
//! on stderr, while the loaded librunway has no `runway_import`.

mod common;

use common::*;
use runway::{Session, Status};

/// A stopped run with a pause (two route segments), heart rate and cadence.
fn flown() -> Session {
    let s = Session::open(None).unwrap();
    s.start(Some(T0)).unwrap();
    for i in 0..=10 {
        s.push_json(&format!(
            r#"{{"t":{},"lat":{:.7},"lon":{LON0},"alt":10,"speed":2.8,"hr":148,"cadence":172}}"#,
            T0 + 4.0 * i as f64,
            lat_at(i)
        ))
        .unwrap();
    }
    s.pause(Some(T0 + 40.0)).unwrap();
    s.resume(Some(T0 + 60.0)).unwrap();
    for i in 11..=20 {
        s.push_json(&format!(
            r#"{{"t":{},"lat":{:.7},"lon":{LON0},"alt":10,"speed":2.8,"hr":148,"cadence":172}}"#,
            T0 + 60.0 + 4.0 * (i - 10) as f64,
            lat_at(i)
        ))
        .unwrap();
    }
    s.stop(None).unwrap();
    s
}

fn utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).expect("a text export is UTF-8")
}

#[test]
fn every_format_of_a_finished_run_is_the_file_it_claims_to_be() {
    let s = flown();
    let summary = s.summary_json().unwrap();
    let points = route_len(&summary);
    assert_eq!(points, 22); // 21 fixes, and the resume point that starts the second segment
    assert_eq!(num(&summary, "segments"), 2.0);

    let gpx = utf8(s.export("gpx").unwrap());
    assert!(gpx.starts_with("<?xml") && gpx.contains(r#"<gpx version="1.1""#), "{gpx:.300}");
    assert_eq!(count(&gpx, "<trkpt "), points);
    assert_eq!(count(&gpx, "<trkseg>"), 2);
    assert!(gpx.trim_end().ends_with("</gpx>"));

    let tcx = utf8(s.export("tcx").unwrap());
    assert!(tcx.contains("<TrainingCenterDatabase"));
    assert_eq!(count(&tcx, "<Trackpoint>"), points);
    assert!(count(&tcx, "<Lap ") >= 1);
    assert!(tcx.trim_end().ends_with("</TrainingCenterDatabase>"));

    let geojson = utf8(s.export("geojson").unwrap());
    assert_eq!(text(&geojson, "type"), "Feature");
    let geometry = runway::json::raw_field(&geojson, "geometry").unwrap();
    assert_eq!(text(geometry, "type"), "MultiLineString");
    let properties = runway::json::raw_field(&geojson, "properties").unwrap();
    assert_eq!(num(properties, "distance_m"), num(&summary, "distance_m"));

    let csv = utf8(s.export("csv").unwrap());
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[0].starts_with("t,time_iso,lat,lon,"), "{}", rows[0]);
    assert_eq!(rows.len(), 1 + points);

    let fit = s.export("fit").unwrap();
    let (_, data_size) = fit_header(&fit);
    assert!(data_size > 20 * points, "{data_size} bytes of records for {points} points");
    assert!(fit.contains(&0), "binary: the whole buffer came back");
}

#[test]
fn a_flight_still_in_the_air_exports_every_format() {
    let s = Session::open(None).unwrap();
    s.start(Some(T0)).unwrap();
    for i in 0..10 {
        s.push_json(&fix_json(T0 + 4.0 * i as f64, i)).unwrap();
    }
    for fmt in ["gpx", "tcx", "fit", "geojson", "csv"] {
        assert!(!s.export(fmt).unwrap().is_empty(), "{fmt}");
    }
    assert_eq!(count(&utf8(s.export("gpx").unwrap()), "<trkpt "), 10);
    fit_header(&s.export("fit").unwrap());
    assert_eq!(text(&s.snapshot_json().unwrap(), "phase"), "cruise"); // exporting changes nothing
    s.push_json(&fix_json(T0 + 40.0, 10)).unwrap();
}

#[test]
fn a_flight_without_points_still_exports_valid_files() {
    let s = Session::open(None).unwrap();
    assert!(utf8(s.export("gpx").unwrap()).contains("<gpx"));
    assert_eq!(text(&utf8(s.export("geojson").unwrap()), "type"), "Feature");
    assert!(utf8(s.export("csv").unwrap()).starts_with("t,time_iso,lat,lon"));
    fit_header(&s.export("fit").unwrap());
}

#[test]
fn an_unknown_format_is_an_argument_error() {
    let s = Session::open(None).unwrap();
    for fmt in ["kml", "GPX", "", "gpx\0tcx"] {
        let err = s.export(fmt).unwrap_err();
        assert_eq!(err.status, Status::Argument, "{fmt:?}: {err}");
    }
}

// ---- import -------------------------------------------------------------------------------

/// True (after saying why on stderr) when the import tests cannot run.
fn skip_without_import(test: &str) -> bool {
    if runway::import_available() {
        return false;
    }
    // Straight to stderr, not through eprintln! (which the test harness captures): a skip
    // should show in `cargo test` output.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "{test}: SKIPPED: the loaded librunway has no runway_import yet (nm -D finds none)"
    );
    true
}

/// The fixes among JSON Lines inputs (samples carry a "type" other than "fix").
fn fixes(jsonl: &str) -> Vec<&str> {
    jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| runway::json::str_field(l, "type").is_none_or(|t| t == "fix"))
        .collect()
}

#[test]
fn without_runway_import_import_recording_says_so() {
    if runway::import_available() {
        return; // the library has it: the other import tests cover it
    }
    let err = runway::import_recording(b"<gpx/>", "gpx").unwrap_err();
    assert_eq!(err.status, Status::Internal);
    assert!(err.message.contains("runway_import"), "{err}");
}

#[test]
fn import_finds_the_fixes_an_independent_reader_found() {
    if skip_without_import("import_finds_the_fixes_an_independent_reader_found") {
        return;
    }
    let Some(tracks) = tracks_dir() else {
        eprintln!("skipped: no ../shared/tracks");
        return;
    };
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&tracks).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(ext) = ["gpx", "tcx", "fit"].into_iter().find(|e| name.ends_with(&format!(".{e}"))) else {
            continue;
        };
        let Ok(expected) = std::fs::read_to_string(tracks.join("fixes").join(format!("{name}.jsonl"))) else {
            continue;
        };
        let expected: Vec<&str> = expected.lines().filter(|l| !l.trim().is_empty()).collect();
        let jsonl = runway::import_recording(&std::fs::read(&path).unwrap(), ext)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = fixes(&jsonl);
        assert_eq!(got.len(), expected.len(), "{name}");
        for (a, b) in got.iter().zip(&expected) {
            for key in ["lat", "lon"] {
                assert!((num(a, key) - num(b, key)).abs() <= 1e-6, "{name}: {key} of {a} vs {b}");
            }
            assert!((num(a, "t") - num(b, "t")).abs() <= 1e-3, "{name}: t of {a} vs {b}");
        }
        checked += 1;
    }
    assert!(checked > 0, "no recordings with fixes in {}", tracks.display());
}

#[test]
fn an_export_imports_back_to_its_route() {
    if skip_without_import("an_export_imports_back_to_its_route") {
        return;
    }
    let s = flown();
    let summary = s.summary_json().unwrap();
    let route = array_items(runway::json::raw_field(&summary, "route").unwrap());
    for fmt in ["gpx", "tcx", "fit"] {
        let jsonl = runway::import_recording(&s.export(fmt).unwrap(), fmt).unwrap();
        let got = fixes(&jsonl);
        assert_eq!(got.len(), route.len(), "{fmt}");
        for (f, point) in got.iter().zip(&route) {
            let p: Vec<f64> = point
                .trim_matches(['[', ']'])
                .split(',')
                .map(|v| v.trim().parse().unwrap_or(f64::NAN))
                .collect();
            assert!((num(f, "lat") - p[0]).abs() <= 1e-6, "{fmt}: {f} vs {point}");
            assert!((num(f, "lon") - p[1]).abs() <= 1e-6, "{fmt}: {f} vs {point}");
            assert!((num(f, "t") - p[3]).abs() <= 1e-3, "{fmt}: {f} vs {point}");
        }
        // The lines are inputs: a new session takes every one.
        let again = Session::open(None).unwrap();
        again.start(Some(num(got[0], "t"))).unwrap();
        let batch = again.push_jsonl(&jsonl);
        assert_eq!(batch.rejected, 0, "{fmt}: {:?}", batch.first_error);
        assert_eq!(batch.accepted, jsonl.lines().filter(|l| !l.trim().is_empty()).count());
    }
}

#[test]
fn import_refuses_what_it_cannot_read() {
    if skip_without_import("import_refuses_what_it_cannot_read") {
        return;
    }
    let gpx = flown().export("gpx").unwrap();
    assert_eq!(runway::import_recording(&gpx, "kml").unwrap_err().status, Status::Argument);
    for (data, fmt) in
        [(&b"not xml at all"[..], "gpx"), (b"<kml/>", "gpx"), (b"\x0e\x10garbage", "fit"), (b"", "tcx")]
    {
        let err = runway::import_recording(data, fmt).unwrap_err();
        assert_eq!(err.status, Status::Input, "{fmt} {data:?}: {err}"); // runway.h: not a valid recording
    }
}

// ---- analyse ------------------------------------------------------------------------------

#[test]
fn analyse_gives_the_summary_of_import_and_a_session() {
    if skip_without_import("analyse_gives_the_summary_of_import_and_a_session") {
        return;
    }
    let Some(tracks) = tracks_dir() else {
        eprintln!("skipped: no ../shared/tracks");
        return;
    };
    let mut checked = 0;
    for name in ["gpxpy__cerknicko-jezero.gpx", "togeojson__tour_hr.tcx", "fitparse__garmin-fenix-5-walk.fit"]
    {
        let data = std::fs::read(tracks.join(name)).unwrap();
        let ext = name.rsplit('.').next().unwrap();
        let jsonl = runway::import_recording(&data, ext).unwrap();
        let report = jsonl.lines().last().unwrap();
        // What the file says, as runway_analyse takes it: the profile, the altitude source, its laps.
        let config = runway::replay_config(report, None).unwrap();
        let s = Session::open(config.as_deref()).unwrap();
        start_replay(&s, &jsonl);
        let pushed = s.push_jsonl(&jsonl);
        s.stop(None).unwrap();
        let a = runway::analyse(&data, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(a.summary, s.summary_json().unwrap(), "{name}");
        assert_eq!(a.parsed_summary().unwrap(), s.summary().unwrap(), "{name}");
        assert_eq!(a.report, report, "{name}");
        assert_eq!(a.inputs, jsonl.lines().count() - 1, "{name}");
        assert_eq!(a.accepted + a.rejected, a.inputs, "{name}");
        assert_eq!(a.rejected, pushed.rejected, "{name}");
        checked += 1;
    }
    assert_eq!(checked, 3);
}

#[test]
fn analyse_refuses_bad_options_and_files() {
    if skip_without_import("analyse_refuses_bad_options_and_files") || runway::sys::runway_analyse().is_none()
    {
        return;
    }
    assert_eq!(runway::analyse(b"<gpx/>", Some(r#"{"format":"kml"}"#)).unwrap_err().status, Status::Argument);
    assert_eq!(runway::analyse(b"hello", None).unwrap_err().status, Status::Input);
    let untimed = br#"<gpx><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></gpx>"#;
    let err = runway::analyse(untimed, None).unwrap_err();
    assert_eq!((err.status, err.message.as_str()), (Status::Input, "no timed points"));
}

#[test]
fn analyse_route_gives_the_json_routes_points_as_numbers() {
    if skip_without_import("analyse_route_gives_the_json_routes_points_as_numbers")
        || runway::sys::runway_analyse_route().is_none()
    {
        return;
    }
    let Some(tracks) = tracks_dir() else {
        eprintln!("skipped: no ../shared/tracks");
        return;
    };
    for name in ["gpxpy__cerknicko-jezero.gpx", "togeojson__tour_hr.tcx", "fitparse__garmin-fenix-5-walk.fit"]
    {
        let data = std::fs::read(tracks.join(name)).unwrap();
        let a = runway::analyse(&data, None).unwrap();
        let (b, route) = runway::analyse_route(&data, None).unwrap();
        let want = runway::Summary::from_json(&a.summary).unwrap();
        let got = runway::Summary::from_json(&b.summary).unwrap();
        assert!(!want.route.is_empty(), "{name}");
        assert!(runway::json::raw_field(&b.summary, "route").is_none(), "{name}: a JSON route too");
        assert_eq!(route, want.route, "{name}");
        assert_eq!(got.route_simplified, want.route_simplified, "{name}");
        assert_eq!((b.inputs, b.accepted, &b.report), (a.inputs, a.accepted, &a.report), "{name}");
    }
    let (a, route) = runway::analyse_route(
        &std::fs::read(tracks.join("gpxpy__cerknicko-jezero.gpx")).unwrap(),
        Some(r#"{"route":false}"#),
    )
    .unwrap();
    assert!(route.is_empty() && runway::json::raw_field(&a.summary, "segment_starts").is_none());
    let untimed = br#"<gpx><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></gpx>"#;
    let err = runway::analyse_route(untimed, None).unwrap_err();
    assert_eq!((err.status, err.message.as_str()), (Status::Input, "no timed points"));
    assert_eq!(
        runway::analyse_route(b"<gpx/>", Some(r#"{"route":1}"#)).unwrap_err().status,
        Status::Argument
    );
}

#[test]
fn replay_config_adds_what_the_report_says_where_the_config_is_silent() {
    let report = r#"{"type":"import_report","activity":"walk","altitude_source":"gps","auto_lap_m":null}"#;
    assert_eq!(
        runway::replay_config(report, None).unwrap().as_deref(),
        Some(r#"{"activity":"walk","fix_altitude":"gps"}"#)
    );
    // The config's own members win, and come after what is added (as runway_analyse merges them).
    assert_eq!(
        runway::replay_config(report, Some(r#" {"activity":"run", "goal_m":5000}"#)).unwrap().as_deref(),
        Some(r#"{"fix_altitude":"gps","activity":"run", "goal_m":5000}"#)
    );
    let silent = r#"{"type":"import_report","activity":null,"altitude_source":null,"auto_lap_m":null}"#;
    assert_eq!(runway::replay_config(silent, None).unwrap(), None);
    assert_eq!(runway::replay_config(silent, Some("{}")).unwrap(), None);
    assert_eq!(runway::replay_config(silent, Some(r#"{"a":1}"#)).unwrap().as_deref(), Some(r#"{"a":1}"#));
    let err = runway::replay_config(report, Some("[1]")).unwrap_err();
    assert_eq!(err.status, runway::Status::Argument);
    // The library's rule: the report is read, not searched (runway_replay_config).
    let err = runway::replay_config(r#"{"type":"fix","activity":"ride"}"#, None).unwrap_err();
    assert_eq!(err.status, runway::Status::Input, "{err}");
    assert_eq!(runway::replay_config("not json", None).unwrap_err().status, runway::Status::Json);
    let odd = r#"{"type":"import_report","activity":"swim"}"#;
    assert_eq!(runway::replay_config(odd, None).unwrap_err().status, runway::Status::Input);
}
