//! `$all`, `$elemMatch`, `$size`.
//! See https://www.mongodb.com/docs/manual/reference/operator/query-array/.
use crate::error::{Error, Result};
use crate::query::filter::{
    implicit_equality, is_operator_document, is_top_level_operator, Level, Parser,
};
use crate::query::matcher::{Node, Pred, Root};
use bson::{Bson, Document};

/// `$size: n`: a non-negative whole number.
pub(crate) fn compile_size(arg: &Bson) -> Result<Pred> {
    let n: i64 = match arg {
        Bson::Int32(i) => i64::from(*i),
        Bson::Int64(i) => match i32::try_from(*i) {
            Ok(i) => i64::from(i),
            Err(_) => {
                return Err(Error::bad_value(
                    "$size must be representable as a 32-bit integer",
                ))
            }
        },
        Bson::Double(d) => {
            if d.fract() != 0.0
                || !d.is_finite()
                || *d < f64::from(i32::MIN)
                || *d > f64::from(i32::MAX)
            {
                return Err(Error::bad_value("$size must be a whole number"));
            }
            *d as i64
        }
        _ => return Err(Error::bad_value("$size needs a number")),
    };
    match usize::try_from(n) {
        Ok(n) => Ok(Pred::Size(n)),
        Err(_) => Err(Error::bad_value("$size may not be negative")),
    }
}

/// `$all: [v1, v2]` is an `$and` of equalities (regexes match); `$all` of
/// `$elemMatch` documents is an `$and` of those. An empty list matches nothing.
pub(crate) fn compile_all(parser: &Parser, _path: &str, arg: &Bson) -> Result<Pred> {
    let Bson::Array(items) = arg else {
        return Err(Error::bad_value("$all needs an array"));
    };
    let first_is_elem_match = |v: &Bson| matches!(v, Bson::Document(d) if d.keys().next().is_some_and(|k| k == "$elemMatch"));
    if items.first().is_some_and(first_is_elem_match) {
        let mut preds = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Bson::Document(d) if first_is_elem_match(item) => {
                    let inner = d.get("$elemMatch").unwrap_or(&Bson::Null);
                    preds.push(compile_elem_match(parser, inner)?);
                }
                _ => return Err(Error::bad_value("$all/$elemMatch has to be consistent")),
            }
        }
        return Ok(Pred::And(preds));
    }
    if items.is_empty() {
        return Ok(Pred::Never);
    }
    let mut preds = Vec::with_capacity(items.len());
    for item in items {
        if is_operator_document(item) {
            return Err(Error::bad_value("no $ expressions in $all"));
        }
        preds.push(implicit_equality(item)?);
    }
    Ok(Pred::And(preds))
}

/// `$elemMatch: {$gte: 80, $lt: 85}` tests elements themselves; `$elemMatch:
/// {product: "xyz", score: {$gte: 8}}` (or one starting with `$and`/`$or`...)
/// is a query on each element document.
pub(crate) fn compile_elem_match(parser: &Parser, arg: &Bson) -> Result<Pred> {
    let Bson::Document(obj) = arg else {
        return Err(Error::bad_value("$elemMatch needs an Object"));
    };
    let value_form =
        is_operator_document(arg) && !obj.keys().next().is_some_and(|k| is_top_level_operator(k));
    if value_form {
        Ok(Pred::ElemMatchValue(parser.parse_ops("", obj)?))
    } else {
        Ok(Pred::ElemMatchObject(Box::new(
            parser.parse_doc(obj, Level::Sub)?,
        )))
    }
}

/// Some element (a document, or an array seen as one) matches the query.
pub(crate) fn elem_match_object(node: &Node, v: Option<&Bson>, pos: &mut Option<usize>) -> bool {
    let Some(Bson::Array(items)) = v else {
        return false;
    };
    let fields = top_level_fields(node);
    for (i, e) in items.iter().enumerate() {
        let hit = match e {
            Bson::Document(d) => match fields.and_then(|f| fields_match(f, d)) {
                Some(hit) => hit,
                None => matches_root(node, Root::Doc(d)),
            },
            Bson::Array(_) => matches_root(node, Root::Value(e)),
            _ => continue,
        };
        if hit {
            *pos = Some(i);
            return true;
        }
    }
    false
}

/// The query on one element through the general matcher.
fn matches_root(node: &Node, root: Root<'_>) -> bool {
    // No `$expr` inside `$elemMatch`, so evaluation cannot fail.
    node.matches(root, None, &mut None).unwrap_or(false)
}

/// The children of a query that only tests fields of the element itself
/// (`{rating: 5, user: {$in: [...]}}`: one path, or an `$and` of paths, each
/// one component long), for [`fields_match`]; `None` for any other query.
fn top_level_fields(node: &Node) -> Option<&[Node]> {
    let one_part = |n: &Node| matches!(n, Node::Path { path, .. } if path.len() == 1);
    match node {
        Node::Path { .. } if one_part(node) => Some(std::slice::from_ref(node)),
        Node::And(children) if children.iter().all(one_part) => Some(children),
        _ => None,
    }
}

/// Whether every child of [`top_level_fields`] holds on `d`, read directly
/// (what the matcher's one-field path does); `None` when a field holds an
/// array, whose elements the general matcher traverses.
#[inline(always)]
fn fields_match(children: &[Node], d: &Document) -> Option<bool> {
    for child in children {
        let Node::Path { path, pred } = child else {
            return None;
        };
        let [part] = path.parts() else {
            return None;
        };
        let v = part.field_in(d);
        if matches!(v, Some(Bson::Array(_))) {
            return None;
        }
        if !pred.matches(v, &mut None) {
            return Some(false);
        }
    }
    Some(true)
}

/// Some element satisfies every operator.
pub(crate) fn elem_match_value(preds: &[Pred], v: Option<&Bson>, pos: &mut Option<usize>) -> bool {
    let Some(Bson::Array(items)) = v else {
        return false;
    };
    for (i, e) in items.iter().enumerate() {
        if preds.iter().all(|p| p.matches(Some(e), &mut None)) {
            *pos = Some(i);
            return true;
        }
    }
    false
}
