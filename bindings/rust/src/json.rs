//! A tiny reader for top-level members of a JSON object — enough to route events and read a
//! summary's numbers without a JSON dependency. Not a validator: the library only emits valid
//! JSON, and for anything else these functions return `None` rather than panic.
//!
//! ```
//! let summary = r#"{"kind":"summary","distance_m":33.4,"route":[[52.0,4.0,null,1.0]]}"#;
//! assert_eq!(runway::json::str_field(summary, "kind").as_deref(), Some("summary"));
//! assert_eq!(runway::json::f64_field(summary, "distance_m"), Some(33.4));
//! assert_eq!(runway::json::raw_field(summary, "route"), Some("[[52.0,4.0,null,1.0]]"));
//! assert_eq!(runway::json::raw_field(summary, "missing"), None);
//! ```

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_top_level_members_only() {
        let j = r#" { "pfd" : {"kind":"inner","seq":99}, "list":["kind",{"seq":1}],
                     "kind" : "flight" , "seq":7 ,"t":1700000010.5,"h":null,"ok":true } "#;
        assert_eq!(str_field(j, "kind").as_deref(), Some("flight"));
        assert_eq!(f64_field(j, "seq"), Some(7.0));
        assert_eq!(f64_field(j, "t"), Some(1700000010.5));
        assert_eq!(f64_field(j, "h"), None);
        assert_eq!(raw_field(j, "h"), Some("null"));
        assert_eq!(raw_field(j, "ok"), Some("true"));
        assert_eq!(raw_field(j, "pfd"), Some(r#"{"kind":"inner","seq":99}"#));
        assert_eq!(raw_field(j, "list"), Some(r#"["kind",{"seq":1}]"#));
    }

    #[test]
    fn decodes_escapes_in_strings_and_keys() {
        let j = r#"{"a\"b":1,"message":"line \"2\": \u00e9\ud83d\ude00 \\ end","x}":"]"}"#;
        assert_eq!(f64_field(j, "a\"b"), Some(1.0));
        assert_eq!(str_field(j, "message").as_deref(), Some("line \"2\": é😀 \\ end"));
        assert_eq!(str_field(j, "x}").as_deref(), Some("]"));
    }

    #[test]
    fn returns_none_on_non_objects_and_truncation() {
        for j in
            ["", "[1]", "\"kind\"", "{", "{\"kind\"", "{\"kind\":", "{\"kind\":\"fl", "{}", "{\"a\":[1,2"]
        {
            assert_eq!(raw_field(j, "kind"), None, "{j:?}");
        }
        assert_eq!(f64_field(r#"{"seq":"7"}"#, "seq"), None);
        assert_eq!(str_field(r#"{"kind":7}"#, "kind"), None);
    }
}
