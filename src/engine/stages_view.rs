//! The page's "Stages" view: one `aggregate` of the script run stage by stage
//! in a single pass, each stage's output counted and its first documents kept
//! (the rest of a stage's output is only counted, so memory stays bounded by
//! what the pipeline itself holds). Stages the page switched off are skipped;
//! `$facet` reports each facet's stages, `$lookup` its sub-pipeline's stages
//! for its first [`LOOKUP_SHOWN`] input documents. A pipeline update is shown
//! the same way, each stage's output over the documents the update matched.
use crate::aggregate::pipeline::{self, Docs, Pipeline, Place, Stage};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::storage::Database;
use bson::{Bson, Document};
use std::borrow::Cow;

/// Documents kept per stage for the page; the others are only counted.
pub const SHOWN: usize = 20;

/// Outer documents whose `$lookup` sub-pipeline is shown stage by stage.
pub const LOOKUP_SHOWN: usize = 3;

/// `$lookup` sub-pipelines are shown this many levels deep (each level runs
/// its sub-pipeline again per shown document; deeper ones only run).
const LOOKUP_LEVELS: usize = 2;

/// What one stage did.
#[derive(Debug)]
pub struct StageReport {
    /// The stage as written (`{ $match: … }`).
    pub spec: Bson,
    /// Switched off by the page: not run.
    pub off: bool,
    /// How many documents it output; `None` when it did not run.
    pub count: Option<usize>,
    /// Its first [`SHOWN`] documents.
    pub first: Vec<Document>,
    pub error: Option<Error>,
    /// `$facet`: each facet's name and stages.
    pub facets: Vec<(String, Vec<StageReport>)>,
    /// `$lookup` with a pipeline: per shown input document, its sub-pipeline.
    pub lookups: Vec<LookupReport>,
}

/// One outer document's `$lookup` sub-pipeline, stage by stage.
#[derive(Debug)]
pub struct LookupReport {
    pub input: Document,
    pub stages: Vec<StageReport>,
}

impl StageReport {
    fn new(spec: &Bson, off: bool) -> StageReport {
        StageReport {
            spec: spec.clone(),
            off,
            count: None,
            first: Vec::new(),
            error: None,
            facets: Vec::new(),
            lookups: Vec::new(),
        }
    }
}

/// Which of the script's pipelines (`aggregate` calls and pipeline updates,
/// counted from 0 in the order they run) to report, which of its stages to
/// skip, and what was found.
#[derive(Debug, Default)]
pub struct StageProbe {
    pub target: usize,
    pub off: Vec<usize>,
    /// Pipelines run so far (the page's pipeline selector).
    pub seen: usize,
    pub report: Option<Vec<StageReport>>,
}

/// A stage as compiled for the view (`None`: switched off).
struct Entry {
    spec: Bson,
    stage: Option<Result<Stage>>,
}

/// Compile each stage where it stands among the stages left on, so that one
/// that does not compile shows its error on its own card.
fn compile_all(specs: &[Bson], off: &[usize], ctx: &CompileCtx, place: Place) -> Vec<Entry> {
    let on: Vec<Bson> = specs
        .iter()
        .enumerate()
        .filter(|(i, _)| !off.contains(i))
        .map(|(_, s)| s.clone())
        .collect();
    let mut j = 0;
    specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let stage = (!off.contains(&i)).then(|| {
                j += 1;
                pipeline::compile_one(&on, j - 1, ctx, place)
            });
            Entry {
                spec: spec.clone(),
                stage,
            }
        })
        .collect()
}

/// A leading `$text` match is bound to the collection's text index.
fn bind_text(entries: &mut [Entry], c: Option<&crate::storage::Collection>) {
    let Some(entry) = entries.iter_mut().find(|e| e.stage.is_some()) else {
        return;
    };
    if let Some(Ok(Stage::Match(f))) = &entry.stage {
        if f.text().is_some() {
            entry.stage = Some(crate::index::text::bind(f, None, c).map(Stage::Match));
        }
    }
}

/// A document as the page shows it: without the score a `$text` match carries.
fn unscored(d: &Document) -> Document {
    let mut d = d.clone();
    crate::index::text::strip_score(&mut d);
    d
}

