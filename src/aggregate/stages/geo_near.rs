//! `$geoNear` and the index lookup it shares with find's `$near`: documents
//! ordered by distance from a point, through the collection's `2d` or
//! `2dsphere` index (the server turns the stage into a `$near`/`$nearSphere`
//! query, document_source_geo_near.cpp).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/geoNear/.
use crate::aggregate::path::FieldPath as Path;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::geo::index::path_values;
use crate::geo::{GeoKind, NearQuery};
use crate::query::Filter;
use crate::storage::index::Index;
use crate::storage::{Collection, Database};
use crate::text::shell::type_name;
use crate::value::numeric::{is_number, to_f64};
use crate::value::path::FieldPath;
use bson::{Bson, Document};

/// The index a near query on `path` runs through: a visible geospatial index
/// with a field of a fitting kind on that path.
pub fn near_index<'c>(c: &'c Collection, path: &str, q: &NearQuery) -> Result<&'c Index> {
    c.indexes()
        .iter()
        .filter(|ix| !ix.spec.hidden)
        .find(|ix| {
            ix.spec.geo.iter().any(|(i, kind)| {
                q.index_kind_fits(kind.name())
                    && ix.spec.paths.get(*i).is_some_and(|p| p.dotted() == path)
            })
        })
        .ok_or_else(|| {
            Error::new(
                291,
                "NoQueryExecutionPlans",
                "unable to find index for $geoNear query",
            )
        })
}

/// The documents (by position) a near query keeps, nearest first, each with
/// its distance and the location it was measured to. Documents without a
/// geometry at the path are not in the index, so never returned.
pub fn nearest<'d>(
    docs: impl Iterator<Item = (usize, &'d Document)>,
    path: &FieldPath,
    q: &NearQuery,
) -> Vec<(usize, f64, Bson)> {
    let mut out: Vec<(usize, f64, Bson)> = docs
        .filter_map(|(i, d)| {
            let values = path_values(d, path);
            let (dist, loc) = q.nearest(&values)?;
            q.in_range(dist).then(|| (i, dist, loc.clone()))
        })
        .collect();
    crate::sorting::sort_by(&mut out, |a, b| a.1.total_cmp(&b.1));
    out
}

#[derive(Clone, Debug)]
pub struct GeoNear {
    near: Bson,
    distance_field: Path,
    spherical: bool,
    min: Option<f64>,
    max: Option<f64>,
    multiplier: Option<f64>,
    query: Filter,
    include_locs: Option<Path>,
    key: Option<String>,
}

fn number(spec: &Document, name: &str) -> Result<Option<f64>> {
    let Some(v) = spec.get(name) else {
        return Ok(None);
    };
    let Some(x) = to_f64(v).filter(|_| is_number(v)) else {
        return Err(Error::type_mismatch(format!("{name} must be a number")));
    };
    if x.is_nan() || x < 0.0 {
        return Err(Error::bad_value(format!("{name} must be nonnegative")));
    }
    Ok(Some(x))
}

fn field_path(s: &str) -> Result<Path> {
    Path::parse(s)
}

