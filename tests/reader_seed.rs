//! Regression tests for the reader on whole scripts and configurations.
use bson::{doc, Bson};
use mqlplay::config::parse_database;
use mqlplay::shell::{lower, parse_script, LowerCtx, NodeKind, StmtKind};
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

fn new_id() -> bson::oid::ObjectId {
    bson::oid::ObjectId::from_bytes([9; 12])
}

fn with_ctx<T>(f: impl FnOnce(&LowerCtx) -> T) -> T {
    let vars = HashMap::new();
    let ctx = LowerCtx {
        vars: &vars,
        now: bson::DateTime::from_millis(0),
        extjson: false,
        new_id: &new_id,
        tz: None,
    };
    f(&ctx)
}

fn date(s: &str) -> Bson {
    Bson::DateTime(bson::DateTime::parse_rfc3339_str(s).expect("date"))
}

#[test]
fn bucket_seed_parses_and_lowers() {
    let script = parse_script(SEED).expect("seed parses");
    assert_eq!(script.stmts.len(), 3);
    let StmtKind::Expr(insert) = &script.stmts[1].kind else {
        panic!("insertMany is an expression")
    };
    let NodeKind::Call { args, .. } = &insert.kind else {
        panic!("a call")
    };
    let docs = with_ctx(|ctx| lower(&args[0], ctx)).expect("lowers");
    let expected = Bson::Array(vec![
        Bson::Document(doc! {
            "_id": "123_1698349623", "customerId": 123, "count": 2,
            "history": [
                { "type": "buy", "ticker": "MDB", "qty": 419, "date": date("2023-10-26T15:47:03.434Z") },
                { "type": "sell", "ticker": "MDB", "qty": 29, "date": date("2023-10-30T09:32:57.765Z") },
            ]
        }),
        Bson::Document(doc! {
            "_id": "456_1698765362", "customerId": 456, "count": 1,
            "history": [ { "type": "buy", "ticker": "GOOG", "quantity": 50, "date": date("2023-10-31T11:16:02.120Z") } ]
        }),
    ]);
    assert_eq!(docs, expected);
    // The last statement is the whole chain, ending in `.limit(1)`.
    let StmtKind::Expr(find) = &script.stmts[2].kind else {
        panic!()
    };
    assert!(SEED[find.span.start..find.span.end].ends_with(".limit(1)"));
}

#[test]
fn malformed_inputs_give_spanned_errors() {
    let cases = [
        &SEED[..SEED.len() / 2],
        "db.trades.find({a: 1}",
        "db.trades.find({a: [1, 2})",
        "db.trades.find({a: 1 b: 2})",
        "db.x.insertOne({_id: ObjectId(\"5a934e00010203040500000\")})",
        "\u{0}\u{1}\u{ff}\u{fffd}garbage\u{7}",
        "]]]",
        "{{{{",
        "'unterminated",
        "/unterminated",
    ];
    for src in cases {
        let result = parse_script(src).and_then(|s| {
            with_ctx(|ctx| {
                for stmt in &s.stmts {
                    if let StmtKind::Expr(n) = &stmt.kind {
                        if let NodeKind::Call { args, .. } = &n.kind {
                            for a in args {
                                lower(a, ctx)?;
                            }
                        }
                    }
                }
                Ok(())
            })
        });
        let err = result.expect_err(src);
        let span = err.span.unwrap_or_else(|| panic!("{src}: no span"));
        assert!(
            span.start <= span.end && span.end <= src.len(),
            "{src}: {span:?}"
        );
    }
}

#[test]
fn object_id_error_points_at_the_call() {
    let src = "db.x.insertOne({_id: ObjectId(\"5a934e00010203040500000\")})";
    let script = parse_script(src).expect("parses");
    let StmtKind::Expr(n) = &script.stmts[0].kind else {
        panic!()
    };
    let NodeKind::Call { args, .. } = &n.kind else {
        panic!()
    };
    let err = with_ctx(|ctx| lower(&args[0], ctx)).expect_err("23 digits");
    let span = err.span.expect("span");
    assert_eq!(
        &src[span.start..span.end],
        "ObjectId(\"5a934e00010203040500000\")"
    );
}

#[test]
fn configuration_forms() {
    let got = with_ctx(|ctx| {
        parse_database(
            "db = {\n  trades: [ { a: 1, b: ISODate('2023-10-26') } ],\n  other: [],\n}",
            ctx,
        )
    })
    .expect("config");
    assert_eq!(
        got[0],
        (
            "trades".to_string(),
            vec![doc! {"a": 1, "b": date("2023-10-26T00:00:00Z")}]
        )
    );
    assert_eq!(got[1], ("other".to_string(), vec![]));
}

/// Nesting up to the reader's limit works everywhere (in a debug build's 2 MB
/// test thread), and one level more is a clear error, not a stack overflow.
#[test]
fn deep_nesting_up_to_the_limit() {
    let levels = mqlplay::shell::parser::MAX_DEPTH - 4; // the call chain uses a few
    let half = levels / 2;
    let src = format!(
        "db.x.insertOne({}1{})",
        "{a: [".repeat(half),
        "]}".repeat(half)
    );
    let script = parse_script(&src).expect("parses");
    let StmtKind::Expr(n) = &script.stmts[0].kind else {
        panic!()
    };
    let NodeKind::Call { args, .. } = &n.kind else {
        panic!()
    };
    with_ctx(|ctx| lower(&args[0], ctx)).expect("lowers");
    mqlplay::shell::format_script(&src).expect("formats");
    let cfg = format!("[{}1{}]", "{a: [".repeat(half - 1), "]}".repeat(half - 1));
    with_ctx(|ctx| parse_database(&cfg, ctx)).expect("reads");
    let too_deep = format!(
        "x = {}1{}",
        "[".repeat(mqlplay::shell::parser::MAX_DEPTH + 1),
        "]".repeat(mqlplay::shell::parser::MAX_DEPTH + 1)
    );
    let err = parse_script(&too_deep).expect_err("too deep");
    assert!(
        err.message.contains("nesting is too deep"),
        "{}",
        err.message
    );
}
