//! Geometries read from documents and queries, validated as the server's
//! GeoParser validates them (src/mongo/db/geo/geoparser.cpp), with its
//! messages: GeoJSON `Point`, `LineString`, `Polygon` (holes), `MultiPoint`,
//! `MultiLineString`, `MultiPolygon`, `GeometryCollection`, and legacy
//! coordinate pairs (`[x, y]` or `{x: .., y: ..}`).
//! See https://www.mongodb.com/docs/manual/reference/geojson/.
use super::sphere::{from_lng_lat, Loop, Polygon, V3};
use crate::error::{Error, Result};
use crate::text::server::server_string;
use crate::value::numeric::{is_number, printf_g, to_f64};
use bson::{Bson, Document};

/// A point: legacy pairs are flat (any finite numbers), GeoJSON points are
/// on the sphere. A flat point takes part in spherical queries when its
/// numbers are a valid longitude and latitude.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub geojson: bool,
}

impl Point {
    pub fn sphere(&self) -> Option<V3> {
        valid_lng_lat(self.x, self.y).then(|| from_lng_lat(self.x, self.y))
    }
}

pub fn valid_lng_lat(lng: f64, lat: f64) -> bool {
    (-180.0..=180.0).contains(&lng) && (-90.0..=90.0).contains(&lat)
}

#[derive(Clone, Debug)]
pub enum Shape {
    Point(Point),
    Line(Vec<V3>),
    Polygon(Polygon),
    MultiPoint(Vec<V3>),
    MultiLine(Vec<Vec<V3>>),
    MultiPolygon(Vec<Polygon>),
    Collection(Vec<Shape>),
}

fn bad(message: impl Into<String>) -> Error {
    Error::bad_value(message)
}

/// The elements of an array or a document, in order.
fn elements(v: &Bson) -> Option<Vec<&Bson>> {
    match v {
        Bson::Array(a) => Some(a.iter().collect()),
        Bson::Document(d) => Some(d.values().collect()),
        _ => None,
    }
}

/// Two numbers (parseFlatPoint); `more` allows further elements (stored
/// points and GeoJSON positions may carry an altitude).
pub fn flat_point(v: &Bson, more: bool) -> Result<(f64, f64)> {
    let Some(items) = elements(v) else {
        return Err(bad("Point must be an array or object"));
    };
    let num = |i: usize| {
        items
            .get(i)
            .filter(|v| is_number(v))
            .and_then(|v| to_f64(v))
            .ok_or_else(|| bad("Point must only contain numeric elements"))
    };
    let (x, y) = (num(0)?, num(1)?);
    if !more && items.len() > 2 {
        return Err(bad("Point must only contain two numeric elements"));
    }
    if !x.is_finite() || !y.is_finite() {
        return Err(bad("Point coordinates must be finite numbers"));
    }
    Ok((x, y))
}

fn out_of_bounds(lng: f64, lat: f64) -> Error {
    bad(format!(
        "longitude/latitude is out of bounds, lng: {} lat: {}",
        printf_g(lng),
        printf_g(lat)
    ))
}

pub fn sphere_point(lng: f64, lat: f64) -> Result<V3> {
    if valid_lng_lat(lng, lat) {
        Ok(from_lng_lat(lng, lat))
    } else {
        Err(out_of_bounds(lng, lat))
    }
}

/// A GeoJSON position `[lng, lat, ...]`.
fn position(v: &Bson) -> Result<V3> {
    if !matches!(v, Bson::Array(_)) {
        return Err(bad("GeoJSON coordinates must be an array"));
    }
    let (x, y) = flat_point(v, true)?;
    sphere_point(x, y)
}

fn positions(v: &Bson) -> Result<Vec<V3>> {
    let Bson::Array(items) = v else {
        return Err(bad("GeoJSON coordinates must be an array of coordinates"));
    };
    items.iter().map(position).collect()
}

/// Adjacent equal vertices count once (eraseDuplicatePoints).
fn dedup(points: &mut Vec<V3>) {
    points.dedup();
}

