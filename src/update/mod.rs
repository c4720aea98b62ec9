//! Updates: operator documents (`{$set: ...}`), replacement documents and
//! pipelines, compiled once and applied per document.
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.updateOne/
mod apply;
mod compile;
pub mod display;
mod merge;
mod ops;
mod path;
mod positional;
mod rename;
mod unchanged;
mod undo;

use crate::aggregate::Pipeline;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::value::size::{depth_error, doc_levels, doc_size_and_levels, MAX_DEPTH};
use bson::{Bson, Document, Timestamp};
use compile::{ArrayFilter, Tree};
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub struct Update {
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Modifiers(Box<Tree>, Vec<ArrayFilter>),
    Replacement(Document),
    Pipeline(Pipeline),
}

impl Update {
    /// Compile an update document or pipeline, with optional `arrayFilters`.
    /// A document whose first field starts with `$` is operator-style,
    /// any other document a replacement, an array a pipeline.
    pub fn compile(
        spec: &Bson,
        array_filters: Option<&[Bson]>,
        ctx: &CompileCtx,
    ) -> Result<Update> {
        let kind = match spec {
            Bson::Array(stages) => {
                if array_filters.is_some_and(|f| !f.is_empty()) {
                    return Err(Error::failed_to_parse(
                        "arrayFilters may not be specified for pipeline-style updates",
                    ));
                }
                Kind::Pipeline(Pipeline::compile_update(stages, ctx)?)
            }
            Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => {
                let filters = compile::compile_array_filters(array_filters.unwrap_or(&[]), ctx)?;
                let tree = compile::compile_modifiers(d, &filters, ctx)?;
                Kind::Modifiers(Box::new(tree), filters)
            }
            Bson::Document(d) => {
                check_replacement(d)?;
                Kind::Replacement(d.clone())
            }
            other => {
                return Err(Error::failed_to_parse(format!(
                    "Update argument must be either an object or an array, got {}",
                    crate::text::shell::type_name(other)
                )))
            }
        };
        Ok(Update { kind })
    }

    /// Operator-style (`{$set: ...}`).
    pub fn has_operators(&self) -> bool {
        matches!(self.kind, Kind::Modifiers(..))
    }
    pub fn is_replacement(&self) -> bool {
        matches!(self.kind, Kind::Replacement(_))
    }
    pub fn is_pipeline(&self) -> bool {
        matches!(self.kind, Kind::Pipeline(_))
    }

    /// When one application can safely run on the stored document itself
    /// (one leaf that validates before it writes, no `_id`, no renames or
    /// array filters): an upper bound of the bytes it can add.
    pub fn in_place_growth(&self) -> Option<usize> {
        match &self.kind {
            Kind::Modifiers(t, _)
                if t.leaves == 1
                    && !t.has_array_nodes
                    && t.renames.is_empty()
                    && !t.may_deepen
                    && !t.touches_id =>
            {
                t.growth
            }
            _ => None,
        }
    }

    /// Whether an application may reach `_id` (it then fails unless it
    /// leaves `_id` as it was) or move values by renaming.
    pub fn may_touch_id(&self) -> bool {
        match &self.kind {
            Kind::Modifiers(t, _) => t.touches_id || !t.renames.is_empty(),
            _ => true,
        }
    }

    /// Apply an operator update to a stored document, all or nothing: when
    /// it fails midway, or `check` refuses the result, the document is left
    /// as it was. Only the top-level fields the update can reach are saved
    /// first (see `undo`), not the whole document; updates with renames are
    /// applied to a copy.
    pub fn apply_stored(
        &self,
        doc: &mut Document,
        position: Option<usize>,
        scope: &Scope,
        check: impl FnOnce(&Document) -> Result<()>,
    ) -> Result<bool> {
        let tree = match &self.kind {
            Kind::Modifiers(tree, _) if undo::can_undo(tree) => tree,
            _ => {
                let mut new = doc.clone();
                let changed = self.apply(&mut new, position, false, scope)?;
                if changed {
                    check(&new)?;
                    *doc = new;
                }
                return Ok(changed);
            }
        };
        let saved = undo::save(tree, doc);
        let r = self.apply(doc, position, false, scope).and_then(|changed| {
            if changed {
                check(doc)?;
            }
            Ok(changed)
        });
        if r.is_err() {
            undo::restore(saved, doc);
        }
        r
    }

