//! What `2dsphere` and `2d` indexes accept: the server refuses a document
//! whose indexed field holds something that is not geometry, on insert and
//! when the index is built (2dsphere: 16755; 2d: 13026/13027).
//! Documents without the field (or with null) are left out of the index.
//! See https://www.mongodb.com/docs/manual/core/indexes/index-types/geospatial/2dsphere/.
use super::shape::{parse_stored, Shape};
use crate::error::{Error, Result};
use crate::text::server::{elem, server_string};
use crate::value::numeric::{is_number, printf_g, to_f64};
use crate::value::path::{FieldPath, LeafArrays};
use bson::{Bson, Document};

/// The two geospatial index types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeoKind {
    Sphere2d,
    Flat2d,
}

impl GeoKind {
    pub fn from_name(name: &str) -> Option<GeoKind> {
        match name {
            "2dsphere" => Some(GeoKind::Sphere2d),
            "2d" => Some(GeoKind::Flat2d),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            GeoKind::Sphere2d => "2dsphere",
            GeoKind::Flat2d => "2d",
        }
    }
}

/// A 2d index's coordinate range (`min`, `max`; default [-180, 180)).
#[derive(Clone, Copy, Debug)]
pub struct FlatRange {
    pub min: f64,
    pub max: f64,
}

impl Default for FlatRange {
    fn default() -> FlatRange {
        FlatRange {
            min: -180.0,
            max: 180.0,
        }
    }
}

/// The values at an indexed path; a trailing array is one value (a point or
/// an array of points), arrays along the way are traversed.
pub fn path_values<'a>(doc: &'a Document, path: &FieldPath) -> Vec<&'a Bson> {
    let mut out = Vec::new();
    path.visit(doc, LeafArrays::NoTraversal, &mut |v, _| {
        if let Some(v) = v {
            if !matches!(v, Bson::Null | Bson::Undefined) {
                out.push(v);
            }
        }
        false
    });
    out
}

/// Check a document's geometries at `path` for an index of `kind`; returns
/// the values (empty: the document is not indexed).
pub fn check<'a>(
    doc: &'a Document,
    path: &FieldPath,
    kind: GeoKind,
    range: FlatRange,
) -> Result<Vec<&'a Bson>> {
    let values = path_values(doc, path);
    for v in &values {
        match kind {
            GeoKind::Sphere2d => check_sphere(doc, path, v)?,
            GeoKind::Flat2d => check_flat(v, range)?,
        }
    }
    Ok(values)
}

fn check_sphere(doc: &Document, path: &FieldPath, v: &Bson) -> Result<()> {
    let reason = match v {
        Bson::Array(_) | Bson::Document(_) => match parse_stored(v) {
            Ok(Shape::Point(p)) if p.sphere().is_none() => Some(format!(
                "can't project geometry into spherical CRS: {}",
                server_string(v)
            )),
            Ok(_) => None,
            Err(e) => Some(e.message),
        },
        _ => {
            let last = path.parts().last().map_or("", |p| p.name.as_str());
            Some(format!(
                "geo element must be an array or object: {}",
                elem(last, v)
            ))
        }
    };
    match reason {
        None => Ok(()),
        Some(reason) => Err(Error::location(
            16755,
            format!(
                "Can't extract geo keys: {}  {reason}",
                server_string(&Bson::Document(doc.clone()))
            ),
        )),
    }
}

/// A 2d location: a pair, or an array (or document) of pairs.
fn check_flat(v: &Bson, range: FlatRange) -> Result<()> {
    let items: Vec<&Bson> = match v {
        Bson::Array(a) => a.iter().collect(),
        Bson::Document(d) => d.values().collect(),
        _ => {
            return Err(Error::location(
                13026,
                "geo values must be 'legacy coordinate pairs' for 2d indexes",
            ))
        }
    };
    if items
        .first()
        .is_some_and(|f| matches!(f, Bson::Array(_) | Bson::Document(_)))
    {
        return items.iter().try_for_each(|p| check_flat(p, range));
    }
    for c in items.iter().take(2) {
        let x = to_f64(c).filter(|_| is_number(c));
        let Some(x) = x else {
            return Err(Error::location(
                13026,
                "geo values must be 'legacy coordinate pairs' for 2d indexes",
            ));
        };
        if !(x >= range.min && x < range.max) {
            return Err(Error::location(
                13027,
                format!(
                    "point not in interval of [ {}, {} )",
                    printf_g(range.min),
                    printf_g(range.max)
                ),
            ));
        }
    }
    if items.len() < 2 {
        return Err(Error::location(
            13026,
            "geo values must be 'legacy coordinate pairs' for 2d indexes",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn code(d: Document, kind: GeoKind) -> Option<i32> {
        check(&d, &FieldPath::new("loc"), kind, FlatRange::default())
            .err()
            .map(|e| e.code)
    }

    #[test]
    fn what_indexes_accept() {
        assert_eq!(code(doc! {"loc": [1, 2]}, GeoKind::Sphere2d), None);
        assert_eq!(code(doc! {"x": 1}, GeoKind::Sphere2d), None);
        assert_eq!(code(doc! {"loc": null}, GeoKind::Sphere2d), None);
        assert_eq!(code(doc! {"loc": "here"}, GeoKind::Sphere2d), Some(16755));
        assert_eq!(code(doc! {"loc": [200, 0]}, GeoKind::Sphere2d), Some(16755));
        assert_eq!(
            code(doc! {"loc": {"lng": 1, "lat": 2}}, GeoKind::Sphere2d),
            None
        );
        assert_eq!(
            code(
                doc! {"loc": {"type": "Point", "coordinates": [500, 0]}},
                GeoKind::Sphere2d
            ),
            Some(16755)
        );
        assert_eq!(code(doc! {"loc": [[1, 2], [3, 4]]}, GeoKind::Flat2d), None);
        assert_eq!(code(doc! {"loc": [200, 0]}, GeoKind::Flat2d), Some(13027));
        assert_eq!(
            code(
                doc! {"loc": {"type": "Point", "coordinates": [1, 2]}},
                GeoKind::Flat2d
            ),
            Some(13026)
        );
        let e = check(
            &doc! {"_id": 1, "loc": {"type": "Point", "coordinates": [354.47333, -1.94617]}},
            &FieldPath::new("loc"),
            GeoKind::Sphere2d,
            FlatRange::default(),
        )
        .err()
        .map(|e| e.message);
        assert_eq!(
            e.as_deref(),
            Some("Can't extract geo keys: { _id: 1, loc: { type: \"Point\", coordinates: [ 354.47333, -1.94617 ] } }  longitude/latitude is out of bounds, lng: 354.473 lat: -1.94617")
        );
    }
}
