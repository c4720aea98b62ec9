//! A compiled filter evaluated on a stored document in place: the same tree
//! and the same predicates as `query::matcher`, with each value the path
//! reaches read from the document's bytes. Scalars are handed to the
//! predicates without allocating (strings through one reused buffer);
//! sub-documents and arrays are decoded only when the predicate could hold
//! for them. Filters with `$expr`, `$jsonSchema` or `$text` need the whole
//! document and are matched on it instead ([`in_place`] says which).
use super::{DocView, Element, RawValue};
use crate::error::{Error, Result};
use crate::query::matcher::{Node, Pred};
use crate::query::Filter;
use crate::value::type_rank;
use bson::Bson;

/// Whether [`matches_at`] can evaluate this filter.
pub fn in_place(filter: &Filter) -> bool {
    supported(filter.root())
}

fn supported(n: &Node) -> bool {
    match n {
        Node::True | Node::False | Node::Path { .. } => true,
        Node::And(c) | Node::Or(c) | Node::Nor(c) => c.iter().all(supported),
        Node::Not(c) => supported(c),
        Node::Expr(_) | Node::Schema(_) | Node::Text(_) => false,
    }
}

/// What a scan keeps between documents: the buffer strings are copied
/// into, and whether strings compare bytewise (no collation is active; read
/// once per scan, at its first string).
pub struct Scratch {
    string: Bson,
    bytewise: Option<bool>,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            string: Bson::String(String::new()),
            bytewise: None,
        }
    }
}

impl Scratch {
    fn bytewise(&mut self) -> bool {
        *self
            .bytewise
            .get_or_insert_with(|| crate::collation::active().is_none())
    }
}

/// `{field: "text"}` on a stored string without a collation: its bytes
/// compared in place (no UTF-8 check, no copy). `None`: not that case.
#[inline(always)]
fn string_equality(pred: &Pred, e: Element<'_>, s: &mut Scratch) -> Option<bool> {
    let Pred::Cmp(c) = pred else {
        return None;
    };
    let (0x02, Bson::String(rhs), true) = (e.ty, c.rhs(), c.is_eq()) else {
        return None;
    };
    if !s.bytewise() {
        return None;
    }
    // A length prefix, the bytes, a NUL.
    let text = e.value.get(4..e.value.len().checked_sub(1)?)?;
    Some(crate::value::path::same_bytes(text, rhs.as_bytes()))
}

/// `Filter::matches_at` on a stored document: `None` = no match,
/// `Some(pos)` = a match and the array position the positional `$` uses.
#[inline]
pub fn matches_at(
    filter: &Filter,
    doc: DocView<'_>,
    scratch: &mut Scratch,
) -> Result<Option<Option<usize>>> {
    let mut pos = None;
    Ok(node(filter.root(), doc, scratch, &mut pos)?.then_some(pos))
}

fn node(n: &Node, doc: DocView<'_>, s: &mut Scratch, pos: &mut Option<usize>) -> Result<bool> {
    Ok(match n {
        Node::True => true,
        Node::False => false,
        Node::And(children) => {
            // The last child to record an array position wins, in the
            // server's order of an `$and`'s children (as `Node::matches`).
            let mut winner: Option<&Node> = None;
            for c in children {
                let mut at = None;
                if !node(c, doc, s, &mut at)? {
                    return Ok(false);
                }
                if at.is_some() && winner.is_none_or(|w| w.canonical_key() <= c.canonical_key()) {
                    winner = Some(c);
                    *pos = at;
                }
            }
            true
        }
        Node::Or(children) => {
            for c in children {
                if node(c, doc, s, &mut None)? {
                    return Ok(true);
                }
            }
            false
        }
        Node::Nor(children) => {
            for c in children {
                if node(c, doc, s, &mut None)? {
                    return Ok(false);
                }
            }
            true
        }
        Node::Not(child) => !node(child, doc, s, &mut None)?,
        Node::Path { path, pred } => {
            if let [part] = path.parts() {
                let e = doc.element(&part.name);
                if let Some(answer) = e.and_then(|e| string_equality(pred, e, s)) {
                    return Ok(answer);
                }
                let v = e.and_then(RawValue::of);
                if !matches!(v, Some(RawValue::Array(_))) {
                    let mut inner = None;
                    let ok = test(pred, v, s, &mut inner)?;
                    if ok && inner.is_some() {
                        *pos = inner;
                    }
                    return Ok(ok);
                }
            }
            let mut found: Option<Option<usize>> = None;
            let mut failed = None;
            doc.visit_path(path, pred.leaf_arrays(), &mut |v, offset| {
                let mut inner = None;
                match test(pred, v, s, &mut inner) {
                    Ok(true) => {
                        found = Some(offset.or(inner));
                        true
                    }
                    Ok(false) => false,
                    Err(e) => {
                        failed = Some(e);
                        true
                    }
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            match found {
                Some(at) => {
                    if at.is_some() {
                        *pos = at;
                    }
                    true
                }
                None => false,
            }
        }
        Node::Expr(_) | Node::Schema(_) | Node::Text(_) => {
            return Err(Error::internal_error(
                "this filter is matched on whole documents",
            ))
        }
    })
}

/// One value against one predicate, as `Pred::matches` on its `Bson`.
#[inline(always)]
fn test(
    pred: &Pred,
    v: Option<RawValue<'_>>,
    s: &mut Scratch,
    pos: &mut Option<usize>,
) -> Result<bool> {
    let Some(v) = v else {
        return Ok(pred.matches(None, pos));
    };
    let owned;
    let value: &Bson = match v {
        RawValue::String(text) => {
            match &mut s.string {
                Bson::String(buf) => {
                    buf.clear();
                    buf.push_str(text);
                }
                other => *other = Bson::String(text.to_string()),
            }
            &s.string
        }
        RawValue::Document(_) | RawValue::Array(_) => {
            if let Some(answer) = without_decoding(pred, v) {
                return Ok(answer);
            }
            owned = v.to_bson()?;
            &owned
        }
        // The common scalars on their own, so that no drop of an owned value is left to run.
        RawValue::Int32(i) => return Ok(pred.matches(Some(&Bson::Int32(i)), pos)),
        RawValue::Int64(i) => return Ok(pred.matches(Some(&Bson::Int64(i)), pos)),
        RawValue::Double(d) => return Ok(pred.matches(Some(&Bson::Double(d)), pos)),
        RawValue::DateTime(ms) => {
            let date = Bson::DateTime(bson::DateTime::from_millis(ms));
            return Ok(pred.matches(Some(&date), pos));
        }
        // Other values convert without allocating (bar the rare code and symbol).
        _ => {
            owned = v.to_bson()?;
            &owned
        }
    };
    Ok(pred.matches(Some(value), pos))
}

/// What a predicate says of a sub-document or array when that needs no
/// decoding: a comparison with a value of another bracket, `$in` without
/// documents or arrays (its regexes match only strings and regexes), `$exists`, `$size`.
fn without_decoding(pred: &Pred, v: RawValue<'_>) -> Option<bool> {
    let other_bracket = |b: &Bson| !matches!(type_rank(b), 5 | 6 | 0 | 16);
    match pred {
        Pred::Cmp(c) if other_bracket(c.rhs()) => Some(false),
        Pred::In(set) if set.values().iter().all(other_bracket) => Some(false),
        Pred::Exists => Some(true),
        Pred::Size(n) => Some(matches!(v, RawValue::Array(a) if a.len() == *n)),
        _ => None,
    }
}