/// A sub-pipeline already compiled (inside `$facet` or `$lookup`), beside
/// the stages as written.
fn compiled(specs: &[Bson], p: &Pipeline) -> Vec<Entry> {
    specs
        .iter()
        .zip(&p.stages)
        .map(|(spec, stage)| Entry {
            spec: spec.clone(),
            stage: Some(Ok(stage.clone())),
        })
        .collect()
}

/// The array under `key` in a stage's spec (`{$lookup: {pipeline: [...]}}`,
/// `{$facet: {name: [...]}}`).
fn sub_specs<'s>(spec: &'s Bson, stage: &str, key: &str) -> &'s [Bson] {
    match spec
        .as_document()
        .and_then(|d| d.get_document(stage).ok())
        .and_then(|d| d.get(key))
    {
        Some(Bson::Array(a)) => a,
        _ => &[],
    }
}

/// Run the compiled stages one after the other, noting each one's output.
/// After a failure the later stages are reported as not run. `level`: how
/// many `$lookup` sub-pipelines this one is inside.
fn run_all<'a>(
    entries: &'a [Entry],
    mut docs: Docs<'a>,
    db: &'a Database,
    scope: &Scope,
    level: usize,
) -> (Vec<StageReport>, Result<Docs<'a>>) {
    let mut reports = Vec::with_capacity(entries.len());
    let mut failed: Option<Error> = None;
    for e in entries {
        let mut report = StageReport::new(&e.spec, e.stage.is_none());
        let Some(stage) = &e.stage else {
            reports.push(report);
            continue;
        };
        if failed.is_some() {
            reports.push(report);
            continue;
        }
        let input = std::mem::take(&mut docs);
        let step = match stage {
            Err(err) => Err(err.clone()),
            Ok(Stage::Facet(f)) => {
                facet(f, &e.spec, input, db, scope, level, &mut report).map(|d| vec![Cow::Owned(d)])
            }
            Ok(lookup_stage @ Stage::Lookup(l))
                if l.sub_pipeline().is_some() && level < LOOKUP_LEVELS =>
            {
                let shown: Vec<Document> = input
                    .iter()
                    .take(LOOKUP_SHOWN)
                    .map(|d| d.as_ref().clone())
                    .collect();
                let out =
                    pipeline::run_stages(std::slice::from_ref(lookup_stage), input, db, scope);
                if out.is_ok() {
                    report.lookups = lookup(l, &e.spec, shown, db, scope, level);
                }
                out
            }
            Ok(stage) => pipeline::run_stages(std::slice::from_ref(stage), input, db, scope),
        };
        match step {
            Ok(out) => {
                report.count = Some(out.len());
                report.first = out.iter().take(SHOWN).map(|d| unscored(d)).collect();
                docs = out;
            }
            Err(err) => {
                report.error = Some(err.clone());
                failed = Some(err);
            }
        }
        reports.push(report);
    }
    match failed {
        Some(err) => (reports, Err(err)),
        None => (reports, Ok(docs)),
    }
}

/// `$facet`: each facet's sub-pipeline stage by stage, through the stage's
/// own `run_each` (same input copies, same output document).
fn facet<'a>(
    f: &'a crate::aggregate::stages::facet::Facet,
    spec: &Bson,
    docs: Docs<'a>,
    db: &'a Database,
    scope: &Scope,
    level: usize,
    report: &mut StageReport,
) -> Result<Document> {
    let names: Vec<String> = f.names().map(str::to_string).collect();
    f.run_each(docs, |i, p, input| {
        let name = names.get(i).cloned().unwrap_or_default();
        let entries = compiled(sub_specs(spec, "$facet", &name), p);
        let (reports, result) = run_all(&entries, input, db, scope, level);
        report.facets.push((name, reports));
        Ok(result?.into_iter().map(Cow::into_owned).collect())
    })
}

