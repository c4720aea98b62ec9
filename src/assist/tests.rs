use super::catalogue::{self, Kind};
use super::methods;
use super::*;
use crate::aggregate::pipeline::Pipeline;
use crate::expr::{CompileCtx, Expr};
use crate::query::Filter;
use crate::update::Update;
use bson::{bson, doc};
use std::collections::BTreeSet;

// ---- the catalogue and the engine's registries -------------------------------

/// Whether the engine compiles `name` where `kind` stands: any outcome but
/// "unknown" (or "not supported") counts, since the probe's argument is arbitrary.
fn engine_accepts(kind: Kind, name: &str) -> bool {
    let ctx = CompileCtx::default();
    let refused = |r: crate::Result<()>, unknown: &dyn Fn(&crate::Error) -> bool| match r {
        Ok(()) => false,
        Err(e) => e.code == 115 || unknown(&e),
    };
    !match kind {
        Kind::Stage => refused(
            Pipeline::compile(&[bson!({ name: {} })], &ctx).map(drop),
            &|e| e.code == 40324,
        ),
        Kind::QueryTop => refused(
            Filter::compile(&doc! { name: [{ "a": 1 }] }, &ctx).map(drop),
            &|e| e.message.starts_with("unknown top level operator"),
        ),
        Kind::Query => refused(
            Filter::compile(&doc! { "a": { name: 1 } }, &ctx).map(drop),
            &|e| e.message.starts_with("unknown operator"),
        ),
        Kind::Update => refused(
            Update::compile(&bson!({ name: { "a": 1 } }), None, &ctx).map(drop),
            &|e| e.message.starts_with("Unknown modifier"),
        ),
        Kind::Accumulator => refused(
            Pipeline::compile(
                &[bson!({ "$group": { "_id": null, "x": { name: 1 } } })],
                &ctx,
            )
            .map(drop),
            &|e| e.code == 15952,
        ),
        Kind::Expression => refused(Expr::compile(&bson!({ name: [1] }), &ctx).map(drop), &|e| {
            e.code == 168
        }),
        Kind::Window => refused(
            Pipeline::compile(
                &[bson!({ "$setWindowFields": { "sortBy": { "a": 1 }, "output": { "x": { name: {} } } } })],
                &ctx,
            )
            .map(drop),
            &|e| e.message.starts_with("Unrecognized window function"),
        ),
    }
}

const KINDS: [Kind; 7] = [
    Kind::Stage,
    Kind::QueryTop,
    Kind::Query,
    Kind::Update,
    Kind::Accumulator,
    Kind::Expression,
    Kind::Window,
];

