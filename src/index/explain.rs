//! `explain()` output shaped like MongoDB 8's classic engine: `queryPlanner`
//! (namespace, parsedQuery, winningPlan as a tree of COLLSCAN / IXSCAN /
//! FETCH / SORT / SKIP / LIMIT / PROJECTION stages, rejectedPlans) and, with
//! "executionStats", the work each stage did.
//!
//! Times (`executionTimeMillis`, `executionTimeMillisEstimate`,
//! `optimizationTimeMillis`) are always 0 so that outputs are reproducible
//! and testable; hashes and server details are left out.
//! See https://www.mongodb.com/docs/manual/reference/explain-results/.
use super::parsed::{combine, normalize, top_level};
use super::plan::{Access, Executed, IndexPlan, Plan, ScanStats};
use crate::error::{Error, Result};
use crate::query::sort::SortSpec;
use crate::storage::index::Index;
use crate::storage::{Collection, Database};
use crate::text::shell::type_name;
use bson::{doc, Bson, Document};

/// The default in-memory sort limit shown by SORT stages (100 MiB).
const SORT_MEM_LIMIT: i32 = 104_857_600;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    QueryPlanner,
    ExecutionStats,
    AllPlansExecution,
}

/// `explain()`, `explain("executionStats")`, `explain(true)`.
pub fn verbosity(arg: Option<&Bson>) -> Result<Verbosity> {
    match arg {
        None | Some(Bson::Boolean(false)) => Ok(Verbosity::QueryPlanner),
        Some(Bson::Boolean(true)) => Ok(Verbosity::AllPlansExecution),
        Some(Bson::String(s)) => match s.as_str() {
            "queryPlanner" => Ok(Verbosity::QueryPlanner),
            "executionStats" => Ok(Verbosity::ExecutionStats),
            "allPlansExecution" => Ok(Verbosity::AllPlansExecution),
            other => Err(Error::bad_value(format!(
                "verbosity string must be one of {{'queryPlanner', 'executionStats', 'allPlansExecution'}}, got '{other}'"
            ))),
        },
        Some(other) => Err(Error::type_mismatch(format!(
            "explain verbosity must be a string or a boolean, got {}",
            type_name(other)
        ))),
    }
}

/// What a find did besides matching: sort, skip, limit, projection.
pub struct FindShape<'a> {
    pub filter: &'a Document,
    pub sort: Option<&'a SortSpec>,
    pub projection: Option<&'a Document>,
    pub skip: i64,
    pub limit: i64,
}

pub(crate) fn num(n: usize) -> Bson {
    i32::try_from(n).map_or(Bson::Int64(n as i64), Bson::Int32)
}

/// One stage's execution counters, in MongoDB's field order.
#[derive(Clone, Copy, Default)]
pub(crate) struct Counters {
    pub returned: usize,
    pub works: usize,
    pub eof: bool,
}

impl Counters {
    fn write(&self, d: &mut Document) {
        let eof = usize::from(self.eof);
        d.insert("nReturned", num(self.returned));
        d.insert("executionTimeMillisEstimate", 0);
        d.insert("works", num(self.works));
        d.insert("advanced", num(self.returned));
        d.insert(
            "needTime",
            num(self.works.saturating_sub(self.returned + eof)),
        );
        d.insert("needYield", 0);
        d.insert("saveState", 0);
        d.insert("restoreState", 0);
        d.insert("isEOF", eof as i32);
    }
}

/// A stage document: `stage`, `filter`, counters (with execution stats),
/// its own fields, then `inputStage`.
pub(crate) fn stage(
    name: &str,
    filter: Option<Document>,
    counters: Option<Counters>,
    fields: Document,
    input: Option<Document>,
) -> Document {
    let mut d = Document::new();
    d.insert("stage", name);
    if let Some(f) = filter {
        d.insert("filter", f);
    }
    if let Some(c) = counters {
        c.write(&mut d);
    }
    d.extend(fields);
    if let Some(i) = input {
        d.insert("inputStage", i);
    }
    d
}

