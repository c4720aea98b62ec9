use super::*;
use crate::value::path::{FieldPath, LeafArrays};
use bson::spec::BinarySubtype;
use bson::{doc, Binary, Decimal128, JavaScriptCodeWithScope, Regex, Timestamp};

/// A document holding every BSON type, nested in documents and arrays.
fn every_type() -> Document {
    let dbpointer = {
        // DbPointer has no public constructor: decode one from its bytes.
        let mut value = Vec::new();
        value.extend_from_slice(&5i32.to_le_bytes());
        value.extend_from_slice(b"db.c\0");
        value.extend_from_slice(&[7u8; 12]);
        let len = 4 + 1 + 2 + value.len() + 1;
        let mut bytes = (len as i32).to_le_bytes().to_vec();
        bytes.extend_from_slice(&[0x0C, b'p', 0]);
        bytes.extend_from_slice(&value);
        bytes.push(0);
        let raw = bson::RawDocument::from_bytes(&bytes).expect("valid");
        Document::try_from(raw).expect("decodes")
    };
    let scalars = doc! {
        "double": 1.5,
        "nan": f64::NAN,
        "negzero": -0.0,
        "string": "héllo wörld",
        "empty": "",
        "binary": Binary { subtype: BinarySubtype::Generic, bytes: vec![1, 2, 3] },
        "uuid": Binary { subtype: BinarySubtype::Uuid, bytes: vec![9; 16] },
        "old": Binary { subtype: BinarySubtype::BinaryOld, bytes: vec![4, 5] },
        "user": Binary { subtype: BinarySubtype::UserDefined(0x80), bytes: vec![] },
        "undefined": Bson::Undefined,
        "oid": bson::oid::ObjectId::from_bytes([1; 12]),
        "true": true,
        "false": false,
        "date": bson::DateTime::from_millis(-1_234_567),
        "null": Bson::Null,
        "regex": Regex { pattern: "a.*b".try_into().expect("no NUL"), options: "im".try_into().expect("no NUL") },
        "dbpointer": dbpointer.get("p").cloned().unwrap_or(Bson::Null),
        "code": Bson::JavaScriptCode("x + 1".into()),
        "symbol": Bson::Symbol("sym".into()),
        "scope": JavaScriptCodeWithScope { code: "y".into(), scope: doc! {"y": 2} },
        "int32": i32::MIN,
        "timestamp": Timestamp { time: 7, increment: 9 },
        "int64": i64::MAX,
        "decimal": Decimal128::from_bytes([3; 16]),
        "maxkey": Bson::MaxKey,
        "minkey": Bson::MinKey,
    };
    let mut all = scalars.clone();
    all.insert("doc", scalars.clone());
    all.insert("array", scalars.values().cloned().collect::<Vec<_>>());
    all.insert("deep", doc! {"a": [{"b": [scalars]}, [], {}]});
    all.insert("", "empty key");
    all
}

fn store(d: &Document) -> StoredDoc {
    StoredDoc::encode(d).expect("encodes")
}

