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
pub mod values;

use crate::aggregate::Pipeline;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use bson::{Bson, Document, Timestamp};
use compile::{ArrayFilter, Tree};
use values::{doc_levels, identical_docs, MAX_DEPTH};

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
                    crate::output::shell::type_name(other)
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
                    return Err(values::depth_error());
                }
                Ok(changed)
            }
            Kind::Replacement(r) => {
                let new = replaced(doc, r, true, scope)?;
                Ok(store(doc, new))
            }
            Kind::Pipeline(p) => {
                let out = p.apply_to(doc, scope)?;
                let new = replaced(doc, &out, false, scope)?;
                Ok(store(doc, new))
            }
        }
    }
}

fn store(doc: &mut Document, new: Document) -> bool {
    let changed = !identical_docs(doc, &new);
    if changed {
        *doc = new;
    }
    changed
}

/// The server refuses `$`-prefixed top-level fields and invalid `_id`s in a replacement.
fn check_replacement(d: &Document) -> Result<()> {
    if let Some(k) = d.keys().find(|k| k.starts_with('$')) {
        return Err(Error::new(
            52,
            "DollarPrefixedFieldName",
            format!("The dollar ($) prefixed field '{k}' in '{k}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."),
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
    Err(Error::new(
        53,
        "InvalidIdField",
        format!("The '_id' value cannot be of type {bad}"),
    ))
}

/// The document a replacement (or a pipeline's output) produces: the
/// original `_id` is kept when the new content has none, and may not change.
fn replaced(
    old: &Document,
    new: &Document,
    fill_timestamps: bool,
    scope: &Scope,
) -> Result<Document> {
    if identical_docs(old, new) {
        return Ok(new.clone());
    }
    check_id(new)?;
    let mut out = Document::new();
    match (old.get("_id"), new.get("_id")) {
        (Some(a), Some(b)) if !crate::value::equal(a, b) => {
            return Err(Error::immutable_field(format!(
                "After applying the update, the (immutable) field '_id' was found to have been altered to {}",
                display::elem("_id", b)
            )))
        }
        (Some(a), None) => {
            out.insert("_id", a.clone());
        }
        _ => {}
    }
    for (k, v) in new {
        // Empty timestamps in a replacement get the current time (not in _id).
        let v = match v {
            Bson::Timestamp(Timestamp {
                time: 0,
                increment: 0,
            }) if fill_timestamps && k != "_id" => {
                let secs = scope.run.now.timestamp_millis().div_euclid(1000);
                Bson::Timestamp(Timestamp {
                    time: u32::try_from(secs).unwrap_or(0),
                    increment: 1,
                })
            }
            other => other.clone(),
        };
        out.insert(k.clone(), v);
    }
    if doc_levels(&out) > MAX_DEPTH {
        return Err(values::depth_error());
    }
    Ok(out)
}
