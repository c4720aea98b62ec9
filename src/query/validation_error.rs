//! The `details` of a DocumentValidationFailure: which part of a validator
//! a document failed and why, in the shape of the server's
//! doc_validation_error.cpp (`operatorName`, `specifiedAs`, `reason`,
//! `consideredValue(s)`, `clausesNotSatisfied`, `schemaRulesNotSatisfied`, …).
//! Each node is judged by compiling it alone. Under `$not` and `$nor` a node
//! is described "inverted": it is named because it matched.
use crate::expr::{CompileCtx, Expr, Scope};
use crate::query::Filter;
use bson::{doc, Bson, Document};

/// The server reports at most this many `consideredValues`
/// (internalQueryMaxDocValidationErrorConsideredValues).
const MAX_CONSIDERED: usize = 10;

/// Why `doc` fails the validator `spec`.
pub fn details(spec: &Document, doc: &Document, scope: &Scope) -> Document {
    filter_error(spec, doc, false, scope)
}

/// A filter document: one clause, or the implicit `$and` of several.
fn filter_error(spec: &Document, doc: &Document, inverted: bool, scope: &Scope) -> Document {
    let clauses = clauses(spec);
    match clauses.as_slice() {
        [only] => clause_error(only, doc, inverted, scope),
        _ => {
            let items: Vec<Bson> = clauses.into_iter().map(Bson::Document).collect();
            tree_error("$and", &items, doc, inverted, scope)
        }
    }
}

/// The validator's conjuncts as the server parses them: one per top-level
/// operator, one per operator of a field (`{a: {$gt: 1, $lt: 5}}` is two).
fn clauses(spec: &Document) -> Vec<Document> {
    let mut out = Vec::new();
    for (k, v) in spec {
        match v {
            Bson::Document(ops)
                if !k.starts_with('$')
                    && ops.keys().next().is_some_and(|o| o.starts_with('$'))
                    && !ops.contains_key("$options") =>
            {
                for (op, arg) in ops {
                    out.push(doc! { k: { op: arg.clone() } });
                }
            }
            _ => out.push(doc! { k: v.clone() }),
        }
    }
    out
}

/// Whether `clause` matches `doc`; `None` when it cannot be evaluated.
fn matches(clause: &Document, doc: &Document, scope: &Scope) -> Option<bool> {
    Filter::compile(clause, &CompileCtx::default())
        .and_then(|f| f.matches(doc, scope))
        .ok()
}

/// `$and`, `$or`, `$nor`: the clauses that explain the failure, by index.
fn tree_error(op: &str, items: &[Bson], doc: &Document, inverted: bool, scope: &Scope) -> Document {
    let child_inverted = inverted ^ (op == "$nor");
    // Only some clauses are to blame: the failing ones of an `$and`, the
    // matching ones of a `$nor` (and of an `$or` under `$not`).
    let pick = match op {
        "$and" | "$nor" => !inverted,
        _ => inverted,
    };
    let listed: Vec<Bson> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let Bson::Document(sub) = item else {
                return None;
            };
            let blame = !pick || matches(sub, doc, scope).is_none_or(|m| m == child_inverted);
            blame.then(|| {
                Bson::Document(doc! {
                    "index": i as i32,
                    "details": filter_error(sub, doc, child_inverted, scope),
                })
            })
        })
        .collect();
    let key = if child_inverted {
        "clausesSatisfied"
    } else {
        "clausesNotSatisfied"
    };
    doc! { "operatorName": op, key: listed }
}

/// One clause `{k: v}`: a top-level operator or a field's condition.
fn clause_error(clause: &Document, doc: &Document, inverted: bool, scope: &Scope) -> Document {
    let Some((k, v)) = clause.iter().next() else {
        return Document::new();
    };
    match (k.as_str(), v) {
        ("$and" | "$or" | "$nor", Bson::Array(items)) => tree_error(k, items, doc, inverted, scope),
        ("$expr", _) => expr_error(clause, v, doc, inverted, scope),
        ("$jsonSchema", Bson::Document(_)) if inverted => {
            doc! { "operatorName": "$jsonSchema", "reason": "schema matched" }
        }
        ("$jsonSchema", Bson::Document(schema)) => {
            super::validation_schema::schema_details(schema, doc, scope)
        }
        ("$alwaysFalse" | "$alwaysTrue", _) => always(k, clause, inverted),
        (op, _) if op.starts_with('$') => {
            doc! { "operatorName": op, "specifiedAs": clause.clone() }
        }
        (path, Bson::Document(ops)) if ops.keys().next().is_some_and(|o| o.starts_with('$')) => {
            let op = if ops.contains_key("$regex") {
                "$regex"
            } else {
                ops.keys().next().map_or("$eq", String::as_str)
            };
            field_error(path, op, ops.get(op), clause, doc, inverted, scope)
        }
        (path, Bson::RegularExpression(_)) => {
            field_error(path, "$regex", Some(v), clause, doc, inverted, scope)
        }
        (path, value) => field_error(path, "$eq", Some(value), clause, doc, inverted, scope),
    }
}