#[test]
fn every_type_round_trips() {
    let d = every_type();
    assert!(matches!(d.get("dbpointer"), Some(Bson::DbPointer(_))));
    let s = store(&d);
    // Our encoder writes bson's bytes.
    assert_eq!(Some(s.as_bytes().to_vec()), d.to_vec().ok());
    let back = s.decode().expect("decodes");
    // NaN != NaN: compare the encodings.
    assert_eq!(back.to_vec().ok(), d.to_vec().ok());
    assert_eq!(format!("{back:?}"), format!("{d:?}"));
    // Each value read in place gives bson's own value back.
    let view = s.view();
    for (k, v) in &d {
        let raw = view.get(k).expect("present");
        let owned = raw.to_bson().expect("converts");
        assert_eq!(format!("{owned:?}"), format!("{v:?}"), "{k}");
        assert_eq!(raw.element_type(), v.element_type() as u8, "{k}");
    }
    assert_eq!(view.len(), d.len());
    assert_eq!(view.get("nope"), None);
    let keys: Vec<&str> = view.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, d.keys().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn sizes_are_bsons() {
    let samples = [
        every_type(),
        Document::new(),
        doc! {"_id": 1, "a": "x".repeat(1000)},
        doc! {"a": {"b": {"c": [1, [2, [3]]]}}},
    ];
    for d in samples {
        let s = store(&d);
        assert_eq!(s.size(), crate::value::size::bson_size(&d));
        assert_eq!(s.size(), s.as_bytes().len());
    }
    // The estimate without encoding agrees wherever it is exact.
    let d = doc! {"_id": 1, "s": "abc", "n": [1.5, null, {"x": true}]};
    assert_eq!(store(&d).size(), crate::value::size::doc_size(&d));
}

#[test]
fn values_are_borrowed_in_place() {
    let d = doc! {"_id": 7, "type": "buy", "qty": 12i64, "sub": {"x": [1, 2]}};
    let s = store(&d);
    let v = s.view();
    assert_eq!(v.get("type"), Some(RawValue::String("buy")));
    assert_eq!(v.get("qty"), Some(RawValue::Int64(12)));
    assert_eq!(v.get("typ"), None);
    assert_eq!(v.get("type2"), None);
    let Some(RawValue::Document(sub)) = v.get("sub") else {
        panic!("a sub-document");
    };
    let Some(RawValue::Array(x)) = sub.get("x") else {
        panic!("an array");
    };
    assert_eq!(x.index(1), Some(RawValue::Int32(2)));
    assert_eq!(x.index(2), None);
    assert_eq!(
        v.get_path(&FieldPath::new("sub.x.0")),
        Some(RawValue::Int32(1))
    );
    assert_eq!(v.get_path(&FieldPath::new("sub.y")), None);
}

/// Every path visit over a stored document sees what the `Document` traversal sees.
#[test]
fn paths_visit_as_documents_do() {
    let docs = [
        doc! {"a": 1},
        doc! {"a": [1, 2, [3, 4]]},
        doc! {"a": {"b": 1}},
        doc! {"a": [{"b": 1}, {"b": [2, 3]}, {"c": 4}, 5]},
        doc! {"a": [[{"b": 1}], {"0": {"b": 2}}, {"b": {"0": 3}}]},
        doc! {"a": [{"b": [{"c": 1}, {"c": [2]}]}, {"b": {"c": 3}}]},
        doc! {"a": {"0": [7], "1": {"b": 8}}},
        doc! {"history": [{"ticker": "MDB"}, {"ticker": "AAPL"}]},
        doc! {"a": null, "b": []},
        every_type(),
    ];
    let paths = [
        "a",
        "a.b",
        "a.0",
        "a.1",
        "a.0.b",
        "a.b.c",
        "a.b.0",
        "a.1.b",
        "a.2",
        "a.0.0",
        "b",
        "history.ticker",
        "history.0.ticker",
        "doc.array",
        "array.3",
        "deep.a.b.string",
        "deep.a.1",
        "x.y",
    ];
    let leaves = [
        LeafArrays::Traverse,
        LeafArrays::NoTraversal,
        LeafArrays::TraverseOmitArray,
    ];
    for d in &docs {
        let s = store(d);
        for p in paths {
            let path = FieldPath::new(p);
            for leaf in leaves {
                let mut want = Vec::new();
                path.visit(d, leaf, &mut |v, i| {
                    want.push(format!("{v:?} {i:?}"));
                    false
                });
                let mut got = Vec::new();
                s.view().visit_path(&path, leaf, &mut |v, i| {
                    let v = v.map(|v| v.to_bson().expect("converts"));
                    got.push(format!("{:?} {i:?}", v.as_ref()));
                    false
                });
                assert_eq!(got, want, "{p} {leaf:?} in {d:?}");
                // Stopping at the first value stops both.
                let mut first = 0;
                s.view().visit_path(&path, leaf, &mut |_, _| {
                    first += 1;
                    true
                });
                assert_eq!(first, want.len().min(1));
            }
            let want = path.get(d).cloned();
            let got = s
                .view()
                .get_path(&path)
                .map(|v| v.to_bson().expect("converts"));
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{p}");
        }
    }
}

/// Damaged bytes end the walk; nothing panics.
#[test]
fn malformed_bytes_never_panic() {
    let bytes = store(&every_type()).as_bytes().to_vec();
    assert!(DocView::new(&bytes).is_some());
    for cut in 0..bytes.len() {
        assert!(DocView::new(&bytes[..cut]).is_none());
        let view = DocView {
            bytes: &bytes[..cut],
        };
        let _ = view.iter().count();
        let _ = view.get("minkey");
        let _ = view.decode();
    }
    let mut flipped = bytes.clone();
    for i in 0..flipped.len() {
        let old = flipped[i];
        flipped[i] = old ^ 0xA5;
        let view = DocView { bytes: &flipped };
        for (_, v) in view.iter() {
            let _ = v.to_bson();
        }
        let _ = view.get_path(&FieldPath::new("deep.a.0.b"));
        flipped[i] = old;
    }
}

#[test]
fn keys_bson_cannot_hold_are_refused() {
    let mut d = Document::new();
    d.insert("a\0b", 1);
    assert!(StoredDoc::encode(&d).is_err());
}

/// Every filter matched in place answers as the `Document` matcher does,
/// array positions included.
#[test]
fn filters_match_in_place_as_on_documents() {
    use crate::context::RunCtx;
    use crate::expr::{CompileCtx, Scope};
    use crate::query::Filter;
    let docs = [
        doc! {"_id": 1, "type": "buy", "qty": 5, "tags": ["a", "b"], "sub": {"x": 1}},
        doc! {"_id": 2, "type": "sell", "qty": 5.0, "tags": [], "sub": {"x": [1, 2]}},
        doc! {"_id": 3, "qty": 7i64, "tags": "a", "sub": [{"x": 3}, {"x": 1}], "n": null},
        doc! {"_id": 4, "type": ["buy", "x"], "qty": "5", "tags": [["a"], "b"], "sub": {}},
        doc! {"_id": 5, "grades": [80, 85, 90], "sub": [{"x": [5, 1]}, 2], "qty": f64::NAN},
        doc! {"_id": 6, "type": {"a": 1}, "qty": [1, 5, 9], "tags": ["b", {"c": 1}]},
        doc! {"history": [{"ticker": "MDB", "qty": 3}, {"ticker": "AAPL", "qty": 9}]},
        every_type(),
    ];
    let filters = [
        doc! {},
        doc! {"type": "buy"},
        doc! {"qty": 5},
        doc! {"qty": {"$gt": 4, "$lt": 8}},
        doc! {"qty": {"$gte": "5"}},
        doc! {"qty": {"$ne": 5}},
        doc! {"qty": {"$in": [5, "5", null]}},
        doc! {"qty": {"$nin": [5, 7]}},
        doc! {"tags": "a"},
        doc! {"tags": ["a", "b"]},
        doc! {"tags": {"$size": 2}},
        doc! {"tags": {"$all": ["a", "b"]}},
        doc! {"tags": {"$exists": false}},
        doc! {"tags": {"$in": [["a"], Regex { pattern: "^b".try_into().expect("no NUL"), options: "".try_into().expect("no NUL") }]}},
        doc! {"tags.c": 1},
        doc! {"sub.x": 1},
        doc! {"sub.x": {"$gte": 2}},
        doc! {"sub.0.x": 3},
        doc! {"sub": {"x": 1}},
        doc! {"sub": {"$elemMatch": {"x": 1}}},
        doc! {"grades": {"$gte": 85}},
        doc! {"grades": {"$elemMatch": {"$gt": 82, "$lt": 88}}},
        doc! {"n": null},
        doc! {"missing": {"$exists": false}},
        doc! {"type": {"$type": "string"}},
        doc! {"type": {"$regex": "^b"}},
        doc! {"qty": {"$mod": [2, 1]}},
        doc! {"qty": {"$bitsAnySet": 1}},
        doc! {"qty": {"$lt": Bson::MaxKey}},
        doc! {"qty": {"$not": {"$gt": 5}}},
        doc! {"$or": [{"type": "sell"}, {"qty": {"$gt": 6}}]},
        doc! {"$nor": [{"type": "sell"}, {"tags": "a"}]},
        doc! {"$and": [{"grades": {"$gte": 80}}, {"grades": {"$lt": 90}}]},
        doc! {"history.ticker": "MDB", "history.qty": {"$gt": 5}},
        doc! {"string": "héllo wörld", "int64": {"$gt": 0}},
        doc! {"array": {"$elemMatch": {"$eq": "sym"}}},
        doc! {"doc.regex": {"$type": "regex"}, "deep.a.b.date": {"$lt": bson::DateTime::from_millis(0)}},
    ];
    let run = RunCtx::default();
    let scope = Scope::new(&run);
    let mut scratch = matcher::Scratch::default();
    for f in &filters {
        let filter =
            Filter::compile(f, &CompileCtx::default()).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(matcher::in_place(&filter), "{f}");
        for d in &docs {
            let s = store(d);
            let want = filter.matches_at(d, &scope).expect("matches");
            let got = matcher::matches_at(&filter, s.view(), &mut scratch).expect("matches");
            assert_eq!(got, want, "{f} on {d}");
        }
    }
    let whole = Filter::compile(
        &doc! {"$expr": {"$gt": ["$qty", 1]}},
        &CompileCtx::default(),
    )
    .expect("compiles");
    assert!(!matcher::in_place(&whole));
}
