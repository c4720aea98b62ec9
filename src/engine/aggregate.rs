//! `db.<coll>.aggregate(pipeline, options)` and `db.aggregate([...])`.
//! See https://www.mongodb.com/docs/manual/reference/method/db.collection.aggregate/
use super::{Call, Session};
use crate::aggregate::{Pipeline, Source};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::index::explain::{verbosity, Verbosity};
use crate::text::shell::type_name;
use bson::{Bson, Document};

/// Options that change nothing in the playground but are accepted.
const ACCEPTED_OPTIONS: &[&str] = &[
    "allowDiskUse",
    "maxTimeMS",
    "comment",
    "hint",
    "batchSize",
    "cursor",
    "bypassDocumentValidation",
    "readConcern",
    "writeConcern",
    "readPreference",
];

pub fn run(session: &mut Session, coll: Option<&str>, calls: &[Call]) -> Result<Bson> {
    let Some(call) = calls.first() else {
        return Err(Error::bad_value("aggregate() needs a pipeline"));
    };
    // mongosh accepts `aggregate([stages], options)` and `aggregate(stage, stage, ...)`.
    let (stages, options): (Vec<Bson>, Option<&Document>) = match call.arg(0).map(|a| &a.value) {
        None => (Vec::new(), None),
        Some(Bson::Array(items)) => {
            call.max_args(2)?;
            (items.clone(), call.doc_arg(1, "aggregate options")?)
        }
        Some(Bson::Document(_)) => (call.args.iter().map(|a| a.value.clone()).collect(), None),
        Some(other) => {
            return Err(Error::type_mismatch(format!(
                "aggregate() expects an array of stages, got {}",
                type_name(other)
            ))
            .at(call.span))
        }
    };
    // `aggregate(...).explain(verbosity)`: plan instead of running.
    if let (Some(c), Some(coll)) = (calls.get(1).filter(|c| c.name == "explain"), coll) {
        let v = verbosity(c.arg(0).map(|a| &a.value)).map_err(|e| e.at(c.span))?;
        return super::explain::aggregate(session, coll, &stages, v).map_err(|e| e.at(c.span));
    }
    let mut ctx = CompileCtx::default();
    // A copy: the scope must not borrow the session, which a write into another database switches.
    let run = session.run;
    let mut scope = Scope::new(&run);
    let mut _collation = None;
    if let Some(options) = options {
        for (k, v) in options {
            match k.as_str() {
                "let" => {
                    let Bson::Document(vars) = v else {
                        return Err(Error::type_mismatch(format!(
                            "BSON field 'aggregate.let' is the wrong type '{}', expected type 'object'",
                            type_name(v)
                        ))
                        .at(call.span));
                    };
                    bind_let(vars, &mut ctx, &mut scope).map_err(|e| e.at(call.span))?;
                }
                // The engine made it active for `db.c.aggregate`; `db.aggregate` comes here only.
                "collation" => {
                    let c = crate::storage::collation::parse(v).map_err(|e| e.at(call.span))?;
                    _collation = Some(crate::collation::scoped(c));
                }
                "explain" => {
                    if let (Some(coll), true) =
                        (coll, !matches!(v, Bson::Boolean(false) | Bson::Null))
                    {
                        return super::explain::aggregate(
                            session,
                            coll,
                            &stages,
                            Verbosity::QueryPlanner,
                        )
                        .map_err(|e| e.at(call.span));
                    }
                }
                _ if ACCEPTED_OPTIONS.contains(&k.as_str()) => {}
                other => {
                    return Err(Error::location(
                        40415,
                        format!("BSON field 'aggregate.{other}' is an unknown field."),
                    )
                    .at(call.span))
                }
            }
        }
    }
    if let Some(docs) = super::stages_view::probe(
        &mut session.stage_probe,
        session.db,
        coll,
        &stages,
        &ctx,
        &scope,
    ) {
        let docs = docs.map_err(|e| e.at(call.span))?;
        return cursor_methods(
            Bson::Array(docs.into_iter().map(Bson::Document).collect()),
            calls,
        );
    }
    let pipeline = Pipeline::compile(&stages, &ctx).map_err(|e| e.at(call.span))?;
    let source = match coll {
        Some(_) if pipeline.starts_with_documents() => {
            return Err(crate::aggregate::stages::lookup::documents_with_collection().at(call.span))
        }
        Some(name) => Source::Collection(name),
        None => {
            if !pipeline.starts_with_documents() {
                return Err(Error::invalid_options(
                    "db.aggregate() needs a pipeline that starts with a collection-less stage such as $documents",
                )
                .at(call.span));
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
                .map_err(|e| e.at(call.span))?;
            let home = session.current.clone();
            session.switch_db(&target).map_err(|e| e.at(call.span))?;
            let written = pipeline.write_result(docs, session.db, &scope);
            session.switch_db(&home)?;
            written.map_err(|e| e.at(call.span))?
        }
        None => pipeline
            .run_source(source, session.db, &scope)
            .map_err(|e| e.at(call.span))?,
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

/// `let: {name: <expression>}`: evaluated once (no document), then visible as `$$name`.
fn bind_let(vars: &Document, ctx: &mut CompileCtx, scope: &mut Scope) -> Result<()> {
    let empty = Document::new();
    for (name, spec) in vars {
        crate::aggregate::operand::validate_let_name(name)?;
        let op = crate::aggregate::operand::Operand::compile(spec, ctx)?;
        let value = op.eval_owned(&empty, scope)?.unwrap_or(Bson::Null);
        ctx.variables.push(name.clone());
        scope.vars.push((name.clone(), value));
    }
    Ok(())
}