fn always(op: &str, clause: &Document, inverted: bool) -> Document {
    doc! {
        "operatorName": op,
        "specifiedAs": clause.clone(),
        "reason": if inverted {
            "expression always evaluates to true"
        } else {
            "expression always evaluates to false"
        },
    }
}

fn expr_error(
    clause: &Document,
    v: &Bson,
    doc: &Document,
    inverted: bool,
    scope: &Scope,
) -> Document {
    let mut d = doc! { "operatorName": "$expr", "specifiedAs": clause.clone() };
    match Expr::compile(v, &CompileCtx::default()).and_then(|e| e.evaluate(doc, scope)) {
        Ok(result) => {
            d.insert(
                "reason",
                if inverted {
                    "expression did match"
                } else {
                    "expression did not match"
                },
            );
            if let Some(r) = result {
                d.insert("expressionResult", r);
            }
        }
        Err(e) => {
            d.insert("reason", "failed to evaluate aggregation expression");
            d.insert(
                "details",
                doc! { "code": e.code, "codeName": e.code_name.to_string(), "errmsg": e.message },
            );
        }
    }
    d
}

/// What a field operator checks: its reasons (normal, inverted), the types
/// it accepts (`None`: any) and whether it looks at a leaf array whole.
struct Leaf {
    reasons: (&'static str, &'static str),
    expected: Option<&'static [&'static str]>,
    whole_array: bool,
}

const NUMBERS: &[&str] = &["decimal", "double", "int", "long"];

fn leaf_kind(op: &str) -> Option<Leaf> {
    let leaf = |normal, inverted, expected, whole_array| {
        Some(Leaf {
            reasons: (normal, inverted),
            expected,
            whole_array,
        })
    };
    match op {
        "$eq" | "$gt" | "$gte" | "$lt" | "$lte" => {
            leaf("comparison failed", "comparison succeeded", None, false)
        }
        "$ne" => leaf("comparison succeeded", "comparison failed", None, false),
        "$in" => leaf(
            "no matching value found in array",
            "matching value found in array",
            None,
            false,
        ),
        "$nin" => leaf(
            "matching value found in array",
            "no matching value found in array",
            None,
            false,
        ),
        "$regex" => leaf(
            "regular expression did not match",
            "regular expression did match",
            Some(&["regex", "string", "symbol"]),
            false,
        ),
        "$mod" => leaf(
            "$mod did not evaluate to expected remainder",
            "$mod did evaluate to expected remainder",
            Some(NUMBERS),
            false,
        ),
        "$bitsAllSet" | "$bitsAllClear" | "$bitsAnySet" | "$bitsAnyClear" => leaf(
            "bitwise operator failed to match",
            "bitwise operator matched successfully",
            Some(&["binData", "decimal", "double", "int", "long"]),
            false,
        ),
        "$size" => leaf(
            "array length was not equal to given size",
            "array length was equal to given size",
            Some(&["array"]),
            true,
        ),
        "$elemMatch" => leaf(
            "array did not satisfy the child predicate",
            "array did satisfy the child predicate",
            Some(&["array"]),
            true,
        ),
        "$all" => leaf(
            "array did not contain all specified values",
            "array did contain all specified values",
            None,
            true,
        ),
        "$geoWithin" => leaf(
            "none of the considered geometries were contained within the expression\u{2019}s geometry",
            "at least one of considered geometries was contained within the expression\u{2019}s geometry",
            None,
            false,
        ),
        "$geoIntersects" => leaf(
            "none of the considered geometries intersected the expression\u{2019}s geometry",
            "at least one of considered geometries intersected the expression\u{2019}s geometry",
            None,
            false,
        ),
        _ => None,
    }
}

