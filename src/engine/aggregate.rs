//! `db.<coll>.aggregate(pipeline, options)` and `db.aggregate([...])`.
//! See https://www.mongodb.com/docs/manual/reference/method/db.collection.aggregate/
use super::aggregate_args::AggregateArgs;
use super::{Call, Session};
use crate::aggregate::{Pipeline, Source};
use crate::error::{Error, Result};
use bson::Bson;

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
    } = AggregateArgs::decode(calls, coll, &run)?;
    // `db.aggregate`'s own collation (the engine made it active for `db.c.aggregate`).
    let _collation = collation.map(crate::collation::scoped);
    if let (Some((v, at)), Some(coll)) = (explain, coll) {
        drop(scope);
        return super::explain::aggregate(session, coll, &stages, v).map_err(|e| e.at(at));
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
        Some(name) => Source::Collection(name),
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
