//! The `details` of a document failing a `$jsonSchema` validator:
//! `schemaRulesNotSatisfied`, one entry per broken keyword, in the order
//! the server's json_schema_parser.cpp builds them (string, number, array,
//! object and logical keywords, then the type) and in the shapes of its
//! doc_validation_error.cpp. A keyword only speaks for values of its kind:
//! `minimum` says nothing of a string (the type keyword does).
use super::ops::evaluation::RegexPred;
use super::ops::json_schema::Schema;
use crate::expr::Scope;
use crate::value::equal;
use crate::value::numeric::is_number;
use bson::{doc, Bson, Document};

/// Keywords reported as annotations, not rules.
const ANNOTATIONS: &[&str] = &["title", "description"];

pub fn schema_details(schema: &Document, doc: &Document, _scope: &Scope) -> Document {
    let root = Bson::Document(doc.clone());
    // A top-level type that excludes objects matches nothing.
    if let Some((kw, arg)) = type_keyword(schema) {
        if !accepts(&doc! { kw: arg.clone() }, &root) {
            return doc! {
                "operatorName": "$jsonSchema",
                "specifiedAs": { "$jsonSchema": schema.clone() },
                "reason": "expression always evaluates to false",
            };
        }
    }
    let mut d = doc! { "operatorName": "$jsonSchema" };
    annotate(schema, &mut d);
    d.insert("schemaRulesNotSatisfied", rules(schema, &root, true));
    d
}

fn type_keyword(schema: &Document) -> Option<(&'static str, &Bson)> {
    ["bsonType", "type"]
        .into_iter()
        .find_map(|k| schema.get(k).map(|v| (k, v)))
}

fn annotate(schema: &Document, d: &mut Document) {
    for k in ANNOTATIONS {
        if let Some(v) = schema.get(*k) {
            d.insert(*k, v.clone());
        }
    }
}

/// Whether `value` satisfies the (sub)schema `schema`.
fn accepts(schema: &Document, value: &Bson) -> bool {
    Schema::compile(schema).map_or(true, |s| s.accepts(value))
}

fn sub_accepts(schema: &Bson, value: &Bson) -> bool {
    match schema {
        Bson::Document(s) => accepts(s, value),
        _ => true,
    }
}

/// The rules of `schema` that `value` breaks.
fn rules(schema: &Document, value: &Bson, root: bool) -> Vec<Bson> {
    let mut out = Vec::new();
    let mut push = |d: Option<Document>| out.extend(d.map(Bson::Document));
    match value {
        Bson::String(_) => {
            for kw in ["pattern", "maxLength", "minLength"] {
                push(simple(
                    schema,
                    kw,
                    value,
                    "specified string length was not satisfied",
                ));
            }
        }
        v if is_number(v) => {
            push(simple(
                schema,
                "multipleOf",
                value,
                "considered value is not a multiple of the specified value",
            ));
            push(bound(schema, "maximum", "exclusiveMaximum", value));
            push(bound(schema, "minimum", "exclusiveMinimum", value));
        }
        Bson::Array(items) => {
            for kw in ["minItems", "maxItems"] {
                push(
                    simple(schema, kw, value, "array did not match specified length").map(
                        |mut d| {
                            d.insert("numberOfItems", items.len() as i32);
                            d
                        },
                    ),
                );
            }
            push(unique_items(schema, items));
            for d in items_rules(schema, items) {
                push(Some(d));
            }
        }
        Bson::Document(obj) => {
            push(properties(schema, obj));
            for d in allowed_properties(schema, obj) {
                push(Some(d));
            }
            push(required(schema, obj));
            for kw in ["minProperties", "maxProperties"] {
                push(simple(schema, kw, value, "").map(|mut d| {
                    d.insert("reason", "specified number of properties was not satisfied");
                    d.insert("numberOfProperties", obj.len() as i32);
                    d
                }));
            }
            push(dependencies(schema, obj, value));
        }
        _ => {}
    }
    for kw in ["allOf", "anyOf", "oneOf"] {
        push(schema_list(schema, kw, value));
    }
    if schema.get("not").is_some_and(|s| sub_accepts(s, value)) {
        push(Some(
            doc! { "operatorName": "not", "reason": "child expression matched" },
        ));
    }
    push(simple(schema, "enum", value, "value was not found in enum"));
    if !root {
        if let Some((kw, arg)) = type_keyword(schema) {
            if !accepts(&doc! { kw: arg.clone() }, value) {
                push(Some(doc! {
                    "operatorName": kw,
                    "specifiedAs": { kw: arg.clone() },
                    "reason": "type did not match",
                    "consideredValue": value.clone(),
                    "consideredType": crate::text::shell::type_name(value),
                }));
            }
        }
    }
    out
}

