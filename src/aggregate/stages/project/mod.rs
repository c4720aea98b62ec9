//! `$project`, `$addFields`/`$set` and `$unset`: one projection tree, three
//! modes. Semantics follow MongoDB's projection executor: inclusion keeps the
//! input's field order and appends computed fields in spec order; computed
//! fields under a path reached through an array apply to each element, and a
//! non-document on the way is replaced by a document of the computed fields.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/project/
mod apply;
mod column_sum;
mod fused;
pub use fused::{ColumnSums, Fused};

use crate::aggregate::operand::Operand;
use crate::aggregate::path::FieldPath;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use apply::{compute, copy_unreplaced, exclude, include, truthy};
use bson::{Bson, Document};
use column_sum::ColumnSum;
use std::borrow::Cow;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Inclusion,
    Exclusion,
    AddFields,
}

#[derive(Clone, Debug)]
enum Node {
    Include,
    Exclude,
    Computed(Operand),
    Sub(Tree),
}

#[derive(Clone, Debug, Default)]
struct Tree {
    fields: Vec<(String, Node)>,
    /// Any computed field in this subtree?
    computed: bool,
}

impl Tree {
    fn get(&self, name: &str) -> Option<&Node> {
        // By position, lengths first (see `apply::include`).
        let mut i = 0;
        while let Some((k, n)) = self.fields.get(i) {
            if k.len() == name.len() && k == name {
                return Some(n);
            }
            i += 1;
        }
        None
    }

    /// Add `node` at `path`, failing on collisions as MongoDB does (31249/31250).
    fn add(&mut self, path: &FieldPath, node: Node) -> Result<()> {
        let full = path.dotted();
        crate::value::path::check_length(&full)?;
        let mut cur = self;
        let parts = path.parts();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            if matches!(node, Node::Computed(_)) {
                cur.computed = true;
            }
            let pos = cur.fields.iter().position(|(k, _)| k == part);
            if last {
                if pos.is_some() {
                    return Err(Error::location(31250, format!("Path collision at {full}")));
                }
                cur.fields.push((part.clone(), node));
                return Ok(());
            }
            let pos = match pos {
                Some(p) => p,
                None => {
                    cur.fields.push((part.clone(), Node::Sub(Tree::default())));
                    cur.fields.len() - 1
                }
            };
            match &mut cur.fields[pos].1 {
                Node::Sub(t) => cur = t,
                _ => {
                    return Err(Error::location(
                        31249,
                        format!(
                            "Path collision at {full} remaining portion {}",
                            parts[i + 1..].join(".")
                        ),
                    ))
                }
            }
        }
        Ok(())
    }
}

/// A compiled `$project`, `$addFields`/`$set` or `$unset`.
#[derive(Clone, Debug)]
pub struct Projection {
    mode: Mode,
    tree: Tree,
    /// Top-level computed fields a scan column can answer.
    sums: Vec<(String, ColumnSum)>,
}

/// MongoDB prefixes a stage's parse errors: `Invalid $project :: caused by :: ...`.
fn context(stage: &str) -> impl Fn(Error) -> Error + '_ {
    move |mut e: Error| {
        e.message = format!("Invalid {stage} :: caused by :: {}", e.message);
        e
    }
}

impl Projection {
    /// `$project: {...}`.
    pub fn project(spec: &Bson, ctx: &CompileCtx) -> Result<Projection> {
        let Bson::Document(spec) = spec else {
            return Err(Error::location(
                15969,
                "$project specification must be an object",
            ));
        };
        if spec.is_empty() {
            return Err(Error::location(
                51272,
                "Invalid $project :: caused by :: projection specification must have at least one field",
            ));
        }
        let mut b = Builder {
            tree: Tree::default(),
            kind: None,
            add_fields: false,
            id_seen: false,
            sums: Vec::new(),
        };
        b.walk(spec, None, ctx).map_err(context("$project"))?;
        let mode = b.kind.unwrap_or(Mode::Exclusion);
        let mut tree = b.tree;
        if mode == Mode::Inclusion && !b.id_seen {
            tree.fields.insert(0, ("_id".to_string(), Node::Include));
        }
        Ok(Projection {
            mode,
            tree,
            sums: b.sums,
        })
    }

    /// `$addFields`/`$set: {...}` (`stage` is the name the user wrote).
    pub fn add_fields(spec: &Bson, stage: &str, ctx: &CompileCtx) -> Result<Projection> {
        let Bson::Document(spec) = spec else {
            return Err(Error::location(
                40272,
                format!(
                    "{stage} specification stage must be an object, got {}",
                    crate::text::shell::type_name(spec)
                ),
            ));
        };
        let mut b = Builder {
            tree: Tree::default(),
            kind: Some(Mode::AddFields),
            add_fields: true,
            id_seen: false,
            sums: Vec::new(),
        };
        b.walk(spec, None, ctx).map_err(context(stage))?;
        Ok(Projection {
            mode: Mode::AddFields,
            tree: b.tree,
            sums: b.sums,
        })
    }

