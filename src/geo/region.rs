//! What a geospatial query compares stored geometries with: a spherical
//! shape (`$geometry`), a spherical cap (`$centerSphere`), or a flat shape of
//! the legacy 2d model (`$box`, `$center`, `$polygon`), and the tests the
//! server's GeometryContainer runs (contains, intersects, distance).
//! See https://www.mongodb.com/docs/manual/reference/operator/query-geospatial/.
use super::shape::Shape;
use super::sphere::{self, angle, lines_meet, Polygon, TOUCH, V3};

#[derive(Clone, Debug)]
pub enum Region {
    Sphere(Shape),
    Cap { center: V3, radius: f64 },
    Box { min: (f64, f64), max: (f64, f64) },
    Circle { center: (f64, f64), radius: f64 },
    FlatPolygon(Vec<(f64, f64)>),
}

/// One simple part of a spherical geometry.
enum Part<'a> {
    Point(V3),
    Line(&'a [V3]),
    Polygon(&'a Polygon),
}

/// The simple parts of a shape on the sphere; `None` when a flat point is
/// not a valid longitude/latitude (it cannot take part).
fn parts(shape: &Shape) -> Option<Vec<Part<'_>>> {
    let mut out = Vec::new();
    collect(shape, &mut out)?;
    Some(out)
}

fn collect<'a>(shape: &'a Shape, out: &mut Vec<Part<'a>>) -> Option<()> {
    match shape {
        Shape::Point(p) => out.push(Part::Point(p.sphere()?)),
        Shape::Line(l) => out.push(Part::Line(l)),
        Shape::Polygon(p) => out.push(Part::Polygon(p)),
        Shape::MultiPoint(ps) => out.extend(ps.iter().map(|&p| Part::Point(p))),
        Shape::MultiLine(ls) => out.extend(ls.iter().map(|l| Part::Line(l))),
        Shape::MultiPolygon(ps) => out.extend(ps.iter().map(Part::Polygon)),
        // Collections hold no collections (the parser refuses them).
        Shape::Collection(items) => {
            for item in items {
                collect(item, out)?;
            }
        }
    }
    Some(())
}

fn meet(a: &Part, b: &Part) -> bool {
    match (a, b) {
        (Part::Point(p), Part::Point(q)) => angle(*p, *q) < TOUCH,
        (Part::Point(p), Part::Line(l)) | (Part::Line(l), Part::Point(p)) => {
            sphere::line_distance(l, *p) < TOUCH
        }
        (Part::Point(p), Part::Polygon(g)) | (Part::Polygon(g), Part::Point(p)) => {
            g.covers_point(*p)
        }
        (Part::Line(a), Part::Line(b)) => lines_meet(a, b),
        (Part::Line(l), Part::Polygon(g)) | (Part::Polygon(g), Part::Line(l)) => {
            g.intersects_line(l)
        }
        (Part::Polygon(a), Part::Polygon(b)) => a.intersects_polygon(b),
    }
}

fn polygon_covers(g: &Polygon, part: &Part) -> bool {
    match part {
        Part::Point(p) => g.covers_point(*p),
        Part::Line(l) => g.covers_line(l),
        Part::Polygon(other) => g.covers_polygon(other),
    }
}

/// The angle from `p` to a part (0 inside a polygon).
fn part_distance(part: &Part, p: V3) -> f64 {
    match part {
        Part::Point(q) => angle(p, *q),
        Part::Line(l) => sphere::line_distance(l, p),
        Part::Polygon(g) => g.distance(p),
    }
}

/// The angle from `p` to the nearest point of a shape on the sphere.
pub fn sphere_distance(shape: &Shape, p: V3) -> Option<f64> {
    let parts = parts(shape)?;
    parts
        .iter()
        .map(|part| part_distance(part, p))
        .reduce(f64::min)
}

fn flat_polygon_contains(poly: &[(f64, f64)], (x, y): (f64, f64)) -> bool {
    let n = poly.len();
    let mut inside = false;
    for i in 0..n {
        let (x1, y1) = poly[i];
        let (x2, y2) = poly[(i + 1) % n];
        // On an edge counts as inside.
        let cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1);
        if cross == 0.0 && x >= x1.min(x2) && x <= x1.max(x2) && y >= y1.min(y2) && y <= y1.max(y2)
        {
            return true;
        }
        if (y1 > y) != (y2 > y) && x < (x2 - x1) * (y - y1) / (y2 - y1) + x1 {
            inside = !inside;
        }
    }
    inside
}

impl Region {
    /// Can `$geoWithin` use it (GeometryContainer::supportsContains)?
    pub fn has_area(&self) -> bool {
        match self {
            Region::Sphere(shape) => match shape {
                Shape::Polygon(_) | Shape::MultiPolygon(_) => true,
                Shape::Collection(items) => items
                    .iter()
                    .any(|s| matches!(s, Shape::Polygon(_) | Shape::MultiPolygon(_))),
                _ => false,
            },
            _ => true,
        }
    }

