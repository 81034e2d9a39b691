//! Recordings made elsewhere (GPX, TCX, FIT files) as librunway inputs.

use crate::error::{Error, Result, Status};
use crate::session::{cstring, take_bytes};
use crate::sys;

/// Whether the loaded librunway can import recordings (it exports `runway_import`; libraries
/// built before it was added do not). See [`sys::runway_import`] for how it is found.
pub fn import_available() -> bool {
    // (A library that cannot be loaded has no import either.)
    sys::runway_import().is_some()
}

/// Turns a recording — the whole file's bytes, in `format` `"gpx"`, `"tcx"` or `"fit"` — into
/// librunway inputs: JSON Lines, one input a line, ready for
/// [`crate::Session::push_jsonl`].
///
/// ```no_run
/// # fn main() -> runway::Result<()> {
/// let jsonl = runway::import_recording(&std::fs::read("run.fit").unwrap(), "fit")?;
/// let s = runway::Session::open(None)?;
/// let first_t = runway::json::f64_field(jsonl.lines().next().unwrap_or("{}"), "t");
/// s.start(first_t)?;
/// s.push_jsonl(&jsonl).into_result()?;
/// # Ok(()) }
/// ```
///
/// Fixes come in recorded order with `hr`/`cadence` where the file has them; values are as
/// recorded (pushing validates them); the result is empty when the file has no timed points.
///
/// Errors: [`Status::Argument`] an unknown format; [`Status::Input`] data that is not a valid
/// recording of that format (or larger than 64 MiB); [`Status::Internal`] when the loaded library has
/// no `runway_import` ([`import_available`] is false), like any other library incompatibility.
pub fn import_recording(data: &[u8], format: &str) -> Result<String> {
    crate::load()?;
    let Some(import) = sys::runway_import() else {
        return Err(Error::new(
            Status::Internal,
            "the loaded librunway has no runway_import (built before import was added; rebuild it)",
        ));
    };
    let format = cstring(format, Status::Argument)?;
    // SAFETY: `import` is the library's runway_import; format is NUL-terminated and data is
    // valid for data.len() bytes during the call.
    let bytes = take_bytes(|out, len| unsafe {
        import(format.as_ptr(), data.as_ptr().cast(), data.len(), out, len)
    })?;
    String::from_utf8(bytes)
        .map_err(|e| Error::new(Status::Internal, format!("runway_import returned invalid UTF-8: {e}")))
}