    /// `$unset: "a"` or `$unset: ["a", "b.c"]`.
    pub fn unset(spec: &Bson) -> Result<Projection> {
        let names: Vec<&str> = match spec {
            Bson::String(s) => vec![s.as_str()],
            Bson::Array(items) => {
                if items.is_empty() {
                    return Err(Error::location(
                        31119,
                        "$unset specification must be a string or an array with at least one field",
                    ));
                }
                let mut names = Vec::new();
                for item in items {
                    match item {
                        Bson::String(s) => names.push(s.as_str()),
                        _ => {
                            return Err(Error::location(
                                31120,
                                "$unset specification must be a string or an array containing only string values",
                            ))
                        }
                    }
                }
                names
            }
            _ => {
                return Err(Error::location(
                    31002,
                    "$unset specification must be a string or an array",
                ))
            }
        };
        let mut tree = Tree::default();
        for name in names {
            let path = FieldPath::parse(name).map_err(context("$unset"))?;
            tree.add(&path, Node::Exclude).map_err(context("$unset"))?;
        }
        Ok(Projection {
            mode: Mode::Exclusion,
            tree,
            sums: Vec::new(),
        })
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Project one document.
    pub fn apply(&self, doc: &Document, scope: &Scope) -> Result<Document> {
        match self.mode {
            Mode::Exclusion => {
                let mut out = exclude(&self.tree, doc);
                if self.tree.computed {
                    compute(&self.tree, &mut out, doc, scope)?;
                }
                Ok(out)
            }
            Mode::Inclusion => {
                let mut out = include(&self.tree, doc);
                if self.tree.computed {
                    compute(&self.tree, &mut out, doc, scope)?;
                }
                Ok(out)
            }
            Mode::AddFields => {
                let mut out = copy_unreplaced(&self.tree, doc, &[]);
                compute(&self.tree, &mut out, doc, scope)?;
                Ok(out)
            }
        }
    }
}

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
                let mut values = Vec::with_capacity(self.tree.fields.len());
                for (k, node) in &self.tree.fields {
                    if let Node::Computed(op) = node {
                        values.push(match op.eval_borrowing(&doc, scope)? {
                            // The field's own value (`{$ifNull: ["$a", []]}` for
                            // `a` when it is set): nothing to copy or write.
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

struct Builder {
    tree: Tree,
    kind: Option<Mode>,
    add_fields: bool,
    id_seen: bool,
    sums: Vec<(String, ColumnSum)>,
}

impl Builder {
    fn walk(&mut self, spec: &Document, prefix: Option<&str>, ctx: &CompileCtx) -> Result<()> {
        for (key, value) in spec {
            let full = match prefix {
                Some(p) => format!("{p}.{key}"),
                None => key.clone(),
            };
            let path = FieldPath::parse(&full)?;
            if prefix.is_none() && (key == "_id" || key.starts_with("_id.")) {
                self.id_seen = true;
            }
            match value {
                Bson::Document(sub) if sub.keys().next().is_some_and(|k| k.starts_with('$')) => {
                    self.computed(&path, value, ctx)?;
                }
                Bson::Document(sub) if sub.is_empty() => {
                    if self.add_fields {
                        self.computed(&path, value, ctx)?;
                    } else {
                        return Err(Error::location(
                            51270,
                            format!("An empty sub-projection is not a valid value. Found empty object at path {full}"),
                        ));
                    }
                }
                Bson::Document(sub) => self.walk(sub, Some(&full), ctx)?,
                Bson::Boolean(_)
                | Bson::Int32(_)
                | Bson::Int64(_)
                | Bson::Double(_)
                | Bson::Decimal128(_)
                    if !self.add_fields =>
                {
                    if truthy(value) {
                        if self.kind == Some(Mode::Exclusion) {
                            return Err(Error::location(
                                31253,
                                format!(
                                    "Cannot do inclusion on field {full} in exclusion projection"
                                ),
                            ));
                        }
                        self.kind = Some(Mode::Inclusion);
                        self.tree.add(&path, Node::Include)?;
                    } else {
                        if full != "_id" {
                            if self.kind == Some(Mode::Inclusion) {
                                return Err(Error::location(
                                    31254,
                                    format!("Cannot do exclusion on field {full} in inclusion projection"),
                                ));
                            }
                            self.kind = Some(Mode::Exclusion);
                        }
                        self.tree.add(&path, Node::Exclude)?;
                    }
                }
                _ => self.computed(&path, value, ctx)?,
            }
        }
        Ok(())
    }

    fn computed(&mut self, path: &FieldPath, value: &Bson, ctx: &CompileCtx) -> Result<()> {
        // `{$meta: ...}` makes neither an inclusion nor an exclusion.
        let meta = matches!(value, Bson::Document(d) if d.len() == 1 && d.contains_key("$meta"));
        if !self.add_fields && !meta {
            if self.kind == Some(Mode::Exclusion) {
                return Err(Error::location(
                    31252,
                    "Cannot use expression other than $meta in exclusion projection",
                ));
            }
            self.kind = Some(Mode::Inclusion);
        }
        let op = Operand::compile(value, ctx)?;
        self.tree.add(path, Node::Computed(op))?;
        if let ([name], Some(sum)) = (path.parts(), ColumnSum::recognize(value)) {
            self.sums.push((name.clone(), sum));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::RunCtx;
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
