#![cfg(not(target_arch = "wasm32"))]
//! Property tests of the reader: mutated scripts never panic and errors point
//! inside the text; printed values read back; the formatter is idempotent and
//! keeps meaning.
use bson::oid::ObjectId;
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Document};
use mqlplay::config::parse_database;
use mqlplay::shell::ast::{Node, NodeKind, Script, StmtKind};
use mqlplay::shell::format::quote;
use mqlplay::shell::number::js_number_to_string;
use mqlplay::shell::{format_script, lower, parse_expression, parse_script, LowerCtx};
use proptest::prelude::*;
use std::collections::HashMap;

const SEED: &str = r#"db.trades.drop()

db.trades.insertMany(
 [
 {
 "_id": "123_1698349623",
 "customerId": 123,
 "count": 2,
 "history": [
 { "type": "buy", "ticker": "MDB", "qty": 419, "date": ISODate("2023-10-26T15:47:03.434Z") },
 { "type": "sell", "ticker": "MDB", "qty": 29, "date": ISODate("2023-10-30T09:32:57.765Z") }
 ]
 },
 {
 "_id": "456_1698765362",
 "customerId": 456,
 "count": 1,
 "history": [ { "type" : "buy", "ticker" : "GOOG", "quantity" : 50, "date" : ISODate("2023-10-31T11:16:02.120Z") } ]
 },
 ]
)
db.trades.find( { "_id": /^123_/ } ).sort( { _id: 1 } ).skip(9).limit(1)
"#;

/// Snippets worth inserting: brackets, quotes, escapes, constructors, comments.
const SNIPPETS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ":",
    ";",
    "'",
    "\"",
    "`",
    "/",
    "\\",
    "\\u{",
    "\\x",
    "ObjectId(",
    "new ",
    "-",
    "--",
    ".",
    "\n",
    "/*",
    "*/",
    "//",
    "${",
    "0x",
    "1e",
    "1.",
    "\u{0}",
    "é",
    "😀",
    "\u{2028}",
    "=",
    "const ",
    "show ",
    "use ",
    "NaN",
    "undefined",
    "ISODate('",
    "1n",
    "...",
    "=>",
    "?.",
    "[[[[[[[[",
    "-------",
    ".a.b.c.d",
];

fn new_id() -> ObjectId {
    ObjectId::from_bytes([5; 12])
}

fn with_ctx<T>(extjson: bool, f: impl FnOnce(&LowerCtx) -> T) -> T {
    let vars = HashMap::from([("x".to_string(), Bson::Int32(1))]);
    let ctx = LowerCtx {
        vars: &vars,
        now: bson::DateTime::from_millis(0),
        extjson,
        new_id: &new_id,
        tz: None,
    };
    f(&ctx)
}

