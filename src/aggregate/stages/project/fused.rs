//! A projection stage followed by a `$match` that reads only top-level
//! fields the projection gives whole (computed, or the input's own): per
//! document the projection's expressions are evaluated (all of them, in the
//! stage's order, so its errors are the same), the filter is tested on a
//! scratch document holding only the fields it reads, and the projected
//! document is built only for documents that pass (when most pass, each is
//! built and tested as it is, which is then cheaper). Explain and the Stages
//! view still show the two stages: this is how they run, not what they are.
use super::apply::{copy_unreplaced, exclude, include};
use super::column_sum::ColumnSum;
use super::{Mode, Node, Projection};
use crate::aggregate::pipeline::Docs;
use crate::error::Result;
use crate::expr::Scope;
use crate::query::Filter;
use crate::storage::Collection;
use crate::value::column::Column;
use bson::{Bson, Document};
use std::borrow::Cow;
use std::rc::Rc;

/// What one document's run reuses from the last: its computed values and
/// the filter's scratch document.
#[derive(Default)]
struct Buffers {
    values: Vec<Option<Bson>>,
    scratch: Document,
    /// Documents tested so far, and kept.
    seen: usize,
    kept: usize,
}

/// Documents tested on the scratch document before the share that passes
/// decides how the rest are tested.
const SAMPLE: usize = 64;

/// Where a field the filter reads gets its value in the projected document.
#[derive(Clone, Copy, Debug)]
enum Read {
    /// The projection's `n`th computed field.
    Computed(usize),
    /// The input document's field, unchanged.
    Input,
    /// Not in the projected document.
    Missing,
}

/// A projection and the `$match` after it, run together; or a projection
/// alone over a collection, its sums read from scan columns.
pub struct Fused<'p> {
    projection: &'p Projection,
    filter: Option<&'p Filter>,
    /// The top-level fields the filter reads, each once.
    reads: Vec<(&'p str, Read)>,
}

impl Projection {
    /// The projection and `filter` fused, when the filter reads only
    /// top-level fields this stage gives whole and nothing of the document
    /// beyond them (no `$expr`, `$where`, `$jsonSchema`, `$text`...).
    pub fn fuse_match<'p>(&'p self, filter: &'p Filter) -> Option<Fused<'p>> {
        // Computed fields below the top level are evaluated per array
        // element of the output: not fused.
        if self
            .tree
            .fields
            .iter()
            .any(|(_, n)| matches!(n, Node::Sub(t) if t.computed))
        {
            return None;
        }
        let mut names: Vec<&'p str> = Vec::new();
        for c in &filter.conjuncts().conds {
            names.push(first_component(&c.path));
        }
        for (op, arg) in &filter.conjuncts().operators {
            clause_fields(op, arg, 0, &mut names)?;
        }
        let mut reads: Vec<(&'p str, Read)> = Vec::new();
        for name in names {
            if reads.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let read = match self.tree.get(name) {
                Some(Node::Computed(_)) => Read::Computed(self.computed_index(name)?),
                Some(Node::Include) => Read::Input,
                Some(Node::Exclude) => Read::Missing,
                // Partly projected: the filter would see only part of it.
                Some(Node::Sub(_)) => return None,
                None if self.mode == Mode::Inclusion => Read::Missing,
                None => Read::Input,
            };
            reads.push((name, read));
        }
        Some(Fused {
            projection: self,
            filter: Some(filter),
            reads,
        })
    }

    /// The projection alone, to run over a collection with its sums read
    /// from scan columns: when it has such sums and every computed field is
    /// at the top level.
    pub fn over_columns(&self) -> Option<Fused<'_>> {
        let nested = self
            .tree
            .fields
            .iter()
            .any(|(_, n)| matches!(n, Node::Sub(t) if t.computed));
        (!self.sums.is_empty() && !nested).then_some(Fused {
            projection: self,
            filter: None,
            reads: Vec::new(),
        })
    }

    /// The position of top-level computed field `name` among the computed ones.
    fn computed_index(&self, name: &str) -> Option<usize> {
        self.computed_ops().position(|(k, _)| k == name)
    }

    /// The top-level computed fields, in the stage's order.
    fn computed_ops(&self) -> impl Iterator<Item = (&str, &crate::aggregate::operand::Operand)> {
        self.tree.fields.iter().filter_map(|(k, n)| match n {
            Node::Computed(op) => Some((k.as_str(), op)),
            _ => None,
        })
    }