    /// Apply to a document in place; returns whether it changed. `position` is
    /// the filter's positional match; `inserting` is true for an upsert's insert.
    pub fn apply(
        &self,
        doc: &mut Document,
        position: Option<usize>,
        inserting: bool,
        scope: &Scope,
    ) -> Result<bool> {
        match &self.kind {
            Kind::Modifiers(tree, filters) => {
                let mut ctx = ops::Ctx {
                    position,
                    inserting,
                    scope,
                    filters,
                    renamed: Vec::new(),
                };
                let changed =
                    apply::apply_tree(tree, doc, &mut ctx).map_err(|e| apply::fill_id(e, doc))?;
                if tree.may_deepen && doc_levels(doc) > MAX_DEPTH {
                    return Err(depth_error());
                }
                Ok(changed)
            }
            Kind::Replacement(_) | Kind::Pipeline(_) => match self.computed(doc, scope)? {
                Some((new, _)) => {
                    *doc = new;
                    Ok(true)
                }
                None => Ok(false),
            },
        }
    }

    /// A replacement's or a pipeline's new document and its BSON size,
    /// computed from the stored one without changing it (so a failure leaves
    /// nothing to undo and no copy is needed first); `None` when nothing
    /// would change, and always `None` for operator updates (see [`Update::apply`]).
    pub fn computed(&self, doc: &Document, scope: &Scope) -> Result<Option<(Document, usize)>> {
        match &self.kind {
            Kind::Modifiers(..) => Ok(None),
            Kind::Replacement(r) => replaced(doc, Cow::Borrowed(r), true, scope),
            Kind::Pipeline(p) => {
                let out = p.apply_to(doc, scope)?;
                replaced(doc, Cow::Owned(out), false, scope)
            }
        }
    }
}

/// The server refuses `$`-prefixed top-level fields and invalid `_id`s in a replacement.
fn check_replacement(d: &Document) -> Result<()> {
    if let Some(k) = d.keys().find(|k| k.starts_with('$')) {
        return Err(Error::dollar_prefixed_field_name(format!("The dollar ($) prefixed field '{k}' in '{k}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."),
        ));
    }
    check_id(d)
}

fn check_id(d: &Document) -> Result<()> {
    let bad = match d.get("_id") {
        Some(Bson::Array(_)) => "array",
        Some(Bson::RegularExpression(_)) => "regex",
        Some(Bson::Undefined) => "undefined",
        _ => return Ok(()),
    };
    Err(Error::invalid_id_field(format!(
        "The '_id' value cannot be of type {bad}"
    )))
}

/// The document a replacement (or a pipeline's output) produces: the
/// original `_id` is kept when the new content has none, and may not change;
/// `_id` comes first (the server's `_ensureIdFieldIsFirst`); with its BSON
/// size, measured in the walk that checks its depth. `None` only when
/// the new content is byte for byte the old document (the server's
/// ObjectReplaceExecutor compares the two before adding `_id`: replacing
/// `{_id: 1, a: 1}` with `{a: 1}` counts as modified).
fn replaced(
    old: &Document,
    new: Cow<Document>,
    fill_timestamps: bool,
    scope: &Scope,
) -> Result<Option<(Document, usize)>> {
    if unchanged::unchanged(old, &new) {
        return Ok(None);
    }
    check_id(&new)?;
    let mut out = Document::new();
    match (old.get("_id"), new.get("_id")) {
        (Some(a), Some(b)) if !crate::value::equal(a, b) => {
            return Err(Error::immutable_field(format!(
                "After applying the update, the (immutable) field '_id' was found to have been altered to {}",
                crate::text::server::elem("_id", b)
            )))
        }
        (Some(a), None) => {
            out.insert("_id", a.clone());
        }
        _ => {}
    }
    // Empty timestamps in a replacement get the current time (not in _id).
    let fill = |k: &str, v: &Bson| {
        fill_timestamps
            && k != "_id"
            && matches!(
                v,
                Bson::Timestamp(Timestamp {
                    time: 0,
                    increment: 0,
                })
            )
    };
    let now = || {
        let secs = scope.run.now.timestamp_millis().div_euclid(1000);
        Bson::Timestamp(Timestamp {
            time: u32::try_from(secs).unwrap_or(0),
            increment: 1,
        })
    };
    match new {
        Cow::Borrowed(new) => {
            for (k, v) in new {
                let v = if fill(k, v) { now() } else { v.clone() };
                out.insert(k.clone(), v);
            }
        }
        Cow::Owned(new) if out.is_empty() && !fill_timestamps => out = new,
        Cow::Owned(new) => {
            for (k, v) in new {
                let v = if fill(&k, &v) { now() } else { v };
                out.insert(k, v);
            }
        }
    }
    let (size, levels) = doc_size_and_levels(&out);
    if levels > MAX_DEPTH {
        return Err(depth_error());
    }
    Ok(Some((crate::query::upsert::id_first(out), size)))
}
