//! Geospatial data and queries: GeoJSON and legacy coordinate pairs read and
//! validated as the server does (shape), spherical geometry with geodesic
//! edges as S2 computes it (sphere), the regions queries compare with
//! (region), the query operators (query) and what geospatial indexes accept
//! (index).
//! See https://www.mongodb.com/docs/manual/geospatial-queries/.
pub mod index;
pub mod query;
pub mod region;
pub mod shape;
pub mod sphere;

pub use index::{FlatRange, GeoKind};
pub use query::{GeoMatch, Metric, NearQuery};