impl GeoNear {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<GeoNear> {
        let Bson::Document(spec) = spec else {
            return Err(Error::location(
                10065,
                format!(
                    "invalid parameter: expected an object ($geoNear), got {}",
                    type_name(spec)
                ),
            ));
        };
        if spec.contains_key("collation") {
            return Err(Error::location(40227, "$geoNear does not accept the 'collation' parameter. Instead, specify a collation for the entire aggregation command."));
        }
        for (old, code, what) in [
            (
                "limit",
                50858,
                "no longer supports the 'limit' parameter. Use a $limit stage instead.",
            ),
            (
                "num",
                50857,
                "no longer supports the 'num' parameter. Use a $limit stage instead.",
            ),
            ("start", 50856, "no longer supports the 'start' argument."),
        ] {
            if spec.contains_key(old) {
                return Err(Error::location(code, format!("$geoNear {what}")));
            }
        }
        let Some(near) = spec.get("near") else {
            return Err(Error::location(
                5860400,
                "$geoNear requires a 'near' argument",
            ));
        };
        if !matches!(near, Bson::Array(_) | Bson::Document(_)) {
            return Err(Error::location(
                5860401,
                "$geoNear requires near argument to be a GeoJSON object or a legacy point(array)",
            ));
        }
        let Some(Bson::String(distance_field)) = spec.get("distanceField") else {
            return Err(Error::location(
                16606,
                "$geoNear requires a 'distanceField' option as a String",
            ));
        };
        let max = number(spec, "maxDistance")?;
        let min = number(spec, "minDistance")?;
        let multiplier = number(spec, "distanceMultiplier")?;
        let query = match spec.get("query") {
            None => Filter::compile(&Document::new(), ctx)?,
            Some(Bson::Document(q)) => Filter::compile(q, ctx)?,
            Some(_) => return Err(Error::type_mismatch("query must be an object")),
        };
        let include_locs = match spec.get("includeLocs") {
            None => None,
            Some(Bson::String(s)) => Some(field_path(s)?),
            Some(_) => {
                return Err(Error::location(
                    16607,
                    "$geoNear requires that 'includeLocs' option is a String",
                ))
            }
        };
        let key = match spec.get("key") {
            None => None,
            Some(Bson::String(s)) if s.is_empty() => {
                return Err(Error::bad_value(
                    "$geoNear parameter 'key' cannot be the empty string",
                ))
            }
            Some(Bson::String(s)) => Some(s.clone()),
            Some(v) => {
                return Err(Error::type_mismatch(format!(
                    "$geoNear parameter 'key' must be of type string but found type: {}",
                    type_name(v)
                )))
            }
        };
        for k in spec.keys() {
            let known = [
                "near",
                "distanceField",
                "maxDistance",
                "minDistance",
                "distanceMultiplier",
                "query",
                "spherical",
                "includeLocs",
                "uniqueDocs",
                "key",
            ];
            if !known.contains(&k.as_str()) {
                return Err(Error::location(
                    16602,
                    format!("$geoNear: unrecognized option: {k}"),
                ));
            }
        }
        Ok(GeoNear {
            near: near.clone(),
            distance_field: field_path(distance_field)?,
            spherical: spec
                .get("spherical")
                .is_some_and(|v| crate::expr::truthy(Some(v))),
            min,
            max,
            multiplier,
            query,
            include_locs,
            key,
        })
    }

    /// The geo field to use: `key`, else the only 2d index's field, else the
    /// only 2dsphere index's field.
    pub(crate) fn field(&self, c: &Collection, ns: &str) -> Result<String> {
        if let Some(k) = &self.key {
            return Ok(k.clone());
        }
        for kind in [GeoKind::Flat2d, GeoKind::Sphere2d] {
            let fields: Vec<String> = c
                .indexes()
                .iter()
                .filter(|ix| !ix.spec.hidden)
                .filter_map(|ix| {
                    let (i, _) = ix.spec.geo.iter().find(|(_, k)| *k == kind)?;
                    ix.spec.paths.get(*i).map(|p| p.dotted().to_string())
                })
                .collect();
            match fields.as_slice() {
                [] => continue,
                [one] => return Ok(one.clone()),
                _ => {
                    return Err(Error::index_not_found(format!(
                        "There is more than one {} index on {ns}; unsure which to use for $geoNear",
                        kind.name()
                    )))
                }
            }
        }
        Err(Error::index_not_found(
            "$geoNear requires a 2d or 2dsphere index, but none were found",
        ))
    }

    /// The near condition the stage stands for.
    pub(crate) fn near_query(&self) -> Result<NearQuery> {
        let mut ops = Document::new();
        let op = if self.spherical {
            "$nearSphere"
        } else {
            "$near"
        };
        ops.insert(op, self.near.clone());
        if let Some(m) = self.min {
            ops.insert("$minDistance", m);
        }
        if let Some(m) = self.max {
            ops.insert("$maxDistance", m);
        }
        NearQuery::compile(&ops)
    }

    /// Run over a collection (`$geoNear` is always a pipeline's first stage).
    pub fn run(&self, c: Option<&Collection>, name: &str, scope: &Scope) -> Result<Vec<Document>> {
        let Some(c) = c else {
            return Ok(Vec::new());
        };
        let ns = Database::namespace(name);
        let field = self.field(c, &ns)?;
        let q = self.near_query()?;
        near_index(c, &field, &q)?;
        let path = FieldPath::new(&field);
        let mut matched = Vec::new();
        for (i, d) in c.docs().iter().enumerate() {
            if self.query.matches(d, scope)? {
                matched.push((i, d));
            }
        }
        let mut out = Vec::new();
        for (i, dist, loc) in nearest(matched.into_iter(), &path, &q) {
            let Some(d) = c.docs().get(i) else { continue };
            let mut d = d.clone();
            let dist = dist * self.multiplier.unwrap_or(1.0);
            self.distance_field.set(&mut d, Bson::Double(dist));
            if let Some(p) = &self.include_locs {
                p.set(&mut d, loc);
            }
            out.push(d);
            crate::budget::check()?;
        }
        Ok(out)
    }
}
