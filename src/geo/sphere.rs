//! Geometry on the unit sphere, as MongoDB's S2 library computes it: points
//! are unit vectors, edges are the shorter great-circle arcs (geodesics)
//! between their ends, a loop's interior is the smaller of the two regions
//! it bounds (S2Loop::Normalize). Distances are angles in radians; GeoJSON
//! distances are those angles times the server's earth radius.
//! See https://www.mongodb.com/docs/manual/geospatial-queries/#geospatial-models.

/// A point on the unit sphere.
pub type V3 = [f64; 3];

/// The radius MongoDB multiplies spherical angles by (kRadiusOfEarthInMeters).
pub const EARTH_RADIUS_M: f64 = 6_378_100.0;

/// How close counts as touching: about the size of an S2 leaf cell, the
/// unit in which the server decides that a point lies on a boundary.
pub const TOUCH: f64 = 1e-9;

pub fn from_lng_lat(lng: f64, lat: f64) -> V3 {
    let (lng, lat) = (lng.to_radians(), lat.to_radians());
    [lat.cos() * lng.cos(), lat.cos() * lng.sin(), lat.sin()]
}

/// Degrees (longitude, latitude) of a unit vector.
pub fn to_lng_lat(p: V3) -> (f64, f64) {
    let lat = p[2].atan2((p[0] * p[0] + p[1] * p[1]).sqrt());
    let lng = p[1].atan2(p[0]);
    (lng.to_degrees(), lat.to_degrees())
}

pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale(a: V3, k: f64) -> V3 {
    [a[0] * k, a[1] * k, a[2] * k]
}

/// The angle between two points (radians), accurate for small and large angles.
pub fn angle(a: V3, b: V3) -> f64 {
    norm(cross(a, b)).atan2(dot(a, b))
}

/// The shortest angle from `p` to the arc `a`–`b`.
pub fn angle_to_edge(p: V3, a: V3, b: V3) -> f64 {
    let n = cross(a, b);
    let len = norm(n);
    let ends = angle(p, a).min(angle(p, b));
    if len < 1e-300 {
        return ends;
    }
    let n = scale(n, 1.0 / len);
    // p's projection on the great circle lies between a and b?
    let q = sub(p, scale(n, dot(p, n)));
    if dot(cross(a, q), n) >= 0.0 && dot(cross(q, b), n) >= 0.0 && norm(q) > 0.0 {
        dot(p, n).abs().atan2(norm(q)).min(ends)
    } else {
        ends
    }
}

/// Do the arcs `a`–`b` and `c`–`d` cross at a point interior to both?
/// (S2's SimpleCrossing: shared vertices and touching ends do not count.)
pub fn crosses(a: V3, b: V3, c: V3, d: V3) -> bool {
    let ab = cross(a, b);
    let acb = -dot(ab, c);
    let bda = dot(ab, d);
    if acb * bda <= 0.0 {
        return false;
    }
    let cd = cross(c, d);
    let cbd = -dot(cd, b);
    let dac = dot(cd, a);
    acb * cbd > 0.0 && acb * dac > 0.0
}

/// Do the arcs meet at all (crossing, or one's end on the other)?
pub fn edges_meet(a: V3, b: V3, c: V3, d: V3) -> bool {
    crosses(a, b, c, d)
        || angle_to_edge(a, c, d) < TOUCH
        || angle_to_edge(b, c, d) < TOUCH
        || angle_to_edge(c, a, b) < TOUCH
        || angle_to_edge(d, a, b) < TOUCH
}

/// A closed loop of distinct vertices (the closing vertex not repeated),
/// oriented so that its interior is the smaller region.
#[derive(Clone, Debug)]
pub struct Loop {
    pub vertices: Vec<V3>,
    /// True when the interior lies to the left of the vertex order.
    ccw: bool,
}

impl Loop {
    pub fn new(vertices: Vec<V3>) -> Loop {
        // The signed area of the fan from the first vertex: positive when the
        // region to the left is the smaller one.
        let mut area = 0.0;
        if let Some((&v0, rest)) = vertices.split_first() {
            for w in rest.windows(2) {
                let (b, c) = (w[0], w[1]);
                let det = dot(v0, cross(b, c));
                area += 2.0 * det.atan2(1.0 + dot(v0, b) + dot(b, c) + dot(c, v0));
            }
        }
        Loop {
            vertices,
            ccw: area >= 0.0,
        }
    }

