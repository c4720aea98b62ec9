//! `$unionWith`: the input, then another collection's documents (or
//! `$documents`) through a pipeline.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/unionWith/
use super::lookup::{documents_with_collection, foreign_docs};
use crate::aggregate::pipeline::{Docs, Pipeline, Place};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::storage::Database;
use crate::text::shell::type_name;
use bson::Bson;
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub struct UnionWith {
    coll: Option<String>,
    pipeline: Option<Pipeline>,
}

impl UnionWith {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<UnionWith> {
        let (coll, pipeline) = match spec {
            Bson::String(s) => (Some(s.clone()), None),
            Bson::Document(d) => {
                let (mut coll, mut pipeline) = (None, None);
                for (k, v) in d {
                    match (k.as_str(), v) {
                        ("coll", Bson::String(s)) => coll = Some(s.clone()),
                        ("pipeline", Bson::Array(stages)) => {
                            pipeline = Some(Pipeline::compile_in(stages, ctx, Place::UnionWith)?)
                        }
                        ("coll" | "pipeline", other) => {
                            return Err(Error::type_mismatch(format!(
                                "BSON field '$unionWith.{k}' is the wrong type '{}', expected type '{}'",
                                type_name(other),
                                if k == "coll" { "string" } else { "array" }
                            )))
                        }
                        _ => {
                            return Err(Error::location(
                                40415,
                                format!("BSON field '$unionWith.{k}' is an unknown field."),
                            ))
                        }
                    }
                }
                (coll, pipeline)
            }
            other => {
                return Err(Error::failed_to_parse(format!(
                    "the $unionWith stage specification must be an object or string, but found {}",
                    type_name(other)
                )))
            }
        };
        if coll.is_none()
            && !pipeline
                .as_ref()
                .is_some_and(Pipeline::starts_with_documents)
        {
            return Err(Error::failed_to_parse(
                "$unionWith stage without explicit collection must have a pipeline with $documents as first stage",
            ));
        }
        if coll.is_some()
            && pipeline
                .as_ref()
                .is_some_and(Pipeline::starts_with_documents)
        {
            return Err(documents_with_collection());
        }
        Ok(UnionWith { coll, pipeline })
    }

    pub fn run<'a>(
        &'a self,
        mut docs: Docs<'a>,
        db: &'a Database,
        scope: &Scope,
    ) -> Result<Docs<'a>> {
        let other: Docs<'a> = foreign_docs(db, &self.coll)
            .iter()
            .map(Cow::Borrowed)
            .collect();
        let other = match &self.pipeline {
            Some(p) => p.run_read(other, db, scope)?,
            None => other,
        };
        docs.extend(other);
        Ok(docs)
    }
}
