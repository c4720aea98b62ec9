//! Explain stages of geospatial queries, as 8.0's classic engine shows them:
//! `$near`/`$nearSphere` as GEO_NEAR_2D or GEO_NEAR_2DSPHERE over the geo
//! index, `$geoWithin`/`$geoIntersects` as FETCH (the predicate as filter)
//! over an IXSCAN of the geo index. The server's bounds are S2 cells or 2d
//! geohash ranges; here they are summarized as one range over the index
//! (the README says so), and the figures are those of the whole index.
use super::explain::{index_fields, num, parsed_query, stage, Counters};
use super::plan::Plan;
use super::scan::ScanStats;
use crate::geo::index::path_values;
use crate::geo::{GeoKind, NearQuery};
use crate::storage::index::Index;
use crate::storage::Collection;
use crate::value::path::FieldPath;
use bson::{doc, Bson, Document};

const NEAR: [&str; 3] = ["$near", "$nearSphere", "$geoNear"];
const WITHIN: [&str; 3] = ["$geoWithin", "$within", "$geoIntersects"];

/// The access stage of a plan that scans the collection for a geo query,
/// when a geospatial index serves it; None otherwise.
pub(crate) fn access(
    c: &Collection,
    plan: &Plan,
    exec: Option<(&ScanStats, usize)>,
) -> Option<(Document, usize)> {
    for cond in &plan.conds {
        let Some(Bson::Document(ops)) = cond.shown.get(&cond.path) else {
            continue;
        };
        let Some(op) = ops.keys().next() else {
            continue;
        };
        if NEAR.contains(&op.as_str()) {
            let q = NearQuery::compile(ops).ok()?;
            let (ix, kind) = geo_index(c, &cond.path, |k| q.index_kind_fits(k.name()))?;
            return Some(near(c, ix, kind, &cond.path, exec));
        }
        if WITHIN.contains(&op.as_str()) {
            let flat_shape = ops.get(op).and_then(|a| a.as_document()).is_some_and(|a| {
                ["$box", "$center", "$polygon"]
                    .iter()
                    .any(|k| a.contains_key(*k))
            });
            let fits = |k: GeoKind| match k {
                GeoKind::Sphere2d => !flat_shape,
                GeoKind::Flat2d => op != "$geoIntersects",
            };
            let (ix, _) = geo_index(c, &cond.path, fits)?;
            return Some(within(c, ix, &cond.path, plan, exec));
        }
    }
    None
}

/// A visible index with a geo field of a fitting kind on `path`.
fn geo_index<'c>(
    c: &'c Collection,
    path: &str,
    fits: impl Fn(GeoKind) -> bool,
) -> Option<(&'c Index, GeoKind)> {
    c.indexes()
        .iter()
        .filter(|ix| !ix.spec.hidden)
        .find_map(|ix| {
            ix.spec.geo.iter().find_map(|(i, kind)| {
                (fits(*kind) && ix.spec.paths.get(*i).is_some_and(|p| p.dotted() == path))
                    .then_some((ix, *kind))
            })
        })
}

/// How many documents have a geometry at `path`: the geo index's entries.
fn indexed(c: &Collection, path: &str) -> usize {
    let path = FieldPath::new(path);
    c.docs()
        .iter()
        .filter(|d| !path_values(d, &path).is_empty())
        .count()
}

/// The summarized bounds: the geo field over its whole index, the others unbounded.
fn bounds(ix: &Index, path: &str) -> Document {
    ix.spec
        .field_names()
        .into_iter()
        .map(|name| {
            let shown = if name == path {
                "[cells covering the query region]"
            } else {
                "[MinKey, MaxKey]"
            };
            (name, Bson::Array(vec![Bson::String(shown.to_string())]))
        })
        .collect()
}

