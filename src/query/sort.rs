//! Sort specifications (`{a: 1, b: -1}`), shared by find, `$sort`, `$push`.
//!
//! A document's key for a path is the smallest of the values found there
//! (ascending) or the largest (descending); an array contributes its elements,
//! a missing field sorts as null and an empty array below null. Ties keep the
//! input order (stable sort). See
//! https://www.mongodb.com/docs/manual/reference/method/cursor.sort/ and
//! https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/#arrays.
use crate::error::{Error, Result};
use crate::value::compare;
use crate::value::path::{FieldPath, LeafArrays};
use bson::{Bson, Document};
use std::cmp::Ordering;

#[derive(Clone, Debug)]
pub struct SortSpec {
    /// Field path and ascending flag, in priority order.
    pub keys: Vec<(String, bool)>,
    paths: Vec<FieldPath>,
}

impl SortSpec {
    pub fn compile(spec: &Document) -> Result<SortSpec> {
        let mut keys = Vec::with_capacity(spec.len());
        let mut paths = Vec::with_capacity(spec.len());
        for (field, v) in spec {
            let ascending = match v {
                Bson::Document(d) if d.contains_key("$meta") => {
                    return Err(Error::not_supported(
                        "sorting by {$meta: ...} (text search scores)",
                    ))
                }
                Bson::Document(_) => {
                    return Err(Error::location(
                        17312,
                        "$meta is the only expression supported by $sort right now",
                    ))
                }
                v if crate::value::numeric::is_number(v) => {
                    // The server reads the number as an int (1.5 is 1).
                    let n = crate::value::numeric::to_f64(v).unwrap_or(0.0).trunc();
                    if n == 1.0 {
                        true
                    } else if n == -1.0 {
                        false
                    } else {
                        return Err(Error::location(
                            15975,
                            "$sort key ordering must be 1 (for ascending) or -1 (for descending)",
                        ));
                    }
                }
                _ => return Err(Error::location(
                    15974,
                    "$sort key ordering must be specified using a number or {$meta: 'textScore'}",
                )),
            };
            if field.is_empty() {
                return Err(Error::location(
                    40352,
                    "FieldPath cannot be constructed with empty string",
                ));
            }
            keys.push((field.clone(), ascending));
            paths.push(FieldPath::new(field));
        }
        Ok(SortSpec { keys, paths })
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Compare two documents by this specification.
    pub fn compare(&self, a: &Document, b: &Document) -> Ordering {
        for (path, (_, asc)) in self.paths.iter().zip(&self.keys) {
            let ka = key_at(path, Subject::Doc(a), *asc);
            let kb = key_at(path, Subject::Doc(b), *asc);
            let ord = compare(&ka, &kb);
            if ord != Ordering::Equal {
                return if *asc { ord } else { ord.reverse() };
            }
        }
        Ordering::Equal
    }

    /// Compare two arbitrary values (array elements for `$push` with `$sort:
    /// {field: 1}`): a value that is not a document has no fields.
    pub fn compare_values(&self, a: &Bson, b: &Bson) -> Ordering {
        for (path, (_, asc)) in self.paths.iter().zip(&self.keys) {
            let ka = key_at(path, Subject::Value(a), *asc);
            let kb = key_at(path, Subject::Value(b), *asc);
            let ord = compare(&ka, &kb);
            if ord != Ordering::Equal {
                return if *asc { ord } else { ord.reverse() };
            }
        }
        Ordering::Equal
    }

    /// The sort key of one document: one value per key.
    pub fn sort_key(&self, doc: &Document) -> Vec<Bson> {
        self.paths
            .iter()
            .zip(&self.keys)
            .map(|(p, (_, asc))| key_at(p, Subject::Doc(doc), *asc))
            .collect()
    }

    /// Compare two keys made by [`SortSpec::sort_key`].
    pub fn compare_keys(&self, a: &[Bson], b: &[Bson]) -> Ordering {
        for ((x, y), (_, asc)) in a.iter().zip(b).zip(&self.keys) {
            let ord = compare(x, y);
            if ord != Ordering::Equal {
                return if *asc { ord } else { ord.reverse() };
            }
        }
        Ordering::Equal
    }

    /// Stable sort, computing each document's key once.
    pub fn sort(&self, docs: &mut Vec<Document>) {
        if self.is_empty() || docs.len() < 2 {
            return;
        }
        let mut keyed: Vec<(Vec<Bson>, Document)> =
            docs.drain(..).map(|d| (self.sort_key(&d), d)).collect();
        keyed.sort_by(|(ka, _), (kb, _)| self.compare_keys(ka, kb));
        docs.extend(keyed.into_iter().map(|(_, d)| d));
    }

    /// Stable sort of borrowed documents (find sorts before cloning what it returns).
    pub fn sort_refs(&self, docs: &mut Vec<&Document>) {
        if self.is_empty() || docs.len() < 2 {
            return;
        }
        let mut keyed: Vec<(Vec<Bson>, &Document)> =
            docs.drain(..).map(|d| (self.sort_key(d), d)).collect();
        keyed.sort_by(|(ka, _), (kb, _)| self.compare_keys(ka, kb));
        docs.extend(keyed.into_iter().map(|(_, d)| d));
    }
}

/// `$push` with `$sort: 1` / `-1`: whole values in BSON order.
pub fn compare_plain(a: &Bson, b: &Bson, ascending: bool) -> Ordering {
    let ord = compare(a, b);
    if ascending {
        ord
    } else {
        ord.reverse()
    }
}

enum Subject<'a> {
    Doc(&'a Document),
    Value(&'a Bson),
}

/// The key for one path: min (ascending) or max (descending) of the values
/// found, arrays expanded; missing is null; an empty array is below null.
fn key_at<'a>(path: &FieldPath, subject: Subject<'a>, ascending: bool) -> Bson {
    let mut best: Option<&'a Bson> = None;
    let mut saw_missing = false;
    let mut visit = |v: Option<&'a Bson>, _: Option<usize>| {
        match v {
            None => saw_missing = true,
            Some(v) => {
                let better = match best {
                    None => true,
                    Some(b) => {
                        let ord = compare(v, b);
                        if ascending {
                            ord == Ordering::Less
                        } else {
                            ord == Ordering::Greater
                        }
                    }
                };
                if better {
                    best = Some(v);
                }
            }
        }
        false
    };
    match subject {
        Subject::Doc(d) => path.visit(d, LeafArrays::TraverseOmitArray, &mut visit),
        Subject::Value(v) => path.visit_value(v, LeafArrays::TraverseOmitArray, &mut visit),
    };
    let null = Bson::Null;
    let found = match (best, saw_missing) {
        (Some(b), true) => {
            // A missing value counts as null among the others.
            let ord = compare(&null, b);
            if (ascending && ord == Ordering::Less) || (!ascending && ord == Ordering::Greater) {
                None
            } else {
                Some(b)
            }
        }
        (b, _) => b,
    };
    match found {
        Some(v) => v.clone(),
        None if saw_missing => Bson::Null,
        // Nothing found: an empty array at the end of the path sorts below
        // null (as undefined does); arrays of scalars before the end are null.
        None => {
            let mut empty = false;
            let mut check = |v: Option<&'a Bson>, _: Option<usize>| {
                empty |= matches!(v, Some(Bson::Array(a)) if a.is_empty());
                empty
            };
            match subject {
                Subject::Doc(d) => path.visit(d, LeafArrays::NoTraversal, &mut check),
                Subject::Value(v) => path.visit_value(v, LeafArrays::NoTraversal, &mut check),
            };
            if empty {
                Bson::Undefined
            } else {
                Bson::Null
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn arrays_missing_and_empty() {
        // https://jira.mongodb.org/browse/DOCS-2760: [] < missing < [0, 1] < 1 == [1].
        let spec = SortSpec::compile(&doc! {"a": 1}).unwrap_or_else(|e| panic!("{e}"));
        let original = vec![
            doc! {},
            doc! {"a": 1},
            doc! {"a": []},
            doc! {"a": [1]},
            doc! {"a": [0, 1]},
        ];
        let mut docs = original.clone();
        spec.sort(&mut docs);
        assert_eq!(
            docs,
            vec![
                doc! {"a": []},
                doc! {},
                doc! {"a": [0, 1]},
                doc! {"a": 1},
                doc! {"a": [1]}
            ]
        );
        let spec = SortSpec::compile(&doc! {"a": -1}).unwrap_or_else(|e| panic!("{e}"));
        let mut docs = original;
        spec.sort(&mut docs);
        assert_eq!(
            docs,
            vec![
                doc! {"a": 1},
                doc! {"a": [1]},
                doc! {"a": [0, 1]},
                doc! {},
                doc! {"a": []}
            ]
        );
        assert!(SortSpec::compile(&doc! {"a": 2}).is_err());
        assert!(SortSpec::compile(&doc! {"a": "asc"}).is_err());
    }
}