/// `isCached: false` leads the winning plan and the execution stages.
pub(crate) fn uncached(d: Document) -> Document {
    let mut out = doc! { "isCached": false };
    out.extend(d);
    out
}

/// The filter's conditions as MongoDB shows them (`parsedQuery`).
pub fn parsed_query(plan: &Plan) -> Document {
    let mut entries: Vec<_> = plan.conds.iter().map(normalize).collect();
    entries.extend(plan.operators.iter().filter_map(|(k, v)| {
        if k.starts_with('$') {
            top_level(k, v)
        } else {
            None
        }
    }));
    combine(entries)
}

/// The conditions the index bounds do not answer exactly (FETCH's filter).
fn residual(plan: &Plan, p: &IndexPlan) -> Option<Document> {
    let mut entries: Vec<_> = plan
        .conds
        .iter()
        .zip(&p.exact)
        .filter(|(_, exact)| !**exact)
        .map(|(c, _)| normalize(c))
        .collect();
    entries.extend(plan.operators.iter().filter_map(|(k, v)| {
        if k.starts_with('$') {
            top_level(k, v)
        } else {
            None
        }
    }));
    let d = combine(entries);
    (!d.is_empty()).then_some(d)
}

fn direction(forward: bool) -> &'static str {
    if forward {
        "forward"
    } else {
        "backward"
    }
}

/// The index description IXSCAN and COUNT_SCAN share.
pub(crate) fn index_fields(ix: &Index) -> Document {
    let mut paths = Document::new();
    for (name, found) in ix.spec.field_names().iter().zip(ix.multikey_paths()) {
        paths.insert(
            name.clone(),
            Bson::Array(found.iter().map(|p| Bson::String(p.clone())).collect()),
        );
    }
    doc! {
        "keyPattern": ix.spec.key.clone(),
        "indexName": ix.spec.name.clone(),
        "isMultiKey": ix.is_multikey(),
        "multiKeyPaths": paths,
        "isUnique": ix.spec.unique,
        "isSparse": ix.spec.sparse,
        "isPartial": ix.spec.partial.is_some(),
        "indexVersion": 2,
    }
}

/// `indexBounds`: per field, the intervals in scan order.
fn index_bounds(ix: &Index, p: &IndexPlan) -> Document {
    let mut b = Document::new();
    for (i, (name, oil)) in ix.spec.field_names().iter().zip(&p.oils).enumerate() {
        let reversed = (ix.spec.desc & (1 << i) != 0) == p.forward;
        let mut shown: Vec<Bson> = oil
            .iter()
            .map(|iv| Bson::String(iv.display(reversed)))
            .collect();
        if reversed {
            shown.reverse();
        }
        b.insert(name.clone(), Bson::Array(shown));
    }
    b
}

