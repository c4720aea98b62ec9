//! `$shift`: the value of an expression in the document `by` places away in
//! the partition's order, or a constant default where there is none.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/shift/
use super::functions::{object_arg, SortInfo};
use crate::aggregate::operand::Operand;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::value::numeric::is_number;
use bson::{Bson, Document};

#[derive(Clone, Debug)]
pub struct Shift {
    output: Operand,
    by: i64,
    default: Bson,
}

impl Shift {
    /// `{output, by, default}`: `by` a 32-bit integer, `default` an expression
    /// that folds to a constant.
    pub(super) fn compile(arg: &Bson, sort: SortInfo, ctx: &CompileCtx) -> Result<Shift> {
        let o = object_arg(arg, "Argument to $shift must be an object")?;
        let mut output = None;
        let mut by = None;
        let mut default = Bson::Null;
        for (k, v) in o {
            match k.as_str() {
                "output" => output = Some(Operand::compile(v, ctx)?),
                "by" => {
                    by = Some(
                        crate::value::numeric::to_i64_exact(v)
                            .filter(|n| is_number(v) && i32::try_from(*n).is_ok())
                            .ok_or_else(|| {
                                Error::failed_to_parse(format!(
                                    "'$shift:by' field must be an integer, but found  by: {}",
                                    crate::text::shell::inline(v)
                                ))
                            })?,
                    )
                }
                "default" => {
                    let op = Operand::compile(v, ctx)?;
                    let folded = match &op {
                        Operand::Const(c) => Some(c.clone()),
                        Operand::Expr(e) => e.fold_constant()?,
                        _ => None,
                    };
                    default = folded.ok_or_else(|| {
                        Error::failed_to_parse(
                            "'$shift:default' expression must yield a constant value.",
                        )
                    })?;
                }
                _ => return Err(Error::failed_to_parse("Unknown argument in $shift")),
            }
        }
        let output = output
            .ok_or_else(|| Error::failed_to_parse("$shift requires an 'output' expression."))?;
        let by =
            by.ok_or_else(|| Error::failed_to_parse("$shift requires 'by' as an integer value."))?;
        if sort.fields.is_none() {
            return Err(Error::failed_to_parse("'$shift' requires a sortBy"));
        }
        Ok(Shift {
            output,
            by,
            default,
        })
    }

    /// One value per document of a sorted partition.
    pub(super) fn values(&self, docs: &[&Document], scope: &Scope) -> Result<Vec<Option<Bson>>> {
        let mut out = Vec::with_capacity(docs.len());
        for i in 0..docs.len() {
            let j = i as i64 + self.by;
            // A missing output in the shifted document also gives the
            // default (server jstests setWindowFields/shift.js).
            let v = match usize::try_from(j).ok().and_then(|j| docs.get(j)) {
                Some(d) => self.output.eval_owned(d, scope)?,
                None => None,
            };
            let v = v.unwrap_or_else(|| self.default.clone());
            out.push(Some(v));
        }
        Ok(out)
    }
}
