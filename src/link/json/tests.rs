//! The hand-written JSON against serde's derive for `LinkState`.
use super::LinkState;

fn theirs(text: &str) -> Option<LinkState> {
    serde_json::from_str::<LinkState>(text).ok()
}

#[test]
fn written_as_serde_writes() {
    for (tutorial, step, lang) in [
        (None, None, None),
        (
            Some("basics".to_string()),
            Some(3),
            Some("pt-BR".to_string()),
        ),
        (None, Some(0), None),
        (None, None, Some("ja".to_string())),
    ] {
        let state = LinkState {
            db: "db = { t: [ {_id: 1, s: 'é😀\"\\\n\t\u{1}\u{7f}'} ] }".into(),
            script: "db.t.find()\r\n// </script>".into(),
            now: -1_700_000_000_123,
            seed: u64::MAX,
            view: "tree".into(),
            tutorial,
            step,
            lang,
            tz: None,
        };
        assert_eq!(
            state.to_json(),
            serde_json::to_string(&state).unwrap_or_default()
        );
    }
}

#[test]
fn read_as_serde_reads() {
    let values = [
        r#""x""#,
        "1",
        "-1",
        "1.0",
        "1e3",
        "null",
        "true",
        "[]",
        "{}",
        "4294967295",
        "4294967296",
        "18446744073709551615",
        "-9223372036854775808",
        "9223372036854775808",
        r#""shell""#,
    ];
    let base = [
        ("db", r#""a""#),
        ("script", r#""b""#),
        ("now", "5"),
        ("seed", "7"),
        ("view", r#""tree""#),
        ("tutorial", r#""t""#),
        ("step", "2"),
        ("lang", r#""de""#),
    ];
    let mut n = 0;
    let mut check = |text: String| {
        assert_eq!(LinkState::from_json(&text).ok(), theirs(&text), "{text}");
        n += 1;
    };
    for drop in 0..=base.len() {
        for (i, _) in base.iter().enumerate() {
            for v in values {
                let fields: Vec<String> = base
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != drop)
                    .map(|(j, (k, val))| format!("\"{k}\":{}", if j == i { v } else { val }))
                    .collect();
                check(format!("{{{}}}", fields.join(",")));
                check(format!("{{\"extra\":[1,{{}}],{}}}", fields.join(",")));
                let items: Vec<&str> = base
                    .iter()
                    .enumerate()
                    .take(drop)
                    .map(|(j, (_, val))| if j == i { v } else { *val })
                    .collect();
                check(format!("[{}]", items.join(",")));
            }
        }
    }
    for text in [
        "",
        "null",
        "1",
        "\"s\"",
        "[",
        "{",
        r#"{"db":"a","script":"b","now":1,"seed":2} x"#,
        r#"["a","b",1,2,"shell",null,null,1]"#,
        r#"["a","b",1,2,"shell",null,null,"ko",1]"#,
        r#"["a","b",1,2,"shell",null,null]"#,
    ] {
        check(text.to_string());
    }
    assert!(n > 1000);
}
