//! The byte reader (`shell::plain`) against the token reader: the same configuration text
//! must give the same collections, or the same error at the same position.
use super::{parse_database, parse_database_by_tokens};
use crate::shell::LowerCtx;
use proptest::prelude::*;
use std::collections::HashMap;

fn both(src: &str, extjson: bool) -> (String, String) {
    let vars = HashMap::new();
    let new_id = || bson::oid::ObjectId::from_bytes([7; 12]);
    let ctx = LowerCtx {
        vars: &vars,
        now: bson::DateTime::from_millis(1_700_000_000_000),
        extjson,
        new_id: &new_id,
        tz: None,
    };
    // Debug output tells -0.0 from 0.0 and Int32 from Double.
    let show = |r: crate::Result<Vec<(String, Vec<bson::Document>)>>| match r {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!(
            "{} {} {:?} {:?} {}",
            e.code, e.code_name, e.span, e.source, e.message
        ),
    };
    (
        show(parse_database(src, &ctx)),
        show(parse_database_by_tokens(src, &ctx)),
    )
}

fn same(src: &str) -> Result<(), TestCaseError> {
    for extjson in [true, false] {
        let (plain, tokens) = both(src, extjson);
        prop_assert_eq!(plain, tokens, "{:?} (extjson {})", src, extjson);
    }
    Ok(())
}

const SCALARS: &[&str] = &[
    "0",
    "1",
    "-2",
    "-0",
    "- 3",
    "--4",
    "1.5",
    "-1.5",
    "1.",
    ".5",
    "-.5",
    "1e3",
    "2E-2",
    "1e+400",
    "1e",
    "017",
    "08",
    "08.5",
    "0x1F",
    "1_000",
    "10n",
    "-10n",
    "12345678901234567890",
    "2147483648",
    "-2147483648",
    "1.5.3",
    "3in",
    "true",
    "false",
    "null",
    "trueish",
    "undefined",
    "Infinity",
    "NaN",
    "x",
    "\"s\"",
    "'s'",
    "\"\"",
    "\"it's\"",
    "'say \"hi\"'",
    "\"a\\nb\"",
    "'\\u0041'",
    "\"é😀\u{2028}\"",
    "`t`",
    "\"unterminated",
    "NumberLong(5)",
    "NumberDecimal(\"1.5\")",
    "ISODate(\"2023-10-26T00:00:11.403Z\")",
    "ObjectId(\"5a934e000102030405000000\")",
    "new Date(0)",
    "Date()",
    "/a/i",
    "/a/x",
    "{\"$date\": \"2023-10-26T00:00:11.403Z\"}",
    "{\"$date\":\"2023-10-26T00:00:11Z\"}",
    "{$date: '2023-10-26T00:00:11.403+02:00'}",
    "{\"$date\":\"2023-10-26T00:00:11.403Z\"}",
    "{\"$date\":\"2023-10-26T00:00:11.403Z\" }",
    "{\"$date\":\"2023-10-26T00:00:11.403Z\",\"x\":1}",
    "{\"$date\":\"2023-10-26T00:00:11.403Z\"}.x",
    "{\"$date\":\"2023-10-26\"}",
    "{\"$date\":\"2023-10-26T00:00:11.403Z\\n\"}",
    "{\"$date\":'2023-10-26T00:00:11.403Z'}",
    "{\"$date\":\"\"}",
    "{\"$date\": \"not a date\"}",
    "{\"$date\": \"2023-10-26T00:00:11.403Z\", \"x\": 1}",
    "{\"$date\": {\"$numberLong\": \"5\"}}",
    "{\"$date\": \"2023-10-26T00:00:11.403Z\".x}",
    "{\"$oid\": \"5a934e000102030405000000\"}",
    "{\"$oid\": \"zz\"}",
    "{\"$numberLong\": \"5\"}",
    "{\"$numberInt\": \"5\"}",
    "{\"$minKey\": 1}",
    "{\"x\": 1, \"$date\": \"2023-10-26T00:00:11.403Z\"}",
    "{}",
    "[]",
    "{}.x",
    "[1](0)",
    "{}\n(1)",
    "1 + 2",
    "'a'.length",
    "[,]",
    "[1,,2]",
    "[...a]",
    "{...a}",
    "{[k]: 1}",
    "{a}",
    "{a() {}}",
    "{1: 2, 1.5: 3, 0x10: 4}",
];

const KEYS: &[&str] = &[
    "a",
    "_id",
    "$x",
    "\"b\"",
    "'c'",
    "\"a.b\"",
    "\"\"",
    "\"$date\"",
    "$date",
    "\"$oid\"",
    "\"$numberLong\"",
    "\"\\u0041\"",
    "\"é\"",
    "é",
    "true",
    "1",
    "x y",
];

const SPACES: &[&str] = &[
    "",
    "",
    "",
    " ",
    "\n",
    "\t",
    "\r\n",
    " /* c */ ",
    "// c\n",
    "\u{a0}",
    "\u{b}",
];

fn space() -> impl Strategy<Value = &'static str> {
    prop::sample::select(SPACES)
}

