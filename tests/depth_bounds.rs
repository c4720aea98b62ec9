//! Every nesting form a user can write, far past the limits, answers with an
//! error, on a thread with the browser's 1 MiB wasm stack: the reader (calls,
//! indexes, constructors, brackets, member and operator chains), `fmt`, the
//! Database pane, dotted paths, variables, pipelines and upsert seeds. A
//! depth generator then nests the forms into one another at random.
#![cfg(not(target_arch = "wasm32"))]

use mqlplay::RunCtx;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;

/// The wasm engine's stack in the browser: 1 MiB. An unoptimised build's
/// frames are several times the optimised ones (the page's wasm is built
/// with `opt-level = "z"`), so debug test builds get 8 MiB for the same
/// depths; `cargo test --release --test depth_bounds` checks the 1 MiB itself.
const WASM_STACK: usize = if cfg!(debug_assertions) {
    8 << 20
} else {
    1 << 20
};

/// Run `f` on a thread with the wasm stack; an overflow aborts the test binary.
fn on_wasm_stack(f: impl FnOnce() + Send + 'static) {
    let outcome = std::thread::Builder::new()
        .stack_size(WASM_STACK)
        .spawn(f)
        .map(|h| h.join());
    assert!(matches!(outcome, Ok(Ok(()))), "the check failed");
}

fn run(db: &str, script: &str) -> mqlplay::RunOutput {
    mqlplay::run(db, script, &RunCtx::default())
}

fn error_of(db: &str, script: &str) -> mqlplay::Error {
    run(db, script)
        .error
        .unwrap_or_else(|| panic!("expected an error from {:.120}", script))
}

/// `open` × n, `middle`, `close` × n.
fn nest(open: &str, middle: &str, close: &str, n: usize) -> String {
    format!("{}{middle}{}", open.repeat(n), close.repeat(n))
}

/// The reader's nesting forms, `n` levels deep.
fn reader_forms(n: usize) -> Vec<(&'static str, String)> {
    vec![
        ("calls", nest("x(", "1", ")", n)),
        ("method calls", nest("db.c.find(", "", ")", n)),
        ("ObjectId", nest("ObjectId(", "", ")", n)),
        ("Date", nest("Date(", "", ")", n)),
        ("new Date", nest("new Date(", "", ")", n)),
        ("NumberLong", nest("NumberLong(", "1", ")", n)),
        ("indexes", nest("a[", "0", "]", n)),
        ("arrays", nest("[", "1", "]", n)),
        ("objects", nest("{a: ", "1", "}", n)),
        ("parentheses", nest("(", "1", ")", n)),
        ("signs", format!("{}1", "- ".repeat(n))),
        ("members", format!("a{}", ".b".repeat(n))),
        (
            "chained calls",
            format!("db.c.find(){}", ".limit(1)".repeat(n)),
        ),
        ("sums", format!("1{}", "+1".repeat(n))),
        ("new", format!("{}Date", "new ".repeat(n))),
        ("mixed", nest("[{a: x(ObjectId(a[", "0", "])}]", n / 4)),
    ]
}

#[test]
fn the_reader_refuses_deep_nesting_on_the_wasm_stack() {
    on_wasm_stack(|| {
        for (what, src) in reader_forms(3000) {
            let e = error_of("", &src);
            assert!(
                e.message.contains("nesting is too deep"),
                "{what}: {}",
                e.message
            );
            // The same text through `fmt` and the Database pane.
            assert!(mqlplay::format(&src).is_err(), "fmt of {what}");
            let e = error_of(&format!("db = {{ c: [ {{a: {src}}} ] }}"), "db.c.find()");
            assert_eq!(e.source, mqlplay::Source::Database, "{what}");
        }
    });
}

#[test]
fn the_reader_accepts_nesting_up_to_its_limit_on_the_wasm_stack() {
    on_wasm_stack(|| {
        // 60 levels of every form (up to 180 of the reader's: a method
        // call counts its members too) parse; none is refused for its depth.
        for (what, src) in reader_forms(60) {
            if let Some(e) = run("", &src).error {
                assert!(!e.message.contains("nesting is too deep"), "{what}: {e}");
            }
            if let Err(e) = mqlplay::format(&src) {
                assert!(!e.message.contains("nesting is too deep"), "{what}: {e}");
            }
        }
    });
}

