//! Index keys: one value per key-pattern field, ordered by MongoDB's BSON
//! order with descending fields reversed, and their generation from a
//! document (including multikey: one key per array element).
//!
//! Key generation must produce every value the query matcher could compare
//! against (so that scanning the bounds of a predicate never misses a matching
//! document): a missing field is keyed as null, an empty array as undefined, a
//! leaf array by each element (a nested array whole), an array of
//! sub-documents by each sub-document's value.
//! See https://www.mongodb.com/docs/manual/core/indexes/index-types/index-multikey/.
use crate::collation::Collation;
use crate::error::{Error, Result};
use crate::value::order::compare_binary as compare;
use crate::value::path::Part;
use bson::{Bson, Document};
use std::cmp::Ordering;

/// One index key: a value per field; bit `i` of `desc` marks field `i` descending.
#[derive(Clone, Debug)]
pub struct Key {
    pub vals: Box<[Bson]>,
    pub desc: u32,
}

impl Key {
    pub fn new(vals: Vec<Bson>, desc: u32) -> Key {
        Key {
            vals: vals.into_boxed_slice(),
            desc,
        }
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        for (i, (a, b)) in self.vals.iter().zip(other.vals.iter()).enumerate() {
            let ord = compare(a, b);
            if ord != Ordering::Equal {
                return if self.desc & (1 << i) != 0 {
                    ord.reverse()
                } else {
                    ord
                };
            }
        }
        self.vals.len().cmp(&other.vals.len())
    }
}

/// Replace the strings in an index key value (also inside documents and
/// arrays) by their sort keys under the index's collation, as the server's
/// CollationIndexKey does. Documents are at most 200 levels deep.
pub fn collation_key(c: &Collation, v: &mut Bson) {
    match v {
        Bson::String(s) => *s = crate::collation::index_key_string(c, s),
        Bson::Document(d) => d.iter_mut().for_each(|(_, x)| collation_key(c, x)),
        Bson::Array(items) => items.iter_mut().for_each(|x| collation_key(c, x)),
        _ => {}
    }
}

/// The values of one field of a document, for the index.
#[derive(Debug, Default)]
pub struct FieldValues {
    pub values: Vec<Bson>,
    /// Dotted prefixes of the path where arrays were met (MongoDB's multiKeyPaths).
    pub array_paths: Vec<String>,
    /// Whether the field exists at all (sparse indexes skip documents where no field does).
    pub found: bool,
}

/// Collect the index values of `parts` in `doc`.
pub fn field_values(doc: &Document, parts: &[Part]) -> FieldValues {
    let mut out = FieldValues::default();
    if let [only] = parts {
        // The common case (`_id`, top-level fields) without the general walk.
        match doc.get(&only.name) {
            None => out.values.push(Bson::Null),
            Some(v) => {
                out.found = true;
                leaf(v, &only.name, &mut out);
            }
        }
    } else {
        walk_doc(doc, parts, 0, &mut out);
    }
    if out.values.is_empty() {
        out.values.push(Bson::Null);
    }
    // Duplicates (by MongoDB equality) add nothing to the index.
    if out.values.len() > 1 {
        crate::sorting::sort_by(&mut out.values, compare);
        out.values.dedup_by(|a, b| compare(a, b) == Ordering::Equal);
    }
    out
}

fn prefix(parts: &[Part], upto: usize) -> String {
    parts[..upto]
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(".")
}

fn note_array(out: &mut FieldValues, path: String) {
    if !out.array_paths.contains(&path) {
        out.array_paths.push(path);
    }
}

/// The value at the end of the path.
fn leaf(v: &Bson, path: &str, out: &mut FieldValues) {
    match v {
        Bson::Array(items) => {
            note_array(out, path.to_string());
            if items.is_empty() {
                out.values.push(Bson::Undefined);
            } else {
                out.values.extend(items.iter().cloned());
            }
        }
        other => out.values.push(other.clone()),
    }
}

/// Continue the path at `parts[i]` inside a document.
fn walk_doc(doc: &Document, parts: &[Part], i: usize, out: &mut FieldValues) {
    let Some(part) = parts.get(i) else {
        return;
    };
    match doc.get(&part.name) {
        None => out.values.push(Bson::Null),
        Some(v) => walk_value(v, parts, i + 1, out),
    }
}

/// `v` was reached by `parts[..i]`; continue with the rest.
fn walk_value(v: &Bson, parts: &[Part], i: usize, out: &mut FieldValues) {
    if i == parts.len() {
        out.found = true;
        leaf(v, &prefix(parts, i), out);
        return;
    }
    match v {
        Bson::Document(d) => walk_doc(d, parts, i, out),
        Bson::Array(items) => {
            note_array(out, prefix(parts, i));
            let next = &parts[i];
            for (n, e) in items.iter().enumerate() {
                if let Bson::Document(d) = e {
                    walk_doc(d, parts, i, out);
                }
                // `a.0.b`: the numeric component also selects the element itself.
                if next.index == Some(n) {
                    walk_value(e, parts, i + 1, out);
                }
            }
        }
        // A scalar in the middle of the path: the field is missing.
        _ => out.values.push(Bson::Null),
    }
}

