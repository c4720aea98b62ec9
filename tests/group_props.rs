#![cfg(not(target_arch = "wasm32"))]
//! Property test of `$group` over a collection large enough for scan
//! columns (`aggregate::stages::group_columns`): its key and arguments read
//! from columns, first stage or after a `$match`, answer as the group does
//! over the documents. A leading `{$skip: 0}` keeps the group off the
//! collection's documents (no columns). Groups must come out in the same
//! order, named by the same first-seen values, with the same errors.
use bson::{doc, Bson, Decimal128, Document};
use mqlplay::text::shell::print;
use proptest::prelude::*;
use std::str::FromStr;

mod large_collection;
use large_collection::{run, DOCUMENTS};

/// A value of a grouped or accumulated field: every kind of cell, equal
/// numbers of different types, and values a column cannot hold.
fn value() -> impl Strategy<Value = Option<Bson>> {
    prop_oneof![
        2 => Just(None),
        1 => Just(Some(Bson::Null)),
        4 => prop::sample::select(vec!["a", "b", "", "a\u{0}"]).prop_map(|s| Some(Bson::String(s.into()))),
        3 => (-2i32..3).prop_map(|i| Some(Bson::Int32(i))),
        1 => prop::sample::select(vec![i32::MAX, i32::MIN]).prop_map(|i| Some(Bson::Int32(i))),
        2 => (-2i64..3).prop_map(|i| Some(Bson::Int64(i))),
        1 => prop::sample::select(vec![i64::MAX, 1 << 53]).prop_map(|i| Some(Bson::Int64(i))),
        2 => prop::sample::select(vec![1.0, 0.5, -0.0, 0.0, f64::NAN, f64::INFINITY])
            .prop_map(|d| Some(Bson::Double(d))),
        1 => prop::sample::select(vec!["1", "1.50", "NaN"])
            .prop_map(|s| Decimal128::from_str(s).ok().map(Bson::Decimal128)),
        1 => any::<bool>().prop_map(|b| Some(Bson::Boolean(b))),
        1 => (0i64..2).prop_map(|t| Some(Bson::DateTime(bson::DateTime::from_millis(t)))),
        1 => prop::sample::select(vec![1u8, 2]).prop_map(|b| Some(Bson::ObjectId(bson::oid::ObjectId::from_bytes([b; 12])))),
        1 => prop::collection::vec(-1i32..2, 0..3)
            .prop_map(|v| Some(Bson::Array(v.into_iter().map(Bson::Int32).collect()))),
        1 => (-1i32..2).prop_map(|i| Some(Bson::Document(doc! {"x": i}))),
    ]
}

/// A pattern of documents (`g`, `v`, `w`), repeated over the collection.
fn pattern() -> impl Strategy<Value = Vec<(Option<Bson>, Option<Bson>, Option<Bson>)>> {
    prop::collection::vec((value(), value(), value()), 1..12)
}

fn database(pattern: &[(Option<Bson>, Option<Bson>, Option<Bson>)]) -> String {
    let docs: Vec<Bson> = (0..DOCUMENTS)
        .map(|i| {
            let (g, v, w) = &pattern[i % pattern.len()];
            let mut d = doc! {"_id": i as i32, "f": (i % 3) as i32};
            for (name, value) in [("g", g), ("v", v), ("w", w)] {
                if let Some(value) = value {
                    d.insert(name, value.clone());
                }
            }
            Bson::Document(d)
        })
        .collect();
    print(&Bson::Array(docs))
}

