use std::sync::mpsc;
use std::time::Duration;

use runway::{Fix, Session};

fn main() -> runway::Result<()> {
    let session = Session::open(Some(r#"{"activity":"ride"}"#))?;
    let (tx, rx) = mpsc::channel();
    // The closure runs on a library thread; the channel brings each phase change back here.
    let _phases = session.subscribe(Some(r#"{"kinds":["phase"]}"#), move |event| {
        let (from, to) = (event.str_field("from"), event.str_field("to"));
        let _ = tx.send(format!("{} -> {}", from.unwrap_or_default(), to.unwrap_or_default()));
    })?;
    let t0 = 1_700_000_000.0;
    session.start(Some(t0))?;
    for i in 0..=600 {
        // 10 minutes east at 8 m/s, one fix a second
        let fix = Fix::new(t0 + f64::from(i), 52.0, 4.0 + f64::from(i) * 0.0001167).with_speed(8.0);
        session.push_fix(&fix)?;
    }
    session.stop(None)?; // None: the latest input's time
    for _ in 0..2 {
        println!("{}", rx.recv_timeout(Duration::from_secs(10)).expect("a phase event"));
    }
    let summary = session.summary()?; // a typed Summary (laps, route, figures)
    println!(
        "{:.0} m, moving {}, max {:.1} m/s",
        summary.distance_m,
        runway::format_time(summary.moving_s),
        summary.max_speed_mps.unwrap_or(f64::NAN)
    );
    Ok(())
}
