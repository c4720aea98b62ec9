//! The arguments of `aggregate(pipeline, options)` and its chained
//! `.explain()`, decoded once into [`AggregateArgs`] (the checks in the
//! same order as before: the pipeline, a chained explain, then each option
//! in the order written).
use super::Call;
use crate::collation::Collation;
use crate::context::RunCtx;
use crate::error::{Error, Result, Span};
use crate::expr::{CompileCtx, Scope};
use crate::index::explain::{verbosity, Verbosity};
use crate::text::shell::type_name;
use bson::{Bson, Document};
use std::rc::Rc;

/// Options that change nothing in the playground but are accepted.
const ACCEPTED_OPTIONS: &[&str] = &[
    "allowDiskUse",
    "maxTimeMS",
    "comment",
    "batchSize",
    "cursor",
    "readConcern",
    "writeConcern",
    "readPreference",
];

/// An aggregate call, typed.
pub(super) struct AggregateArgs<'r> {
    /// The aggregate call's span, where its errors point.
    pub span: Span,
    pub stages: Vec<Bson>,
    /// Plan instead of running: a chained `.explain(verbosity)` or the
    /// `explain` option (queryPlanner), and where its errors point. The
    /// options after it are not read.
    pub explain: Option<(Verbosity, Span)>,
    /// The `let` option's names, for compiling the stages.
    pub ctx: CompileCtx,
    /// The `let` option's values, bound; the pipeline runs in this scope.
    pub scope: Scope<'r>,
    /// `db.aggregate`'s `collation` option (for `db.c.aggregate` the engine
    /// reads it for the whole command): `Some(None)` is the simple collation.
    pub collation: Option<Option<Rc<Collation>>>,
    /// `bypassDocumentValidation`: a final `$out`/`$merge` skips the validator.
    pub bypass: bool,
    /// The `hint` option: checked against the collection's indexes, and the
    /// plan explain shows for the leading stages.
    pub hint: Option<Bson>,
}

impl<'r> AggregateArgs<'r> {
    /// `coll` is `None` for `db.aggregate()`, which explains nothing.
    pub fn decode(calls: &[Call], coll: Option<&str>, run: &'r RunCtx) -> Result<Self> {
        let Some(call) = calls.first() else {
            return Err(Error::bad_value("aggregate() needs a pipeline"));
        };
        // mongosh accepts `aggregate([stages], options)` and `aggregate(stage, stage, ...)`.
        let (stages, options): (Vec<Bson>, Option<&Document>) = match call.arg(0).map(|a| &a.value)
        {
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
        let mut args = AggregateArgs {
            span: call.span,
            stages,
            explain: None,
            ctx: CompileCtx::default(),
            scope: Scope::new(run),
            collation: None,
            bypass: false,
            hint: options.and_then(|o| o.get("hint")).cloned(),
        };
        // `aggregate(...).explain(verbosity)`: plan instead of running.
        if let (Some(c), Some(_)) = (calls.get(1).filter(|c| c.name == "explain"), coll) {
            let v = verbosity(c.arg(0).map(|a| &a.value)).map_err(|e| e.at(c.span))?;
            args.explain = Some((v, c.span));
            return Ok(args);
        }
        for (k, v) in options.into_iter().flatten() {
            match k.as_str() {
                "let" => {
                    let Bson::Document(vars) = v else {
                        return Err(Error::type_mismatch(format!(
                            "BSON field 'aggregate.let' is the wrong type '{}', expected type 'object'",
                            type_name(v)
                        ))
                        .at(call.span));
                    };
                    bind_let(vars, &mut args.ctx, &mut args.scope).map_err(|e| e.at(call.span))?;
                }
                "collation" => {
                    let c = crate::storage::collation::parse(v).map_err(|e| e.at(call.span))?;
                    args.collation = Some(c);
                }
                "bypassDocumentValidation" => {
                    args.bypass = bypass_arg(v).map_err(|e| e.at(call.span))?;
                }
                "hint" => {}
                "explain" => {
                    if coll.is_some() && !matches!(v, Bson::Boolean(false) | Bson::Null) {
                        args.explain = Some((Verbosity::QueryPlanner, call.span));
                        return Ok(args);
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
        Ok(args)
    }
}

/// `bypassDocumentValidation`: a boolean or a number (the server's IDL
/// `safeBool`); null leaves it off.
fn bypass_arg(v: &Bson) -> Result<bool> {
    match v {
        Bson::Null | Bson::Undefined => Ok(false),
        Bson::Boolean(b) => Ok(*b),
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
            Ok(crate::expr::truthy(Some(v)))
        }
        other => Err(Error::type_mismatch(format!(
            "BSON field 'aggregate.bypassDocumentValidation' is the wrong type '{}', expected types '[bool, long, int, decimal, double]'",
            type_name(other)
        ))),
    }
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
