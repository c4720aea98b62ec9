//! Every step of every tutorial in www/tutorials/ runs through `mqlplay::run`
//! and must pass its own check; and the checker must explain a wrong outcome.
//! `TUTORIAL=bucket cargo test --test tutorials` runs one tutorial.
use mqlplay::tutorial::{check_step, feedback, judge_step, Check, Index, Kind, Tutorial};
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
fn every_tutorial_credits_its_sources() {
    for t in tutorials() {
        assert!(!t.sources.is_empty(), "{}: no sources", t.id);
        for s in &t.sources {
            assert!(s.url.starts_with("https://"), "{}: {}", t.id, s.url);
            assert!(!s.title.is_empty() && !s.language.is_empty(), "{}", t.id);
        }
    }
}

/// Each exercise: at least three per tutorial, a starter that fails, a solution
/// that passes (see `every_step_passes_its_check`), hints, and plausible wrong
/// answers that get the plain-words feedback their file names.
#[test]
fn exercises_judge_the_learners_answer() {
    let mut checked = 0;
    for t in tutorials() {
        let exercises: Vec<_> = t
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == Kind::Exercise)
            .collect();
        assert!(
            exercises.len() >= 3,
            "{}: {} exercises",
            t.id,
            exercises.len()
        );
        for (i, step) in &t.steps.iter().enumerate().collect::<Vec<_>>() {
            if step.kind == Kind::Walkthrough {
                assert!(
                    step.solution.is_none() && step.wrong.is_empty(),
                    "{} step {}: a walkthrough has no solution",
                    t.id,
                    i + 1
                );
            }
        }
        for (i, step) in exercises {
            let at = format!("{} step {} ({})", t.id, i + 1, step.title);
            let solution = step
                .solution
                .as_deref()
                .expect("an exercise has a solution");
            assert_ne!(solution, step.script, "{at}: the starter is the solution");
            assert!(!step.hints.is_empty(), "{at}: no hints");
            assert!(!step.wrong.is_empty(), "{at}: no wrong answer to test");
            let (_, starter) = step.judge(&step.script, &RunCtx::default()).expect("check");
            assert!(!starter.ok(), "{at}: the starter passes");
            assert!(
                !starter.feedback.is_empty(),
                "{at}: the starter gets no feedback"
            );
            for w in &step.wrong {
                let (_, v) = step.judge(&w.script, &RunCtx::default()).expect("check");
                assert!(!v.ok(), "{at}: the wrong answer passes:\n{}", w.script);
                let keys = v.keys();
                for want in &w.says {
                    assert!(
                        keys.contains(&want.as_str()),
                        "{at}: expected feedback {want}, got {:?} for\n{}",
                        v.feedback,
                        w.script
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 9, "{checked}");
}

/// Bucket step 5 invites `.hint({ $natural: 1 })`: its check accepts it.
#[test]
fn the_bucket_hint_experiment_passes() {
    let t = tutorials()
        .into_iter()
        .find(|t| t.id == "bucket")
        .expect("bucket");
    let step = t
        .steps
        .iter()
        .find(|s| s.text.contains("hint({ $natural: 1 })"))
        .expect("the step that suggests the hint");
    let hinted = step.script.replace(
        ".limit(1).explain",
        ".limit(1).hint({ $natural: 1 }).explain",
    );
    assert_ne!(hinted, step.script);
    let (out, v) = step.judge(&hinted, &RunCtx::default()).expect("check");
    assert!(v.ok(), "{:?}", v.details);
    let plan = format!("{:?}", out.results.last());
    assert!(plan.contains("COLLSCAN"), "{plan}");
}

/// Every key the checker can say has a sentence on the page.
#[test]
fn every_feedback_key_has_a_sentence() {
    // The sentences live in the page's message catalogues, one per language.
    let www = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("www/i18n");
    for lang in ["en", "pt-BR", "ja", "ko", "de"] {
        let catalogue =
            std::fs::read_to_string(www.join(format!("{lang}.json"))).expect("catalogue");
        for key in feedback::KEYS {
            assert!(
                catalogue.contains(&format!("\"tutorial.feedback.{key}\":")),
                "{key} has no sentence in www/i18n/{lang}.json"
            );
        }
    }
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/tutorial");
    for file in ["check/mod.rs", "check/compare.rs", "feedback.rs"] {
        let text = std::fs::read_to_string(src.join(file)).expect("source");
        for part in text.split("Feedback::new(").skip(1) {
            let Some(rest) = part.strip_prefix('"') else {
                continue;
            };
            let key = rest.split('"').next().unwrap_or_default();
            assert!(
                feedback::KEYS.contains(&key),
                "{file}: {key} is not in KEYS"
            );
        }
    }
}

fn said(check: &str, db: &str, script: &str) -> Vec<serde_json::Value> {
    judge_step(check, db, script, &RunCtx::default())
        .expect("check parses")
        .feedback
        .iter()
        .map(|f| f.to_json())
        .collect()
}

#[test]
fn feedback_speaks_of_counts_fields_and_labels() {
    let db = "db = { trades: [ {_id: 1, customerId: 123, count: 2}, {_id: 2, customerId: 456, count: 5}, {_id: 3, customerId: 123, count: 1} ] }";
    assert_eq!(
        said(r#"{"resultCount": 1}"#, db, "db.trades.find()"),
        vec![serde_json::json!({"key": "resultCount", "expected": 1, "actual": 3})]
    );
    assert_eq!(
        said(
            r#"{"resultEvery": [{"path": "customerId", "equals": 123}]}"#,
            db,
            "db.trades.find()"
        ),
        vec![
            serde_json::json!({"key": "every", "field": "customerId", "expected": "123", "actual": "456", "position": 2})
        ]
    );
    assert_eq!(
        said(
            r#"{"collections": {"trades": {"where": [{"index": 0, "path": "count", "equals": 3, "label": "the bucket's count"}]}}}"#,
            db,
            "db.trades.updateOne({_id: 1}, {$set: {x: 1}})"
        ),
        vec![
            serde_json::json!({"key": "value", "label": "the bucket's count", "expected": "3", "actual": "2"})
        ]
    );
    assert_eq!(
        said(
            r#"{"resultIds": [3, 1]}"#,
            db,
            "db.trades.find({customerId: 123})"
        ),
        vec![
            serde_json::json!({"key": "ids", "expected": "3, 1", "actual": "1, 3", "expectedCount": 2, "actualCount": 2})
        ]
    );
    // A whole expected result: the first differing document and field.
    assert_eq!(
        said(
            r#"{"result": [{"_id": 1, "customerId": 123, "count": 2}, {"_id": 3, "customerId": 123, "count": 7}]}"#,
            db,
            "db.trades.find({customerId: 123})"
        ),
        vec![
            serde_json::json!({"key": "value", "field": "count", "expected": "7", "actual": "1", "position": 2})
        ]
    );
    assert_eq!(
        said(
            r#"{"collections": {"trades": {"count": 4}}}"#,
            db,
            "db.trades.find()"
        ),
        vec![
            serde_json::json!({"key": "collectionCount", "collection": "trades", "expected": 4, "actual": 3})
        ]
    );
    // A learner's error: the message and its line, and nothing else.
    let f = said(
        r#"{"resultCount": 1}"#,
        db,
        "db.trades.find()\ndb.trades.find({$bogus: 1})",
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0]["key"], "runError");
    assert_eq!(f[0]["line"], 2);
    assert_eq!(f[0]["codeName"], "BadValue");
    // A passing run says nothing.
    assert!(said(r#"{"resultCount": 3}"#, db, "db.trades.find()").is_empty());
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