/// Lower every literal argument and value of a script (what the engine would do).
fn lower_all(script: &Script, ctx: &LowerCtx) -> mqlplay::Result<()> {
    fn args(node: &Node, ctx: &LowerCtx) -> mqlplay::Result<()> {
        match &node.kind {
            NodeKind::Call { callee, args: a } => {
                args(callee, ctx)?;
                for x in a {
                    lower(x, ctx)?;
                }
                Ok(())
            }
            NodeKind::Member { object, .. } => args(object, ctx),
            NodeKind::Ident(_) => Ok(()),
            _ => lower(node, ctx).map(|_| ()),
        }
    }
    for stmt in &script.stmts {
        match &stmt.kind {
            StmtKind::Expr(n) => args(n, ctx)?,
            StmtKind::Assign { value, .. } => {
                lower(value, ctx)?;
            }
            StmtKind::Shell { .. } => {}
        }
    }
    Ok(())
}

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, usize),
    Swap(usize, usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..8).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, s)| Edit::Insert(a, s)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap(a, b)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn mutate(src: &str, edits: &[Edit], raw: &[u8]) -> String {
    let mut b = src.as_bytes().to_vec();
    for (k, e) in edits.iter().enumerate() {
        let len = b.len().max(1);
        match *e {
            Edit::Delete(a, n) => {
                let a = a % len;
                let end = (a + n).min(b.len());
                if a < end {
                    b.drain(a..end);
                }
            }
            Edit::Insert(a, s) => {
                let a = a % (b.len() + 1);
                let piece: Vec<u8> = if s % 5 == 0 {
                    raw.get(k % raw.len().max(1)..)
                        .unwrap_or(&[])
                        .iter()
                        .take(3)
                        .copied()
                        .collect()
                } else {
                    SNIPPETS[s % SNIPPETS.len()].as_bytes().to_vec()
                };
                b.splice(a..a, piece);
            }
            Edit::Swap(x, y) => {
                if !b.is_empty() {
                    let (x, y) = (x % b.len(), y % b.len());
                    b.swap(x, y);
                }
            }
            Edit::Truncate(a) => b.truncate(a % len),
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

fn check_error_span(src: &str, e: &mqlplay::Error) -> Result<(), TestCaseError> {
    let span = e
        .span
        .ok_or_else(|| TestCaseError::fail(format!("no span: {e}")))?;
    prop_assert!(
        span.start <= span.end && span.end <= src.len(),
        "span {:?} outside {} bytes: {}",
        span,
        src.len(),
        e
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    /// (a) Mutated seed scripts: Ok or a spanned error, never a panic; the
    /// formatter agrees with the parser about what is valid.
    #[test]
    fn mutated_scripts_never_panic(edits in prop::collection::vec(edit(), 1..6), raw in prop::collection::vec(any::<u8>(), 0..12)) {
        let src = mutate(SEED, &edits, &raw);
        match parse_script(&src) {
            Ok(script) => {
                if let Err(e) = with_ctx(false, |ctx| lower_all(&script, ctx)) {
                    check_error_span(&src, &e)?;
                }
                let formatted = format_script(&src);
                prop_assert!(formatted.is_ok(), "formatter refused parseable text: {:?}", formatted.err());
            }
            Err(e) => {
                check_error_span(&src, &e)?;
                prop_assert!(format_script(&src).is_err());
            }
        }
        if let Err(e) = with_ctx(true, |ctx| parse_database(&src, ctx)) {
            check_error_span(&src, &e)?;
        }
    }
}

// ---- (b) values printed as mongosh literals read back ----

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_$][a-zA-Z0-9_$]{0,6}",
        "[ -~]{0,6}",
        any::<String>().prop_map(|s| s.chars().take(5).filter(|c| *c != '\0').collect()),
    ]
}

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        any::<i32>().prop_map(Bson::Int32),
        any::<f64>()
            .prop_filter("no NaN", |d| !d.is_nan())
            .prop_map(Bson::Double),
        (-1e6f64..1e6).prop_map(Bson::Double),
        any::<i64>().prop_map(Bson::Int64),
        any::<String>().prop_map(Bson::String),
        "[ -~]{0,12}".prop_map(Bson::String),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        any::<[u8; 12]>().prop_map(|b| Bson::ObjectId(ObjectId::from_bytes(b))),
        (-62_167_219_200_000i64..=253_402_300_799_999)
            .prop_map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms))),
        (any::<i64>(), 0u32..10).prop_map(|(m, e)| {
            let s = format!("{m}E-{e}");
            Bson::Decimal128(s.parse().unwrap_or_else(|_| "0".parse().expect("zero")))
        }),
        (
            "[a-zA-Z0-9 .*+?$^]{1,8}",
            prop::sample::subsequence(vec!['i', 'm', 's', 'x'], 0..=4)
        )
            .prop_map(|(p, o)| {
                let re = bson::Regex {
                    pattern: format!("^{p}").try_into().expect("no NUL"),
                    options: o
                        .into_iter()
                        .collect::<String>()
                        .try_into()
                        .expect("no NUL"),
                };
                Bson::RegularExpression(re)
            }),
        (any::<u32>(), any::<u32>())
            .prop_map(|(time, increment)| Bson::Timestamp(bson::Timestamp { time, increment })),
        (0u8..=5, prop::collection::vec(any::<u8>(), 0..20)).prop_map(|(s, bytes)| Bson::Binary(
            Binary {
                subtype: BinarySubtype::from(s),
                bytes
            }
        )),
        Just(Bson::MinKey),
        Just(Bson::MaxKey),
    ]
}

fn value() -> impl Strategy<Value = Bson> {
    scalar().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Bson::Array),
            prop::collection::vec((key(), inner), 0..6).prop_map(|kv| {
                let mut d = Document::new();
                for (k, v) in kv {
                    d.insert(k, v);
                }
                Bson::Document(d)
            }),
        ]
    })
}

fn print_key(k: &str) -> String {
    let plain = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if plain {
        k.to_string()
    } else {
        quote(k)
    }
}

