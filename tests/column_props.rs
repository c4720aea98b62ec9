#![cfg(not(target_arch = "wasm32"))]
//! Property test of the scan columns (`storage::columns`): on a collection
//! large enough to get them, every read and write answers as it does when the
//! filter starts with a part the columns cannot decide (`{$expr: true}`,
//! which makes the scan match every document itself), and a find sorts as
//! aggregate's `$sort` does.
use bson::{doc, Bson, Document};
use mqlplay::text::shell::print;
use mqlplay::RunCtx;
use proptest::prelude::*;

/// Larger than `storage::columns::MIN_DOCUMENTS`.
const DOCUMENTS: usize = 2100;

fn value() -> impl Strategy<Value = Option<Bson>> {
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(Bson::Null)),
        2 => (-2i32..3).prop_map(|i| Some(Bson::Int32(i))),
        1 => (-2i64..3).prop_map(|i| Some(Bson::Int64(i))),
        1 => (-4i8..6).prop_map(|i| Some(Bson::Double(f64::from(i) / 2.0))),
        2 => prop::sample::select(vec!["buy", "sell", "Buy", ""]).prop_map(|s| Some(Bson::String(s.into()))),
        1 => any::<bool>().prop_map(|b| Some(Bson::Boolean(b))),
        1 => (-1i64..2).prop_map(|t| Some(Bson::DateTime(bson::DateTime::from_millis(t)))),
        1 => prop::collection::vec(-1i32..2, 0..3)
            .prop_map(|v| Some(Bson::Array(v.into_iter().map(Bson::Int32).collect()))),
        1 => (0i32..2).prop_map(|x| Some(Bson::Document(doc! {"x": x}))),
        1 => prop::collection::vec((-1i32..2, any::<bool>()), 0..3).prop_map(|v| {
            let items = v.into_iter().map(|(x, has)| match has {
                true => Bson::Document(doc! {"x": x}),
                false => Bson::Document(doc! {"y": x}),
            });
            Some(Bson::Array(items.collect()))
        }),
        // What `$elemMatch` passes over or leaves to the matcher: scalars,
        // nested arrays, fields of other types.
        1 => prop::collection::vec(0u8..5, 0..4).prop_map(|v| {
            let items = v.into_iter().map(|k| match k {
                0 => Bson::Document(doc! {"x": "buy", "y": 1}),
                1 => Bson::String("sell".into()),
                2 => Bson::Array(vec![Bson::Document(doc! {"x": 1})]),
                3 => Bson::Document(doc! {"x": null}),
                _ => Bson::Document(doc! {"x": [1, 2]}),
            });
            Some(Bson::Array(items.collect()))
        }),
    ]
}

/// A pattern of documents, repeated over the collection.
fn pattern() -> impl Strategy<Value = Vec<(Option<Bson>, Option<Bson>)>> {
    prop::collection::vec((value(), value()), 1..12)
}

fn operand() -> impl Strategy<Value = Bson> {
    value().prop_map(|v| v.unwrap_or(Bson::Int32(0)))
}

