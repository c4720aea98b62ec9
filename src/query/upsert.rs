//! The document an upsert inserts before applying the update: the filter's
//! equality conditions (recorded by the filter's parser, conjuncts.rs). See "Upsert with Dotted _id Query" and "upsert behavior" in
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.updateOne/#upsert.
use crate::error::{Error, Result};
use crate::value::path::is_path_prefix;
use bson::{Bson, Document};

/// The seed document: the equality paths set in the order of their dotted
/// paths (the server keeps them in a `std::map` keyed by path,
/// path_support.h's EqualityMatches, and adds them in that order), `_id`
/// first: `{name: "Gus", state: "active", rating: 100}` seeds
/// `{name, rating, state}`.
pub(crate) fn seed(equalities: &[(String, Bson)]) -> Result<Document> {
    let mut doc = Document::new();
    for (i, (path, _)) in equalities.iter().enumerate() {
        for (earlier, _) in &equalities[..i] {
            if earlier == path {
                return Err(Error::not_single_value_field(format!(
                    "cannot infer query fields to set, path '{path}' is matched twice"
                )));
            }
            if is_path_prefix(earlier, path) || is_path_prefix(path, earlier) {
                return Err(Error::not_single_value_field(format!(
                        "cannot infer query fields to set, both paths '{path}' and '{earlier}' are matched"
                    ),
                ));
            }
        }
    }
    // A handful of paths: an insertion sort (a library sort would add its
    // whole algorithm to the page's wasm for this one element type).
    let mut sorted: Vec<&(String, Bson)> = Vec::with_capacity(equalities.len());
    for e in equalities {
        let at = sorted
            .iter()
            .position(|s| s.0.as_bytes() > e.0.as_bytes())
            .unwrap_or(sorted.len());
        sorted.insert(at, e);
    }
    for (path, value) in sorted {
        set_path(&mut doc, path, value.clone());
    }
    Ok(id_first(doc))
}

/// `_id` moved to the front (the server's `_ensureIdFieldIsFirst`).
pub(crate) fn id_first(doc: Document) -> Document {
    match doc.keys().position(|k| k == "_id") {
        None | Some(0) => doc,
        Some(_) => {
            let mut out = Document::new();
            if let Some(id) = doc.get("_id") {
                out.insert("_id", id.clone());
            }
            for (k, v) in doc {
                if k != "_id" {
                    out.insert(k, v);
                }
            }
            out
        }
    }
}

/// A replacement upsert takes only `_id` from the filter, and only whole
/// (pathsupport::extractFullEqualityMatches with `_id` as the immutable path);
/// see "Upsert with Dotted _id Query" in the manual's db.collection.update page.
pub(crate) fn replacement_seed(equalities: &[(String, Bson)]) -> Result<Document> {
    let mut doc = Document::new();
    for (path, value) in equalities {
        if path == "_id" {
            if doc.contains_key("_id") {
                return Err(Error::not_single_value_field(
                    "cannot infer query fields to set, path '_id' is matched twice",
                ));
            }
            doc.insert("_id", value.clone());
        } else if path.starts_with("_id.") {
            return Err(Error::not_exact_value_field(format!(
                "field at '_id' must be exactly specified, field at sub-path '{path}'found"
            )));
        }
    }
    Ok(doc)
}

/// Set a dotted path, creating sub-documents (conflicts were ruled out above).
fn set_path(doc: &mut Document, path: &str, value: Bson) {
    match path.split_once('.') {
        None => {
            doc.insert(path, value);
        }
        Some((head, rest)) => {
            if !matches!(doc.get(head), Some(Bson::Document(_))) {
                doc.insert(head, Document::new());
            }
            if let Some(Bson::Document(sub)) = doc.get_mut(head) {
                set_path(sub, rest, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::CompileCtx;
    use crate::query::Filter;
    use bson::doc;

    fn equalities(filter: &Document) -> Vec<(String, Bson)> {
        Filter::compile(filter, &CompileCtx::default())
            .map(|f| f.conjuncts().equalities.clone())
            .unwrap_or_default()
    }

    #[test]
    fn seeds() {
        let f = doc! {"a.b": 1, "c": {"$gt": 1}, "d": {"$in": [2]}, "$and": [{"e": 3}], "r": bson::Regex { pattern: "x".try_into().unwrap_or_else(|_| unreachable!()), options: "".try_into().unwrap_or_else(|_| unreachable!()) }};
        assert_eq!(
            seed(&equalities(&f)).ok(),
            Some(doc! {"a": {"b": 1}, "d": 2, "e": 3})
        );
        let conflict = doc! {"a": 1, "$and": [{"a": 2}]};
        assert_eq!(seed(&equalities(&conflict)).map_err(|e| e.code), Err(54));
        // Sorted by path, `_id` first.
        let order = doc! {"name": "Gus", "state": "active", "rating": 100, "A": 1, "_id": 7, "a.z": 1, "ab": 2, "a.b": 3};
        assert_eq!(
            seed(&equalities(&order)).ok(),
            Some(
                doc! {"_id": 7, "A": 1, "a": {"b": 3, "z": 1}, "ab": 2, "name": "Gus", "rating": 100, "state": "active"}
            )
        );
        let prefix = doc! {"a": 1, "a.b": 2};
        assert_eq!(seed(&equalities(&prefix)).map_err(|e| e.code), Err(54));
    }
}
