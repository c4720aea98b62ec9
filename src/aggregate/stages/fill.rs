//! `$fill`: fill null and missing fields with a value, the last observation
//! (`locf`) or a linear interpolation. MongoDB desugars it into
//! `$setWindowFields` (for the methods) followed by `$addFields` with
//! `$ifNull` (for the values); so do we.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/fill/
use crate::aggregate::operand::Operand;
use crate::aggregate::path::FieldPath;
use crate::aggregate::pipeline::Docs;
use crate::aggregate::window::functions::Func;
use crate::aggregate::window::SetWindowFields;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::query::sort::SortSpec;
use crate::text::shell::type_name;
use bson::{Bson, Document};
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub struct Fill {
    window: Option<SetWindowFields>,
    sort: Option<SortSpec>,
    values: Vec<(FieldPath, Operand)>,
}

impl Fill {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<Fill> {
        let Bson::Document(d) = spec else {
            return Err(Error::failed_to_parse(format!(
                "$fill specification must be an object, found {}",
                type_name(spec)
            )));
        };
        let (mut partition_by, mut partition_fields, mut sort_doc, mut output) =
            (None, None, None, None);
        for (k, v) in d {
            match (k.as_str(), v) {
                ("partitionBy", _) => partition_by = Some(Operand::compile(v, ctx)?),
                ("partitionByFields", Bson::Array(items)) => {
                    let mut fields = Document::new();
                    for i in items {
                        let Bson::String(s) = i else {
                            return Err(Error::type_mismatch(
                                "BSON field '$fill.partitionByFields' must contain only strings",
                            ));
                        };
                        FieldPath::parse(s)?;
                        fields.insert(s.clone(), Bson::String(format!("${s}")));
                    }
                    partition_fields = Some(fields);
                }
                ("sortBy", Bson::Document(s)) => sort_doc = Some(s),
                ("output", Bson::Document(o)) => output = Some(o),
                ("partitionByFields" | "sortBy" | "output", other) => {
                    return Err(Error::type_mismatch(format!(
                        "BSON field '$fill.{k}' is the wrong type '{}'",
                        type_name(other)
                    )))
                }
                (other, _) => {
                    return Err(Error::location(
                        40415,
                        format!("BSON field '$fill.{other}' is an unknown field."),
                    ))
                }
            }
        }
        if partition_by.is_some() && partition_fields.is_some() {
            return Err(Error::location(
                6050204,
                "Maximum one of 'partitionBy' and 'partitionByFields can be specified in '$fill'",
            ));
        }
        let output = output.ok_or_else(|| {
            Error::location(
                40414,
                "BSON field '$fill.output' is missing but a required field",
            )
        })?;
        // partitionByFields: [a, b] partitions by the object {a: "$a", b: "$b"}.
        let partition = match (partition_by, partition_fields) {
            (Some(p), _) => Some(p),
            (None, Some(fields)) if !fields.is_empty() => {
                Some(Operand::compile(&Bson::Document(fields), ctx)?)
            }
            _ => None,
        };
        let sort = match sort_doc {
            Some(s) => Some(SortSpec::compile(s)?),
            None => None,
        };
        let info = crate::aggregate::window::functions::SortInfo {
            fields: sort_doc.map(|s| s.len()),
            ascending: true,
        };
        let mut methods = Vec::new();
        let mut values = Vec::new();
        for (field, fspec) in output {
            let path = FieldPath::parse(field)?;
            let Bson::Document(f) = fspec else {
                return Err(Error::failed_to_parse(format!(
                    "Output field '{field}' must be an object, found {}",
                    type_name(fspec)
                )));
            };
            match (f.get("value"), f.get("method"), f.len()) {
                (Some(v), None, 1) => values.push((path, Operand::compile(v, ctx)?)),
                (None, Some(Bson::String(m)), 1) => {
                    let name = match m.as_str() {
                        "linear" => "$linearFill",
                        "locf" => "$locf",
                        _ => {
                            return Err(Error::location(
                                6050202,
                                "Method must be either locf or linear",
                            ))
                        }
                    };
                    let mut w = Document::new();
                    w.insert(name, Bson::String(format!("${field}")));
                    methods.push((path, Func::compile(&Bson::Document(w), info, ctx)?));
                }
                _ => {
                    return Err(Error::location(
                        6050203,
                        "Exactly one of 'value' and 'method' must be specified in $fill output",
                    ))
                }
            }
        }
        let sort_key = match sort_doc.and_then(|s| s.keys().next()) {
            Some(field) => Some(Operand::compile(&Bson::String(format!("${field}")), ctx)?),
            None => None,
        };
        let window = if methods.is_empty() {
            None
        } else {
            Some(SetWindowFields::from_parts(
                partition,
                sort.clone(),
                sort_key,
                methods,
            ))
        };
        Ok(Fill {
            window,
            sort,
            values,
        })
    }

    pub fn run(&self, docs: Docs<'_>, scope: &Scope) -> Result<Vec<Document>> {
        let mut docs: Vec<Document> = match &self.window {
            Some(w) => w.run(docs, scope)?,
            None => {
                let mut docs = docs;
                if let Some(s) = &self.sort {
                    crate::sorting::sort_by(&mut docs, |a, b| s.compare(a, b));
                }
                docs.into_iter().map(Cow::into_owned).collect()
            }
        };
        if !self.values.is_empty() {
            for d in docs.iter_mut() {
                let mut fills = Vec::new();
                for (path, op) in &self.values {
                    let current = path.get(d);
                    if matches!(
                        current.as_deref(),
                        None | Some(Bson::Null) | Some(Bson::Undefined)
                    ) {
                        if let Some(v) = op.eval_owned(d, scope)? {
                            fills.push((path, v));
                        }
                    }
                }
                for (path, v) in fills {
                    path.set(d, v);
                }
            }
        }
        Ok(docs)
    }
}
