//! `db.<coll>.aggregate(pipeline, options)` and `db.aggregate([...])`.
//! See https://www.mongodb.com/docs/manual/reference/method/db.collection.aggregate/
use super::aggregate_args::AggregateArgs;
use super::{Call, Session};
use crate::aggregate::{Pipeline, Source};
use crate::error::{Error, Result};
use crate::expr::CompileCtx;
use crate::query::Filter;
use crate::storage::Collection;
use bson::{Bson, Document};

pub fn run(session: &mut Session, coll: Option<&str>, calls: &[Call]) -> Result<Bson> {
    // A copy: the scope must not borrow the session, which a write into another database switches.
    let run = session.run;
    let AggregateArgs {
        span,
        stages,
        explain,
        ctx,
        scope,
        collation,
        bypass,
        hint,
    } = AggregateArgs::decode(calls, coll, &run)?;
    // `db.aggregate`'s own collation (the engine made it active for `db.c.aggregate`).
    let _collation = collation.map(crate::collation::scoped);
    if let (Some((v, at)), Some(coll)) = (explain, coll) {
        drop(scope);
        return super::explain::aggregate(session, coll, &stages, hint.as_ref(), v)
            .map_err(|e| e.at(at));
    }
    if let (Some(h), Some(name)) = (&hint, coll) {
        crate::index::plan::check_hint(session.db.collection(name), Some(h))
            .map_err(|e| e.at(span))?;
    }
    if let Some(docs) = super::stages_view::probe(
        &mut session.stage_probe,
        session.db,
        coll,
        &stages,
        &ctx,
        &scope,
    ) {
        let docs = docs.map_err(|e| e.at(span))?;
        return cursor_methods(
            Bson::Array(docs.into_iter().map(Bson::Document).collect()),
            calls,
        );
    }
    let mut pipeline = Pipeline::compile(&stages, &ctx).map_err(|e| e.at(span))?;
    if bypass {
        pipeline.bypass_validation();
    }
    let source = match coll {
        Some(_) if pipeline.starts_with_documents() => {
            return Err(crate::aggregate::stages::lookup::documents_with_collection().at(span))
        }
        Some(name) => match &hint {
            Some(h) if !pipeline.has_text() && !starts_with_geo_near(&stages) => {
                hinted(session.db.collection(name), h).map_err(|e| e.at(span))?
            }
            _ => Source::Collection(name),
        },
        None => {
            if !pipeline.starts_with_documents() {
                return Err(Error::invalid_options(
                    "db.aggregate() needs a pipeline that starts with a collection-less stage such as $documents",
                )
                .at(span));
            }
            Source::Empty
        }
    };
    let docs = match pipeline.write_database().filter(|d| *d != session.current) {
        // `$out`/`$merge` into another database: read here, write there.
        Some(target) => {
            let target = target.to_string();
            let docs = pipeline
                .run_body(source, session.db, &scope)
                .map_err(|e| e.at(span))?;
            let home = session.current.clone();
            session.switch_db(&target).map_err(|e| e.at(span))?;
            let written = pipeline.write_result(docs, session.db, &scope);
            session.switch_db(&home)?;
            written.map_err(|e| e.at(span))?
        }
        None => pipeline
            .run_source(source, session.db, &scope)
            .map_err(|e| e.at(span))?,
    };
    cursor_methods(
        Bson::Array(docs.into_iter().map(Bson::Document).collect()),
        calls,
    )
}

fn starts_with_geo_near(stages: &[Bson]) -> bool {
    matches!(stages.first(), Some(Bson::Document(d)) if d.contains_key("$geoNear"))
}

/// The collection as a hinted plan reads it: in the index's order (a sparse
/// or partial index yields only the documents it holds), as the server's
/// pipeline reads through the plan its hint forces. `$natural` keeps
/// natural order.
fn hinted<'s>(c: Option<&Collection>, hint: &Bson) -> Result<Source<'s>> {
    let all = Filter::compile(&Document::new(), &CompileCtx::default())?;
    let plan = crate::index::plan::plan(c, &all, None, Some(hint))?;
    Ok(Source::Docs(plan.scan(c).cloned().collect()))
}

/// `toArray()`, `pretty()`, `itcount()` after `aggregate()`.
fn cursor_methods(mut result: Bson, calls: &[Call]) -> Result<Bson> {
    for c in calls.iter().skip(1) {
        result = match c.name.as_str() {
            "toArray" | "pretty" => {
                c.max_args(0)?;
                result
            }
            "itcount" => {
                c.max_args(0)?;
                let n = match &result {
                    Bson::Array(items) => items.len(),
                    _ => 0,
                };
                crate::expr::sum::count_value(n)
            }
            "explain" => return Err(Error::not_supported("explain").at(c.span)),
            other => {
                return Err(Error::not_supported(format!(
                    "{other}() on an aggregation cursor (supported: toArray, pretty, itcount)"
                ))
                .at(c.span))
            }
        };
    }
    Ok(result)
}
