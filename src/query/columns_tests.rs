//! The column decisions against the matcher's.
use super::*;
use crate::context::RunCtx;
use crate::expr::{CompileCtx, Scope};
use bson::oid::ObjectId;
use bson::{doc, Decimal128, Document};

/// Values of every kind a cell holds, and some it does not.
fn values() -> Vec<Option<Bson>> {
    let mut v: Vec<Option<Bson>> = vec![
        None,
        Some(Bson::Null),
        Some(Bson::Undefined),
        Some(Bson::Boolean(true)),
        Some(Bson::Boolean(false)),
        Some(Bson::Int32(1)),
        Some(Bson::Int32(-7)),
        Some(Bson::Int64(1)),
        Some(Bson::Int64(i64::MAX)),
        Some(Bson::Double(1.0)),
        Some(Bson::Double(2.5)),
        Some(Bson::Double(f64::NAN)),
        Some(Bson::Double(-0.0)),
        Some(Bson::Double(9.223372036854776e18)),
        Some(Bson::String("buy".into())),
        Some(Bson::String("Buy".into())),
        Some(Bson::String(String::new())),
        Some(Bson::ObjectId(ObjectId::from_bytes([1; 12]))),
        Some(Bson::DateTime(bson::DateTime::from_millis(0))),
        Some(Bson::DateTime(bson::DateTime::from_millis(-1))),
        Some(Bson::Array(vec![
            Bson::Int32(1),
            Bson::String("buy".into()),
        ])),
        Some(Bson::Array(vec![])),
        Some(Bson::Document(doc! {"x": 1})),
        Some(Bson::Document(doc! {"x": [1, "buy"]})),
        Some(Bson::Array(vec![
            Bson::Document(doc! {"x": "buy"}),
            Bson::Document(doc! {"y": 1}),
            Bson::Document(doc! {"x": 2_i64}),
            Bson::Int32(3),
        ])),
        Some(Bson::Array(vec![
            Bson::Array(vec![Bson::Document(doc! {"x": 1})]),
            Bson::Document(doc! {"x": null}),
        ])),
        Some(Bson::Array(vec![Bson::Array(vec![Bson::Document(
            doc! {"y": 1},
        )])])),
        crate::query::regex_value("^b", ""),
        Some(Bson::MinKey),
    ];
    if let Ok(d) = "1".parse::<Decimal128>() {
        v.push(Some(Bson::Decimal128(d)));
    }
    v
}

fn docs() -> Vec<Document> {
    let vals = values();
    let n = vals.len();
    (0..n * n)
        .map(|i| {
            let mut d = doc! {"_id": i as i64};
            if let Some(a) = &vals[i % n] {
                d.insert("a", a.clone());
            }
            if let Some(b) = &vals[(i / n) % n] {
                d.insert("b", b.clone());
            }
            d
        })
        .collect()
}

