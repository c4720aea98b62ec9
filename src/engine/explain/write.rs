//! explain() of the update and delete methods.
use super::super::write::{DeleteArgs, FindModifyArgs, UpdateArgs};
use super::super::{Call, Database, Method, Session};
use super::{execute, rejected, wrap};
use crate::error::Result;
use crate::expr::{CompileCtx, Scope};
use crate::index::explain::{
    express, find_tree, num, parsed_query, stage, Counters, FindShape, Verbosity,
};
use crate::query::sort::SortSpec;
use crate::query::Filter;
use crate::update::Update;
use bson::{doc, Bson, Document};

/// Update and delete methods: UPDATE or DELETE over the access plan; with
/// execution statistics, what the write would do (nothing is written). The
/// arguments are decoded as the run decodes them.
pub(super) fn write(
    session: &Session,
    coll: &str,
    call: &Call,
    m: Method,
    v: Verbosity,
) -> Result<Bson> {
    let run = &session.run;
    let (filter_doc, update_arg, opts, multi) = match m {
        Method::DeleteOne | Method::DeleteMany | Method::Remove => {
            let a = DeleteArgs::decode(call, m, run)?;
            (a.filter, None, a.opts, a.multi)
        }
        Method::FindOneAndUpdate | Method::FindOneAndReplace | Method::FindOneAndDelete => {
            let a = FindModifyArgs::decode(call, m, run)?;
            (a.filter, a.update, a.opts, false)
        }
        _ => {
            let a = UpdateArgs::decode(call, m, run)?;
            (a.filter, Some(a.update), a.opts, a.multi)
        }
    };
    let filter_doc = &filter_doc;
    let is_delete = update_arg.is_none();
    let upsert = opts.upsert;
    let sort = match &opts.sort {
        Some(s) if !multi => Some(SortSpec::compile(s)?),
        _ => None,
    };
    let update = update_arg
        .as_ref()
        .map(|u| Update::compile(u, opts.array_filters.as_deref(), &CompileCtx::default()))
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
        Filter::compile_find,
        sort.as_ref(),
        opts.hint.as_ref(),
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
    let express_path = !multi && express(&shape, &ran.plan, opts.hint.is_some());
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
        parsed_query(&ran.plan),
        tree(false),
        if express_path {
            Vec::new()
        } else {
            rejected(c, &ran.plan)
        },
        (v >= Verbosity::ExecutionStats).then(|| (0, &ran, tree(true))),
        command,
    ))
}
