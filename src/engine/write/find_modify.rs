//! findOneAndUpdate, findOneAndReplace, findOneAndDelete and findAndModify:
//! one document (the first in `sort` order), returned before or after the write.
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.findOneAndUpdate/
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.findAndModify/
use super::super::{Call, Method, Session};
use super::exec::{self, Target};
use super::options::{self, Opts};
use super::update::check_update_argument;
use crate::error::{Error, Result, Span};
use crate::expr::{CompileCtx, Scope};
use crate::projection::Projection;
use crate::query::sort::SortSpec;
use crate::query::Filter;
use crate::update::Update;
use bson::{Bson, Document};

pub fn run(session: &mut Session, coll: &str, call: &Call, m: Method) -> Result<Bson> {
    match m {
        Method::FindAndModify => find_and_modify(session, coll, call),
        Method::FindOneAndDelete => {
            call.max_args(2)?;
            let filter = options::required_doc(call, 0, "findOneAndDelete", "filter")?;
            let opts = options::parse(call.doc_arg(1, "options")?, &session.run)
                .map_err(|e| e.at(call.span))?;
            delete_one(session, coll, filter, &opts).map_err(|e| e.at(call.span))
        }
        m => {
            let name = m.name();
            call.max_args(3)?;
            let filter = options::required_doc(call, 0, name, "filter")?;
            let update = options::required(call, 1, name)?;
            check_update_argument(m == Method::FindOneAndReplace, &update.value)
                .map_err(|e| e.at(update.span))?;
            let opts = options::parse(call.doc_arg(2, "options")?, &session.run)
                .map_err(|e| e.at(call.span))?;
            modify_one(session, coll, filter, &update.value, &opts, update.span)
                .map_err(|e| e.at(call.span))
        }
    }
}

/// mongosh's findAndModify: `remove` → findOneAndDelete; an update that is a
/// pipeline or has a `$` key → findOneAndUpdate; otherwise findOneAndReplace.
fn find_and_modify(session: &mut Session, coll: &str, call: &Call) -> Result<Bson> {
    call.max_args(1)?;
    let spec = options::required_doc(call, 0, "findAndModify", "options")?;
    let query = match spec.get("query") {
        None | Some(Bson::Undefined) => {
            return Err(Error::bad_value("Missing required property: \"query\"").at(call.span))
        }
        Some(Bson::Document(d)) => d.clone(),
        Some(Bson::Null) => Document::new(),
        Some(other) => {
            return Err(Error::type_mismatch(format!(
                "query must be an object, got {}",
                crate::text::shell::type_name(other)
            ))
            .at(call.span))
        }
    };
    let opts = options::parse(Some(spec), &session.run).map_err(|e| e.at(call.span))?;
    if matches!(spec.get("remove"), Some(Bson::Boolean(true))) {
        return delete_one(session, coll, &query, &opts).map_err(|e| e.at(call.span));
    }
    let update = match spec.get("update") {
        None | Some(Bson::Null | Bson::Undefined | Bson::Boolean(false)) => {
            return Err(
                Error::bad_value("Must specify options.update or options.remove").at(call.span),
            )
        }
        Some(u) => u.clone(),
    };
    let is_update = match &update {
        Bson::Array(_) => true,
        Bson::Document(d) => d.keys().any(|k| k.starts_with('$')),
        _ => false,
    };
    check_update_argument(!is_update, &update).map_err(|e| e.at(call.span))?;
    modify_one(session, coll, &query, &update, &opts, call.span).map_err(|e| e.at(call.span))
}

/// `matched_doc`: the answer is the document the filter matched (a delete,
/// or an update returning the document before), so a positional projection
/// (`a.$`) can use the filter's match; after an update it cannot
/// (jstests' find_and_modify_positional_new_remove.js).
fn compile_parts(
    filter_doc: &Document,
    opts: &Opts,
    ctx: &CompileCtx,
    matched_doc: bool,
) -> Result<(Filter, Option<SortSpec>, Option<Projection>)> {
    let filter = Filter::compile_find(filter_doc, ctx)?;
    let sort = opts.sort.as_ref().map(SortSpec::compile).transpose()?;
    let projection = match &opts.projection {
        Some(p) if !p.is_empty() => Some(Projection::compile_for_find(
            p,
            matched_doc.then_some(filter_doc),
            ctx,
        )?),
        _ => None,
    };
    Ok((filter, sort, projection))
}

fn project(
    doc: Option<Document>,
    projection: &Option<Projection>,
    position: Option<usize>,
    scope: &Scope,
) -> Result<Bson> {
    Ok(match (doc, projection) {
        (None, _) => Bson::Null,
        (Some(d), None) => Bson::Document(d),
        (Some(d), Some(p)) => Bson::Document(p.apply(&d, position, scope)?),
    })
}

fn modify_one(
    session: &mut Session,
    coll: &str,
    filter: &Document,
    update_spec: &Bson,
    opts: &Opts,
    update_span: Span,
) -> Result<Bson> {
    let ctx = opts.compile_ctx();
    let filter_doc = filter;
    let (filter, sort, projection) = compile_parts(filter_doc, opts, &ctx, !opts.return_after)?;
    let filter = crate::index::text::bind(&filter, Some(filter_doc), session.db.collection(coll))?;
    let compile = |spec: &Bson| {
        Update::compile(spec, opts.array_filters.as_deref(), &ctx).map_err(|e| e.at(update_span))
    };
    // Under the Stages view a pipeline compiles after the probe has shown its stages.
    let probed = session.stage_probe.is_some() && matches!(update_spec, Bson::Array(_));
    let update = if probed {
        None
    } else {
        Some(compile(update_spec)?)
    };
    let scope = opts.scope(&session.run);
    let target = Target {
        filter: &filter,
        sort: sort.as_ref(),
        multi: false,
        command: "findAndModify",
        bypass: opts.bypass,
    };
    let update = match update {
        Some(u) => u,
        None => {
            let on = exec::probed_update(
                &mut session.stage_probe,
                session.db,
                coll,
                &target,
                update_spec,
                &ctx,
                &scope,
            )?;
            compile(&on)?
        }
    };
    let w = exec::update(
        session.db,
        coll,
        &target,
        &update,
        opts.upsert,
        true,
        &scope,
    )?;
    let doc = if opts.return_after { w.after } else { w.before };
    project(doc, &projection, w.position, &scope)
}

fn delete_one(session: &mut Session, coll: &str, filter: &Document, opts: &Opts) -> Result<Bson> {
    let ctx = opts.compile_ctx();
    let (compiled, sort, projection) = compile_parts(filter, opts, &ctx, true)?;
    let filter = crate::index::text::bind(&compiled, Some(filter), session.db.collection(coll))?;
    let scope = opts.scope(&session.run);
    let target = Target {
        filter: &filter,
        sort: sort.as_ref(),
        multi: false,
        command: "findAndModify",
        bypass: false,
    };
    let mut removed = exec::delete(session.db, coll, &target, &scope)?;
    match removed.pop() {
        Some((doc, pos)) => project(Some(doc), &projection, pos, &scope),
        None => Ok(Bson::Null),
    }
}