/// Filters over `a` (each operator with each operand) and mixes with
/// parts the columns cannot decide.
fn filters() -> Vec<Document> {
    let mut out = Vec::new();
    for v in values().into_iter().flatten() {
        for op in ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"] {
            out.push(doc! {"a": {op: v.clone()}});
        }
        out.push(doc! {"a": v.clone()});
        out.push(doc! {"a": {"$in": [v.clone(), 1]}});
        out.push(doc! {"a": {"$nin": [v.clone(), "buy"]}});
        out.push(doc! {"a": {"$not": {"$gte": v.clone()}}});
        out.push(doc! {"a": v.clone(), "b": {"$lt": v.clone()}});
        out.push(doc! {"$or": [{"a": v.clone()}, {"b": v.clone()}]});
        out.push(doc! {"$nor": [{"a": v.clone()}, {"b.x": 1}]});
        out.push(doc! {"b": {"$ne": v.clone()}, "$expr": {"$eq": ["$a", v.clone()]}});
        out.push(doc! {"a.x": v.clone()});
        out.push(doc! {"a.x": {"$gt": v.clone()}});
        out.push(doc! {"a.x": {"$ne": v.clone()}, "b": {"$lte": v.clone()}});
        out.push(doc! {"a.0": {"$lte": v.clone()}});
        out.push(doc! {"a.1.x": {"$in": [v.clone()]}});
        out.push(doc! {"a": {"$elemMatch": {"x": v.clone()}}});
        out.push(doc! {"a": {"$elemMatch": {"x": {"$gt": v.clone()}, "y": {"$exists": false}}}});
        out.push(doc! {"a": {"$elemMatch": {"x": {"$ne": v.clone()}}}, "b": v.clone()});
        out.push(
            doc! {"a": {"$elemMatch": {"y": {"$lte": v.clone()}, "x": {"$in": [v.clone(), 2]}}}},
        );
        out.push(doc! {"a": {"$elemMatch": {"$gte": v.clone()}}});
        out.push(doc! {"a": {"$elemMatch": {"$in": [v.clone(), 1], "$ne": 2}}});
        out.push(doc! {"b": {"$elemMatch": {"$not": {"$lt": v.clone()}}}});
    }
    out.extend([
        doc! {"a": {"$exists": true}},
        doc! {"a": {"$exists": false}},
        doc! {"a": {"$type": "number"}},
        doc! {"a": {"$type": ["string", "null"]}},
        doc! {"a": {"$mod": [2, 1]}},
        doc! {"a": {"$regex": "^b", "$options": "i"}},
        doc! {"a": {"$size": 0}},
        doc! {"a": {"$all": [1]}},
        doc! {"a": {"$elemMatch": {"$gte": 1}}},
        doc! {"a": {"$bitsAllSet": 1}},
        doc! {"a": {"$gt": 0}, "$expr": {"$divide": [1, 0]}},
        doc! {"a": {"$gt": 0}, "$expr": {"$divide": [1, 0]}, "b": 1},
        doc! {"$and": [{"$expr": {"$divide": [1, 0]}}, {"a": 1}]},
        doc! {"a.x": 1, "a": {"$exists": true}},
        doc! {"a.x": {"$exists": true}},
        doc! {"a.x": {"$exists": false}},
        doc! {"a.x": {"$size": 1}},
        doc! {"a.x": {"$elemMatch": {"$gte": 1}}},
        doc! {"a": {"$elemMatch": {"x": {"$elemMatch": {"$gte": 1}}}}},
        doc! {"a": {"$elemMatch": {"x": {"$size": 1}}}},
        doc! {"a": {"$elemMatch": {"x": 1, "$or": [{"y": 1}, {"x": 2}]}}},
        doc! {"a": {"$elemMatch": {"x.y": 1}}},
        doc! {"a": {"$elemMatch": {"$and": [{"x": {"$gte": 1}}, {"y": null}]}}},
        doc! {"a": {"$elemMatch": {"x": null}}},
        doc! {"a": {"$elemMatch": {"$exists": true}}},
        doc! {"a": {"$elemMatch": {"$type": "object"}}},
    ]);
    out
}

/// The columns of `docs`, built on demand.
fn columns(docs: &[Document]) -> impl FnMut(&Source) -> Option<Rc<Column>> + '_ {
    let mut built: Vec<Rc<Column>> = Vec::new();
    move |source| {
        if let Some(c) = built.iter().find(|c| c.source() == source) {
            return Some(Rc::clone(c));
        }
        let c = Rc::new(match source {
            Source::Path(f) if f.contains('.') => Column::build_path(f, docs, usize::MAX)?,
            Source::Path(f) => Column::build(f, docs),
            Source::Elements { array, field } => {
                Column::build_elements(array, field.as_deref(), docs, usize::MAX)?
            }
        });
        built.push(Rc::clone(&c));
        Some(c)
    }
}

/// Whatever the columns decide is what the matcher answers, with no
/// array position; an error the matcher raises is never decided away.
#[test]
fn decisions_are_the_matchers() {
    let run = RunCtx::default();
    let scope = Scope::new(&run);
    let docs = docs();
    let mut column = columns(&docs);
    let mut decided = 0;
    for f in filters() {
        let Ok(filter) = Filter::compile(&f, &CompileCtx::default()) else {
            continue;
        };
        for positions in [true, false] {
            let (Some(mut forward), Some(mut backward)) = (
                ColumnCheck::new(&filter, positions, &mut column),
                ColumnCheck::new(&filter, positions, &mut column),
            ) else {
                continue;
            };
            // Forward: a chunk at a time; backward: one document at a time.
            let order = (0..docs.len()).chain((0..docs.len()).rev());
            for (k, at) in order.enumerate() {
                let d = &docs[at];
                let check = if k < docs.len() {
                    &mut forward
                } else {
                    &mut backward
                };
                let full = filter.matches_at(d, &scope);
                match (check.decide(at), full) {
                    (None, _) => {}
                    (Some(hit), Ok(found)) => {
                        decided += 1;
                        assert_eq!(found.is_some(), hit, "{f} on {d}");
                        if positions {
                            assert!(found.is_none_or(|p| p.is_none()), "{f} on {d}");
                        }
                    }
                    (Some(_), Err(e)) => panic!("{f} on {d}: decided, matcher says {e}"),
                }
            }
        }
    }
    assert!(decided > 500_000, "only {decided} decisions");
}

