//! Applying a projection tree to one document: the kept or removed fields
//! (inclusion and exclusion), then the computed ones, through arrays on the way.
use super::{Node, Tree};
use crate::error::Result;
use crate::expr::Scope;
use bson::{Bson, Document};

pub(super) fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        // NaN is truthy, as BSONElement::trueValue says.
        other => crate::value::numeric::to_f64(other).is_some_and(|f| f != 0.0),
    }
}

pub(super) fn exclude(tree: &Tree, doc: &Document) -> Document {
    // Sized once: a document that grows field by field rebuilds its table.
    let mut out = crate::value::entries::with_capacity(doc.len() + tree.fields.len());
    for (k, v) in doc {
        match tree.get(k) {
            Some(Node::Exclude) => {}
            Some(Node::Sub(t)) => {
                out.insert(k.clone(), exclude_value(t, v));
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out
}

pub(super) fn exclude_value(tree: &Tree, v: &Bson) -> Bson {
    match v {
        Bson::Document(d) => Bson::Document(exclude(tree, d)),
        Bson::Array(items) => Bson::Array(items.iter().map(|i| exclude_value(tree, i)).collect()),
        other => other.clone(),
    }
}

pub(super) fn include(tree: &Tree, doc: &Document) -> Document {
    // The projected fields and the computed ones, at most.
    let mut out = crate::value::entries::with_capacity(tree.fields.len());
    // By position: the size-optimised wasm calls, not inlines, an iterator's `next`.
    let entries = crate::value::entries::of(doc);
    let mut i = 0;
    while let Some((k, v)) = entries.get_index(i) {
        i += 1;
        match tree.get(k) {
            Some(Node::Include) => {
                out.insert(k.clone(), v.clone());
            }
            Some(Node::Sub(t)) => {
                if let Some(projected) = include_value(t, v) {
                    out.insert(k.clone(), projected);
                }
            }
            _ => {}
        }
    }
    out
}

/// Documents are projected, arrays mapped (dropping scalars), scalars dropped.
pub(super) fn include_value(tree: &Tree, v: &Bson) -> Option<Bson> {
    match v {
        Bson::Document(d) => Some(Bson::Document(include(tree, d))),
        Bson::Array(items) => Some(Bson::Array(
            items
                .iter()
                .filter_map(|i| include_value(tree, i))
                .collect(),
        )),
        _ => None,
    }
}

/// Add the computed fields of `tree` to `out` (in spec order), reading `root`.
/// `$addFields`' starting point: a copy of `doc` in which the fields the stage
/// replaces as a whole hold only their place (a replaced field keeps its position),
/// for `compute` to set or remove. Copying them would be wasted: in the sensor
/// pipeline each `$set` replaces `totals`, an array of 24 sub-documents.
/// The top-level fields `removed` (a following `$unset`'s) are not copied.
pub(super) fn copy_unreplaced(tree: &Tree, doc: &Document, removed: &[&str]) -> Document {
    let replaces = |k: &str| matches!(tree.get(k), Some(Node::Computed(_)));
    let skips = |k: &str| removed.contains(&k);
    if !doc.keys().any(|k| replaces(k) || skips(k)) {
        return doc.clone();
    }
    let mut out = crate::value::entries::with_capacity(doc.len() + tree.fields.len());
    for (k, v) in doc {
        if skips(k) {
            continue;
        }
        out.insert(k.clone(), if replaces(k) { Bson::Null } else { v.clone() });
    }
    out
}

pub(super) fn compute(
    tree: &Tree,
    out: &mut Document,
    root: &Document,
    scope: &Scope,
) -> Result<()> {
    for (k, node) in &tree.fields {
        match node {
            Node::Computed(op) => match op.eval(root, scope)? {
                Some(v) => {
                    out.insert(k.clone(), v.into_owned());
                }
                None => {
                    out.remove(k);
                }
            },
            Node::Sub(t) if t.computed => {
                let cur = out.get_mut(k).map(std::mem::take);
                let v = compute_value(t, cur, root, scope)?;
                out.insert(k.clone(), v);
            }
            _ => {}
        }
    }
    Ok(())
}

pub(super) fn compute_value(
    tree: &Tree,
    v: Option<Bson>,
    root: &Document,
    scope: &Scope,
) -> Result<Bson> {
    match v {
        Some(Bson::Document(mut d)) => {
            compute(tree, &mut d, root, scope)?;
            Ok(Bson::Document(d))
        }
        Some(Bson::Array(items)) => Ok(Bson::Array(
            items
                .into_iter()
                .map(|i| compute_value(tree, Some(i), root, scope))
                .collect::<Result<_>>()?,
        )),
        _ => {
            let mut d = Document::new();
            compute(tree, &mut d, root, scope)?;
            Ok(Bson::Document(d))
        }
    }
}
