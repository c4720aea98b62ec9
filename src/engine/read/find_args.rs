//! The arguments of `find()` and `findOne()` and the cursor modifiers
//! chained after `find()`, decoded once into [`FindArgs`] (the checks in the
//! same order as before).
use super::count_option;
use crate::context::RunCtx;
use crate::engine::Call;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Expr, Scope};
use crate::query::sort::SortSpec;
use crate::query::Filter;
use crate::text::shell::type_name;
use crate::value::numeric::to_i64_exact;
use bson::{Bson, Document};

/// A find's arguments, typed: the filter, projection and options of
/// `find(filter, projection, options)` or `findOne(...)`, then each cursor
/// modifier applied in the chain's order (the last one wins).
pub(super) struct FindArgs {
    pub filter: Filter,
    /// The filter as written (a positional projection must refer to it).
    pub filter_doc: Document,
    pub projection: Option<Document>,
    pub sort: Option<SortSpec>,
    pub skip: i64,
    /// 0 = no limit; negative = at most |n| in a single batch (same result here).
    pub limit: i64,
    pub ctx: CompileCtx,
    /// The `let` option's variables, bound for `$expr` and projection expressions.
    pub let_vars: Vec<(String, Bson)>,
    /// `hint()`: an index name or key pattern, or `{$natural: 1}`.
    pub hint: Option<Bson>,
}

impl FindArgs {
    /// Decode `find(filter, projection, options)`: `let` first (the filter
    /// may use its variables), the filter, then the options in the order written.
    pub fn decode(call: &Call, run: &RunCtx) -> Result<FindArgs> {
        let empty = Document::new();
        let opts = call.doc_arg(2, "options")?.unwrap_or(&empty);
        let mut ctx = CompileCtx::default();
        let mut let_vars = Vec::new();
        if let Some(v) = opts.get("let") {
            let Bson::Document(vars) = v else {
                return Err(Error::type_mismatch(format!(
                    "BSON field 'FindCommandRequest.let' is the wrong type '{}', expected type 'object'",
                    type_name(v)
                )));
            };
            // `let` values are expressions without field paths, evaluated once.
            let scope = Scope::new(run);
            let empty = Document::new();
            for (name, spec) in vars {
                let expr = Expr::compile(spec, &ctx)?;
                let value = expr.evaluate(&empty, &scope)?.unwrap_or(Bson::Null);
                ctx.variables.push(name.clone());
                let_vars.push((name.clone(), value));
            }
        }
        let filter = {
            let empty = Document::new();
            let spec = call.doc_arg(0, "filter")?.unwrap_or(&empty);
            Filter::compile_find(spec, &ctx).map_err(|e| match call.arg(0) {
                Some(a) => e.at(a.span),
                None => e,
            })?
        };
        let mut f = FindArgs {
            filter,
            filter_doc: call.doc_arg(0, "filter")?.cloned().unwrap_or_default(),
            projection: call.doc_arg(1, "projection")?.cloned(),
            sort: None,
            skip: 0,
            limit: 0,
            ctx,
            let_vars,
            hint: None,
        };
        for (key, v) in opts {
            match key.as_str() {
                "sort" => {
                    if let Some(spec) = crate::engine::sort_arg::sort_arg(v)? {
                        f.sort = Some(SortSpec::compile(&spec)?);
                    }
                }
                "skip" => f.skip = count_option(opts, "skip")?.unwrap_or(0),
                "limit" => f.limit = count_option(opts, "limit")?.unwrap_or(0),
                "projection" => f.projection = Some(as_doc(v, "projection")?.clone()),
                // Read by the engine for the whole command (engine::collation).
                "collation" => {}
                "hint" => f.hint = Some(v.clone()),
                "let" | "comment" | "maxTimeMS" | "batchSize" | "allowDiskUse"
                | "noCursorTimeout" | "readConcern" | "readPreference" => {}
                other => {
                    return Err(Error::bad_value(format!(
                        "unknown find() option {other}; supported: sort, skip, limit, projection, hint, comment, maxTimeMS, batchSize, allowDiskUse"
                    )))
                }
            }
        }
        Ok(f)
    }

    /// Apply one cursor modifier (`sort`, `skip`, `limit`, `projection`,
    /// `hint`; the others change nothing or are refused).
    pub fn modify(&mut self, call: &Call) -> Result<()> {
        match call.name.as_str() {
            "sort" => {
                call.max_args(1)?;
                let spec = match call.args.first() {
                    Some(arg) => crate::engine::sort_arg::sort_arg(&arg.value)
                        .map_err(|e| e.at(arg.span))?
                        .unwrap_or_default(),
                    None => Document::new(),
                };
                self.sort = Some(SortSpec::compile(&spec)?);
            }
            "skip" => {
                call.max_args(1)?;
                self.skip = whole_number(call, "skip")?;
            }
            "limit" => {
                call.max_args(1)?;
                self.limit = whole_number(call, "limit")?;
            }
            "projection" => {
                call.max_args(1)?;
                self.projection = call.doc_arg(0, "projection")?.cloned();
            }
            // Read by the engine for the whole command (engine::collation).
            "collation" => {}
            "min" | "max" | "returnKey" | "showRecordId" => {
                return Err(Error::not_supported(format!(
                    "cursor.{}() (it works on indexes)",
                    call.name
                )))
            }
            "tailable" => return Err(Error::not_supported("tailable cursors")),
            "hint" => {
                call.max_args(1)?;
                self.hint = call.arg(0).map(|a| a.value.clone());
            }
            // comment, maxTimeMS, batchSize...: accepted, no effect on results.
            _ => {}
        }
        Ok(())
    }
}

fn whole_number(call: &Call, what: &str) -> Result<i64> {
    match call.arg(0) {
        Some(a) => to_i64_exact(&a.value).ok_or_else(|| {
            Error::type_mismatch(format!(
                "{what} must be a whole number, got {}",
                type_name(&a.value)
            ))
            .at(a.span)
        }),
        None => Err(Error::bad_value(format!("{}() needs a number", call.name))),
    }
}

fn as_doc<'a>(v: &'a Bson, what: &str) -> Result<&'a Document> {
    match v {
        Bson::Document(d) => Ok(d),
        other => Err(Error::type_mismatch(format!(
            "{what} must be an object, got {}",
            type_name(other)
        ))),
    }
}
