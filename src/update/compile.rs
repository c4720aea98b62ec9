//! Compiling an operator-style update (`{$set: {...}, $inc: {...}}`) into a
//! tree keyed by path components, as the server's UpdateObjectNode does:
//! conflicts between paths are found here, once, and the tree is walked in
//! field order for every document.
//! https://www.mongodb.com/docs/manual/reference/operator/update/
use super::ops::{Op, OpKind};
use super::path::{array_filter_id, field_order};
use crate::error::{Error, Result};
use crate::expr::CompileCtx;
use crate::query::Filter;
use crate::text::shell::type_name;
use crate::value::size::MAX_DEPTH;
use bson::{Bson, Document};
use std::collections::BTreeSet;

/// One entry of `arrayFilters`: its identifier and the filter on `{id: element}`.
#[derive(Clone, Debug)]
pub struct ArrayFilter {
    pub id: String,
    pub filter: Filter,
}

#[derive(Clone, Debug)]
pub enum Node {
    Obj(ObjNode),
    Arr(ArrNode),
    Leaf(Leaf),
}

/// Children by field name (sorted in update field order), plus the positional `$` child.
#[derive(Clone, Debug, Default)]
pub struct ObjNode {
    pub children: Vec<(String, Node)>,
    pub positional: Option<Box<Node>>,
}

/// `$[]` (identifier "") and `$[id]` children, sorted by identifier.
#[derive(Clone, Debug, Default)]
pub struct ArrNode {
    pub children: Vec<(String, Node)>,
}

#[derive(Clone, Debug)]
pub struct Leaf {
    pub op: Op,
    /// The path is `_id` or below it: the leaf may not change anything.
    pub on_id: bool,
}

/// A `$rename`: its source is taken out before the tree walk.
#[derive(Clone, Debug)]
pub struct Rename {
    pub from: Vec<String>,
    pub from_dotted: String,
    pub to: Vec<String>,
    pub to_dotted: String,
}

#[derive(Clone, Debug)]
pub struct Tree {
    pub root: ObjNode,
    pub renames: Vec<Rename>,
    pub leaves: usize,
    pub has_array_nodes: bool,
    pub has_positional: bool,
    /// Some leaf could write deeper than the storage depth limit.
    pub may_deepen: bool,
    /// Upper bound of how many bytes one application can add (None: unbounded).
    pub growth: Option<usize>,
    /// The single leaf's relation to `_id` when there is one leaf.
    pub touches_id: bool,
}

