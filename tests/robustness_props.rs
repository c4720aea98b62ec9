//! No panics, whatever the input: generated and mutated scripts,
//! configurations, filters, updates, pipelines and links go through
//! `mqlplay::run` / `mqlplay::link::decode`, and every error must carry a
//! message and a span inside its text (see fuzz/harness.rs for the checks,
//! shared with the fuzz targets). Crash inputs found by fuzzing are kept under
//! tests/regressions/<target>/ and replayed here.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../fuzz/grammar.rs"]
mod grammar;
#[path = "../fuzz/harness.rs"]
mod harness;

use mqlplay::RunCtx;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use std::path::{Path, PathBuf};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..max)
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn generated_filters(data in bytes(300)) {
        harness::filter(&data);
    }

    #[test]
    fn generated_updates(data in bytes(300)) {
        harness::update(&data);
    }

    #[test]
    fn generated_pipelines(data in bytes(400)) {
        harness::pipeline(&data);
    }

    #[test]
    fn generated_scripts(data in bytes(500)) {
        harness::script(&data);
    }

    #[test]
    fn raw_bytes_as_text_and_links(data in bytes(200)) {
        harness::reader(&data);
        harness::link(&data);
    }
}

// ---- mutated case files -------------------------------------------------------

/// (db, script) pairs from every case file under tests/cases/.
fn corpus() -> &'static [(String, String)] {
    static CORPUS: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut files = Vec::new();
        collect(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases"),
            "txt",
            &mut files,
        );
        let mut out = vec![(grammar::DB.to_string(), "db.c.find()".to_string())];
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            for block in text.split("\n---") {
                let (mut db, mut query, mut section) = (String::new(), String::new(), "");
                for line in block.lines() {
                    match line.trim_end() {
                        "db:" | "query:" | "expect:" | "expect-unordered:" => {
                            section = line.trim_end();
                            continue;
                        }
                        l if l.starts_with("collection ") || l.starts_with("error: ") => {
                            section = "";
                            continue;
                        }
                        _ => {}
                    }
                    let target = match section {
                        "db:" => &mut db,
                        "query:" => &mut query,
                        _ => continue,
                    };
                    target.push_str(line);
                    target.push('\n');
                }
                if !query.trim().is_empty() {
                    out.push((db, query));
                }
            }
        }
        out
    })
}

fn collect(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            collect(&p, ext, out);
        } else if ext.is_empty() || p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

/// Pieces worth splicing in: operators, extreme values, brackets, odd paths.
const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ":",
    "'",
    "\"",
    "$",
    "$$",
    ".",
    "-",
    "\n",
    "null",
    "[]",
    "{}",
    "-1",
    "0",
    "1e308",
    "NaN",
    "2147483648",
    "NumberLong('-9223372036854775808')",
    "NumberDecimal('-0E-6176')",
    "'$a.b'",
    "'$$ROOT'",
    "'$$REMOVE'",
    "{$literal: '$x'}",
    "{$gt: 1}",
    "{$in: []}",
    "{$elemMatch: {}}",
    "{$exists: false}",
    "{$type: 'array'}",
    "{$size: -1}",
    "{$mod: [0, 1]}",
    "{$regex: '(a)\\\\1'}",
    "'a.$'",
    "'a.$[]'",
    "'a.$[x]'",
    "$set",
    "$inc",
    "$push",
    "$each",
    "$slice",
    "$sort",
    "$position",
    "$pull",
    "$rename",
    "$unset",
    "$group",
    "$project",
    "$match",
    "$unwind",
    "$lookup",
    "$facet",
    "$sum",
    "$expr",
    "$map",
    "$reduce",
    "$filter",
    "$let",
    "$cond",
    "$switch",
    "$range",
    "$concatArrays",
    "$dateAdd",
    "$toDate",
    "$convert",
    "$substrCP",
    "$arrayElemAt",
    "ISODate('2024-13-01')",
    "new Date(8.64e15)",
    "Timestamp(4294967295, 4294967295)",
    "ObjectId()",
    "/a/",
    "MinKey()",
    "undefined",
    "'é😀'",
    "'\\u0000'",
];

