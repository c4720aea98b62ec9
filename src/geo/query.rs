//! The geospatial query operators, parsed as the server parses them
//! (src/mongo/db/matcher/expression_geo.cpp): `$geoWithin` (`$within`) and
//! `$geoIntersects`, which test each document on their own, and
//! `$near`/`$nearSphere`, which need a geospatial index and order the
//! results by distance.
//! See https://www.mongodb.com/docs/manual/reference/operator/query-geospatial/.
use super::region::{sphere_distance, Region};
use super::shape::{flat_point, parse_query_geometry, parse_stored, sphere_point, Point, Shape};
use super::sphere::EARTH_RADIUS_M;
use crate::error::{Error, Result};
use crate::text::server::{elem, server_string};
use crate::value::numeric::{is_number, to_f64};
use bson::{Bson, Document};

fn bad(message: impl Into<String>) -> Error {
    Error::bad_value(message)
}

/// `$geoWithin` or `$geoIntersects` on one path.
#[derive(Clone, Debug)]
pub struct GeoMatch {
    within: bool,
    region: Region,
}

/// `{name: arg}` as the server prints it in messages.
fn shown(name: &str, arg: &Bson) -> String {
    format!("{{ {} }}", elem(name, arg))
}

/// One geo specifier of a query: `$geometry`, `$box`, `$center`,
/// `$centerSphere`, `$polygon` (GeometryContainer::parseFromQuery).
fn region(name: &str, arg: &Bson) -> Result<Region> {
    let items = match arg {
        Bson::Array(a) => a.iter().collect::<Vec<_>>(),
        Bson::Document(d) => d.values().collect(),
        _ => Vec::new(),
    };
    let known = matches!(
        name,
        "$box" | "$center" | "$polygon" | "$centerSphere" | "$geometry"
    );
    if !known || !matches!(arg, Bson::Array(_) | Bson::Document(_)) {
        return Err(bad(format!("unknown geo specifier: {}", elem(name, arg))));
    }
    let nothing = Bson::Null;
    let at = |i: usize| items.get(i).copied().unwrap_or(&nothing);
    let radius = |i: usize| -> Result<f64> {
        let r = at(i);
        match to_f64(r).filter(|_| is_number(r)) {
            Some(x) if x >= 0.0 => {
                if items.len() > i + 1 {
                    return Err(bad("Only 2 fields allowed for circular region"));
                }
                Ok(x)
            }
            _ => Err(bad("radius must be a non-negative number")),
        }
    };
    Ok(match name {
        "$box" => {
            let a = flat_point(at(0), false)?;
            let b = flat_point(at(1), false)?;
            Region::Box {
                min: (a.0.min(b.0), a.1.min(b.1)),
                max: (a.0.max(b.0), a.1.max(b.1)),
            }
        }
        "$center" => Region::Circle {
            center: flat_point(at(0), false)?,
            radius: radius(1)?,
        },
        "$centerSphere" => {
            let (x, y) = flat_point(at(0), false)?;
            Region::Cap {
                center: sphere_point(x, y)?,
                radius: radius(1)?,
            }
        }
        "$polygon" => {
            let pts = items
                .iter()
                .map(|p| flat_point(p, false))
                .collect::<Result<Vec<_>>>()?;
            if pts.len() < 3 {
                return Err(bad("Polygon must have at least 3 points"));
            }
            Region::FlatPolygon(pts)
        }
        // A legacy point here is flat; `$geoIntersects` projects it.
        _ => Region::Sphere(parse_query_geometry(arg)?),
    })
}

impl GeoMatch {
    /// `op` is `$geoWithin`, `$within` or `$geoIntersects`.
    pub fn compile(op: &str, arg: &Bson) -> Result<GeoMatch> {
        let within = op != "$geoIntersects";
        let Bson::Document(spec) = arg else {
            return Err(bad("geometry must be an object"));
        };
        let mut found = None;
        for (name, value) in spec {
            if name == "$uniqueDocs" {
                continue;
            }
            found = Some(region(name, value)?);
        }
        let Some(region) = found else {
            return Err(bad("geo query doesn't have any geometry"));
        };
        if within && !region.has_area() {
            return Err(bad(format!(
                "$within not supported with provided geometry: {}",
                shown(op, arg)
            )));
        }
        let unprojectable =
            matches!(&region, Region::Sphere(Shape::Point(p)) if p.sphere().is_none());
        if !within && (region.is_flat() || unprojectable) {
            return Err(bad(format!(
                "$geoIntersect not supported with provided geometry: {}",
                shown(op, arg)
            )));
        }
        Ok(GeoMatch { within, region })
    }

    /// Does one value at the path match (values that are not geometry never do)?
    pub fn matches(&self, v: &Bson) -> bool {
        if !matches!(v, Bson::Array(_) | Bson::Document(_)) {
            return false;
        }
        let Ok(stored) = parse_stored(v) else {
            return false;
        };
        if self.region.is_flat() && !matches!(stored, Shape::Point(_)) {
            return false;
        }
        if self.within {
            self.region.contains(&stored)
        } else {
            self.region.intersects(&stored)
        }
    }
}

