//! The page's "Stages" view: one `aggregate` of the script run stage by stage
//! in a single pass, each stage's output counted and its first documents kept
//! (the rest of a stage's output is only counted, so memory stays bounded by
//! what the pipeline itself holds). Stages the page switched off are skipped;
//! `$facet` reports each facet's stages.
use crate::aggregate::pipeline::{self, Docs, Place, Stage};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::storage::Database;
use bson::{Bson, Document};
use std::borrow::Cow;

/// Documents kept per stage for the page; the others are only counted.
pub const SHOWN: usize = 20;

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
        }
    }
}

/// Which of the script's `aggregate` calls to report (counted from 0 in the
/// order they run), which of its stages to skip, and what was found.
#[derive(Debug, Default)]
pub struct StageProbe {
    pub target: usize,
    pub off: Vec<usize>,
    /// `aggregate` calls run so far (the page's pipeline selector).
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

/// Run the compiled stages one after the other, noting each one's output.
/// After a failure the later stages are reported as not run.
fn run_all<'a>(
    entries: &'a [Entry],
    mut docs: Docs<'a>,
    db: &'a Database,
    scope: &Scope,
    ctx: &CompileCtx,
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
            Ok(Stage::Facet(_)) => {
                facet(&e.spec, input, db, scope, ctx, &mut report).map(|d| vec![Cow::Owned(d)])
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

/// `$facet`: each facet's sub-pipeline stage by stage over the same input;
/// the output document holds each facet's result, as the stage itself does.
fn facet(
    spec: &Bson,
    docs: Docs<'_>,
    db: &Database,
    scope: &Scope,
    ctx: &CompileCtx,
    report: &mut StageReport,
) -> Result<Document> {
    let facets = match spec {
        Bson::Document(d) => d.get_document("$facet").ok(),
        _ => None,
    };
    let mut out = Document::new();
    for (name, sub) in facets.into_iter().flatten() {
        let Bson::Array(sub) = sub else { continue };
        let entries = compile_all(sub, &[], ctx, Place::Facet);
        let input: Docs<'_> = docs
            .iter()
            .map(|d| match d {
                Cow::Borrowed(b) => Cow::Borrowed(*b),
                Cow::Owned(o) => Cow::Owned(o.clone()),
            })
            .collect();
        let (reports, result) = run_all(&entries, input, db, scope, ctx);
        report.facets.push((name.clone(), reports));
        let result = result?;
        out.insert(
            name.clone(),
            Bson::Array(
                result
                    .into_iter()
                    .map(|d| Bson::Document(d.into_owned()))
                    .collect(),
            ),
        );
    }
    Ok(out)
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
    let p = probe.as_mut()?;
    let me = p.seen;
    p.seen += 1;
    if me != p.target {
        return None;
    }
    let off = p.off.clone();
    // A misplaced `$documents` is left to the normal run, which reports it.
    let first = stages
        .iter()
        .enumerate()
        .find(|(i, _)| !off.contains(i))
        .and_then(|(_, s)| s.as_document())
        .and_then(|d| d.keys().next())
        .map(String::as_str);
    if coll.is_some() == (first == Some("$documents")) {
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
        let (reports, result) = run_all(&entries, docs, db, scope, ctx);
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
        Some(Stage::Out(o)) => o.write(docs, db).map(|()| Vec::new()),
        Some(Stage::Merge(m)) => m.write(docs, db, scope).map(|()| Vec::new()),
        _ => Ok(docs),
    }))
}
