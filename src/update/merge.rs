//! Merging update subtrees that apply to the same element: the positional
//! `$` child with a child naming the matched index, or several array filters
//! selecting one element. Two leaves on one path conflict.
use super::compile::{ArrNode, Node, ObjNode};
use super::path::field_order;
use crate::error::{Error, Result};

/// Merge two subtrees that apply to the same element (positional `$` with a
/// named child, or several array filters matching one element).
pub fn merge(a: &Node, b: &Node, path: &str) -> Result<Node> {
    let conflict_here =
        || Error::conflicting_update_operators(format!("Update created a conflict at '{path}'"));
    match (a, b) {
        (Node::Obj(x), Node::Obj(y)) => {
            let mut out = ObjNode {
                children: Vec::new(),
                positional: None,
            };
            let mut names: Vec<&String> = x
                .children
                .iter()
                .chain(&y.children)
                .map(|(n, _)| n)
                .collect();
            crate::sorting::sort_by(&mut names, |p, q| field_order(p, q));
            names.dedup();
            for name in names {
                let l = x.children.iter().find(|(n, _)| n == name).map(|(_, c)| c);
                let r = y.children.iter().find(|(n, _)| n == name).map(|(_, c)| c);
                let child = match (l, r) {
                    (Some(l), Some(r)) => merge(l, r, &format!("{path}.{name}"))?,
                    (Some(c), None) | (None, Some(c)) => c.clone(),
                    (None, None) => continue,
                };
                out.children.push((name.clone(), child));
            }
            out.positional = match (&x.positional, &y.positional) {
                (Some(l), Some(r)) => Some(Box::new(merge(l, r, &format!("{path}.$"))?)),
                (Some(c), None) | (None, Some(c)) => Some(c.clone()),
                (None, None) => None,
            };
            Ok(Node::Obj(out))
        }
        (Node::Arr(x), Node::Arr(y)) => {
            let mut out = ArrNode::default();
            let mut ids: Vec<&String> = x
                .children
                .iter()
                .chain(&y.children)
                .map(|(n, _)| n)
                .collect();
            crate::sorting::sort(&mut ids);
            ids.dedup();
            for id in ids {
                let l = x.children.iter().find(|(n, _)| n == id).map(|(_, c)| c);
                let r = y.children.iter().find(|(n, _)| n == id).map(|(_, c)| c);
                let child = match (l, r) {
                    (Some(l), Some(r)) => merge(l, r, &format!("{path}.$[{id}]"))?,
                    (Some(c), None) | (None, Some(c)) => c.clone(),
                    (None, None) => continue,
                };
                out.children.push((id.clone(), child));
            }
            Ok(Node::Arr(out))
        }
        _ => Err(conflict_here()),
    }
}
