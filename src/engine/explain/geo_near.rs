//! explain() of a pipeline that starts with `$geoNear`: the server turns the
//! stage into a near query over the geo index and shows its plan (GEO_NEAR_2D
//! or GEO_NEAR_2DSPHERE) under a `$geoNearCursor` stage, even when the
//! pipeline has no other stage; the other stages follow as written.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/geoNear/.
use super::super::{Database, Session};
use crate::aggregate::stages::geo_near::{near_index, GeoNear};
use crate::error::Result;
use crate::expr::{CompileCtx, Scope};
use crate::index::explain::{num, Verbosity};
use bson::{doc, Bson, Document};

/// The explain of `stages` when its first stage is `$geoNear`; None otherwise.
pub fn aggregate(
    session: &Session,
    coll: &str,
    stages: &[Bson],
    v: Verbosity,
) -> Result<Option<Bson>> {
    let Some(Bson::Document(first)) = stages.first() else {
        return Ok(None);
    };
    let Some(spec) = first.get("$geoNear") else {
        return Ok(None);
    };
    let stage = GeoNear::compile(spec, &CompileCtx::default())?;
    let ns = Database::namespace(coll);
    let c = session.db.collection(coll);
    let command = doc! { "aggregate": coll, "pipeline": stages.to_vec(), "explain": true, "cursor": {}, "$db": Database::current_name() };
    let query = spec
        .as_document()
        .and_then(|s| s.get_document("query").ok())
        .cloned();
    let mut cursor = Document::new();
    match c {
        // The server needs the collection and its index; an absent collection
        // plans nothing (EOF).
        None => {
            cursor.insert(
                "queryPlanner",
                doc! {"namespace": ns.clone(), "parsedQuery": query.clone().unwrap_or_default(), "winningPlan": {"stage": "EOF"}, "rejectedPlans": []},
            );
        }
        Some(c) => {
            let field = stage.field(c, &ns)?;
            let q = stage.near_query()?;
            let ix = near_index(c, &field, &q)?;
            let returned = if v >= Verbosity::ExecutionStats {
                Some(stage.run(Some(c), coll, &Scope::new(&session.run))?.len())
            } else {
                None
            };
            let (plan, _) =
                crate::index::geo_explain::geo_near_stage(c, ix, &field, query.clone(), returned);
            let mut parsed = query.clone().unwrap_or_default();
            parsed.insert(field.clone(), near_condition(spec));
            cursor.insert(
                "queryPlanner",
                doc! {"namespace": ns.clone(), "parsedQuery": parsed, "winningPlan": plan.clone(), "rejectedPlans": []},
            );
            if let Some(n) = returned {
                let fetch = plan
                    .get_array("inputStages")
                    .ok()
                    .and_then(|a| a.first())
                    .and_then(Bson::as_document);
                let docs = fetch.and_then(|f| f.get("docsExamined")).cloned();
                let keys = fetch
                    .and_then(|f| f.get_document("inputStage").ok())
                    .and_then(|i| i.get("keysExamined"))
                    .cloned();
                cursor.insert(
                    "executionStats",
                    doc! {
                        "executionSuccess": true,
                        "nReturned": num(n),
                        "executionTimeMillis": 0,
                        "totalKeysExamined": keys.unwrap_or(Bson::Int32(0)),
                        "totalDocsExamined": docs.unwrap_or(Bson::Int32(0)),
                        "executionStages": plan,
                    },
                );
            }
        }
    }
    let mut out_stages = vec![Bson::Document(doc! { "$geoNearCursor": cursor })];
    out_stages.extend(stages.iter().skip(1).cloned());
    Ok(Some(Bson::Document(doc! {
        "explainVersion": "1",
        "stages": out_stages,
        "command": command,
        "ok": 1,
    })))
}

/// The stage as the near condition the server plans: `$near` or
/// `$nearSphere` (spherical) with the stage's distance bounds.
fn near_condition(spec: &Bson) -> Bson {
    let Some(s) = spec.as_document() else {
        return Bson::Null;
    };
    let spherical = s.get_bool("spherical").unwrap_or(false);
    let mut near = Document::new();
    let op = if spherical { "$nearSphere" } else { "$near" };
    near.insert(op, s.get("near").cloned().unwrap_or(Bson::Null));
    for (from, to) in [
        ("minDistance", "$minDistance"),
        ("maxDistance", "$maxDistance"),
    ] {
        if let Some(d) = s.get(from) {
            near.insert(to, d.clone());
        }
    }
    Bson::Document(near)
}
