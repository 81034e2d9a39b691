//! PFD formatting: the strings the live screen shows, from the library's pure formatters.
//!
//! ```
//! assert_eq!(runway::format_pace(4.0 + 29.0 / 60.0), "4:29");
//! assert_eq!(runway::format_direction(108.19), "E");
//! ```

use std::os::raw::c_char;

use crate::sys;

type Formatter = unsafe fn(f64, *mut c_char, usize) -> usize;

/// Calls a snprintf-like formatter, growing the buffer if the string needs it.
fn format_with(f: Formatter, value: f64) -> String {
    let mut buf = [0u8; 64];
    // SAFETY: buf is writable for its length; the formatter NUL-terminates within cap.
    let needed = unsafe { f(value, buf.as_mut_ptr().cast(), buf.len()) };
    if needed < buf.len() {
        return String::from_utf8_lossy(&buf[..needed]).into_owned();
    }
    let mut big = vec![0u8; needed + 1];
    // SAFETY: as above, with room for the whole string.
    let written = unsafe { f(value, big.as_mut_ptr().cast(), big.len()) };
    big.truncate(written.min(needed));
    String::from_utf8_lossy(&big).into_owned()
}

/// Pace `"m:ss"` from minutes per km, rounded to the nearest second; `"--:--"` for NaN, ±∞
/// or ≤ 0.
pub fn format_pace(min_per_km: f64) -> String {
    format_with(sys::runway_format_pace, min_per_km)
}

/// Pace tape: the pace rounded to the nearest 15 s with two ticks either side,
/// space-separated (`"4:00 4:15 4:30 4:45 5:00"`); `""` when the pace is unknown.
pub fn format_pace_tape(min_per_km: f64) -> String {
    format_with(sys::runway_format_pace_tape, min_per_km)
}

/// Compass point of 8 by 45° sectors centred on N (`"N"`, `"NE"`, ...); `"--"` unknown.
pub fn format_direction(heading_deg: f64) -> String {
    format_with(sys::runway_format_direction, heading_deg)
}

/// Heading tape: the heading rounded to 90° with the neighbours at ±90° (`"N E S"`).
pub fn format_heading_tape(heading_deg: f64) -> String {
    format_with(sys::runway_format_heading_tape, heading_deg)
}

/// Elapsed time `"HH:MM:SS"` of whole seconds (floor); `"--:--:--"` when unknown.
pub fn format_time(elapsed_s: f64) -> String {
    format_with(sys::runway_format_time, elapsed_s)
}

/// Distance in km with two decimals (`"5.03"`).
pub fn format_distance(distance_m: f64) -> String {
    format_with(sys::runway_format_distance, distance_m)
}

/// Altitude in whole metres (`"123"`); `"--"` when unknown.
pub fn format_altitude(altitude_m: f64) -> String {
    format_with(sys::runway_format_altitude, altitude_m)
}
