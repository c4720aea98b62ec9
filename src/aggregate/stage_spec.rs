//! One stage's specification compiled into its [`Stage`]: the stage document's
//! shape, the stage names (server-only stages refused by name), and where each
//! stage may stand (first, last, inside an update).
use super::pipeline::{Place, Stage};
use super::stages::group::{Count, Group, SortByCount};
use super::stages::project::Projection;
use super::stages::simple::{self, ReplaceRoot};
use super::stages::unwind::Unwind;
use super::stages::{bucket, densify, facet, fill, geo_near, lookup, output, redact, union_with};
use crate::error::{Error, Result};
use crate::expr::CompileCtx;
use crate::query::sort::SortSpec;
use crate::query::Filter;
use bson::Bson;

/// Stages that need a server, an index or a search engine.
const UNSUPPORTED: &[&str] = &[
    "$collStats",
    "$indexStats",
    "$currentOp",
    "$listSessions",
    "$listLocalSessions",
    "$changeStream",
    "$changeStreamSplitLargeEvent",
    "$search",
    "$searchMeta",
    "$vectorSearch",
    "$planCacheStats",
    "$listSearchIndexes",
    "$listSampledQueries",
    "$shardedDataDistribution",
    "$querySettings",
    "$queryStats",
];

/// The name of a one-field stage document, validated.
pub(super) fn stage_parts(stage: &Bson) -> Result<(&str, &Bson)> {
    let Bson::Document(d) = stage else {
        return Err(Error::type_mismatch(format!(
            "Each element of the 'pipeline' array must be an object, got {}",
            crate::text::shell::type_name(stage)
        )));
    };
    let mut fields = d.iter();
    match (fields.next(), fields.next()) {
        (Some((name, spec)), None) => Ok((name.as_str(), spec)),
        _ => Err(Error::location(
            40323,
            "A pipeline stage specification object must contain exactly one field.",
        )),
    }
}

/// A stage compiled for `place`; an update takes only `$addFields`/`$set`,
/// `$project`/`$unset`, `$replaceRoot`/`$replaceWith`.
pub(super) fn compile_placed(
    name: &str,
    spec: &Bson,
    ctx: &CompileCtx,
    place: Place,
    first: bool,
    last: bool,
) -> Result<Stage> {
    let compiled = compile_stage(name, spec, ctx, place, first, last)?;
    if place == Place::Update && !matches!(compiled, Stage::Project(_) | Stage::ReplaceRoot(_)) {
        return Err(Error::invalid_options(format!(
            "{name} is not allowed to be used within an update"
        )));
    }
    Ok(compiled)
}

fn compile_stage(
    name: &str,
    spec: &Bson,
    ctx: &CompileCtx,
    place: Place,
    first: bool,
    last: bool,
) -> Result<Stage> {
    Ok(match name {
        "$match" => {
            let Bson::Document(d) = spec else {
                return Err(Error::location(
                    15959,
                    "the match filter must be an expression in an object",
                ));
            };
            let filter = Filter::compile(d, ctx)?;
            if filter.text().is_some() && !(first && place == Place::Top) {
                return Err(Error::location(
                    17313,
                    "$match with $text is only allowed as the first pipeline stage",
                ));
            }
            Stage::Match(filter)
        }
        "$project" => Stage::Project(Projection::project(spec, ctx)?),
        "$addFields" | "$set" => Stage::Project(Projection::add_fields(spec, name, ctx)?),
        "$unset" => Stage::Project(Projection::unset(spec)?),
        "$group" => Stage::Group(Group::compile(spec, ctx)?),
        "$sort" => Stage::Sort(compile_sort(spec)?),
        "$limit" => Stage::Limit(simple::limit(spec)?),
        "$skip" => Stage::Skip(simple::skip(spec)?),
        "$unwind" => Stage::Unwind(Unwind::compile(spec)?),
        "$count" => Stage::Count(Count::compile(spec)?),
        "$sortByCount" => Stage::SortByCount(SortByCount::compile(spec, ctx)?),
        "$replaceRoot" => Stage::ReplaceRoot(ReplaceRoot::from_replace_root(spec, ctx)?),
        "$replaceWith" => Stage::ReplaceRoot(ReplaceRoot::from_replace_with(spec, ctx)?),
        "$sample" => Stage::Sample(simple::sample_size(spec)?),
        "$geoNear" => {
            if !first || place != Place::Top {
                return Err(Error::location(
                    40603,
                    "$geoNear is only valid as the first stage in a pipeline",
                ));
            }
            Stage::GeoNear(Box::new(geo_near::GeoNear::compile(spec, ctx)?))
        }
        "$documents" => {
            if !first {
                return Err(Error::location(
                    40602,
                    "$documents is only valid as the first stage in a pipeline",
                ));
            }
            Stage::Documents(simple::documents(spec, ctx)?)
        }
        "$facet" => {
            if place == Place::Facet {
                return Err(Error::location(
                    40600,
                    "$facet is not allowed to be used within a $facet stage",
                ));
            }
            Stage::Facet(facet::Facet::compile(spec, ctx)?)
        }
        "$lookup" => Stage::Lookup(Box::new(lookup::Lookup::compile(spec, ctx)?)),
        "$graphLookup" => Stage::GraphLookup(Box::new(lookup::GraphLookup::compile(spec, ctx)?)),
        "$unionWith" => Stage::UnionWith(Box::new(union_with::UnionWith::compile(spec, ctx)?)),
        "$bucket" => Stage::Bucket(bucket::Bucket::compile(spec, ctx)?),
        "$bucketAuto" => Stage::BucketAuto(bucket::BucketAuto::compile(spec, ctx)?),
        "$setWindowFields" => {
            Stage::SetWindowFields(super::window::SetWindowFields::compile(spec, ctx)?)
        }
        "$redact" => Stage::Redact(redact::Redact::compile(spec, ctx)?),
        "$densify" => Stage::Densify(densify::Densify::compile(spec)?),
        "$fill" => Stage::Fill(fill::Fill::compile(spec, ctx)?),
        "$out" | "$merge" => {
            match place {
                Place::Facet => {
                    return Err(Error::location(
                        40600,
                        format!("{name} is not allowed to be used within a $facet stage"),
                    ))
                }
                Place::Lookup => {
                    return Err(Error::location(
                        51047,
                        format!("{name} is not allowed within a $lookup's sub-pipeline"),
                    ))
                }
                Place::UnionWith => {
                    return Err(Error::location(
                        31441,
                        format!("{name} is not allowed within a $unionWith's sub-pipeline"),
                    ))
                }
                Place::Top | Place::Update => {}
            }
            if !last {
                return Err(Error::location(
                    40601,
                    format!("{name} can only be the final stage in the pipeline"),
                ));
            }
            if name == "$out" {
                Stage::Out(output::Out::compile(spec)?)
            } else {
                Stage::Merge(output::Merge::compile(spec, ctx)?)
            }
        }
        _ if UNSUPPORTED.contains(&name) => {
            return Err(Error::not_supported(format!(
                "the {name} stage (it needs a MongoDB server); it"
            )))
        }
        _ => {
            return Err(Error::location(
                40324,
                format!("Unrecognized pipeline stage name: '{name}'"),
            ))
        }
    })
}

fn compile_sort(spec: &Bson) -> Result<SortSpec> {
    let Bson::Document(d) = spec else {
        return Err(Error::location(
            15973,
            "the $sort key specification must be an object",
        ));
    };
    if d.is_empty() {
        return Err(Error::location(
            15976,
            "$sort stage must have at least one sort key",
        ));
    }
    SortSpec::compile(d)
}
