//! Unit tests of stages that need neither the expression evaluator nor filters.
use super::Pipeline;
use crate::context::RunCtx;
use crate::expr::{CompileCtx, Scope};
use crate::storage::Database;
use bson::{bson, doc, Bson, Document};

fn run(stages: Bson, input: Vec<Document>) -> crate::error::Result<Vec<Document>> {
    let Bson::Array(stages) = stages else {
        panic!("stages must be an array")
    };
    let p = Pipeline::compile(&stages, &CompileCtx::default())?;
    let run = RunCtx::default();
    let mut db = Database::new();
    p.run(input, &mut db, &Scope::new(&run))
}

fn trades() -> Vec<Document> {
    vec![
        doc! {"_id": 1, "ticker": "MDB", "qty": 10, "type": "buy"},
        doc! {"_id": 2, "ticker": "GOOG", "qty": 5.5, "type": "sell"},
        doc! {"_id": 3, "ticker": "MDB", "qty": 7, "type": "buy"},
        doc! {"_id": 4, "ticker": "AAPL", "type": "buy"},
    ]
}

#[test]
fn group_sums_and_counts() {
    let out = run(
        bson!([{"$group": {"_id": "$ticker", "total": {"$sum": "$qty"}, "n": {"$sum": 1},
            "avg": {"$avg": "$qty"}, "max": {"$max": "$qty"}, "all": {"$push": "$qty"},
            "first": {"$first": "$qty"}}}]),
        trades(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out,
        vec![
            doc! {"_id": "MDB", "total": 17, "n": 2, "avg": 8.5, "max": 10, "all": [10, 7], "first": 10},
            doc! {"_id": "GOOG", "total": 5.5, "n": 1, "avg": 5.5, "max": 5.5, "all": [5.5], "first": 5.5},
            doc! {"_id": "AAPL", "total": 0, "n": 1, "avg": Bson::Null, "max": Bson::Null, "all": [], "first": Bson::Null},
        ]
    );
}

#[test]
fn group_errors() {
    let e = run(bson!([{"$group": {"total": {"$sum": 1}}}]), vec![]).err();
    assert_eq!(e.map(|e| e.code), Some(15955));
    let e = run(bson!([{"$group": {"_id": 1, "x": {"$bogus": 1}}}]), vec![]).err();
    assert_eq!(e.map(|e| e.code), Some(15952));
    let e = run(bson!([{"$group": {"_id": 1}, "$limit": 1}]), vec![]).err();
    assert_eq!(e.map(|e| e.code), Some(40323));
    let e = run(bson!([{"$foo": 1}]), vec![]).err();
    assert_eq!(e.map(|e| e.code), Some(40324));
}

#[test]
fn project_modes() {
    let input = vec![doc! {"_id": 1, "a": {"b": 1, "c": 2}, "d": [{"b": 3, "e": 4}, 5], "f": 6}];
    let out = run(
        bson!([{"$project": {"a.b": 1, "d": {"b": 1}}}]),
        input.clone(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, vec![doc! {"_id": 1, "a": {"b": 1}, "d": [{"b": 3}]}]);
    let out = run(
        bson!([{"$project": {"a.b": 0, "_id": 0, "d.e": 0}}]),
        input.clone(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, vec![doc! {"a": {"c": 2}, "d": [{"b": 3}, 5], "f": 6}]);
    let out = run(
        bson!([{"$project": {"g": "$f", "a.x": "$a.c"}}]),
        input.clone(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, vec![doc! {"_id": 1, "g": 6, "a": {"x": 2}}]);
    let out = run(
        bson!([{"$set": {"f": "$a.b", "n.m": "lit"}}, {"$unset": ["a", "d"]}]),
        input.clone(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, vec![doc! {"_id": 1, "f": 1, "n": {"m": "lit"}}]);
    let e = run(bson!([{"$project": {"a": 1, "f": 0}}]), input.clone()).err();
    assert_eq!(e.map(|e| e.code), Some(31254));
    let e = run(bson!([{"$project": {"a": 1, "a.b": 1}}]), input).err();
    assert_eq!(e.map(|e| e.code), Some(31249));
}

#[test]
fn unwind_forms() {
    let input = vec![
        doc! {"_id": 1, "s": ["a", "b"], "z": 1},
        doc! {"_id": 2, "s": []},
        doc! {"_id": 3, "s": Bson::Null},
        doc! {"_id": 4},
        doc! {"_id": 5, "s": "x"},
    ];
    let out = run(bson!([{"$unwind": "$s"}]), input.clone()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out,
        vec![
            doc! {"_id": 1, "s": "a", "z": 1},
            doc! {"_id": 1, "s": "b", "z": 1},
            doc! {"_id": 5, "s": "x"},
        ]
    );
    let out = run(
        bson!([{"$unwind": {"path": "$s", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}]),
        input,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out,
        vec![
            doc! {"_id": 1, "s": "a", "z": 1, "i": 0i64},
            doc! {"_id": 1, "s": "b", "z": 1, "i": 1i64},
            doc! {"_id": 2, "i": Bson::Null},
            doc! {"_id": 3, "s": Bson::Null, "i": Bson::Null},
            doc! {"_id": 4, "i": Bson::Null},
            doc! {"_id": 5, "s": "x", "i": Bson::Null},
        ]
    );
}

#[test]
fn limit_skip_count() {
    let out = run(
        bson!([{"$skip": 1}, {"$limit": 2}, {"$count": "n"}]),
        trades(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, vec![doc! {"n": 2}]);
    let out =
        run(bson!([{"$skip": 10}, {"$count": "n"}]), trades()).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.is_empty());
    assert_eq!(
        run(bson!([{"$limit": 0}]), vec![]).err().map(|e| e.code),
        Some(15958)
    );
    assert_eq!(
        run(bson!([{"$skip": -1}]), vec![]).err().map(|e| e.code),
        Some(5107200)
    );
    assert_eq!(
        run(bson!([{"$count": "$x"}]), vec![]).err().map(|e| e.code),
        Some(40158)
    );
}

#[test]
fn sort_by_count_and_sample() {
    let out = run(bson!([{"$sortByCount": "$ticker"}]), trades()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out,
        vec![
            doc! {"_id": "MDB", "count": 2},
            doc! {"_id": "GOOG", "count": 1},
            doc! {"_id": "AAPL", "count": 1},
        ]
    );
    let a = run(bson!([{"$sample": {"size": 2}}]), trades()).unwrap_or_else(|e| panic!("{e}"));
    let b = run(bson!([{"$sample": {"size": 2}}]), trades()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.len(), 2);
    assert_eq!(a, b);
}

#[test]
fn update_pipelines() {
    let Bson::Array(stages) = bson!([{"$set": {"b": "$a"}}, {"$unset": "a"}]) else {
        unreachable!()
    };
    let p =
        Pipeline::compile_update(&stages, &CompileCtx::default()).unwrap_or_else(|e| panic!("{e}"));
    let run = RunCtx::default();
    let out = p
        .apply_to(&doc! {"_id": 1, "a": 2}, &Scope::new(&run))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, doc! {"_id": 1, "b": 2});
    let Bson::Array(bad) = bson!([{"$group": {"_id": 1}}]) else {
        unreachable!()
    };
    let e = Pipeline::compile_update(&bad, &CompileCtx::default()).err();
    assert_eq!(e.as_ref().map(|e| e.code), Some(72));
    assert_eq!(
        e.map(|e| e.message),
        Some("$group is not allowed to be used within an update".to_string())
    );
}