/// A `$group` stage: a key, and two or three accumulators of fields.
fn group() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "'$g'",
        "'$v'",
        "null",
        "{a: '$g'}",
        "{a: '$g', b: '$v'}",
        "{b: '$w', a: '$g', f: '$f'}",
        "{a: '$g', b: 1}",
        "{$toString: '$f'}",
    ]);
    let acc = prop::sample::select(vec![
        "{$sum: '$v'}",
        "{$sum: 1}",
        "{$avg: '$v'}",
        "{$min: '$w'}",
        "{$max: '$v'}",
        "{$first: '$w'}",
        "{$last: '$v'}",
        "{$push: '$w'}",
        "{$addToSet: '$g'}",
        "{$count: {}}",
        "{$stdDevPop: '$v'}",
        "{$firstN: {input: '$v', n: 2}}",
        "{$top: {output: '$w', sortBy: {v: 1}}}",
        "{$mergeObjects: '$w'}",
        "{$sum: '$_id'}",
    ]);
    (key, prop::collection::vec(acc, 1..4)).prop_map(|(key, accs)| {
        let fields: Vec<String> = accs
            .iter()
            .enumerate()
            .map(|(i, a)| format!("o{i}: {a}"))
            .collect();
        format!("{{$group: {{_id: {key}, {}}}}}", fields.join(", "))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn column_group_answers_as_the_documents(
        pattern in pattern(),
        group in group(),
        filter in prop::sample::select(vec!["{f: 1}", "{f: {$ne: 0}}", "{v: {$gte: 0}}", "{}"]),
    ) {
        let db = database(&pattern);
        let pairs = [
            (format!("[{group}]"), format!("[{{$skip: 0}}, {group}]")),
            (
                format!("[{{$match: {filter}}}, {group}]"),
                format!("[{{$match: {filter}}}, {{$skip: 0}}, {group}]"),
            ),
        ];
        for (with, without) in pairs {
            let a = run(&db, &format!("db.collection.aggregate({with})"));
            let b = run(&db, &format!("db.collection.aggregate({without})"));
            prop_assert_eq!(a, b, "{}", with);
        }
    }
}

/// The columns are read at all: a group by a string field over a collection
/// that large answers from them, and a later write (which drops them) is seen.
#[test]
fn groups_follow_writes() {
    let docs: Vec<Bson> = (0..DOCUMENTS)
        .map(|i| {
            let g = ["x", "y", "z"][i % 3];
            Bson::Document(doc! {"_id": i as i32, "g": g, "v": (i % 5) as i32})
        })
        .collect();
    let db = print(&Bson::Array(docs));
    let group =
        "db.collection.aggregate([{$group: {_id: '$g', s: {$sum: '$v'}, n: {$count: {}}}}])";
    let script = format!(
        "{group}; db.collection.updateMany({{g: 'y'}}, {{$set: {{g: 'x', v: 10}}}}); {group}"
    );
    let out = mqlplay::run(&db, &script, &mqlplay::RunCtx::default());
    assert!(out.error.is_none(), "{:?}", out.error);
    let want = |g: &str, s: i32, n: i32| Bson::Document(doc! {"_id": g, "s": s, "n": n});
    let [before, _, after] = out.results.as_slice() else {
        panic!("three results: {:?}", out.results);
    };
    assert_eq!(
        *before,
        Bson::Array(vec![
            want("x", 1400, 700),
            want("y", 1400, 700),
            want("z", 1400, 700)
        ])
    );
    assert_eq!(
        *after,
        Bson::Array(vec![want("x", 8400, 1400), want("z", 1400, 700)])
    );
}

/// A compound key keeps a missing field and a null apart (`{a: "x"}` and
/// `{a: "x", b: null}` are two groups), and equal numbers of different
/// types together, named by the first one seen.
#[test]
fn compound_keys_as_the_documents() {
    let shapes = [
        doc! {"g": "x"},
        doc! {"g": "x", "v": Bson::Null},
        doc! {"g": "x", "v": 1},
        doc! {"g": "x", "v": 1.0},
        doc! {"g": "x", "v": 1_i64},
        doc! {"v": 1},
        doc! {"g": "x", "v": [1]},
    ];
    let docs: Vec<Bson> = (0..DOCUMENTS)
        .map(|i| {
            let mut d = doc! {"_id": i as i32};
            d.extend(shapes[i % shapes.len()].clone());
            Bson::Document(d)
        })
        .collect();
    let db = print(&Bson::Array(docs));
    let group = "{$group: {_id: {a: '$g', b: '$v'}, n: {$count: {}}}}";
    let with = run(&db, &format!("db.collection.aggregate([{group}])"));
    let without = run(
        &db,
        &format!("db.collection.aggregate([{{$skip: 0}}, {group}])"),
    );
    assert_eq!(with, without);
    let n = DOCUMENTS as i32 / shapes.len() as i32;
    let key = |k: Document| Bson::Document(doc! {"_id": k, "n": n});
    let expected = Bson::Array(vec![
        key(doc! {"a": "x"}),
        key(doc! {"a": "x", "b": Bson::Null}),
        Bson::Document(doc! {"_id": {"a": "x", "b": 1}, "n": 3 * n}),
        key(doc! {"b": 1}),
        key(doc! {"a": "x", "b": [1]}),
    ]);
    // One statement's result: the array of its documents.
    let results = Bson::Array(vec![expected]);
    assert_eq!(with, Ok(results.into_canonical_extjson().to_string()));
}