/// The access stages: COLLSCAN, or FETCH over IXSCAN, or EOF.
pub(crate) fn access(
    c: Option<&Collection>,
    a: &Access,
    plan: &Plan,
    exec: Option<(&ScanStats, usize)>,
) -> (Document, usize) {
    let works = |examined: usize, s: &ScanStats| examined + usize::from(s.eof);
    if let (Access::CollScan { .. }, Some(c)) = (a, c) {
        if let Some(geo) = super::geo_explain::access(c, plan, exec) {
            return geo;
        }
    }
    match (a, c) {
        (Access::CollScan { forward }, Some(_)) => {
            let counters = exec.map(|(s, matched)| Counters {
                returned: matched,
                works: works(s.docs_examined, s),
                eof: s.eof,
            });
            let mut fields = doc! { "direction": direction(*forward) };
            if let Some((s, _)) = exec {
                fields.insert("docsExamined", num(s.docs_examined));
            }
            let parsed = parsed_query(plan);
            let d = stage(
                "COLLSCAN",
                (!parsed.is_empty()).then_some(parsed),
                counters,
                fields,
                None,
            );
            (d, counters.map_or(0, |c| c.works))
        }
        (Access::Index(p), Some(c)) => match c.indexes().iter().nth(p.index) {
            Some(ix) => {
                let ix_counters = exec.map(|(s, _)| Counters {
                    returned: s.docs_examined,
                    works: works(s.keys_examined, s),
                    eof: s.eof,
                });
                let mut fields = index_fields(ix);
                fields.insert("direction", direction(p.forward));
                fields.insert("indexBounds", index_bounds(ix, p));
                if let Some((s, _)) = exec {
                    fields.insert("keysExamined", num(s.keys_examined));
                    fields.insert("seeks", num(s.seeks.max(1)));
                    fields.insert("dupsTested", num(s.dups_tested));
                    fields.insert("dupsDropped", num(s.dups_dropped));
                }
                let ixscan = stage("IXSCAN", None, ix_counters, fields, None);
                let fetch_counters = exec.map(|(s, matched)| Counters {
                    returned: matched,
                    works: works(s.keys_examined, s),
                    eof: s.eof,
                });
                let mut fields = Document::new();
                if let Some((s, _)) = exec {
                    fields.insert("docsExamined", num(s.docs_examined));
                    fields.insert("alreadyHasObj", 0);
                }
                let d = stage(
                    "FETCH",
                    residual(plan, p),
                    fetch_counters,
                    fields,
                    Some(ixscan),
                );
                (d, fetch_counters.map_or(0, |c| c.works))
            }
            None => (doc! { "stage": "EOF" }, 0),
        },
        _ => {
            let counters = exec.map(|_| Counters {
                returned: 0,
                works: 1,
                eof: true,
            });
            (stage("EOF", None, counters, Document::new(), None), 1)
        }
    }
}

pub(crate) fn sort_doc(sort: &SortSpec) -> Document {
    sort.keys
        .iter()
        .map(|(k, asc)| (k.clone(), Bson::Int32(if *asc { 1 } else { -1 })))
        .collect()
}

/// Inclusion or exclusion of top-level fields only: PROJECTION_SIMPLE.
fn projection_stage_name(p: &Document) -> &'static str {
    let simple = p.iter().all(|(k, v)| {
        !k.contains('.')
            && !k.contains('$')
            && matches!(
                v,
                Bson::Boolean(_) | Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_)
            )
    });
    if simple {
        "PROJECTION_SIMPLE"
    } else {
        "PROJECTION_DEFAULT"
    }
}

/// The whole stage tree of a find: access, then SORT, SKIP, PROJECTION, LIMIT.
pub(crate) fn find_tree(
    c: Option<&Collection>,
    a: &Access,
    plan: &Plan,
    shape: &FindShape,
    exec: Option<(&ScanStats, usize)>,
) -> Document {
    let (mut tree, mut works) = access(c, a, plan, exec);
    let provides_sort = match a {
        Access::Index(p) => p.provides_sort,
        Access::CollScan { .. } => plan.natural_sort,
        Access::Eof => false,
    };
    let skip = usize::try_from(shape.skip).unwrap_or(0);
    let limit = usize::try_from(shape.limit.unsigned_abs()).unwrap_or(usize::MAX);
    let mut flowing = exec.map_or(0, |(_, m)| m);
    let sorting = shape.sort.filter(|s| !s.is_empty() && !provides_sort);
    if let Some(sort) = sorting {
        let mut fields = doc! { "sortPattern": sort_doc(sort), "memLimit": SORT_MEM_LIMIT };
        if limit > 0 {
            fields.insert("limitAmount", num(skip.saturating_add(limit)));
            flowing = flowing.min(skip.saturating_add(limit));
        }
        fields.insert("type", "simple");
        let counters = exec.map(|_| {
            works += flowing + 1;
            Counters {
                returned: flowing,
                works,
                eof: true,
            }
        });
        if exec.is_some() {
            fields.insert("usedDisk", false);
            fields.insert("spills", 0);
            fields.insert("spilledDataStorageSize", 0);
        }
        tree = stage("SORT", None, counters, fields, Some(tree));
    }
    let eof_below = exec.is_some_and(|(s, _)| s.eof) || sorting.is_some();
    if skip > 0 {
        flowing = flowing.saturating_sub(skip);
        let counters = exec.map(|_| Counters {
            returned: flowing,
            works,
            eof: eof_below,
        });
        tree = stage(
            "SKIP",
            None,
            counters,
            doc! { "skipAmount": num(skip) },
            Some(tree),
        );
    }
    if let Some(p) = shape.projection.filter(|p| !p.is_empty()) {
        let counters = exec.map(|_| Counters {
            returned: if sorting.is_none() && limit > 0 {
                flowing.min(limit)
            } else {
                flowing
            },
            works,
            eof: eof_below,
        });
        tree = stage(
            projection_stage_name(p),
            None,
            counters,
            doc! { "transformBy": p.clone() },
            Some(tree),
        );
    }
    if limit > 0 && sorting.is_none() {
        flowing = flowing.min(limit);
        let counters = exec.map(|_| Counters {
            returned: flowing,
            works,
            eof: true,
        });
        tree = stage(
            "LIMIT",
            None,
            counters,
            doc! { "limitAmount": num(limit) },
            Some(tree),
        );
    }
    tree
}

