//! Replays a JSON Lines track (one librunway fix a line) and prints the phases, the final PFD
//! strings and the flight record without its route.
//!
//! ```sh
//! cargo run --example replay -- ../../../shared/tracks/fixes/fitparse__activity-small-fenix2-run.fit.jsonl
//! ```
//! A line's `"hr"` also becomes a heart-rate sample. Exit status 2 when the file cannot be read
//! or the library fails.

use std::process::ExitCode;

use runway::{json, Session};

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: replay FILE.jsonl");
        return ExitCode::from(2);
    };
    match replay(&path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("replay: {e}");
            ExitCode::from(2)
        }
    }
}

fn replay(path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    println!("librunway {} (ABI {})", runway::version(), runway::abi_version());

    let session = Session::open(None)?;
    let phases =
        session.subscribe(Some(r#"{"kinds":["phase","log"]}"#), |event| match event.kind.as_str() {
            "phase" => println!(
                "phase: {} -> {}",
                event.str_field("from").unwrap_or_default(),
                event.str_field("to").unwrap_or_default()
            ),
            _ => println!("log: {}", event.str_field("message").unwrap_or_default()),
        })?;

    session.start(None)?; // at the first input's time
    let (mut accepted, mut rejected) = (0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match session.push_json(line) {
            Ok(()) => accepted += 1,
            Err(e) => {
                rejected += 1;
                eprintln!("skipped: {e}");
                continue;
            }
        }
        if let (Some(bpm), Some(t)) = (json::f64_field(line, "hr"), json::f64_field(line, "t")) {
            let _ = session.push_json(&format!(r#"{{"type":"hr","bpm":{bpm},"t":{t}}}"#));
        }
    }
    session.stop(None)?;
    phases.cancel()?; // waits until the last phase line is printed

    let snapshot = session.snapshot_json()?;
    let pfd = json::raw_field(&snapshot, "pfd").unwrap_or("{}");
    println!("fixes: {accepted} accepted, {rejected} rejected");
    println!(
        "PFD: time {} distance {} km avg {} hr {}",
        json::str_field(pfd, "time").unwrap_or_default(),
        json::str_field(pfd, "distance").unwrap_or_default(),
        json::str_field(pfd, "avg_pace").unwrap_or_default(),
        json::str_field(pfd, "hr").unwrap_or_default(),
    );
    let summary = session.summary_json()?;
    let route = json::raw_field(&summary, "route").unwrap_or("[]");
    println!("{}", summary.replacen(route, "[…]", 1));
    Ok(())
}
