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
use crate::value::path::{FieldPath, LeafArrays};
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
                for c in children {
                    if !c.matches(root, scope, pos)? {
                        return Ok(false);
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
                // Fast path: a top-level field holding no array (the common case).
                if let (Root::Doc(d), Some(name)) = (root, path.single()) {
                    let v = crate::value::path::field(d, name);
                    if !matches!(v, Some(Bson::Array(_))) {
                        let mut inner = None;
                        let ok = pred.matches(v, &mut inner);
                        if ok && inner.is_some() {
                            *pos = inner;
                        }
                        return Ok(ok);
                    }
                }
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
            // `$expr` is compiled only at the top level, where a scope is given.
            Node::Expr(expr) => match (root, scope) {
                (Root::Doc(d), Some(scope)) => truthy(expr.evaluate(d, scope)?.as_ref()),
                _ => false,
            },
            Node::Schema(schema) => match root {
                Root::Doc(d) => schema.matches_doc(d),
                Root::Value(_) => false,
            },
        })
    }
}

/// One child stays itself; several become `$and`.
pub(crate) fn and(mut children: Vec<Node>) -> Node {
    if children.len() == 1 {
        children.pop().unwrap_or(Node::True)
    } else {
        Node::And(children)
    }
}

impl Pred {
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
        }
    }
}
