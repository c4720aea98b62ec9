//! The `details` of a DocumentValidationFailure: which part of a validator
//! a document failed and why, in the shape of the server's
//! doc_validation_error.cpp (`operatorName`, `specifiedAs`, `reason`,
//! `consideredValue`, `clausesNotSatisfied`, `schemaRulesNotSatisfied`, …).
//! Each clause is judged by compiling it alone; only failing ones are named.
use crate::expr::{CompileCtx, Expr, Scope};
use crate::query::Filter;
use bson::{doc, Bson, Document};

/// Why `doc` fails the validator `spec`.
pub fn details(spec: &Document, doc: &Document, scope: &Scope) -> Document {
    let clauses = clauses(spec);
    match clauses.as_slice() {
        [only] => clause_details(only, doc, scope),
        _ => {
            let failing: Vec<Bson> = clauses
                .iter()
                .enumerate()
                .filter(|(_, c)| fails(c, doc, scope))
                .map(|(i, c)| {
                    Bson::Document(doc! {
                        "index": i as i32,
                        "details": clause_details(c, doc, scope),
                    })
                })
                .collect();
            doc! { "operatorName": "$and", "clausesNotSatisfied": failing }
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

fn fails(clause: &Document, doc: &Document, scope: &Scope) -> bool {
    Filter::compile(clause, &CompileCtx::default())
        .and_then(|f| f.matches(doc, scope))
        .map_or(true, |m| !m)
}

/// One clause `{k: v}`: a top-level operator or a field's condition.
fn clause_details(clause: &Document, doc: &Document, scope: &Scope) -> Document {
    let Some((k, v)) = clause.iter().next() else {
        return Document::new();
    };
    match (k.as_str(), v) {
        ("$and" | "$or", Bson::Array(items)) => {
            let failing: Vec<Bson> = items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| match item {
                    Bson::Document(sub) if fails(sub, doc, scope) => Some(Bson::Document(doc! {
                        "index": i as i32,
                        "details": details(sub, doc, scope),
                    })),
                    _ => None,
                })
                .collect();
            doc! { "operatorName": k, "clausesNotSatisfied": failing }
        }
        ("$expr", _) => {
            let mut d = doc! {
                "operatorName": "$expr",
                "specifiedAs": clause.clone(),
            };
            match Expr::compile(v, &CompileCtx::default()).and_then(|e| e.evaluate(doc, scope)) {
                Ok(result) => {
                    d.insert("reason", "expression did not match");
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
        ("$jsonSchema", Bson::Document(schema)) => {
            super::validation_schema::schema_details(schema, doc, scope)
        }
        (op, _) if op.starts_with('$') => {
            doc! { "operatorName": op, "specifiedAs": clause.clone() }
        }
        (path, Bson::Document(ops)) if ops.keys().next().is_some_and(|o| o.starts_with('$')) => {
            let op = ops.keys().next().map_or("$eq", String::as_str);
            leaf(path, op, ops.get(op), clause, doc)
        }
        (path, value) => leaf(path, "$eq", Some(value), clause, doc),
    }
}

/// The values a dotted path reaches (array elements along the way too).
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

/// A field's operator: what it was given and what the document holds there.
fn leaf(path: &str, op: &str, arg: Option<&Bson>, clause: &Document, doc: &Document) -> Document {
    let mut d = doc! { "operatorName": op, "specifiedAs": clause.clone() };
    let values = values_at(doc, path);
    let exists_wanted = op == "$exists" && arg.is_some_and(|a| crate::expr::truthy(Some(a)));
    if op == "$exists" {
        d.insert(
            "reason",
            if exists_wanted {
                "path does not exist"
            } else {
                "path does exist"
            },
        );
        return d;
    }
    if values.is_empty() {
        d.insert("reason", "field was missing");
        return d;
    }
    let reason = match op {
        "$eq" | "$gt" | "$gte" | "$lt" | "$lte" => "comparison failed",
        "$ne" => "comparison succeeded",
        "$in" => "no matching value found in array",
        "$nin" => "matching value found in array",
        "$type" => "type did not match",
        "$regex" => "regular expression did not match",
        "$all" => "array did not contain all specified values",
        _ => return d,
    };
    d.insert("reason", reason);
    // One value: consideredValue; an array: its elements and itself.
    let considered: Vec<Bson> = match values.as_slice() {
        [Bson::Array(items)] => items
            .iter()
            .cloned()
            .chain(std::iter::once(Bson::Array(items.clone())))
            .collect(),
        many => many.iter().map(|v| (*v).clone()).collect(),
    };
    if let [one] = considered.as_slice() {
        d.insert("consideredValue", one.clone());
        if op == "$type" {
            d.insert("consideredType", crate::text::shell::type_name(one));
        }
    } else {
        if op == "$type" {
            let mut types: Vec<&str> = considered
                .iter()
                .map(crate::text::shell::type_name)
                .collect();
            types.sort_unstable();
            types.dedup();
            d.insert("consideredTypes", types);
        }
        d.insert("consideredValues", considered);
    }
    d
}
