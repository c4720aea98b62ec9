//! The `details` of a document failing a `$jsonSchema` validator:
//! `schemaRulesNotSatisfied`, with `properties` naming each failing
//! property and the rules it broke (doc_validation_error.cpp's shape).
use crate::expr::{CompileCtx, Scope};
use crate::query::Filter;
use bson::{doc, Bson, Document};

/// Keywords reported as annotations, not rules.
const ANNOTATIONS: &[&str] = &["title", "description"];

pub fn schema_details(schema: &Document, doc: &Document, scope: &Scope) -> Document {
    let mut d = doc! { "operatorName": "$jsonSchema" };
    annotate(schema, &mut d);
    let value = Bson::Document(doc.clone());
    d.insert("schemaRulesNotSatisfied", rules(schema, &value, scope));
    d
}

fn annotate(schema: &Document, d: &mut Document) {
    for k in ANNOTATIONS {
        if let Some(v) = schema.get(*k) {
            d.insert(*k, v.clone());
        }
    }
}

/// Whether `value` satisfies the schema `{kw: arg}` alone.
fn satisfies(kw: &str, arg: &Bson, value: &Bson, scope: &Scope) -> bool {
    let filter = doc! { "$jsonSchema": { "properties": { "v": { kw: arg.clone() } } } };
    let holder = doc! { "v": value.clone() };
    Filter::compile(&filter, &CompileCtx::default())
        .and_then(|f| f.matches(&holder, scope))
        .unwrap_or(false)
}

/// The rules of `schema` that `value` breaks: `properties` first, then
/// `required`, then the others as written.
fn rules(schema: &Document, value: &Bson, scope: &Scope) -> Vec<Bson> {
    let mut order: Vec<&str> = Vec::new();
    for first in ["properties", "required"] {
        if schema.contains_key(first) {
            order.push(first);
        }
    }
    for k in schema.keys() {
        if !order.contains(&k.as_str()) && !ANNOTATIONS.contains(&k.as_str()) {
            order.push(k);
        }
    }
    let mut out = Vec::new();
    for kw in order {
        let Some(arg) = schema.get(kw) else { continue };
        if satisfies(kw, arg, value, scope) {
            continue;
        }
        if let Some(d) = rule(schema, kw, arg, value, scope) {
            out.push(Bson::Document(d));
        }
    }
    out
}

fn type_matches(name: &str, v: &Bson) -> bool {
    let actual = crate::text::shell::type_name(v);
    match name {
        "number" => matches!(
            v,
            Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_)
        ),
        "boolean" => actual == "bool",
        other => other == actual,
    }
}

fn rule(schema: &Document, kw: &str, arg: &Bson, value: &Bson, scope: &Scope) -> Option<Document> {
    let specified = doc! { kw: arg.clone() };
    let mut d = doc! { "operatorName": kw };
    match (kw, value) {
        ("properties", Bson::Document(obj)) => {
            let Bson::Document(props) = arg else {
                return None;
            };
            let mut failing = Vec::new();
            for (name, sub) in props {
                let (Some(v), Bson::Document(sub)) = (obj.get(name), sub) else {
                    continue;
                };
                let broken = rules(sub, v, scope);
                if broken.is_empty() {
                    continue;
                }
                let mut p = doc! { "propertyName": name };
                annotate(sub, &mut p);
                p.insert("details", broken);
                failing.push(Bson::Document(p));
            }
            d.insert("propertiesNotSatisfied", failing);
        }
        ("required", Bson::Document(obj)) => {
            let missing: Vec<Bson> = match arg {
                Bson::Array(names) => names
                    .iter()
                    .filter(|n| n.as_str().is_some_and(|n| !obj.contains_key(n)))
                    .cloned()
                    .collect(),
                _ => Vec::new(),
            };
            d.insert("specifiedAs", specified);
            d.insert("missingProperties", missing);
        }
        ("additionalProperties", Bson::Document(obj)) if arg == &Bson::Boolean(false) => {
            let declared = |name: &str| match schema.get("properties") {
                Some(Bson::Document(p)) => p.contains_key(name),
                _ => false,
            };
            let extra: Vec<&str> = obj
                .keys()
                .map(String::as_str)
                .filter(|k| !declared(k))
                .collect();
            d.insert("specifiedAs", specified);
            d.insert("additionalProperties", extra);
        }
        ("bsonType" | "type", v) => {
            let names: Vec<&str> = match arg {
                Bson::String(s) => vec![s.as_str()],
                Bson::Array(a) => a.iter().filter_map(Bson::as_str).collect(),
                _ => Vec::new(),
            };
            if names.iter().any(|n| type_matches(n, v)) {
                return None;
            }
            d.insert("specifiedAs", specified);
            d.insert("reason", "type did not match");
            d.insert("consideredValue", v.clone());
            d.insert("consideredType", crate::text::shell::type_name(v));
        }
        ("enum", v) => {
            d.insert("specifiedAs", specified);
            d.insert("reason", "value was not found in enum");
            d.insert("consideredValue", v.clone());
        }
        ("minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum", v) => {
            d.insert("specifiedAs", specified);
            d.insert("reason", "comparison failed");
            d.insert("consideredValue", v.clone());
        }
        ("minLength" | "maxLength", v) => {
            d.insert("specifiedAs", specified);
            d.insert("reason", "specified string length was not satisfied");
            d.insert("consideredValue", v.clone());
        }
        ("pattern", v) => {
            d.insert("specifiedAs", specified);
            d.insert("reason", "regular expression did not match");
            d.insert("consideredValue", v.clone());
        }
        ("minItems" | "maxItems", v) => {
            d.insert("specifiedAs", specified);
            d.insert("reason", "array did not match specified length");
            d.insert("consideredValue", v.clone());
        }
        _ => {
            d.insert("specifiedAs", specified);
        }
    }
    Some(d)
}
