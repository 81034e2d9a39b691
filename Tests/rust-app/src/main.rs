//! Runs a short run through librunway and prints where the library came from and the figures.

use runway::{Fix, Session};

fn main() -> runway::Result<()> {
    let session = Session::open(Some(r#"{"auto_lap_m":100}"#))?;
    let t0 = 1_700_000_000.0;
    session.start(Some(t0))?;
    for i in 0..31 {
        // 31 fixes 2 s apart due north, 6 m a step at 3 m/s.
        session.push_fix(&Fix::new(t0 + 2.0 * i as f64, 52.0 + i as f64 * 6.0 / 111_257.0, 4.0).with_speed(3.0).with_course(0.0))?;
    }
    session.stop(None)?;
    let summary = session.summary()?;
    println!("library {}", runway::library_path().map(|p| p.display().to_string()).unwrap_or_default());
    println!("version {}", runway::version());
    println!("distance_m {:.1}", summary.distance_m);
    println!("laps {}", summary.laps.len());
    println!("points {}", summary.route.len());
    Ok(())
}
