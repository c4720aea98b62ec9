#![cfg(not(target_arch = "wasm32"))]
//! Property test of how a projection stage runs over a collection large
//! enough for scan columns: its `$sum`/`$avg` of a path read from a column,
//! and a `$match` right after it tested before the document is built. Each
//! pipeline answers as it does when neither applies: a leading `{$skip: 0}`
//! keeps the stage off the collection's documents (no columns), and a
//! filter behind `{$expr: true}` reads the whole document (no fusion).
use bson::{doc, Bson, Decimal128, Document};
use mqlplay::text::shell::print;
use proptest::prelude::*;
use std::str::FromStr;

mod large_collection;
use large_collection::{run, DOCUMENTS};

/// A value where the summed path leads: the types `$sum`/`$avg` add or
/// ignore, with the widths and overflows their result types follow.
fn leaf() -> impl Strategy<Value = Option<Bson>> {
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(Bson::Null)),
        3 => (-3i32..4).prop_map(|i| Some(Bson::Int32(i))),
        1 => prop::sample::select(vec![i32::MAX, i32::MIN]).prop_map(|i| Some(Bson::Int32(i))),
        1 => (-3i64..4).prop_map(|i| Some(Bson::Int64(i))),
        1 => prop::sample::select(vec![i64::MAX, i64::MIN, 1 << 53]).prop_map(|i| Some(Bson::Int64(i))),
        2 => (-6i8..7).prop_map(|i| Some(Bson::Double(f64::from(i) / 4.0))),
        1 => prop::sample::select(vec![f64::NAN, f64::INFINITY, 0.1, -0.0]).prop_map(|d| Some(Bson::Double(d))),
        1 => prop::sample::select(vec!["1.5", "-2", "NaN"])
            .prop_map(|s| Decimal128::from_str(s).ok().map(Bson::Decimal128)),
        1 => prop::sample::select(vec!["4", ""]).prop_map(|s| Some(Bson::String(s.into()))),
        1 => any::<bool>().prop_map(|b| Some(Bson::Boolean(b))),
        1 => Just(Some(Bson::DateTime(bson::DateTime::from_millis(3)))),
        1 => prop::collection::vec(-1i32..3, 0..3)
            .prop_map(|v| Some(Bson::Array(v.into_iter().map(Bson::Int32).collect()))),
    ]
}

/// An element of `r` when it is an array: mostly documents with `v`.
fn element() -> impl Strategy<Value = Bson> {
    prop_oneof![
        5 => leaf().prop_map(|v| {
            let mut d = Document::new();
            if let Some(v) = v {
                d.insert("v", v);
            }
            Bson::Document(d)
        }),
        1 => (-1i32..3).prop_map(Bson::Int32),
        1 => leaf().prop_map(|v| Bson::Array(vec![Bson::Document(doc! {"v": v.unwrap_or(Bson::Null)})])),
        1 => leaf().prop_map(|v| Bson::Document(doc! {"v": {"w": v.unwrap_or(Bson::Null)}})),
        1 => prop::collection::vec(leaf(), 0..3).prop_map(|v| {
            let items = v.into_iter().map(|w| Bson::Document(doc! {"w": w.unwrap_or(Bson::Null)}));
            Bson::Document(doc! {"v": items.collect::<Vec<_>>()})
        }),
    ]
}

/// The field `r`: missing, a leaf, an array of elements, or a document.
fn field() -> impl Strategy<Value = Option<Bson>> {
    prop_oneof![
        2 => leaf(),
        5 => prop::collection::vec(element(), 0..5).prop_map(|v| Some(Bson::Array(v))),
        1 => element().prop_map(Some),
    ]
}

/// A pattern of documents (`r`, and `k`: what another field adds, a string
/// now and then so that its `$add` fails), repeated over the collection.
fn pattern() -> impl Strategy<Value = Vec<(Option<Bson>, i32)>> {
    prop::collection::vec((field(), 0i32..40), 1..10)
}

fn database(pattern: &[(Option<Bson>, i32)], bad_k: bool) -> String {
    let docs: Vec<Bson> = (0..DOCUMENTS)
        .map(|i| {
            let (r, k) = &pattern[i % pattern.len()];
            let mut d = doc! {"_id": i as i32, "name": format!("n{}", i % 7)};
            if let Some(r) = r {
                d.insert("r", r.clone());
            }
            // One document far into the collection, so earlier ones pass first.
            let k = match bad_k && i == DOCUMENTS - 3 {
                true => Bson::String("x".into()),
                false => Bson::Int32(*k),
            };
            d.insert("k", k);
            Bson::Document(d)
        })
        .collect();
    print(&Bson::Array(docs))
}

