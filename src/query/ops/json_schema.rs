//! `$jsonSchema`: MongoDB's JSON Schema draft 4 subset, compiled once.
//! Keywords constrain only values of their kind (`minimum` ignores strings).
//! See https://www.mongodb.com/docs/manual/reference/operator/query/jsonSchema/.
use super::element::TypeSet;
use super::evaluation::RegexPred;
use crate::error::{Error, Result};
use crate::value::numeric::{compare_numbers, is_number, to_dec, Dec};
use crate::value::{compare, equal};
use bson::{Bson, Document};
use std::borrow::Cow;
use std::cmp::Ordering;

#[derive(Clone, Debug)]
enum Additional {
    Allowed(bool),
    Schema(Box<Schema>),
}

#[derive(Clone, Debug)]
enum Items {
    All(Box<Schema>),
    Tuple(Vec<Schema>),
}

#[derive(Clone, Debug)]
enum Dependency {
    Fields(Vec<String>),
    Schema(Box<Schema>),
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Schema {
    types: Option<TypeSet>,
    required: Vec<String>,
    properties: Vec<(String, Schema)>,
    pattern_properties: Vec<(RegexPred, Schema)>,
    additional_properties: Option<Additional>,
    min_properties: Option<usize>,
    max_properties: Option<usize>,
    enum_values: Option<Vec<Bson>>,
    minimum: Option<(Bson, bool)>,
    maximum: Option<(Bson, bool)>,
    multiple_of: Option<Bson>,
    min_length: Option<usize>,
    max_length: Option<usize>,
    pattern: Option<RegexPred>,
    items: Option<Items>,
    additional_items: Option<Additional>,
    min_items: Option<usize>,
    max_items: Option<usize>,
    unique_items: bool,
    all_of: Vec<Schema>,
    any_of: Vec<Schema>,
    one_of: Vec<Schema>,
    not: Option<Box<Schema>>,
    dependencies: Vec<(String, Dependency)>,
}

fn parse_err(msg: String) -> Error {
    Error::failed_to_parse(msg)
}

fn type_err(keyword: &str, what: &str) -> Error {
    Error::type_mismatch(format!("$jsonSchema keyword '{keyword}' must be {what}"))
}

fn count(keyword: &str, v: &Bson) -> Result<usize> {
    crate::value::numeric::to_i64_exact(v)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| {
            if is_number(v) {
                parse_err(format!(
                    "$jsonSchema keyword '{keyword}' must be a representable as a non-negative integer"
                ))
            } else {
                type_err(keyword, "a number")
            }
        })
}

fn sub_schema(keyword: &str, v: &Bson) -> Result<Schema> {
    match v {
        Bson::Document(d) => Schema::compile(d),
        _ => Err(type_err(keyword, "an object")),
    }
}

fn schema_list(keyword: &str, v: &Bson) -> Result<Vec<Schema>> {
    let Bson::Array(items) = v else {
        return Err(type_err(keyword, "an array"));
    };
    if items.is_empty() {
        return Err(parse_err(format!(
            "$jsonSchema keyword '{keyword}' must be a non-empty array"
        )));
    }
    items.iter().map(|i| sub_schema(keyword, i)).collect()
}

fn additional(keyword: &str, v: &Bson) -> Result<Additional> {
    match v {
        Bson::Boolean(b) => Ok(Additional::Allowed(*b)),
        Bson::Document(d) => Ok(Additional::Schema(Box::new(Schema::compile(d)?))),
        _ => Err(type_err(keyword, "either an object or a boolean")),
    }
}

fn bool_arg(keyword: &str, v: &Bson) -> Result<bool> {
    match v {
        Bson::Boolean(b) => Ok(*b),
        _ => Err(type_err(keyword, "a boolean")),
    }
}

