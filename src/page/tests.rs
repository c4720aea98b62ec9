//! The page's one-pass output against the value tree the page used to get
//! (bson's relaxed Extended JSON through serde_json), and the cache against fresh runs.
use super::*;
use crate::text::extjson::{self, Mode};
use bson::{Bson, DateTime};

/// What `wasm::run` returned before the one-pass writer (its code, natively).
fn tree_output(db: &str, script: &str, run: &RunCtx) -> serde_json::Value {
    let out = crate::run(db, script, run);
    let mut json = out.to_json(Mode::Relaxed, db, script);
    let serde_json::Value::Object(obj) = &mut json else {
        unreachable!("an object")
    };
    let shell: Vec<serde_json::Value> =
        out.results.iter().map(|r| shell::print(r).into()).collect();
    obj.insert("shell".into(), shell.into());
    // A failed load has no collections to name.
    let loaded = crate::load_database(db, run).is_ok();
    let names: Vec<serde_json::Value> = out
        .collections
        .iter()
        .filter(|_| loaded)
        .map(|(n, _)| n.clone().into())
        .collect();
    obj.insert("names".into(), names.into());
    let mut work = String::new();
    write_work(&mut work, &out.work);
    obj.insert("work".into(), parsed(&work));
    let mut printed = serde_json::Map::new();
    let mut initial = serde_json::Map::new();
    let mut initial_shell = serde_json::Map::new();
    let printed_docs = |docs: &[bson::Document]| -> serde_json::Value {
        docs.iter()
            .map(|d| serde_json::Value::from(shell::print(&Bson::Document(d.clone()))))
            .collect()
    };
    if let Ok(start) = crate::load_database(db, run) {
        let relaxed = |docs: &[bson::Document]| -> serde_json::Value {
            docs.iter()
                .map(|d| extjson::to_json(&Bson::Document(d.clone()), Mode::Relaxed))
                .collect()
        };
        let before: Vec<(&str, &[bson::Document])> =
            start.collections().map(|(n, c)| (n, c.docs())).collect();
        for (name, docs) in &out.collections {
            let old = before.iter().find(|(n, _)| n == name).map(|(_, d)| *d);
            if old.is_some_and(|old| old == docs.as_slice()) {
                continue;
            }
            let shell: Vec<serde_json::Value> = docs
                .iter()
                .map(|d| shell::print(&Bson::Document(d.clone())).into())
                .collect();
            printed.insert(name.clone(), shell.into());
            if let Some(old) = old {
                initial.insert(name.clone(), relaxed(old));
                initial_shell.insert(name.clone(), printed_docs(old));
            }
        }
        for (name, old) in &before {
            if !out.collections.iter().any(|(n, _)| n == name) {
                initial.insert((*name).to_string(), relaxed(old));
                initial_shell.insert((*name).to_string(), printed_docs(old));
            }
        }
    }
    obj.insert("collectionsShell".into(), printed.into());
    obj.insert("initial".into(), initial.into());
    obj.insert("initialShell".into(), initial_shell.into());
    let stmts = crate::shell::parse_script(script)
        .map_or(serde_json::json!([]), |p| statements_json(script, &p));
    obj.insert("stmts".into(), stmts);
    json
}

fn parsed(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

const DB: &str = r#"db = {
  trades: [
    { _id: 1, t: "MDB", qty: 5, at: ISODate("2023-10-26T15:47:03.434Z"), p: NumberDecimal("1.50"), x: -0.0 },
    { _id: 2, t: "ABC", qty: 7, at: new Date(0), tags: ["a", "b"], n: null, l: NumberLong(9) },
    { t: "noid", r: /ab+c/i, b: BinData(4, "AAECAw=="), ts: Timestamp(5, 6), big: 1e21 }
  ],
  other: [ { _id: "x", d: { e: [1, { f: 2.5 }] } } ]
}"#;

const SCRIPTS: &[&str] = &[
    "db.trades.find()",
    "db.trades.find({qty: {$gt: 5}}, {t: 1})",
    "db.trades.updateOne({_id: 1}, {$inc: {qty: 1}, $set: {when: new Date()}})\ndb.trades.find()",
    "db.trades.insertOne({_id: 3, t: 'NEW'})",
    // Stored documents answered in place are written before the next statement changes them.
    "db.trades.find({_id: {$gte: 1}}).sort({_id: -1})\ndb.trades.deleteOne({_id: 1})\ndb.trades.find().limit(1)\nx = db.trades.find()\ndb.trades.deleteMany({})\nx",
    "db.trades.find().next()\ndb.trades.findOne({_id: 2})\ndb.trades.find().itcount()",
    "db.trades.deleteOne({_id: 2})",
    "db.other.drop()",
    "db.created.insertMany([{a: 1}, {a: 2}])\ndb.created.countDocuments()",
    "db.trades.aggregate([{$group: {_id: null, n: {$sum: '$qty'}}}])",
    "db.trades.find({$bad: 1})",
    "db.trades.find({a: 1)",
    "x = 1",
    "",
];

fn ctx(now: i64, seed: u64) -> RunCtx {
    RunCtx::new(DateTime::from_millis(now), seed)
}

#[test]
fn same_content_as_the_value_tree() {
    let run = ctx(1_698_335_223_434, 7);
    for db in [DB, "[{_id: 1, a: 5}]", "", "db = { broken: [ { a: } ] }"] {
        for script in SCRIPTS {
            let text = run_once(db, script, &run);
            assert_eq!(
                parsed(&text),
                tree_output(db, script, &run),
                "{db}\n{script}"
            );
        }
    }
}