    /// The projected document of `doc`, given its computed fields' values
    /// in order (what [`Projection::apply`] gives when no computed field
    /// lies below the top level).
    fn apply_values(&self, doc: &Document, values: &mut Vec<Option<Bson>>) -> Document {
        let mut out = match self.mode {
            Mode::Exclusion => exclude(&self.tree, doc),
            Mode::Inclusion => include(&self.tree, doc),
            Mode::AddFields => copy_unreplaced(&self.tree, doc, &[]),
        };
        let mut values = values.drain(..);
        for (k, _) in self.computed_ops() {
            match values.next().flatten() {
                Some(v) => {
                    out.insert(k.to_string(), v);
                }
                None => {
                    out.remove(k);
                }
            }
        }
        out
    }
}

/// A path's top-level field.
fn first_component(path: &str) -> &str {
    path.split('.').next().unwrap_or(path)
}

/// The deepest `$and`/`$or`/`$nor` nesting walked (the filter compiled, so
/// its own limit already holds; this only bounds the walk).
const MAX_CLAUSE_DEPTH: usize = 100;

/// The fields a top-level operator's clauses read, or `None` when the
/// operator reads more than its paths (`$expr`, `$where`, `$jsonSchema`,
/// `$text`, or one not known here).
fn clause_fields<'f>(
    op: &str,
    arg: &'f Bson,
    depth: usize,
    names: &mut Vec<&'f str>,
) -> Option<()> {
    match op {
        "$comment" | "$alwaysTrue" | "$alwaysFalse" => Some(()),
        "$and" | "$or" | "$nor" if depth < MAX_CLAUSE_DEPTH => {
            let Bson::Array(clauses) = arg else {
                return None;
            };
            for clause in clauses {
                let Bson::Document(clause) = clause else {
                    return None;
                };
                for (k, v) in clause {
                    if k.starts_with('$') {
                        clause_fields(k, v, depth + 1, names)?;
                    } else {
                        names.push(first_component(k));
                    }
                }
            }
            Some(())
        }
        _ => None,
    }
}

/// Per computed field, the column its sum is read from (if any).
type Sums<'p> = Vec<Option<(Rc<Column>, &'p ColumnSum)>>;

/// The scan columns a projection's sums read, over one collection.
pub struct ColumnSums<'p>(Sums<'p>);

