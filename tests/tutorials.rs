//! Every step of every tutorial in www/tutorials/ runs through `mqlplay::run`
//! and must pass its own check; and the checker must explain a wrong outcome.
//! `TUTORIAL=bucket cargo test --test tutorials` runs one tutorial.
use mqlplay::tutorial::{check_step, Check, Index, Tutorial};
use mqlplay::RunCtx;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("www/tutorials")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn tutorials() -> Vec<Tutorial> {
    let index = Index::parse(&read("index.json")).expect("index.json");
    index
        .tutorials
        .iter()
        .map(|entry| {
            let t = Tutorial::parse(&read(&entry.file))
                .unwrap_or_else(|e| panic!("{}: {e}", entry.file));
            assert_eq!(t.id, entry.id, "{}: id differs from index.json", entry.file);
            assert_eq!(t.title, entry.title, "{}: title differs", entry.file);
            assert_eq!(t.summary, entry.summary, "{}: summary differs", entry.file);
            t
        })
        .collect()
}

#[test]
fn index_lists_every_tutorial_file() {
    let index = Index::parse(&read("index.json")).expect("index.json");
    let mut listed: Vec<String> = index.tutorials.iter().map(|t| t.file.clone()).collect();
    listed.sort();
    let mut files: Vec<String> = std::fs::read_dir(dir())
        .expect("www/tutorials")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && n != "index.json")
        .collect();
    files.sort();
    assert_eq!(listed, files);
    for id in ["bucket", "subset", "sensor-upsert"] {
        assert!(index.tutorials.iter().any(|t| t.id == id), "{id} missing");
    }
}

#[test]
fn every_step_passes_its_check() {
    let only = std::env::var("TUTORIAL").ok();
    let mut failures = Vec::new();
    let mut steps = 0;
    for t in tutorials() {
        if only.as_deref().is_some_and(|o| o != t.id) {
            continue;
        }
        assert!(!t.steps.is_empty(), "{}: no steps", t.id);
        for (i, step) in t.steps.iter().enumerate() {
            steps += 1;
            // A step without any expectation would pass whatever happens.
            let empty = step.check.as_object().is_none_or(|o| o.is_empty());
            assert!(!empty, "{} step {}: empty check", t.id, i + 1);
            // The page runs with the learner's clock and seed: checks must not depend on them.
            let other = RunCtx::new(bson::DateTime::from_millis(1_900_000_000_000), 42);
            let other_diffs = step.run_and_check(&other).map(|(_, d)| d);
            match step.run_and_check(&RunCtx::default()) {
                Ok((_, diffs)) if diffs.is_empty() => {
                    if let Some(d) = other_diffs.as_ref().ok().filter(|d| !d.is_empty()) {
                        failures.push(format!(
                            "{} step {}: passes only with the default clock/seed: {}",
                            t.id,
                            i + 1,
                            d.join("; ")
                        ));
                    }
                }
                Ok((_, diffs)) => failures.push(format!(
                    "{} step {} ({}):\n    {}",
                    t.id,
                    i + 1,
                    step.title,
                    diffs.join("\n    ")
                )),
                Err(e) => failures.push(format!("{} step {}: bad check: {e}", t.id, i + 1)),
            }
        }
    }
    assert!(steps > 0, "no steps ran");
    assert!(
        failures.is_empty(),
        "{} of {steps} steps fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn no_step_passes_without_running_its_script() {
    for t in tutorials() {
        for (i, step) in t.steps.iter().enumerate() {
            let check = serde_json::to_string(&step.check).expect("json");
            let d = diffs(&check, &step.db, "");
            assert!(
                !d.is_empty(),
                "{} step {}: the check passes with an empty script",
                t.id,
                i + 1
            );
        }
    }
}

fn diffs(check: &str, db: &str, script: &str) -> Vec<String> {
    check_step(check, db, script, &RunCtx::default()).expect("check parses")
}

#[test]
fn a_wrong_result_names_the_place_and_both_values() {
    let db = "db = { trades: [ {_id: 1, count: 2}, {_id: 2, count: 5} ] }";
    let d = diffs(
        r#"{"result": [{"_id": 1, "count": 3}, {"_id": 2, "count": 5}]}"#,
        db,
        "db.trades.find()",
    );
    assert_eq!(d, vec!["result[0].count: expected 3, found 2".to_string()]);
    let d = diffs(
        r#"{"resultWhere": [{"index": 1, "path": "count", "equals": 4}]}"#,
        db,
        "db.trades.find()",
    );
    assert_eq!(d, vec!["result[1].count: expected 4, found 5".to_string()]);
    // Numbers compare by value, as MongoDB does: 2 == 2.0 == NumberLong(2).
    assert!(diffs(
        r#"{"result": [{"_id": 1, "count": 2.0}, {"_id": 2, "count": {"$numberLong": "5"}}]}"#,
        db,
        "db.trades.find()"
    )
    .is_empty());
}

#[test]
fn a_wrong_collection_counts_and_documents() {
    let db = "db = { trades: [ {_id: 1, history: [1, 2]} ] }";
    let script = "db.trades.insertOne({_id: 2, history: []})";
    let d = diffs(
        r#"{"collections": {"trades": {"count": 1,
            "where": [{"index": 0, "path": "history", "size": 3},
                      {"index": 1, "path": "history.0", "exists": true}]}}}"#,
        db,
        script,
    );
    assert_eq!(
        d,
        vec![
            "collection trades: expected 1 document, found 2".to_string(),
            "trades[0].history: expected 3 elements, found 2".to_string(),
            "trades[1].history.0: expected the field, missing".to_string(),
        ]
    );
    let d = diffs(
        r#"{"collections": {"trades": {"docs": [{"_id": 1, "history": [1, 2]}, {"history": [], "_id": 2}]},
                            "other": {"count": 1}}}"#,
        db,
        script,
    );
    assert_eq!(
        d,
        vec![
            "trades[1]: fields in a different order: expected {history, _id}, found {_id, history}"
                .to_string(),
            "collection other: expected 1 document, found 0".to_string(),
        ]
    );
    let d = diffs(
        r#"{"collections": {"trades": {"docs": [{"_id": 1, "history": [1, 2], "count": 2}]}}}"#,
        db,
        script,
    );
    assert_eq!(
        d,
        vec![
            "trades: expected 1 element, found 2".to_string(),
            "trades[0].count: missing (expected 2)".to_string(),
            "trades[1]: unexpected (found { _id: 2, history: [] })".to_string(),
        ]
    );
}

