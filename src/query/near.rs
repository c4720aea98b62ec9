//! Where a filter's `$near`/`$nearSphere` conditions stand: the server
//! allows one, at the top level or directly under the top-level `$and`
//! (canonical_query.cpp).
use super::matcher::{Node, Pred};
use crate::geo::NearQuery;
use crate::value::path::FieldPath;

/// Every near condition under `node`, with whether it is at the top level.
pub(super) fn collect<'a>(
    node: &'a Node,
    top: bool,
    out: &mut Vec<(&'a FieldPath, &'a NearQuery, bool)>,
) {
    match node {
        Node::And(children) => children.iter().for_each(|c| collect(c, top, out)),
        Node::Or(children) | Node::Nor(children) => {
            children.iter().for_each(|c| collect(c, false, out))
        }
        Node::Not(child) => collect(child, false, out),
        Node::Path { path, pred } => in_pred(path, pred, top, out),
        Node::True | Node::False | Node::Expr(_) | Node::Schema(_) | Node::Text(_) => {}
    }
}

fn in_pred<'a>(
    path: &'a FieldPath,
    pred: &'a Pred,
    top: bool,
    out: &mut Vec<(&'a FieldPath, &'a NearQuery, bool)>,
) {
    match pred {
        Pred::Near(q) => out.push((path, q, top)),
        Pred::ElemMatchObject(node) => collect(node, false, out),
        Pred::ElemMatchValue(preds) | Pred::And(preds) | Pred::Not(preds) => {
            preds.iter().for_each(|p| in_pred(path, p, false, out))
        }
        _ => {}
    }
}