fn line(v: &Bson) -> Result<Vec<V3>> {
    let mut pts = positions(v)?;
    dedup(&mut pts);
    if pts.len() < 2 {
        return Err(bad(format!(
            "GeoJSON LineString must have at least 2 vertices: {}",
            server_string(v)
        )));
    }
    Ok(pts)
}

fn polygon(v: &Bson) -> Result<Polygon> {
    let Bson::Array(rings) = v else {
        return Err(bad("Polygon coordinates must be an array"));
    };
    let mut loops: Vec<Loop> = Vec::with_capacity(rings.len());
    for ring in rings {
        let mut pts = positions(ring)?;
        let shown = server_string(ring);
        let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
            return Err(bad(format!("Loop has no vertices: {shown}")));
        };
        if first != last {
            return Err(bad(format!("Loop is not closed: {shown}")));
        }
        dedup(&mut pts);
        pts.pop();
        if pts.len() < 3 {
            return Err(bad(format!(
                "Loop must have at least 3 different vertices: {shown}"
            )));
        }
        for i in 0..pts.len() {
            if let Some(j) = (i + 1..pts.len()).find(|&j| pts[j] == pts[i]) {
                return Err(bad(format!(
                    "Loop is not valid: {shown} Duplicate vertices: {i} and {j}"
                )));
            }
        }
        let lp = Loop::new(pts);
        if let Some((i, j)) = lp.self_crossing() {
            return Err(bad(format!(
                "Loop is not valid: {shown} Edges {i} and {j} cross"
            )));
        }
        if let Some(outer) = loops.first() {
            let inside = lp
                .vertices
                .iter()
                .all(|&p| outer.contains(p) || outer.on_boundary(p));
            if !inside {
                return Err(bad(format!(
                    "Secondary loops not contained by first exterior loop - secondary loops must be holes: {shown} first loop: {}",
                    rings.first().map(server_string).unwrap_or_default()
                )));
            }
        }
        loops.push(lp);
    }
    if loops.is_empty() {
        return Err(bad("Polygon has no loops."));
    }
    Ok(Polygon { loops })
}

fn non_empty<T>(items: Vec<T>, what: &str) -> Result<Vec<T>> {
    if items.is_empty() {
        Err(bad(format!(
            "{what} coordinates must have at least 1 element"
        )))
    } else {
        Ok(items)
    }
}

/// The GeoJSON type names the server knows.
fn geojson_type(d: &Document) -> Option<&str> {
    match d.get("type") {
        Some(Bson::String(t)) => match t.as_str() {
            "Point" | "LineString" | "Polygon" | "MultiPoint" | "MultiLineString"
            | "MultiPolygon" | "GeometryCollection" => Some(t.as_str()),
            _ => None,
        },
        _ => None,
    }
}

/// The optional `crs`: only the default WGS84 names; MongoDB's strict-winding
/// CRS (big polygons) is not supported here.
fn crs(d: &Document, kind: &str) -> Result<()> {
    let Some(c) = d.get("crs") else {
        return Ok(());
    };
    let Bson::Document(c) = c else {
        return Err(bad("GeoJSON CRS must be an object"));
    };
    if !matches!(c.get("type"), Some(Bson::String(t)) if t == "name") {
        return Err(bad("GeoJSON CRS must have field \"type\": \"name\""));
    }
    let Some(Bson::Document(props)) = c.get("properties") else {
        return Err(bad("CRS must have field \"properties\" which is an object"));
    };
    let Some(Bson::String(name)) = props.get("name") else {
        return Err(bad("In CRS, \"properties.name\" must be a string"));
    };
    match name.as_str() {
        "urn:ogc:def:crs:OGC:1.3:CRS84" | "EPSG:4326" => Ok(()),
        "urn:x-mongodb:crs:strictwinding:EPSG:4326" => {
            if kind == "Polygon" {
                Err(Error::not_supported(
                    "the strict-winding CRS (polygons larger than a hemisphere)",
                ))
            } else {
                Err(bad("Strict winding order is only supported by polygon"))
            }
        }
        other => Err(bad(format!("Unknown CRS name: {other}"))),
    }
}

