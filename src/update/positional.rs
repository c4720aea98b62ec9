//! The positional `$` operator: the child stored under `$` is applied to the
//! array index the query matched, merged with a child that names the same
//! index explicitly.
//! https://www.mongodb.com/docs/manual/reference/operator/update/positional/
use super::compile::{Node, ObjNode};
use super::merge::merge;
use super::ops::Ctx;
use super::path::{field_order, Trail};
use crate::error::{Error, Result};
use std::borrow::Cow;

/// The field the positional child stands for in this application.
pub fn matched_field(ctx: &Ctx) -> Result<String> {
    match ctx.position {
        Some(p) => Ok(p.to_string()),
        None => Err(Error::bad_value(
            "The positional operator did not find the match needed from the query.",
        )),
    }
}

/// The children of `node` in application order with the positional child
/// placed (or merged) at the matched index.
pub fn children_with_positional<'n>(
    node: &'n ObjNode,
    positional: &'n Node,
    trail: &Trail,
    ctx: &Ctx,
) -> Result<Vec<(Cow<'n, str>, Cow<'n, Node>)>> {
    let field = matched_field(ctx)?;
    let mut out: Vec<(Cow<str>, Cow<Node>)> = Vec::with_capacity(node.children.len() + 1);
    let mut placed = false;
    for (name, child) in &node.children {
        if !placed && *name == field {
            let path = trail.dotted_with(&[&field]);
            out.push((
                Cow::Borrowed(name.as_str()),
                Cow::Owned(merge(positional, child, &path)?),
            ));
            placed = true;
            continue;
        }
        if !placed && field_order(&field, name).is_lt() {
            out.push((Cow::Owned(field.clone()), Cow::Borrowed(positional)));
            placed = true;
        }
        out.push((Cow::Borrowed(name.as_str()), Cow::Borrowed(child)));
    }
    if !placed {
        out.push((Cow::Owned(field), Cow::Borrowed(positional)));
    }
    Ok(out)
}
