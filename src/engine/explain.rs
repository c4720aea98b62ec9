//! `db.c.explain(verbosity).<method>(...)`: find (handed to the cursor code
//! with a trailing `explain()`), count, distinct, aggregate and the write
//! methods, which are planned (and with "executionStats" run without
//! writing). The stage documents come from `crate::index::explain`.
//! See https://www.mongodb.com/docs/manual/reference/method/db.collection.explain/.
use super::{Call, Command, Database, Method, Session};
use crate::aggregate::Pipeline;
use crate::context::RunCtx;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::index::explain::{
    access, express, find_tree, index_fields, num, parsed_query, query_planner, stage, uncached,
    verbosity, Counters, FindShape, Verbosity,
};
use crate::index::plan::{plan, ranges, Access, Executed, Plan};
use crate::query::sort::SortSpec;
use crate::query::Filter;
use crate::storage::Collection;
use crate::text::shell::type_name;
use crate::update::Update;
use bson::{doc, Bson, Document};
use std::ops::Bound;

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
        Some(Method::Count) => count(session, coll, method, v),
        Some(Method::Distinct) => distinct(session, coll, method, v),
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
            aggregate(session, coll, &stages, v)
        }
        Some(m) if m.explainable_write() => write(session, coll, method, v),
        _ => Err(Error::not_supported(format!("explain() of {name}()"))),
    };
    out.map_err(|e| e.at(method.span))
}

/// A count or distinct's explain("executionStats"), for the page's "work
/// done" line (`Null` when it cannot be explained). `countDocuments` is
/// explained as the count it amounts to.
pub(super) fn of_distinct(
    session: &Session,
    coll: &str,
    call: &Call,
    field: &str,
    ran: &Executed,
) -> Bson {
    distinct_explained(session, coll, call, field, Verbosity::ExecutionStats, ran)
        .unwrap_or(Bson::Null)
}

/// The work line of a count that has run: its explain("executionStats") from
/// that very run.
pub(super) fn of_count(session: &Session, coll: &str, call: &Call, run: CountRun) -> Bson {
    counted_explain(session, coll, call, Verbosity::ExecutionStats, run).unwrap_or(Bson::Null)
}