#[test]
fn long_dotted_paths_are_refused_on_the_wasm_stack() {
    on_wasm_stack(|| {
        for parts in [201, 5_200, 100_000] {
            let path = vec!["a"; parts].join(".");
            // Filters, index keys and distinct read paths of any length
            // (MongoDB's FieldRef has no limit): they answer, without overflowing.
            for script in [
                format!("db.c.find({{'{path}': 1}})"),
                format!("db.c.createIndex({{'{path}': 1}})"),
                format!("db.c.distinct('{path}')"),
            ] {
                let _ = run("[{_id: 1, a: {a: 1}}]", &script);
            }
            for script in [
                format!("db.c.updateOne({{_id: 1}}, {{$set: {{'{path}': 1}}}}, {{upsert: true}})"),
                format!("db.c.updateOne({{_id: 1}}, {{$unset: {{'{path}': 1}}}})"),
                format!("db.c.aggregate([{{$addFields: {{'{path}': 1}}}}])"),
                format!("db.c.aggregate([{{$set: {{x: '${path}'}}}}])"),
                format!("db.c.aggregate([{{$project: {{'{path}': 1}}}}])"),
                format!("db.c.aggregate([{{$group: {{_id: '${path}'}}}}])"),
                format!("db.c.aggregate([{{$sort: {{'{path}': 1}}}}])"),
                format!("db.c.find({{}}, {{'{path}': 1}})"),
                format!("db.c.find().sort({{'{path}': 1}})"),
            ] {
                let e = error_of("[{_id: 1, a: {a: 1}}]", &script);
                assert_eq!(e.code_name, "Overflow", "{parts} parts: {e}");
            }
        }
    });
}

#[test]
fn variables_nest_no_deeper_than_the_reader() {
    on_wasm_stack(|| {
        let chain: String = (1..10_000)
            .map(|i| format!("const a{i} = [a{}]\n", i - 1))
            .collect();
        let started = std::time::Instant::now();
        let e = error_of("", &format!("const a0 = 1\n{chain}"));
        assert_eq!((e.code, &*e.code_name), (15, "Overflow"), "{e}");
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    });
}

#[test]
fn upserts_obey_the_180_level_limit() {
    on_wasm_stack(|| {
        let deep = |levels: usize| nest("{a: ", "1", "}", levels);
        for script in [
            format!(
                "db.c.updateOne({{_id: 1, a: {}}}, {{$set: {{b: 1}}}}, {{upsert: true}})",
                deep(180)
            ),
            format!(
                "const v = {}\ndb.c.updateOne({{_id: 1, a: {{a: v}}}}, {{$set: {{b: 1}}}}, {{upsert: true}})",
                deep(179)
            ),
            format!(
                "db.c.findOneAndUpdate({{_id: 1, a: {}}}, {{$set: {{b: 1}}}}, {{upsert: true}})",
                deep(180)
            ),
            format!(
                "db.c.bulkWrite([{{updateOne: {{filter: {{_id: 1, a: {}}}, update: {{$set: {{b: 1}}}}, upsert: true}}}}])",
                deep(180)
            ),
        ] {
            let out = run("", &script);
            let e = out.error.unwrap_or_else(|| panic!("accepted: {:.100}", script));
            assert_eq!(e.code_name, "Overflow", "{e}");
            let stored = out.collections.iter().map(|(_, d)| d.len()).sum::<usize>();
            assert_eq!(stored, 0, "nothing stored");
        }
        // 179 levels below `a` (180 in all) are stored.
        let ok = run(
            "",
            &format!(
                "db.c.updateOne({{_id: 1, a: {}}}, {{$set: {{b: 1}}}}, {{upsert: true}})",
                deep(179)
            ),
        );
        assert_eq!(ok.error, None);
    });
}

#[test]
fn pipelines_have_at_most_1000_stages() {
    let stages = |n: usize| vec!["{$match: {}}"; n].join(", ");
    let ok = run("[{a: 1}]", &format!("db.c.aggregate([{}])", stages(1000)));
    assert_eq!(ok.error, None);
    for script in [
        format!("db.c.aggregate([{}])", stages(1001)),
        format!("db.c.aggregate([{{$facet: {{f: [{}]}}}}])", stages(1001)),
        format!(
            "db.c.aggregate([{{$lookup: {{from: 'c', pipeline: [{}], as: 'x'}}}}])",
            stages(1001)
        ),
        format!("db.c.aggregate([{}])", stages(10_000)),
    ] {
        let started = std::time::Instant::now();
        let e = error_of("[{a: 1}]", &script);
        assert_eq!((e.code, &*e.code_name), (7749501, "Location7749501"), "{e}");
        assert_eq!(
            e.message,
            "Pipeline length must be no longer than 1000 stages."
        );
        assert!(started.elapsed().as_secs() < 5);
    }
}