impl Schema {
    pub(crate) fn compile(spec: &Document) -> Result<Schema> {
        let mut s = Schema::default();
        if spec.contains_key("type") && spec.contains_key("bsonType") {
            return Err(parse_err(
                "$jsonSchema keywords 'type' and 'bsonType' cannot both be specified".into(),
            ));
        }
        for (key, v) in spec {
            match key.as_str() {
                "bsonType" | "type" => s.types = Some(compile_types(key, v)?),
                "required" => {
                    let Bson::Array(items) = v else {
                        return Err(type_err(key, "an array"));
                    };
                    if items.is_empty() {
                        return Err(parse_err(
                            "$jsonSchema keyword 'required' cannot be an empty array".into(),
                        ));
                    }
                    for i in items {
                        match i {
                            Bson::String(f) => s.required.push(f.clone()),
                            _ => return Err(type_err(key, "an array of strings")),
                        }
                    }
                }
                "properties" => {
                    let Bson::Document(props) = v else {
                        return Err(type_err(key, "an object"));
                    };
                    for (name, p) in props {
                        s.properties.push((name.clone(), sub_schema(key, p)?));
                    }
                }
                "patternProperties" => {
                    let Bson::Document(props) = v else {
                        return Err(type_err(key, "an object"));
                    };
                    for (pattern, p) in props {
                        s.pattern_properties
                            .push((RegexPred::compile(pattern, "")?, sub_schema(key, p)?));
                    }
                }
                "additionalProperties" => s.additional_properties = Some(additional(key, v)?),
                "minProperties" => s.min_properties = Some(count(key, v)?),
                "maxProperties" => s.max_properties = Some(count(key, v)?),
                "enum" => {
                    let Bson::Array(items) = v else {
                        return Err(type_err(key, "an array"));
                    };
                    if items.is_empty() {
                        return Err(parse_err(
                            "$jsonSchema keyword 'enum' cannot be an empty array".into(),
                        ));
                    }
                    s.enum_values = Some(items.clone());
                }
                "minimum" | "maximum" | "multipleOf" => {
                    if !is_number(v) {
                        return Err(type_err(key, "a number"));
                    }
                    match key.as_str() {
                        "minimum" => s.minimum = Some((v.clone(), false)),
                        "maximum" => s.maximum = Some((v.clone(), false)),
                        _ => {
                            if compare(v, &Bson::Int32(0)) != Ordering::Greater {
                                return Err(parse_err(
                                    "$jsonSchema keyword 'multipleOf' must have a positive value"
                                        .into(),
                                ));
                            }
                            s.multiple_of = Some(v.clone())
                        }
                    }
                }
                "exclusiveMinimum" | "exclusiveMaximum" => {
                    bool_arg(key, v)?;
                }
                "minLength" => s.min_length = Some(count(key, v)?),
                "maxLength" => s.max_length = Some(count(key, v)?),
                "pattern" => {
                    let Bson::String(p) = v else {
                        return Err(type_err(key, "a string"));
                    };
                    s.pattern = Some(RegexPred::compile(p, "")?);
                }
                "items" => {
                    s.items = Some(match v {
                        Bson::Document(d) => Items::All(Box::new(Schema::compile(d)?)),
                        Bson::Array(_) => Items::Tuple(schema_list(key, v)?),
                        _ => return Err(type_err(key, "an array or an object")),
                    })
                }
                "additionalItems" => s.additional_items = Some(additional(key, v)?),
                "minItems" => s.min_items = Some(count(key, v)?),
                "maxItems" => s.max_items = Some(count(key, v)?),
                "uniqueItems" => s.unique_items = bool_arg(key, v)?,
                "allOf" => s.all_of = schema_list(key, v)?,
                "anyOf" => s.any_of = schema_list(key, v)?,
                "oneOf" => s.one_of = schema_list(key, v)?,
                "not" => s.not = Some(Box::new(sub_schema(key, v)?)),
                "dependencies" => {
                    let Bson::Document(deps) = v else {
                        return Err(type_err(key, "an object"));
                    };
                    for (name, d) in deps {
                        let dep = match d {
                            Bson::Document(sd) => {
                                Dependency::Schema(Box::new(Schema::compile(sd)?))
                            }
                            Bson::Array(fields) => Dependency::Fields(
                                fields
                                    .iter()
                                    .map(|f| match f {
                                        Bson::String(f) => Ok(f.clone()),
                                        _ => Err(type_err(key, "an array of strings")),
                                    })
                                    .collect::<Result<_>>()?,
                            ),
                            _ => return Err(type_err(key, "an object or an array")),
                        };
                        s.dependencies.push((name.clone(), dep));
                    }
                }
                "title" | "description" => {
                    if !matches!(v, Bson::String(_)) {
                        return Err(type_err(key, "a string"));
                    }
                }
                "$ref" | "$schema" | "default" | "definitions" | "format" | "id" => {
                    return Err(parse_err(format!(
                        "$jsonSchema keyword '{key}' is not currently supported"
                    )))
                }
                "encrypt" | "encryptMetadata" => {
                    return Err(Error::not_supported(format!("$jsonSchema keyword '{key}'")))
                }
                _ => return Err(parse_err(format!("Unknown $jsonSchema keyword: {key}"))),
            }
        }
        // Draft 4: exclusiveMinimum/Maximum modify minimum/maximum.
        for (flag, bound, name) in [
            ("exclusiveMinimum", &mut s.minimum, "minimum"),
            ("exclusiveMaximum", &mut s.maximum, "maximum"),
        ] {
            if let Some(Bson::Boolean(b)) = spec.get(flag) {
                match bound {
                    Some((_, excl)) => *excl = *b,
                    None => {
                        return Err(parse_err(format!(
                            "$jsonSchema keyword '{name}' must be a present if {flag} is present"
                        )))
                    }
                }
            }
        }
        Ok(s)
    }

