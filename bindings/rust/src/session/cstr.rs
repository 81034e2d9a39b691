//! Strings across the C ABI: arguments as `CString`s (refusing a NUL byte), and the strings and
//! buffers the library returns, copied and freed.

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::ptr;

use crate::error::{check, Error, Result, Status};
use crate::sys;

pub(crate) fn cstring(s: &str, status: Status) -> Result<CString> {
    CString::new(s)
        .map_err(|e| Error::new(status, format!("string has a NUL byte at offset {}", e.nul_position())))
}

pub(crate) fn opt_cstring(s: Option<&str>, status: Status) -> Result<Option<CString>> {
    s.map(|s| cstring(s, status)).transpose()
}

pub(crate) fn opt_ptr(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(ptr::null(), |s| s.as_ptr())
}

/// Runs a call that returns a library string through `char **out`, copies and frees it.
pub(crate) fn take_string(call: impl FnOnce(*mut *mut c_char) -> sys::runway_status) -> Result<String> {
    let mut out: *mut c_char = ptr::null_mut();
    check(call(&mut out))?;
    Ok(copy_and_free(out).unwrap_or_default())
}

/// Runs a call that returns a library buffer through `char **out, size_t *len`, copies its
/// `len` bytes (NUL bytes included) and frees it.
pub(crate) fn take_bytes(
    call: impl FnOnce(*mut *mut c_char, *mut usize) -> sys::runway_status,
) -> Result<Vec<u8>> {
    let mut out: *mut c_char = ptr::null_mut();
    let mut len = 0usize;
    check(call(&mut out, &mut len))?;
    if out.is_null() {
        return if len == 0 {
            Ok(Vec::new())
        } else {
            Err(Error::new(Status::Internal, format!("librunway returned no buffer for {len} bytes")))
        };
    }
    // SAFETY: the library returned a buffer of `len` bytes; it is copied, then freed once.
    unsafe {
        let bytes = std::slice::from_raw_parts(out.cast::<u8>(), len).to_vec();
        sys::runway_string_free(out);
        Ok(bytes)
    }
}

/// Copies a library string and frees it; `None` for NULL.
pub(crate) fn copy_and_free(p: *mut c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated string the library returned to us; freed exactly once.
    unsafe {
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        sys::runway_string_free(p);
        Some(s)
    }
}
