//! Replays a recording and prints the phases, the final PFD strings, the laps and the flight's
//! figures.
//!
//! ```sh
//! cargo run --example replay -- ride.fit        # GPX, TCX or FIT: imported by runway_import
//! cargo run --example replay -- run.gpx
//! cargo run --example replay -- fixes.jsonl     # librunway inputs, one a line
//! ```
//! The format comes from the file's extension (`.gpx`, `.tcx`, `.fit`, `.jsonl`; any case). The
//! file is read as bytes (FIT is binary). When the import names an activity (its trailing
//! `import_report` line, e.g. `"activity":"ride"` for a FIT file of a bike ride), the session is
//! opened with that profile, so a ride is not read with the run profile's speed cap. Exit status
//! 1 for usage, 2 when the file cannot be read or the library refuses it.

use std::path::Path;
use std::process::ExitCode;

use runway::{format_pace, json, EventBody, Session};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path] = args.as_slice() else {
        eprintln!("usage: replay FILE.gpx|FILE.tcx|FILE.fit|FILE.jsonl");
        return ExitCode::from(1);
    };
    match replay(Path::new(path)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("replay: {path}: {e}");
            ExitCode::from(2)
        }
    }
}

/// The inputs of a recording, as JSON Lines, by the file's extension.
fn inputs(path: &Path) -> Result<String, Box<dyn std::error::Error>> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    let bytes = std::fs::read(path)?;
    match ext.as_str() {
        "gpx" | "tcx" | "fit" => Ok(runway::import_recording(&bytes, &ext)?),
        "jsonl" | "json" => Ok(String::from_utf8(bytes).map_err(|e| format!("not UTF-8 JSON Lines: {e}"))?),
        _ => Err(format!("unknown extension {ext:?}: want .gpx, .tcx, .fit or .jsonl").into()),
    }
}

fn replay(path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let text = inputs(path)?;
    println!(
        "librunway {} (ABI {}) from {}",
        runway::version(),
        runway::abi_version(),
        runway::load()?.display()
    );

    // The import's report (its last line), when it has one: the session is opened as
    // runway::analyse opens it (runway::replay_config: the activity the file names, the source
    // of its altitude as fix_altitude, and auto_lap_m 0 when the file has its own laps).
    let (mut lines, mut config) = (String::with_capacity(text.len()), None);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if json::str_field(line, "type").as_deref() == Some("import_report") {
            config = runway::replay_config(line, None)?;
        } else {
            lines.push_str(line);
            lines.push('\n');
        }
    }
    let session = Session::open(config.as_deref())?;
    // Polled after the run (a callback subscription would print from a library thread).
    let phases =
        session.poll_subscription(Some(r#"{"kinds":["phase","log"],"policy":"queue","capacity":65536}"#))?;

    // As runway_analyse replays a recording: at the first line's time (a start line's, a FIT
    // file's timer started before its first record, which is then already true; else the first
    // input's), then every line.
    session.start(json::f64_field(lines.lines().next().unwrap_or("{}"), "t"))?;
    let batch = session.push_jsonl(&lines);
    session.stop(None)?;
    for event in phases.drain() {
        match event?.body()? {
            EventBody::Phase { from, to, .. } => println!("phase: {from} -> {to}"),
            EventBody::Log { level, message } => println!("log: {level}: {message}"),
            _ => {}
        }
    }

    let snap = session.snapshot()?;
    println!("inputs: {} accepted, {} rejected", batch.accepted, batch.rejected);
    println!(
        "PFD: time {} distance {} km {} hr {}",
        snap.pfd.time, snap.pfd.distance, snap.pfd.avg_pace, snap.pfd.hr
    );
    let s = session.summary()?;
    let opt = |v: Option<f64>, digits: usize| v.map_or("--".to_owned(), |v| format!("{v:.digits$}"));
    println!(
        "flight: {} ({} profile), {:.1} m in {:.0} s, avg pace {} /km, avg hr {}, {} points, {} segments",
        s.end_reason.as_deref().unwrap_or(&s.phase),
        s.activity,
        s.distance_m,
        s.elapsed_s,
        s.avg_pace_min_per_km.map_or("--:--".to_owned(), format_pace),
        opt(s.avg_hr_bpm, 0),
        s.route.len(),
        s.segments
    );
    if let Some(avg) = s.avg_power_w {
        println!(
            "power: avg {avg:.0} W, normalised {} W, max {} W",
            opt(s.normalized_power_w, 0),
            opt(s.max_power_w, 0)
        );
    }
    for lap in &s.laps {
        println!(
            "lap {:>3} {:<6} {:>9.1} m {:>7.0} s  pace {:>5} /km  hr {:>3}",
            lap.index,
            lap.trigger,
            lap.distance_m,
            lap.elapsed_s,
            lap.pace_min_per_km.map_or("--:--".to_owned(), format_pace),
            opt(lap.avg_hr_bpm, 0)
        );
    }
    Ok(())
}