    /// The whole document (the root schema) without cloning it.
    pub(crate) fn matches_doc(&self, doc: &Document) -> bool {
        self.check(&Val::Doc(doc))
    }

    /// Whether one value satisfies this (sub)schema.
    pub(crate) fn accepts(&self, v: &Bson) -> bool {
        self.valid(v)
    }

    fn valid(&self, v: &Bson) -> bool {
        match v {
            Bson::Document(d) => self.check(&Val::Doc(d)),
            other => self.check(&Val::Other(other)),
        }
    }

    fn check(&self, v: &Val) -> bool {
        if let Some(types) = &self.types {
            let ok = match v {
                Val::Doc(_) => types.matches(&Bson::Document(Document::new())),
                Val::Other(b) => types.matches(b),
            };
            if !ok {
                return false;
            }
        }
        if let Some(values) = &self.enum_values {
            let b = v.to_bson();
            if !values.iter().any(|e| equal(e, &b)) {
                return false;
            }
        }
        if !self.all_of.iter().all(|s| s.check(v)) {
            return false;
        }
        if !self.any_of.is_empty() && !self.any_of.iter().any(|s| s.check(v)) {
            return false;
        }
        if !self.one_of.is_empty() && self.one_of.iter().filter(|s| s.check(v)).count() != 1 {
            return false;
        }
        if self.not.as_ref().is_some_and(|s| s.check(v)) {
            return false;
        }
        match v {
            Val::Doc(d) => self.check_object(d),
            Val::Other(Bson::Array(a)) => self.check_array(a),
            Val::Other(Bson::String(s)) => self.check_string(s),
            Val::Other(n) if is_number(n) => self.check_number(n),
            _ => true,
        }
    }

    fn check_object(&self, d: &Document) -> bool {
        if !self.required.iter().all(|f| d.contains_key(f)) {
            return false;
        }
        if self.min_properties.is_some_and(|m| d.len() < m)
            || self.max_properties.is_some_and(|m| d.len() > m)
        {
            return false;
        }
        for (name, schema) in &self.properties {
            if let Some(v) = d.get(name) {
                if !schema.valid(v) {
                    return false;
                }
            }
        }
        for (key, v) in d {
            let mut covered = self.properties.iter().any(|(n, _)| n == key);
            for (re, schema) in &self.pattern_properties {
                if re.is_match(key) {
                    covered = true;
                    if !schema.valid(v) {
                        return false;
                    }
                }
            }
            if !covered {
                match &self.additional_properties {
                    Some(Additional::Allowed(false)) => return false,
                    Some(Additional::Schema(s)) if !s.valid(v) => return false,
                    _ => {}
                }
            }
        }
        for (name, dep) in &self.dependencies {
            if d.contains_key(name) {
                let ok = match dep {
                    Dependency::Fields(fields) => fields.iter().all(|f| d.contains_key(f)),
                    Dependency::Schema(s) => s.check(&Val::Doc(d)),
                };
                if !ok {
                    return false;
                }
            }
        }
        true
    }