/// All keys of a document for a key pattern: the cartesian product of the
/// fields' values. Two fields with arrays at unrelated paths cannot be indexed.
pub fn document_keys(doc: &Document, fields: &[Vec<Part>], names: &[String]) -> Result<DocKeys> {
    let per_field: Vec<FieldValues> = fields.iter().map(|p| field_values(doc, p)).collect();
    let with_arrays: Vec<usize> = (0..per_field.len())
        .filter(|&i| !per_field[i].array_paths.is_empty())
        .collect();
    for (n, &i) in with_arrays.iter().enumerate() {
        for &j in &with_arrays[..n] {
            let shared = per_field[i]
                .array_paths
                .iter()
                .any(|p| per_field[j].array_paths.contains(p));
            if !shared {
                return Err(Error::cannot_index_parallel_arrays(format!(
                    "cannot index parallel arrays [{}] [{}]",
                    last_component(&per_field[i].array_paths, &names[i]),
                    last_component(&per_field[j].array_paths, &names[j])
                )));
            }
        }
    }
    let mut keys: Vec<Vec<Bson>> = vec![Vec::with_capacity(per_field.len())];
    for f in &per_field {
        if f.values.len() == 1 {
            for k in &mut keys {
                k.push(f.values[0].clone());
            }
        } else {
            let mut next = Vec::with_capacity(keys.len() * f.values.len());
            for k in &keys {
                for v in &f.values {
                    let mut k = k.clone();
                    k.push(v.clone());
                    next.push(k);
                }
            }
            keys = next;
        }
    }
    Ok(DocKeys {
        found: per_field.iter().any(|f| f.found),
        array_paths: per_field.into_iter().map(|f| f.array_paths).collect(),
        keys,
    })
}

/// The array's field name as MongoDB reports it in the parallel-arrays error.
fn last_component(paths: &[String], field: &str) -> String {
    let p = paths.first().map_or(field, String::as_str);
    p.rsplit('.').next().unwrap_or(p).to_string()
}

/// The keys of one document for one index.
#[derive(Debug)]
pub struct DocKeys {
    pub keys: Vec<Vec<Bson>>,
    /// Per field: where arrays were met.
    pub array_paths: Vec<Vec<String>>,
    /// Whether any field exists.
    pub found: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::path::FieldPath;
    use bson::{bson, doc};

    fn vals(path: &str, d: Document) -> Vec<Bson> {
        field_values(&d, FieldPath::new(path).parts()).values
    }

    #[test]
    fn values() {
        assert_eq!(vals("a", doc! {"a": 1}), vec![bson!(1)]);
        assert_eq!(vals("a", doc! {"b": 1}), vec![Bson::Null]);
        assert_eq!(vals("a", doc! {"a": []}), vec![Bson::Undefined]);
        assert_eq!(vals("a", doc! {"a": [2, 1, 2]}), vec![bson!(1), bson!(2)]);
        assert_eq!(vals("a", doc! {"a": [[1, 2]]}), vec![bson!([1, 2])]);
        assert_eq!(
            vals("a.b", doc! {"a": [{"b": 1}, {"c": 1}, {"b": [2, 3]}]}),
            vec![Bson::Null, bson!(1), bson!(2), bson!(3)]
        );
        assert_eq!(vals("a.b", doc! {"a": 5}), vec![Bson::Null]);
        assert_eq!(vals("a.0", doc! {"a": [7, 8]}), vec![bson!(7)]);
    }

    #[test]
    fn parallel_arrays() {
        let fields = vec![
            FieldPath::new("a").parts().to_vec(),
            FieldPath::new("b").parts().to_vec(),
        ];
        let names = vec!["a".to_string(), "b".to_string()];
        let err = document_keys(&doc! {"a": [1], "b": [2]}, &fields, &names).err();
        assert_eq!(err.map(|e| e.code), Some(171));
        let k = document_keys(&doc! {"a": [1, 2], "b": 3}, &fields, &names).ok();
        assert_eq!(k.map(|k| k.keys.len()), Some(2));
        let shared = vec![
            FieldPath::new("a.x").parts().to_vec(),
            FieldPath::new("a.y").parts().to_vec(),
        ];
        let k = document_keys(
            &doc! {"a": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]},
            &shared,
            &names,
        )
        .ok();
        assert_eq!(k.map(|k| k.keys.len()), Some(4));
    }
}
