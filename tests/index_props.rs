#![cfg(not(target_arch = "wasm32"))]
//! Property test of the planner: an index only narrows the candidates, so a
//! query returns the same documents with or without indexes (compared
//! sorted by `_id`, since an index scan returns them in index order), and
//! counts and distinct values agree too.
use bson::{doc, Bson, Document, Regex};
use mqlplay::text::shell::print;
use mqlplay::value::equal;
use mqlplay::RunCtx;
use proptest::prelude::*;

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        (0i32..5).prop_map(Bson::Int32),
        (0i64..5).prop_map(Bson::Int64),
        (0u8..10).prop_map(|n| Bson::Double(f64::from(n) / 2.0)),
        prop::sample::select(vec!["", "a", "ab", "b", "123_x", "123_", "124", "B"])
            .prop_map(|s| Bson::String(s.to_string())),
        Just(Bson::Null),
        any::<bool>().prop_map(Bson::Boolean),
    ]
}

fn value() -> impl Strategy<Value = Bson> {
    prop_oneof![
        4 => scalar(),
        1 => prop::collection::vec(scalar(), 0..3).prop_map(Bson::Array),
        1 => scalar().prop_map(|v| Bson::Document(doc! {"x": v})),
        1 => prop::collection::vec(scalar().prop_map(|v| Bson::Document(doc! {"x": v})), 0..3)
            .prop_map(Bson::Array),
        1 => prop::collection::vec(prop::collection::vec(scalar(), 0..2).prop_map(Bson::Array), 1..2)
            .prop_map(Bson::Array),
    ]
}

fn document(id: i32) -> impl Strategy<Value = Document> {
    (
        prop::option::of(value()),
        prop::option::of(value()),
        prop::option::of(scalar()),
    )
        .prop_map(move |(a, b, c)| {
            let mut d = doc! {"_id": id};
            if let Some(a) = a {
                d.insert("a", a);
            }
            if let Some(b) = b {
                d.insert("b", b);
            }
            if let Some(c) = c {
                d.insert("c", c);
            }
            d
        })
}

fn docs() -> impl Strategy<Value = Vec<Document>> {
    (0usize..25).prop_flat_map(|n| (0..n as i32).map(document).collect::<Vec<_>>())
}

fn regex(p: &str, o: &str) -> Bson {
    Bson::RegularExpression(Regex {
        pattern: p.to_string().try_into().unwrap_or_else(|_| unreachable!()),
        options: o.to_string().try_into().unwrap_or_else(|_| unreachable!()),
    })
}

fn condition() -> impl Strategy<Value = Bson> {
    let op = prop::sample::select(vec!["$eq", "$gt", "$gte", "$lt", "$lte", "$ne"]);
    prop_oneof![
        3 => scalar(),
        3 => (op, scalar()).prop_map(|(op, v)| {
            let mut d = Document::new();
            d.insert(op, v);
            Bson::Document(d)
        }),
        1 => prop::collection::vec(scalar(), 0..3).prop_map(|vs| Bson::Document(doc! {"$in": vs})),
        1 => prop::sample::select(vec![("^a", ""), ("^12", ""), ("b", ""), ("^A", "i"), ("^123_$", "")])
            .prop_map(|(p, o)| regex(p, o)),
        1 => (scalar(), scalar()).prop_map(|(lo, hi)| Bson::Document(doc! {"$gte": lo, "$lt": hi})),
        1 => (scalar(), scalar())
            .prop_map(|(lo, hi)| Bson::Document(doc! {"$elemMatch": {"$gte": lo, "$lte": hi}})),
        1 => scalar().prop_map(|v| Bson::Document(doc! {"$all": [v]})),
        1 => any::<bool>().prop_map(|b| Bson::Document(doc! {"$exists": b})),
        1 => prop::collection::vec(scalar(), 1..3).prop_map(Bson::Array),
    ]
}

fn filter() -> impl Strategy<Value = Document> {
    let path = prop::sample::select(vec!["a", "b", "c", "a.x", "b.x", "a.0"]);
    prop::collection::vec((path, condition()), 0..4).prop_map(|conds| {
        let mut f = Document::new();
        let mut more = Vec::new();
        for (p, c) in conds {
            if f.contains_key(p) {
                // A second condition on a path goes through $and.
                more.push(Bson::Document(doc! {p: c}));
            } else {
                f.insert(p, c);
            }
        }
        if !more.is_empty() {
            f.insert("$and", more);
        }
        f
    })
}

fn indexes() -> impl Strategy<Value = Vec<&'static str>> {
    prop::sample::subsequence(
        vec![
            "{a: 1}",
            "{a: -1, b: 1}",
            "{b: 1, a: 1}",
            "{'a.x': 1}",
            "{c: 1}, {sparse: true}",
            "{b: -1}, {partialFilterExpression: {c: {$gt: 1}}}",
            "{c: -1, a: 1}",
        ],
        0..4,
    )
}

