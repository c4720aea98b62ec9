//! The compiled filter tree and its evaluation. Operators are resolved at
//! compile time (`filter.rs`); evaluation borrows the document and never
//! looks at operator names.
//!
//! Two levels, as in the server: a [`Node`] matches a whole document (paths,
//! `$and`/`$or`/`$nor`, a path-level `$not`, `$expr`); a [`Pred`] tests one value
//! the path produced (MongoDB's `matchesSingleElement`). A path matches when any
//! of its values satisfies the predicate.
use super::ops::array::{elem_match_object, elem_match_value};
use super::ops::bitwise::Bits;
use super::ops::comparison::{Cmp, InSet};
use super::ops::element::TypeSet;
use super::ops::evaluation::{Modulo, RegexPred};
use super::ops::json_schema::Schema;
use crate::error::Result;
use crate::expr::truthy;
use crate::expr::{Expr, Scope};
use crate::value::path::{FieldPath, LeafArrays, Part};
use bson::{Bson, Document};

#[derive(Clone, Debug)]
pub(crate) enum Node {
    True,
    False,
    And(Vec<Node>),
    Or(Vec<Node>),
    Nor(Vec<Node>),
    Not(Box<Node>),
    Path { path: FieldPath, pred: Pred },
    Expr(Box<Expr>),
    Schema(Box<Schema>),
    Text(Box<super::text::TextNode>),
}

/// A test of one value (`None` = the path is missing there).
#[derive(Clone, Debug)]
pub(crate) enum Pred {
    Cmp(Cmp),
    In(InSet),
    Regex(Box<RegexPred>),
    Exists,
    Type(TypeSet),
    Mod(Modulo),
    Bits(Bits),
    Size(usize),
    /// `$elemMatch` with a query on the elements' fields.
    ElemMatchObject(Box<Node>),
    /// `$elemMatch` with operators on the elements themselves.
    ElemMatchValue(Vec<Pred>),
    /// All must hold (`$all`; several operators inside `$elemMatch`).
    And(Vec<Pred>),
    /// Not all hold (`$ne`, `$nin`, `$not` inside `$elemMatch`).
    Not(Vec<Pred>),
    /// Never holds (`$all: []`).
    Never,
    /// `$geoWithin`/`$geoIntersects`.
    Geo(Box<crate::geo::GeoMatch>),
    /// `$near`/`$nearSphere`: holds for every value, as in the server; the
    /// find that runs it filters and orders by distance.
    Near(Box<crate::geo::NearQuery>),
}