/// Plan and run a filter: the matching documents (at most `max`) and the work done.
fn execute<'c>(
    c: Option<&'c Collection>,
    filter_doc: &Document,
    sort: Option<&SortSpec>,
    hint: Option<&Bson>,
    run: &RunCtx,
    max: usize,
) -> Result<(Vec<&'c Document>, Executed)> {
    let filter = Filter::compile(filter_doc, &CompileCtx::default())?;
    let plan = plan(c, filter_doc, sort, hint)?;
    let scope = Scope::new(run);
    let mut matched = Vec::new();
    let mut scan = plan.scan(c);
    for d in scan.by_ref() {
        if filter.matches(d, &scope)? {
            matched.push(d);
            if matched.len() >= max {
                break;
            }
        }
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

fn rejected(c: Option<&Collection>, plan: &Plan, filter: &Document) -> Vec<Bson> {
    plan.rejected
        .iter()
        .map(|p| Bson::Document(access(c, &Access::Index(p.clone()), plan, filter, None).0))
        .collect()
}

/// `count(filter, {skip, limit, hint})`: COUNT over the access plan, COUNT_SCAN
/// when one index range answers the filter exactly, RECORD_STORE_FAST_COUNT
/// without a filter.
fn count(session: &Session, coll: &str, call: &Call, v: Verbosity) -> Result<Bson> {
    call.max_args(2)?;
    let empty = Document::new();
    let filter_doc = call.doc_arg(0, "filter")?.unwrap_or(&empty);
    let opts = call.doc_arg(1, "options")?.unwrap_or(&empty);
    let c = session.db.collection(coll);
    let (docs, ran) = execute(
        c,
        filter_doc,
        None,
        opts.get("hint"),
        &session.run,
        usize::MAX,
    )?;
    let skip = opts
        .get("skip")
        .and_then(crate::value::numeric::to_i64_exact)
        .unwrap_or(0);
    let limit = opts
        .get("limit")
        .and_then(crate::value::numeric::to_i64_exact)
        .unwrap_or(0);
    let counted = CountRun {
        ran,
        matched: docs.len(),
        skip: usize::try_from(skip).unwrap_or(0),
        limit: usize::try_from(limit.unsigned_abs()).unwrap_or(usize::MAX),
    };
    counted_explain(session, coll, call, v, counted)
}

/// What a count did: the plan, the scan's work, how many documents matched,
/// and the skip and limit (0: none) it applied.
pub(super) struct CountRun {
    pub ran: Executed,
    pub matched: usize,
    pub skip: usize,
    pub limit: usize,
}

/// The explain of a count from the count's own execution (nothing is scanned again).
pub(super) fn counted_explain(
    session: &Session,
    coll: &str,
    call: &Call,
    v: Verbosity,
    run: CountRun,
) -> Result<Bson> {
    let empty = Document::new();
    let filter_doc = call.doc_arg(0, "filter")?.unwrap_or(&empty);
    let opts = call.doc_arg(1, "options")?.unwrap_or(&empty);
    let hint = opts.get("hint");
    let ns = Database::namespace(coll);
    let c = session.db.collection(coll);
    let CountRun {
        mut ran,
        matched,
        skip,
        limit,
    } = run;
    let mut command = doc! { "count": coll, "query": filter_doc.clone() };
    for k in ["skip", "limit", "hint"] {
        if let Some(x) = opts.get(k) {
            command.insert(k, x.clone());
        }
    }
    command.insert("$db", Database::current_name());
    let with_exec = v >= Verbosity::ExecutionStats;
    let fast = filter_doc.is_empty() && hint.is_none() && c.is_some();
    if fast {
        // The count comes from the collection's metadata: nothing is scanned.
        ran.stats = Default::default();
    }
    let mut counted = matched.saturating_sub(skip);
    if limit != 0 {
        counted = counted.min(limit);
    }
    let parsed = parsed_query(filter_doc, &ran.plan.conds);
    let count_fields = |d: &mut Document| {
        d.insert("nCounted", num(counted));
        d.insert("nSkipped", num(matched.min(skip)));
    };
    if fast {
        let winning = doc! { "stage": "RECORD_STORE_FAST_COUNT" };
        let mut stages = stage(
            "RECORD_STORE_FAST_COUNT",
            None,
            Some(Counters {
                returned: 0,
                works: 1,
                eof: true,
            }),
            Document::new(),
            None,
        );
        count_fields(&mut stages);
        return Ok(wrap(
            &ns,
            parsed,
            winning,
            Vec::new(),
            with_exec.then_some((0, &ran, stages)),
            command,
        ));
    }
    if count_scan(c, &ran, filter_doc, false).is_some() {
        // COUNT_SCAN counts index keys and fetches no document.
        ran.stats.docs_examined = 0;
    }
    let input = |exec: bool| match count_scan(c, &ran, filter_doc, exec) {
        Some(d) => d,
        None => {
            access(
                c,
                &ran.plan.access,
                &ran.plan,
                filter_doc,
                exec.then_some((&ran.stats, ran.matched)),
            )
            .0
        }
    };
    let winning = stage("COUNT", None, None, Document::new(), Some(input(false)));
    let mut fields = Document::new();
    count_fields(&mut fields);
    let works = ran.stats.keys_examined.max(ran.stats.docs_examined) + 1;
    let stages = stage(
        "COUNT",
        None,
        Some(Counters {
            returned: 0,
            works,
            eof: true,
        }),
        fields,
        Some(input(true)),
    );
    Ok(wrap(
        &ns,
        parsed,
        winning,
        rejected(c, &ran.plan, filter_doc),
        with_exec.then_some((0, &ran, stages)),
        command,
    ))
}

/// COUNT_SCAN: the index alone answers the count (exact bounds, one range,
/// no arrays), so no document is fetched.
fn count_scan(
    c: Option<&Collection>,
    ran: &Executed,
    filter: &Document,
    exec: bool,
) -> Option<Document> {
    let p = ran.plan.index_plan()?;
    let ix = c?.indexes().iter().nth(p.index)?;
    let exact = p.exact.iter().all(|e| *e) && !filter.keys().any(|k| k.starts_with('$'));
    if !exact || ix.is_multikey() || ix.spec.partial.is_some() || ix.spec.sparse {
        return None;
    }
    let rs = ranges(ix, p);
    let [(lo, hi)] = rs.as_slice() else {
        return None;
    };
    let names = ix.spec.field_names();
    let key_doc = |b: &Bound<(crate::storage::index::key::Key, u64)>| -> (Document, bool) {
        match b {
            Bound::Included((k, _)) | Bound::Excluded((k, _)) => (
                names.iter().cloned().zip(k.vals.iter().cloned()).collect(),
                matches!(b, Bound::Included(_)),
            ),
            Bound::Unbounded => (Document::new(), true),
        }
    };
    let (start, start_inc) = key_doc(lo);
    let (end, end_inc) = key_doc(hi);
    let mut fields = index_fields(ix);
    fields.insert(
        "indexBounds",
        doc! { "startKey": start, "startKeyInclusive": start_inc, "endKey": end, "endKeyInclusive": end_inc },
    );
    let counters = exec.then(|| {
        fields.insert("keysExamined", num(ran.stats.keys_examined));
        Counters {
            returned: 0,
            works: ran.stats.keys_examined + 1,
            eof: true,
        }
    });
    Some(stage("COUNT_SCAN", None, counters, fields, None))
}

/// `distinct(field, filter)`: the projection of the field over the access plan.
fn distinct(session: &Session, coll: &str, call: &Call, v: Verbosity) -> Result<Bson> {
    call.max_args(3)?;
    let Some(Bson::String(field)) = call.arg(0).map(|a| &a.value) else {
        return Err(Error::type_mismatch(
            "distinct() needs a field name (a string)",
        ));
    };
    let empty = Document::new();
    let filter_doc = call.doc_arg(1, "filter")?.unwrap_or(&empty);
    let opts = call.doc_arg(2, "options")?.unwrap_or(&empty);
    let c = session.db.collection(coll);
    let (_, ran) = execute(
        c,
        filter_doc,
        None,
        opts.get("hint"),
        &session.run,
        usize::MAX,
    )?;
    distinct_explained(session, coll, call, field, v, &ran)
}

/// The explain of a distinct from an execution of its filter.
fn distinct_explained(
    session: &Session,
    coll: &str,
    call: &Call,
    field: &str,
    v: Verbosity,
    ran: &Executed,
) -> Result<Bson> {
    let empty = Document::new();
    let filter_doc = call.doc_arg(1, "filter")?.unwrap_or(&empty);
    let ns = Database::namespace(coll);
    let c = session.db.collection(coll);
    let transform = doc! { field: 1, "_id": 0 };
    let tree = |exec: bool| {
        let input = access(
            c,
            &ran.plan.access,
            &ran.plan,
            filter_doc,
            exec.then_some((&ran.stats, ran.matched)),
        );
        let counters = exec.then_some(Counters {
            returned: ran.matched,
            works: input.1,
            eof: true,
        });
        stage(
            "PROJECTION_SIMPLE",
            None,
            counters,
            doc! { "transformBy": transform.clone() },
            Some(input.0),
        )
    };
    let command = doc! { "distinct": coll, "key": field, "query": filter_doc.clone(), "$db": Database::current_name() };
    Ok(wrap(
        &ns,
        parsed_query(filter_doc, &ran.plan.conds),
        tree(false),
        rejected(c, &ran.plan, filter_doc),
        (v >= Verbosity::ExecutionStats).then(|| (ran.matched, ran, tree(true))),
        command,
    ))
}

/// The pipeline's leading `$match`es and `$sort`/`$skip`/`$limit`/`$project`
/// run as a query; what remains follows the `$cursor` stage.
/// See https://www.mongodb.com/docs/manual/core/query-plans/#aggregation-pipeline-optimization.
pub fn aggregate(session: &mut Session, coll: &str, stages: &[Bson], v: Verbosity) -> Result<Bson> {
    // Compiling first reports pipeline errors as aggregate() would.
    Pipeline::compile(stages, &CompileCtx::default())?;
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
        sort_spec.as_ref(),
        None,
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
    let parsed = parsed_query(&filter_doc, &ran.plan.conds);
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

/// Update and delete methods: UPDATE or DELETE over the access plan; with
/// execution statistics, what the write would do (nothing is written).
fn write(session: &Session, coll: &str, call: &Call, v: Verbosity) -> Result<Bson> {
    let name = call.name.as_str();
    let is_delete = matches!(
        name,
        "deleteOne" | "deleteMany" | "remove" | "findOneAndDelete"
    );
    let empty = Document::new();
    let filter_doc = call.doc_arg(0, "filter")?.unwrap_or(&empty);
    let update_arg = if is_delete {
        None
    } else {
        call.arg(1).map(|a| a.value.clone())
    };
    let opts_i = if is_delete { 1 } else { 2 };
    let opts = match call.arg(opts_i).map(|a| &a.value) {
        Some(Bson::Document(d)) => d.clone(),
        _ => Document::new(),
    };
    let multi = match name {
        "updateMany" | "deleteMany" => true,
        "update" => matches!(opts.get("multi"), Some(Bson::Boolean(true))),
        "remove" => !matches!(opts.get("justOne"), Some(Bson::Boolean(true))),
        _ => false,
    };
    let upsert = matches!(opts.get("upsert"), Some(Bson::Boolean(true)));
    let sort = match opts.get("sort") {
        Some(Bson::Document(s)) if !multi => Some(SortSpec::compile(s)?),
        _ => None,
    };
    let update = update_arg
        .as_ref()
        .map(|u| {
            let filters = match opts.get("arrayFilters") {
                Some(Bson::Array(f)) => Some(f.as_slice()),
                _ => None,
            };
            Update::compile(u, filters, &CompileCtx::default())
        })
        .transpose()?;
    let c = session.db.collection(coll);
    let max = if multi || sort.is_some() {
        usize::MAX
    } else {
        1
    };
    let (docs, ran) = execute(
        c,
        filter_doc,
        sort.as_ref(),
        opts.get("hint"),
        &session.run,
        max,
    )?;
    let targets: Vec<&Document> = match (&sort, multi) {
        (Some(s), false) => {
            let mut all = docs.clone();
            s.sort_refs(&mut all);
            all.into_iter().take(1).collect()
        }
        _ => docs.clone(),
    };
    let scope = Scope::new(&session.run);
    let mut would_modify = 0;
    if let Some(u) = &update {
        for d in &targets {
            let mut copy = (*d).clone();
            if u.apply(&mut copy, None, false, &scope)? {
                would_modify += 1;
            }
        }
    }
    let stage_name = if is_delete { "DELETE" } else { "UPDATE" };
    let shape = FindShape {
        filter: filter_doc,
        sort: sort.as_ref(),
        projection: None,
        skip: 0,
        limit: 0,
    };
    let express_path = !multi && express(&shape, &ran.plan, opts.contains_key("hint"));
    let tree = |exec: bool| -> Document {
        let mut fields = Document::new();
        if exec {
            if is_delete {
                fields.insert("nWouldDelete", num(targets.len()));
            } else {
                fields.insert("nMatched", num(targets.len()));
                fields.insert("nWouldModify", num(would_modify));
                fields.insert(
                    "nWouldUpsert",
                    num(usize::from(upsert && targets.is_empty())),
                );
            }
        }
        if express_path {
            let mut d = doc! {
                "stage": if is_delete { "EXPRESS_DELETE" } else { "EXPRESS_UPDATE" },
                "keyPattern": "{ _id: 1 }",
                "indexName": "_id_",
            };
            if exec {
                d.insert("keysExamined", num(ran.stats.keys_examined));
                d.insert("docsExamined", num(ran.stats.docs_examined));
                d.insert("nReturned", 0);
                d.extend(fields);
            }
            return d;
        }
        let input = find_tree(
            c,
            &ran.plan.access,
            &ran.plan,
            &shape,
            exec.then_some((&ran.stats, ran.matched)),
        );
        let counters = exec.then_some(Counters {
            returned: 0,
            works: ran.stats.keys_examined.max(ran.stats.docs_examined) + 1,
            eof: true,
        });
        stage(stage_name, None, counters, fields, Some(input))
    };
    let mut op = doc! { "q": filter_doc.clone() };
    if let Some(u) = &update_arg {
        op.insert("u", u.clone());
        op.insert("multi", multi);
        op.insert("upsert", upsert);
    } else {
        op.insert("limit", i32::from(!multi));
    }
    let command = if is_delete {
        doc! { "delete": coll, "deletes": [op], "ordered": true, "$db": Database::current_name() }
    } else {
        doc! { "update": coll, "updates": [op], "ordered": true, "$db": Database::current_name() }
    };
    Ok(wrap(
        &Database::namespace(coll),
        parsed_query(filter_doc, &ran.plan.conds),
        tree(false),
        if express_path {
            Vec::new()
        } else {
            rejected(c, &ran.plan, filter_doc)
        },
        (v >= Verbosity::ExecutionStats).then(|| (0, &ran, tree(true))),
        command,
    ))
}