fn ixscan(c: &Collection, ix: &Index, path: &str, exec: Option<(&ScanStats, usize)>) -> Document {
    let keys = exec.map(|_| indexed(c, path));
    let counters = keys.map(|k| Counters {
        returned: k,
        works: k + 1,
        eof: true,
    });
    let mut fields = index_fields(ix);
    fields.insert("direction", "forward");
    fields.insert("indexBounds", bounds(ix, path));
    if let Some(k) = keys {
        fields.insert("keysExamined", num(k));
        fields.insert("seeks", 1);
        fields.insert("dupsTested", num(k));
        fields.insert("dupsDropped", 0);
    }
    stage("IXSCAN", None, counters, fields, None)
}

fn fetch(
    filter: Option<Document>,
    input: Document,
    exec: Option<(&ScanStats, usize)>,
    examined: usize,
) -> Document {
    let counters = exec.map(|(_, matched)| Counters {
        returned: matched,
        works: examined + 1,
        eof: true,
    });
    let mut fields = Document::new();
    if exec.is_some() {
        fields.insert("docsExamined", num(examined));
        fields.insert("alreadyHasObj", 0);
    }
    stage("FETCH", filter, counters, fields, Some(input))
}

fn within(
    c: &Collection,
    ix: &Index,
    path: &str,
    plan: &Plan,
    exec: Option<(&ScanStats, usize)>,
) -> (Document, usize) {
    let examined = exec.map_or(0, |_| indexed(c, path));
    let d = fetch(
        Some(parsed_query(plan)),
        ixscan(c, ix, path, exec),
        exec,
        examined,
    );
    (d, examined + 1)
}

/// The `$geoNear` stage's GEO_NEAR_2D / GEO_NEAR_2DSPHERE over `ix` (the
/// server turns the stage into a near query): with execution, `matched` is
/// what the stage returned. Its `query`, when given, filters inside the stage.
pub(crate) fn geo_near_stage(
    c: &Collection,
    ix: &Index,
    path: &str,
    query: Option<Document>,
    matched: Option<usize>,
) -> (Document, usize) {
    let kind = ix
        .spec
        .geo
        .iter()
        .find(|(i, _)| ix.spec.paths.get(*i).is_some_and(|p| p.dotted() == path))
        .map_or(GeoKind::Sphere2d, |(_, k)| *k);
    let stats = ScanStats::default();
    let (mut d, works) = near(c, ix, kind, path, matched.map(|m| (&stats, m)));
    if let Some(q) = query.filter(|q| !q.is_empty()) {
        // The filter follows the stage name, as the server prints it.
        let mut out = Document::new();
        for (k, v) in d {
            let is_stage = k == "stage";
            out.insert(k, v);
            if is_stage {
                out.insert("filter", q.clone());
            }
        }
        d = out;
    }
    (d, works)
}

/// GEO_NEAR_2D / GEO_NEAR_2DSPHERE; with execution, its searched index
/// entries as one FETCH over IXSCAN (the server shows one per annulus).
fn near(
    c: &Collection,
    ix: &Index,
    kind: GeoKind,
    path: &str,
    exec: Option<(&ScanStats, usize)>,
) -> (Document, usize) {
    let name = match kind {
        GeoKind::Flat2d => "GEO_NEAR_2D",
        GeoKind::Sphere2d => "GEO_NEAR_2DSPHERE",
    };
    let examined = exec.map_or(0, |_| indexed(c, path));
    let counters = exec.map(|(_, matched)| Counters {
        returned: matched,
        works: examined + matched + 1,
        eof: true,
    });
    let mut fields = doc! {
        "keyPattern": ix.spec.key.clone(),
        "indexName": ix.spec.name.clone(),
        "indexVersion": 2,
    };
    if exec.is_some() {
        let input = fetch(None, ixscan(c, ix, path, exec), exec, examined);
        fields.insert("inputStages", vec![Bson::Document(input)]);
    }
    let d = stage(name, None, counters, fields, None);
    (d, counters.map_or(0, |c| c.works))
}
