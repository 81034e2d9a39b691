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
    for j in ["", "[1]", "\"kind\"", "{", "{\"kind\"", "{\"kind\":", "{\"kind\":\"fl", "{}", "{\"a\":[1,2"] {
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
