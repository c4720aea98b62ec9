//! Applying a compiled projection to one document.
//!
//! Inclusion: the included fields in the document's order, then computed
//! fields (expressions, `$slice`, `$elemMatch`, positional) in specification
//! order — an existing field keeps its place, a new one is appended (the
//! server's InclusionNode). Exclusion: the document minus the excluded fields,
//! with `$slice` applied in place.
use super::{PNode, Tree};
use crate::error::{Error, Result};
use crate::expr::Scope;
use bson::{Bson, Document};

pub(super) struct Cx<'a> {
    /// `$$ROOT` for expressions.
    pub root: &'a Document,
    pub position: Option<usize>,
    /// The positional `$` has picked its element (on the first array of its
    /// path): below it, `a.b.$` includes `b` whole.
    pub positional_done: bool,
    pub scope: &'a Scope<'a>,
}

pub(super) fn include_doc(tree: &Tree, doc: &Document, cx: &Cx) -> Result<Document> {
    let mut out = Document::new();
    for (key, value) in doc {
        match tree.get(key) {
            Some(PNode::Include) => {
                out.insert(key.clone(), value.clone());
            }
            Some(PNode::Sub(sub)) => {
                let v = match value {
                    // `a.b.$`: the positional applies to the first array on
                    // its path (the server's applyPositionalProjection).
                    Bson::Array(items) if !cx.positional_done && sub.has_positional() => {
                        let item = positional_element(items, cx.position)?;
                        let inner = Cx {
                            positional_done: true,
                            ..*cx
                        };
                        Some(Bson::Array(
                            include_value(sub, item, &inner)?.into_iter().collect(),
                        ))
                    }
                    _ => include_value(sub, value, cx)?,
                };
                if let Some(v) = v {
                    out.insert(key.clone(), v);
                }
            }
            _ => {}
        }
    }
    for (key, node) in &tree.fields {
        match node {
            PNode::Include | PNode::Exclude => {}
            PNode::Sub(sub) => {
                // A level the document lacks still receives its computed fields.
                if !doc.contains_key(key) && sub.has_computed() {
                    out.insert(key.clone(), Bson::Document(computed_only(sub, cx)?));
                }
            }
            computed => match compute(computed, doc.get(key), cx)? {
                Some(v) => {
                    out.insert(key.clone(), v);
                }
                None => {
                    out.remove(key);
                }
            },
        }
    }
    Ok(out)
}

/// A sub-projection applied to a value: documents are projected, arrays
/// element by element (scalars dropped), scalars omitted — unless the level
/// computes fields, which then replace the scalar with a new document.
fn include_value(tree: &Tree, value: &Bson, cx: &Cx) -> Result<Option<Bson>> {
    Ok(match value {
        Bson::Document(d) => Some(Bson::Document(include_doc(tree, d, cx)?)),
        Bson::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                if let Some(v) = include_value(tree, item, cx)? {
                    out.push(v);
                }
            }
            Some(Bson::Array(out))
        }
        _ if tree.has_computed() => Some(Bson::Document(computed_only(tree, cx)?)),
        _ => None,
    })
}

/// Only the computed fields of a level (for a missing or scalar value).
fn computed_only(tree: &Tree, cx: &Cx) -> Result<Document> {
    include_doc(tree, &Document::new(), cx)
}

/// The value of a computed node, given the field's current value.
fn compute(node: &PNode, current: Option<&Bson>, cx: &Cx) -> Result<Option<Bson>> {
    Ok(match node {
        PNode::Literal(v) => Some(v.clone()),
        PNode::Expr(e) => e.evaluate(cx.root, cx.scope)?,
        PNode::Slice { skip, limit } => current.map(|v| slice(v, *skip, *limit)),
        PNode::ElemMatch(em) => match current {
            Some(v @ Bson::Array(items)) => em
                .first_match(v)
                .and_then(|i| items.get(i))
                .map(|e| Bson::Array(vec![e.clone()])),
            _ => None,
        },
        PNode::Positional => match current {
            Some(Bson::Array(items)) if !cx.positional_done => Some(Bson::Array(vec![
                positional_element(items, cx.position)?.clone(),
            ])),
            v => v.cloned(),
        },
        PNode::Include | PNode::Exclude | PNode::Sub(_) => current.cloned(),
    })
}

