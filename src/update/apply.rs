//! Walking the compiled update tree over one document: children in field
//! order, existing values updated in place, missing paths created as
//! documents (array indexes padded with nulls), array nodes applied to the
//! elements their filters select.
use super::compile::{ArrNode, Leaf, Node, ObjNode, Tree};
use super::display::{self, ID_MARK};
use super::merge::merge;
use super::ops::{Ctx, Effect, Op};
use super::path::{field_mut, parse_index, Trail};
use super::positional::children_with_positional;
use crate::error::{Error, Result};
use bson::{Bson, Document};
use std::borrow::Cow;

/// How many nulls a write may add to reach an index (the server's kMaxPaddingAllowed).
const MAX_PADDING: usize = 1_500_000;

pub fn apply_tree(tree: &Tree, doc: &mut Document, ctx: &mut Ctx) -> Result<bool> {
    if let Some(changed) = one_top_leaf(tree, doc, ctx)? {
        return Ok(changed);
    }
    let mut changed = false;
    if !tree.renames.is_empty() {
        changed |= super::rename::take_sources(tree, doc, ctx)?;
    }
    changed |= apply_obj_doc(&tree.root, doc, &Trail::ROOT, ctx)?;
    Ok(changed)
}

/// The common one-field update (`{$inc: {qty: 1}}`) of a top-level field
/// the document has, straight to its leaf: what the general walk does there,
/// without its levels (each a call per document in the page's size-optimised
/// wasm). `None`: any other update or document, for the general walk.
fn one_top_leaf(tree: &Tree, doc: &mut Document, ctx: &mut Ctx) -> Result<Option<bool>> {
    let root = &tree.root;
    let [(name, Node::Leaf(leaf))] = root.children.as_slice() else {
        return Ok(None);
    };
    if root.positional.is_some() || leaf.on_id || !tree.renames.is_empty() {
        return Ok(None);
    }
    let Some(v) = field_mut(doc, name) else {
        return Ok(None);
    };
    let top = Trail::ROOT;
    Ok(Some(
        match leaf.op.update(v, false, &top.field(name), ctx)? {
            Effect::Remove => {
                doc.remove(name);
                true
            }
            e => e == Effect::Modified,
        },
    ))
}

fn effect(changed: bool) -> Effect {
    if changed {
        Effect::Modified
    } else {
        Effect::NoOp
    }
}

fn ordered<'n>(
    node: &'n ObjNode,
    trail: &Trail,
    ctx: &Ctx,
) -> Result<Vec<(Cow<'n, str>, Cow<'n, Node>)>> {
    match &node.positional {
        None => Ok(node
            .children
            .iter()
            .map(|(n, c)| (Cow::Borrowed(n.as_str()), Cow::Borrowed(c)))
            .collect()),
        Some(p) => children_with_positional(node, p, trail, ctx),
    }
}

fn apply_obj_doc(node: &ObjNode, doc: &mut Document, trail: &Trail, ctx: &mut Ctx) -> Result<bool> {
    let mut changed = false;
    if node.positional.is_none() {
        // The common case, without allocating.
        for (name, child) in &node.children {
            changed |= apply_in_doc(child, name, doc, trail, ctx)?;
        }
        return Ok(changed);
    }
    for (name, child) in ordered(node, trail, ctx)? {
        changed |= apply_in_doc(&child, &name, doc, trail, ctx)?;
    }
    Ok(changed)
}

