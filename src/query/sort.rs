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
use crate::value::path::{FieldPath, Part};
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
                    match d.get("$meta") {
                        Some(Bson::String(s)) if s == "textScore" && d.len() == 1 => {}
                        Some(Bson::String(s))
                            if d.len() == 1 && crate::fts::META_NAMES.contains(&s.as_str()) =>
                        {
                            return Err(Error::not_supported(format!(
                                "sorting by {{$meta: \"{s}\"}}"
                            )))
                        }
                        _ => {
                            return Err(Error::location(
                                17312,
                                "$meta is the only expression supported by $sort right now",
                            ))
                        }
                    }
                    // Highest score first, read where a `$text` match put it.
                    keys.push((field.clone(), false));
                    paths.push(FieldPath::new(crate::fts::SCORE_FIELD));
                    continue;
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
            crate::value::path::check_length(field)?;
            keys.push((field.clone(), ascending));
            paths.push(FieldPath::new(field));
        }
        Ok(SortSpec { keys, paths })
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Does it sort by `{$meta: "textScore"}`?
    pub fn uses_text_score(&self) -> bool {
        self.paths
            .iter()
            .any(|p| p.dotted() == crate::fts::SCORE_FIELD)
    }

    /// The specification as given (`{a: 1, s: {$meta: "textScore"}}`).
    pub fn pattern(&self) -> Document {
        self.keys
            .iter()
            .zip(&self.paths)
            .map(|((k, asc), p)| {
                let v = if p.dotted() == crate::fts::SCORE_FIELD {
                    bson::bson!({"$meta": "textScore"})
                } else {
                    Bson::Int32(if *asc { 1 } else { -1 })
                };
                (k.clone(), v)
            })
            .collect()
    }

    /// Compare two documents by this specification.
    pub fn compare(&self, a: &Document, b: &Document) -> Ordering {
        for (path, (_, asc)) in self.paths.iter().zip(&self.keys) {
            let ka = key_ref(path, Subject::Doc(a), *asc);
            let kb = key_ref(path, Subject::Doc(b), *asc);
            let ord = compare(ka, kb);
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
            let ka = key_ref(path, Subject::Value(a), *asc);
            let kb = key_ref(path, Subject::Value(b), *asc);
            let ord = compare(ka, kb);
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
            .map(|(p, (_, asc))| key_ref(p, Subject::Doc(doc), *asc).clone())
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

    /// The positions of `docs` in sort order, the first `first` only (all
    /// when `None`): exactly the prefix a stable sort would give (ties keep
    /// input order). Each document's key is extracted once, borrowed; when
    /// few are wanted only a bounded, sorted buffer of the best is kept
    /// (MongoDB's top-k sort for `sort().limit()`).
    pub fn order<'a>(&self, docs: &[&'a Document], first: Option<usize>) -> Vec<usize> {
        let width = self.paths.len();
        let n = docs.len();
        if width == 0 || n < 2 {
            return (0..first.unwrap_or(n).min(n)).collect();
        }
        let mut keys: Vec<&'a Bson> = Vec::with_capacity(n.saturating_mul(width));
        for d in docs {
            for (p, (_, asc)) in self.paths.iter().zip(&self.keys) {
                keys.push(key_ref(p, Subject::Doc(d), *asc));
            }
        }
        self.order_keys(&keys, first, |x, y| compare(x, y))
    }

    /// `order` over keys already extracted: `width` per document, in the
    /// documents' order, compared by `cmp` (ascending).
    pub(crate) fn order_keys<K>(
        &self,
        keys: &[K],
        first: Option<usize>,
        cmp: impl Fn(&K, &K) -> Ordering,
    ) -> Vec<usize> {
        let width = self.paths.len().max(1);
        let n = keys.len() / width;
        let want = first.unwrap_or(n).min(n);
        let key = |i: usize| keys.get(i * width..(i + 1) * width).unwrap_or(&[]);
        let compare_at = |a: usize, b: usize| {
            for ((x, y), (_, asc)) in key(a).iter().zip(key(b)).zip(&self.keys) {
                let ord = cmp(x, y);
                if ord != Ordering::Equal {
                    return if *asc { ord } else { ord.reverse() };
                }
            }
            Ordering::Equal
        };
        if want.saturating_mul(8) >= n {
            let mut idx: Vec<usize> = (0..n).collect();
            idx.sort_by(|&a, &b| compare_at(a, b));
            idx.truncate(want);
            return idx;
        }
        // A buffer of at most `want` positions in order; a later document
        // enters only if strictly before the worst kept (ties: earlier wins).
        let mut best: Vec<usize> = Vec::with_capacity(want + 1);
        for i in 0..n {
            if best.len() == want {
                match best.last() {
                    Some(&worst) if compare_at(i, worst) == Ordering::Less => {
                        best.pop();
                    }
                    _ => continue,
                }
            }
            let at = best.partition_point(|&b| compare_at(b, i) != Ordering::Greater);
            best.insert(at, i);
        }
        best
    }

    /// The paths sorted by, in order.
    pub fn paths(&self) -> &[FieldPath] {
        &self.paths
    }

    /// Stable sort.
    pub fn sort(&self, docs: &mut Vec<Document>) {
        if self.is_empty() || docs.len() < 2 {
            return;
        }
        let order = {
            let refs: Vec<&Document> = docs.iter().collect();
            self.order(&refs, None)
        };
        let mut slots: Vec<Option<Document>> = docs.drain(..).map(Some).collect();
        docs.extend(
            order
                .into_iter()
                .filter_map(|i| slots.get_mut(i).and_then(Option::take)),
        );
    }

    /// Stable sort of borrowed documents (find sorts before cloning what it returns).
    pub fn sort_refs(&self, docs: &mut Vec<&Document>) {
        if self.is_empty() || docs.len() < 2 {
            return;
        }
        let order = self.order(docs, None);
        let sorted: Vec<&Document> = order
            .into_iter()
            .filter_map(|i| docs.get(i).copied())
            .collect();
        *docs = sorted;
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

#[derive(Clone, Copy)]
enum Subject<'a> {
    Doc(&'a Document),
    Value(&'a Bson),
}

static NULL: Bson = Bson::Null;
/// The key of an empty array: below null, as undefined sorts.
static EMPTY: Bson = Bson::Undefined;

/// One value a sort key is chosen from.
#[derive(Clone, Copy)]
enum SortVal<'a> {
    /// The path is missing there: counts as null.
    Missing,
    /// An empty array at the end of the path: below null, as undefined sorts.
    Empty,
    Value(&'a Bson),
}

/// The values a sort key is chosen from: the server's sort key generation,
/// which differs from the matcher's path traversal in one way: a numeric
/// component after an array names that element only (`"a.0.b"` reads
/// `a[0].b`, never a field "0" of each element), and an array reached that
/// way at the end of the path is one value, not its elements (the server's
/// jstests/core/query/sort/sort_dotted_paths_positional.js). Elsewhere an
/// array is traversed: its documents continue the path (scalars in the
/// middle of a path contribute nothing), and at the end its elements are
/// the values.
fn sort_values<'a>(v: &'a Bson, parts: &[Part], positional: bool, f: &mut dyn FnMut(SortVal<'a>)) {
    let Some((part, rest)) = parts.split_first() else {
        match v {
            Bson::Array(a) if !positional => {
                if a.is_empty() {
                    f(SortVal::Empty);
                }
                for e in a {
                    f(SortVal::Value(e));
                }
            }
            _ => f(SortVal::Value(v)),
        }
        return;
    };
    match v {
        Bson::Document(d) => match part.field_in(d) {
            Some(x) => sort_values(x, rest, false, f),
            None => f(SortVal::Missing),
        },
        Bson::Array(a) => match part.index {
            Some(i) => match a.get(i) {
                Some(e) => sort_values(e, rest, true, f),
                None => f(SortVal::Missing),
            },
            None => {
                for e in a {
                    if let Bson::Document(d) = e {
                        match part.field_in(d) {
                            Some(x) => sort_values(x, rest, false, f),
                            None => f(SortVal::Missing),
                        }
                    }
                }
            }
        },
        _ => f(SortVal::Missing),
    }
}

/// The key for one path: min (ascending) or max (descending) of the values
/// found ([`sort_values`]); missing is null; an empty array is below null;
/// a path that finds nothing (an array of scalars before its end) is null.
/// Borrowed from the document (or a static null/undefined).
fn key_ref<'a>(path: &FieldPath, subject: Subject<'a>, ascending: bool) -> &'a Bson {
    // The common case: a top-level field holding no array.
    if let (Subject::Doc(d), Some(name)) = (&subject, path.single()) {
        match crate::value::path::field(d, name) {
            None => return &NULL,
            Some(Bson::Array(_)) => {}
            Some(v) => return v,
        }
    }
    let mut best: Option<&'a Bson> = None;
    let mut missing = false;
    let mut empty = false;
    let mut visit = |v: SortVal<'a>| match v {
        SortVal::Missing => missing = true,
        SortVal::Empty => empty = true,
        SortVal::Value(v) => {
            if best.is_none_or(|b| beats(v, b, ascending)) {
                best = Some(v);
            }
        }
    };
    match subject {
        Subject::Doc(d) => {
            if let Some((first, rest)) = path.parts().split_first() {
                match first.field_in(d) {
                    Some(x) => sort_values(x, rest, false, &mut visit),
                    None => visit(SortVal::Missing),
                }
            }
        }
        Subject::Value(v) => sort_values(v, path.parts(), false, &mut visit),
    }
    // Missing counts as null and an empty array as undefined among the others.
    let mut key = best;
    for (seen, v) in [(missing, &NULL), (empty, &EMPTY)] {
        if seen && key.is_none_or(|k| beats(v, k, ascending)) {
            key = Some(v);
        }
    }
    key.unwrap_or(&NULL)
}