#[test]
fn errors_are_expected_or_reported() {
    let bad = r#"db.products.insertOne({_id: ObjectId("507f1f77bcf86cd99338452")})"#;
    let want = r#"{"error": {"codeName": "BadValue", "messageContains": "24 character hex", "source": "script", "line": 1}}"#;
    assert!(diffs(want, "", bad).is_empty());
    // The script ran fine although an error was expected.
    let d = diffs(want, "", "db.products.insertOne({_id: 1})");
    assert_eq!(
        d,
        vec!["expected an error (BadValue), but the run finished without one".to_string()]
    );
    // An unexpected error is the only thing reported: the rest would be noise.
    let d = diffs(r#"{"resultCount": 1}"#, "", bad);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].starts_with("the run stopped with an error: script line 1, column 29: (BadValue) BSONError: input must be a 24 character hex string"), "{d:?}");
    let d = diffs(
        r#"{"error": {"codeName": "FailedToParse", "line": 2}}"#,
        "",
        bad,
    );
    assert_eq!(d.len(), 2, "{d:?}");
    assert!(
        d[0].starts_with("error: expected FailedToParse, found script line 1"),
        "{d:?}"
    );
    assert_eq!(d[1], "error: expected it on line 2, found line 1");
}

#[test]
fn null_results_and_malformed_checks() {
    assert!(diffs(r#"{"result": null}"#, "", "null").is_empty());
    assert_eq!(
        diffs(r#"{"result": null}"#, "", "1"),
        vec!["result: expected null, found 1".to_string()]
    );
    assert_eq!(
        diffs(r#"{"result": 1}"#, "", "x = 1"),
        vec!["expected a result, but the script produced none".to_string()]
    );
    for bad in [
        r#"{"reslt": 1}"#,
        r#"{"resultWhere": [{"path": "a", "equals": 1, "size": 2}]}"#,
        r#"{"collections": {"c": {"cnt": 1}}}"#,
        r#"{"error": {"source": "page"}}"#,
        r#"{"result": {"$date": "not a date"}}"#,
    ] {
        let json: serde_json::Value = serde_json::from_str(bad).expect("json");
        assert!(Check::parse(&json).is_err(), "{bad} should be rejected");
    }
}