fn apply_in_doc(
    child: &Node,
    name: &str,
    doc: &mut Document,
    trail: &Trail,
    ctx: &mut Ctx,
) -> Result<bool> {
    let here = trail.field(name);
    let existing = match field_mut(doc, name) {
        Some(v) if !matches!(child, Node::Leaf(_)) && trail.is_root() && name == "_id" => {
            // Nothing below an existing _id may change.
            let mut tmp = v.clone();
            if apply_existing(child, &mut tmp, false, &here, ctx)? != Effect::NoOp {
                return Err(Error::immutable_field(format!(
                    "Updating the path '_id' to {} would modify the immutable field '_id'",
                    crate::text::server::elem("_id", &tmp)
                )));
            }
            Some(Effect::NoOp)
        }
        Some(v) => Some(apply_existing(child, v, false, &here, ctx)?),
        None => None,
    };
    match existing {
        Some(Effect::Remove) => {
            doc.remove(name);
            Ok(true)
        }
        Some(e) => Ok(e == Effect::Modified),
        None => match create(child, &here, ctx)? {
            Some(v) => {
                // An upsert's insert is validated as an insert, which accepts
                // top-level `$` fields (manual: core/dot-dollar-considerations/dollar-prefix).
                if trail.is_root() && name.starts_with('$') && !ctx.inserting {
                    return Err(Error::dollar_prefixed_field_name(format!("The dollar ($) prefixed field '{name}' in '{name}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."),
                    ));
                }
                doc.insert(name, v);
                Ok(true)
            }
            None => Ok(false),
        },
    }
}

fn apply_existing(
    node: &Node,
    v: &mut Bson,
    in_array: bool,
    here: &Trail,
    ctx: &mut Ctx,
) -> Result<Effect> {
    match node {
        Node::Leaf(leaf) => apply_leaf(leaf, v, in_array, here, ctx),
        Node::Obj(o) => match v {
            Bson::Document(d) => Ok(effect(apply_obj_doc(o, d, here, ctx)?)),
            Bson::Array(a) => Ok(effect(apply_obj_arr(o, a, here, ctx)?)),
            other => {
                let mut rest = Vec::new();
                for (name, child) in ordered(o, here, ctx)? {
                    rest.push(name.to_string());
                    not_viable(&child, &mut rest, here, other, ctx)?;
                    rest.pop();
                }
                Ok(Effect::NoOp)
            }
        },
        Node::Arr(a) => match v {
            Bson::Array(items) => Ok(effect(apply_arr(a, items, here, ctx)?)),
            other => Err(Error::bad_value(format!(
                "Cannot apply array updates to non-array element {}",
                crate::text::server::elem(&here.name(), other)
            ))),
        },
    }
}

fn apply_leaf(
    leaf: &Leaf,
    v: &mut Bson,
    in_array: bool,
    here: &Trail,
    ctx: &mut Ctx,
) -> Result<Effect> {
    if !leaf.on_id {
        return leaf.op.update(v, in_array, here, ctx);
    }
    // Updates to _id are allowed only when they change nothing.
    let mut tmp = v.clone();
    let eff = leaf.op.update(&mut tmp, in_array, here, ctx)?;
    if eff == Effect::NoOp {
        return Ok(eff);
    }
    // The server's checkImmutablePathsNotModified: any real change at or
    // below `_id` fails, whatever the new value.
    Err(Error::immutable_field(format!(
        "Performing an update on the path '{}' would modify the immutable field '_id'",
        here.dotted()
    )))
}

/// The value a subtree creates where its path is missing.
fn create(node: &Node, here: &Trail, ctx: &mut Ctx) -> Result<Option<Bson>> {
    match node {
        Node::Leaf(leaf) => leaf.op.create(ctx),
        Node::Obj(o) => {
            let mut d = Document::new();
            apply_obj_doc(o, &mut d, here, ctx)?;
            Ok((!d.is_empty()).then_some(Bson::Document(d)))
        }
        Node::Arr(_) => Err(must_exist(&here.dotted())),
    }
}

fn must_exist(path: &str) -> Error {
    Error::bad_value(format!(
        "The path '{path}' must exist in the document in order to apply array updates."
    ))
}