    pub fn edges(&self) -> impl Iterator<Item = (V3, V3)> + '_ {
        let n = self.vertices.len();
        (0..n).map(move |i| (self.vertices[i], self.vertices[(i + 1) % n]))
    }

    /// The winding angle of the loop around `p` (±2π when it encircles p).
    fn winding(&self, p: V3) -> f64 {
        let tangent = |v: V3| sub(v, scale(p, dot(p, v)));
        self.edges()
            .map(|(a, b)| {
                let (ta, tb) = (tangent(a), tangent(b));
                dot(p, cross(ta, tb)).atan2(dot(ta, tb))
            })
            .sum()
    }

    /// Is `p` strictly inside (boundary points are decided by [`Loop::on_boundary`])?
    pub fn contains(&self, p: V3) -> bool {
        let w = self.winding(p);
        if self.ccw {
            w > std::f64::consts::PI
        } else {
            w < -std::f64::consts::PI
        }
    }

    pub fn on_boundary(&self, p: V3) -> bool {
        self.edges().any(|(a, b)| angle_to_edge(p, a, b) < TOUCH)
    }

    pub fn distance_to_boundary(&self, p: V3) -> f64 {
        self.edges()
            .map(|(a, b)| angle_to_edge(p, a, b))
            .fold(f64::INFINITY, f64::min)
    }

    /// The first pair of non-adjacent edges that cross (S2Loop::IsValid).
    pub fn self_crossing(&self) -> Option<(usize, usize)> {
        let n = self.vertices.len();
        let edge = |i: usize| (self.vertices[i], self.vertices[(i + 1) % n]);
        for i in 0..n {
            for j in i + 2..n {
                if i == 0 && j == n - 1 {
                    continue;
                }
                let ((a, b), (c, d)) = (edge(i), edge(j));
                if crosses(a, b, c, d) {
                    return Some((i, j));
                }
            }
        }
        None
    }
}

/// A polygon: an outer loop and holes inside it.
#[derive(Clone, Debug)]
pub struct Polygon {
    pub loops: Vec<Loop>,
}

impl Polygon {
    /// Inside or on the boundary (S2's Contains or MayIntersect of the point's cell).
    pub fn covers_point(&self, p: V3) -> bool {
        if self.loops.iter().any(|l| l.on_boundary(p)) {
            return true;
        }
        let Some((outer, holes)) = self.loops.split_first() else {
            return false;
        };
        outer.contains(p) && !holes.iter().any(|h| h.contains(p))
    }

    pub fn edges(&self) -> impl Iterator<Item = (V3, V3)> + '_ {
        self.loops.iter().flat_map(Loop::edges)
    }

    fn crossed_by(&self, a: V3, b: V3) -> bool {
        self.edges().any(|(c, d)| crosses(a, b, c, d))
    }

    /// Does the polygon hold the whole polyline?
    pub fn covers_line(&self, line: &[V3]) -> bool {
        line.iter().all(|&p| self.covers_point(p))
            && line
                .windows(2)
                .all(|w| !self.crossed_by(w[0], w[1]) && self.covers_point(midpoint(w[0], w[1])))
    }

    /// Does the polygon hold the whole of `other` (its edges and its area)?
    pub fn covers_polygon(&self, other: &Polygon) -> bool {
        let Some(shell) = other.loops.first() else {
            return true;
        };
        let mut ring = shell.vertices.clone();
        if let Some(&first) = ring.first() {
            ring.push(first);
        }
        if !self.covers_line(&ring) {
            return false;
        }
        // A hole of ours inside the other's shell leaves part of it uncovered,
        // unless one of the other's holes takes that part out again.
        let in_other_hole = |v: V3| {
            other
                .loops
                .iter()
                .skip(1)
                .any(|h| h.contains(v) || h.on_boundary(v))
        };
        self.loops.iter().skip(1).all(|hole| {
            !hole
                .vertices
                .iter()
                .any(|&v| shell.contains(v) && !shell.on_boundary(v) && !in_other_hole(v))
        })
    }

    pub fn intersects_line(&self, line: &[V3]) -> bool {
        line.iter().any(|&p| self.covers_point(p))
            || line
                .windows(2)
                .any(|w| self.edges().any(|(c, d)| edges_meet(w[0], w[1], c, d)))
    }

    pub fn intersects_polygon(&self, other: &Polygon) -> bool {
        other
            .loops
            .first()
            .is_some_and(|l| l.vertices.iter().any(|&p| self.covers_point(p)))
            || self
                .loops
                .first()
                .is_some_and(|l| l.vertices.iter().any(|&p| other.covers_point(p)))
            || self
                .edges()
                .any(|(a, b)| other.edges().any(|(c, d)| edges_meet(a, b, c, d)))
    }

    /// The angle from `p` to the nearest point of the polygon (0 inside).
    pub fn distance(&self, p: V3) -> f64 {
        if self.covers_point(p) {
            return 0.0;
        }
        self.loops
            .iter()
            .map(|l| l.distance_to_boundary(p))
            .fold(f64::INFINITY, f64::min)
    }
}

