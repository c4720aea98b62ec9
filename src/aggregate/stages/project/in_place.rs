//! Projections applied without copying what they leave alone: a document
//! the pipeline owns is changed in place, a borrowed one stays borrowed when
//! `$addFields` sets fields to their own values, and consecutive stages take
//! each document through all of them in turn.
use super::apply::copy_unreplaced;
use super::{Mode, Node, Projection, Tree};
use crate::error::Result;
use crate::expr::Scope;
use bson::{Bson, Document};
use std::borrow::Cow;

impl Projection {
    /// Project a document the pipeline owns or borrows: an owned one as
    /// [`Projection::apply_owned`]; a borrowed one stays borrowed when
    /// `$addFields` sets its top-level fields to their own values
    /// (`{$set: {a: {$ifNull: ["$a", []]}}}` where `a` is set), else is
    /// projected into a new document.
    pub fn apply_cow<'d>(
        &self,
        doc: Cow<'d, Document>,
        scope: &Scope,
    ) -> Result<Cow<'d, Document>> {
        match doc {
            Cow::Owned(d) => Ok(Cow::Owned(self.apply_owned(d, scope)?)),
            Cow::Borrowed(d) => self.apply_borrowed(d, scope, &[]),
        }
    }

    /// Consecutive projection stages over one document, in turn. A borrowed
    /// document that `$addFields` must copy, followed by an `$unset` of
    /// top-level fields, is copied without them (the dashboard's
    /// `$set: {count: ...}` then `$unset: "totals"` copies no `totals`).
    pub fn apply_chain<'d>(
        chain: &[&Projection],
        mut doc: Cow<'d, Document>,
        scope: &Scope,
    ) -> Result<Cow<'d, Document>> {
        let mut i = 0;
        while let Some(p) = chain.get(i) {
            i += 1;
            let removed = chain.get(i).and_then(|next| next.removed_top_level());
            doc = match (doc, removed) {
                (Cow::Borrowed(d), Some(removed)) if p.mode == Mode::AddFields => {
                    i += 1;
                    p.apply_borrowed(d, scope, &removed)?
                }
                (doc, _) => p.apply_cow(doc, scope)?,
            };
        }
        Ok(doc)
    }

    /// The top-level fields this stage removes, when that is all it does
    /// (`$unset: "a"`, `$project: {a: 0}`).
    fn removed_top_level(&self) -> Option<Vec<&str>> {
        if self.mode != Mode::Exclusion {
            return None;
        }
        let mut out = Vec::new();
        for (k, n) in &self.tree.fields {
            match n {
                Node::Exclude => out.push(k.as_str()),
                Node::Include => {}
                _ => return None,
            }
        }
        Some(out)
    }

    /// [`Projection::apply_cow`] of a borrowed document, then the removal of
    /// the top-level fields `removed` (none: this stage alone).
    fn apply_borrowed<'d>(
        &self,
        doc: &'d Document,
        scope: &Scope,
        removed: &[&str],
    ) -> Result<Cow<'d, Document>> {
        if self.mode != Mode::AddFields || !self.tree.top_level_computed() {
            let mut out = self.apply(doc, scope)?;
            for k in removed {
                out.remove(*k);
            }
            return Ok(Cow::Owned(out));
        }
        let values = self.written(doc, scope)?;
        if values.iter().all(|v| matches!(v, Written::Same)) && removed.is_empty() {
            return Ok(Cow::Borrowed(doc));
        }
        // As `apply`: the fields the stage replaces hold their place.
        let mut out = copy_unreplaced(&self.tree, doc, removed);
        for ((k, _), v) in self.tree.fields.iter().zip(values) {
            match v {
                Written::Same => {
                    if let (Some(slot), Some(old)) = (out.get_mut(k), doc.get(k)) {
                        *slot = old.clone();
                    }
                }
                Written::Set(v) => match out.get_mut(k) {
                    Some(slot) => *slot = v,
                    None => {
                        out.insert(k.clone(), v);
                    }
                },
                Written::Removed => {
                    out.remove(k);
                }
            }
        }
        for k in removed {
            out.remove(*k);
        }
        Ok(Cow::Owned(out))
    }

    /// Project a document the pipeline owns: `$addFields` of top-level fields
    /// and the exclusion of top-level fields change it in place (the fields
    /// the stage leaves alone are not copied); any other shape as [`apply`].
    ///
    /// [`apply`]: Projection::apply
    pub fn apply_owned(&self, mut doc: Document, scope: &Scope) -> Result<Document> {
        match self.mode {
            Mode::AddFields if self.tree.top_level_computed() => {
                // Every value reads the input as it was, as `apply` does.
                let values = self.written(&doc, scope)?;
                for ((k, _), v) in self.tree.fields.iter().zip(values) {
                    match v {
                        Written::Same => {}
                        Written::Set(v) => match doc.get_mut(k) {
                            // In place: no new key, the field keeps its position.
                            Some(slot) => *slot = v,
                            None => {
                                doc.insert(k.clone(), v);
                            }
                        },
                        Written::Removed => {
                            doc.remove(k);
                        }
                    }
                }
                Ok(doc)
            }
            Mode::Exclusion
                if self
                    .tree
                    .fields
                    .iter()
                    .all(|(_, n)| matches!(n, Node::Exclude | Node::Include)) =>
            {
                for (k, n) in &self.tree.fields {
                    if matches!(n, Node::Exclude) {
                        doc.remove(k);
                    }
                }
                Ok(doc)
            }
            _ => self.apply(&doc, scope),
        }
    }

    /// What `$addFields` of top-level fields does to each of them in `doc`,
    /// every value read from the input as it was. A value that is the
    /// field's own (`{$ifNull: ["$a", []]}` for `a` when it is set) is
    /// [`Written::Same`]: nothing to copy or write.
    fn written(&self, doc: &Document, scope: &Scope) -> Result<Vec<Written>> {
        let mut values = Vec::with_capacity(self.tree.fields.len());
        for (k, node) in &self.tree.fields {
            if let Node::Computed(op) = node {
                values.push(match op.eval_borrowing(doc, scope)? {
                    Some(Cow::Borrowed(v))
                        if doc.get(k).is_some_and(|old| std::ptr::eq(old, v)) =>
                    {
                        Written::Same
                    }
                    Some(v) => Written::Set(v.into_owned()),
                    None => Written::Removed,
                });
            }
        }
        Ok(values)
    }
}

