//! `$facet`: several sub-pipelines over the same input, one output document.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/facet/
use crate::aggregate::pipeline::{Docs, Pipeline, Place};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::storage::Database;
use crate::text::shell::type_name;
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
            // A facet name is one field name (FieldPath::validateFieldName).
            let bad = |code: i32, what: &str| {
                Error::location(
                    code,
                    format!("$facet pipeline names must follow the naming rules of field path expressions. :: caused by :: {what}"),
                )
            };
            if name.is_empty() {
                return Err(bad(
                    15998,
                    "FieldPath field names may not be empty strings.",
                ));
            }
            if name.starts_with('$') {
                return Err(bad(
                    16410,
                    "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
                ));
            }
            if name.contains('.') {
                return Err(bad(16412, "FieldPath field names may not contain '.'."));
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
            if let Some(bad) = stages.iter().find(|s| !matches!(s, Bson::Document(_))) {
                return Err(Error::location(
                    40171,
                    format!(
                        "elements of arrays in $facet spec must be non-empty objects, {name} argument contained an element of type {}: {}",
                        type_name(bad),
                        crate::text::shell::inline(bad)
                    ),
                ));
            }
            if let Some(what) = facet_violation(stages, None) {
                return Err(Error::location(
                    40600,
                    format!("{what} is not allowed to be used within a $facet stage"),
                ));
            }
            facets.push((
                name.clone(),
                Pipeline::compile_in(stages, ctx, Place::Facet)?,
            ));
        }
        Ok(Facet { facets })
    }

    pub fn run<'a>(&'a self, docs: Docs<'a>, db: &'a Database, scope: &Scope) -> Result<Document> {
        self.run_each(docs, |_, p, input| {
            Ok(p.run_read(input, db, scope)?
                .into_iter()
                .map(Cow::into_owned)
                .collect())
        })
    }

    /// Each facet over its own copy of the input (borrowed documents stay
    /// borrowed), `run_one(position, pipeline, input)` giving its documents;
    /// the output holds each facet's result under its name. The page's
    /// Stages view runs facets through here too, stage by stage.
    pub(crate) fn run_each<'a>(
        &'a self,
        docs: Docs<'a>,
        mut run_one: impl FnMut(usize, &'a Pipeline, Docs<'a>) -> Result<Vec<Document>>,
    ) -> Result<Document> {
        let mut out = Document::new();
        for (i, (name, p)) in self.facets.iter().enumerate() {
            let input: Docs<'a> = docs
                .iter()
                .map(|d| match d {
                    Cow::Borrowed(b) => Cow::Borrowed(*b),
                    Cow::Owned(o) => Cow::Owned(o.clone()),
                })
                .collect();
            let result = run_one(i, p, input)?;
            out.insert(
                name.clone(),
                Bson::Array(result.into_iter().map(Bson::Document).collect()),
            );
        }
        Ok(out)
    }

    /// The facets' names, in order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.facets.iter().map(|(n, _)| n.as_str())
    }
}

/// A stage not allowed in `$facet`, at any depth of `$lookup`/`$unionWith`
/// sub-pipelines, named as the server does: "$facet inside of $lookup"
/// (document_source_facet.cpp; jstests facet/facet_validate_pipelines.js).
fn facet_violation(stages: &[Bson], inside: Option<&str>) -> Option<String> {
    for stage in stages {
        let Bson::Document(d) = stage else { continue };
        let Some((name, spec)) = d.iter().next() else {
            continue;
        };
        if matches!(name.as_str(), "$facet" | "$out" | "$merge" | "$documents") {
            return Some(match inside {
                Some(parent) => format!("{name} inside of {parent}"),
                None => name.clone(),
            });
        }
        if matches!(name.as_str(), "$lookup" | "$unionWith") {
            if let Bson::Document(spec) = spec {
                if let Some(Bson::Array(sub)) = spec.get("pipeline") {
                    if let Some(found) = facet_violation(sub, Some(name)) {
                        return Some(found);
                    }
                }
            }
        }
    }
    None
}
