//! Compiling a pipeline (stage names resolved, specs validated) and running it
//! over a stream of documents. Documents flow between stages as
//! `Cow<Document>`: stages that only select or reorder (`$match`, `$sort`,
//! `$limit`, `$skip`, `$sample`) pass borrowed collection documents through
//! without cloning them.
use super::operand::Operand;
use super::stage_spec::{compile_placed, stage_parts};
use super::stages::group::{Count, Group, SortByCount};
use super::stages::group_columns::ColumnGroup;
use super::stages::project::{ColumnSums, Fused, Projection};
use super::stages::simple::{self, ReplaceRoot};
use super::stages::unwind::Unwind;
use super::stages::{bucket, densify, facet, fill, geo_near, lookup, output, redact, union_with};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::index::scan::column_check;
use crate::query::sort::SortSpec;
use crate::query::Filter;
use crate::storage::Database;
use bson::{Bson, Document};
use std::borrow::Cow;

pub type Docs<'a> = Vec<Cow<'a, Document>>;

/// Where a pipeline is compiled: some stages are only allowed in some places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Top,
    Facet,
    Lookup,
    UnionWith,
    Update,
}

#[derive(Clone, Debug)]
pub enum Stage {
    Match(Filter),
    Project(Projection),
    Group(Group),
    Sort(SortSpec),
    Limit(usize),
    Skip(usize),
    Unwind(Unwind),
    Count(Count),
    SortByCount(SortByCount),
    ReplaceRoot(ReplaceRoot),
    Sample(usize),
    Documents(Operand),
    Facet(facet::Facet),
    Lookup(Box<lookup::Lookup>),
    GraphLookup(Box<lookup::GraphLookup>),
    UnionWith(Box<union_with::UnionWith>),
    Bucket(bucket::Bucket),
    BucketAuto(bucket::BucketAuto),
    SetWindowFields(super::window::SetWindowFields),
    Redact(redact::Redact),
    Densify(densify::Densify),
    Fill(fill::Fill),
    Out(output::Out),
    Merge(output::Merge),
    GeoNear(Box<geo_near::GeoNear>),
}

/// A compiled pipeline.
#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    pub(crate) stages: Vec<Stage>,
}

/// The most stages a pipeline may have (MongoDB's default `internalPipelineLengthLimit`).
pub const MAX_STAGES: usize = 1000;

impl Pipeline {
    pub fn compile(stages: &[Bson], ctx: &CompileCtx) -> Result<Pipeline> {
        Self::compile_in(stages, ctx, Place::Top)
    }

    /// An update pipeline: only `$addFields`/`$set`, `$project`/`$unset`,
    /// `$replaceRoot`/`$replaceWith` (MongoDB's isAllowedWithinUpdatePipeline).
    pub fn compile_update(stages: &[Bson], ctx: &CompileCtx) -> Result<Pipeline> {
        Self::compile_in(stages, ctx, Place::Update)
    }

    pub(crate) fn compile_in(stages: &[Bson], ctx: &CompileCtx, place: Place) -> Result<Pipeline> {
        // The server's internalPipelineLengthLimit, checked before parsing (pipeline.cpp).
        if stages.len() > MAX_STAGES {
            return Err(Error::location(
                7749501,
                format!("Pipeline length must be no longer than {MAX_STAGES} stages."),
            ));
        }
        let mut out = Vec::with_capacity(stages.len());
        for (i, stage) in stages.iter().enumerate() {
            let (name, spec) = stage_parts(stage)?;
            let last = i + 1 == stages.len();
            out.push(compile_placed(name, spec, ctx, place, i == 0, last)?);
        }
        let pipeline = Pipeline { stages: out };
        if place == Place::Top
            && !pipeline.has_text()
            && stages.iter().any(crate::fts::asks_text_score)
        {
            return Err(crate::fts::score_unavailable());
        }
        Ok(pipeline)
    }

    /// Does the pipeline start with a `$text` match (its documents carry scores)?
    pub fn has_text(&self) -> bool {
        matches!(self.stages.first(), Some(Stage::Match(f)) if f.text().is_some())
    }

