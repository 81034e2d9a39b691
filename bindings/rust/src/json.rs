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

/// A JSON value. Objects keep their members in document order (the library never repeats a key;
/// [`Value::get`] finds the first).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// Any number, as an `f64` (the library's integers, counts and sequence numbers, are far
    /// below 2^53, so they are exact).
    Number(f64),
    /// A string, escapes decoded.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object: its members in order.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `key` of an object (`None` for other values or a missing key).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The element `i` of an array.
    pub fn at(&self, i: usize) -> Option<&Value> {
        match self {
            Value::Array(items) => items.get(i),
            _ => None,
        }
    }

    /// The number, or `None` (also for `null`).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// A non-negative integral number as a `u64`, or `None`.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) if *n >= 0.0 && n.fract() == 0.0 && *n < 18_446_744_073_709_551_616.0 => {
                Some(*n as u64)
            }
            _ => None,
        }
    }

    /// The string, or `None`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, or `None`.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The elements of an array, or `None`.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

/// Why [`parse`] refused a text: what was wrong and the byte offset where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset into the text.
    pub offset: usize,
    /// What was expected or found there.
    pub message: &'static str,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Deepest nesting [`parse`] accepts (the library's outputs are at most 4 levels deep).
pub const MAX_DEPTH: usize = 128;