fn value() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(SCALARS).prop_map(str::to_string);
    leaf.prop_recursive(4, 48, 6, |inner| {
        let sep = prop::sample::select(&[",", ",", ",", ", ", ",\n", "", ",,"][..]);
        let trailing = prop::sample::select(&["", "", ","][..]);
        prop_oneof![
            (
                prop::collection::vec(
                    (prop::sample::select(KEYS), space(), inner.clone(), space()),
                    0..5
                ),
                sep.clone(),
                trailing.clone()
            )
                .prop_map(|(props, sep, trailing)| {
                    let body: Vec<String> = props
                        .into_iter()
                        .map(|(k, s1, v, s2)| format!("{s1}{k}{s2}:{s1}{v}{s2}"))
                        .collect();
                    format!("{{{}{trailing}}}", body.join(sep))
                }),
            (
                prop::collection::vec((space(), inner, space()), 0..5),
                sep,
                trailing
            )
                .prop_map(|(items, sep, trailing)| {
                    let body: Vec<String> = items
                        .into_iter()
                        .map(|(s1, v, s2)| format!("{s1}{v}{s2}"))
                        .collect();
                    format!("[{}{trailing}]", body.join(sep))
                }),
        ]
    })
}

/// A configuration of a few documents (and, now and then, something else).
fn configuration() -> impl Strategy<Value = String> {
    let doc = prop_oneof![
        8 => value().prop_filter("an object", |v| v.starts_with('{')),
        1 => value(),
    ];
    // Between documents: commas as data has them, and now and then a
    // comment, a hole, a missing or trailing comma.
    let sep = prop::sample::select(&[",", ",", ",\n", ", ", ",/**/", "", ",,", ", //c\n"][..]);
    (
        prop::collection::vec((space(), doc, sep), 0..6),
        space(),
        prop::sample::select(&["", "", ","][..]),
    )
        .prop_map(|(docs, s, trailing)| {
            let mut body = String::new();
            let n = docs.len();
            for (i, (s, d, sep)) in docs.into_iter().enumerate() {
                body.push_str(s);
                body.push_str(&d);
                body.push_str(if i + 1 < n { sep } else { trailing });
            }
            format!("db = {{c: [{body}{s}], d: [{{a: 1}}]}}")
        })
}

/// An edit at a char boundary: a byte range removed or a character inserted.
fn mutate(src: &str, at: usize, len: usize, insert: Option<char>) -> String {
    let mut start = at % (src.len() + 1);
    while !src.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + len).min(src.len());
    while !src.is_char_boundary(end) {
        end += 1;
    }
    let mut out = src[..start].to_string();
    if let Some(c) = insert {
        out.push(c);
        out.push_str(&src[start..]);
    } else {
        out.push_str(&src[end..]);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_byte_reader_reads_what_the_token_reader_reads(src in configuration()) {
        same(&src)?;
    }

    #[test]
    fn and_fails_where_it_fails(
        src in configuration(),
        edits in prop::collection::vec(
            (any::<usize>(), 0usize..4, prop::option::of(prop::sample::select(
                &['{', '}', '[', ']', ',', ':', '"', '\'', '/', '\\', '.', '-', '(', '\n', 'e', '1', '$', 'é'][..]
            ))),
            1..4,
        ),
    ) {
        let mut text = src;
        for (at, len, insert) in edits {
            text = mutate(&text, at, len, insert);
        }
        same(&text)?;
    }
}

/// Nesting around the 200-level limit, in objects, arrays and under a sign
/// (on a thread with room for an unoptimised build's frames).
#[test]
fn nesting_limits_are_the_token_readers() {
    let checked = std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(nesting_limits)
        .map(|h| h.join());
    assert!(matches!(checked, Ok(Ok(()))));
}

fn nesting_limits() {
    for n in [197, 198, 199, 200, 201, 202, 3000] {
        for (open, close, leaf) in [
            ("{a:", "}", "1"),
            ("[", "]", "1"),
            ("[", "]", "-1"),
            ("{\"a\": ", "}", "-1.5"),
            ("[", "]", "{\"$date\": \"2023-10-26T00:00:11.403Z\"}"),
            ("{a:", "}", "NumberLong(1)"),
        ] {
            let src = format!(
                "db = {{c: [{{x: {}{leaf}{}}}]}}",
                open.repeat(n),
                close.repeat(n)
            );
            let (plain, tokens) = both(&src, true);
            assert_eq!(plain, tokens, "{open} × {n} {leaf}");
        }
    }
}

#[test]
fn data_shaped_like_the_benchmarks_reads_the_same() {
    let mut src = String::from("db = {\"trades\":[\n");
    for i in 0..50 {
        src.push_str(&format!(
            "{{\"_id\":{i},\"customerId\":{},\"type\":\"sell\",\"ticker\":\"META\",\"qty\":{}.5,\
             \"date\":{{\"$date\":\"2023-10-26T00:{:02}:11.403Z\"}},\"tags\":[\"a\",-{i},true,null]}},\n",
            100 + i,
            i * 7,
            i
        ));
    }
    src.push_str("{}]}\n");
    let (plain, tokens) = both(&src, true);
    assert_eq!(plain, tokens);
    assert!(plain.contains("DateTime"), "{plain}");
}