/// `$lookup`'s sub-pipeline stage by stage for each of the `shown` outer
/// documents. A leading `$documents` is reported with what it produced for
/// the join (the documents the next stage receives).
fn lookup(
    l: &crate::aggregate::stages::lookup::Lookup,
    spec: &Bson,
    shown: Vec<Document>,
    db: &Database,
    scope: &Scope,
    level: usize,
) -> Vec<LookupReport> {
    let Some(p) = l.sub_pipeline() else {
        return Vec::new();
    };
    let specs = sub_specs(spec, "$lookup", "pipeline");
    let entries = compiled(specs, p);
    let joiner = l.joiner(db);
    shown
        .into_iter()
        .map(|input| {
            let stages = match joiner.sub_input(&input, db, scope) {
                Err(err) => {
                    let mut r = StageReport::new(specs.first().unwrap_or(&Bson::Null), false);
                    r.error = Some(err);
                    vec![r]
                }
                Ok(sub) => {
                    let (done, rest) = entries.split_at(sub.produced.min(entries.len()));
                    let mut reports: Vec<StageReport> = done
                        .iter()
                        .map(|e| {
                            let mut r = StageReport::new(&e.spec, false);
                            r.count = Some(sub.input.len());
                            r.first = sub
                                .input
                                .iter()
                                .take(SHOWN)
                                .map(|d| d.as_ref().clone())
                                .collect();
                            r
                        })
                        .collect();
                    reports.extend(run_all(rest, sub.input, db, &sub.scope, level + 1).0);
                    reports
                }
            };
            LookupReport { input, stages }
        })
        .collect()
}

/// Is this the pipeline the probe asks for? Counts every pipeline seen.
fn is_target(probe: &mut Option<StageProbe>) -> Option<&mut StageProbe> {
    let p = probe.as_mut()?;
    let me = p.seen;
    p.seen += 1;
    (me == p.target).then_some(p)
}

/// The hook in `aggregate()`: when the session probes stages and this is the
/// aggregate asked for, run it stage by stage and return its result (with
/// `$out`/`$merge` written, as a normal run does); otherwise `None`.
pub(super) fn probe(
    probe: &mut Option<StageProbe>,
    db: &mut Database,
    coll: Option<&str>,
    stages: &[Bson],
    ctx: &CompileCtx,
    scope: &Scope,
) -> Option<Result<Vec<Document>>> {
    let p = is_target(probe)?;
    let off = p.off.clone();
    // A misplaced `$documents` is left to the normal run, which reports it.
    let first = stages
        .iter()
        .enumerate()
        .find(|(i, _)| !off.contains(i))
        .and_then(|(_, s)| s.as_document())
        .and_then(|d| d.keys().next())
        .map(String::as_str);
    // `$geoNear` reads the collection's indexes: also left to the normal run.
    if coll.is_some() == (first == Some("$documents")) || first == Some("$geoNear") {
        return None;
    }
    let mut entries = compile_all(stages, &off, ctx, Place::Top);
    bind_text(&mut entries, coll.and_then(|name| db.collection(name)));
    let (reports, result) = {
        let db: &Database = db;
        // A missing collection reads as empty; `$documents` (validated where
        // it compiles) makes its own input.
        let docs: Docs = match coll {
            Some(name) => db
                .collection(name)
                .map(|c| c.docs().iter().map(Cow::Borrowed).collect())
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let (reports, result) = run_all(&entries, docs, db, scope, 0);
        let owned = result.map(|d| d.iter().map(|d| unscored(d)).collect::<Vec<_>>());
        (reports, owned)
    };
    p.report = Some(reports);
    let write = entries
        .iter()
        .rev()
        .find_map(|e| e.stage.as_ref())
        .and_then(|s| s.as_ref().ok());
    Some(result.and_then(|docs| match write {
        Some(Stage::Out(o)) => o.write(docs, db, scope).map(|()| Vec::new()),
        Some(Stage::Merge(m)) => m.write(docs, db, scope).map(|()| Vec::new()),
        _ => Ok(docs),
    }))
}

/// The hook in pipeline updates (`updateOne`, `updateMany`,
/// `findOneAndUpdate`, `update`): for the pipeline asked for, report each
/// stage's output over `matched` (the documents the update will change,
/// before it does) and return the stages left on, which the update then
/// runs; otherwise `None`.
pub(super) fn probe_update(
    probe: &mut Option<StageProbe>,
    matched: Vec<&Document>,
    stages: &[Bson],
    db: &Database,
    ctx: &CompileCtx,
    scope: &Scope,
) -> Option<Vec<Bson>> {
    let p = is_target(probe)?;
    let entries = compile_all(stages, &p.off, ctx, Place::Update);
    let docs: Docs = matched.into_iter().map(Cow::Borrowed).collect();
    p.report = Some(run_all(&entries, docs, db, scope, 0).0);
    Some(
        stages
            .iter()
            .enumerate()
            .filter(|(i, _)| !p.off.contains(i))
            .map(|(_, s)| s.clone())
            .collect(),
    )
}