    /// Does the pipeline start with `$documents` (so it needs no input)?
    pub fn starts_with_documents(&self) -> bool {
        matches!(self.stages.first(), Some(Stage::Documents(_)))
    }

    /// Apply an update pipeline to one document.
    pub fn apply_to(&self, doc: &Document, scope: &Scope) -> Result<Document> {
        // The stored document until a stage changes it; then the previous
        // stage's output, this one's to change.
        let mut cur: Cow<Document> = Cow::Borrowed(doc);
        for stage in &self.stages {
            let next = match stage {
                Stage::Project(p) => p.apply_cow(cur, scope)?,
                Stage::ReplaceRoot(r) => Cow::Owned(r.apply(&cur, scope)?),
                _ => {
                    return Err(Error::invalid_options(
                        "only $addFields, $set, $project, $unset, $replaceRoot and $replaceWith are allowed in an update",
                    ))
                }
            };
            if let Cow::Owned(d) = &next {
                if crate::value::size::too_deep_for_bson(d) {
                    return Err(crate::value::size::bson_depth_error());
                }
            }
            cur = next;
        }
        Ok(cur.into_owned())
    }

    /// Run over `input`; stages that read or write other collections use `db`.
    pub fn run(
        &self,
        input: Vec<Document>,
        db: &mut Database,
        scope: &Scope,
    ) -> Result<Vec<Document>> {
        self.run_source(Source::Docs(input), db, scope)
    }

    /// Run over a collection (borrowed: documents a leading `$match` rejects
    /// are never cloned), a list of documents, or nothing (`db.aggregate`).
    pub fn run_source(
        &self,
        source: Source,
        db: &mut Database,
        scope: &Scope,
    ) -> Result<Vec<Document>> {
        let result = self.run_body(source, db, scope)?;
        self.write_result(result, db, scope)
    }

    /// `bypassDocumentValidation`: a final `$out`/`$merge` skips the
    /// target's validator.
    pub fn bypass_validation(&mut self) {
        match self.stages.last_mut() {
            Some(Stage::Out(o)) => o.bypass = true,
            Some(Stage::Merge(m)) => m.bypass = true,
            _ => {}
        }
    }

    /// The database a final `$out`/`$merge` names (`{db, coll}`), if any.
    pub fn write_database(&self) -> Option<&str> {
        match self.stages.last() {
            Some(Stage::Out(o)) => o.database(),
            Some(Stage::Merge(m)) => m.database(),
            _ => None,
        }
    }

    /// The stages before a final `$out`/`$merge`: its input documents.
    pub fn run_body(&self, source: Source, db: &Database, scope: &Scope) -> Result<Vec<Document>> {
        let body = match self.stages.split_last() {
            Some((Stage::Out(_) | Stage::Merge(_), rest)) => rest,
            _ => &self.stages[..],
        };
        let result: Vec<Document> = {
            let dbr: &Database = db;
            let (body, docs): (&[Stage], Docs) = match &source {
                Source::Collection(name) => match (body, dbr.collection(name)) {
                    ([Stage::GeoNear(g), rest @ ..], c) => (rest, owned(g.run(c, name, scope)?)),
                    ([Stage::Match(f), rest @ ..], c) if f.text().is_some() => {
                        (rest, text_match(f, c, scope)?)
                    }
                    (_, Some(c)) => leading(body, c, scope)?,
                    (_, None) => (body, Vec::new()),
                },
                Source::Docs(_) | Source::Empty => (body, Vec::new()),
            };
            let docs = match source {
                Source::Docs(v) => v.into_iter().map(Cow::Owned).collect(),
                _ => docs,
            };
            let scored = self.has_text();
            run_stages(body, docs, dbr, scope)?
                .into_iter()
                .map(|d| {
                    let mut d = d.into_owned();
                    if scored {
                        crate::index::text::strip_score(&mut d);
                    }
                    d
                })
                .collect()
        };
        Ok(result)
    }

    /// Write `result` as a final `$out`/`$merge` says (into `db`); without one,
    /// `result` is the answer.
    pub fn write_result(
        &self,
        result: Vec<Document>,
        db: &mut Database,
        scope: &Scope,
    ) -> Result<Vec<Document>> {
        match self.stages.last() {
            Some(Stage::Out(o)) => {
                o.write(result, db, scope)?;
                Ok(Vec::new())
            }
            Some(Stage::Merge(m)) => {
                m.write(result, db, scope)?;
                Ok(Vec::new())
            }
            _ => Ok(result),
        }
    }