/// Every `"$name"` string literal in the engine's sources (outside this module):
/// the names its operator registries could hold.
fn names_in_sources() -> BTreeSet<String> {
    fn visit(dir: &std::path::Path, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if !path.ends_with("assist") {
                    visit(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for (i, _) in text.match_indices("\"$") {
                    let rest = &text[i + 1..];
                    let end = rest[1..]
                        .find(|c: char| !c.is_ascii_alphanumeric())
                        .map_or(rest.len(), |e| e + 1);
                    if end > 1 && rest[end..].starts_with('"') {
                        out.insert(rest[..end].to_string());
                    }
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    visit(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut out,
    );
    out
}

#[test]
fn catalogue_lines_are_well_formed() {
    let text = include_str!("operators.tsv");
    let mut seen = BTreeSet::new();
    for line in text.lines() {
        let entry = catalogue::parse_line(line).unwrap_or_else(|e| panic!("{e}"));
        if let Some(e) = entry {
            assert!(
                seen.insert((e.name, e.kind)),
                "listed twice: {} ({:?})",
                e.name,
                e.kind
            );
            assert!(
                e.syntax.contains(e.name),
                "{}: the syntax names the operator",
                e.name
            );
        }
    }
    assert_eq!(seen.len(), catalogue::entries().len());
}

#[test]
fn the_engine_compiles_every_catalogue_entry() {
    let refused: Vec<String> = catalogue::entries()
        .iter()
        .filter(|e| !engine_accepts(e.kind, e.name))
        .map(|e| format!("{} ({:?})", e.name, e.kind))
        .collect();
    assert!(
        refused.is_empty(),
        "the catalogue lists operators the engine refuses: {refused:?}"
    );
}

#[test]
fn the_catalogue_lists_every_operator_the_engine_compiles() {
    let names = names_in_sources();
    assert!(
        names.contains("$group") && names.contains("$dateTrunc"),
        "the source scan found the registries"
    );
    let mut missing = Vec::new();
    for name in &names {
        for kind in KINDS {
            // Every accumulator also works as a window function: listed once, as an accumulator.
            let listed = |k: Kind| catalogue::of_kind(k).any(|e| e.name == name);
            let covered = listed(kind) || (kind == Kind::Window && listed(Kind::Accumulator));
            if engine_accepts(kind, name) && !covered {
                missing.push(format!("{name} ({kind:?})"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the engine compiles operators the catalogue lacks: {missing:?}"
    );
}

#[test]
fn the_probe_tells_known_from_unknown() {
    assert!(engine_accepts(Kind::Stage, "$group"));
    assert!(!engine_accepts(Kind::Stage, "$grop"));
    assert!(
        !engine_accepts(Kind::Stage, "$search"),
        "not supported counts as refused"
    );
    assert!(engine_accepts(Kind::Query, "$gt"));
    assert!(!engine_accepts(Kind::Query, "$and"));
    assert!(engine_accepts(Kind::Expression, "$concat"));
    assert!(!engine_accepts(Kind::Expression, "$function"));
    assert!(engine_accepts(Kind::Update, "$inc"));
    assert!(engine_accepts(Kind::Accumulator, "$sum"));
    assert!(!engine_accepts(Kind::Accumulator, "$concat"));
}

#[test]
fn the_engine_accepts_every_method_completion_offers() {
    let db = "db = { c: [{ _id: 1, a: 1 }] }";
    for (name, _, _) in methods::COLLECTION_METHODS {
        let out = crate::run(db, &format!("db.c.{name}()"), &crate::RunCtx::default());
        if let Some(e) = out.error {
            assert!(
                !e.message.contains("unknown collection method"),
                "{name}: {}",
                e.message
            );
        }
    }
    for (name, _, _) in methods::CURSOR_METHODS {
        let out = crate::run(
            db,
            &format!("db.c.find().{name}()"),
            &crate::RunCtx::default(),
        );
        if let Some(e) = out.error {
            assert!(
                !e.message.contains("unknown cursor method"),
                "{name}: {}",
                e.message
            );
        }
    }
    for (name, _, _) in methods::DB_METHODS {
        if *name == "getCollection" {
            continue;
        }
        let out = crate::run(db, &format!("db.{name}()"), &crate::RunCtx::default());
        if let Some(e) = out.error {
            assert_ne!(e.code, 115, "db.{name}: {}", e.message);
        }
    }
}

// ---- diagnostics ---------------------------------------------------------------

fn spanned(script: &str) -> Vec<(String, String)> {
    check_script(script)
        .into_iter()
        .map(|e| {
            let s = e.span.expect("every diagnostic has a place");
            (script[s.start..s.end].to_string(), e.message)
        })
        .collect()
}

#[test]
fn an_unknown_stage_is_marked_at_its_name() {
    let d = spanned("db.trades.aggregate([{ $match: {} }, { $grop: { _id: 1 } }])");
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "$grop");
    assert!(
        d[0].1.contains("Unrecognized pipeline stage name"),
        "{}",
        d[0].1
    );
}

#[test]
fn every_statement_is_checked_and_none_runs() {
    let script = "db.a.insertOne({ x: 1 })\ndb.a.find({ x: { $gtt: 1 } })\ndb.a.updateOne({}, { $sett: { y: 1 } })\ndb.a.fnd()";
    let d = spanned(script);
    let texts: Vec<&str> = d.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(texts, ["$gtt", "$sett", "fnd"], "{d:?}");
}

#[test]
fn a_syntax_error_is_the_readers() {
    let d = check_script("db.a.find({ x: 1 )");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, 9);
    assert!(d[0].span.is_some());
}

#[test]
fn valid_scripts_have_no_diagnostics() {
    let script = "const n = 3\ndb.a.find({ qty: { $gt: n } }).sort({ a: 1 }).limit(2)\n\
                  db.a.aggregate([{ $group: { _id: '$k', t: { $sum: '$qty' } } }])\n\
                  db.a.updateMany({}, { $inc: { n: 1 } })\ndb.getCollectionNames()";
    assert_eq!(check_script(script), vec![]);
}

#[test]
fn the_database_pane_is_read_with_its_paths() {
    let (errs, summary) = check_database(
        "db = { trades: [{ _id: 1, ticker: 'MDB', buyer: { name: 'a', addr: { city: 'x' } } }] }",
    );
    assert!(errs.is_empty());
    assert_eq!(summary.collections().collect::<Vec<_>>(), ["trades"]);
    assert_eq!(
        summary.fields("trades"),
        [
            "_id",
            "buyer",
            "buyer.addr",
            "buyer.addr.city",
            "buyer.name",
            "ticker"
        ]
    );
    let (errs, _) = check_database("db = { trades: [ { a: } ] }");
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].source, crate::Source::Database);
}

// ---- completion ----------------------------------------------------------------

fn summary() -> Summary {
    check_database(
        "db = { trades: [{ _id: 1, ticker: 'MDB', qty: 5, buyer: { name: 'a' } }], reviews: [] }",
    )
    .1
}

/// Complete at the `|` of `text`: the labels and the replaced text.
fn labels(text: &str) -> (Vec<String>, String) {
    let cursor = text.find('|').expect("a cursor mark");
    let script = text.replacen('|', "", 1);
    let c = complete(&script, cursor, &summary());
    (
        c.candidates.iter().map(|o| o.label.clone()).collect(),
        script[c.from..c.to].to_string(),
    )
}

fn has(text: &str, label: &str) -> bool {
    labels(text).0.iter().any(|l| l == label)
}

#[test]
fn after_db_the_collections_and_db_methods() {
    let (l, word) = labels("db.tr|");
    assert_eq!(word, "tr");
    assert!(l.contains(&"trades".to_string()) && l.contains(&"reviews".to_string()));
    assert!(l.contains(&"getCollection".to_string()));
    assert!(
        has("db.orders.insertOne({})\ndb.|", "orders"),
        "a collection the script creates"
    );
}

#[test]
fn after_a_collection_its_methods_and_after_find_cursor_methods() {
    assert!(has("db.trades.f|", "find"));
    assert!(!has("db.trades.f|", "limit"));
    assert!(has("db.trades.find({}).|", "limit"));
    assert!(has("db.trades.find({ a: 1 }).sort({ a: 1 }).|", "toArray"));
}

#[test]
fn in_a_filter_operators_and_field_paths() {
    assert!(has("db.trades.find({ |", "buyer.name"));
    let (l, word) = labels("db.trades.find({ buyer.na|");
    assert_eq!(word, "buyer.na", "a dotted path being typed is one word");
    assert!(l.contains(&"buyer.name".to_string()));
    assert!(has("db.trades.find({ $|", "$or"));
    assert!(!has("db.trades.find({ $|", "$gt"));
    assert!(has("db.trades.find({ qty: { $g|", "$gt"));
    assert!(has("db.trades.find({ $or: [{ q|", "qty"));
    assert!(
        has("db.trades.find({ qty: 1 }, { b|", "buyer.name"),
        "projection keys"
    );
}

#[test]
fn in_a_pipeline_stages_expressions_paths_and_variables() {
    assert!(has("db.trades.aggregate([{ $gro|", "$group"));
    assert!(has("db.trades.aggregate([{ $match: {} }, { $|", "$project"));
    assert!(has("db.trades.aggregate([{ $match: { t| } }])", "ticker"));
    assert!(has(
        "db.trades.aggregate([{ $group: { _id: null, t: { $s|",
        "$sum"
    ));
    assert!(has(
        "db.trades.aggregate([{ $group: { _id: \"$t|",
        "$ticker"
    ));
    assert!(has(
        "db.trades.aggregate([{ $project: { x: { $con|",
        "$concat"
    ));
    assert!(has(
        "db.trades.aggregate([{ $project: { x: { $add: [\"$q|",
        "$qty"
    ));
    assert!(has(
        "db.trades.aggregate([{ $project: { x: { $map: { input: \"$a\", in: \"$$|",
        "$$this"
    ));
    assert!(has(
        "db.trades.aggregate([{ $project: { x: { $map: { input: \"$a\", as: \"t\", in: \"$$|",
        "$$t"
    ));
    assert!(!has(
        "db.trades.aggregate([{ $project: { x: \"$$|",
        "$$this"
    ));
    assert!(has("db.trades.aggregate([{ $project: { x: \"$$|", "$$ROOT"));
}

#[test]
fn in_an_update_operators_then_paths() {
    assert!(has("db.trades.updateOne({}, { $|", "$set"));
    assert!(has("db.trades.updateOne({}, { $set: { b|", "buyer.name"));
    assert!(
        has("db.trades.updateOne({}, [{ $s|", "$set"),
        "a pipeline update takes stages"
    );
}

#[test]
fn accepting_an_operator_inserts_its_skeleton() {
    let script = "db.trades.aggregate([{ $gro";
    let c = complete(script, script.len(), &summary());
    let group = c
        .candidates
        .iter()
        .find(|o| o.label == "$group")
        .expect("$group offered");
    assert_eq!(group.apply.as_deref(), Some("$group: { _id: ${} }"));
    assert!(!group.info.is_empty());
    // Before an existing `:` only the name goes in.
    let script = "db.trades.aggregate([{ $gro: {} }])";
    let c = complete(script, 27, &summary());
    let group = c
        .candidates
        .iter()
        .find(|o| o.label == "$group")
        .expect("$group offered");
    assert_eq!(group.apply, None);
}

#[test]
fn utf16_cursors_map_to_bytes() {
    let s = "'é😀' db.";
    assert_eq!(byte_offset(s, 0), 0);
    assert_eq!(byte_offset(s, 2), 3);
    assert_eq!(byte_offset(s, 4), 7);
    assert_eq!(byte_offset(s, 100), s.len());
    let json = completion_json(s, s.encode_utf16().count(), &summary());
    assert_eq!(json["from"], json["to"]);
}

#[test]
fn deep_or_broken_text_gets_no_candidates_and_no_panic() {
    let deep = format!("db.a.find({})", "[".repeat(10_000));
    assert!(complete(&deep, deep.len() - 1, &summary())
        .candidates
        .is_empty());
    for text in [
        "\"",
        "db.\"",
        "/",
        "db.a.find({ \"$",
        "`",
        "db..",
        "))))",
        "{ a: 'x",
    ] {
        let _ = complete(text, text.len(), &summary());
    }
}

#[test]
fn in_set_window_fields_window_functions_accumulators_and_paths() {
    let stage = "db.trades.aggregate([{ $setWindowFields: { partitionBy: '$ticker', sortBy: { qty: 1 }, output: {";
    assert!(has(&format!("{stage} r: {{ $ra| }} }} }}])"), "$rank"));
    assert!(has(&format!("{stage} s: {{ $su| }} }} }}])"), "$sum"));
    assert!(
        !has(&format!("{stage} r: {{ $ra| }} }} }}])"), "$rand"),
        "an output field takes a window function, not an expression operator"
    );
    assert!(has(
        &format!("{stage} t: {{ $sum: '$q|' }} }} }}])"),
        "$qty"
    ));
    assert!(has(
        "db.trades.aggregate([{ $setWindowFields: { sortBy: { q| } } }])",
        "qty"
    ));
}
