//! Field paths in expressions: `"$a.b"` reads `b` in `a`, and through arrays
//! collects the values of the elements that are documents
//! (`{a: [{b: 1}, {b: 2}, {c: 3}]}` → `[1, 2]`). Numeric components are field
//! names, never array indexes. Only the value found is cloned.
use bson::{Bson, Document};

/// Read `path` below `base` (the whole value when the path is empty).
pub(crate) fn lookup(base: &Bson, path: &[String]) -> Option<Bson> {
    if path.is_empty() {
        return Some(base.clone());
    }
    match base {
        Bson::Document(d) => lookup_doc(d, path),
        Bson::Array(a) => Some(lookup_array(a, path)),
        _ => None,
    }
}

/// Read `path` below a document (the whole document when the path is empty).
pub(crate) fn lookup_doc(doc: &Document, path: &[String]) -> Option<Bson> {
    let Some((first, rest)) = path.split_first() else {
        return Some(Bson::Document(doc.clone()));
    };
    let v = doc.get(first)?;
    if rest.is_empty() {
        return Some(v.clone());
    }
    match v {
        Bson::Document(d) => lookup_doc(d, rest),
        Bson::Array(a) => Some(lookup_array(a, rest)),
        _ => None,
    }
}

/// Through an array: each document element contributes its value (if any);
/// other elements, nested arrays included, are skipped (ExpressionFieldPath::evaluatePathArray).
fn lookup_array(arr: &[Bson], path: &[String]) -> Bson {
    let mut out = Vec::new();
    for e in arr {
        if let Bson::Document(d) = e {
            if let Some(v) = lookup_doc(d, path) {
                out.push(v);
            }
        }
    }
    Bson::Array(out)
}
