//! Whole documents: [`parse`] into a [`Value`] (refusing with a [`ParseError`]), and a route's
//! rows read without a [`Value`] each (`number_rows`).

use super::{decode_string, skip_string, skip_ws};

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