/// How `$near`'s distances are measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Legacy `$near`: flat, in coordinate units (a 2d index).
    Flat,
    /// Legacy `$nearSphere`: on the sphere, in radians.
    Radians,
    /// A GeoJSON point: on the sphere, in meters (a 2dsphere index).
    Meters,
}

/// `$near`/`$nearSphere` on one path, with its distance bounds.
#[derive(Clone, Debug)]
pub struct NearQuery {
    pub point: Point,
    pub metric: Metric,
    pub min: f64,
    pub max: f64,
    /// `$nearSphere` (else `$near`).
    pub sphere: bool,
}

/// Is this operator one of the near family?
pub fn is_near(op: &str) -> bool {
    matches!(op, "$near" | "$nearSphere")
}

fn distance_bound(v: &Bson, name: &str, codes: (i32, i32)) -> Result<f64> {
    let Some(x) = to_f64(v).filter(|_| is_number(v)) else {
        return Err(Error::location(codes.0, format!("{name} must be a number")));
    };
    if x.is_nan() || x < 0.0 {
        return Err(Error::location(
            codes.1,
            format!("{name} must be non-negative"),
        ));
    }
    Ok(x)
}

impl NearQuery {
    /// The operator document of a path: `{$near: .., $maxDistance: ..}`
    /// (legacy form) or `{$near: {$geometry: .., $maxDistance: ..}}`.
    pub fn compile(ops: &Document) -> Result<NearQuery> {
        if let Some(q) = Self::legacy(ops)? {
            return Self::finish(q);
        }
        Self::finish(Self::geojson(ops)?)
    }

    fn legacy(ops: &Document) -> Result<Option<NearQuery>> {
        let mut q = NearQuery {
            point: Point {
                x: 0.0,
                y: 0.0,
                geojson: false,
            },
            metric: Metric::Flat,
            min: 0.0,
            max: f64::MAX,
            sphere: false,
        };
        let mut found = false;
        for (name, v) in ops {
            match name.as_str() {
                n if is_near(n) => {
                    if !matches!(v, Bson::Array(_) | Bson::Document(_)) {
                        return Ok(None);
                    }
                    if let Ok(Shape::Point(p)) = parse_query_geometry(v) {
                        q.point = p;
                        q.sphere = n == "$nearSphere";
                        found = true;
                    }
                }
                "$minDistance" => q.min = distance_bound(v, "$minDistance", (16893, 16894))?,
                "$maxDistance" => q.max = distance_bound(v, "$maxDistance", (16895, 16896))?,
                _ => {}
            }
        }
        Ok(found.then_some(q))
    }

    fn geojson(ops: &Document) -> Result<NearQuery> {
        let mut it = ops.iter();
        let Some((name, arg)) = it.next() else {
            return Err(bad("empty geo near query object"));
        };
        if let Some((k, v)) = it.next() {
            return Err(bad(format!(
                "geo near accepts just one argument when querying for a GeoJSON point. Extra field found: {}",
                elem(k, v)
            )));
        }
        let Bson::Document(inner) = arg else {
            return Err(bad("geo near query argument is not an object"));
        };
        if !is_near(name) {
            return Err(bad(format!("invalid geo near query operator: {name}")));
        }
        let mut q = NearQuery {
            point: Point {
                x: 0.0,
                y: 0.0,
                geojson: true,
            },
            metric: Metric::Meters,
            min: 0.0,
            max: f64::MAX,
            sphere: name == "$nearSphere",
        };
        let mut found = false;
        for (k, v) in inner {
            match k.as_str() {
                "$geometry" => {
                    if let Bson::Document(g) = v {
                        let shape = parse_query_geometry(v).map_err(|e| {
                            bad(format!(
                                "invalid point in geo near query $geometry argument: {}  {}",
                                server_string(v),
                                e.message
                            ))
                        })?;
                        match shape {
                            Shape::Point(p) if p.geojson => q.point = p,
                            Shape::Point(_) => {
                                return Err(Error::location(
                                    16681,
                                    format!(
                                        "$near requires geojson geometry, given {}",
                                        server_string(&Bson::Document(g.clone()))
                                    ),
                                ))
                            }
                            _ => {
                                return Err(bad(format!(
                                    "$near requires a point, given {}",
                                    server_string(v)
                                )))
                            }
                        }
                        found = true;
                    }
                }
                "$minDistance" => q.min = distance_bound(v, "$minDistance", (16897, 16898))?,
                "$maxDistance" => q.max = distance_bound(v, "$maxDistance", (16899, 16900))?,
                _ => {}
            }
        }
        if !found {
            return Err(bad("$geometry is required for geo near query"));
        }
        Ok(q)
    }

    fn finish(mut q: NearQuery) -> Result<NearQuery> {
        q.metric = if q.point.geojson {
            Metric::Meters
        } else if q.sphere {
            if q.point.sphere().is_none() {
                return Err(Error::location(
                    17444,
                    "Legacy point is out of bounds for spherical query",
                ));
            }
            Metric::Radians
        } else {
            Metric::Flat
        };
        Ok(q)
    }