/// Parses a whole JSON document (RFC 8259: one value, surrounded by whitespace only).
pub fn parse(text: &str) -> Result<Value, ParseError> {
    let mut p = Parser { b: text.as_bytes(), text, i: 0 };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.b.len() {
        return Err(p.error("text after the value"));
    }
    Ok(v)
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

/// Reads an array of arrays of numbers and `null`s (a route: `[[lat,lon,alt,t],...]`) without
/// building a [`Value`] for each element, calling `each` with every row (`None` for `null`).
pub(crate) fn number_rows(text: &str, mut each: impl FnMut(&[Option<f64>])) -> Result<(), ParseError> {
    let mut p = Parser { b: text.as_bytes(), text, i: 0 };
    let mut row: Vec<Option<f64>> = Vec::with_capacity(8);
    p.expect(b'[', "'['")?;
    p.ws();
    if p.b.get(p.i) == Some(&b']') {
        p.i += 1;
    } else {
        loop {
            p.expect(b'[', "'[' (a row)")?;
            row.clear();
            p.ws();
            if p.b.get(p.i) == Some(&b']') {
                p.i += 1;
            } else {
                loop {
                    p.ws();
                    match p.b.get(p.i) {
                        Some(b'n') => {
                            p.word("null", Value::Null)?;
                            row.push(None);
                        }
                        _ => row.push(Some(p.number()?)),
                    }
                    p.ws();
                    match p.b.get(p.i) {
                        Some(b',') => p.i += 1,
                        Some(b']') => {
                            p.i += 1;
                            break;
                        }
                        _ => return Err(p.error("',' or ']' in a row")),
                    }
                }
            }
            each(&row);
            p.ws();
            match p.b.get(p.i) {
                Some(b',') => p.i += 1,
                Some(b']') => {
                    p.i += 1;
                    break;
                }
                _ => return Err(p.error("',' or ']' after a row")),
            }
        }
    }
    p.ws();
    if p.i != p.b.len() {
        return Err(p.error("text after the rows"));
    }
    Ok(())
}

struct Parser<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn error(&self, message: &'static str) -> ParseError {
        ParseError { offset: self.i, message }
    }

    fn ws(&mut self) {
        self.i = skip_ws(self.b, self.i);
    }

    fn expect(&mut self, c: u8, what: &'static str) -> Result<(), ParseError> {
        self.ws();
        if self.b.get(self.i) != Some(&c) {
            return Err(self.error(what));
        }
        self.i += 1;
        Ok(())
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth >= MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.ws();
        match self.b.get(self.i) {
            None => Err(self.error("a value, found the end")),
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Value::Object(members));
                }
                loop {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return Err(self.error("a member name"));
                    }
                    let key = self.string()?;
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return Err(self.error("':'"));
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    members.push((key, v));
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Value::Object(members));
                        }
                        _ => return Err(self.error("',' or '}'")),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Value::Array(items));
                        }
                        _ => return Err(self.error("',' or ']'")),
                    }
                }
            }
            Some(b'"') => self.string().map(Value::String),
            Some(b't') => self.word("true", Value::Bool(true)),
            Some(b'f') => self.word("false", Value::Bool(false)),
            Some(b'n') => self.word("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number().map(Value::Number),
            Some(_) => Err(self.error("a value")),
        }
    }

    fn word(&mut self, w: &'static str, v: Value) -> Result<Value, ParseError> {
        if self.b[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(self.error("true, false or null"))
        }
    }

    fn string(&mut self) -> Result<String, ParseError> {
        let end = skip_string(self.b, self.i).ok_or_else(|| self.error("an unterminated string"))?;
        let raw = &self.text[self.i..end];
        if raw.bytes().any(|c| c < 0x20) {
            return Err(self.error("a control character in a string"));
        }
        let s = decode_string(raw).ok_or_else(|| self.error("a bad escape in a string"))?;
        self.i = end;
        Ok(s)
    }

    fn number(&mut self) -> Result<f64, ParseError> {
        let start = self.i;
        let b = self.b;
        let mut j = start;
        if b.get(j) == Some(&b'-') {
            j += 1;
        }
        let digits = |mut j: usize| {
            let from = j;
            while matches!(b.get(j), Some(b'0'..=b'9')) {
                j += 1;
            }
            (j, j - from)
        };
        let (after_int, n) = digits(j);
        if n == 0 || (b[j] == b'0' && n > 1) {
            return Err(self.error("a number"));
        }
        j = after_int;
        if b.get(j) == Some(&b'.') {
            let (after, n) = digits(j + 1);
            if n == 0 {
                return Err(ParseError { offset: j, message: "digits after '.'" });
            }
            j = after;
        }
        if matches!(b.get(j), Some(b'e' | b'E')) {
            j += 1;
            if matches!(b.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            let (after, n) = digits(j);
            if n == 0 {
                return Err(ParseError { offset: j, message: "digits in the exponent" });
            }
            j = after;
        }
        let v: f64 = self.text[start..j].parse().map_err(|_| self.error("a number"))?;
        if !v.is_finite() {
            return Err(self.error("a number out of range"));
        }
        self.i = j;
        Ok(v)
    }
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

    #[test]
    fn parses_documents_into_values() {
        let v = parse(r#" {"a":[1,-2.5e3,true,false,null,"x\u00e9"],"b":{},"c":[],"d":0.5} "#).unwrap();
        assert_eq!(
            v,
            Value::Object(vec![
                (
                    "a".into(),
                    Value::Array(vec![
                        Value::Number(1.0),
                        Value::Number(-2500.0),
                        Value::Bool(true),
                        Value::Bool(false),
                        Value::Null,
                        Value::String("x\u{e9}".into()),
                    ])
                ),
                ("b".into(), Value::Object(vec![])),
                ("c".into(), Value::Array(vec![])),
                ("d".into(), Value::Number(0.5)),
            ])
        );
        assert_eq!(v.get("a").and_then(|a| a.at(0)).and_then(Value::as_u64), Some(1));
        assert_eq!(v.get("a").and_then(|a| a.at(1)).and_then(Value::as_u64), None);
        assert_eq!(parse("7").unwrap(), Value::Number(7.0));
    }

    #[test]
    fn refuses_what_is_not_json() {
        for (text, offset) in [
            ("", 0),
            ("{", 1),
            ("[1,]", 3),
            ("{\"a\" 1}", 5),
            ("01", 0),
            ("1.", 1),
            ("1e", 2),
            ("-", 0),
            ("tru", 0),
            ("\"a", 0),
            ("[1] 2", 4),
            ("{\"a\":1,}", 7),
            ("\"\\q\"", 0),
            ("1e999", 0),
            ("\"a\u{1}b\"", 0),
        ] {
            let e = parse(text).expect_err(text);
            assert_eq!(e.offset, offset, "{text:?}: {e}");
        }
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(parse(&deep).unwrap_err().message, "nested too deeply");
        let ok = "[".repeat(MAX_DEPTH - 1) + &"]".repeat(MAX_DEPTH - 1);
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn members_lists_an_object_and_refuses_anything_else() {
        let m = members(r#"{"a":1,"route":[[1,2]], "s":"x"}"#).unwrap();
        assert_eq!(m, vec![("a".into(), "1"), ("route".into(), "[[1,2]]"), ("s".into(), "\"x\"")]);
        assert_eq!(members("{}"), Some(vec![]));
        for bad in ["[]", "{", r#"{"a":1"#, r#"{"a":1} x"#, r#"{"a":1,}"#] {
            assert_eq!(members(bad), None, "{bad}");
        }
    }
}