    fn check_array(&self, a: &[Bson]) -> bool {
        if self.min_items.is_some_and(|m| a.len() < m)
            || self.max_items.is_some_and(|m| a.len() > m)
        {
            return false;
        }
        match &self.items {
            Some(Items::All(s)) if !a.iter().all(|e| s.valid(e)) => return false,
            Some(Items::All(_)) => {}
            Some(Items::Tuple(schemas)) => {
                if !a.iter().zip(schemas).all(|(e, s)| s.valid(e)) {
                    return false;
                }
                let extra = a.get(schemas.len()..).unwrap_or_default();
                match &self.additional_items {
                    Some(Additional::Allowed(false)) if !extra.is_empty() => return false,
                    Some(Additional::Schema(s)) if !extra.iter().all(|e| s.valid(e)) => {
                        return false
                    }
                    _ => {}
                }
            }
            None => {}
        }
        if self.unique_items {
            for (i, x) in a.iter().enumerate() {
                if a[i + 1..].iter().any(|y| equal(x, y)) {
                    return false;
                }
            }
        }
        true
    }

    fn check_string(&self, s: &str) -> bool {
        let len = s.chars().count();
        !(self.min_length.is_some_and(|m| len < m)
            || self.max_length.is_some_and(|m| len > m)
            || self.pattern.as_ref().is_some_and(|p| !p.is_match(s)))
    }

    fn check_number(&self, n: &Bson) -> bool {
        if let Some((min, excl)) = &self.minimum {
            match compare_numbers(n, min) {
                Some(Ordering::Less) => return false,
                Some(Ordering::Equal) if *excl => return false,
                _ => {}
            }
        }
        if let Some((max, excl)) = &self.maximum {
            match compare_numbers(n, max) {
                Some(Ordering::Greater) => return false,
                Some(Ordering::Equal) if *excl => return false,
                _ => {}
            }
        }
        if let Some(m) = &self.multiple_of {
            match (to_dec(n), to_dec(m)) {
                (Some(Dec::Finite(x)), Some(Dec::Finite(y))) => {
                    if (x % y).sign() != bigdecimal::num_bigint::Sign::NoSign {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        true
    }
}

/// A value under validation; the root document is borrowed as is.
enum Val<'a> {
    Doc(&'a Document),
    Other(&'a Bson),
}

impl Val<'_> {
    fn to_bson(&self) -> Cow<'_, Bson> {
        match self {
            Val::Doc(d) => Cow::Owned(Bson::Document((*d).clone())),
            Val::Other(b) => Cow::Borrowed(*b),
        }
    }
}

/// `bsonType` takes BSON aliases; `type` takes JSON types. Either may be a list.
fn compile_types(keyword: &str, v: &Bson) -> Result<TypeSet> {
    let names: Vec<&Bson> = match v {
        Bson::Array(items) => {
            if items.is_empty() {
                return Err(parse_err(format!(
                    "$jsonSchema keyword '{keyword}' must name at least one type"
                )));
            }
            items.iter().collect()
        }
        other => vec![other],
    };
    let mut set = TypeSet::default();
    for n in names {
        let Bson::String(name) = n else {
            return Err(type_err(keyword, "a string or an array of strings"));
        };
        let ok = if keyword == "type" {
            match name.as_str() {
                "integer" => {
                    return Err(parse_err(
                        "$jsonSchema type 'integer' is not currently supported.".into(),
                    ))
                }
                "boolean" => set.add_alias("bool"),
                "object" | "array" | "number" | "string" | "null" => set.add_alias(name),
                _ => false,
            }
        } else {
            set.add_alias(name)
        };
        if !ok {
            return Err(parse_err(format!("Unknown type name alias: {name}")));
        }
    }
    Ok(set)
}
