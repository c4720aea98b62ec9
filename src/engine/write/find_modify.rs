//! findOneAndUpdate, findOneAndReplace, findOneAndDelete and findAndModify:
//! one document (the first in `sort` order), returned before or after the write.
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.findOneAndUpdate/
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.findAndModify/
use super::super::{Call, Method, Session};
use super::exec::{self, Target};
use super::find_modify_args::FindModifyArgs;
use super::options::Opts;
use crate::error::{Result, Span};
use crate::expr::{CompileCtx, Scope};
use crate::projection::Projection;
use crate::query::sort::SortSpec;
use crate::query::Filter;
use crate::update::Update;
use bson::{Bson, Document};

pub fn run(session: &mut Session, coll: &str, call: &Call, m: Method) -> Result<Bson> {
    let args = FindModifyArgs::decode(call, m, &session.run)?;
    match &args.update {
        None => delete_one(session, coll, &args.filter, &args.opts),
        Some(update) => modify_one(
            session,
            coll,
            &args.filter,
            update,
            &args.opts,
            args.update_span,
        ),
    }
    .map_err(|e| e.at(call.span))
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
    super::timeseries::check_update(
        session.db,
        coll,
        filter_doc,
        update_spec,
        false,
        opts.upsert,
    )?;
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
    super::timeseries::check_find_and_delete(session.db, coll, sort.is_some())?;
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