impl<'p> Fused<'p> {
    /// Project `docs` and keep those the filter matches.
    pub fn run<'a>(&self, docs: Docs<'a>, scope: &Scope) -> Result<Docs<'a>> {
        let mut out = Vec::new();
        let mut buf = Buffers::default();
        for doc in docs {
            self.one(doc, None, &[], &mut buf, &mut out, scope)?;
        }
        Ok(out)
    }

    /// The columns of `c` this projection's sums can read; `None` when
    /// there are none (the collection is small, a path's column is too
    /// large, or, unless `whole` says the stage reads every document, it
    /// was not built by another scan).
    pub fn columns(&self, c: &Collection, whole: bool) -> Option<ColumnSums<'p>> {
        let sums: Vec<_> = self
            .projection
            .computed_ops()
            .map(|(k, _)| {
                let (_, sum) = self.projection.sums.iter().find(|(name, _)| name == k)?;
                Some((c.columns().for_scan(sum.source(), c.docs(), whole)?, sum))
            })
            .collect();
        sums.iter().any(Option::is_some).then_some(ColumnSums(sums))
    }

    /// [`Fused::run`] over documents of the collection `sums` was made for,
    /// each with its position in the collection.
    pub fn run_rows<'a>(
        &self,
        rows: impl Iterator<Item = (usize, &'a Document)>,
        sums: &ColumnSums<'p>,
        scope: &Scope,
    ) -> Result<Docs<'a>> {
        let mut out = Vec::new();
        let mut buf = Buffers::default();
        for (row, doc) in rows {
            self.one(
                Cow::Borrowed(doc),
                Some(row),
                &sums.0,
                &mut buf,
                &mut out,
                scope,
            )?;
        }
        Ok(out)
    }

    /// Project one document (the collection's `row`th, if known) into `out`
    /// when the filter keeps it.
    fn one<'a>(
        &self,
        doc: Cow<'a, Document>,
        row: Option<usize>,
        sums: &[Option<(Rc<Column>, &'p ColumnSum)>],
        buf: &mut Buffers,
        out: &mut Docs<'a>,
        scope: &Scope,
    ) -> Result<()> {
        if let (Some(f), None) = (self.filter, row) {
            if buf.seen > SAMPLE && buf.kept * 2 > buf.seen {
                // Most documents pass: each is projected as the stage alone
                // does and tested as it is, which then costs less than
                // testing the scratch document first.
                buf.seen += 1;
                let built = self.projection.apply_cow(doc, scope)?;
                if f.matches(&built, scope)? {
                    buf.kept += 1;
                    out.push(built);
                } else if let Cow::Owned(d) = &built {
                    if crate::value::size::too_deep_for_bson(d) {
                        return Err(crate::value::size::bson_depth_error());
                    }
                }
                return Ok(());
            }
        }
        let from_column = |i: usize| match (row, sums.get(i)) {
            (Some(row), Some(Some((column, sum)))) => sum.value(column, row),
            _ => None,
        };
        let values = &mut buf.values;
        match doc {
            // As `apply_borrowed`: a stored document `$addFields` sets to its
            // own values stays borrowed, and the filter reads it.
            Cow::Borrowed(d) if self.projection.mode == Mode::AddFields => {
                let mut same = true;
                let mut found = Vec::with_capacity(self.projection.tree.fields.len());
                for (i, (k, op)) in self.projection.computed_ops().enumerate() {
                    let v = match from_column(i) {
                        Some(v) => Some(Cow::Owned(v)),
                        None => op.eval_borrowing(d, scope)?,
                    };
                    same &= matches!(&v, Some(Cow::Borrowed(b))
                        if crate::value::path::field(d, k).is_some_and(|old| std::ptr::eq(old, *b)));
                    found.push(v);
                }
                if same {
                    if self.filter.map_or(Ok(true), |f| f.matches(d, scope))? {
                        out.push(Cow::Borrowed(d));
                    }
                    return Ok(());
                }
                values.extend(found.into_iter().map(|v| v.map(Cow::into_owned)));
            }
            _ => {
                for (i, (_, op)) in self.projection.computed_ops().enumerate() {
                    values.push(match from_column(i) {
                        Some(v) => Some(v),
                        None => op.eval(&doc, scope)?.map(Cow::into_owned),
                    });
                }
            }
        }
        let Some(f) = self.filter else {
            out.push(Cow::Owned(self.projection.apply_values(&doc, values)));
            return Ok(());
        };
        buf.seen += 1;
        if self.matches(f, &doc, values, &mut buf.scratch, scope)? {
            buf.kept += 1;
            out.push(Cow::Owned(self.projection.apply_values(&doc, values)));
        } else {
            self.check_rejected(&doc, values)?;
        }
        Ok(())
    }

    /// Whether the projected document would match: the fields the filter
    /// reads are moved into `scratch` (kept between documents, so its keys
    /// are not allocated again) and back.
    fn matches(
        &self,
        filter: &Filter,
        doc: &Document,
        values: &mut [Option<Bson>],
        scratch: &mut Document,
        scope: &Scope,
    ) -> Result<bool> {
        for (name, read) in &self.reads {
            let v = match read {
                Read::Computed(i) => values.get_mut(*i).and_then(Option::take),
                Read::Input => crate::value::path::field(doc, name).cloned(),
                Read::Missing => None,
            };
            match (v, scratch.get_mut(*name)) {
                (Some(v), Some(slot)) => *slot = v,
                (Some(v), None) => {
                    scratch.insert(name.to_string(), v);
                }
                (None, Some(_)) => {
                    scratch.remove(*name);
                }
                (None, None) => {}
            }
        }
        let matched = filter.matches(scratch, scope);
        for (name, read) in &self.reads {
            if let (Read::Computed(i), Some(slot)) = (read, scratch.get_mut(*name)) {
                if let Some(v) = values.get_mut(*i) {
                    *v = Some(std::mem::take(slot));
                }
            }
        }
        matched
    }

    /// A document the filter rejects is not built, but the unfused stage
    /// would have built it: one too deep for BSON still fails. Only a
    /// computed value can make it deeper than its input.
    fn check_rejected(&self, doc: &Document, values: &mut Vec<Option<Bson>>) -> Result<()> {
        let containers = values
            .iter()
            .any(|v| matches!(v, Some(Bson::Document(_) | Bson::Array(_))));
        if containers {
            let built = self.projection.apply_values(doc, values);
            if crate::value::size::too_deep_for_bson(&built) {
                return Err(crate::value::size::bson_depth_error());
            }
        }
        values.clear();
        Ok(())
    }
}
