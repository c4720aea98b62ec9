//! Plain-words feedback for a learner: each remark is a message key and its
//! parameters (`{key: "resultCount", expected: 1, actual: 3}`), which the page
//! turns into a sentence in the learner's language. The keys are listed in
//! `www/tutorials/README.md`; values inside parameters are written as the shell
//! prints them (`3`, `"MSFT"`, `ISODate('…')`).
use super::diff::describe;
use crate::text::shell::type_name;
use crate::value::equal;
use bson::Bson;
use serde_json::{Map, Value};

/// Every key a remark can have; the page has a sentence for each
/// (`LABELS.feedback` in `www/tutorials/tutorials.js`).
pub const KEYS: &[&str] = &[
    "runError",
    "noError",
    "otherError",
    "noResult",
    "resultsCount",
    "resultCount",
    "notList",
    "value",
    "missing",
    "extra",
    "fieldOrder",
    "size",
    "notArray",
    "absent",
    "present",
    "every",
    "everyMissing",
    "everyAbsent",
    "ids",
    "collectionCount",
    "differs",
];

/// One remark: what differs, in the learner's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Feedback {
    pub key: &'static str,
    pub params: Map<String, Value>,
}

impl Feedback {
    pub fn new(key: &'static str) -> Feedback {
        Feedback {
            key,
            params: Map::new(),
        }
    }

    /// Add a parameter (numbers stay numbers, text stays text).
    pub fn with(mut self, name: &str, v: impl Into<Value>) -> Feedback {
        self.params.insert(name.to_string(), v.into());
        self
    }

    /// Add a BSON value as the shell prints it.
    pub fn value(self, name: &str, v: &Bson) -> Feedback {
        self.with(name, describe(v))
    }

    /// Where the remark applies: a result's number, a document's position, a collection.
    pub fn at(mut self, place: &Place) -> Feedback {
        if let Some(n) = place.statement {
            self.params.insert("statement".into(), n.into());
        }
        if let Some(i) = place.position {
            self.params.insert("position".into(), (i + 1).into());
        }
        if let Some(c) = &place.collection {
            self.params.insert("collection".into(), c.clone().into());
        }
        self
    }

    pub fn to_json(&self) -> Value {
        let mut m = self.params.clone();
        m.insert("key".into(), self.key.into());
        Value::Object(m)
    }
}

/// Where a compared value sits, for the learner: result `statement` (1-based,
/// only when the step checks several), document `position` (0-based here),
/// or a collection.
#[derive(Clone, Debug, Default)]
pub struct Place {
    pub statement: Option<usize>,
    pub position: Option<usize>,
    pub collection: Option<String>,
}

/// The first place where `found` differs from `want`, as one remark; `field` is
/// the dotted path inside the compared value ("" for the value itself).
pub fn first_difference(want: &Bson, found: &Bson, field: &str, place: &Place) -> Option<Feedback> {
    if equal(want, found) {
        return None;
    }
    let join = |k: &str| {
        if field.is_empty() {
            k.to_string()
        } else {
            format!("{field}.{k}")
        }
    };
    match (want, found) {
        (Bson::Document(w), Bson::Document(f)) => {
            for (k, wv) in w {
                match f.get(k) {
                    Some(fv) => {
                        if let Some(fb) = first_difference(wv, fv, &join(k), place) {
                            return Some(fb);
                        }
                    }
                    None => {
                        return Some(
                            Feedback::new("missing")
                                .with("field", join(k))
                                .value("expected", wv)
                                .at(place),
                        )
                    }
                }
            }
            if let Some((k, fv)) = f.iter().find(|(k, _)| !w.contains_key(*k)) {
                return Some(
                    Feedback::new("extra")
                        .with("field", join(k))
                        .value("actual", fv)
                        .at(place),
                );
            }
            let keys = |d: &bson::Document| d.keys().cloned().collect::<Vec<_>>().join(", ");
            Some(
                Feedback::new("fieldOrder")
                    .with("expected", keys(w))
                    .with("actual", keys(f))
                    .at(place),
            )
        }
        (Bson::Array(w), Bson::Array(f)) if w.len() != f.len() => Some(
            Feedback::new("size")
                .with("field", field)
                .with("expected", w.len())
                .with("actual", f.len())
                .at(place),
        ),
        (Bson::Array(w), Bson::Array(f)) => w
            .iter()
            .zip(f)
            .enumerate()
            .find_map(|(i, (wv, fv))| first_difference(wv, fv, &join(&i.to_string()), place)),
        _ => {
            let (ws, fs) = (describe(want), describe(found));
            let fb = Feedback::new("value")
                .with("field", field)
                .with("expected", ws.clone())
                .with("actual", fs.clone());
            // Same text, different types (1 and "1"): say which types.
            let fb = if ws == fs {
                fb.with("expectedType", type_name(want))
                    .with("actualType", type_name(found))
            } else {
                fb
            };
            Some(fb.at(place))
        }
    }
}

/// A whole result compared with the expected one: a count when both are lists
/// of different lengths, else the first differing document and field.
pub fn result_difference(want: &Bson, found: &Bson, statement: Option<usize>) -> Option<Feedback> {
    let place = Place {
        statement,
        ..Place::default()
    };
    match (want, found) {
        (Bson::Array(w), Bson::Array(f)) if w.len() != f.len() => Some(
            Feedback::new("resultCount")
                .with("expected", w.len())
                .with("actual", f.len())
                .at(&place),
        ),
        (Bson::Array(w), Bson::Array(f)) => {
            w.iter().zip(f).enumerate().find_map(|(i, (wv, fv))| {
                let place = Place {
                    position: Some(i),
                    ..place.clone()
                };
                first_difference(wv, fv, "", &place)
            })
        }
        (Bson::Array(w), other) => Some(
            Feedback::new("notList")
                .with("expected", w.len())
                .with("actual", type_name(other))
                .at(&place),
        ),
        _ => first_difference(want, found, "", &place),
    }
}
