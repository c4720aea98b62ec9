//! The reader against `serde_json::from_str::<Value>`.
use super::parse;
use serde_json::Value;

fn same(text: &str) -> bool {
    let theirs = serde_json::from_str::<Value>(text).ok();
    if let Some(v) = &theirs {
        assert_eq!(
            super::to_string(v),
            serde_json::to_string(v).unwrap_or_default(),
            "{text:?}"
        );
    }
    let ours = parse(text).ok();
    // Debug text: keeps key order and number kinds (and NaN cannot occur).
    assert_eq!(format!("{ours:?}"), format!("{theirs:?}"), "{text:?}");
    theirs.is_some()
}

#[test]
fn same_values_as_serde_json() {
    let atoms = [
        "null",
        "true",
        "false",
        "nul",
        "tru",
        "True",
        "0",
        "-0",
        "1",
        "-1",
        "01",
        "00",
        "1.5",
        "-1.5e3",
        "1e400",
        "-1e400",
        "1e-400",
        "1.",
        ".5",
        "1e",
        "1e+",
        "1E+2",
        "-",
        "+1",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "0.1",
        "2.2250738585072014e-308",
        "1.7976931348623157e308",
        "3.141592653589793238462643383279",
        "1e22",
        "1e23",
        "9007199254740993",
        "NaN",
        "Infinity",
        r#""""#,
        r#""a""#,
        r#""é😀""#,
        r#""\"\\\/\b\f\n\r\t""#,
        r#""\u0041\u00e9""#,
        r#""\ud83d\ude00""#,
        r#""\ud83d""#,
        r#""\ude00""#,
        r#""\ud83dx""#,
        r#""\ud83d\u0041""#,
        r#""\u12""#,
        r#""\x""#,
        "\"a\u{1}b\"",
        "\"a\u{7f}b\"",
        r#""unterminated"#,
        r#""\u00""#,
        r#""\uZZZZ""#,
    ];
    let mut n = 0;
    let mut ok = 0;
    let mut check = |t: String| {
        n += 1;
        ok += usize::from(same(&t));
    };
    for a in atoms {
        check(a.to_string());
        check(format!(" {a} "));
        check(format!("[{a}]"));
        check(format!("[{a},{a}]"));
        check(format!("{{\"k\":{a}}}"));
        check(format!("{{\"k\" : {a} , \"j\":[{a}]}}"));
        check(format!("[{a}"));
        check(format!("{a}x"));
        check(format!("{{{a}:1}}"));
    }
    for t in [
        "",
        " ",
        "[]",
        "{}",
        "[,]",
        "[1,]",
        "{,}",
        "{\"a\":1,}",
        "{\"a\"}",
        "{\"a\" 1}",
        "{\"a\":1 \"b\":2}",
        "{\"a\":1,\"a\":2,\"b\":3}",
        "{\"b\":1,\"a\":2,\"b\":3}",
        "[1 2]",
        "\t\n\r[ 1 , { } ]\n",
        "\u{a0}1",
        "[1]\u{a0}",
        "{\"a\":[{\"b\":[]}]}",
        "]",
        "}",
        "[}",
        "{]",
    ] {
        check(t.to_string());
    }
    for depth in [1, 126, 127, 128, 129, 200] {
        check(format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
        check(format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)));
    }
    assert!(n > 400 && ok > 150, "{n} {ok}");
}

#[test]
fn written_as_serde_json_writes() {
    let v = serde_json::json!({
        "s": "é\"\\\n\u{1}\u{7f}\u{2028}😀", "n": [0, -1, u64::MAX, i64::MIN, 1.5, -0.0, 1e300, 1e-7, 123456789.125],
        "o": {"b": null, "a": [true, false, {}]}, "": []
    });
    assert_eq!(
        super::to_string(&v),
        serde_json::to_string(&v).unwrap_or_default()
    );
}
