//! `$setWindowFields`: documents are sorted by partition then `sortBy`
//! (MongoDB desugars the stage to a `$sort` on both), and each output field
//! is computed per partition by a window function.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/setWindowFields/
pub mod bounds;
mod calculus;
mod covariance;
mod exp_moving_avg;
mod fill;
pub mod functions;
mod shift;

use crate::aggregate::operand::Operand;
use crate::aggregate::path::FieldPath;
use crate::aggregate::pipeline::Docs;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::query::sort::SortSpec;
use crate::text::shell::type_name;
use bson::{Bson, Document};
use functions::{Func, SortInfo};
use std::cmp::Ordering;

#[derive(Clone, Debug)]
pub struct SetWindowFields {
    partition_by: Option<Operand>,
    sort_by: Option<SortSpec>,
    /// The single sortBy field as an expression (range windows, `$derivative`...).
    sort_key: Option<Operand>,
    outputs: Vec<(FieldPath, Func)>,
}

impl SetWindowFields {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<SetWindowFields> {
        let Bson::Document(d) = spec else {
            return Err(Error::failed_to_parse(format!(
                "the $setWindowFields stage specification must be an object, found {}",
                type_name(spec)
            )));
        };
        let mut partition_by = None;
        let mut sort_doc = None;
        let mut output = None;
        for (k, v) in d {
            match k.as_str() {
                "partitionBy" => {
                    if let Bson::Document(o) = v {
                        if o.keys().next().is_some_and(|k| !k.starts_with('$')) {
                            return Err(Error::type_mismatch(
                                "An object in 'partitionBy' must be an expression",
                            ));
                        }
                    }
                    partition_by = Some(Operand::compile(v, ctx)?)
                }
                "sortBy" => match v {
                    Bson::Document(s) => sort_doc = Some(s),
                    other => {
                        return Err(Error::type_mismatch(format!(
                            "BSON field '$setWindowFields.sortBy' is the wrong type '{}', expected type 'object'",
                            type_name(other)
                        )))
                    }
                },
                "output" => match v {
                    Bson::Document(o) => output = Some(o),
                    other => {
                        return Err(Error::type_mismatch(format!(
                            "BSON field '$setWindowFields.output' is the wrong type '{}', expected type 'object'",
                            type_name(other)
                        )))
                    }
                },
                other => {
                    return Err(Error::location(
                        40415,
                        format!("BSON field '$setWindowFields.{other}' is an unknown field."),
                    ))
                }
            }
        }
        let output = output.ok_or_else(|| {
            Error::location(
                40414,
                "BSON field '$setWindowFields.output' is missing but a required field",
            )
        })?;
        let sort_by = match sort_doc {
            Some(s) => Some(SortSpec::compile(s)?),
            None => None,
        };
        let info = SortInfo {
            fields: sort_doc.map(|s| s.len()),
            ascending: sort_doc
                .and_then(|s| s.iter().next())
                .is_some_and(|(_, v)| crate::value::numeric::to_f64(v).is_some_and(|f| f > 0.0)),
        };
        let sort_key = match sort_doc.and_then(|s| s.keys().next()) {
            Some(field) if sort_doc.is_some_and(|s| s.len() == 1) => {
                Some(Operand::compile(&Bson::String(format!("${field}")), ctx)?)
            }
            _ => None,
        };
        let mut outputs = Vec::new();
        for (i, (field, fspec)) in output.iter().enumerate() {
            // No two output paths may be equal or one a prefix of the other
            // (document_source_set_window_fields.cpp, 6307900).
            if output
                .keys()
                .take(i)
                .any(|prev| crate::value::path::paths_overlap(prev, field))
            {
                return Err(Error::location(
                    6307900,
                    "$setWindowFields 'output' specification contains two conflicting paths",
                ));
            }
            let path = FieldPath::parse(field)?;
            outputs.push((path, Func::compile(fspec, info, ctx)?));
        }
        Ok(SetWindowFields {
            partition_by,
            sort_by,
            sort_key,
            outputs,
        })
    }

    pub(crate) fn from_parts(
        partition_by: Option<Operand>,
        sort_by: Option<SortSpec>,
        sort_key: Option<Operand>,
        outputs: Vec<(FieldPath, Func)>,
    ) -> SetWindowFields {
        SetWindowFields {
            partition_by,
            sort_by,
            sort_key,
            outputs,
        }
    }

    pub fn run(&self, docs: Docs<'_>, scope: &Scope) -> Result<Vec<Document>> {
        // Partition keys (missing is null; arrays are not allowed).
        let mut keyed: Vec<(Bson, usize)> = Vec::with_capacity(docs.len());
        for (i, d) in docs.iter().enumerate() {
            let key = match &self.partition_by {
                Some(p) => p.eval_owned(d, scope)?.unwrap_or(Bson::Null),
                None => Bson::Null,
            };
            if matches!(key, Bson::Array(_)) {
                return Err(Error::type_mismatch(
                    "An expression used to partition cannot evaluate to value of type array",
                ));
            }
            keyed.push((key, i));
        }
        if self.partition_by.is_some() || self.sort_by.is_some() {
            crate::sorting::sort_by(&mut keyed, |a, b| {
                crate::value::compare(&a.0, &b.0).then_with(|| match &self.sort_by {
                    Some(s) => s.compare(&docs[a.1], &docs[b.1]),
                    None => Ordering::Equal,
                })
            });
        }
        let mut results: Vec<Vec<Option<Bson>>> = vec![Vec::new(); self.outputs.len()];
        let mut start = 0;
        while start < keyed.len() {
            let mut end = start + 1;
            while end < keyed.len() && crate::value::equal(&keyed[end].0, &keyed[start].0) {
                end += 1;
            }
            let part: Vec<&Document> = keyed[start..end]
                .iter()
                .map(|(_, i)| docs[*i].as_ref())
                .collect();
            let keys: Vec<Option<Bson>> = match &self.sort_key {
                Some(k) => part
                    .iter()
                    .map(|d| k.eval_owned(d, scope))
                    .collect::<Result<_>>()?,
                None => vec![None; part.len()],
            };
            for ((_, f), out) in self.outputs.iter().zip(results.iter_mut()) {
                out.extend(f.compute(&part, &keys, self.sort_by.as_ref(), scope)?);
            }
            start = end;
        }
        let mut out = Vec::with_capacity(keyed.len());
        for (pos, (_, i)) in keyed.iter().enumerate() {
            let mut d = docs[*i].clone().into_owned();
            for ((path, _), vals) in self.outputs.iter().zip(&results) {
                if let Some(Some(v)) = vals.get(pos) {
                    path.set_through_arrays(&mut d, v);
                }
            }
            out.push(d);
        }
        Ok(out)
    }
}