/// Whether `v` is a better key than `k`: smaller ascending, larger descending.
fn beats(v: &Bson, k: &Bson, ascending: bool) -> bool {
    let ord = compare(v, k);
    if ascending {
        ord == Ordering::Less
    } else {
        ord == Ordering::Greater
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

#[cfg(test)]
mod order_tests {
    use super::*;
    use bson::doc;

    /// The bounded top-k gives exactly the prefix of the stable full sort.
    #[test]
    fn top_k_is_the_stable_prefix() {
        let docs: Vec<Document> = (0..200)
            .map(|i: i32| match i % 7 {
                0 => doc! {"_id": i},
                1 => doc! {"_id": i, "a": [i % 5, 3]},
                2 => doc! {"_id": i, "a": []},
                3 => doc! {"_id": i, "a": f64::from(i % 4), "b": "x"},
                _ => doc! {"_id": i, "a": i % 4, "b": format!("{}", i % 3)},
            })
            .collect();
        let refs: Vec<&Document> = docs.iter().collect();
        for spec in [doc! {"a": 1}, doc! {"a": -1, "b": 1}, doc! {"b": -1}] {
            let spec = SortSpec::compile(&spec).unwrap_or_else(|e| panic!("{e}"));
            let mut all: Vec<usize> = (0..docs.len()).collect();
            all.sort_by(|&x, &y| spec.compare(&docs[x], &docs[y]));
            assert_eq!(spec.order(&refs, None), all);
            for k in [0, 1, 3, 10, 24, 25, 26, 199, 200, 500] {
                let got = spec.order(&refs, Some(k));
                assert_eq!(got, all[..k.min(all.len())].to_vec(), "k = {k}");
            }
        }
    }
}
