//! `$facet`: several sub-pipelines over the same input, one output document.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/facet/
use crate::aggregate::path::FieldPath;
use crate::aggregate::pipeline::{Docs, Pipeline, Place};
use crate::engine::Database;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::output::shell::type_name;
use bson::{Bson, Document};
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub struct Facet {
    facets: Vec<(String, Pipeline)>,
}

impl Facet {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<Facet> {
        let d = match spec {
            Bson::Document(d) if !d.is_empty() => d,
            _ => {
                return Err(Error::location(
                    40169,
                    "the $facet specification must be a non-empty object",
                ))
            }
        };
        let mut facets = Vec::new();
        for (name, v) in d {
            FieldPath::parse(name)?;
            if name.contains('.') {
                return Err(Error::location(
                    40172,
                    "facet field names may not contain '.'",
                ));
            }
            let Bson::Array(stages) = v else {
                return Err(Error::location(
                    40170,
                    format!(
                        "arguments to $facet must be arrays, {name} is type {}",
                        type_name(v)
                    ),
                ));
            };
            facets.push((
                name.clone(),
                Pipeline::compile_in(stages, ctx, Place::Facet)?,
            ));
        }
        Ok(Facet { facets })
    }

    pub fn run<'a>(&'a self, docs: Docs<'a>, db: &'a Database, scope: &Scope) -> Result<Document> {
        let mut out = Document::new();
        for (name, p) in &self.facets {
            let input: Docs<'a> = docs
                .iter()
                .map(|d| match d {
                    Cow::Borrowed(b) => Cow::Borrowed(*b),
                    Cow::Owned(o) => Cow::Owned(o.clone()),
                })
                .collect();
            let result = p.run_read(input, db, scope)?;
            out.insert(
                name.clone(),
                Bson::Array(
                    result
                        .into_iter()
                        .map(|d| Bson::Document(d.into_owned()))
                        .collect(),
                ),
            );
        }
        Ok(out)
    }
}
