//! explain() of `aggregate`: the leading stages run as a query, the rest
//! listed after the `$cursor` stage.
use super::super::{Database, Session};
use super::{execute, execution_stats, wrap};
use crate::aggregate::Pipeline;
use crate::error::Result;
use crate::expr::{CompileCtx, Scope};
use crate::index::explain::{
    express, find_tree, num, parsed_query, query_planner, uncached, FindShape, Verbosity,
};
use crate::index::plan::Access;
use crate::query::sort::SortSpec;
use crate::query::Filter;
use bson::{doc, Bson, Document};

/// The pipeline's leading `$match`es and `$sort`/`$skip`/`$limit`/`$project`
/// run as a query; what remains follows the `$cursor` stage.
/// See https://www.mongodb.com/docs/manual/core/query-plans/#aggregation-pipeline-optimization.
pub fn aggregate(
    session: &mut Session,
    coll: &str,
    stages: &[Bson],
    hint: Option<&Bson>,
    v: Verbosity,
) -> Result<Bson> {
    // Compiling first reports pipeline errors as aggregate() would.
    let pipeline = Pipeline::compile(stages, &CompileCtx::default())?;
    if pipeline.has_text() {
        return super::text::aggregate(session, coll, stages, v);
    }
    if let Some(explained) = super::geo_near::aggregate(session, coll, stages, v)? {
        return Ok(explained);
    }
    let mut matches = Vec::new();
    let mut sort: Option<Document> = None;
    let (mut skip, mut limit) = (0i64, 0i64);
    let mut projection: Option<Document> = None;
    let mut pushed = 0;
    for s in stages {
        let Bson::Document(d) = s else { break };
        let Some((name, arg)) = d.iter().next() else {
            break;
        };
        match (name.as_str(), arg) {
            ("$match", Bson::Document(m))
                if sort.is_none() && skip == 0 && limit == 0 && projection.is_none() =>
            {
                matches.push(Bson::Document(m.clone()))
            }
            ("$sort", Bson::Document(s))
                if sort.is_none() && skip == 0 && limit == 0 && projection.is_none() =>
            {
                sort = Some(s.clone())
            }
            ("$skip", n) if limit == 0 && projection.is_none() => {
                skip += crate::value::numeric::to_i64_exact(n).unwrap_or(0)
            }
            ("$limit", n) if projection.is_none() => {
                limit = crate::value::numeric::to_i64_exact(n).unwrap_or(0)
            }
            ("$project", Bson::Document(p)) if projection.is_none() => projection = Some(p.clone()),
            _ => break,
        }
        pushed += 1;
    }
    let filter_doc = match matches.len() {
        0 => Document::new(),
        1 => match matches.pop() {
            Some(Bson::Document(d)) => d,
            _ => Document::new(),
        },
        _ => doc! { "$and": matches },
    };
    let sort_spec = sort.as_ref().map(SortSpec::compile).transpose()?;
    let ns = Database::namespace(coll);
    let with_exec = v >= Verbosity::ExecutionStats;
    let c = session.db.collection(coll);
    let (docs, ran) = execute(
        c,
        &filter_doc,
        Filter::compile,
        sort_spec.as_ref(),
        hint,
        &session.run,
        usize::MAX,
    )?;
    let shape = FindShape {
        filter: &filter_doc,
        sort: sort_spec.as_ref(),
        projection: projection.as_ref(),
        skip,
        limit,
    };
    let skip_n = usize::try_from(skip).unwrap_or(0);
    let limit_n = if limit > 0 {
        usize::try_from(limit).unwrap_or(usize::MAX)
    } else {
        usize::MAX
    };
    let returned = docs.len().saturating_sub(skip_n).min(limit_n);
    let winning = if express(&shape, &ran.plan, false) && pushed == stages.len() {
        doc! { "stage": "EXPRESS_IXSCAN", "keyPattern": "{ _id: 1 }", "indexName": "_id_" }
    } else {
        find_tree(c, &ran.plan.access, &ran.plan, &shape, None)
    };
    let exec_tree = find_tree(
        c,
        &ran.plan.access,
        &ran.plan,
        &shape,
        Some((&ran.stats, ran.matched)),
    );
    let rejected: Vec<Bson> = ran
        .plan
        .rejected
        .iter()
        .map(|p| {
            Bson::Document(find_tree(
                c,
                &Access::Index(p.clone()),
                &ran.plan,
                &shape,
                None,
            ))
        })
        .collect();
    let command = doc! { "aggregate": coll, "pipeline": stages.to_vec(), "explain": true, "cursor": {}, "$db": Database::current_name() };
    let parsed = parsed_query(&ran.plan);
    if pushed == stages.len() {
        return Ok(wrap(
            &ns,
            parsed,
            winning,
            rejected,
            with_exec.then_some((returned, &ran, exec_tree)),
            command,
        ));
    }
    // The query part feeds the remaining stages, listed as written.
    let mut cursor = doc! {
        "queryPlanner": query_planner(&ns, parsed, uncached(winning), rejected),
    };
    if with_exec {
        cursor.insert("executionStats", execution_stats(returned, &ran, exec_tree));
    }
    let mut docs = docs;
    if let Some(s) = sort_spec.as_ref().filter(|_| !ran.plan.provides_sort()) {
        s.sort_refs(&mut docs);
    }
    let mut flowing: Vec<Document> = docs
        .into_iter()
        .skip(skip_n)
        .take(limit_n)
        .cloned()
        .collect();
    let mut out_stages = vec![Bson::Document(doc! { "$cursor": cursor })];
    let scope = Scope::new(&session.run);
    for s in &stages[pushed..] {
        let mut shown = match s {
            Bson::Document(d) => d.clone(),
            other => doc! { "stage": other.clone() },
        };
        if with_exec {
            let writes = shown.contains_key("$out") || shown.contains_key("$merge");
            if !writes {
                let one = Pipeline::compile(std::slice::from_ref(s), &CompileCtx::default())?;
                flowing = one.run(std::mem::take(&mut flowing), session.db, &scope)?;
            }
            shown.insert("nReturned", num(flowing.len()));
            shown.insert("executionTimeMillisEstimate", 0);
        }
        out_stages.push(Bson::Document(shown));
    }
    Ok(Bson::Document(doc! {
        "explainVersion": "1",
        "stages": out_stages,
        "command": command,
        "ok": 1,
    }))
}
