//! Applying an operator update to the stored document itself, all or
//! nothing, without copying the document first: the top-level fields the
//! update can reach are saved (not the whole document) and put back when it
//! fails midway, as the server never stores half an update.
use super::compile::{Node, Tree};
use super::ops::Op;
use crate::value::path::field;
use bson::{Bson, Document};

/// The top-level fields an update can change, as they were.
pub struct Saved<'t> {
    /// Name, value before (`None`: absent), and position when an `$unset`
    /// may remove the field (so it can be put back where it was).
    fields: Vec<(&'t str, Option<Bson>, Option<usize>)>,
}

/// Whether [`save`] covers everything the tree can change: renames move
/// values between fields outside the walk, and a top-level positional is
/// resolved at run time.
pub fn can_undo(tree: &Tree) -> bool {
    tree.renames.is_empty() && tree.root.positional.is_none()
}

pub fn save<'t>(tree: &'t Tree, doc: &Document) -> Saved<'t> {
    let fields = tree
        .root
        .children
        .iter()
        .map(|(name, child)| {
            let removes = matches!(child, Node::Leaf(l) if matches!(l.op, Op::Unset));
            let pos = if removes {
                doc.keys().position(|k| k == name)
            } else {
                None
            };
            (name.as_str(), field(doc, name).cloned(), pos)
        })
        .collect();
    Saved { fields }
}

/// Put the saved fields back: values in place, added fields removed (they
/// were appended, so the others keep their order), removed ones reinserted
/// at their old positions.
pub fn restore(saved: Saved, doc: &mut Document) {
    let mut reinsert = Vec::new();
    for (name, old, pos) in saved.fields {
        match old {
            None => {
                doc.remove(name);
            }
            Some(v) => match doc.get_mut(name) {
                Some(slot) => *slot = v,
                None => reinsert.push((pos.unwrap_or(usize::MAX), name, v)),
            },
        }
    }
    if reinsert.is_empty() {
        return;
    }
    // Ascending old positions: every earlier field is back when one is inserted.
    crate::sorting::sort_by_key(&mut reinsert, |r| r.0);
    let mut entries: Vec<(String, Bson)> = std::mem::take(doc).into_iter().collect();
    for (pos, name, v) in reinsert {
        let at = pos.min(entries.len());
        entries.insert(at, (name.to_string(), v));
    }
    *doc = entries.into_iter().collect();
}
