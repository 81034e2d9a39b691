//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::time::Duration;

use runway::Session;

/// How long a test waits for something that should happen promptly.
pub const WAIT: Duration = Duration::from_secs(10);

pub const T0: f64 = 1_700_000_000.0;
pub const LAT0: f64 = 52.0;
pub const LON0: f64 = 4.0;
/// 0.0001° of latitude: about 11.1 m, above the default 5 m distance filter.
pub const STEP: f64 = 0.0001;

/// The latitude of position `i` on a walk due north.
pub fn lat_at(i: usize) -> f64 {
    LAT0 + i as f64 * STEP
}

/// A fix as JSON at time `t` and position `i` of the walk north.
pub fn fix_json(t: f64, i: usize) -> String {
    format!(r#"{{"t":{t:.3},"lat":{:.7},"lon":{LON0:.7},"alt":12.5,"speed":2.5}}"#, lat_at(i))
}

/// The WGS84 meridian arc between two latitudes (degrees), in metres: the length of a walk
/// due north, integrated with Simpson's rule (exact to far below a millimetre here).
pub fn meridian_arc_m(lat1: f64, lat2: f64) -> f64 {
    let a = 6_378_137.0_f64;
    let f = 1.0 / 298.257_223_563;
    let e2 = f * (2.0 - f);
    let m = |phi: f64| a * (1.0 - e2) / (1.0 - e2 * phi.sin().powi(2)).powf(1.5);
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let n = 1000;
    let h = (p2 - p1) / n as f64;
    let mut sum = m(p1) + m(p2);
    for k in 1..n {
        sum += m(p1 + k as f64 * h) * if k % 2 == 1 { 4.0 } else { 2.0 };
    }
    (sum * h / 3.0).abs()
}

/// A top-level number of a JSON object, or a test failure naming what is missing.
pub fn num(json: &str, key: &str) -> f64 {
    runway::json::f64_field(json, key).unwrap_or_else(|| panic!("no number {key:?} in {json:.300}"))
}

/// A top-level string of a JSON object, or a test failure.
pub fn text(json: &str, key: &str) -> String {
    runway::json::str_field(json, key).unwrap_or_else(|| panic!("no string {key:?} in {json:.300}"))
}

/// The number of elements of a JSON array.
pub fn array_len(array_json: &str) -> usize {
    array_items(array_json).len()
}

/// The elements of a JSON array of objects or arrays, as raw JSON texts.
pub fn array_items(array_json: &str) -> Vec<String> {
    let body = array_json.trim();
    assert!(body.starts_with('[') && body.ends_with(']'), "not an array: {body:.200}");
    let (mut depth, mut in_str, mut esc) = (0i32, false, false);
    let (mut items, mut start) = (Vec::new(), 1usize);
    for (i, c) in body.char_indices() {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, '\\') => esc = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '[' | '{' => depth += 1,
            ']' | '}' => {
                depth -= 1;
                if depth == 0 && !body[start..i].trim().is_empty() {
                    items.push(body[start..i].trim().to_owned());
                }
            }
            ',' if depth == 1 => {
                items.push(body[start..i].trim().to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    items
}

/// Receives from `rx` until `pred` holds for an item (returned), failing after WAIT.
pub fn recv_until<T: std::fmt::Debug>(rx: &Receiver<T>, what: &str, mut pred: impl FnMut(&T) -> bool) -> T {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(item) if pred(&item) => return item,
            Ok(_) => continue,
            Err(e) => panic!("waiting for {what}: {e}"),
        }
    }
}

/// Starts a replay of `jsonl` (import_recording's lines) as runway_analyse does: at the first
/// line's time (a start line's, a FIT file's timer started before its first record, which is
/// then already true when pushed; else the first input's).
pub fn start_replay(s: &runway::Session, jsonl: &str) {
    let first = jsonl.lines().find(|l| !l.trim().is_empty()).unwrap_or("{}");
    s.start(runway::json::f64_field(first, "t")).unwrap();
}

/// The shared folder of real recorded tracks (`<repo>/../shared/tracks`), if present.
pub fn tracks_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/tracks");
    dir.join("fixes").is_dir().then_some(dir)
}

/// A fresh empty folder under the system temp dir, removed with everything in it on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "runway-rs-{tag}-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
        TempDir(dir)
    }

    /// A path inside the folder.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A top-level boolean of a JSON object, or a test failure.
pub fn flag(json: &str, key: &str) -> bool {
    match runway::json::raw_field(json, key) {
        Some("true") => true,
        Some("false") => false,
        other => panic!("no boolean {key:?} in {json:.300} ({other:?})"),
    }
}

/// Whether a top-level member is JSON null.
pub fn is_null(json: &str, key: &str) -> bool {
    runway::json::raw_field(json, key) == Some("null")
}

/// The number of route points of a summary.
pub fn route_len(summary: &str) -> usize {
    array_len(
        runway::json::raw_field(summary, "route").unwrap_or_else(|| panic!("no route in {summary:.300}")),
    )
}

/// Checks what makes a FIT file one and returns (header size, data size).
pub fn fit_header(data: &[u8]) -> (usize, usize) {
    assert!(data.len() >= 14, "FIT file of {} bytes", data.len());
    assert!(data[0] == 12 || data[0] == 14, "FIT header size byte is {}", data[0]);
    assert_eq!(&data[8..12], b".FIT");
    let header = data[0] as usize;
    let size = u32::from_le_bytes([data[4], data[5], data[6], data[7]]) as usize;
    assert_eq!(data.len(), header + size + 2, "header, records and CRC");
    (header, size)
}

/// How many times `needle` occurs in `haystack`.
pub fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// A session in cruise, with `n` fixes pushed.
pub fn cruising(n: usize) -> Session {
    let s = Session::open(None).unwrap();
    s.start(Some(T0)).unwrap();
    for i in 0..n {
        s.push_json(&fix_json(T0 + i as f64, i)).unwrap();
    }
    s
}

/// The latest event's seq (the snapshot carries it).
pub fn seq_now(s: &Session) -> u64 {
    num(&s.snapshot_json().unwrap(), "seq") as u64
}