/// A field's operator: what it was given and what the document holds there.
fn field_error(
    path: &str,
    op: &str,
    arg: Option<&Bson>,
    clause: &Document,
    doc: &Document,
    inverted: bool,
    scope: &Scope,
) -> Document {
    match (op, arg) {
        ("$not", Some(sub)) => {
            let child = doc! { path: sub.clone() };
            return doc! {
                "operatorName": "$not",
                "details": filter_error(&child, doc, !inverted, scope),
            };
        }
        ("$exists", _) => {
            // `$exists: false` is the server's NOT(EXISTS): described inverted.
            let wants = arg.is_some_and(|a| crate::expr::truthy(Some(a)));
            let reason = if wants != inverted {
                "path does not exist"
            } else {
                "path does exist"
            };
            return doc! { "operatorName": "$exists", "specifiedAs": clause.clone(), "reason": reason };
        }
        ("$all", Some(Bson::Array(items))) if items.is_empty() => {
            return always("$all", clause, inverted)
        }
        _ => {}
    }
    let mut d = doc! { "operatorName": op, "specifiedAs": clause.clone() };
    let Some(kind) = leaf_kind(op).or_else(|| (op == "$type").then_some(TYPE_LEAF)) else {
        return d;
    };
    let reached = values_at(doc, path);
    if reached.is_empty() {
        d.insert("reason", "field was missing");
        return d;
    }
    let mut considered: Vec<Bson> = Vec::new();
    for v in reached {
        match v {
            Bson::Array(items) if !kind.whole_array => considered.extend(items.iter().cloned()),
            other => considered.push(other.clone()),
        }
    }
    if let Some(expected) = kind.expected {
        let any_expected = considered
            .iter()
            .any(|v| expected.contains(&crate::text::shell::type_name(v)));
        if !any_expected {
            d.insert("reason", "type did not match");
            insert_types(&mut d, &considered);
            match expected {
                [one] => d.insert("expectedType", *one),
                many => d.insert("expectedTypes", many.to_vec()),
            };
        }
    }
    if !d.contains_key("reason") {
        d.insert(
            "reason",
            if inverted {
                kind.reasons.1
            } else {
                kind.reasons.0
            },
        );
    }
    insert_considered(&mut d, considered);
    if op == "$type" {
        let values: Vec<Bson> = match d.get("consideredValues") {
            Some(Bson::Array(v)) => v.clone(),
            _ => d.get("consideredValue").cloned().into_iter().collect(),
        };
        insert_types(&mut d, &values);
    }
    d
}

const TYPE_LEAF: Leaf = Leaf {
    reasons: ("type did not match", "type did match"),
    expected: None,
    whole_array: false,
};

/// `consideredValue` for one value, else `consideredValues` (at most ten).
fn insert_considered(d: &mut Document, mut values: Vec<Bson>) {
    if values.len() == 1 {
        if let Some(one) = values.pop() {
            d.insert("consideredValue", one);
        }
        return;
    }
    let truncated = values.len() > MAX_CONSIDERED;
    values.truncate(MAX_CONSIDERED);
    d.insert("consideredValues", values);
    if truncated {
        d.insert("consideredValuesTruncated", true);
    }
}

/// `consideredType` when the values share one type, else the sorted set.
fn insert_types(d: &mut Document, values: &[Bson]) {
    let mut types: Vec<&str> = values.iter().map(crate::text::shell::type_name).collect();
    types.sort_unstable();
    types.dedup();
    match types.as_slice() {
        [] => {}
        [one] => {
            d.insert("consideredType", *one);
        }
        many => {
            d.insert("consideredTypes", many.to_vec());
        }
    }
}

/// The values a dotted path reaches (through arrays along the way; a leaf
/// array is returned whole).
pub(crate) fn values_at<'a>(doc: &'a Document, path: &str) -> Vec<&'a Bson> {
    let mut current: Vec<&Bson> = Vec::new();
    let mut parts = path.split('.');
    let Some(first) = parts.next() else {
        return current;
    };
    current.extend(doc.get(first));
    for part in parts {
        let mut next = Vec::new();
        for v in current {
            match v {
                Bson::Document(d) => next.extend(d.get(part)),
                Bson::Array(items) => {
                    if let Ok(i) = part.parse::<usize>() {
                        next.extend(items.get(i));
                    }
                    for item in items {
                        if let Bson::Document(d) = item {
                            next.extend(d.get(part));
                        }
                    }
                }
                _ => {}
            }
        }
        current = next;
    }
    current
}