/// A judged run hands the judge what a run from scratch produces, and writes
/// its verdict as `check`.
#[test]
fn the_judge_sees_the_run_itself() {
    let run = ctx(1_698_335_223_434, 7);
    let mut cache = Cache::default();
    for db in [DB, "[{_id: 1, a: 5}]", "", "db = { broken: [ { a: } ] }"] {
        for script in SCRIPTS {
            let seen = std::cell::RefCell::new(None);
            let judge = |out: &RunOutput| {
                *seen.borrow_mut() = Some(out.to_json(Mode::Relaxed, db, script));
                serde_json::json!({"ok": true})
            };
            let text = run_judged(
                &mut cache,
                db,
                script,
                &run,
                Collections::Changed,
                Some(&judge),
            );
            let fresh = crate::run(db, script, &run).to_json(Mode::Relaxed, db, script);
            assert_eq!(seen.take(), Some(fresh), "{db}\n{script}");
            assert_eq!(parsed(&text)["check"], serde_json::json!({"ok": true}));
        }
    }
    let plain = run_json(&mut cache, DB, SCRIPTS[0], &run, Collections::Changed);
    assert!(parsed(&plain).get("check").is_none());
}

#[test]
fn cached_runs_match_fresh_runs() {
    let mut cache = Cache::default();
    for (i, script) in SCRIPTS.iter().chain(SCRIPTS.iter().rev()).enumerate() {
        let run = ctx(1_000 * i as i64, 3);
        let cached = run_json(&mut cache, DB, script, &run, Collections::Changed);
        let fresh = run_json(
            &mut Cache::default(),
            DB,
            script,
            &run,
            Collections::Changed,
        );
        assert_eq!(cached, fresh, "{script}");
    }
    // The configuration reads the instant: a new instant loads it again.
    let db = "[{_id: 1, at: new Date()}]";
    let a = run_json(
        &mut cache,
        db,
        "db.collection.find()",
        &ctx(0, 1),
        Collections::All,
    );
    let b = run_json(
        &mut cache,
        db,
        "db.collection.find()",
        &ctx(5, 1),
        Collections::All,
    );
    assert!(
        a.contains("1970-01-01T00:00:00Z") && b.contains("1970-01-01T00:00:00.005Z"),
        "{a}\n{b}"
    );
    // Another seed: other generated ids.
    let c = run_json(
        &mut cache,
        "[{a: 1}]",
        "db.collection.find()",
        &ctx(0, 1),
        Collections::All,
    );
    let d = run_json(
        &mut cache,
        "[{a: 1}]",
        "db.collection.find()",
        &ctx(0, 2),
        Collections::All,
    );
    assert_eq!(c, run_once("[{a: 1}]", "db.collection.find()", &ctx(0, 1)));
    assert_eq!(d, run_once("[{a: 1}]", "db.collection.find()", &ctx(0, 2)));
}

#[test]
fn the_page_gets_only_changed_collections() {
    let run = ctx(0, 1);
    let text = run_json(
        &mut Cache::default(),
        DB,
        "db.trades.deleteOne({_id: 2})",
        &run,
        Collections::Changed,
    );
    let v = parsed(&text);
    let colls = v["collections"]
        .as_object()
        .map(|m| m.keys().cloned().collect::<Vec<_>>());
    assert_eq!(colls, Some(vec!["trades".to_string()]));
    assert_eq!(v["initial"]["trades"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        v["collectionsShell"]["trades"].as_array().map(Vec::len),
        Some(2)
    );
    let text = run_json(
        &mut Cache::default(),
        DB,
        "db.trades.find()",
        &run,
        Collections::Changed,
    );
    assert_eq!(parsed(&text)["collections"], serde_json::json!({}));
}

#[test]
fn several_databases_are_listed_and_diffed_by_namespace() {
    let run = ctx(0, 1);
    let script = "db.trades.deleteOne({_id: 2})\n\
        db.trades.aggregate([{$out: {db: 'reporting', coll: 'summary'}}])";
    let v = parsed(&run_json(
        &mut Cache::default(),
        DB,
        script,
        &run,
        Collections::Changed,
    ));
    let keys = |v: &serde_json::Value| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>());
    assert_eq!(
        keys(&v["collections"]),
        Some(vec![
            "test.trades".to_string(),
            "reporting.summary".to_string()
        ])
    );
    // The diff's before and after meet under the same name.
    assert_eq!(keys(&v["initial"]), Some(vec!["test.trades".to_string()]));
    assert_eq!(
        v["initialShell"]["test.trades"].as_array().map(Vec::len),
        Some(3)
    );
    assert_eq!(
        v["collectionsShell"]["reporting.summary"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    assert_eq!(
        v["names"],
        serde_json::json!(["test.trades", "test.other", "reporting.summary"])
    );
    // Copy and Download find each collection by the name the output gives it.
    let text = export::export_json(
        &mut Cache::default(),
        DB,
        script,
        &run,
        export::Target::Collection("reporting.summary"),
        export::Form::Shell,
    );
    assert!(
        parsed(&text)["text"]
            .as_str()
            .is_some_and(|t| t.contains("MDB")),
        "{text}"
    );
    let text = export::export_json(
        &mut Cache::default(),
        DB,
        script,
        &run,
        export::Target::Collection("trades"),
        export::Form::Shell,
    );
    assert!(parsed(&text)["error"].is_object(), "{text}");
    // One database: plain names, as before.
    let v = parsed(&run_json(
        &mut Cache::default(),
        DB,
        "db.trades.deleteOne({_id: 2})",
        &run,
        Collections::Changed,
    ));
    assert_eq!(v["names"], serde_json::json!(["trades", "other"]));
}
