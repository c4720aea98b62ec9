//! explain() of the update and delete methods.
use super::super::{Call, Database, Session};
use super::{execute_write, rejected, wrap};
use crate::error::Result;
use crate::expr::{CompileCtx, Scope};
use crate::index::explain::{
    express, find_tree, num, parsed_query, stage, Counters, FindShape, Verbosity,
};
use crate::query::sort::SortSpec;
use crate::update::Update;
use bson::{doc, Bson, Document};

/// Update and delete methods: UPDATE or DELETE over the access plan; with
/// execution statistics, what the write would do (nothing is written).
pub(super) fn write(session: &Session, coll: &str, call: &Call, v: Verbosity) -> Result<Bson> {
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
    let (docs, ran) = execute_write(
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