/// MongoDB 8 answers `{_id: <value>}` by the express path, without planning.
pub(crate) fn express(shape: &FindShape, plan: &Plan, hinted: bool) -> bool {
    if hinted || shape.skip != 0 || shape.sort.is_some_and(|s| !s.is_empty()) {
        return false;
    }
    let Some(Access::Index(p)) = Some(&plan.access) else {
        return false;
    };
    if p.index != 0 || shape.filter.len() != 1 {
        return false;
    }
    let value = match shape.filter.get("_id") {
        Some(Bson::Document(d)) if d.len() == 1 => d.get("$eq"),
        Some(Bson::Document(_)) | None => None,
        Some(v) => Some(v),
    };
    matches!(value, Some(v) if !matches!(
        v,
        Bson::Array(_) | Bson::RegularExpression(_) | Bson::Document(_) | Bson::Null | Bson::Undefined | Bson::MinKey | Bson::MaxKey
    ))
}

/// The find command the shell sends, as explain echoes it.
fn find_command(coll: &str, shape: &FindShape, hint: Option<&Bson>) -> Document {
    let mut d = doc! { "find": coll, "filter": shape.filter.clone() };
    if let Some(s) = shape.sort.filter(|s| !s.is_empty()) {
        d.insert("sort", sort_doc(s));
    }
    if let Some(p) = shape.projection.filter(|p| !p.is_empty()) {
        d.insert("projection", p.clone());
    }
    if shape.skip != 0 {
        d.insert("skip", num(usize::try_from(shape.skip).unwrap_or(0)));
    }
    if shape.limit != 0 {
        d.insert(
            "limit",
            num(usize::try_from(shape.limit.unsigned_abs()).unwrap_or(0)),
        );
    }
    if let Some(h) = hint {
        d.insert("hint", h.clone());
    }
    d.insert("$db", Database::current_name());
    d
}

