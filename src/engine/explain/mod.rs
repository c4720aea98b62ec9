//! `db.c.explain(verbosity).<method>(...)`: find (handed to the cursor code
//! with a trailing `explain()`), count, distinct, aggregate and the write
//! methods, which are planned (and with "executionStats" run without
//! writing). The stage documents come from `crate::index::explain`.
//! See https://www.mongodb.com/docs/manual/reference/method/db.collection.explain/.
mod count;
mod distinct;
mod geo_near;
mod pipeline;
mod text;
mod write;

pub(super) use count::of_count;
pub(super) use distinct::of_distinct;
pub use pipeline::aggregate;

use super::{Call, Command, Method, Session};
use crate::context::RunCtx;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::index::explain::{access, num, query_planner, uncached, verbosity};
use crate::index::plan::{plan, Access, Executed, Plan};
use crate::query::sort::SortSpec;
use crate::query::Filter;
use crate::storage::Collection;
use crate::text::shell::type_name;
use bson::{doc, Bson, Document};

pub fn run(session: &mut Session, cmd: &Command) -> Result<Bson> {
    let (coll, calls, first) = (cmd.collection, cmd.calls, cmd.call);
    first.max_args(1)?;
    let v = verbosity(first.arg(0).map(|a| &a.value)).map_err(|e| e.at(first.span))?;
    let Some(method) = calls.get(1) else {
        return Err(Error::bad_value(
            "db.collection.explain() explains a method: db.collection.explain().find({...})",
        )
        .at(first.span));
    };
    let rest = &calls[2..];
    let name = method.name.as_str();
    let explained = Method::parse(name);
    if explained == Some(Method::Find) {
        // The cursor code explains: find(...).<modifiers>.explain(verbosity).
        let mut chain: Vec<Call> = calls[1..].to_vec();
        chain.push(Call {
            name: "explain".to_string(),
            span: first.span,
            args: first.args.clone(),
        });
        let find = Command {
            collection: coll,
            method: Method::Find,
            calls: &chain,
            call: &chain[0],
            modifiers: &chain[1..],
        };
        return super::read::run(session, &find).map(|a| a.into_bson(session.db));
    }
    if let Some(c) = rest.first() {
        return Err(Error::bad_value(format!(
            "{}() cannot be chained after an explained {name}()",
            c.name
        ))
        .at(c.span));
    }
    let out = match explained {
        Some(Method::Count) => count::count(session, coll, method, v),
        Some(Method::Distinct) => distinct::distinct(session, coll, method, v),
        Some(Method::Aggregate) => {
            let stages = match method.arg(0).map(|a| &a.value) {
                Some(Bson::Array(items)) => items.clone(),
                Some(Bson::Document(_)) => method.args.iter().map(|a| a.value.clone()).collect(),
                None => Vec::new(),
                Some(other) => {
                    return Err(Error::type_mismatch(format!(
                        "aggregate() expects an array of stages, got {}",
                        type_name(other)
                    ))
                    .at(method.span))
                }
            };
            let hint = match method.arg(0).map(|a| &a.value) {
                Some(Bson::Array(_)) => method
                    .arg(1)
                    .and_then(|a| a.value.as_document())
                    .and_then(|o| o.get("hint")),
                _ => None,
            };
            aggregate(session, coll, &stages, hint, v)
        }
        Some(m) if m.explainable_write() => write::write(session, coll, method, m, v),
        _ => Err(Error::not_supported(format!("explain() of {name}()"))),
    };
    out.map_err(|e| e.at(method.span))
}

/// How a filter is compiled: `Filter::compile` for a count's, a distinct's or a
/// pipeline's (`$near` refused), `Filter::compile_find` for a write's (`$near`
/// runs: the documents within its distances, nearest first).
type CompileFilter = fn(&Document, &CompileCtx) -> Result<Filter>;

/// Plan and run a filter: the matching documents (at most `max`) and the work done.
fn execute<'c>(
    c: Option<&'c Collection>,
    filter_doc: &Document,
    compile: CompileFilter,
    sort: Option<&SortSpec>,
    hint: Option<&Bson>,
    run: &RunCtx,
    max: usize,
) -> Result<(Vec<&'c Document>, Executed)> {
    let filter = compile(filter_doc, &CompileCtx::default())?;
    let filter = crate::index::text::bind(&filter, Some(filter_doc), c)?;
    let plan = plan(c, &filter, sort, hint)?;
    let near = match (filter.near(), c) {
        (Some((path, q)), Some(c)) => {
            crate::aggregate::stages::geo_near::near_index(c, path.dotted(), q)?;
            Some((path, q))
        }
        _ => None,
    };
    let scope = Scope::new(run);
    let mut matched = Vec::new();
    let mut scan = plan.scan(c);
    for d in scan.by_ref() {
        if filter.matches(d, &scope)? {
            matched.push(d);
            if matched.len() >= max && near.is_none() {
                break;
            }
        }
    }
    if let Some((path, q)) = near {
        let order = crate::aggregate::stages::geo_near::nearest(
            matched.iter().copied().enumerate(),
            path,
            q,
        );
        matched = order
            .into_iter()
            .filter_map(|(i, _, _)| matched.get(i).copied())
            .take(max)
            .collect();
    }
    let stats = scan.stats;
    let n = matched.len();
    Ok((
        matched,
        Executed {
            plan,
            stats,
            matched: n,
        },
    ))
}

/// A count's or a distinct's filter run to the end (no sort, no limit).
fn execute_all<'c>(
    session: &'c Session,
    coll: &str,
    filter_doc: &Document,
    hint: Option<&Bson>,
) -> Result<(Vec<&'c Document>, Executed)> {
    let c = session.db.collection(coll);
    execute(
        c,
        filter_doc,
        Filter::compile,
        None,
        hint,
        &session.run,
        usize::MAX,
    )
}

/// The explain document around a winning plan (and its execution).
fn wrap(
    ns: &str,
    parsed: Document,
    winning: Document,
    rejected: Vec<Bson>,
    exec: Option<(usize, &Executed, Document)>,
    command: Document,
) -> Bson {
    let mut out = doc! { "explainVersion": "1" };
    out.insert(
        "queryPlanner",
        query_planner(ns, parsed, uncached(winning), rejected),
    );
    if let Some((returned, ran, stages)) = exec {
        out.insert("executionStats", execution_stats(returned, ran, stages));
    }
    out.insert("command", command);
    out.insert("ok", 1);
    Bson::Document(out)
}

/// The `executionStats` section (times are 0: runs are deterministic).
fn execution_stats(returned: usize, ran: &Executed, stages: Document) -> Document {
    doc! {
        "executionSuccess": true,
        "nReturned": num(returned),
        "executionTimeMillis": 0,
        "totalKeysExamined": num(ran.stats.keys_examined),
        "totalDocsExamined": num(ran.stats.docs_examined),
        "executionStages": uncached(stages),
    }
}

fn rejected(c: Option<&Collection>, plan: &Plan) -> Vec<Bson> {
    plan.rejected
        .iter()
        .map(|p| Bson::Document(access(c, &Access::Index(p.clone()), plan, None).0))
        .collect()
}