    /// Run without writing (sub-pipelines: `$facet`, `$lookup`, `$unionWith`).
    pub(crate) fn run_read<'a>(
        &'a self,
        docs: Docs<'a>,
        db: &'a Database,
        scope: &Scope,
    ) -> Result<Docs<'a>> {
        run_stages(&self.stages, docs, db, scope)
    }
}

/// A leading `$match` (and a `$group` right after it) run straight over the
/// collection's documents: no list of the whole collection is built, and
/// with `$group` no list at all. Returns the stages left to run.
/// The `$match` reads every document, so scan columns are built for it
/// (unless a `$group` that reads the documents follows). A `$group` first or
/// after the `$match` reads top-level fields from columns (`ColumnGroup`);
/// a projection first, or right after the `$match`, reads its sums from
/// columns (`Projection::over_columns`).
fn leading<'a>(
    stages: &'a [Stage],
    c: &'a crate::storage::Collection,
    scope: &Scope,
) -> Result<(&'a [Stage], Docs<'a>)> {
    let docs = c.docs();
    Ok(match stages {
        [Stage::Match(f), Stage::Group(g), rest @ ..] => {
            let grouped = match ColumnGroup::new(g, c) {
                // The group reads no document its columns answer: so
                // neither does the filter.
                Some(cg) => {
                    cg.run_filtered(docs, f, column_check(f, Some(c), true, false), scope)?
                }
                // Columns built by other scans only: the group keeps them only
                // when few documents pass (`Group::run_filtered`).
                None => g.run_filtered(docs, f, column_check(f, Some(c), false, false), scope)?,
            };
            crate::budget::check()?;
            (rest, owned(grouped))
        }
        [Stage::Group(g), rest @ ..] => match ColumnGroup::new(g, c) {
            Some(cg) => {
                let grouped = owned(cg.run(docs, scope)?);
                crate::budget::check()?;
                (rest, grouped)
            }
            None => (stages, docs.iter().map(Cow::Borrowed).collect()),
        },
        [Stage::Project(p), rest @ ..] => match project_columns(p, rest, c, true) {
            Some((fused, sums, rest)) => {
                let out = fused.run_rows(docs.iter().enumerate(), &sums, scope)?;
                crate::budget::check()?;
                check_depth(&out)?;
                (rest, out)
            }
            None => (stages, docs.iter().map(Cow::Borrowed).collect()),
        },
        [Stage::Match(f), rest @ ..] => {
            // A projection right after reads its sums from columns other
            // scans built, so the matched documents keep their positions.
            let projected = match rest {
                [Stage::Project(p), after @ ..] => project_columns(p, after, c, false),
                _ => None,
            };
            let columns = column_check(f, Some(c), true, false);
            let mut rows = Vec::new();
            crate::query::for_each_match(docs, f, columns, scope, |i, d| {
                rows.push((i, d));
                Ok(())
            })?;
            crate::budget::check()?;
            match projected {
                Some((fused, sums, left)) => {
                    let out = fused.run_rows(rows.into_iter(), &sums, scope)?;
                    crate::budget::check()?;
                    check_depth(&out)?;
                    (left, out)
                }
                None => (
                    rest,
                    rows.into_iter().map(|(_, d)| Cow::Borrowed(d)).collect(),
                ),
            }
        }
        _ => (stages, docs.iter().map(Cow::Borrowed).collect()),
    })
}

/// A projection over the collection's documents with sums scan columns
/// answer (`whole`: it reads every document, so missing columns are built),
/// fused with the `$match` after it when it can be; the stages left after.
fn project_columns<'a>(
    p: &'a Projection,
    rest: &'a [Stage],
    c: &crate::storage::Collection,
    whole: bool,
) -> Option<(Fused<'a>, ColumnSums<'a>, &'a [Stage])> {
    let (fused, rest) = match rest {
        [Stage::Match(f), after @ ..] => match p.fuse_match(f) {
            Some(fused) => (fused, after),
            None => (p.over_columns()?, rest),
        },
        _ => (p.over_columns()?, rest),
    };
    let sums = fused.columns(c, whole)?;
    Some((fused, sums, rest))
}