    /// Can an index of this kind answer the query (`2d` or `2dsphere`)?
    pub fn index_kind_fits(&self, kind: &str) -> bool {
        match self.metric {
            Metric::Flat => kind == "2d",
            Metric::Radians => kind == "2d" || kind == "2dsphere",
            Metric::Meters => kind == "2dsphere",
        }
    }

    /// The distance from the query point to a stored value, in the query's
    /// units; `None` when the value is not a geometry this query can measure.
    pub fn distance(&self, v: &Bson) -> Option<f64> {
        let stored = parse_stored(v).ok()?;
        match self.metric {
            Metric::Flat => match stored {
                Shape::Point(p) => Some((p.x - self.point.x).hypot(p.y - self.point.y)),
                _ => None,
            },
            Metric::Radians | Metric::Meters => {
                let from = self.point.sphere()?;
                let a = sphere_distance(&stored, from)?;
                Some(if self.metric == Metric::Meters {
                    a * EARTH_RADIUS_M
                } else {
                    a
                })
            }
        }
    }

    /// Is a distance inside `[$minDistance, $maxDistance]`?
    pub fn in_range(&self, d: f64) -> bool {
        d >= self.min && d <= self.max
    }

    /// The nearest geometry among a path's values, with its distance
    /// (`includeLocs` shows it).
    pub fn nearest<'a>(&self, values: &[&'a Bson]) -> Option<(f64, &'a Bson)> {
        let mut best: Option<(f64, &Bson)> = None;
        for v in values {
            let candidates: Vec<&Bson> = match v {
                // An array of geometries (not itself a point).
                Bson::Array(items) if parse_stored(v).is_err() => items.iter().collect(),
                _ => vec![*v],
            };
            for c in candidates {
                if let Some(d) = self.distance(c) {
                    if best.is_none_or(|(b, _)| d < b) {
                        best = Some((d, c));
                    }
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, doc};

    #[test]
    fn parse_errors() {
        let msg = |op: &str, arg: Bson| GeoMatch::compile(op, &arg).err().map(|e| e.message);
        assert_eq!(
            msg("$geoWithin", bson!({"$geometry": {"type": "Point", "coordinates": [1, 2]}})),
            Some("$within not supported with provided geometry: { $geoWithin: { $geometry: { type: \"Point\", coordinates: [ 1, 2 ] } } }".to_string())
        );
        assert_eq!(
            msg("$geoIntersects", bson!({"$box": [[0, 0], [1, 1]]})),
            Some("$geoIntersect not supported with provided geometry: { $geoIntersects: { $box: [ [ 0, 0 ], [ 1, 1 ] ] } }".to_string())
        );
        assert_eq!(
            msg("$geoWithin", bson!({"$circle": [[0, 0], 1]})),
            Some("unknown geo specifier: $circle: [ [ 0, 0 ], 1 ]".to_string())
        );
        assert_eq!(
            msg("$geoWithin", bson!({"$center": [[0, 0], -1]})),
            Some("radius must be a non-negative number".to_string())
        );
        assert_eq!(
            msg("$geoWithin", bson!({"$geometry": [1, 2]})),
            Some("$within not supported with provided geometry: { $geoWithin: { $geometry: [ 1, 2 ] } }".to_string())
        );
        assert!(GeoMatch::compile("$geoIntersects", &bson!({"$geometry": [1, 2]})).is_ok());
        assert!(GeoMatch::compile("$geoIntersects", &bson!({"$geometry": [500, 2]})).is_err());
        assert_eq!(
            msg("$geoWithin", bson!({})),
            Some("geo query doesn't have any geometry".to_string())
        );
    }

    #[test]
    fn near_forms_and_units() {
        let q = NearQuery::compile(&doc! {"$near": [0, 0], "$maxDistance": 2})
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(q.metric, Metric::Flat);
        assert_eq!(q.distance(&bson!([3, 4])), Some(5.0));
        let q = NearQuery::compile(&doc! {"$nearSphere": [0, 0]}).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(q.metric, Metric::Radians);
        let d = q.distance(&bson!([0, 1])).unwrap_or_default();
        assert!((d - 1f64.to_radians()).abs() < 1e-12);
        let q = NearQuery::compile(&doc! {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": 10}})
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(q.metric, Metric::Meters);
        assert_eq!(q.max, 10.0);
        let d = q
            .distance(&bson!({"type": "Point", "coordinates": [1, 0]}))
            .unwrap_or_default();
        assert!((d - 111_318.845_021_450_34).abs() < 1e-6);
        let code = |d: Document| NearQuery::compile(&d).err().map(|e| e.code);
        assert_eq!(
            code(doc! {"$near": [0, 0], "$maxDistance": -1}),
            Some(16896)
        );
        assert_eq!(code(doc! {"$near": {"$maxDistance": 1}}), Some(2));
        assert_eq!(code(doc! {"$nearSphere": [500, 0]}), Some(17444));
        assert_eq!(
            code(
                doc! {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}, "$maxDistance": 1}
            ),
            Some(2)
        );
    }
}