// ---- a depth generator ---------------------------------------------------------

/// One nesting form: text before and after the nested part.
fn form() -> impl Strategy<Value = (&'static str, &'static str)> {
    prop::sample::select(vec![
        ("x(", ")"),
        ("db.c.find(", ")"),
        ("ObjectId(", ")"),
        ("new Date(", ")"),
        ("NumberDecimal(", ")"),
        ("a[", "]"),
        ("[", "]"),
        ("{a: ", "}"),
        ("{$and: [", "]}"),
        ("{$add: [1, ", "]}"),
        ("(", ")"),
        ("-", ""),
        ("1 + ", ""),
        ("db.c.aggregate([{$match: ", "}])"),
        ("{$facet: {f: [", "]}}"),
    ])
}

/// Forms nested in a random order, 1 to 2,000 levels: the whole text is
/// read, run and formatted, and answers (a result or an error) without
/// overflowing the wasm stack.
#[test]
fn generated_nestings_never_overflow() {
    on_wasm_stack(|| {
        let strategy = prop::collection::vec(form(), 1..2_000);
        let config = ProptestConfig {
            cases: 64,
            failure_persistence: None,
            ..ProptestConfig::default()
        };
        let outcome = TestRunner::new(config).run(&strategy, |forms| {
            let mut src = String::new();
            for (open, _) in &forms {
                src.push_str(open);
            }
            src.push('1');
            for (_, close) in forms.iter().rev() {
                src.push_str(close);
            }
            let out = run("[{a: 1}]", &src);
            if forms.len() > 200 {
                prop_assert!(out.error.is_some(), "{} levels accepted", forms.len());
            }
            let _ = mqlplay::format(&src);
            let _ = run(&format!("db = {{ c: [ {{a: {src}}} ] }}"), "db.c.find()");
            Ok(())
        });
        if let Err(e) = outcome {
            panic!("{e}");
        }
    });
}

/// One collection `c` holding `{_id: 1}`.
const DB_C: &str = "db = { c: [ {_id: 1} ] }";

/// Pipelines that wrap the document in itself: the server fails with
/// Overflow past 200 levels; up to it, the result prints and reads back
/// in every output form on the wasm stack.
#[test]
fn pipelines_build_documents_at_most_200_levels_deep() {
    on_wasm_stack(|| {
        let wraps = |n: usize| vec!["{$replaceWith: {a: '$$ROOT'}}"; n].join(", ");
        // `{_id: 1}` wrapped 199 times: 200 levels.
        let out = run(DB_C, &format!("db.c.aggregate([{}])", wraps(199)));
        assert_eq!(out.error, None);
        let value = out.results.last().expect("a result");
        for text in [
            mqlplay::text::shell::print(value),
            mqlplay::text::extjson::to_json(value, mqlplay::text::extjson::Mode::Relaxed)
                .to_string(),
        ] {
            assert!(text.len() > 199 * 3, "{:.80}", text);
        }
        let started = std::time::Instant::now();
        for script in [
            format!("db.c.aggregate([{}])", wraps(200)),
            format!("db.c.aggregate([{}])", wraps(1000)),
            format!("db.c.aggregate([{}, {{$project: {{_id: 1}}}}])", wraps(400)),
            format!("db.c.aggregate([{{$facet: {{f: [{}]}}}}])", wraps(300)),
            format!(
                "db.c.aggregate([{{$lookup: {{from: 'c', pipeline: [{}], as: 'x'}}}}])",
                wraps(300)
            ),
            format!(
                "db.c.aggregate([{{$unionWith: {{coll: 'c', pipeline: [{}]}}}}])",
                wraps(300)
            ),
            format!("db.c.updateOne({{}}, [{}])", wraps(1000)),
            // Two stages of 150 levels each.
            format!(
                "db.c.aggregate([{}])",
                vec![format!("{{$replaceWith: {}}}", nest("{a: ", "'$$ROOT'", "}", 150)); 2]
                    .join(", ")
            ),
        ] {
            let e = error_of(DB_C, &script);
            assert_eq!((e.code, &*e.code_name), (15, "Overflow"), "{e}");
            // Updates wrap it in "Plan executor error during update :: caused by :: ".
            assert!(
                e.message.ends_with(
                    "cannot convert document to BSON because it exceeds the limit of 200 levels of nesting"
                ),
                "{e}"
            );
        }
        assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    });
}