/// A leading `$text` match: over the collection's text index, each document
/// carrying its score for `{$meta: "textScore"}` further on.
fn text_match<'a>(
    f: &Filter,
    c: Option<&'a crate::storage::Collection>,
    scope: &Scope,
) -> Result<Docs<'a>> {
    let filter = crate::index::text::bind(f, None, c)?;
    let (Some(search), Some(c)) = (filter.text_search(), c) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for d in c.docs() {
        if filter.matches(d, scope)? {
            out.push(Cow::Owned(crate::index::text::with_score(d, search)?));
        }
    }
    crate::budget::check()?;
    Ok(out)
}

/// Stage `i` of `stages` compiled where it stands (the page's stage-by-stage view).
pub(crate) fn compile_one(
    stages: &[Bson],
    i: usize,
    ctx: &CompileCtx,
    place: Place,
) -> Result<Stage> {
    let Some(stage) = stages.get(i) else {
        return Err(Error::bad_value("no such stage"));
    };
    let (name, spec) = stage_parts(stage)?;
    compile_placed(name, spec, ctx, place, i == 0, i + 1 == stages.len())
}

/// What a pipeline reads.
pub enum Source<'s> {
    Collection(&'s str),
    Docs(Vec<Document>),
    Empty,
}

/// Run `stages` over `docs`.
pub(crate) fn run_stages<'a>(
    stages: &'a [Stage],
    mut docs: Docs<'a>,
    db: &'a Database,
    scope: &Scope,
) -> Result<Docs<'a>> {
    let mut i = 0;
    while let Some(stage) = stages.get(i) {
        i += 1;
        docs = match stage {
            Stage::Match(f) => {
                let mut out = Vec::with_capacity(docs.len());
                let search = f.text_search();
                for d in docs {
                    if f.matches(&d, scope)? {
                        out.push(match search {
                            // A bound `$text` (the Stages view): the score rides along.
                            Some(s) => Cow::Owned(crate::index::text::with_score(&d, s)?),
                            None => d,
                        });
                    }
                }
                out
            }
            Stage::Project(p) => {
                // A `$match` right after that reads only fields the stage
                // gives whole: only the documents it keeps are built.
                if let Some(fused) = match stages.get(i) {
                    Some(Stage::Match(f)) => p.fuse_match(f),
                    _ => None,
                } {
                    i += 1;
                    docs = fused.run(docs, scope)?;
                    crate::budget::check()?;
                    check_depth(&docs)?;
                    continue;
                }
                // Consecutive `$set`/`$project`/`$unset` stages take each
                // document through all of them in turn (as the server's
                // executor does), while its values are still in the cache.
                let start = i;
                while matches!(stages.get(i), Some(Stage::Project(_))) {
                    i += 1;
                }
                let mut chain = vec![p];
                chain.extend(stages.get(start..i).unwrap_or_default().iter().filter_map(
                    |s| match s {
                        Stage::Project(next) => Some(next),
                        _ => None,
                    },
                ));
                // A document no stage changes stays borrowed.
                docs.into_iter()
                    .map(|d| Projection::apply_chain(&chain, d, scope))
                    .collect::<Result<_>>()?
            }
            Stage::Group(g) => owned(g.run(docs.iter().map(|d| d.as_ref()), scope)?),
            Stage::Sort(spec) => {
                // `$sort` then `$limit`: keep only the first `n` (stable).
                if let Some(Stage::Limit(n)) = stages.get(i) {
                    i += 1;
                    sort_docs(docs, spec, Some(*n))
                } else {
                    sort_docs(docs, spec, None)
                }
            }
            Stage::Limit(n) => {
                docs.truncate(*n);
                docs
            }
            Stage::Skip(n) => {
                if *n >= docs.len() {
                    Vec::new()
                } else {
                    docs.split_off(*n)
                }
            }
            Stage::Unwind(u) => {
                // `$unwind` + `$group`: group the unwound views without building them.
                if let Some(Stage::Group(g)) = stages.get(i) {
                    if super::stages::unwind_group::fusable(u, g) {
                        i += 1;
                        docs = owned(super::stages::unwind_group::run(
                            u,
                            g,
                            docs.iter().map(|d| d.as_ref()),
                            scope,
                        )?);
                        continue;
                    }
                }
                let mut out = Vec::with_capacity(docs.len());
                for d in &docs {
                    crate::budget::check()?;
                    u.apply(d, &mut out);
                }
                owned(out)
            }
            Stage::Count(c) => owned(c.run(docs.len())),
            Stage::SortByCount(s) => owned(s.run(docs.iter().map(|d| d.as_ref()), scope)?),
            Stage::ReplaceRoot(r) => docs
                .iter()
                .map(|d| r.apply(d, scope).map(Cow::Owned))
                .collect::<Result<_>>()?,
            Stage::Sample(n) => simple::sample(docs, *n, scope.run),
            Stage::Documents(op) => owned(simple::documents_eval(op, scope)?),
            Stage::Facet(f) => owned(vec![f.run(docs, db, scope)?]),
            Stage::Lookup(l) => owned(l.run(docs, db, scope)?),
            Stage::GraphLookup(g) => owned(g.run(docs, db, scope)?),
            Stage::UnionWith(u) => u.run(docs, db, scope)?,
            Stage::Bucket(b) => owned(b.run(docs.iter().map(|d| d.as_ref()), scope)?),
            Stage::BucketAuto(b) => owned(b.run(docs.iter().map(|d| d.as_ref()), scope)?),
            Stage::SetWindowFields(w) => owned(w.run(docs, scope)?),
            Stage::Redact(r) => {
                let mut out = Vec::with_capacity(docs.len());
                for d in &docs {
                    if let Some(kept) = r.apply(d, scope)? {
                        out.push(Cow::Owned(kept));
                    }
                }
                out
            }
            Stage::Densify(d) => owned(d.run(docs)?),
            Stage::Fill(f) => owned(f.run(docs, scope)?),
            // Validated to be last; the caller writes.
            Stage::Out(_) | Stage::Merge(_) => docs,
            // Run over the collection before the other stages (`run_source`).
            Stage::GeoNear(_) => {
                return Err(Error::location(
                    40603,
                    "$geoNear is only valid as the first stage in a pipeline",
                ))
            }
        };
        crate::budget::check()?;
        if builds_documents(stage) {
            check_depth(&docs)?;
        }
    }
    Ok(docs)
}

