//! Field paths in expressions: `"$a.b"` reads `b` in `a`, and through arrays
//! collects the values of the elements that are documents
//! (`{a: [{b: 1}, {b: 2}, {c: 3}]}` → `[1, 2]`). Numeric components are field
//! names, never array indexes. Only the value found is cloned, and nothing
//! when the path crosses no array ([`borrow`]).
use bson::{Bson, Document};

/// `doc.get(name)` without hashing the name: documents are small, and a
/// linear scan that compares key lengths first reads fewer bytes.
fn get<'a>(doc: &'a Document, name: &str) -> Option<&'a Bson> {
    let entries = crate::value::entries::of(doc);
    if entries.len() > crate::value::prefetch::TRACKED {
        return doc.get(name);
    }
    let key = name.as_bytes();
    // By position, the lengths compared here: most keys differ in length,
    // and the size-optimised wasm calls, not inlines, the slice iterator's
    // `next` and `same_bytes`.
    let mut i = 0;
    while let Some((k, v)) = entries.get_index(i) {
        if k.len() == key.len() && crate::value::path::same_bytes(k.as_bytes(), key) {
            return Some(v);
        }
        i += 1;
    }
    None
}

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
    let v = get(doc, first)?;
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

/// The value at `path` below `base` by reference, when the path crosses no
/// array (`None`: it does, or the path is empty; `Some(None)`: missing).
pub(crate) fn borrow<'a>(base: &'a Bson, path: &[String]) -> Option<Option<&'a Bson>> {
    if path.is_empty() {
        return Some(Some(base));
    }
    match base {
        Bson::Document(d) => borrow_doc(d, path),
        Bson::Array(_) => None,
        _ => Some(None),
    }
}

/// [`borrow`] below a document (`None` for the empty path: the document
/// itself is no `Bson`).
pub(crate) fn borrow_doc<'a>(doc: &'a Document, path: &[String]) -> Option<Option<&'a Bson>> {
    let (first, rest) = path.split_first()?;
    let Some(v) = get(doc, first) else {
        return Some(None);
    };
    if rest.is_empty() {
        return Some(Some(v));
    }
    match v {
        Bson::Document(d) => borrow_doc(d, rest),
        Bson::Array(_) => None,
        _ => Some(None),
    }
}

/// The values [`lookup`] would give, by reference, when the path crosses at
/// most one array (`None`: it crosses more, and the values must be built):
/// the value found, or each value found below that array's elements.
pub(crate) fn borrow_values<'a>(base: &'a Bson, path: &[String]) -> Option<Found<'a>> {
    if path.is_empty() {
        return Some(Found::One(base));
    }
    match base {
        Bson::Document(d) => borrow_values_doc(d, path),
        Bson::Array(a) => borrow_in_elements(a, path),
        _ => Some(Found::Missing),
    }
}

/// [`borrow_values`] below a document (`None` for the empty path too).
pub(crate) fn borrow_values_doc<'a>(doc: &'a Document, path: &[String]) -> Option<Found<'a>> {
    let (first, rest) = path.split_first()?;
    let Some(v) = get(doc, first) else {
        return Some(Found::Missing);
    };
    if rest.is_empty() {
        return Some(Found::One(v));
    }
    match v {
        Bson::Document(d) => borrow_values_doc(d, rest),
        Bson::Array(a) => borrow_in_elements(a, rest),
        _ => Some(Found::Missing),
    }
}

fn borrow_in_elements<'a>(arr: &'a [Bson], path: &[String]) -> Option<Found<'a>> {
    let mut out = Vec::with_capacity(arr.len());
    for e in arr {
        if let Bson::Document(d) = e {
            if let Some(v) = borrow_doc(d, path)? {
                out.push(v);
            }
        }
    }
    Some(Found::Many(out))
}

/// What a field path found, by reference.
pub(crate) enum Found<'a> {
    Missing,
    One(&'a Bson),
    /// The values below an array's elements (what `lookup` returns as an array).
    Many(Vec<&'a Bson>),
}

/// Feed `visit` what an accumulator reads from the values [`borrow_values`]
/// finds (the one value, or each element when it is an array; the values
/// below an array's elements, as they are), with no list of them built.
/// `None` when the path crosses more than one array (some values may have
/// been fed: the caller starts again and builds them).
pub(crate) fn visit_values<'a>(
    base: &'a Bson,
    path: &[String],
    visit: &mut dyn FnMut(&'a Bson),
) -> Option<()> {
    if path.is_empty() {
        visit_one(base, visit);
        return Some(());
    }
    match base {
        Bson::Document(d) => visit_values_doc(d, path, visit),
        Bson::Array(a) => visit_in_elements(a, path, visit),
        _ => Some(()),
    }
}

fn visit_one<'a>(v: &'a Bson, visit: &mut dyn FnMut(&'a Bson)) {
    match v {
        Bson::Array(a) => a.iter().for_each(visit),
        v => visit(v),
    }
}

/// [`visit_values`] below a document (`None` for the empty path too).
pub(crate) fn visit_values_doc<'a>(
    doc: &'a Document,
    path: &[String],
    visit: &mut dyn FnMut(&'a Bson),
) -> Option<()> {
    let (first, rest) = path.split_first()?;
    let Some(v) = get(doc, first) else {
        return Some(());
    };
    if rest.is_empty() {
        visit_one(v, visit);
        return Some(());
    }
    match v {
        Bson::Document(d) => visit_values_doc(d, rest, visit),
        Bson::Array(a) => visit_in_elements(a, rest, visit),
        _ => Some(()),
    }
}

fn visit_in_elements<'a>(
    arr: &'a [Bson],
    path: &[String],
    visit: &mut dyn FnMut(&'a Bson),
) -> Option<()> {
    let mut i = 0;
    while let Some(e) = arr.get(i) {
        i += 1;
        if let Bson::Document(d) = e {
            if let Some(v) = borrow_doc(d, path)? {
                visit(v);
            }
        }
    }
    Some(())
}