/// A GeoJSON object whose `type` is one of the known names.
fn geojson(d: &Document, kind: &str, depth: usize) -> Result<Shape> {
    if kind != "GeometryCollection" {
        crs(d, kind)?;
    }
    let coords = d.get("coordinates").unwrap_or(&Bson::Null);
    Ok(match kind {
        "Point" => {
            let (x, y) = flat_point(coords, true)?;
            if !valid_lng_lat(x, y) {
                return Err(out_of_bounds(x, y));
            }
            Shape::Point(Point {
                x,
                y,
                geojson: true,
            })
        }
        "LineString" => Shape::Line(line(coords)?),
        "Polygon" => Shape::Polygon(polygon(coords)?),
        "MultiPoint" => Shape::MultiPoint(non_empty(positions(coords)?, "MultiPoint")?),
        "MultiLineString" => {
            let Bson::Array(lines) = coords else {
                return Err(bad("MultiLineString coordinates must be an array"));
            };
            let lines = lines.iter().map(line).collect::<Result<Vec<_>>>()?;
            Shape::MultiLine(non_empty(lines, "MultiLineString")?)
        }
        "MultiPolygon" => {
            let Bson::Array(polys) = coords else {
                return Err(bad("MultiPolygon coordinates must be an array"));
            };
            let polys = polys.iter().map(polygon).collect::<Result<Vec<_>>>()?;
            Shape::MultiPolygon(non_empty(polys, "MultiPolygon")?)
        }
        _ => {
            let Some(Bson::Array(items)) = d.get("geometries") else {
                return Err(bad("GeometryCollection geometries must be an array"));
            };
            if items.is_empty() {
                return Err(bad(
                    "GeometryCollection geometries must have at least 1 element",
                ));
            }
            let mut shapes = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let Bson::Document(g) = item else {
                    return Err(bad(format!(
                        "Element {i} of \"geometries\" is not an object"
                    )));
                };
                let shown = server_string(item);
                let Some(kind) = geojson_type(g) else {
                    return Err(bad(format!("Unknown GeoJSON type: {shown}")));
                };
                if kind == "GeometryCollection" || depth > 0 {
                    return Err(bad(format!(
                        "GeometryCollections cannot be nested: {shown}"
                    )));
                }
                shapes.push(geojson(g, kind, depth + 1)?);
            }
            Shape::Collection(shapes)
        }
    })
}

/// A stored value: GeoJSON when it has a known `type`, else a legacy point
/// (which may carry further fields). Values that are neither fail.
pub fn parse_stored(v: &Bson) -> Result<Shape> {
    let legacy = || {
        flat_point(v, true).map(|(x, y)| {
            Shape::Point(Point {
                x,
                y,
                geojson: false,
            })
        })
    };
    match v {
        // A document is GeoJSON, or else a legacy point; when it is neither,
        // the GeoJSON error is the one reported (GeometryContainer::parseFromStorage).
        Bson::Document(d) => {
            let as_geojson = match geojson_type(d) {
                Some(kind) => geojson(d, kind, 0),
                None => Err(bad(format!("unknown GeoJSON type: {}", server_string(v)))),
            };
            match as_geojson {
                Err(e) if e.code == 2 => legacy().map_err(|_| e),
                other => other,
            }
        }
        Bson::Array(_) => legacy(),
        _ => Err(bad("geo element must be an array or object")),
    }
}