/// Whether a stage's output documents can be deeper than its input's.
fn builds_documents(stage: &Stage) -> bool {
    !matches!(
        stage,
        Stage::Match(_)
            | Stage::Sort(_)
            | Stage::Limit(_)
            | Stage::Skip(_)
            | Stage::Unwind(_)
            | Stage::Count(_)
            | Stage::Sample(_)
            | Stage::Redact(_)
            | Stage::Out(_)
            | Stage::Merge(_)
    )
}

/// The server fails with Overflow when it builds a document deeper than 200
/// levels; it checks as it serializes, mqlplay after each stage that builds
/// documents, so that no later stage, printer or drop meets one deeper.
fn check_depth(docs: &Docs) -> Result<()> {
    for d in docs {
        if let Cow::Owned(d) = d {
            if crate::value::size::too_deep_for_bson(d) {
                return Err(crate::value::size::bson_depth_error());
            }
        }
    }
    Ok(())
}

fn owned<'a>(docs: Vec<Document>) -> Docs<'a> {
    docs.into_iter().map(Cow::Owned).collect()
}

/// The documents in sort order (stable), the first `first` only: keys are
/// extracted once per document, and `$sort` + `$limit` keeps a bounded buffer.
fn sort_docs<'a>(docs: Docs<'a>, spec: &SortSpec, first: Option<usize>) -> Docs<'a> {
    let order = {
        let refs: Vec<&Document> = docs.iter().map(|d| d.as_ref()).collect();
        spec.order(&refs, first)
    };
    let mut slots: Vec<Option<Cow<'a, Document>>> = docs.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|i| slots.get_mut(i).and_then(Option::take))
        .collect()
}