/// Passing over what fails, and counting what matches, agree with deciding
/// each document.
#[test]
fn candidates_and_counts_agree_with_decisions() {
    let docs = docs();
    let mut column = columns(&docs);
    for f in filters() {
        let Ok(filter) = Filter::compile(&f, &CompileCtx::default()) else {
            continue;
        };
        let (Some(mut one), Some(mut skip), Some(mut count)) = (
            ColumnCheck::new(&filter, false, &mut column),
            ColumnCheck::new(&filter, false, &mut column),
            ColumnCheck::new(&filter, false, &mut column),
        ) else {
            continue;
        };
        let each: Vec<Option<bool>> = (0..docs.len()).map(|at| one.decide(at)).collect();
        let candidates: Vec<usize> = (0..docs.len())
            .filter(|&at| each[at] != Some(false))
            .collect();
        let mut found = Vec::new();
        let mut at = 0;
        while at < docs.len() {
            at = skip.next_candidate(at);
            if at < docs.len() {
                found.push(at);
            }
            at += 1;
        }
        assert_eq!(found, candidates, "{f}");
        let (mut yes, mut at) = (0, 0);
        let mut undecided = Vec::new();
        while at < docs.len() {
            let (n, next) = count.count_to_undecided(at);
            yes += n;
            if next < docs.len() {
                undecided.push(next);
            }
            at = next + 1;
        }
        let expect: Vec<usize> = (0..docs.len()).filter(|&at| each[at].is_none()).collect();
        assert_eq!(undecided, expect, "{f}");
        assert_eq!(
            yes,
            each.iter().filter(|d| **d == Some(true)).count(),
            "{f}"
        );
    }
}

#[test]
fn the_share_that_passes_is_measured_on_the_first_documents() {
    let docs: Vec<Document> = (0..2000).map(|i| doc! {"a": i % 10}).collect();
    let mut column = columns(&docs);
    for (f, mostly_fails) in [
        (doc! {"a": {"$lt": 2}}, true),
        (doc! {"a": {"$lt": 3}}, false),
        (doc! {"a": {"$gte": 0, "$lt": 9}}, false),
    ] {
        let filter = Filter::compile(&f, &CompileCtx::default()).unwrap_or_else(|e| panic!("{e}"));
        let mut check = ColumnCheck::new(&filter, false, &mut column)
            .unwrap_or_else(|| panic!("a check for {f}"));
        assert_eq!(check.mostly_fails(), mostly_fails, "{f}");
        // Deciding ahead changes no decision: document 1 holds a: 1.
        assert_eq!(check.decide(1), Some(true), "{f}");
        assert_eq!(check.decide(9), Some(false), "{f}");
    }
}

#[test]
fn filters_the_columns_cannot_decide_get_no_check() {
    let docs = docs();
    let mut column = columns(&docs);
    for f in [
        doc! {"a.x": {"$size": 1}},
        doc! {"$expr": true, "a": 1},
        doc! {},
    ] {
        let filter = Filter::compile(&f, &CompileCtx::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            ColumnCheck::new(&filter, true, &mut column).is_none(),
            "{f}"
        );
    }
    let filter =
        Filter::compile(&doc! {"a": 1}, &CompileCtx::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(ColumnCheck::new(&filter, true, &mut |_| None).is_none());
}

/// `$elemMatch` on a top-level array is decided from element columns, both
/// ways, in both its forms; on a dotted path it is not.
#[test]
fn elem_match_is_decided_from_element_columns() {
    let docs = docs();
    let mut column = columns(&docs);
    for f in [
        doc! {"a": {"$elemMatch": {"x": "buy"}}},
        doc! {"a": {"$elemMatch": {"x": {"$gte": 1}, "y": {"$ne": 1}}}},
        doc! {"a": {"$elemMatch": {"$gte": 1}}},
    ] {
        let filter = Filter::compile(&f, &CompileCtx::default()).unwrap_or_else(|e| panic!("{e}"));
        let mut check = ColumnCheck::new(&filter, false, &mut column)
            .unwrap_or_else(|| panic!("a check for {f}"));
        let decisions: Vec<Option<bool>> = (0..docs.len()).map(|at| check.decide(at)).collect();
        assert!(decisions.contains(&Some(true)), "{f}");
        assert!(decisions.contains(&Some(false)), "{f}");
        // With positions, a match is the matcher's to record.
        let mut check = ColumnCheck::new(&filter, true, &mut column)
            .unwrap_or_else(|| panic!("a check for {f}"));
        assert!(
            (0..docs.len()).all(|at| check.decide(at) != Some(true)),
            "{f}"
        );
    }
    let filter = Filter::compile(
        &doc! {"a.x": {"$elemMatch": {"y": 1}}},
        &CompileCtx::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(ColumnCheck::new(&filter, false, &mut column).is_none());
}