/// What a match is evaluated against: a document, or (inside `$elemMatch`)
/// any array element, where an array is a document with fields "0", "1"...
#[derive(Clone, Copy)]
pub(crate) enum Root<'a> {
    Doc(&'a Document),
    Value(&'a Bson),
}

impl Node {
    /// Build the document-level node for a predicate on a path.
    pub(crate) fn on_path(path: &FieldPath, pred: Pred) -> Node {
        match pred {
            Pred::Never => Node::False,
            Pred::And(preds) => and(preds.into_iter().map(|p| Node::on_path(path, p)).collect()),
            // A path-level negation negates the whole path match: `{a: {$ne: 5}}`
            // does not match `{a: [5, 6]}`.
            Pred::Not(preds) => Node::Not(Box::new(and(preds
                .into_iter()
                .map(|p| Node::on_path(path, p))
                .collect()))),
            pred => Node::Path {
                path: path.clone(),
                pred,
            },
        }
    }

    /// Does the document match? `scope` is `None` inside `$elemMatch` (where
    /// `$expr` cannot appear). `pos` receives the array position the positional
    /// `$` operator uses, when the match went through an array.
    pub(crate) fn matches(
        &self,
        root: Root<'_>,
        scope: Option<&Scope>,
        pos: &mut Option<usize>,
    ) -> Result<bool> {
        Ok(match self {
            Node::True => true,
            Node::False => false,
            Node::And(children) => {
                // The server sorts an `$and`'s children by (match type, path)
                // and the last child to record an array position wins: the
                // manual's "update with multiple array matches" example.
                let mut winner: Option<&Node> = None;
                for c in children {
                    let mut at = None;
                    if !c.matches(root, scope, &mut at)? {
                        return Ok(false);
                    }
                    if at.is_some() && winner.is_none_or(|w| w.canonical_key() <= c.canonical_key())
                    {
                        winner = Some(c);
                        *pos = at;
                    }
                }
                true
            }
            // The server records no position through $or/$nor/$not.
            Node::Or(children) => {
                for c in children {
                    if c.matches(root, scope, &mut None)? {
                        return Ok(true);
                    }
                }
                false
            }
            Node::Nor(children) => {
                for c in children {
                    if c.matches(root, scope, &mut None)? {
                        return Ok(false);
                    }
                }
                true
            }
            Node::Not(child) => !child.matches(root, scope, &mut None)?,
            Node::Path { path, pred } => {
                // The common shapes (`a`; `a.b` through a sub-document or an
                // array of sub-documents) without the general traversal's callbacks.
                if let Root::Doc(d) = root {
                    if let Some(ok) = match_short_path(pred, path.parts(), d, pos) {
                        return Ok(ok);
                    }
                }
                match_visiting(path, pred, root, pos)
            }
            // `$expr` is compiled only at the top level, where a scope is given.
            Node::Expr(expr) => match (root, scope) {
                (Root::Doc(d), Some(scope)) => truthy(expr.evaluate(d, scope)?.as_ref()),
                _ => false,
            },
            Node::Schema(schema) => match root {
                Root::Doc(d) => schema.matches_doc(d),
                Root::Value(_) => false,
            },
            Node::Text(text) => match root {
                Root::Doc(d) => text.matches(d)?,
                Root::Value(_) => false,
            },
        })
    }
}

/// `pred` on every value [`FieldPath::visit`] yields for `path` in `root`.
fn match_visiting(path: &FieldPath, pred: &Pred, root: Root<'_>, pos: &mut Option<usize>) -> bool {
    let mut found: Option<Option<usize>> = None;
    let mut visit = |v: Option<&Bson>, offset: Option<usize>| {
        let mut inner = None;
        if pred.matches(v, &mut inner) {
            found = Some(offset.or(inner));
            true
        } else {
            false
        }
    };
    let leaf = pred.leaf_arrays();
    match root {
        Root::Doc(d) => path.visit(d, leaf, &mut visit),
        Root::Value(v) => path.visit_value(v, leaf, &mut visit),
    };
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

/// `pred` on a path of one or two components in `d`, reproducing what
/// [`FieldPath::visit`] yields there, values and positions; `None` leaves the
/// other shapes to it: longer paths, and an array at `first` with a numeric
/// `second` (which also selects an element). A missing or scalar `first`
/// yields missing, a sub-document its field; an array the field of each
/// sub-document element, with that element's index (other elements yield
/// nothing).
#[inline(always)]
fn match_short_path(
    pred: &Pred,
    parts: &[Part],
    d: &Document,
    pos: &mut Option<usize>,
) -> Option<bool> {
    let v = match parts {
        [part] => part.field_in(d),
        [first, second] => match first.field_in(d) {
            Some(Bson::Document(sub)) => second.field_in(sub),
            Some(Bson::Array(items)) if second.index.is_none() => {
                return Some(match_elements_field(pred, items, second, pos));
            }
            Some(Bson::Array(_)) => return None,
            _ => None,
        },
        _ => return None,
    };
    let mut at = None;
    let ok = match v {
        Some(whole @ Bson::Array(items)) if pred.leaf_arrays() == LeafArrays::Traverse => {
            match_leaf_array(pred, items, whole, &mut at)
        }
        _ => pred.matches(v, &mut at),
    };
    if ok && at.is_some() {
        *pos = at;
    }
    Some(ok)
}

/// `pred` on field `name` of each sub-document in `items`; a match records
/// the element's index.
#[inline(always)]
fn match_elements_field(pred: &Pred, items: &[Bson], name: &Part, pos: &mut Option<usize>) -> bool {
    for (i, e) in items.iter().enumerate() {
        let Bson::Document(sub) = e else {
            continue;
        };
        let v = name.field_in(sub);
        let ok = match v {
            Some(whole @ Bson::Array(leaf)) if pred.leaf_arrays() == LeafArrays::Traverse => {
                match_leaf_array(pred, leaf, whole, &mut None)
            }
            _ => pred.matches(v, &mut None),
        };
        if ok {
            *pos = Some(i);
            return true;
        }
    }
    false
}

/// `pred` on an array that ends a path: each element (a match records its
/// index), then the array itself (`whole`).
#[inline(never)]
fn match_leaf_array(pred: &Pred, items: &[Bson], whole: &Bson, at: &mut Option<usize>) -> bool {
    for i in 0..=items.len() {
        let v = items.get(i).unwrap_or(whole);
        let mut inner = None;
        if pred.matches(Some(v), &mut inner) {
            *at = if i < items.len() { Some(i) } else { inner };
            return true;
        }
    }
    false
}

/// One child stays itself; several become `$and`. Nested `$and`s are
/// flattened in order, as the server's optimizer does, so every child takes
/// part in the positional ordering above.
pub(crate) fn and(children: Vec<Node>) -> Node {
    let mut flat = Vec::with_capacity(children.len());
    for c in children {
        match c {
            Node::And(inner) => flat.extend(inner),
            other => flat.push(other),
        }
    }
    if flat.len() == 1 {
        flat.pop().unwrap_or(Node::True)
    } else {
        Node::And(flat)
    }
}

/// The server's `MatchExpression::MatchType` order
/// (src/mongo/db/matcher/expression.h), by which `sortTree` orders an `$and`.
pub(crate) mod match_type {
    pub const AND: u8 = 0;
    pub const OR: u8 = 1;
    pub const ELEM_MATCH_OBJECT: u8 = 2;
    pub const ELEM_MATCH_VALUE: u8 = 3;
    pub const SIZE: u8 = 4;
    pub const EQ: u8 = 5;
    pub const LTE: u8 = 6;
    pub const LT: u8 = 7;
    pub const GT: u8 = 8;
    pub const GTE: u8 = 9;
    pub const REGEX: u8 = 10;
    pub const MOD: u8 = 11;
    pub const EXISTS: u8 = 12;
    pub const MATCH_IN: u8 = 13;
    pub const BITS_ALL_SET: u8 = 14;
    pub const BITS_ALL_CLEAR: u8 = 15;
    pub const BITS_ANY_SET: u8 = 16;
    pub const BITS_ANY_CLEAR: u8 = 17;
    pub const GEO_NEAR: u8 = 18;
    pub const NOT: u8 = 19;
    pub const NOR: u8 = 20;
    pub const TYPE_OPERATOR: u8 = 21;
    pub const GEO: u8 = 22;
    pub const TEXT: u8 = 23;
    pub const EXPRESSION: u8 = 24;
    pub const ALWAYS_FALSE: u8 = 25;
    pub const ALWAYS_TRUE: u8 = 26;
    /// `$jsonSchema` compiles to internal expressions, after all of these.
    pub const INTERNAL_SCHEMA: u8 = 27;
}

impl Node {
    /// (match type, path): the key `matchExpressionComparator` sorts an
    /// `$and`'s children by. Only children that record an array position are
    /// ever compared, so deeper tie-breaks do not matter.
    fn canonical_key(&self) -> (u8, &str) {
        use match_type::*;
        match self {
            Node::True => (ALWAYS_TRUE, ""),
            Node::False => (ALWAYS_FALSE, ""),
            Node::And(_) => (AND, ""),
            Node::Or(_) => (OR, ""),
            Node::Nor(_) => (NOR, ""),
            Node::Not(_) => (NOT, ""),
            Node::Path { path, pred } => (pred.match_type(), path.dotted()),
            Node::Expr(_) => (EXPRESSION, ""),
            Node::Schema(_) => (INTERNAL_SCHEMA, ""),
            Node::Text(_) => (TEXT, ""),
        }
    }
}

impl Pred {
    /// The server's match type of this predicate once optimized (a one-value
    /// `$in` is an equality, a one-regex `$in` a regex).
    fn match_type(&self) -> u8 {
        use match_type::*;
        match self {
            Pred::Cmp(c) => c.match_type(),
            Pred::In(set) => set.match_type(),
            Pred::Regex(_) => REGEX,
            Pred::Exists => EXISTS,
            Pred::Type(_) => TYPE_OPERATOR,
            Pred::Mod(_) => MOD,
            Pred::Bits(b) => b.match_type(),
            Pred::Size(_) => SIZE,
            Pred::ElemMatchObject(_) => ELEM_MATCH_OBJECT,
            Pred::ElemMatchValue(_) => ELEM_MATCH_VALUE,
            Pred::And(_) => AND,
            Pred::Not(_) => NOT,
            Pred::Never => ALWAYS_FALSE,
            Pred::Geo(_) => GEO,
            Pred::Near(_) => GEO_NEAR,
        }
    }

    /// How an array at the end of the path is presented to this predicate.
    fn leaf_arrays(&self) -> LeafArrays {
        match self {
            Pred::Size(_) | Pred::ElemMatchObject(_) | Pred::ElemMatchValue(_) => {
                LeafArrays::NoTraversal
            }
            _ => LeafArrays::Traverse,
        }
    }

    /// Test one value; `pos` receives the element index `$elemMatch` matched.
    /// Inlined: it is on every scan's per-document path, and the page's wasm
    /// (built for size) would otherwise call it.
    #[inline(always)]
    pub(crate) fn matches(&self, v: Option<&Bson>, pos: &mut Option<usize>) -> bool {
        match self {
            Pred::Cmp(c) => c.matches(v),
            Pred::In(set) => set.matches(v),
            Pred::Regex(r) => v.is_some_and(|v| r.matches(v)),
            Pred::Exists => v.is_some(),
            Pred::Type(t) => v.is_some_and(|v| t.matches(v)),
            Pred::Mod(m) => v.is_some_and(|v| m.matches(v)),
            Pred::Bits(b) => v.is_some_and(|v| b.matches(v)),
            Pred::Size(n) => matches!(v, Some(Bson::Array(a)) if a.len() == *n),
            Pred::ElemMatchObject(node) => elem_match_object(node, v, pos),
            Pred::ElemMatchValue(preds) => elem_match_value(preds, v, pos),
            Pred::And(preds) => preds.iter().all(|p| p.matches(v, pos)),
            Pred::Not(preds) => !preds.iter().all(|p| p.matches(v, &mut None)),
            Pred::Never => false,
            Pred::Geo(g) => v.is_some_and(|v| g.matches(v)),
            Pred::Near(_) => true,
        }
    }
}

#[cfg(test)]
#[path = "matcher_paths_tests.rs"]
mod paths_tests;