fn condition() -> impl Strategy<Value = Bson> {
    let op = prop::sample::select(vec!["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]);
    prop_oneof![
        2 => operand(),
        3 => (op.clone(), operand()).prop_map(|(op, v)| {
            let mut d = Document::new();
            d.insert(op, v);
            Bson::Document(d)
        }),
        1 => prop::collection::vec(operand(), 0..3).prop_map(|v| Bson::Document(doc! {"$in": v})),
        1 => prop::collection::vec(operand(), 0..3).prop_map(|v| Bson::Document(doc! {"$nin": v})),
        1 => any::<bool>().prop_map(|b| Bson::Document(doc! {"$exists": b})),
        1 => Just(Bson::Document(doc! {"$elemMatch": {"$gte": 0}})),
        1 => (op.clone(), operand()).prop_map(|(op, v)| {
            let mut x = Document::new();
            x.insert(op, v);
            Bson::Document(doc! {"$elemMatch": {"x": x}})
        }),
        1 => (operand(), any::<bool>()).prop_map(|(v, has)| {
            Bson::Document(doc! {"$elemMatch": {"x": {"$in": [v, 1]}, "y": {"$exists": has}}})
        }),
        1 => operand().prop_map(|v| Bson::Document(doc! {"$elemMatch": {"$ne": v, "$lte": 1}})),
        1 => operand().prop_map(|v| Bson::Document(doc! {"$not": {"$lte": v}})),
    ]
}

fn filter() -> impl Strategy<Value = Document> {
    let path = prop::sample::select(vec!["a", "b", "a.x", "b.x", "a.0"]);
    (prop::collection::vec((path, condition()), 1..3), 0u8..3).prop_map(|(conds, shape)| {
        let clauses: Vec<Bson> = conds
            .into_iter()
            .map(|(p, c)| Bson::Document(doc! {p: c}))
            .collect();
        match shape {
            0 => doc! {"$and": clauses},
            1 => doc! {"$or": clauses},
            _ => doc! {"$nor": clauses},
        }
    })
}

fn database(pattern: &[(Option<Bson>, Option<Bson>)]) -> String {
    let docs: Vec<Bson> = (0..DOCUMENTS)
        .map(|i| {
            let mut d = doc! {"_id": i as i32};
            let (a, b) = &pattern[i % pattern.len()];
            if let Some(a) = a {
                d.insert("a", a.clone());
            }
            if let Some(b) = b {
                d.insert("b", b.clone());
            }
            Bson::Document(d)
        })
        .collect();
    print(&Bson::Array(docs))
}

fn run(db: &str, script: &str) -> Result<Vec<Bson>, String> {
    let out = mqlplay::run(db, script, &RunCtx::default());
    match out.error {
        Some(e) => Err(format!("{} {}", e.code, e.message)),
        None => Ok(out.results),
    }
}

/// An explain's figures: documents returned and examined, keys examined.
fn stats(results: &[Bson]) -> Vec<Option<Bson>> {
    let stats = match results.last() {
        Some(Bson::Document(d)) => d.get_document("executionStats").ok(),
        _ => None,
    };
    ["nReturned", "totalDocsExamined", "totalKeysExamined"]
        .iter()
        .map(|k| stats.and_then(|s| s.get(*k)).cloned())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn columns_answer_as_the_matcher(pattern in pattern(), f in filter()) {
        let db = database(&pattern);
        let with = print(&Bson::Document(f.clone()));
        let without = print(&Bson::Document(doc! {"$and": [{"$expr": true}, f]}));
        for script in [
            // Each run reads the same loaded text, so every script starts without columns.
            "db.collection.find(F, {_id: 1}); db.collection.find(F).sort({_id: -1}).limit(5)",
            "db.collection.countDocuments(F); db.collection.find(F).limit(3)",
            "db.collection.aggregate([{$match: F}, {$group: {_id: '$b', n: {$sum: 1}}}, {$sort: {_id: 1}}])",
            // A $group uses the columns an earlier scan built.
            "db.collection.countDocuments(F); db.collection.aggregate([{$match: F}, {$group: {_id: '$b', n: {$sum: 1}}}, {$sort: {_id: 1}}])",
            "db.collection.aggregate([{$match: F}, {$count: 'n'}])",
            "db.collection.updateMany(F, {$set: {hit: 1}}); db.collection.find({hit: 1}, {_id: 1})",
            "db.collection.deleteMany(F); db.collection.countDocuments({})",
            // The positional `$` takes the position the match recorded.
            "db.collection.updateMany(F, {$set: {'a.$': 7}}); db.collection.find({}, {a: 1}).limit(60)",
            "db.collection.find(F, {'a.$': 1}).limit(60)",
            "db.collection.countDocuments(F); db.collection.updateOne(F, {$set: {hit: 1}}); db.collection.countDocuments(F)",
        ] {
            let a = run(&db, &script.replace('F', &with));
            let b = run(&db, &script.replace('F', &without));
            prop_assert_eq!(a, b, "{}", script.replace('F', &with));
        }
        // Sorted by columns or by the documents (aggregate's $sort reads the
        // documents): the same order, ties in natural order.
        for (sort, collation) in [
            ("{a: 1}", ""),
            ("{b: -1, a: 1}", ""),
            ("{a: -1}", ", {collation: {locale: 'en', strength: 2}}"),
        ] {
            let find = format!("db.collection.find(F, {{_id: 1}}).sort({sort}).limit(50)");
            let agg = format!("db.collection.aggregate([{{$match: F}}, {{$sort: {sort}}}, {{$limit: 50}}, {{$project: {{_id: 1}}}}]{collation})");
            let find = match collation {
                "" => find,
                _ => format!("{find}.collation({{locale: 'en', strength: 2}})"),
            };
            let a = run(&db, &find.replace('F', &with));
            let b = run(&db, &agg.replace('F', &with));
            prop_assert_eq!(a, b, "{}", find.replace('F', &with));
        }
        // A scan passing over documents the columns rule out still examines them.
        for script in [
            "db.collection.find(F).explain('executionStats')",
            "db.collection.find(F).limit(2).explain('executionStats')",
        ] {
            let a = run(&db, &script.replace('F', &with)).map(|r| stats(&r));
            let b = run(&db, &script.replace('F', &without)).map(|r| stats(&r));
            prop_assert_eq!(a, b, "{}", script.replace('F', &with));
        }
    }
}

/// Strings a collation equates sort as ties, in natural order, by columns too.
#[test]
fn collation_ties_keep_natural_order() {
    let docs: Vec<Bson> = (0..DOCUMENTS as i32)
        .map(|i| Bson::Document(doc! {"_id": i, "a": if i % 2 == 0 { "buy" } else { "Buy" }}))
        .collect();
    let db = print(&Bson::Array(docs));
    let script = "db.collection.find({}, {_id: 1}).sort({a: 1}).limit(4).collation({locale: 'en', strength: 2})";
    let found = run(&db, script);
    let ids: Vec<Bson> = (0..4).map(|i| Bson::Document(doc! {"_id": i})).collect();
    assert_eq!(found, Ok(vec![Bson::Array(ids)]));
}

/// A match through an array keeps its position for the positional `$`.
#[test]
fn positional_updates_find_their_element() {
    let docs: Vec<Bson> = (0..DOCUMENTS as i32)
        .map(|i| Bson::Document(doc! {"_id": i, "a": [{"x": 1}, {"x": 2 + i % 2}]}))
        .collect();
    let db = print(&Bson::Array(docs));
    let script = "db.collection.updateMany({'a.x': 2}, {$set: {'a.$.x': 9}}); db.collection.find({'a.x': 9}, {_id: 0}).limit(1); db.collection.find({'a.x': 3}, {_id: 0, 'a.$': 1}).limit(1)";
    let after = vec![Bson::Document(doc! {"a": [{"x": 1}, {"x": 9}]})];
    let found = run(&db, script).map(|r| r.into_iter().skip(1).collect::<Vec<_>>());
    let projected = vec![Bson::Document(doc! {"a": [{"x": 3}]})];
    assert_eq!(found, Ok(vec![Bson::Array(after), Bson::Array(projected)]));
}

/// `$elemMatch` keeps its element's position for the positional `$` too.
#[test]
fn elem_match_positions_reach_the_positional_operator() {
    let docs: Vec<Bson> = (0..DOCUMENTS as i32)
        .map(|i| Bson::Document(doc! {"_id": i, "a": [{"x": 1, "y": 1}, {"x": 2 + i % 2, "y": 1}]}))
        .collect();
    let db = print(&Bson::Array(docs));
    let script = "db.collection.countDocuments({a: {$elemMatch: {x: 3, y: 1}}}); db.collection.updateMany({a: {$elemMatch: {x: 2, y: 1}}}, {$set: {'a.$.x': 9}}); db.collection.find({a: {$elemMatch: {x: 9}}}, {_id: 0}).limit(1); db.collection.find({a: {$elemMatch: {x: 3, y: {$gte: 1}}}}, {_id: 0, 'a.$': 1}).limit(1)";
    let after = vec![Bson::Document(
        doc! {"a": [{"x": 1, "y": 1}, {"x": 9, "y": 1}]},
    )];
    let projected = vec![Bson::Document(doc! {"a": [{"x": 3, "y": 1}]})];
    let found = run(&db, script).map(|r| {
        let mut r = r.into_iter();
        let count = r.next();
        (count, r.skip(1).collect::<Vec<_>>())
    });
    assert_eq!(
        found,
        Ok((
            Some(Bson::Int32(1050)),
            vec![Bson::Array(after), Bson::Array(projected)]
        ))
    );
}
