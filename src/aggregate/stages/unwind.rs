//! `$unwind`: one output document per array element.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/unwind/
use crate::aggregate::path::FieldPath;
use crate::error::{Error, Result};
use crate::text::shell::type_name;
use bson::{Bson, Document};

#[derive(Clone, Debug)]
pub struct Unwind {
    pub(crate) path: FieldPath,
    pub(crate) index: Option<FieldPath>,
    pub(crate) preserve: bool,
}

impl Unwind {
    pub fn compile(spec: &Bson) -> Result<Unwind> {
        let (path, index, preserve) = match spec {
            Bson::String(s) => (s.as_str(), None, false),
            Bson::Document(d) => {
                let mut path = None;
                let mut index = None;
                let mut preserve = false;
                for (k, v) in d {
                    match k.as_str() {
                        "path" => match v {
                            Bson::String(s) => path = Some(s.as_str()),
                            other => {
                                return Err(Error::location(
                                    28808,
                                    format!(
                                        "expected a string as the path for $unwind stage, got {}",
                                        type_name(other)
                                    ),
                                ))
                            }
                        },
                        "preserveNullAndEmptyArrays" => match v {
                            Bson::Boolean(b) => preserve = *b,
                            other => {
                                return Err(Error::location(
                                    28809,
                                    format!(
                                        "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got {}",
                                        type_name(other)
                                    ),
                                ))
                            }
                        },
                        "includeArrayIndex" => match v {
                            Bson::String(s) if !s.is_empty() => {
                                if s.starts_with('$') {
                                    return Err(Error::location(
                                        28822,
                                        format!(
                                            "includeArrayIndex option to $unwind stage should not be prefixed with a '$': {s}"
                                        ),
                                    ));
                                }
                                index = Some(FieldPath::parse(s)?);
                            }
                            other => {
                                return Err(Error::location(
                                    28810,
                                    format!(
                                        "expected a non-empty string for the includeArrayIndex  option to $unwind stage, got {}",
                                        type_name(other)
                                    ),
                                ))
                            }
                        },
                        other => {
                            return Err(Error::location(
                                28811,
                                format!("unrecognized option to $unwind stage: {other}"),
                            ))
                        }
                    }
                }
                let Some(path) = path else {
                    return Err(Error::location(28812, "no path specified to $unwind stage"));
                };
                (path, index, preserve)
            }
            other => {
                return Err(Error::location(
                    15981,
                    format!(
                        "expected either a string or an object as specification for $unwind stage, got {}",
                        type_name(other)
                    ),
                ))
            }
        };
        let Some(stripped) = path.strip_prefix('$') else {
            return Err(Error::location(
                28818,
                format!("path option to $unwind stage should be prefixed with a '$': {path}"),
            ));
        };
        Ok(Unwind {
            path: FieldPath::parse(stripped)?,
            index,
            preserve,
        })
    }

    /// Unwind one document into `out`. Only the fields on the unwound path are
    /// rebuilt; the rest are cloned once per element.
    pub fn apply(&self, doc: &Document, out: &mut Vec<Document>) {
        match self.path.get_plain(doc) {
            Some(Bson::Array(items)) if !items.is_empty() => {
                for (i, item) in items.iter().enumerate() {
                    let mut d = replace_at(doc, self.path.parts(), item);
                    if let Some(index) = &self.index {
                        index.set(&mut d, Bson::Int64(i as i64));
                    }
                    out.push(d);
                }
            }
            Some(Bson::Array(_)) => {
                if self.preserve {
                    // An empty array is removed from the preserved document.
                    let mut d = doc.clone();
                    self.path.remove(&mut d);
                    self.push_unindexed(d, out);
                }
            }
            None | Some(Bson::Null) | Some(Bson::Undefined) => {
                if self.preserve {
                    self.push_unindexed(doc.clone(), out);
                }
            }
            // A non-array value is a one-element array (with a null index).
            Some(_) => self.push_unindexed(doc.clone(), out),
        }
    }

    fn push_unindexed(&self, mut d: Document, out: &mut Vec<Document>) {
        if let Some(index) = &self.index {
            index.set(&mut d, Bson::Null);
        }
        out.push(d);
    }
}

/// A copy of `doc` with the value at `parts` (reached through documents) replaced.
fn replace_at(doc: &Document, parts: &[String], value: &Bson) -> Document {
    let mut out = Document::new();
    let Some((first, rest)) = parts.split_first() else {
        return doc.clone();
    };
    for (k, v) in doc {
        if k == first {
            let nv = match (rest.is_empty(), v) {
                (true, _) => value.clone(),
                (false, Bson::Document(sub)) => Bson::Document(replace_at(sub, rest, value)),
                (false, other) => other.clone(),
            };
            out.insert(k.clone(), nv);
        } else {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}