/// A keyword judged alone: `{operatorName, specifiedAs, reason, consideredValue}`.
fn simple(schema: &Document, kw: &str, value: &Bson, reason: &str) -> Option<Document> {
    let arg = schema.get(kw)?;
    let spec = doc! { kw: arg.clone() };
    if accepts(&spec, value) {
        return None;
    }
    let reason = match kw {
        "pattern" => "regular expression did not match",
        _ => reason,
    };
    let mut d = doc! { "operatorName": kw, "specifiedAs": spec };
    if !reason.is_empty() {
        d.insert("reason", reason);
        d.insert("consideredValue", value.clone());
    }
    Some(d)
}

/// `minimum`/`maximum`, with their `exclusive…` flag in `specifiedAs`.
fn bound(schema: &Document, kw: &str, flag: &str, value: &Bson) -> Option<Document> {
    let arg = schema.get(kw)?;
    let mut spec = doc! { kw: arg.clone() };
    if let Some(f) = schema.get(flag) {
        spec.insert(flag, f.clone());
    }
    if accepts(&spec, value) {
        return None;
    }
    Some(doc! {
        "operatorName": kw,
        "specifiedAs": spec,
        "reason": "comparison failed",
        "consideredValue": value.clone(),
    })
}

fn unique_items(schema: &Document, items: &[Bson]) -> Option<Document> {
    if schema.get("uniqueItems") != Some(&Bson::Boolean(true)) {
        return None;
    }
    let duplicate = items
        .iter()
        .enumerate()
        .find(|(i, x)| items[..*i].iter().any(|y| equal(x, y)))?
        .1;
    Some(doc! {
        "operatorName": "uniqueItems",
        "specifiedAs": { "uniqueItems": true },
        "reason": "found a duplicate item",
        "consideredValue": items.to_vec(),
        "duplicatedValue": duplicate.clone(),
    })
}

/// The first element at or after `from` that `sub` rejects, described.
fn first_failing_item(
    kw: &str,
    reason: &str,
    sub: &Document,
    items: &[Bson],
    from: usize,
) -> Option<Document> {
    let (i, item) = items
        .iter()
        .enumerate()
        .skip(from)
        .find(|(_, e)| !accepts(sub, e))?;
    let mut d = doc! { "operatorName": kw };
    annotate(sub, &mut d);
    d.insert("reason", reason);
    d.insert("itemIndex", i as i32);
    d.insert("details", rules(sub, item, false));
    Some(d)
}

/// `items` (one schema for all, or one per position) and `additionalItems`.
fn items_rules(schema: &Document, items: &[Bson]) -> Vec<Document> {
    let mut out = Vec::new();
    match schema.get("items") {
        Some(Bson::Document(sub)) => out.extend(first_failing_item(
            "items",
            "At least one item did not match the sub-schema",
            sub,
            items,
            0,
        )),
        Some(Bson::Array(subs)) => {
            let failing: Vec<Bson> = subs
                .iter()
                .zip(items)
                .enumerate()
                .filter_map(|(i, (sub, item))| match sub {
                    Bson::Document(s) if !accepts(s, item) => Some(Bson::Document(doc! {
                        "itemIndex": i as i32,
                        "details": rules(s, item, false),
                    })),
                    _ => None,
                })
                .collect();
            if !failing.is_empty() {
                out.push(doc! { "operatorName": "items", "details": failing });
            }
            match schema.get("additionalItems") {
                Some(Bson::Boolean(false)) if items.len() > subs.len() => out.push(doc! {
                    "operatorName": "additionalItems",
                    "specifiedAs": { "additionalItems": false },
                    "reason": "found additional items",
                    "additionalItems": items[subs.len()..].to_vec(),
                }),
                Some(Bson::Document(sub)) => out.extend(first_failing_item(
                    "additionalItems",
                    "At least one additional item did not match the sub-schema",
                    sub,
                    items,
                    subs.len(),
                )),
                _ => {}
            }
        }
        _ => {}
    }
    out
}

fn properties(schema: &Document, obj: &Document) -> Option<Document> {
    let Some(Bson::Document(props)) = schema.get("properties") else {
        return None;
    };
    let mut failing = Vec::new();
    for (name, sub) in props {
        let (Some(v), Bson::Document(sub)) = (obj.get(name), sub) else {
            continue;
        };
        let broken = rules(sub, v, false);
        if broken.is_empty() {
            continue;
        }
        let mut p = doc! { "propertyName": name };
        annotate(sub, &mut p);
        p.insert("details", broken);
        failing.push(Bson::Document(p));
    }
    (!failing.is_empty())
        .then(|| doc! { "operatorName": "properties", "propertiesNotSatisfied": failing })
}