/// A query's `$geometry` (or `$near`'s point): a legacy point when it is an
/// array or starts with a number, else a GeoJSON object.
pub fn parse_query_geometry(v: &Bson) -> Result<Shape> {
    let first_is_number = match v {
        Bson::Document(d) => d.values().next().is_some_and(is_number),
        _ => false,
    };
    if matches!(v, Bson::Array(_)) || first_is_number {
        let (x, y) = flat_point(v, false)?;
        return Ok(Shape::Point(Point {
            x,
            y,
            geojson: false,
        }));
    }
    let Bson::Document(d) = v else {
        return Err(bad("Point must be an array or object"));
    };
    match geojson_type(d) {
        Some(kind) => geojson(d, kind, 0),
        None => Err(bad(format!("unknown GeoJSON type: {}", server_string(v)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, doc};

    fn msg(v: Bson) -> String {
        parse_stored(&v)
            .err()
            .map(|e| e.message)
            .unwrap_or_default()
    }

    #[test]
    fn points() {
        assert!(matches!(
            parse_stored(&bson!([1, 2])),
            Ok(Shape::Point(Point { x, y, geojson: false })) if x == 1.0 && y == 2.0
        ));
        assert!(parse_stored(&bson!({"lng": 1.5, "lat": 2, "z": 3})).is_ok());
        assert!(parse_stored(&bson!({"type": "Point", "coordinates": [1, 2, 3]})).is_ok());
        assert_eq!(
            msg(bson!({"type": "Point", "coordinates": [200, 10]})),
            "longitude/latitude is out of bounds, lng: 200 lat: 10"
        );
        assert_eq!(
            msg(bson!({"type": "Point", "coordinates": [354.47333, -1.94617]})),
            "longitude/latitude is out of bounds, lng: 354.473 lat: -1.94617"
        );
        assert_eq!(
            msg(bson!(["a", 1])),
            "Point must only contain numeric elements"
        );
        assert_eq!(msg(bson!("x")), "geo element must be an array or object");
        assert_eq!(
            msg(bson!({"type": "Pt", "coordinates": [1, 2]})),
            "unknown GeoJSON type: { type: \"Pt\", coordinates: [ 1, 2 ] }"
        );
        assert_eq!(
            parse_query_geometry(&bson!([1, 2, 3]))
                .err()
                .map(|e| e.message),
            Some("Point must only contain two numeric elements".to_string())
        );
    }

    #[test]
    fn polygons_are_checked() {
        let ok = bson!({"type": "Polygon", "coordinates": [
            [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]],
            [[2, 2], [3, 2], [3, 3], [2, 2]]
        ]});
        assert!(matches!(parse_stored(&ok), Ok(Shape::Polygon(p)) if p.loops.len() == 2));
        assert_eq!(
            msg(bson!({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]})),
            "Loop is not closed: [ [ 0, 0 ], [ 1, 0 ], [ 1, 1 ], [ 0, 1 ] ]"
        );
        assert_eq!(
            msg(bson!({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]})),
            "Loop must have at least 3 different vertices: [ [ 0, 0 ], [ 1, 0 ], [ 0, 0 ] ]"
        );
        assert!(msg(bson!({"type": "Polygon", "coordinates": [
            [[0, 0], [10, 10], [10, 0], [0, 10], [0, 0]]
        ]}))
        .ends_with("Edges 0 and 2 cross"));
        assert!(msg(bson!({"type": "Polygon", "coordinates": [
            [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]],
            [[20, 20], [30, 20], [30, 30], [20, 20]]
        ]}))
        .starts_with("Secondary loops not contained by first exterior loop"));
        assert_eq!(
            msg(bson!({"type": "Polygon", "coordinates": []})),
            "Polygon has no loops."
        );
    }

    #[test]
    fn collections_and_multis() {
        assert!(parse_stored(&Bson::Document(
            doc! {"type": "GeometryCollection", "geometries": [
                {"type": "Point", "coordinates": [1, 1]},
                {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}
            ]}
        ))
        .is_ok());
        assert_eq!(
            msg(bson!({"type": "MultiPoint", "coordinates": []})),
            "MultiPoint coordinates must have at least 1 element"
        );
        assert_eq!(
            msg(bson!({"type": "LineString", "coordinates": [[0, 0], [0, 0]]})),
            "GeoJSON LineString must have at least 2 vertices: [ [ 0, 0 ], [ 0, 0 ] ]"
        );
        assert_eq!(
            msg(bson!({"type": "GeometryCollection", "geometries": [
                {"type": "GeometryCollection", "geometries": []}
            ]})),
            "GeometryCollections cannot be nested: { type: \"GeometryCollection\", geometries: [] }"
        );
        assert_eq!(
            parse_stored(&bson!({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]],
                "crs": {"type": "name", "properties": {"name": "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}))
            .err()
            .map(|e| e.code),
            Some(115)
        );
    }
}
