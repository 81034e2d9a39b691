//! A small std-only JSON reader: [`parse`] reads a whole document into a [`Value`] (what the
//! typed results, [`crate::Summary`] and the rest, are built from), and [`raw_field`],
//! [`str_field`], [`f64_field`] read one top-level member of an object without parsing the
//! rest. For anything that is not valid JSON these return `None` (or an error) rather than
//! panic.
//!
//! ```
//! use runway::json::{parse, Value};
//! let v = parse(r#"{"laps":[{"index":1,"distance_m":1000.0}],"avg_hr_bpm":null}"#).unwrap();
//! assert_eq!(v.get("laps").and_then(|l| l.at(0)).and_then(|l| l.get("distance_m")).and_then(Value::as_f64), Some(1000.0));
//! assert!(v.get("avg_hr_bpm").unwrap().is_null());
//! ```
//!
//! ```
//! let summary = r#"{"kind":"summary","distance_m":33.4,"route":[[52.0,4.0,null,1.0]]}"#;
//! assert_eq!(runway::json::str_field(summary, "kind").as_deref(), Some("summary"));
//! assert_eq!(runway::json::f64_field(summary, "distance_m"), Some(33.4));
//! assert_eq!(runway::json::raw_field(summary, "route"), Some("[[52.0,4.0,null,1.0]]"));
//! assert_eq!(runway::json::raw_field(summary, "missing"), None);
//! ```
//!
//! Here the scanning both share (whitespace, strings and their escapes, skipping a value);
//! reading one member in `fields`, whole documents in `parser`.

mod fields;
mod parser;
#[cfg(test)]
mod tests;

pub(crate) use fields::members;
pub use fields::{f64_field, raw_field, str_field};
pub(crate) use parser::number_rows;
pub use parser::{parse, ParseError, Value, MAX_DEPTH};

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// `b[i]` is the opening quote; returns the index just past the closing quote.
fn skip_string(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        match b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// Returns the index just past the value starting at `b[i]`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b.get(j)? {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while let Some(c) = b.get(j) {
                if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    break;
                }
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// Decodes a quoted JSON string literal (with its quotes).
fn decode_string(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(inner.to_owned());
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let hi = hex4(&mut chars)?;
                let code = if (0xD800..0xDC00).contains(&hi) {
                    if chars.next()? != '\\' || chars.next()? != 'u' {
                        return None;
                    }
                    let lo = hex4(&mut chars)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return None;
                    }
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    hi
                };
                out.push(char::from_u32(code)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

fn hex4(chars: &mut std::str::Chars<'_>) -> Option<u32> {
    let mut v = 0;
    for _ in 0..4 {
        v = v * 16 + chars.next()?.to_digit(16)?;
    }
    Some(v)
}
