//! `$unwind` directly followed by `$group`, run without building the unwound
//! documents: each element is a "view" of its document (the unwound path
//! reads the element, every other path the original document). Used when
//! the group key and accumulator arguments are plain paths or constants —
//! the common "explode an array and total it" pipeline.
use super::group::{Group, GroupKey};
use super::unwind::Unwind;
use crate::aggregate::accumulators::State;
use crate::aggregate::key::KeyMap;
use crate::aggregate::operand::Operand;
use crate::aggregate::path::{get_in, FieldPath};
use crate::error::Result;
use crate::expr::Scope;
use bson::{Bson, Document};
use std::borrow::Cow;

/// What the unwound path holds in one output document.
enum Elem<'a> {
    Value(&'a Bson),
    /// The document goes through unchanged (non-array value, or null/missing preserved).
    Original,
    /// An empty array preserved: the field is removed.
    Removed,
}

/// A path operand is safe unless it names a strict prefix of the unwound path
/// (it would need the rebuilt sub-document).
fn path_ok(op: &Operand, u: &FieldPath) -> bool {
    match op {
        Operand::Const(_) => true,
        Operand::Path(p) => !(p.len() < u.len() && u.parts().starts_with(p.parts())),
        Operand::Expr(_) => false,
    }
}

pub fn fusable(unwind: &Unwind, group: &Group) -> bool {
    if unwind.index.is_some() {
        return false;
    }
    let u = &unwind.path;
    let key_ok = match &group.key {
        GroupKey::One(op) => path_ok(op, u),
        GroupKey::Fields(fields) => fields.iter().all(|(_, op)| path_ok(op, u)),
    };
    key_ok
        && group
            .outputs
            .fields
            .iter()
            .all(|(_, acc)| acc.takes_values() && !acc.needs_key() && path_ok(acc.input(), u))
}

fn eval<'a>(
    op: &'a Operand,
    doc: &'a Document,
    u: &FieldPath,
    elem: &Elem<'a>,
) -> Option<Cow<'a, Bson>> {
    match op {
        Operand::Const(v) => Some(Cow::Borrowed(v)),
        Operand::Path(p) if p.parts().starts_with(u.parts()) => match elem {
            Elem::Value(e) => get_in(e, &p.parts()[u.len()..]),
            Elem::Original => p.get(doc),
            Elem::Removed => None,
        },
        Operand::Path(p) => p.get(doc),
        Operand::Expr(_) => None,
    }
}

pub fn run<'a, I>(unwind: &Unwind, group: &Group, docs: I, scope: &Scope) -> Result<Vec<Document>>
where
    I: IntoIterator<Item = &'a Document>,
{
    let u = &unwind.path;
    let mut groups: KeyMap<Vec<State>> = KeyMap::new();
    let mut add = |doc: &Document, elem: Elem| -> Result<()> {
        let key: Cow<Bson> = match &group.key {
            GroupKey::One(op) => eval(op, doc, u, &elem).unwrap_or(Cow::Owned(Bson::Null)),
            GroupKey::Fields(fields) => {
                let mut d = Document::new();
                for (k, op) in fields {
                    if let Some(v) = eval(op, doc, u, &elem) {
                        d.insert(k.clone(), v.into_owned());
                    }
                }
                Cow::Owned(Bson::Document(super::group::fields_key(fields, d)))
            }
        };
        let i = groups.try_position_or_insert(&key, || group.outputs.start(&key, scope))?;
        if let Some(states) = groups.value_at_mut(i) {
            for ((_, acc), state) in group.outputs.fields.iter().zip(states.iter_mut()) {
                let v = eval(acc.input(), doc, u, &elem);
                acc.add_value(state, v.as_deref())?;
            }
        }
        Ok(())
    };
    for doc in docs {
        match u.get_plain(doc) {
            Some(Bson::Array(items)) if !items.is_empty() => {
                for item in items {
                    add(doc, Elem::Value(item))?;
                }
            }
            Some(Bson::Array(_)) => {
                if unwind.preserve {
                    add(doc, Elem::Removed)?;
                }
            }
            None | Some(Bson::Null) | Some(Bson::Undefined) => {
                if unwind.preserve {
                    add(doc, Elem::Original)?;
                }
            }
            Some(_) => add(doc, Elem::Original)?,
        }
    }
    Ok(groups
        .into_entries()
        .into_iter()
        .map(|(key, states)| {
            let mut out = Document::new();
            out.insert("_id", key);
            group.outputs.finish(&states, &mut out);
            out
        })
        .collect())
}
