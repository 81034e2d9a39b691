//! `sys` mirrors include/runway.h: every function the header declares is declared in
//! src/sys.rs with the same number of parameters (runway_import, looked up at run time, as the
//! `runway_import_fn` type), and sys declares no librunway function the header lacks.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Removes /* */ and // comments.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |end| &after[end + 2..]);
        } else if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |end| &after[end..]);
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// name -> parameter count of every `runway_*(...)` prototype or `fn runway_*(...)`.
fn functions(text: &str, rust: bool) -> BTreeMap<String, usize> {
    let text = strip_comments(text);
    let mut found = BTreeMap::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("runway_") {
        let tail = &rest[at..];
        let name_len = tail.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(tail.len());
        let (name, after) = tail.split_at(name_len);
        let before = rest[..at].trim_end();
        let is_decl = if rust { before.ends_with("fn") } else { true };
        rest = after;
        let after = after.trim_start();
        if !is_decl || !after.starts_with('(') {
            continue;
        }
        let close = after.find(')').expect("a closing parenthesis");
        let after_params = after[close + 1..].trim_start();
        let is_prototype = if rust {
            after_params.starts_with("->") || after_params.starts_with(';')
        } else {
            after_params.starts_with(';')
        };
        if !is_prototype {
            continue;
        }
        let params = after[1..close].split_whitespace().collect::<Vec<_>>().join(" ");
        let count = if params.is_empty() || params == "void" {
            0
        } else {
            params.trim_end_matches(',').matches(',').count() + 1
        };
        found.insert(name.to_owned(), count);
    }
    found
}

/// include/runway.h, or None (saying SKIPPED) outside the repository.
fn header(root: &std::path::Path) -> Option<String> {
    let path = root.join("../../include/runway.h");
    let text = std::fs::read_to_string(&path).ok();
    if text.is_none() {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "SKIPPED: {} absent", path.display());
    }
    text
}

#[test]
fn sys_declares_every_header_function_with_its_arity() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let Some(header) = header(&root) else { return };
    let c = functions(&header, false);
    assert!(c.contains_key("runway_session_open") && c.contains_key("runway_flight_export"), "{c:?}");
    let sys_text = std::fs::read_to_string(root.join("src/sys.rs")).unwrap();
    let mut rust = functions(&sys_text, true);
    // Looked up at run time: its signature is the runway_import_fn type.
    if let Some(start) = sys_text.find("pub type runway_import_fn") {
        let body = &sys_text[start..];
        let params = &body[body.find('(').unwrap() + 1..body.find(')').unwrap()];
        let count = params.trim().trim_end_matches(',').matches(',').count() + 1;
        rust.insert("runway_import".into(), count);
        // runway_analyse, looked up the same way, has the same C parameter types.
        if sys_text.contains("pub type runway_analyse_fn = runway_import_fn;") {
            rust.insert("runway_analyse".into(), count);
        }
    }
    // The other functions looked up at run time: `pub type runway_X_fn = unsafe extern "C" fn(...)`.
    let mut rest = sys_text.as_str();
    while let Some(at) = rest.find("pub type runway_") {
        let body = &rest[at + "pub type ".len()..];
        rest = body;
        let Some((name, sig)) = body.split_once("_fn = unsafe extern \"C\" fn(") else { continue };
        if name.contains(char::is_whitespace) || name == "runway_import" {
            continue;
        }
        let params = &sig[..sig.find(')').unwrap()];
        let params = params.trim().trim_end_matches(',');
        let count = if params.is_empty() { 0 } else { params.matches(',').count() + 1 };
        rust.insert(name.to_owned(), count);
    }
    for (name, count) in &c {
        assert_eq!(rust.get(name), Some(count), "{name}: sys.rs vs runway.h");
    }
    let extra: Vec<_> = rust
        .keys()
        .filter(|n| !c.contains_key(*n) && n.as_str() != "runway_import" && n.as_str() != "runway_analyse")
        .collect();
    assert!(extra.is_empty(), "in sys.rs but not in runway.h: {extra:?}");
}

/// The value of every `#define RUNWAY_<NAME> <integer expression>` of the header: a decimal
/// literal or a product of them, in parentheses or not.
fn integer_defines(header: &str) -> BTreeMap<String, u64> {
    let mut found = BTreeMap::new();
    for line in strip_comments(header).lines() {
        let mut words = line.split_whitespace();
        if words.next() != Some("#define") {
            continue;
        }
        let Some(name) = words.next().filter(|n| n.starts_with("RUNWAY_")) else { continue };
        let expr: String =
            words.collect::<Vec<_>>().join("").trim_matches(|c| c == '(' || c == ')').to_owned();
        let factors: Option<Vec<u64>> = expr.split('*').map(|f| f.parse::<u64>().ok()).collect();
        if let Some(factors) = factors.filter(|f| !f.is_empty()) {
            found.insert(name.to_owned(), factors.iter().product());
        }
    }
    found
}

#[test]
fn sys_constants_match_the_header_defines() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let Some(header) = header(&root) else { return };
    let defines = integer_defines(&header);
    use runway::sys;
    let mirrored: [(&str, u64); 11] = [
        ("RUNWAY_ABI_VERSION", sys::RUNWAY_ABI_VERSION.into()),
        ("RUNWAY_VERSION_MAJOR", sys::RUNWAY_VERSION_MAJOR.into()),
        ("RUNWAY_VERSION_MINOR", sys::RUNWAY_VERSION_MINOR.into()),
        ("RUNWAY_VERSION_PATCH", sys::RUNWAY_VERSION_PATCH.into()),
        ("RUNWAY_MAX_INPUT_BYTES", sys::RUNWAY_MAX_INPUT_BYTES as u64),
        ("RUNWAY_MAX_JSON_DEPTH", sys::RUNWAY_MAX_JSON_DEPTH as u64),
        ("RUNWAY_MAX_SUBSCRIBERS", sys::RUNWAY_MAX_SUBSCRIBERS as u64),
        ("RUNWAY_MAX_QUEUE_CAPACITY", sys::RUNWAY_MAX_QUEUE_CAPACITY as u64),
        ("RUNWAY_MAX_ROUTE_POINTS", sys::RUNWAY_MAX_ROUTE_POINTS as u64),
        ("RUNWAY_MAX_LAPS", sys::RUNWAY_MAX_LAPS as u64),
        ("RUNWAY_DEFAULT_QUEUE_CAPACITY", sys::RUNWAY_DEFAULT_QUEUE_CAPACITY as u64),
    ];
    for (name, value) in mirrored {
        assert_eq!(defines.get(name), Some(&value), "{name}: sys.rs vs runway.h");
    }
    assert_eq!(defines.get("RUNWAY_LOG_LINES"), Some(&(sys::RUNWAY_LOG_LINES as u64)));
    // Every integer define of the header is mirrored.
    let known: Vec<&str> = mirrored.iter().map(|(n, _)| *n).chain(["RUNWAY_LOG_LINES"]).collect();
    let missing: Vec<_> = defines.keys().filter(|n| !known.contains(&n.as_str())).collect();
    assert!(missing.is_empty(), "in runway.h but not mirrored in sys.rs: {missing:?}");
}