enum Key<'p> {
    Field(&'p str),
    Positional,
    Filter(&'p str),
}

pub fn compile_array_filters(items: &[Bson], ctx: &CompileCtx) -> Result<Vec<ArrayFilter>> {
    let mut out: Vec<ArrayFilter> = Vec::with_capacity(items.len());
    for item in items {
        let Bson::Document(d) = item else {
            return Err(Error::type_mismatch(format!(
                "Error parsing array filter :: caused by :: each array filter must be an object, got {}",
                type_name(item)
            )));
        };
        // The server parses an array filter with every special feature banned
        // ($expr, $jsonSchema, ...) before it looks at the identifier, so parse
        // errors come first (ParsedUpdate::parseArrayFilters).
        if let Some(e) = banned_feature(d, "Error parsing array filter :: caused by :: ") {
            return Err(e);
        }
        let filter = Filter::compile(d, ctx).map_err(|e| Error {
            message: format!("Error parsing array filter :: caused by :: {}", e.message),
            ..e
        })?;
        let mut names = Vec::new();
        top_level_names(d, &mut names);
        let Some(id) = names.first().cloned() else {
            return Err(Error::failed_to_parse(
                "Cannot use an expression without a top-level field name in arrayFilters",
            ));
        };
        if let Some(other) = names.iter().find(|n| **n != id) {
            return Err(Error::failed_to_parse(format!(
                "Error parsing array filter :: caused by :: Expected a single top-level field name, found '{id}' and '{other}'"
            )));
        }
        let valid = id.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && id.chars().all(|c| c.is_ascii_alphanumeric());
        if !valid {
            return Err(Error::bad_value(format!(
                "Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '{id}'"
            )));
        }
        if out.iter().any(|f| f.id == id) {
            return Err(Error::failed_to_parse(format!(
                "Found multiple array filters with the same top-level field name {id}"
            )));
        }
        out.push(ArrayFilter { id, filter });
    }
    Ok(out)
}

/// The error for `$expr`/`$jsonSchema` in a filter that bans special query
/// features (array filters, `$pull` conditions: the server's
/// kBanAllSpecialFeatures, expression_parser.cpp). (`$where` and `$text`,
/// BadValue there, keep mqlplay's own "not supported" errors.)
pub(crate) fn banned_feature(d: &Document, context: &str) -> Option<Error> {
    let op = banned_operator(d)?;
    Some(Error::query_feature_not_allowed(format!(
        "{context}{op} is not allowed in this context"
    )))
}

/// A top-level `$expr` or `$jsonSchema` (also inside `$and`/`$or`/`$nor`).
fn banned_operator(d: &Document) -> Option<&'static str> {
    for (k, v) in d {
        match k.as_str() {
            "$expr" => return Some("$expr"),
            "$jsonSchema" => return Some("$jsonSchema"),
            "$and" | "$or" | "$nor" => {
                if let Bson::Array(items) = v {
                    for item in items {
                        if let Some(op) = item.as_document().and_then(banned_operator) {
                            return Some(op);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// The first path components of a filter's conditions, through `$and`/`$or`/`$nor`.
fn top_level_names(d: &Document, out: &mut Vec<String>) {
    for (k, v) in d {
        if let Some(op) = k.strip_prefix('$') {
            if matches!(op, "and" | "or" | "nor") {
                if let Bson::Array(items) = v {
                    for item in items {
                        if let Bson::Document(sub) = item {
                            top_level_names(sub, out);
                        }
                    }
                }
            }
        } else {
            out.push(k.split('.').next().unwrap_or_default().to_string());
        }
    }
}

fn conflict(path: &str, at: &str) -> Error {
    Error::conflicting_update_operators(format!(
        "Updating the path '{path}' would create a conflict at '{at}'"
    ))
}

/// Split and check a path: no empty components, at most one `$`, not first.
fn check_path(dotted: &str) -> Result<Vec<&str>> {
    if dotted.is_empty() {
        return Err(Error::empty_field_name(
            "An empty update path is not valid.",
        ));
    }
    let parts: Vec<&str> = dotted.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Error::empty_field_name(format!(
            "The update path '{dotted}' contains an empty field name, which is not allowed."
        )));
    }
    let positional: Vec<usize> = parts
        .iter()
        .enumerate()
        .filter(|(_, p)| **p == "$")
        .map(|(i, _)| i)
        .collect();
    if positional.len() > 1 {
        return Err(Error::bad_value(format!(
            "Too many positional (i.e. '$') elements found in path '{dotted}'"
        )));
    }
    if positional.first() == Some(&0) {
        return Err(Error::bad_value(format!(
            "Cannot have positional (i.e. '$') element in the first position in path '{dotted}'"
        )));
    }
    Ok(parts)
}

fn is_dynamic(parts: &[&str]) -> bool {
    parts
        .iter()
        .any(|p| *p == "$" || array_filter_id(p).is_some())
}

struct Builder<'f> {
    root: Node,
    filters: &'f [ArrayFilter],
    used: BTreeSet<String>,
    tree: Tree,
}

pub fn compile_modifiers(
    spec: &Document,
    filters: &[ArrayFilter],
    ctx: &CompileCtx,
) -> Result<Tree> {
    let mut b = Builder {
        root: Node::Obj(ObjNode::default()),
        filters,
        used: BTreeSet::new(),
        tree: Tree {
            root: ObjNode::default(),
            renames: Vec::new(),
            leaves: 0,
            has_array_nodes: false,
            has_positional: false,
            may_deepen: false,
            growth: Some(0),
            touches_id: false,
        },
    };
    for (name, value) in spec {
        let Some(kind) = OpKind::from_name(name) else {
            return Err(Error::failed_to_parse(format!(
                "Unknown modifier: {name}. Expected a valid update modifier or pipeline-style update specified as an array"
            )));
        };
        let Bson::Document(fields) = value else {
            return Err(Error::failed_to_parse(format!(
                "Modifiers operate on fields but we found type {} instead. For example: {{$mod: {{<field>: ...}}}} not {{{}}}",
                type_name(value),
                crate::text::server::elem(name, value)
            )));
        };
        for (path, arg) in fields {
            if kind == OpKind::Rename {
                b.rename(path, arg)?;
            } else {
                let parts = check_path(path)?;
                let op = Op::parse(kind, path, arg, ctx)?;
                b.add(&parts, path, op)?;
            }
        }
    }
    for f in filters {
        if !b.used.contains(&f.id) {
            return Err(Error::failed_to_parse(format!(
                "The array filter for identifier '{}' was not used in the update {}",
                f.id,
                crate::text::server::server_string(&Bson::Document(spec.clone()))
            )));
        }
    }
    let Node::Obj(mut root) = b.root else {
        return Err(Error::internal_error("update tree root is not an object"));
    };
    sort_obj(&mut root);
    let mut tree = b.tree;
    tree.root = root;
    Ok(tree)
}

impl Builder<'_> {
    fn rename(&mut self, from: &str, arg: &Bson) -> Result<()> {
        let from_parts = check_path(from)?;
        self.add(&from_parts, from, Op::RenameFrom)?;
        let Bson::String(to) = arg else {
            return Err(Error::bad_value(format!(
                "The 'to' field for $rename must be a string: {}",
                crate::text::server::elem(from, arg)
            )));
        };
        let to_parts = check_path(to)?;
        let shown = crate::text::server::elem(from, arg);
        if from == to {
            return Err(Error::bad_value(format!(
                "The source and target field for $rename must differ: {shown}"
            )));
        }
        if crate::value::path::paths_overlap(from, to) {
            return Err(Error::bad_value(format!(
                "The source and target field for $rename must not be on the same path: {shown}"
            )));
        }
        if is_dynamic(&from_parts) {
            return Err(Error::bad_value(format!(
                "The source field for $rename may not be dynamic: {from}"
            )));
        }
        if is_dynamic(&to_parts) {
            return Err(Error::bad_value(format!(
                "The destination field for $rename may not be dynamic: {to}"
            )));
        }
        let slot = self.tree.renames.len();
        self.tree.renames.push(Rename {
            from: from_parts.iter().map(|s| s.to_string()).collect(),
            from_dotted: from.to_string(),
            to: to_parts.iter().map(|s| s.to_string()).collect(),
            to_dotted: to.clone(),
        });
        self.add(&to_parts, to, Op::RenameTo { slot })
    }

    fn add(&mut self, parts: &[&str], dotted: &str, op: Op) -> Result<()> {
        // A longer path could only build a document deeper than the limit.
        if parts.len() > crate::value::path::MAX_PATH_PARTS {
            return Err(crate::value::size::depth_error());
        }
        let on_id = parts.first() == Some(&"_id");
        let t = &mut self.tree;
        t.leaves += 1;
        t.touches_id |= on_id;
        t.has_positional |= parts.contains(&"$");
        t.has_array_nodes |= parts.iter().any(|p| array_filter_id(p).is_some());
        match op.nesting_bound() {
            Some(n) if parts.len() + n <= MAX_DEPTH => {}
            _ => t.may_deepen = true,
        }
        t.growth = match (t.growth, growth_bound(&op, parts)) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        let leaf = Leaf { op, on_id };
        let (filters, used) = (self.filters, &mut self.used);
        insert(&mut self.root, parts, 0, dotted, leaf, filters, used)
    }
}

/// Bytes one application of a leaf can add at most (None: unbounded).
fn growth_bound(op: &Op, parts: &[&str]) -> Option<usize> {
    use crate::value::size::value_size;
    let path: usize = parts.iter().map(|p| p.len() + 2 + 5).sum();
    let value = match op {
        Op::Set(v) | Op::SetOnInsert(v) | Op::Min(v) | Op::Max(v) => value_size(v),
        Op::Arith(..) | Op::CurrentDate { .. } | Op::Bit(_) => 16,
        Op::Push(p) => 5 + p.each.iter().map(|v| value_size(v) + 12).sum::<usize>(),
        Op::AddToSet(vals) => 5 + vals.iter().map(|v| value_size(v) + 12).sum::<usize>(),
        Op::Unset | Op::Pop { .. } | Op::Pull(_) | Op::PullAll(_) | Op::RenameFrom => 0,
        Op::RenameTo { .. } => return None,
    };
    Some(path + value + 16)
}

fn classify<'p>(
    part: &'p str,
    i: usize,
    dotted: &str,
    filters: &[ArrayFilter],
    used: &mut BTreeSet<String>,
) -> Result<Key<'p>> {
    if part == "$" {
        return Ok(Key::Positional);
    }
    match array_filter_id(part) {
        None => Ok(Key::Field(part)),
        Some(_) if i == 0 => Err(Error::bad_value(format!(
            "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '{dotted}'"
        ))),
        Some(id) => {
            if !id.is_empty() {
                if !filters.iter().any(|f| f.id == id) {
                    return Err(Error::bad_value(format!(
                        "No array filter found for identifier '{id}' in path '{dotted}'"
                    )));
                }
                used.insert(id.to_string());
            }
            Ok(Key::Filter(id))
        }
    }
}

/// Where a key's child lives in a node, if it exists.
enum Slot {
    Positional,
    At(usize),
}

fn find(node: &Node, key: &Key) -> Option<Slot> {
    match (node, key) {
        (Node::Obj(o), Key::Positional) => o.positional.as_ref().map(|_| Slot::Positional),
        (Node::Obj(o), Key::Field(f)) => o.children.iter().position(|(n, _)| n == f).map(Slot::At),
        (Node::Arr(a), Key::Filter(id)) => {
            a.children.iter().position(|(n, _)| n == id).map(Slot::At)
        }
        _ => None,
    }
}

fn slot_mut<'n>(node: &'n mut Node, slot: &Slot) -> Option<&'n mut Node> {
    match (node, slot) {
        (Node::Obj(o), Slot::Positional) => o.positional.as_deref_mut(),
        (Node::Obj(o), Slot::At(i)) => o.children.get_mut(*i).map(|(_, c)| c),
        (Node::Arr(a), Slot::At(i)) => a.children.get_mut(*i).map(|(_, c)| c),
        _ => None,
    }
}