/// A projection stage over `r`'s paths and a filter on what it computes.
fn stages() -> impl Strategy<Value = (String, String)> {
    let path = prop::sample::select(vec!["$r", "$r.v", "$r.v.w", "$r.0"]);
    let acc = prop::sample::select(vec!["$sum", "$avg"]);
    let stage = prop::sample::select(vec!["$project", "$addFields", "$set"]);
    let cmp = prop::sample::select(vec!["$gte", "$lt", "$eq", "$ne"]);
    let bound = prop::sample::select(vec!["0", "1", "2.5", "null", "NumberLong(3)"]);
    (stage, acc.clone(), path.clone(), acc, path, cmp, bound, any::<bool>(), any::<bool>()).prop_map(
        |(stage, a1, p1, a2, p2, cmp, bound, wrapped, or)| {
            let first = if wrapped { format!("[\"{p1}\"]") } else { format!("\"{p1}\"") };
            let spec = match stage {
                "$project" => format!(
                    "{{name: 1, x: {{{a1}: {first}}}, e: {{$add: ['$k', 1]}}, y: {{{a2}: \"{p2}\"}}}}"
                ),
                _ => format!(
                    "{{x: {{{a1}: {first}}}, k: {{$add: ['$k', 1]}}, y: {{{a2}: \"{p2}\"}}}}"
                ),
            };
            let filter = if or {
                format!("{{$or: [{{x: {{{cmp}: {bound}}}}}, {{y: {{$type: 'double'}}, name: 'n1'}}]}}")
            } else {
                format!("{{x: {{{cmp}: {bound}}}, y: {{$exists: true}}}}")
            };
            (format!("{{{stage}: {spec}}}"), filter)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn projection_answers_as_unfused(
        pattern in pattern(),
        (stage, filter) in stages(),
        bad_k in prop::bool::weighted(0.2),
    ) {
        let db = database(&pattern, bad_k);
        let whole = format!("{{$and: [{{$expr: true}}, {filter}]}}");
        let pairs = [
            // Columns and fusion, against neither.
            (
                format!("[{stage}, {{$match: {filter}}}, {{$sort: {{_id: 1}}}}]"),
                format!("[{{$skip: 0}}, {stage}, {{$match: {whole}}}, {{$sort: {{_id: 1}}}}]"),
            ),
            // Columns alone (the stage's output, all of it).
            (
                format!("[{stage}]"),
                format!("[{{$skip: 0}}, {stage}]"),
            ),
            // Fusion alone.
            (
                format!("[{{$skip: 0}}, {stage}, {{$match: {filter}}}]"),
                format!("[{{$skip: 0}}, {stage}, {{$match: {whole}}}]"),
            ),
        ];
        // `$set` of a field to its own value leaves stored documents as they are.
        let same = "{$set: {r: {$ifNull: ['$r', 0]}, name: '$name'}}";
        let same_filter = "{$or: [{'r.v': {$gte: 1}}, {r: 0}]}";
        let pairs = pairs.into_iter().chain([(
            format!("[{same}, {{$match: {same_filter}}}]"),
            format!("[{{$skip: 0}}, {same}, {{$match: {{$and: [{{$expr: true}}, {same_filter}]}}}}]"),
        )]);
        for (with, without) in pairs {
            let a = run(&db, &format!("db.collection.aggregate({with})"));
            let b = run(&db, &format!("db.collection.aggregate({without})"));
            prop_assert_eq!(a, b, "{}", with);
        }
        // A leading $match keeps positions: the columns an earlier run built are read.
        let built = format!("db.collection.aggregate([{stage}, {{$limit: 1}}]); ");
        let with = format!("{built}db.collection.aggregate([{{$match: {{_id: {{$gte: 7}}}}}}, {stage}, {{$match: {filter}}}])");
        let without = format!("{built}db.collection.aggregate([{{$match: {{_id: {{$gte: 7}}}}}}, {{$skip: 0}}, {stage}, {{$match: {whole}}}])");
        prop_assert_eq!(run(&db, &with), run(&db, &without), "{}", with);
    }
}
