//! `$reduce` whose `in` appends to `$$value` (`{$concatArrays: ["$$value",
//! ...]}`, the usual way to build or flatten an array): the array is grown
//! in place. Evaluated as written, each step would copy `$$value` into the
//! new array and check the whole of it for depth, so building `n` elements
//! cost `n²`. Only the appended elements are new, so only they are checked.
use super::array::{append_arrays, not_an_array};
use crate::error::Result;
use crate::expr::eval::{Cx, Node, VarRef};
use crate::expr::value::{nullish, Value};
use bson::Bson;

/// The arguments after `$$value` when `body` is `$concatArrays` with
/// `$$value` (slot `value`) first and nowhere else; `None` otherwise (a
/// part that may read it, such as an operator with its own variables, is
/// not looked into).
pub(super) fn appended(body: &Node, value: usize) -> Option<Vec<Node>> {
    let Node::Call("$concatArrays", _, args) = body else {
        return None;
    };
    let (first, rest) = args.split_first()?;
    let reads_value =
        matches!(first, Node::Var(VarRef::Local(slot), p) if *slot == value && p.is_empty());
    (reads_value && rest.iter().all(|n| reads_not(n, value))).then(|| rest.to_vec())
}

/// Whether `node` surely does not read local `slot`.
fn reads_not(node: &Node, slot: usize) -> bool {
    match node {
        Node::Const(_) | Node::Missing => true,
        Node::Var(VarRef::Local(s), _) => *s != slot,
        Node::Var(..) => true,
        Node::Object(fields) => fields.iter().all(|(_, n)| reads_not(n, slot)),
        Node::Array(items) | Node::Call(_, _, items) => items.iter().all(|n| reads_not(n, slot)),
        Node::Special(_) => false,
    }
}

/// One step: `acc` (`$$value`) with the arrays `rest` evaluates to appended,
/// as `$concatArrays` answers; `checked`: how many of its elements are known
/// to be shallow enough, updated. `Ok(false)`: an element is too deep.
pub(super) fn step(
    acc: &mut Value,
    rest: &[Node],
    checked: &mut usize,
    too_deep: fn(&Bson) -> bool,
    cx: &mut Cx,
) -> Result<bool> {
    let Some(Bson::Array(items)) = acc else {
        if nullish(acc) {
            *acc = Some(Bson::Null);
            return Ok(true);
        }
        return Err(not_an_array(acc));
    };
    if !append_arrays(items, rest, cx)? {
        *acc = Some(Bson::Null);
        *checked = 0;
        return Ok(true);
    }
    crate::budget::check()?;
    let deep = items
        .get(*checked..)
        .unwrap_or_default()
        .iter()
        .any(too_deep);
    *checked = items.len();
    Ok(!deep)
}