/// Add a child; returns its slot, or None when the key does not fit the node.
fn add_child(node: &mut Node, key: &Key, child: Node) -> Option<Slot> {
    match (node, key) {
        (Node::Obj(o), Key::Positional) => {
            o.positional = Some(Box::new(child));
            Some(Slot::Positional)
        }
        (Node::Obj(o), Key::Field(f)) => {
            o.children.push((f.to_string(), child));
            Some(Slot::At(o.children.len() - 1))
        }
        (Node::Arr(a), Key::Filter(id)) => {
            a.children.push((id.to_string(), child));
            Some(Slot::At(a.children.len() - 1))
        }
        _ => None,
    }
}

fn insert(
    node: &mut Node,
    parts: &[&str],
    i: usize,
    dotted: &str,
    leaf: Leaf,
    filters: &[ArrayFilter],
    used: &mut BTreeSet<String>,
) -> Result<()> {
    let key = classify(parts[i], i, dotted, filters, used)?;
    let here = || parts[..=i].join(".");
    if i + 1 == parts.len() {
        if find(node, &key).is_some() {
            return Err(conflict(dotted, dotted));
        }
        return match add_child(node, &key, Node::Leaf(leaf)) {
            Some(_) => Ok(()),
            None => Err(conflict(dotted, &here())),
        };
    }
    let want_arr = array_filter_id(parts[i + 1]).is_some();
    let slot = match find(node, &key) {
        Some(slot) => {
            let fits = match slot_mut(node, &slot) {
                Some(Node::Arr(_)) => want_arr,
                Some(Node::Obj(_)) => !want_arr,
                _ => false,
            };
            if !fits {
                return Err(conflict(dotted, &here()));
            }
            slot
        }
        None => {
            let child = if want_arr {
                Node::Arr(ArrNode::default())
            } else {
                Node::Obj(ObjNode::default())
            };
            add_child(node, &key, child).ok_or_else(|| conflict(dotted, &here()))?
        }
    };
    match slot_mut(node, &slot) {
        Some(child) => insert(child, parts, i + 1, dotted, leaf, filters, used),
        None => Err(conflict(dotted, &here())),
    }
}

fn sort_obj(o: &mut ObjNode) {
    crate::sorting::sort_by(&mut o.children, |(a, _), (b, _)| field_order(a, b));
    for (_, c) in &mut o.children {
        sort_node(c);
    }
    if let Some(p) = &mut o.positional {
        sort_node(p);
    }
}

fn sort_node(n: &mut Node) {
    match n {
        Node::Obj(o) => sort_obj(o),
        Node::Arr(a) => {
            crate::sorting::sort_by(&mut a.children, |(x, _), (y, _)| {
                x.as_bytes().cmp(y.as_bytes())
            });
            for (_, c) in &mut a.children {
                sort_node(c);
            }
        }
        Node::Leaf(_) => {}
    }
}
