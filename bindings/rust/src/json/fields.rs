//! One top-level member of an object, without parsing the rest: [`raw_field`], [`str_field`],
//! [`f64_field`], and every member with its raw text (`members`).

use super::{decode_string, skip_string, skip_value, skip_ws};

/// The raw JSON text of the top-level member `key` of the object `json` (strings keep their
/// quotes, objects and arrays their brackets), or `None` when `json` is not an object or has
/// no such member.
pub fn raw_field<'a>(json: &'a str, key: &str) -> Option<&'a str> {
    let b = json.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return None;
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(b, i)?;
        let matches = decode_string(&json[i..key_end]).as_deref() == Some(key);
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(b, i + 1);
        let end = skip_value(b, start)?;
        if matches {
            return Some(&json[start..end]);
        }
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            _ => return None,
        }
    }
}

/// The top-level member `key` as a string (escapes decoded); `None` if absent or not a string.
pub fn str_field(json: &str, key: &str) -> Option<String> {
    let raw = raw_field(json, key)?;
    if raw.starts_with('"') {
        decode_string(raw)
    } else {
        None
    }
}

/// The top-level member `key` as a number; `None` if absent, `null` or not a number.
pub fn f64_field(json: &str, key: &str) -> Option<f64> {
    let raw = raw_field(json, key)?;
    match raw.as_bytes().first() {
        Some(b'-' | b'0'..=b'9') => raw.parse().ok(),
        _ => None,
    }
}

/// The members of the object `json`, each with its raw JSON text, in order, or `None` when
/// `json` is not an object. (The typed results parse the route from its text directly.)
pub(crate) fn members(json: &str) -> Option<Vec<(String, &str)>> {
    let b = json.as_bytes();
    let mut out = Vec::new();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return (skip_ws(b, i + 1) == b.len()).then_some(out);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(b, i)?;
        let key = decode_string(&json[i..key_end])?;
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(b, i + 1);
        let end = skip_value(b, start)?;
        out.push((key, &json[start..end]));
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => return (skip_ws(b, i + 1) == b.len()).then_some(out),
            _ => return None,
        }
    }
}