/// What `$addFields` does to one top-level field of a document it owns.
enum Written {
    /// The value is the field's own: unchanged.
    Same,
    Set(Bson),
    Removed,
}

impl Tree {
    /// Only computed top-level fields (`$set: {a: ..., b: ...}`).
    fn top_level_computed(&self) -> bool {
        self.fields
            .iter()
            .all(|(_, n)| matches!(n, Node::Computed(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::RunCtx;
    use crate::expr::CompileCtx;
    use bson::{bson, doc};

    /// Changing an owned document in place gives what copying it gives.
    #[test]
    fn in_place_equals_copy() {
        let run = RunCtx::default();
        let scope = Scope::new(&run);
        let ctx = CompileCtx::default();
        let docs = [
            doc! {"_id": 1, "a": 1, "b": [{"t": 1, "c": 2}, {"t": 3, "c": 4}], "c": "x"},
            doc! {"_id": 2, "b": "scalar"},
            doc! {"_id": 3},
        ];
        let specs = [
            (
                "$set",
                bson!({"b": {"$filter": {"input": "$b", "cond": {"$gt": ["$$this.t", 1]}}}}),
            ),
            // A later field reads the input as it was, not the earlier field's value.
            ("$set", bson!({"a": "$c", "c": "$a", "n": {"$sum": "$b.c"}})),
            // A missing value removes the field; a new one goes last.
            ("$set", bson!({"a": "$nope", "z": 1, "_id": "$a"})),
            (
                "$addFields",
                bson!({"b": {"$map": {"input": "$b", "in": "$$this.c"}}}),
            ),
            // Nested paths and dotted fields: the copying path.
            ("$set", bson!({"b.c": 5, "a": 2})),
            ("$set", bson!({})),
            // A field set to its own value (kept borrowed), beside a changed one.
            ("$set", bson!({"b": {"$ifNull": ["$b", []]}})),
            (
                "$set",
                bson!({"b": {"$ifNull": ["$b", []]}, "a": {"$ifNull": ["$a", 7]}}),
            ),
            (
                "$set",
                bson!({"c": {"$ifNull": [null, "$c"]}, "_id": "$_id"}),
            ),
            ("$unset", bson!(["a", "c"])),
            ("$unset", bson!("b.c")),
            ("$project", bson!({"a": 0, "_id": 0})),
            ("$project", bson!({"a": 1, "n": {"$add": ["$a", 1]}})),
        ];
        for (stage, spec) in specs {
            let p = match stage {
                "$unset" => Projection::unset(&spec),
                "$project" => Projection::project(&spec, &ctx),
                _ => Projection::add_fields(&spec, stage, &ctx),
            }
            .unwrap_or_else(|e| panic!("{stage} {spec}: {e}"));
            for d in &docs {
                let copied = p.apply(d, &scope).map_err(|e| e.to_string());
                let owned = p.apply_owned(d.clone(), &scope).map_err(|e| e.to_string());
                assert_eq!(copied, owned, "{stage} {spec} on {d}");
                let borrowed = p
                    .apply_cow(Cow::Borrowed(d), &scope)
                    .map(Cow::into_owned)
                    .map_err(|e| e.to_string());
                assert_eq!(copied, borrowed, "{stage} {spec} on {d}: borrowed");
                if let (Ok(a), Ok(b)) = (&copied, &borrowed) {
                    let keys = |d: &Document| d.keys().cloned().collect::<Vec<_>>();
                    assert_eq!(keys(a), keys(b), "{stage} {spec} on {d}: order, borrowed");
                }
                if let Ok(out) = &owned {
                    let keys = |d: &Document| d.keys().cloned().collect::<Vec<_>>();
                    assert_eq!(
                        copied.as_ref().map(keys),
                        Ok(keys(out)),
                        "{stage} {spec} on {d}: order"
                    );
                }
            }
        }
    }
}