fn run(docs: &[Document], script: &str) -> Result<Bson, String> {
    let db = print(&Bson::Array(
        docs.iter().cloned().map(Bson::Document).collect(),
    ));
    let out = mqlplay::run(&db, script, &RunCtx::default());
    match out.error {
        Some(e) => Err(format!("{} {}", e.code, e.message)),
        None => Ok(out.results.last().cloned().unwrap_or(Bson::Null)),
    }
}

fn by_id(v: Result<Bson, String>) -> Result<Vec<String>, String> {
    let Bson::Array(items) = v? else {
        return Err("not an array".into());
    };
    let mut keyed: Vec<(i64, String)> = items
        .iter()
        .map(|d| {
            let id = match d {
                Bson::Document(d) => d.get("_id").and_then(Bson::as_i32).unwrap_or(-1),
                _ => -1,
            };
            (i64::from(id), print(d))
        })
        .collect();
    keyed.sort();
    Ok(keyed.into_iter().map(|(_, s)| s).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn same_results_with_and_without_indexes(docs in docs(), f in filter(), ix in indexes()) {
        let f = print(&Bson::Document(f));
        let create: String = ix.iter().map(|i| format!("db.collection.createIndex({i})\n")).collect();
        for query in [
            format!("db.collection.find({f})"),
            format!("db.collection.find({f}).sort({{a: 1, _id: 1}}).limit(3)"),
            format!("db.collection.find({f}).sort({{b: -1, _id: 1}}).skip(1)"),
            format!("db.collection.countDocuments({f})"),
            format!("db.collection.distinct('b', {f})"),
        ] {
            let plain = run(&docs, &query);
            let indexed = run(&docs, &format!("{create}{query}"));
            // Index creation can legitimately fail (parallel arrays): then skip.
            if let Err(e) = &indexed {
                if e.starts_with("171 ") {
                    return Ok(());
                }
            }
            if query.contains(".find(") && !query.contains(".sort(") {
                prop_assert_eq!(by_id(plain), by_id(indexed), "{}\n{}", create, query);
            } else if query.contains(".distinct(") {
                // Among equal values (1, NumberLong(1), 1.0) distinct keeps the one it
                // meets first, and an index meets them in another order (MongoDB
                // too): compare with MongoDB's equality.
                let same = match (&plain, &indexed) {
                    (Ok(Bson::Array(p)), Ok(Bson::Array(i))) => {
                        p.len() == i.len() && p.iter().zip(i).all(|(a, b)| equal(a, b))
                    }
                    _ => plain == indexed,
                };
                prop_assert!(same, "{:?} != {:?}\n{}\n{}", plain, indexed, create, query);
            } else {
                prop_assert_eq!(plain, indexed, "{}\n{}", create, query);
            }
        }
    }

    #[test]
    fn sorted_by_an_index_equals_a_blocking_sort(docs in docs(), f in filter()) {
        // A unique sort key (a total order) makes the order deterministic.
        let docs: Vec<Document> = docs
            .into_iter()
            .map(|mut d| {
                let id = d.get("_id").cloned().unwrap_or(Bson::Null);
                d.insert("k", id);
                d
            })
            .collect();
        let f = print(&Bson::Document(f));
        for (ix, sort) in [("{k: 1}", "{k: 1}"), ("{k: 1}", "{k: -1}"), ("{k: -1}", "{k: 1}")] {
            let query = format!("db.collection.find({f}).sort({sort}).skip(1).limit(4)");
            let plain = run(&docs, &query);
            let indexed = run(&docs, &format!("db.collection.createIndex({ix})\n{query}"));
            prop_assert_eq!(plain, indexed, "{}\n{}", ix, query);
        }
    }
}

/// Each read's result comes with the work it did (the page's "work done"
/// line); other statements have none.
#[test]
fn reads_report_their_work() {
    let db = "[{_id: 1, a: 5}, {_id: 2, a: 7}, {_id: 3, a: 9}]";
    let script = "db.collection.createIndex({a: 1})\n\
                  db.collection.find({a: {$gte: 7}})\n\
                  db.collection.find({b: 1}).hint({$natural: 1})\n\
                  db.collection.countDocuments({a: 5})\n\
                  db.collection.distinct('a', {a: {$lt: 9}})";
    let out = mqlplay::run(db, script, &RunCtx::default());
    assert!(out.error.is_none(), "{:?}", out.error);
    let work: Vec<_> = out
        .work
        .iter()
        .map(|w| {
            w.as_ref().map(|w| {
                (
                    w.stage.as_str(),
                    w.index.as_deref(),
                    w.keys_examined,
                    w.docs_examined,
                    w.returned,
                )
            })
        })
        .collect();
    assert_eq!(
        work,
        vec![
            None,
            Some(("IXSCAN", Some("a_1"), 2, 2, 2)),
            Some(("COLLSCAN", None, 0, 3, 0)),
            Some(("COUNT_SCAN", Some("a_1"), 1, 0, 0)),
            Some(("IXSCAN", Some("a_1"), 2, 2, 2)),
        ]
    );
    let explain = out.work[1].as_ref().map(|w| print(&w.explain));
    assert!(explain.is_some_and(|e| e.contains("stage: 'IXSCAN'")));
}
