//! `$exists` and `$type`.
//! See https://www.mongodb.com/docs/manual/reference/operator/query/type/.
use crate::error::{Error, Result};
use bson::Bson;

/// BSON type aliases and numbers, as `$type` and `$jsonSchema`'s `bsonType` name them.
pub(crate) const TYPE_ALIASES: &[(&str, i32)] = &[
    ("double", 1),
    ("string", 2),
    ("object", 3),
    ("array", 4),
    ("binData", 5),
    ("undefined", 6),
    ("objectId", 7),
    ("bool", 8),
    ("date", 9),
    ("null", 10),
    ("regex", 11),
    ("dbPointer", 12),
    ("javascript", 13),
    ("symbol", 14),
    ("javascriptWithScope", 15),
    ("int", 16),
    ("timestamp", 17),
    ("long", 18),
    ("decimal", 19),
    ("minKey", -1),
    ("maxKey", 127),
];

/// The BSON type number of a value.
pub(crate) fn type_code(v: &Bson) -> i32 {
    match v {
        Bson::Double(_) => 1,
        Bson::String(_) => 2,
        Bson::Document(_) => 3,
        Bson::Array(_) => 4,
        Bson::Binary(_) => 5,
        Bson::Undefined => 6,
        Bson::ObjectId(_) => 7,
        Bson::Boolean(_) => 8,
        Bson::DateTime(_) => 9,
        Bson::Null => 10,
        Bson::RegularExpression(_) => 11,
        Bson::DbPointer(_) => 12,
        Bson::JavaScriptCode(_) => 13,
        Bson::Symbol(_) => 14,
        Bson::JavaScriptCodeWithScope(_) => 15,
        Bson::Int32(_) => 16,
        Bson::Timestamp(_) => 17,
        Bson::Int64(_) => 18,
        Bson::Decimal128(_) => 19,
        Bson::MinKey => -1,
        Bson::MaxKey => 127,
    }
}

/// A set of BSON types; `"number"` stands for the four numeric types.
#[derive(Clone, Debug, Default)]
pub(crate) struct TypeSet {
    codes: Vec<i32>,
    numbers: bool,
}

impl TypeSet {
    /// `$type: "string"`, `$type: 2`, `$type: ["string", "number"]`. `path` is for messages.
    pub(crate) fn compile(arg: &Bson, path: &str) -> Result<TypeSet> {
        let mut set = TypeSet::default();
        match arg {
            Bson::Array(items) => {
                if items.is_empty() {
                    return Err(Error::failed_to_parse(format!(
                        "{path} must match at least one type"
                    )));
                }
                for item in items {
                    set.add(item)?;
                }
            }
            other => set.add(other)?,
        }
        Ok(set)
    }

    /// Add a type by its alias (`"string"`, `"number"`); false if unknown.
    pub(crate) fn add_alias(&mut self, name: &str) -> bool {
        if name == "number" {
            self.numbers = true;
            return true;
        }
        match TYPE_ALIASES.iter().find(|(n, _)| *n == name) {
            Some((_, code)) => {
                self.codes.push(*code);
                true
            }
            None => false,
        }
    }

    fn add(&mut self, v: &Bson) -> Result<()> {
        match v {
            Bson::String(name) => {
                if name == "number" {
                    self.numbers = true;
                } else {
                    match TYPE_ALIASES.iter().find(|(n, _)| n == name) {
                        Some((_, code)) => self.codes.push(*code),
                        // "missing" is what the $type expression returns; the
                        // server gives it its own message (matcher_type_set.cpp).
                        None if name == "missing" => {
                            return Err(Error::bad_value(
                                "'missing' is not a legal type name. To query for non-existence of a field, use {$exists:false}.",
                            ))
                        }
                        None => {
                            return Err(Error::bad_value(format!(
                                "Unknown type name alias: {name}"
                            )))
                        }
                    }
                }
            }
            Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
                let code = crate::value::numeric::to_i64_exact(v)
                    .and_then(|c| i32::try_from(c).ok())
                    .filter(|c| TYPE_ALIASES.iter().any(|(_, k)| k == c));
                match code {
                    Some(c) => self.codes.push(c),
                    None if crate::value::numeric::to_i64_exact(v) == Some(0) => {
                        return Err(Error::bad_value(format!(
                            "Invalid numerical type code: {}. Instead use {{$exists:false}}.",
                            crate::value::numeric::printf_g(number(v))
                        )))
                    }
                    None => {
                        return Err(Error::bad_value(format!(
                            "Invalid numerical type code: {}",
                            crate::value::numeric::printf_g(number(v))
                        )))
                    }
                }
            }
            _ => {
                return Err(Error::type_mismatch(
                    "type must be represented as a number or a string",
                ))
            }
        }
        Ok(())
    }

    pub(crate) fn matches(&self, v: &Bson) -> bool {
        (self.numbers && crate::value::numeric::is_number(v)) || self.codes.contains(&type_code(v))
    }
}

/// The number as `BSONElement::number()` gives it (a double; 0 for a non-number).
fn number(v: &Bson) -> f64 {
    crate::value::numeric::to_f64(v).unwrap_or(0.0)
}
