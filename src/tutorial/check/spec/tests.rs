//! The hand-written reader against the serde derive it replaced (kept here).
use serde::{Deserialize, Deserializer};
use serde_json::{json, Value};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ErrorCheck {
    code: Option<i32>,
    code_name: Option<String>,
    message_contains: Option<String>,
    source: Option<String>,
    line: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CheckSpec {
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    results: Option<Vec<Value>>,
    result_count: Option<usize>,
    #[serde(default)]
    result_where: Vec<WhereSpec>,
    #[serde(default)]
    result_every: Vec<WhereSpec>,
    result_ids: Option<Vec<Value>>,
    #[serde(default)]
    collections: serde_json::Map<String, Value>,
    error: Option<ErrorCheck>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CollectionSpec {
    count: Option<usize>,
    docs: Option<Vec<Value>>,
    #[serde(default, rename = "where")]
    wheres: Vec<WhereSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WhereSpec {
    index: Option<usize>,
    result: Option<usize>,
    label: Option<String>,
    path: String,
    #[serde(default, deserialize_with = "present")]
    equals: Option<Value>,
    size: Option<usize>,
    exists: Option<bool>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

fn show_where(w: &WhereSpec) -> String {
    format!(
        "{:?} {:?} {:?} {} {:?} {:?} {:?}",
        w.index, w.result, w.label, w.path, w.equals, w.size, w.exists
    )
}

fn ours_where(w: &super::WhereSpec) -> String {
    format!(
        "{:?} {:?} {:?} {} {:?} {:?} {:?}",
        w.index, w.result, w.label, w.path, w.equals, w.size, w.exists
    )
}

fn theirs(v: &Value) -> Option<String> {
    let c: CheckSpec = serde_json::from_value(v.clone()).ok()?;
    let mut cols = Vec::new();
    for (k, v) in &c.collections {
        let cs: CollectionSpec = serde_json::from_value(v.clone()).ok()?;
        cols.push(format!(
            "{k}: {:?} {:?} {:?}",
            cs.count,
            cs.docs,
            cs.wheres.iter().map(show_where).collect::<Vec<_>>()
        ));
    }
    Some(format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        c.result,
        c.results,
        c.result_count,
        c.result_where.iter().map(show_where).collect::<Vec<_>>(),
        c.result_every.iter().map(show_where).collect::<Vec<_>>(),
        c.result_ids,
        cols,
        c.error
            .map(|e| (e.code, e.code_name, e.message_contains, e.source, e.line))
    ))
}

fn ours(v: &Value) -> Option<String> {
    let c = super::check(v.clone()).ok()?;
    let mut cols = Vec::new();
    for (k, v) in &c.collections {
        let cs = super::collection(v.clone()).ok()?;
        cols.push(format!(
            "{k}: {:?} {:?} {:?}",
            cs.count,
            cs.docs,
            cs.wheres.iter().map(ours_where).collect::<Vec<_>>()
        ));
    }
    Some(format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        c.result,
        c.results,
        c.result_count,
        c.result_where.iter().map(ours_where).collect::<Vec<_>>(),
        c.result_every.iter().map(ours_where).collect::<Vec<_>>(),
        c.result_ids,
        cols,
        c.error
            .map(|e| (e.code, e.code_name, e.message_contains, e.source, e.line))
    ))
}

#[test]
fn same_shapes_as_serde() {
    let values = [
        json!(null),
        json!(1),
        json!(-1),
        json!(1.5),
        json!(4294967296u64),
        json!(2147483648u64),
        json!("s"),
        json!(true),
        json!([]),
        json!([1, {"a": 2}]),
        json!({}),
        json!({"x": 1}),
    ];
    let where_fields = [
        "index", "result", "label", "path", "equals", "size", "exists", "bogus",
    ];
    let mut wheres = vec![json!({"path": "a"}), json!([]), json!(null)];
    for f in where_fields {
        for v in &values {
            wheres.push(json!({"path": "a.b", f: v}));
            wheres.push(json!({ f: v }));
        }
    }
    let error_fields = [
        "code",
        "codeName",
        "messageContains",
        "source",
        "line",
        "bogus",
    ];
    let mut errors = vec![json!({})];
    for f in error_fields {
        for v in &values {
            errors.push(json!({ f: v }));
        }
    }
    let check_fields = [
        "result",
        "results",
        "resultCount",
        "resultWhere",
        "resultEvery",
        "resultIds",
        "collections",
        "error",
        "bogus",
    ];
    let mut n = 0;
    let mut same = |v: Value| {
        assert_eq!(ours(&v), theirs(&v), "{v}");
        n += 1;
    };
    for f in check_fields {
        for v in &values {
            same(json!({ f: v }));
            same(json!({ f: v, "result": 1 }));
        }
    }
    for w in &wheres {
        same(json!({"resultWhere": [w]}));
        same(json!({"resultEvery": [w]}));
        same(json!({"collections": {"c": {"where": [w], "count": 1}}}));
        same(json!({"collections": {"c": {"where": w}}}));
    }
    for e in &errors {
        same(json!({"error": e}));
    }
    for c in &values {
        same(json!({"collections": {"c": c, "d": {"docs": [1]}}}));
        same(json!({"collections": {"c": {"count": c, "docs": c}}}));
    }
    for v in &values {
        same(v.clone());
    }
    assert!(n > 500, "{n}");
}
