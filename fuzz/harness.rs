//! What every robustness check asserts, shared by the fuzz targets
//! (fuzz/fuzz_targets/*.rs), the property tests (tests/robustness_props.rs)
//! and the regression runner (tests/regressions.rs). Each entry point takes
//! raw bytes, runs the engine and panics only if an invariant breaks:
//! a run never panics; every error has a code name and a message, and its
//! span (if any) lies inside the text it points into, on character boundaries;
//! every result prints (shell text, both Extended JSON modes).
#![allow(dead_code)]

use super::grammar::{Gen, DB};
use mqlplay::text::extjson::{self, Mode};
use mqlplay::{Error, RunCtx, RunOutput, Source};

/// An entry point: raw bytes in, a panic when an invariant breaks.
pub type Target = fn(&[u8]);

/// The fuzz targets, by the name of their folder under tests/regressions/.
pub const TARGETS: &[(&str, Target)] = &[
    ("reader", reader),
    ("filter", filter),
    ("update", update),
    ("pipeline", pipeline),
    ("link", link),
    ("script", script),
    // Not a fuzz target: hand-written scripts (text) run against the grammar's database.
    ("scripts", script_text),
];

pub fn check_error(e: &Error, db: &str, script: &str) {
    assert!(!e.code_name.is_empty(), "error without a code name: {e:?}");
    assert!(
        !e.message.trim().is_empty(),
        "error without a message: {e:?}"
    );
    if let Some(span) = e.span {
        let text = match e.source {
            Source::Script => script,
            Source::Database => db,
        };
        assert!(
            span.start <= span.end
                && span.end <= text.len()
                && text.is_char_boundary(span.start)
                && text.is_char_boundary(span.end),
            "span {span:?} outside the {:?} text ({} bytes): {e}",
            e.source,
            text.len()
        );
        let _ = e.place(db, script);
        let _ = e.one_line(db, script);
    }
}

/// Run a script and check the invariants; returns the output for further checks.
pub fn run_checked(db: &str, script: &str, ctx: &RunCtx) -> RunOutput {
    let out = mqlplay::run(db, script, ctx);
    for r in &out.results {
        let _ = mqlplay::text::shell::print(r);
        let _ = extjson::to_json(r, Mode::Canonical);
    }
    let _ = out.to_json(Mode::Relaxed, db, script);
    if let Some(e) = &out.error {
        check_error(e, db, script);
    }
    out
}

fn run(db: &str, script: &str) -> RunOutput {
    run_checked(db, script, &RunCtx::default())
}

/// The reader: scripts and configurations as raw text, and the formatter.
pub fn reader(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match mqlplay::shell::parse_script(&text) {
        Ok(_) => {
            if let Ok(formatted) = mqlplay::format(&text) {
                // Formatting is idempotent.
                let again = mqlplay::format(&formatted);
                assert_eq!(
                    again.as_deref(),
                    Ok(formatted.as_str()),
                    "format is not idempotent"
                );
            }
        }
        Err(e) => check_error(&e, "", &text),
    }
    // As a configuration, and as a script (each in its own pane).
    run(&text, "");
    run("", &text);
}

/// Filters: compiled, then matched against every kind of document.
pub fn filter(data: &[u8]) {
    let mut g = Gen::new(data);
    let f = g.filter();
    let script = match g.pick(4) {
        0 => format!("db.c.find({f})"),
        1 => format!("db.c.countDocuments({f})"),
        2 => format!("db.c.find({f}, {})", g.projection()),
        _ => format!("db.c.deleteMany({f})"),
    };
    run(DB, &script);
}

/// Updates: operators, pipelines and replacements, with options and upserts.
pub fn update(data: &[u8]) {
    let mut g = Gen::new(data);
    let method = ["updateMany", "updateOne", "findOneAndUpdate"][g.pick(3)];
    let f = g.filter();
    let u = g.update();
    let upsert = ["false", "true"][g.pick(2)];
    let af = match g.pick(3) {
        0 => String::new(),
        _ => format!(", arrayFilters: [{{e: {}}}]", g.value()),
    };
    run(
        DB,
        &format!("db.c.{method}({f}, {u}, {{upsert: {upsert}{af}}})"),
    );
}

/// Aggregation pipelines.
pub fn pipeline(data: &[u8]) {
    let mut g = Gen::new(data);
    let p = g.pipeline();
    run(DB, &format!("db.c.aggregate({p})"));
}

/// Whole scripts of several statements.
pub fn script(data: &[u8]) {
    let mut g = Gen::new(data);
    let s = g.script();
    run(DB, &s);
}

/// A script as text, against the grammar's database.
pub fn script_text(data: &[u8]) {
    run(DB, &String::from_utf8_lossy(data));
}

/// Share links: raw text, and raw bytes deflated and wrapped as a `v1` link
/// (so the JSON parser and validation see damage the inflater lets through).
pub fn link(data: &[u8]) {
    use base64::Engine;
    let text = String::from_utf8_lossy(data);
    let mut states = Vec::new();
    match mqlplay::link::decode(&text) {
        Ok(s) => states.push(s),
        Err(e) => check_error(&e, "", ""),
    }
    let deflated = miniz_oxide::deflate::compress_to_vec(data, 1);
    let wrapped = format!(
        "v1{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(deflated)
    );
    match mqlplay::link::decode(&wrapped) {
        Ok(s) => states.push(s),
        Err(e) => {
            assert!(e.message.contains("share link"), "{e}");
            check_error(&e, "", "");
        }
    }
    for s in states {
        // What the page does with a link it opened: encode it again (same link) and run it.
        let again = mqlplay::link::decode(&mqlplay::link::encode(&s));
        assert_eq!(
            again.as_ref(),
            Ok(&s),
            "a decoded state does not round-trip"
        );
        let ctx = RunCtx::new(bson::DateTime::from_millis(s.now), s.seed);
        run_checked(&s.db, &s.script, &ctx);
    }
}