#[derive(Clone, Debug)]
enum Edit {
    /// Replace the token at a position with a piece.
    Token(usize, usize),
    Insert(usize, usize),
    Delete(usize, usize),
    /// Copy a slice of the text elsewhere (grows nesting and repetition).
    Duplicate(usize, usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<usize>(), any::<usize>()).prop_map(|(a, p)| Edit::Token(a, p)),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, p)| Edit::Insert(a, p)),
        1 => (any::<usize>(), 1usize..6).prop_map(|(a, n)| Edit::Delete(a, n)),
        1 => (any::<usize>(), 1usize..40, any::<usize>()).prop_map(|(a, n, to)| Edit::Duplicate(a, n, to)),
    ]
}

fn mutate(src: &str, edits: &[Edit]) -> String {
    let mut b = src.as_bytes().to_vec();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    for e in edits {
        let len = b.len().max(1);
        match *e {
            Edit::Token(at, p) => {
                let at = at % len;
                let (mut s, mut t) = (at.min(b.len()), at.min(b.len()));
                while s > 0 && b.get(s - 1).is_some_and(|&c| is_word(c)) {
                    s -= 1;
                }
                while b.get(t).is_some_and(|&c| is_word(c)) {
                    t += 1;
                }
                b.splice(s..t, PIECES[p % PIECES.len()].bytes());
            }
            Edit::Insert(at, p) => {
                let at = at % (b.len() + 1);
                b.splice(at..at, PIECES[p % PIECES.len()].bytes());
            }
            Edit::Delete(at, n) => {
                let at = at % len;
                let end = (at + n).min(b.len());
                if at < end {
                    b.drain(at..end);
                }
            }
            Edit::Duplicate(at, n, to) => {
                let at = at % len;
                let end = (at + n).min(b.len());
                let piece: Vec<u8> = b.get(at..end).unwrap_or_default().to_vec();
                let to = to % (b.len() + 1);
                b.splice(to..to, piece);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// The case files' scripts, mutated, against their databases.
#[test]
fn mutated_case_scripts() {
    on_mutated_cases(1500, |(db, script), edits| {
        harness::run_checked(db, &mutate(script, edits), &RunCtx::default());
    });
}

/// The case files' configurations, mutated.
#[test]
fn mutated_configurations() {
    on_mutated_cases(400, |(db, _), edits| {
        let db = if db.trim().is_empty() {
            grammar::DB
        } else {
            db
        };
        harness::run_checked(
            &mutate(db, edits),
            "db.getCollectionNames()",
            &RunCtx::default(),
        );
    });
}

/// `check` on `cases` random (case, edits) pairs, on a big stack: some cases
/// build documents 178 levels deep, and bson's own `into_relaxed_extjson`
/// (the harness's relaxed output) takes ~10 debug frames per level, past a
/// test thread's 2 MiB (1 run in ~45 overflowed).
fn on_mutated_cases(cases: u32, check: fn(&(String, String), &[Edit])) {
    with_big_stack(move || {
        let strategy = (
            any::<prop::sample::Index>(),
            prop::collection::vec(edit(), 1..5),
        );
        let outcome = TestRunner::new(config(cases)).run(&strategy, |(pick, edits)| {
            let corpus = corpus();
            check(&corpus[pick.index(corpus.len())], &edits);
            Ok(())
        });
        if let Err(e) = outcome {
            panic!("{e}");
        }
    });
}

/// Formatting both panes of every case changes nothing about the run, and
/// formatting is idempotent (the reader's own properties are in reader_props.rs).
#[test]
fn formatted_cases_run_the_same() {
    let outcome = |out: &mqlplay::RunOutput| {
        let mut json = out.to_json(mqlplay::text::extjson::Mode::Canonical, "", "");
        if let Some(obj) = json.as_object_mut() {
            obj.remove("error");
        }
        (
            json.to_string(),
            out.error.as_ref().map(|e| (e.code, e.message.clone())),
        )
    };
    let mut checked = 0;
    // An even sample of at most 200 cases keeps this quick as the case files grow.
    let corpus = corpus();
    for (db, script) in corpus.iter().step_by((corpus.len() / 200).max(1)) {
        let (Ok(fdb), Ok(fscript)) = (mqlplay::format(db), mqlplay::format(script)) else {
            continue;
        };
        assert_eq!(
            mqlplay::format(&fscript).as_deref(),
            Ok(fscript.as_str()),
            "not idempotent:\n{script}"
        );
        assert_eq!(
            mqlplay::format(&fdb).as_deref(),
            Ok(fdb.as_str()),
            "not idempotent:\n{db}"
        );
        let ctx = RunCtx::default();
        assert_eq!(
            outcome(&mqlplay::run(db, script, &ctx)),
            outcome(&mqlplay::run(&fdb, &fscript, &ctx)),
            "formatting changed the run of\n{script}\n=>\n{fscript}"
        );
        checked += 1;
    }
    assert!(checked > 50, "only {checked} cases formatted");
}

// ---- regressions -----------------------------------------------------------------

/// Every input kept under tests/regressions/<target>/ (crashes found by the
/// fuzz targets, and inputs that once broke an invariant) still passes.
#[test]
fn regressions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut seen = 0;
    for (name, target) in harness::TARGETS {
        let mut files = Vec::new();
        collect(&root.join(name), "", &mut files);
        for f in files {
            let data = std::fs::read(&f).unwrap_or_default();
            let outcome = std::panic::catch_unwind(|| target(&data));
            assert!(outcome.is_ok(), "regression {} fails again", f.display());
            seen += 1;
        }
    }
    assert!(
        seen > 0,
        "no regression inputs found under {}",
        root.display()
    );
}

/// The generated inputs reach the engine (they are not mostly syntax errors)
/// and often run to the end, so the properties above test the engine.
#[test]
fn the_grammar_reaches_the_engine() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for kind in ["filter", "update", "pipeline", "script"] {
        let (mut parsed, mut ran) = (0, 0);
        for _ in 0..200 {
            let data = bytes(400)
                .new_tree(&mut runner)
                .map(|t| t.current())
                .unwrap_or_default();
            let mut g = grammar::Gen::new(&data);
            let script = match kind {
                "filter" => format!("db.c.find({})", g.filter()),
                "update" => format!("db.c.updateMany({}, {})", g.filter(), g.update()),
                "pipeline" => format!("db.c.aggregate({})", g.pipeline()),
                _ => g.script(),
            };
            let out = mqlplay::run(grammar::DB, &script, &RunCtx::default());
            parsed += usize::from(out.error.as_ref().is_none_or(|e| e.code != 9));
            ran += usize::from(out.error.is_none());
        }
        assert!(
            parsed >= 160,
            "{kind}: only {parsed} of 200 generated inputs parse"
        );
        assert!(
            ran >= 10,
            "{kind}: only {ran} of 200 generated inputs run without an error"
        );
    }
}

// ---- bounded runs --------------------------------------------------------------

fn error_of(db: &str, script: &str) -> mqlplay::Error {
    let out = harness::run_checked(db, script, &RunCtx::default());
    out.error
        .unwrap_or_else(|| panic!("expected an error from {:.200}", script))
}

/// `{a: {a: … 1}}` with `levels` levels of documents.
fn nested(levels: usize) -> String {
    format!("{}1{}", "{a: ".repeat(levels), "}".repeat(levels))
}

#[test]
fn documents_over_16_mib_are_refused_as_mongodb_refuses_them() {
    const MAX: usize = 16 * 1024 * 1024;
    // {_id: 1, a: [s × 15, t]}: 15 strings of 1 MiB and one of `tail` bytes, through
    // variables so the script stays small.
    let s = "x".repeat(1 << 20);
    let overhead = bson::doc! {"_id": 1, "a": vec![s.clone(); 15].into_iter().chain([String::new()]).collect::<Vec<_>>()}
        .to_vec()
        .map_or(0, |v| v.len());
    let doc = |tail: usize| {
        (
            format!("const s = '{s}'\nconst t = '{}'\n", "y".repeat(tail)),
            format!("{{_id: 1, a: [{}t]}}", "s, ".repeat(15)),
        )
    };
    let (fits_vars, fits) = doc(MAX - overhead);
    let ok = harness::run_checked(
        "",
        &format!("{fits_vars}db.c.insertOne({fits})"),
        &RunCtx::default(),
    );
    assert_eq!(ok.error, None, "a document of exactly 16 MiB is accepted");
    let (vars, over) = doc(MAX - overhead + 1);
    for script in [
        format!("{vars}db.c.insertOne({over})"),
        format!("{vars}db.c.insertMany([{{_id: 0}}, {over}])"),
        format!("{vars}db.c.bulkWrite([{{insertOne: {{document: {over}}}}}])"),
    ] {
        let e = error_of("", &script);
        assert_eq!(
            (e.code, &*e.code_name),
            (10334, "BSONObjectTooLarge"),
            "{e}"
        );
        assert_eq!(
            e.message,
            "object to insert too large. size in bytes: 16777217, max size: 16777216"
        );
    }
    // The Database pane: the same limit, pointing into the configuration.
    let big = "z".repeat(MAX);
    let e = error_of(
        &format!("db = {{ c: [ {{_id: 1, s: '{big}'}} ] }}"),
        "db.c.find()",
    );
    assert_eq!(e.code, 10334, "{e}");
    assert_eq!(e.source, mqlplay::Source::Database);
    // Updates keep their own check (the writes' `Resulting document after update is larger…`).
    let e = error_of(
        "[{_id: 1}]",
        &format!(
            "{vars}db.collection.updateOne({{_id: 1}}, {{$set: {{a: [{}t]}}}})",
            "s, ".repeat(15)
        ),
    );
    assert_eq!(e.code, 10334, "{e}");
}

/// Debug builds use far bigger stack frames than the release and wasm builds:
/// deep documents get a main-thread-sized stack here.
fn with_big_stack(f: impl FnOnce() + Send + 'static) {
    let outcome = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(f)
        .map(|h| h.join());
    assert!(matches!(outcome, Ok(Ok(()))), "the check failed");
}

#[test]
fn documents_nested_deeper_than_180_levels_are_refused() {
    with_big_stack(nesting_limits);
}

fn nesting_limits() {
    let ok = harness::run_checked(
        "",
        &format!("db.c.insertOne({})\ndb.c.countDocuments()", nested(180)),
        &RunCtx::default(),
    );
    assert_eq!(ok.error, None);
    assert_eq!(ok.results.last(), Some(&bson::Bson::Int32(1)));
    for (db, script) in [
        (String::new(), format!("db.c.insertOne({})", nested(181))),
        (String::new(), format!("db.c.insertMany([{}])", nested(181))),
        (
            format!("db = {{ c: [ {} ] }}", nested(181)),
            "db.c.find()".to_string(),
        ),
    ] {
        let e = error_of(&db, &script);
        assert_eq!((e.code, &*e.code_name), (15, "Overflow"), "{e}");
        assert_eq!(
            e.message,
            "cannot insert document because it exceeds 180 levels of nesting"
        );
    }
    // Empty documents and arrays do not count (insert.cpp's validateDepth).
    let empty_leaf = format!("{}{{}}{}", "{a: ".repeat(180), "}".repeat(180));
    let ok = harness::run_checked(
        "",
        &format!("db.c.insertOne({empty_leaf})"),
        &RunCtx::default(),
    );
    assert_eq!(ok.error, None);
}

fn assert_memory_limit(db: &str, script: &str, mib: usize) {
    let previous = mqlplay::budget::set_run_limit(mib << 20);
    let e = error_of(db, script);
    mqlplay::budget::set_run_limit(previous);
    assert_eq!((e.code, &*e.code_name), (146, "ExceededMemoryLimit"), "{e}");
    assert!(e.message.contains(&format!("{mib} MiB")), "{e}");
    assert!(e.span.is_some(), "the error points at the statement");
}

#[test]
fn runaway_growth_stops_at_the_memory_budget() {
    // $concatArrays in $reduce: 200 million elements.
    assert_memory_limit(
        "",
        "db.aggregate([{$documents: [{}]}, {$project: {a: {$reduce: {input: {$range: [0, 200]}, initialValue: [], \
         in: {$concatArrays: ['$$value', {$range: [0, 1000000]}]}}}}}])",
        512,
    );
    // $push in $group: 100 000 documents, each pushing 100 000 values.
    assert_memory_limit(
        "",
        "db.aggregate([{$documents: {$map: {input: {$range: [0, 100000]}, in: {i: '$$this'}}}}, \
         {$group: {_id: null, all: {$push: {$range: [0, 100000]}}}}])",
        32,
    );
    // A self-joining $lookup: every document gets all 6 000 of them, twice over.
    assert_memory_limit(
        "",
        "db.aggregate([{$documents: {$map: {input: {$range: [0, 6000]}, in: {x: 1, i: '$$this'}}}}, {$out: 'c'}])\n\
         db.c.aggregate([{$lookup: {from: 'c', localField: 'x', foreignField: 'x', as: 'j'}}, {$unwind: '$j'}, \
         {$lookup: {from: 'c', localField: 'x', foreignField: 'x', as: 'k'}}])",
        32,
    );
    // A running $push window: n² values.
    assert_memory_limit(
        "",
        "db.aggregate([{$documents: {$map: {input: {$range: [0, 200000]}, in: {i: '$$this'}}}}, \
         {$setWindowFields: {sortBy: {i: 1}, output: {w: {$push: '$i', window: {documents: ['unbounded', 'current']}}}}}])",
        32,
    );
    // Growing every document of a collection with a pipeline update.
    assert_memory_limit(
        "",
        "db.aggregate([{$documents: {$map: {input: {$range: [0, 2000]}, in: {i: '$$this'}}}}, {$out: 'c'}])\n\
         db.c.updateMany({}, [{$set: {r: {$range: [0, 1000000]}}}])",
        32,
    );
    // The next run starts with a fresh budget.
    let out = harness::run_checked(
        "",
        "db.aggregate([{$documents: [{a: {$size: {$range: [0, 1000]}}}]}])",
        &RunCtx::default(),
    );
    assert_eq!(out.error, None);
}

// ---- regular expressions ----------------------------------------------------------

#[test]
fn pcre_features_the_regex_crate_lacks_are_named_on_both_paths() {
    for (pattern, feature) in [
        ("(a)\\\\1", "backreferences"),
        ("(?<n>a)\\\\k<n>", "backreferences"),
        ("(?P<n>a)(?P=n)", "backreferences"),
        ("a(?=b)", "lookahead or lookbehind"),
        ("(?<!a)b", "lookahead or lookbehind"),
        ("a++", "possessive quantifiers"),
        ("a{2}+", "possessive quantifiers"),
        ("(?>a+)", "atomic groups"),
        ("a\\\\Kb", "\\K"),
        ("(a|(?R))", "recursion"),
        ("(*FAIL)", "control verbs"),
    ] {
        for script in [
            format!("db.c.find({{s: {{$regex: '{pattern}'}}}})"),
            format!("db.c.aggregate([{{$project: {{m: {{$regexMatch: {{input: '$s', regex: '{pattern}'}}}}}}}}])"),
            format!("db.c.aggregate([{{$project: {{m: {{$regexFindAll: {{input: '$s', regex: '{pattern}'}}}}}}}}])"),
        ] {
            let e = error_of("db = { c: [ {s: 'aab'} ] }", &script);
            assert_eq!(e.code_name, "CommandNotSupported", "{script}: {e}");
            assert!(e.message.contains(feature), "{script}: {e}");
        }
    }
    // What both paths translate the same way: PCRE-only literals and escapes.
    let out = harness::run_checked(
        "db = { c: [ {s: 'a{b} [x]'} ] }",
        "db.c.aggregate([{$project: {_id: 0, q: {$regexMatch: {input: '$s', regex: 'a{b}'}}, \
         c: {$regexMatch: {input: '$s', regex: '[[]x]'}}, z: {$regexMatch: {input: '$s', regex: '\\\\Qa{b}\\\\E'}}}}])\n\
         db.c.countDocuments({s: {$regex: 'a{b}.*[[]x]'}})",
        &RunCtx::default(),
    );
    assert_eq!(out.error, None);
    assert_eq!(
        mqlplay::text::shell::print(&out.results[0]),
        "[ { q: true, c: true, z: true } ]"
    );
    assert_eq!(out.results[1], bson::Bson::Int32(1));
}

#[test]
fn regex_matching_is_linear_time() {
    // (a*)*b on 30 000 a's: catastrophic for a backtracking engine, instant here.
    let long = "a".repeat(30_000);
    let t = std::time::Instant::now();
    let out = harness::run_checked(
        &format!("db = {{ c: [ {{s: '{long}'}} ] }}"),
        "db.c.countDocuments({s: /(a*)*b/})\n\
         db.c.aggregate([{$project: {_id: 0, m: {$regexMatch: {input: '$s', regex: '(a|aa)+$x'}}}}])",
        &RunCtx::default(),
    );
    assert_eq!(out.error, None);
    assert_eq!(out.results[0], bson::Bson::Int32(0));
    assert!(t.elapsed().as_secs() < 10, "took {:?}", t.elapsed());
}

// ---- determinism ---------------------------------------------------------------------

const RANDOM_SCRIPT: &str = "db.c.insertMany([{v: 1}, {v: 2}, {v: 3}, {v: 4}, {v: 5}, {v: 6}, {v: 7}, {v: 8}])\n\
     db.c.insertOne({at: new Date(), id: ObjectId()})\n\
     db.c.aggregate([{$sample: {size: 4}}, {$project: {_id: 0, v: 1, r: {$rand: {}}, now: '$$NOW'}}])\n\
     db.c.find({$expr: {$lt: [0.5, {$rand: {}}]}}, {_id: 1})\n\
     db.c.find({}, {_id: 1})";

fn run_json(ctx: &RunCtx) -> String {
    let out = harness::run_checked("", RANDOM_SCRIPT, ctx);
    assert_eq!(out.error, None);
    out.to_json(mqlplay::text::extjson::Mode::Canonical, "", RANDOM_SCRIPT)
        .to_string()
}

#[test]
fn the_same_seed_and_instant_give_the_same_run() {
    let at = |ms: i64, seed: u64| RunCtx::new(bson::DateTime::from_millis(ms), seed);
    let first = run_json(&at(1_700_000_000_000, 7));
    assert_eq!(first, run_json(&at(1_700_000_000_000, 7)));
    assert_ne!(
        first,
        run_json(&at(1_700_000_000_000, 8)),
        "the seed drives $rand and $sample"
    );
    let later = run_json(&at(1_700_000_000_001, 7));
    assert_ne!(first, later, "the instant drives $$NOW and new Date()");
    // Through a link, the same state gives the same run.
    let state = mqlplay::link::LinkState {
        script: RANDOM_SCRIPT.to_string(),
        now: 1_700_000_000_000,
        seed: 7,
        ..Default::default()
    };
    let decoded = mqlplay::link::decode(&mqlplay::link::encode(&state)).expect("round trip");
    assert_eq!(first, run_json(&at(decoded.now, decoded.seed)));
}

/// The CLI takes the instant and the seed as options, and a link's values with `--link`.
#[test]
fn the_cli_runs_are_reproducible() {
    let dir = std::env::temp_dir().join(format!("mqlplay-determinism-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = dir.join("random.js");
    std::fs::write(&script, RANDOM_SCRIPT).expect("write script");
    let cli = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mqlplay"))
            .args(args)
            .output()
            .expect("run mqlplay");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let path = script.to_string_lossy().into_owned();
    let run = |now: &str, seed: &str| {
        cli(&[
            "run",
            "--format",
            "canonical",
            "--now",
            now,
            "--seed",
            seed,
            &path,
        ])
    };
    let first = run("2023-11-14T22:13:20Z", "7");
    assert_eq!(first, run("2023-11-14T22:13:20Z", "7"));
    assert_ne!(first, run("2023-11-14T22:13:20Z", "8"));
    assert_ne!(first, run("2023-11-14T22:13:21Z", "7"));
    // The library run with the same values prints the same JSON.
    assert_eq!(
        first.trim(),
        run_json(&RunCtx::new(
            bson::DateTime::from_millis(1_700_000_000_000),
            7
        ))
    );
    // A link made by the CLI carries the instant and the seed.
    let link = cli(&[
        "link",
        "--now",
        "2023-11-14T22:13:20Z",
        "--seed",
        "7",
        &path,
    ]);
    assert_eq!(
        cli(&["run", "--format", "canonical", "--link", link.trim()]),
        first
    );
    let _ = std::fs::remove_dir_all(&dir);
}