pub fn midpoint(a: V3, b: V3) -> V3 {
    let m = [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
    let len = norm(m);
    if len == 0.0 {
        a
    } else {
        scale(m, 1.0 / len)
    }
}

/// Do two polylines meet?
pub fn lines_meet(a: &[V3], b: &[V3]) -> bool {
    if a.len() == 1 || b.len() == 1 {
        let (p, line) = if a.len() == 1 { (a[0], b) } else { (b[0], a) };
        return line_distance(line, p) < TOUCH;
    }
    a.windows(2)
        .any(|x| b.windows(2).any(|y| edges_meet(x[0], x[1], y[0], y[1])))
}

/// The angle from `p` to the nearest point of a polyline.
pub fn line_distance(line: &[V3], p: V3) -> f64 {
    if let [only] = line {
        return angle(p, *only);
    }
    line.windows(2)
        .map(|w| angle_to_edge(p, w[0], w[1]))
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(lo: f64, hi: f64) -> Polygon {
        Polygon {
            loops: vec![Loop::new(vec![
                from_lng_lat(lo, lo),
                from_lng_lat(hi, lo),
                from_lng_lat(hi, hi),
                from_lng_lat(lo, hi),
            ])],
        }
    }

    #[test]
    fn distances_are_great_circle_angles() {
        // One degree of longitude on the equator.
        let d = angle(from_lng_lat(0.0, 0.0), from_lng_lat(1.0, 0.0));
        assert!((d - 1f64.to_radians()).abs() < 1e-15);
        assert!((d * EARTH_RADIUS_M - 111_318.845_021_450_34).abs() < 1e-6);
        // Antipodes.
        let d = angle(from_lng_lat(0.0, 0.0), from_lng_lat(180.0, 0.0));
        assert!((d - std::f64::consts::PI).abs() < 1e-12);
    }

    #[test]
    fn either_winding_gives_the_smaller_region() {
        let ccw = square(0.0, 10.0);
        let mut cw = ccw.clone();
        cw.loops[0].vertices.reverse();
        cw = Polygon {
            loops: vec![Loop::new(cw.loops[0].vertices.clone())],
        };
        for poly in [&ccw, &cw] {
            assert!(poly.covers_point(from_lng_lat(5.0, 5.0)));
            assert!(!poly.covers_point(from_lng_lat(15.0, 5.0)));
            assert!(!poly.covers_point(from_lng_lat(-175.0, -5.0)));
            assert!(poly.covers_point(from_lng_lat(10.0, 5.0)), "on an edge");
            assert!(poly.covers_point(from_lng_lat(0.0, 0.0)), "a vertex");
        }
    }

    #[test]
    fn edges_are_geodesics_not_parallels() {
        // The top edge from (0, 60) to (90, 60) bulges north of latitude 60:
        // a point at (45, 61) is inside the loop although above the line drawn
        // on a flat map.
        let poly = Polygon {
            loops: vec![Loop::new(vec![
                from_lng_lat(0.0, 0.0),
                from_lng_lat(90.0, 0.0),
                from_lng_lat(90.0, 60.0),
                from_lng_lat(0.0, 60.0),
            ])],
        };
        assert!(poly.covers_point(from_lng_lat(45.0, 61.0)));
        assert!(!poly.covers_point(from_lng_lat(45.0, 70.0)));
    }

    #[test]
    fn holes_crossings_and_containment() {
        let outer = square(0.0, 10.0);
        let with_hole = Polygon {
            loops: vec![outer.loops[0].clone(), square(4.0, 6.0).loops[0].clone()],
        };
        assert!(!with_hole.covers_point(from_lng_lat(5.0, 5.0)));
        assert!(with_hole.covers_point(from_lng_lat(2.0, 5.0)));
        assert!(outer.covers_polygon(&square(1.0, 3.0)));
        assert!(!outer.covers_polygon(&square(5.0, 15.0)));
        assert!(!with_hole.covers_polygon(&square(3.0, 7.0)));
        assert!(outer.intersects_polygon(&square(5.0, 15.0)));
        assert!(!outer.intersects_polygon(&square(20.0, 30.0)));
        let line = [from_lng_lat(-5.0, 5.0), from_lng_lat(15.0, 5.0)];
        assert!(outer.intersects_line(&line));
        assert!(!outer.covers_line(&line));
        let bow = Loop::new(vec![
            from_lng_lat(0.0, 0.0),
            from_lng_lat(10.0, 10.0),
            from_lng_lat(10.0, 0.0),
            from_lng_lat(0.0, 10.0),
        ]);
        assert_eq!(bow.self_crossing(), Some((0, 2)));
        assert!(crosses(
            from_lng_lat(0.0, 0.0),
            from_lng_lat(10.0, 10.0),
            from_lng_lat(10.0, 0.0),
            from_lng_lat(0.0, 10.0)
        ));
    }

    #[test]
    fn distance_to_an_edge() {
        let d = angle_to_edge(
            from_lng_lat(5.0, 1.0),
            from_lng_lat(0.0, 0.0),
            from_lng_lat(10.0, 0.0),
        );
        assert!((d - 1f64.to_radians()).abs() < 1e-12);
        let d = angle_to_edge(
            from_lng_lat(12.0, 0.0),
            from_lng_lat(0.0, 0.0),
            from_lng_lat(10.0, 0.0),
        );
        assert!((d - 2f64.to_radians()).abs() < 1e-12);
    }
}
