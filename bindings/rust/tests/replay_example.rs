//! examples/replay.rs (built by `cargo test`) imports GPX, TCX and FIT by the file's extension,
//! FIT as bytes: run on a flight exported in each format (and on real recordings when
//! ../shared/tracks is there), it prints the figures an in-process import and replay of the
//! same file gives, exactly; unknown extensions, unreadable files and bad usage are refused
//! with the documented exit statuses.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use runway::{json, Session};

fn example() -> PathBuf {
    // target/debug/deps/replay_example-<hash> -> target/debug/examples/replay
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().and_then(Path::parent).unwrap().join("examples/replay");
    assert!(bin.is_file(), "{} not built (cargo test builds the examples)", bin.display());
    bin
}

fn replay(path: &Path) -> Output {
    Command::new(example()).arg(path).env_remove("LD_LIBRARY_PATH").output().expect("running the example")
}

/// What the example should print for `path`: the same import and replay, in process.
fn expected(path: &Path, format: &str) -> (Vec<String>, usize) {
    let jsonl = runway::import_recording(&std::fs::read(path).unwrap(), format).unwrap();
    let (mut activity, mut auto_lap) = (None, None);
    let mut lines = String::new();
    for line in jsonl.lines().filter(|l| !l.trim().is_empty()) {
        if json::str_field(line, "type").as_deref() == Some("import_report") {
            activity = json::str_field(line, "activity");
            auto_lap = json::f64_field(line, "auto_lap_m"); // the file's own laps, as lap lines
        } else {
            lines.push_str(line);
            lines.push('\n');
        }
    }
    let mut entries: Vec<String> = activity.iter().map(|a| format!(r#""activity":"{a}""#)).collect();
    entries.extend(auto_lap.map(|m| format!(r#""auto_lap_m":{m}"#)));
    let config = (!entries.is_empty()).then(|| format!("{{{}}}", entries.join(",")));
    let s = Session::open(config.as_deref()).unwrap();
    start_replay(&s, &lines);
    let batch = s.push_jsonl(&lines);
    s.stop(None).unwrap();
    let sum = s.summary().unwrap();
    let pace = |p: Option<f64>| p.map_or("--:--".to_owned(), runway::format_pace);
    let mut figures = vec![format!(
        "{:.1} m in {:.0} s, avg pace {} /km",
        sum.distance_m,
        sum.elapsed_s,
        pace(sum.avg_pace_min_per_km)
    )];
    // A recording with power: the record's, typed.
    if let Some(avg) = sum.avg_power_w {
        let w = |v: Option<f64>| v.map_or("--".to_owned(), |v| format!("{v:.0}"));
        figures.push(format!(
            "power: avg {avg:.0} W, normalised {} W, max {} W",
            w(sum.normalized_power_w),
            w(sum.max_power_w)
        ));
    }
    // Each lap's pace as m:ss too (it was decimal minutes, "5.56" for 5:34, under the summary's m:ss).
    for lap in &sum.laps {
        figures.push(format!(
            "{:>9.1} m {:>7.0} s  pace {:>5} /km",
            lap.distance_m,
            lap.elapsed_s,
            pace(lap.pace_min_per_km)
        ));
    }
    (figures, batch.accepted)
}

fn check(path: &Path, format: &str) -> String {
    let out = replay(path);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}: {}\n{stdout}", path.display(), String::from_utf8_lossy(&out.stderr));
    let (figures, accepted) = expected(path, format);
    for want in &figures {
        assert!(stdout.contains(want), "{}: want {want:?} in\n{stdout}", path.display());
    }
    assert!(stdout.contains(&format!("inputs: {accepted} accepted, 0 rejected")), "{stdout}");
    assert!(
        stdout.contains("phase: preflight -> cruise") && stdout.contains("phase: cruise -> touchdown"),
        "{stdout}"
    );
    stdout
}

#[test]
fn gpx_tcx_and_fit_exports_replay_by_extension() {
    // A 600 m run north with heart rate, exported in each format.
    let s = Session::open(None).unwrap();
    s.start(Some(T0)).unwrap();
    for i in 0..=100 {
        let t = T0 + 2.0 * i as f64;
        s.push_json(&format!(
            r#"{{"t":{t},"lat":{:.7},"lon":4.0,"alt":{:.1},"speed":3.0,"course":0,"hr":{}}}"#,
            LAT0 + i as f64 * 6.0 / 111_257.0,
            10.0 + (i % 10) as f64,
            140 + i % 9
        ))
        .unwrap();
    }
    s.stop(None).unwrap();
    let original = s.summary().unwrap();
    let dir = TempDir::new("replay");
    for (format, name) in [("gpx", "run.gpx"), ("tcx", "run.TCX"), ("fit", "run.fit"), ("fit", "RUN.FIT")] {
        let path = dir.join(name);
        std::fs::write(&path, s.export(format).unwrap()).unwrap();
        let stdout = check(&path, format);
        // The file's flight is the flight: its distance within 2% and its points all there.
        let (_, accepted) = expected(&path, format);
        assert!(
            accepted >= original.route.len(),
            "{name}: {accepted} inputs for {} points",
            original.route.len()
        );
        let d: f64 = stdout
            .lines()
            .find_map(|l| {
                l.split(", ").nth(1).and_then(|f| f.strip_suffix(" s")).and_then(|f| f.split(" m in").next())
            })
            .and_then(|m| m.parse().ok())
            .unwrap_or_else(|| panic!("no distance in {stdout}"));
        assert!(
            (d - original.distance_m).abs() < 0.02 * original.distance_m,
            "{name}: {d} vs {}",
            original.distance_m
        );
        assert!(stdout.contains("avg hr 14"), "{name}: {stdout}");
    }
    // The JSON Lines the import gives replay the same way.
    let jsonl = dir.join("run.jsonl");
    std::fs::write(&jsonl, runway::import_recording(&s.export("gpx").unwrap(), "gpx").unwrap()).unwrap();
    let out = replay(&jsonl);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_fit_start_line_starts_the_flight_and_is_not_rejected() {
    // A flight whose first fix came 2 min after its start (1 Hz, 3 m/s north, T0 + 120 to
    // T0 + 600), exported as FIT: its import begins with a start line, which the example pushes
    // with the rest instead of starting the flight itself, as runway_analyse replays it.
    let s = Session::open(Some(r#"{"auto_pause":false}"#)).unwrap();
    s.start(Some(T0)).unwrap();
    for i in 0..=480 {
        let (t, lat) = (T0 + 120.0 + i as f64, LAT0 + i as f64 * 3.0 / 111_257.0);
        s.push_json(&format!(r#"{{"t":{t},"lat":{lat:.9},"lon":4.0,"speed":3.0}}"#)).unwrap();
    }
    s.stop(None).unwrap();
    assert_eq!(s.summary().unwrap().elapsed_s, 600.0);
    let fit = s.export("fit").unwrap();
    let jsonl = runway::import_recording(&fit, "fit").unwrap();
    assert_eq!(jsonl.lines().next(), Some(r#"{"type":"start","t":1700000000.0}"#));
    let dir = TempDir::new("replay-start");
    let path = dir.join("late.fit");
    std::fs::write(&path, &fit).unwrap();
    let stdout = check(&path, "fit"); // no line rejected
    let a = runway::analyse(&fit, None).unwrap();
    let (distance, elapsed) = (num(&a.summary, "distance_m"), num(&a.summary, "elapsed_s"));
    assert_eq!((a.rejected, elapsed, num(&a.summary, "start_t")), (0, 600.0, T0));
    assert!(stdout.contains(&format!("{distance:.1} m in {elapsed:.0} s")), "{stdout}");
}

#[test]
fn real_recordings_replay_by_extension() {
    let Some(tracks) = tracks_dir() else {
        eprintln!("SKIPPED: ../shared/tracks absent");
        return;
    };
    for (name, format) in [
        ("fitparse__activity-small-fenix2-run.fit", "fit"),
        ("actparser__garmin-fenix-5-bike.fit", "fit"),
        ("togeojson__Friday-Evening-Run.gpx", "gpx"),
        ("togeojson__tour_hr.tcx", "tcx"),
    ] {
        check(&tracks.join(name), format);
    }
}

#[test]
fn bad_files_and_usage_are_refused() {
    let dir = TempDir::new("replay-bad");
    let text = dir.join("notes.txt");
    std::fs::write(&text, "hello").unwrap();
    let fake = dir.join("fake.fit");
    std::fs::write(&fake, b"\xff\xfe not a FIT file at all").unwrap();
    for (path, want) in
        [(text, "unknown extension \"txt\""), (fake, "Input"), (dir.join("missing.gpx"), "No such file")]
    {
        let out = replay(&path);
        assert_eq!(out.status.code(), Some(2), "{}", path.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{want:?} not in {err}");
        assert!(!err.contains("valid UTF-8"), "{err}");
    }
    let out = Command::new(example()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}