/// The array element the query's positional match names (51246 without
/// one, 51247 when the array is shorter).
fn positional_element(items: &[Bson], position: Option<usize>) -> Result<&Bson> {
    let Some(i) = position else {
        return Err(Error::location(
            51246,
            "positional operator '.$' couldn't find a matching element in the array",
        ));
    };
    items
        .get(i)
        .ok_or_else(|| Error::location(51247, "positional operator '.$' element mismatch"))
}

/// find's `$slice`: `n` first elements, `-n` last, `[skip, n]` (negative skip
/// counts from the end). Non-arrays are returned unchanged.
fn slice(value: &Bson, skip: Option<i64>, limit: i64) -> Bson {
    let Bson::Array(items) = value else {
        return value.clone();
    };
    let len = items.len() as i64;
    let (start, count) = match skip {
        None if limit >= 0 => (0, limit),
        None => ((len + limit).max(0), len),
        Some(s) if s >= 0 => (s.min(len), limit),
        Some(s) => ((len + s).max(0), limit),
    };
    let start = usize::try_from(start).unwrap_or(0);
    let count = usize::try_from(count).unwrap_or(0);
    Bson::Array(items.iter().skip(start).take(count).cloned().collect())
}

pub(super) fn exclude_doc(tree: &Tree, doc: &Document, cx: &Cx) -> Result<Document> {
    let mut out = Document::new();
    for (key, value) in doc {
        match tree.get(key) {
            Some(PNode::Exclude) => {}
            Some(PNode::Sub(sub)) => {
                out.insert(key.clone(), exclude_value(sub, value, cx)?);
            }
            // find's operators also apply in an exclusion projection.
            Some(node @ (PNode::Slice { .. } | PNode::ElemMatch(_) | PNode::Positional)) => {
                if let Some(v) = compute(node, Some(value), cx)? {
                    out.insert(key.clone(), v);
                }
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Ok(out)
}

fn exclude_value(tree: &Tree, value: &Bson, cx: &Cx) -> Result<Bson> {
    Ok(match value {
        Bson::Document(d) => Bson::Document(exclude_doc(tree, d, cx)?),
        Bson::Array(items) => Bson::Array(
            items
                .iter()
                .map(|i| exclude_value(tree, i, cx))
                .collect::<Result<_>>()?,
        ),
        other => other.clone(),
    })
}

/// Set a computed field at a dotted path as the server's projection does
/// (`$addFields` semantics): into every element of an array met on the way,
/// a missing or non-document step becoming a document. The depth is that of
/// the path and of the document's arrays, both bounded on input.
pub(super) fn set_computed(doc: &mut Document, parts: &[&str], value: &Bson) {
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    if rest.is_empty() {
        doc.insert(*first, value.clone());
        return;
    }
    match doc.get_mut(*first) {
        Some(Bson::Document(d)) => set_computed(d, rest, value),
        Some(Bson::Array(items)) => set_in_array(items, rest, value),
        _ => {
            let mut d = Document::new();
            set_computed(&mut d, rest, value);
            doc.insert(*first, d);
        }
    }
}

fn set_in_array(items: &mut [Bson], parts: &[&str], value: &Bson) {
    for item in items {
        match item {
            Bson::Document(d) => set_computed(d, parts, value),
            Bson::Array(inner) => set_in_array(inner, parts, value),
            other => {
                let mut d = Document::new();
                set_computed(&mut d, parts, value);
                *other = Bson::Document(d);
            }
        }
    }
}