/// A subtree meets a value it cannot descend into (`{a: 1}` for `a.b`):
/// creating leaves fail, others do nothing.
fn not_viable(
    node: &Node,
    rest: &mut Vec<String>,
    elem_trail: &Trail,
    elem: &Bson,
    ctx: &mut Ctx,
) -> Result<()> {
    let first = rest.first().cloned().unwrap_or_default();
    let shown = || crate::text::server::elem(&elem_trail.name(), elem);
    match node {
        Node::Leaf(leaf) => {
            if leaf.op.creates(ctx) {
                Err(Error::path_not_viable(format!(
                    "Cannot create field '{first}' in element {{{}}}",
                    shown()
                )))
            } else if matches!(leaf.op, Op::Pop { .. }) {
                let refs: Vec<&str> = rest.iter().map(String::as_str).collect();
                Err(Error::path_not_viable(format!(
                    "Cannot use the part ({first}) of ({}) to traverse the element ({{{}}})",
                    elem_trail.dotted_with(&refs),
                    shown()
                )))
            } else {
                Ok(())
            }
        }
        Node::Obj(o) => {
            for (name, child) in ordered(o, elem_trail, ctx)? {
                rest.push(name.to_string());
                not_viable(&child, rest, elem_trail, elem, ctx)?;
                rest.pop();
            }
            Ok(())
        }
        Node::Arr(_) => {
            let refs: Vec<&str> = rest.iter().map(String::as_str).collect();
            Err(must_exist(&elem_trail.dotted_with(&refs)))
        }
    }
}

/// An object node applied to an array: its field names are indexes.
fn apply_obj_arr(
    node: &ObjNode,
    arr: &mut Vec<Bson>,
    trail: &Trail,
    ctx: &mut Ctx,
) -> Result<bool> {
    let mut changed = false;
    for (name, child) in ordered(node, trail, ctx)? {
        match parse_index(&name) {
            Some(i) if i < arr.len() => {
                let here = trail.index(i);
                changed |= apply_existing(&child, &mut arr[i], true, &here, ctx)? != Effect::NoOp;
            }
            Some(i) => {
                let here = trail.index(i);
                if let Some(v) = create(&child, &here, ctx)? {
                    if i - arr.len() > MAX_PADDING {
                        return Err(Error::cannot_backfill_array(format!(
                            "can't backfill more than {MAX_PADDING} elements"
                        )));
                    }
                    arr.resize(i, Bson::Null);
                    arr.push(v);
                    changed = true;
                }
            }
            None => {
                let value = Bson::Array(std::mem::take(arr));
                let mut rest = vec![name.to_string()];
                let r = not_viable(&child, &mut rest, trail, &value, ctx);
                if let Bson::Array(a) = value {
                    *arr = a;
                }
                r?;
            }
        }
    }
    Ok(changed)
}

/// `$[]` / `$[id]` children applied to the elements they select; an element
/// selected by several children gets their merge.
fn apply_arr(node: &ArrNode, items: &mut [Bson], trail: &Trail, ctx: &mut Ctx) -> Result<bool> {
    let mut plan: Vec<Vec<usize>> = Vec::with_capacity(items.len());
    for e in items.iter() {
        let mut chosen = Vec::new();
        for (ci, (id, _)) in node.children.iter().enumerate() {
            if id.is_empty() || filter_matches(ctx, id, e)? {
                chosen.push(ci);
            }
        }
        plan.push(chosen);
    }
    let mut changed = false;
    for (i, chosen) in plan.iter().enumerate() {
        let here = trail.index(i);
        let child: Cow<Node> = match chosen.as_slice() {
            [] => continue,
            [one] => Cow::Borrowed(&node.children[*one].1),
            [first, more @ ..] => {
                let path = here.dotted();
                let mut merged = node.children[*first].1.clone();
                for m in more {
                    merged = merge(&merged, &node.children[*m].1, &path)?;
                }
                Cow::Owned(merged)
            }
        };
        changed |= apply_existing(&child, &mut items[i], true, &here, ctx)? != Effect::NoOp;
    }
    Ok(changed)
}

fn filter_matches(ctx: &Ctx, id: &str, e: &Bson) -> Result<bool> {
    let Some(f) = ctx.filters.iter().find(|f| f.id == id) else {
        return Ok(false);
    };
    let mut wrapped = Document::new();
    wrapped.insert(id, e.clone());
    f.filter.matches(&wrapped, ctx.scope)
}

/// Replace the `_id` marker in an error raised while the document was borrowed.
pub fn fill_id(mut e: Error, doc: &Document) -> Error {
    if e.message.contains(ID_MARK) {
        e.message = display::fill_id(&e.message, doc.get("_id"));
    }
    e
}