    /// Flat regions are for legacy points only.
    pub fn is_flat(&self) -> bool {
        matches!(
            self,
            Region::Box { .. } | Region::Circle { .. } | Region::FlatPolygon(_)
        )
    }

    /// Does the region hold all of the stored geometry?
    pub fn contains(&self, stored: &Shape) -> bool {
        match self {
            Region::Box { min, max } => match stored {
                Shape::Point(p) => p.x >= min.0 && p.x <= max.0 && p.y >= min.1 && p.y <= max.1,
                _ => false,
            },
            Region::Circle { center, radius } => match stored {
                Shape::Point(p) => (p.x - center.0).hypot(p.y - center.1) <= *radius,
                _ => false,
            },
            Region::FlatPolygon(poly) => match stored {
                Shape::Point(p) => flat_polygon_contains(poly, (p.x, p.y)),
                _ => false,
            },
            Region::Cap { center, radius } => parts(stored).is_some_and(|ps| {
                ps.iter().all(|part| match part {
                    Part::Point(p) => angle(*center, *p) <= *radius,
                    Part::Line(l) => l.iter().all(|&p| angle(*center, p) <= *radius),
                    Part::Polygon(g) => g
                        .loops
                        .first()
                        .is_some_and(|l| l.vertices.iter().all(|&p| angle(*center, p) <= *radius)),
                })
            }),
            Region::Sphere(shape) => {
                let (Some(mine), Some(theirs)) = (parts(shape), parts(stored)) else {
                    return false;
                };
                let polygons: Vec<&Polygon> = mine
                    .iter()
                    .filter_map(|p| match p {
                        Part::Polygon(g) => Some(*g),
                        _ => None,
                    })
                    .collect();
                theirs
                    .iter()
                    .all(|part| polygons.iter().any(|g| polygon_covers(g, part)))
            }
        }
    }

    /// Do the region and the stored geometry share a point?
    pub fn intersects(&self, stored: &Shape) -> bool {
        match self {
            Region::Cap { center, radius } => parts(stored).is_some_and(|ps| {
                ps.iter()
                    .any(|part| part_distance(part, *center) <= *radius)
            }),
            Region::Sphere(shape) => {
                let (Some(mine), Some(theirs)) = (parts(shape), parts(stored)) else {
                    return false;
                };
                mine.iter().any(|a| theirs.iter().any(|b| meet(a, b)))
            }
            // Refused when the query is compiled.
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::shape::parse_stored;
    use super::*;
    use bson::bson;

    fn shape(v: bson::Bson) -> Shape {
        parse_stored(&v).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn within_and_intersects() {
        let square = Region::Sphere(shape(bson!({"type": "Polygon", "coordinates": [
            [[0, 0], [3, 0], [3, 3], [0, 3], [0, 0]]
        ]})));
        assert!(square.contains(&shape(bson!([1, 1]))));
        assert!(square.contains(&shape(bson!({"type": "Point", "coordinates": [3, 1]}))));
        assert!(!square.contains(&shape(bson!([4, 1]))));
        assert!(!square.contains(&shape(bson!([400, 1]))), "not a longitude");
        let crossing = shape(bson!({"type": "LineString", "coordinates": [[1, 1], [5, 1]]}));
        assert!(!square.contains(&crossing));
        assert!(square.intersects(&crossing));
        let far = shape(bson!({"type": "LineString", "coordinates": [[10, 10], [11, 11]]}));
        assert!(!square.intersects(&far));
    }

    #[test]
    fn flat_regions() {
        let b = Region::Box {
            min: (0.0, 0.0),
            max: (100.0, 100.0),
        };
        assert!(b.contains(&shape(bson!([100, 50]))));
        assert!(!b.contains(&shape(bson!([101, 50]))));
        let c = Region::Circle {
            center: (0.0, 0.0),
            radius: 5.0,
        };
        assert!(c.contains(&shape(bson!([3, 4]))));
        assert!(!c.contains(&shape(bson!([4, 4]))));
        let tri = Region::FlatPolygon(vec![(0.0, 0.0), (3.0, 6.0), (6.0, 0.0)]);
        assert!(tri.contains(&shape(bson!([3, 3]))));
        assert!(!tri.contains(&shape(bson!([1, 5]))));
    }

    #[test]
    fn caps_use_radians() {
        let cap = Region::Cap {
            center: sphere::from_lng_lat(0.0, 0.0),
            radius: 1f64.to_radians(),
        };
        assert!(cap.contains(&shape(bson!([0.5, 0.5]))));
        assert!(!cap.contains(&shape(bson!([1, 1]))));
    }
}
