//! Compiling an accumulator from its specification: the name, its argument's
//! shape (`n`, `sortBy`, `output`, `p`, `method`) and the server's checks.
use super::{Accumulator, Kind, NAMES, UNSUPPORTED};
use crate::aggregate::operand::Operand;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Expr};
use crate::query::sort::SortSpec;
use bson::{Bson, Document};

impl Accumulator {
    /// Compile `{<name>: <arg>}` for the output field `field`.
    pub fn compile(field: &str, spec: &Bson, ctx: &CompileCtx) -> Result<Accumulator> {
        let obj = match spec {
            Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => d,
            _ => {
                return Err(Error::location(
                    40234,
                    format!("The field '{field}' must be an accumulator object"),
                ))
            }
        };
        if field.contains('.') {
            return Err(Error::location(
                40235,
                format!("The field name '{field}' cannot contain '.'"),
            ));
        }
        if field.starts_with('$') {
            return Err(Error::location(
                40236,
                format!("The field name '{field}' cannot be an operator name"),
            ));
        }
        if obj.len() != 1 {
            return Err(Error::location(
                40238,
                format!("The field '{field}' must specify one accumulator"),
            ));
        }
        let Some((name, arg)) = obj.iter().next() else {
            return Err(Error::location(
                40238,
                format!("The field '{field}' must specify one accumulator"),
            ));
        };
        match Self::compile_op(name, arg, ctx)? {
            Some(acc) => Ok(acc),
            None if UNSUPPORTED.contains(&name.as_str()) => {
                Err(Error::not_supported(format!("the {name} accumulator")))
            }
            None => Err(Error::location(
                15952,
                format!("unknown group operator '{name}'"),
            )),
        }
    }

    /// Compile one accumulator; `None` when `name` is not an accumulator.
    pub fn compile_op(name: &str, arg: &Bson, ctx: &CompileCtx) -> Result<Option<Accumulator>> {
        let Some(&(static_name, kind)) = NAMES.iter().find(|(n, _)| *n == name) else {
            return Ok(None);
        };
        let mut acc = Accumulator {
            kind,
            name: static_name,
            input: Operand::Const(Bson::Int32(1)),
            n: None,
            sort: None,
            quantile: None,
        };
        match kind {
            _ if name == "$count" => match arg {
                Bson::Document(d) if d.is_empty() => {}
                _ => {
                    return Err(Error::type_mismatch(
                        "$count takes no arguments, i.e. $count:{}",
                    ))
                }
            },
            Kind::Top | Kind::Bottom | Kind::TopN | Kind::BottomN => {
                acc.compile_top_bottom(name, arg, ctx)?
            }
            Kind::Quantile => acc.compile_quantile(name, arg, ctx)?,
            Kind::FirstN | Kind::LastN | Kind::MaxN | Kind::MinN => {
                let Bson::Document(d) = arg else {
                    // $firstN/$lastN and $maxN/$minN have their own codes
                    // (accumulator_multi.cpp).
                    let first_last = matches!(acc.kind, Kind::FirstN | Kind::LastN);
                    return Err(Error::location(
                        if first_last { 5787801 } else { 5787900 },
                        format!(
                            "specification must be an object; found {}",
                            crate::text::shell::inline(arg)
                        ),
                    ));
                };
                let (mut n, mut input) = (None, None);
                for (k, v) in d {
                    match k.as_str() {
                        "n" => n = Some(Operand::compile(v, ctx)?),
                        "input" => input = Some(Operand::compile(v, ctx)?),
                        other => {
                            return Err(Error::location(
                                5787901,
                                format!("Unknown argument for 'n' operator: {other}"),
                            ))
                        }
                    }
                }
                acc.n = Some(n.ok_or_else(|| Error::location(5787906, "Missing value for 'n'"))?);
                acc.input =
                    input.ok_or_else(|| Error::location(5787907, "Missing value for 'input'"))?;
            }
            _ => {
                if let Bson::Array(items) = arg {
                    // `{$sum: [..]}` is the expression form; in $group it is an error.
                    let _ = items;
                    return Err(Error::location(
                        40237,
                        format!("The {name} accumulator is a unary operator"),
                    ));
                }
                acc.input = Operand::compile(arg, ctx)?;
            }
        }
        Ok(Some(acc))
    }

    fn compile_top_bottom(&mut self, name: &str, arg: &Bson, ctx: &CompileCtx) -> Result<()> {
        let Bson::Document(d) = arg else {
            return Err(Error::location(
                5788001,
                format!(
                    "specification must be an object; found {}",
                    crate::text::shell::inline(arg)
                ),
            ));
        };
        let single = matches!(self.kind, Kind::Top | Kind::Bottom);
        let (mut n, mut output, mut sort_by) = (None, None, None);
        for (k, v) in d {
            match k.as_str() {
                "n" if !single => n = Some(Operand::compile(v, ctx)?),
                "output" => output = Some(Operand::compile(v, ctx)?),
                "sortBy" => match v {
                    Bson::Document(s) => sort_by = Some(s),
                    // `element.Obj()` (accumulator_multi.cpp), whose check is 10065.
                    _ => {
                        return Err(Error::location(
                            10065,
                            "invalid parameter: expected an object (sortBy)",
                        ))
                    }
                },
                other => {
                    return Err(Error::location(
                        5788002,
                        format!("Unknown argument to {name} '{other}'"),
                    ))
                }
            }
        }
        self.n = if single {
            Some(Operand::Const(Bson::Int32(1)))
        } else {
            Some(n.ok_or_else(|| Error::location(5788003, "Missing value for 'n'"))?)
        };
        self.input =
            output.ok_or_else(|| Error::location(5788004, "Missing value for 'output'"))?;
        let sort_by =
            sort_by.ok_or_else(|| Error::location(5788005, "Missing value for 'sortBy'"))?;
        // Validate the user's spec as $sort would, then sort generated keys the same way.
        SortSpec::compile(sort_by)?;
        let mut paths = Vec::new();
        let mut keyed = Document::new();
        for (i, (field, dir)) in sort_by.iter().enumerate() {
            paths.push(Operand::compile(&Bson::String(format!("${field}")), ctx)?);
            keyed.insert(format!("k{i}"), dir.clone());
        }
        self.sort = Some((paths, SortSpec::compile(&keyed)?));
        Ok(())
    }

    /// `$median: {input, method}` / `$percentile: {input, p, method}`: the
    /// values are collected, then the expression form (same validation, same
    /// computation) runs over them.
    fn compile_quantile(&mut self, name: &str, arg: &Bson, ctx: &CompileCtx) -> Result<()> {
        let Bson::Document(d) = arg else {
            return Err(Error::location(
                if name == "$median" { 7436100 } else { 7429703 },
                format!(
                    "specification must be an object; found {}",
                    crate::text::shell::inline(arg)
                ),
            ));
        };
        let mut spec = Document::new();
        for (k, v) in d {
            if k == "input" {
                self.input = Operand::compile(v, ctx)?;
                spec.insert("input", "$values");
            } else {
                spec.insert(k.clone(), v.clone());
            }
        }
        let mut outer = Document::new();
        outer.insert(name, spec);
        self.quantile = Some(Expr::compile(&Bson::Document(outer), ctx)?);
        Ok(())
    }
}