/// A mongosh literal for a value (what a user would type).
fn print(v: &Bson) -> String {
    match v {
        Bson::Int32(i) => i.to_string(),
        Bson::Double(d) if d.fract() == 0.0 && d.abs() <= 2147483648.0 => {
            format!("Double({})", js_number_to_string(*d))
        }
        Bson::Double(d) => js_number_to_string(*d),
        Bson::Int64(i) => format!("NumberLong('{i}')"),
        Bson::String(s) => quote(s),
        Bson::Boolean(b) => b.to_string(),
        Bson::Null => "null".into(),
        Bson::ObjectId(id) => format!("ObjectId('{}')", id.to_hex()),
        Bson::DateTime(d) => format!(
            "ISODate('{}')",
            d.try_to_rfc3339_string().expect("in range")
        ),
        Bson::Decimal128(d) => format!("NumberDecimal('{d}')"),
        // A literal's flags reach the server as mongosh's driver writes them
        // (g is the s option); x has no JavaScript flag: BSONRegExp.
        Bson::RegularExpression(r) if !r.options.as_str().contains('x') => {
            let flags: String = [('s', 'g'), ('i', 'i'), ('m', 'm')]
                .into_iter()
                .filter(|(o, _)| r.options.as_str().contains(*o))
                .map(|(_, f)| f)
                .collect();
            format!("/{}/{flags}", r.pattern)
        }
        Bson::RegularExpression(r) => {
            format!("BSONRegExp({}, '{}')", quote(r.pattern.as_str()), r.options)
        }
        Bson::Timestamp(t) => format!("Timestamp({}, {})", t.time, t.increment),
        Bson::Binary(b) => {
            use base64::Engine;
            format!(
                "BinData({}, '{}')",
                u8::from(b.subtype),
                base64::engine::general_purpose::STANDARD.encode(&b.bytes)
            )
        }
        Bson::MinKey => "MinKey()".into(),
        Bson::MaxKey => "MaxKey".into(),
        Bson::Array(a) => format!("[{}]", a.iter().map(print).collect::<Vec<_>>().join(", ")),
        Bson::Document(d) => format!(
            "{{{}}}",
            d.iter()
                .map(|(k, v)| format!("{}: {}", print_key(k), print(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => panic!("not generated: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, ..ProptestConfig::default() })]

    /// (b) print → parse → lower gives the value back, through both the tree
    /// path (scripts) and the direct path (configurations).
    #[test]
    fn printed_values_read_back(v in value()) {
        let text = print(&v);
        let node = parse_expression(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        let got = with_ctx(false, |ctx| lower(&node, ctx)).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&got, &v, "{}", text);
        let config = format!("db = {{ c: [ {{ v: {text} }} ] }}");
        let db = with_ctx(true, |ctx| parse_database(&config, ctx)).map_err(|e| TestCaseError::fail(format!("{config}: {e}")))?;
        prop_assert_eq!(db[0].1[0].get("v"), Some(&v), "{}", config);
    }
}

// ---- (c) formatter: idempotent and meaning-preserving ----

/// Zero every span so trees from different layouts compare equal.
fn strip(n: &Node) -> Node {
    use NodeKind::*;
    let kind = match &n.kind {
        Object(ps) => Object(
            ps.iter()
                .map(|p| mqlplay::shell::Property {
                    key: p.key.clone(),
                    key_span: Default::default(),
                    value: strip(&p.value),
                })
                .collect(),
        ),
        Array(xs) => Array(xs.iter().map(strip).collect()),
        Member {
            object, property, ..
        } => Member {
            object: Box::new(strip(object)),
            property: property.clone(),
            property_span: Default::default(),
        },
        Index { object, index } => Index {
            object: Box::new(strip(object)),
            index: Box::new(strip(index)),
        },
        Call { callee, args } => Call {
            callee: Box::new(strip(callee)),
            args: args.iter().map(strip).collect(),
        },
        New { callee, args } => New {
            callee: Box::new(strip(callee)),
            args: args.iter().map(strip).collect(),
        },
        Neg(x) => Neg(Box::new(strip(x))),
        other => other.clone(),
    };
    Node {
        kind,
        span: Default::default(),
    }
}

fn meaning(script: &Script) -> Vec<String> {
    script
        .stmts
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Expr(n) => format!("expr {:?}", strip(n)),
            StmtKind::Assign { name, value, .. } => format!("let {name} = {:?}", strip(value)),
            StmtKind::Shell { command, arg } => format!("shell {command} {arg:?}"),
        })
        .collect()
}

/// Separators a person might leave between tokens where JavaScript allows a break.
const SEPS: &[&str] = &[
    "",
    " ",
    "\n",
    "\n    ",
    " /* c */ ",
    " // note\n",
    "\n// own line\n",
    "  ",
];

/// Print a value with random layout (`seps` is consumed cyclically).
fn print_laid_out(v: &Bson, seps: &[usize], k: &mut usize) -> String {
    let mut sep = || {
        *k += 1;
        SEPS[seps.get(*k % seps.len().max(1)).copied().unwrap_or(0) % SEPS.len()]
    };
    match v {
        Bson::Array(a) => {
            let mut s = format!("[{}", sep());
            for x in a {
                s += &print_laid_out(x, seps, k);
                s += &format!(
                    ",{}",
                    SEPS[seps.get(*k % seps.len().max(1)).copied().unwrap_or(0) % SEPS.len()]
                );
                *k += 1;
            }
            s + "]"
        }
        Bson::Document(d) => {
            let mut s = format!("{{{}", sep());
            for (key, x) in d {
                s += &format!("{}:{}", quote(key), SEPS[(*k + 1) % 2]);
                s += &print_laid_out(x, seps, k);
                s += &format!(
                    ",{}",
                    SEPS[seps.get(*k % seps.len().max(1)).copied().unwrap_or(0) % SEPS.len()]
                );
                *k += 1;
            }
            s + "}"
        }
        other => print(other),
    }
}

fn script() -> impl Strategy<Value = String> {
    let stmt = (0usize..5, value(), value(), prop::collection::vec(0usize..SEPS.len(), 1..12), 0u32..100).prop_map(
        |(kind, a, b, seps, n)| {
            let mut k = 0;
            let a = print_laid_out(&a, &seps, &mut k);
            let b = print_laid_out(&b, &seps, &mut k);
            match kind {
                0 => format!("db.coll.insertMany([{a}, {b}])"),
                1 => format!("var v{n} = {a}"),
                2 => format!("db.coll.find({a}, {b})\n  .sort({{ _id: -1 }}).skip({n})\n.limit(1)"),
                3 => format!("db.coll.updateOne({a}, {{ $set: {b} }}, {{ upsert: true }});"),
                _ => format!("// a comment\nshow collections\nuse db{n}\ndb.coll.aggregate([{{ $match: {a} }}])"),
            }
        },
    );
    prop::collection::vec((stmt, 0usize..3), 1..5).prop_map(|stmts| {
        stmts
            .into_iter()
            .map(|(s, gap)| s + &"\n".repeat(gap + 1))
            .collect::<String>()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn formatter_idempotent_and_faithful(src in script()) {
        let original = parse_script(&src).map_err(|e| TestCaseError::fail(format!("generated script does not parse: {e}\n{src}")))?;
        let once = format_script(&src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        let twice = format_script(&once).map_err(|e| TestCaseError::fail(format!("{e}\n{once}")))?;
        prop_assert_eq!(&once, &twice, "not idempotent:\n{}", src);
        let reparsed = parse_script(&once).map_err(|e| TestCaseError::fail(format!("{e}\n{once}")))?;
        prop_assert_eq!(meaning(&original), meaning(&reparsed), "meaning changed:\n{}\n=>\n{}", src, once);
        for line in once.lines() {
            prop_assert!(!line.ends_with(' '), "trailing space in {:?}", line);
        }
    }
}

/// A large configuration goes through the direct path in one piece (a sanity
/// check of the fast path's shape, not a timing).
#[test]
fn large_configuration_reads() {
    let mut src = String::from("db = {\n  big: [\n");
    for i in 0..20_000 {
        src += &format!(
            "    {{ \"_id\": {i}, \"name\": \"item {i}\", \"tags\": [\"a\", \"b\"], \"price\": {}.5, \"when\": {{\"$date\": \"2023-10-26T15:47:03.434Z\"}} }},\n",
            i % 100
        );
    }
    src += "  ]\n}\n";
    let db = with_ctx(true, |ctx| parse_database(&src, ctx)).expect("reads");
    assert_eq!(db[0].1.len(), 20_000);
    assert_eq!(
        db[0].1[7].get("when"),
        Some(&Bson::DateTime(bson::DateTime::from_millis(
            1_698_335_223_434
        )))
    );
    assert_eq!(db[0].1[7].get("price"), Some(&Bson::Double(7.5)));
}

// ---- (d) formatting never changes what a script does ----

/// What a run produced, without the error's place (formatting moves text).
fn outcome(out: &mqlplay::RunOutput) -> (String, Option<(i32, String)>) {
    let mut json = out.to_json(mqlplay::text::extjson::Mode::Canonical, "", "");
    if let Some(obj) = json.as_object_mut() {
        obj.remove("error");
    }
    (
        json.to_string(),
        out.error.as_ref().map(|e| (e.code, e.message.clone())),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, failure_persistence: None, ..ProptestConfig::default() })]

    /// format → run gives the same results, collections and errors as run.
    #[test]
    fn formatted_scripts_run_the_same(src in script()) {
        let formatted = format_script(&src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        let ctx = mqlplay::RunCtx::default();
        let before = outcome(&mqlplay::run("", &src, &ctx));
        let after = outcome(&mqlplay::run("", &formatted, &ctx));
        prop_assert_eq!(before, after, "{}\n=>\n{}", src, formatted);
    }
}
