//! updateOne, updateMany, replaceOne and the legacy update().
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.updateOne/
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.replaceOne/
use super::super::{Call, Method, Session};
use super::exec::{self, Target};
use super::options::{forbids_operators, has_atomic_operators, requires_operators};
use super::update_args::UpdateArgs;
use crate::error::{Error, Result};
use crate::query::sort::SortSpec;
use crate::query::Filter;
use crate::update::Update;
use bson::Bson;

pub fn run(session: &mut Session, coll: &str, call: &Call, m: Method) -> Result<Bson> {
    let UpdateArgs {
        filter: filter_doc,
        filter_span,
        update: update_spec,
        update_span,
        opts,
        multi,
    } = UpdateArgs::decode(call, m, &session.run)?;
    let ctx = opts.compile_ctx();
    let filter = Filter::compile_find(&filter_doc, &ctx).map_err(|e| e.at(filter_span))?;
    super::timeseries::check_update(
        session.db,
        coll,
        &filter_doc,
        &update_spec,
        multi,
        opts.upsert,
    )
    .map_err(|e| e.at(call.span))?;
    let filter = crate::index::text::bind(&filter, Some(&filter_doc), session.db.collection(coll))
        .map_err(|e| e.at(filter_span))?;
    let compile = |spec: &Bson| {
        Update::compile(spec, opts.array_filters.as_deref(), &ctx).map_err(|e| e.at(update_span))
    };
    // Under the Stages view a pipeline compiles after the probe has shown its stages.
    let probed = session.stage_probe.is_some() && matches!(update_spec, Bson::Array(_));
    let update = if probed {
        None
    } else {
        Some(compile(&update_spec)?)
    };
    if multi && update.as_ref().is_some_and(Update::is_replacement) {
        return Err(Error::failed_to_parse(
            "multi update is not supported for replacement-style update",
        )
        .at(update_span));
    }
    let sort = match (&opts.sort, multi) {
        (Some(s), false) => Some(SortSpec::compile(s).map_err(|e| e.at(call.span))?),
        _ => None,
    };
    let scope = opts.scope(&session.run);
    let target = Target {
        filter: &filter,
        sort: sort.as_ref(),
        multi,
        command: "update",
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
                &update_spec,
                &ctx,
                &scope,
            )
            .map_err(|e| e.at(call.span))?;
            compile(&on)?
        }
    };
    let w = exec::update(
        session.db,
        coll,
        &target,
        &update,
        opts.upsert,
        false,
        &scope,
    )
    .map_err(|e| e.at(call.span))?;
    Ok(exec::update_result(&w))
}

/// The Node driver's argument checks: updates need operators (or a
/// pipeline), replacements must not have them.
pub fn check_update_argument(replace: bool, v: &Bson) -> Result<()> {
    match v {
        Bson::Document(_) | Bson::Array(_) => {}
        other => {
            return Err(Error::type_mismatch(format!(
                "the {} must be an object{}, got {}",
                if replace { "replacement" } else { "update" },
                if replace {
                    ""
                } else {
                    " or a pipeline (array)"
                },
                crate::text::shell::type_name(other)
            )))
        }
    }
    if replace {
        if has_atomic_operators(v) {
            return Err(forbids_operators());
        }
        if matches!(v, Bson::Array(_)) {
            return Err(Error::type_mismatch(
                "the replacement must be an object, got array",
            ));
        }
    } else if !has_atomic_operators(v) {
        return Err(requires_operators());
    }
    Ok(())
}