/// `additionalProperties` and `patternProperties` (one node in the server).
fn allowed_properties(schema: &Document, obj: &Document) -> Vec<Document> {
    let additional = schema.get("additionalProperties");
    let patterns: Vec<(&str, RegexPred, &Document)> = match schema.get("patternProperties") {
        Some(Bson::Document(p)) => p
            .iter()
            .filter_map(|(re, sub)| match sub {
                Bson::Document(s) => RegexPred::compile(re, "").ok().map(|r| (re.as_str(), r, s)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    if additional.is_none() && patterns.is_empty() {
        return Vec::new();
    }
    let declared = |name: &str| match schema.get("properties") {
        Some(Bson::Document(p)) => p.contains_key(name),
        _ => false,
    };
    let extra: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| !declared(k) && !patterns.iter().any(|(_, re, _)| re.is_match(k)))
        .collect();
    let mut out = Vec::new();
    match additional {
        Some(Bson::Boolean(false)) if !extra.is_empty() => out.push(doc! {
            "operatorName": "additionalProperties",
            "specifiedAs": { "additionalProperties": false },
            "additionalProperties": extra,
        }),
        Some(Bson::Document(sub)) => {
            let failing = extra
                .iter()
                .find_map(|k| obj.get(*k).filter(|v| !accepts(sub, v)).map(|v| (*k, v)));
            if let Some((name, v)) = failing {
                let mut d = doc! { "operatorName": "additionalProperties" };
                annotate(sub, &mut d);
                d.insert(
                    "reason",
                    "at least one additional property did not match the subschema",
                );
                d.insert("failingProperty", name);
                d.insert("details", rules(sub, v, false));
                out.push(d);
            }
        }
        _ => {}
    }
    let pattern_errors: Vec<Bson> = patterns
        .iter()
        .filter_map(|(raw, re, sub)| {
            let (name, v) = obj
                .iter()
                .find(|(k, v)| re.is_match(k) && !accepts(sub, v))?;
            let mut p = doc! { "propertyName": name };
            annotate(sub, &mut p);
            p.insert("regexMatched", *raw);
            p.insert("details", rules(sub, v, false));
            Some(Bson::Document(p))
        })
        .collect();
    if !pattern_errors.is_empty() {
        out.push(doc! { "operatorName": "patternProperties", "details": pattern_errors });
    }
    out
}

fn required(schema: &Document, obj: &Document) -> Option<Document> {
    let Some(Bson::Array(names)) = schema.get("required") else {
        return None;
    };
    let missing: Vec<Bson> = names
        .iter()
        .filter(|n| n.as_str().is_some_and(|n| !obj.contains_key(n)))
        .cloned()
        .collect();
    (!missing.is_empty()).then(|| {
        doc! {
            "operatorName": "required",
            "specifiedAs": { "required": names.clone() },
            "missingProperties": missing,
        }
    })
}

fn dependencies(schema: &Document, obj: &Document, value: &Bson) -> Option<Document> {
    let Some(Bson::Document(deps)) = schema.get("dependencies") else {
        return None;
    };
    let mut failing = Vec::new();
    for (name, dep) in deps {
        if !obj.contains_key(name) {
            continue;
        }
        match dep {
            Bson::Array(fields) => {
                let missing: Vec<Bson> = fields
                    .iter()
                    .filter(|f| f.as_str().is_some_and(|f| !obj.contains_key(f)))
                    .cloned()
                    .collect();
                if !missing.is_empty() {
                    failing.push(Bson::Document(
                        doc! { "conditionalProperty": name, "missingProperties": missing },
                    ));
                }
            }
            Bson::Document(sub) if !accepts(sub, value) => {
                failing.push(Bson::Document(
                    doc! { "conditionalProperty": name, "details": rules(sub, value, false) },
                ));
            }
            _ => {}
        }
    }
    (!failing.is_empty())
        .then(|| doc! { "operatorName": "dependencies", "failingDependencies": failing })
}

/// `allOf`, `anyOf`, `oneOf`: the subschemas to blame, by index.
fn schema_list(schema: &Document, kw: &str, value: &Bson) -> Option<Document> {
    let Some(Bson::Array(subs)) = schema.get(kw) else {
        return None;
    };
    let subs: Vec<&Document> = subs.iter().filter_map(Bson::as_document).collect();
    let passing: Vec<i32> = (0..subs.len())
        .filter(|i| accepts(subs[*i], value))
        .map(|i| i as i32)
        .collect();
    let failed = match kw {
        "allOf" => passing.len() < subs.len(),
        "anyOf" => passing.is_empty(),
        _ => passing.len() != 1,
    };
    if !failed {
        return None;
    }
    if kw == "oneOf" && passing.len() > 1 {
        return Some(doc! {
            "operatorName": "oneOf",
            "reason": "more than one subschema matched",
            "matchingSchemaIndexes": passing,
        });
    }
    let listed: Vec<Bson> = subs
        .iter()
        .enumerate()
        .filter(|(i, _)| !passing.contains(&(*i as i32)))
        .map(|(i, sub)| {
            let mut d = doc! { "index": i as i32 };
            annotate(sub, &mut d);
            d.insert("details", rules(sub, value, false));
            Bson::Document(d)
        })
        .collect();
    Some(doc! { "operatorName": kw, "schemasNotSatisfied": listed })
}