/// `find(...).explain(verbosity)`; `returned` is how many documents the find returned.
pub fn find(
    c: Option<&Collection>,
    coll: &str,
    shape: &FindShape,
    ran: &Executed,
    returned: usize,
    verbosity: Verbosity,
    hint: Option<&Bson>,
) -> Bson {
    let ns = Database::namespace(coll);
    let command = find_command(coll, shape, hint);
    let hinted = hint.is_some();
    let plan = &ran.plan;
    let with_exec = verbosity >= Verbosity::ExecutionStats;
    let exec = with_exec.then_some((&ran.stats, ran.matched));
    let (winning, stages) = if express(shape, plan, hinted) {
        let fields =
            doc! { "stage": "EXPRESS_IXSCAN", "keyPattern": "{ _id: 1 }", "indexName": "_id_" };
        let mut stages = fields.clone();
        stages.insert("keysExamined", num(ran.stats.keys_examined));
        stages.insert("docsExamined", num(ran.stats.docs_examined));
        stages.insert("nReturned", num(returned));
        (uncached(fields), uncached(stages))
    } else {
        (
            uncached(find_tree(c, &plan.access, plan, shape, None)),
            uncached(find_tree(c, &plan.access, plan, shape, exec)),
        )
    };
    let rejected: Vec<Bson> = plan
        .rejected
        .iter()
        .map(|p| Bson::Document(find_tree(c, &Access::Index(p.clone()), plan, shape, None)))
        .collect();
    let mut out = doc! { "explainVersion": "1" };
    out.insert(
        "queryPlanner",
        query_planner(&ns, parsed_query(plan), winning, rejected),
    );
    if with_exec {
        let mut es = doc! {
            "executionSuccess": true,
            "nReturned": num(returned),
            "executionTimeMillis": 0,
            "totalKeysExamined": num(ran.stats.keys_examined),
            "totalDocsExamined": num(ran.stats.docs_examined),
            "executionStages": stages,
        };
        if verbosity == Verbosity::AllPlansExecution {
            es.insert("allPlansExecution", Bson::Array(Vec::new()));
        }
        out.insert("executionStats", es);
    }
    out.insert("command", command);
    out.insert("ok", 1);
    Bson::Document(out)
}

pub(crate) fn query_planner(
    ns: &str,
    parsed: Document,
    winning: Document,
    rejected: Vec<Bson>,
) -> Document {
    doc! {
        "namespace": ns,
        "parsedQuery": parsed,
        "indexFilterSet": false,
        "optimizationTimeMillis": 0,
        "maxIndexedOrSolutionsReached": false,
        "maxIndexedAndSolutionsReached": false,
        "maxScansToExplodeReached": false,
        "prunedSimilarIndexes": false,
        "winningPlan": winning,
        "rejectedPlans": rejected,
    }
}

/// What one read did, for the page's "work done" line under its result:
/// the access stage (`IXSCAN`, `COLLSCAN`...), the index, the keys and
/// documents examined, and the read's explain("executionStats").
#[derive(Clone, Debug, PartialEq)]
pub struct WorkDone {
    pub stage: String,
    pub index: Option<String>,
    pub keys_examined: usize,
    pub docs_examined: usize,
    pub returned: usize,
    /// A count's answer (its stage's `nCounted`): a count returns no documents.
    pub counted: Option<usize>,
    pub explain: Bson,
}

impl WorkDone {
    /// Summarise an explain("executionStats") document: the figures come
    /// from its executionStats, the stage from the leaf of its winning plan.
    pub fn from_explain(explain: Bson) -> WorkDone {
        let stats = match &explain {
            Bson::Document(d) => d.get_document("executionStats").ok(),
            _ => None,
        };
        let count = |k: &str| {
            stats
                .and_then(|s| s.get(k))
                .and_then(crate::value::numeric::to_i64_exact)
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0)
        };
        let mut leaf = stats.and_then(|s| s.get_document("executionStages").ok());
        let mut counted = None;
        while let Some(stage) = leaf {
            counted = counted.or_else(|| {
                stage
                    .get("nCounted")
                    .and_then(crate::value::numeric::to_i64_exact)
                    .and_then(|n| usize::try_from(n).ok())
            });
            match stage.get_document("inputStage") {
                Ok(input) => leaf = Some(input),
                Err(_) => break,
            }
        }
        let text = |k: &str| leaf.and_then(|d| d.get_str(k).ok()).map(str::to_string);
        WorkDone {
            stage: text("stage").unwrap_or_default(),
            index: text("indexName"),
            keys_examined: count("totalKeysExamined"),
            docs_examined: count("totalDocsExamined"),
            returned: count("nReturned"),
            counted,
            explain,
        }
    }
}
