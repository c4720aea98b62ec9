//! The query planner: which index (if any) a read scans, with which bounds
//! and in which direction, and the scan itself. Every visible index whose
//! first field has a condition (or that provides the requested sort) is a
//! candidate; the one with the fewest keys in its bounds wins, as MongoDB's
//! trial runs usually decide. `hint()` forces an index or, with
//! `{$natural: 1}`, a collection scan. The scan only narrows the candidates:
//! callers apply the whole filter to every document it yields.
//! See https://www.mongodb.com/docs/manual/core/query-plans/.
use super::bounds::{intersect, oil_contains, translate, Cond, Interval, Oil, PathCond};
use crate::error::{Error, Result};
use crate::query::sort::SortSpec;
use crate::query::{Conjuncts, Filter};
use crate::storage::index::key::Key;
use crate::storage::index::{Index, Rid};
use crate::storage::Collection;
use crate::text::shell::type_name;
use crate::value::{compare, equal, type_rank};
use bson::{Bson, Document};
use std::cmp::Ordering;
use std::ops::Bound;

pub use super::scan::{Executed, Scan, ScanStats};

/// Point intervals are expanded into separate ranges up to this many.
const MAX_POINT_RANGES: usize = 4096;

/// How a read is answered with one index.
#[derive(Clone, Debug)]
pub struct IndexPlan {
    /// Position in the collection's index list.
    pub index: usize,
    /// Per key-pattern field, in ascending order.
    pub oils: Vec<Oil>,
    pub forward: bool,
    pub provides_sort: bool,
    /// Which of the filter's conditions the bounds answer exactly.
    pub exact: Vec<bool>,
    /// Keys within the bounds (counted up to the best plan's count).
    pub est_keys: usize,
}

#[derive(Clone, Debug)]
pub enum Access {
    /// The collection does not exist.
    Eof,
    CollScan {
        forward: bool,
    },
    Index(IndexPlan),
}

/// The chosen access path, the plans it beat, and the filter's conditions.
#[derive(Clone, Debug)]
pub struct Plan {
    pub access: Access,
    /// `sort({$natural: ±1})`: the collection scan gives the order.
    pub natural_sort: bool,
    pub rejected: Vec<IndexPlan>,
    pub conds: Vec<PathCond>,
    /// The filter's top-level `$` operators, as written.
    pub operators: Vec<(String, Bson)>,
}

enum Hint {
    None,
    Natural(bool),
    Index(usize),
}

fn bad_hint() -> Error {
    Error::bad_value("hint provided does not correspond to an existing index")
}

fn parse_hint(c: &Collection, hint: Option<&Bson>) -> Result<Hint> {
    let visible = |pred: &dyn Fn(&Index) -> bool| {
        c.indexes()
            .iter()
            .position(|ix| pred(ix) && !ix.spec.hidden && ix.spec.text.is_none())
            .map(Hint::Index)
            .ok_or_else(bad_hint)
    };
    match hint {
        None | Some(Bson::Null | Bson::Undefined) => Ok(Hint::None),
        Some(Bson::String(name)) => visible(&|ix| ix.spec.name == *name),
        Some(Bson::Document(d)) if d.is_empty() => Ok(Hint::None),
        Some(Bson::Document(d)) if d.contains_key("$natural") => {
            let dir = d.get("$natural").and_then(crate::value::numeric::to_f64);
            Ok(Hint::Natural(dir.is_none_or(|x| x >= 0.0)))
        }
        Some(Bson::Document(d)) => visible(&|ix| {
            crate::value::order::compare_documents(&ix.spec.key, d) == Ordering::Equal
        }),
        Some(other) => Err(Error::bad_value(format!(
            "hint must be a string or an object, got {}",
            type_name(other)
        ))),
    }
}

/// Whether `hint` names an index of `c` (or `$natural`), as the planner
/// requires: for pipelines, whose run reads the collection in natural order.
pub fn check_hint(c: Option<&Collection>, hint: Option<&Bson>) -> Result<()> {
    match c {
        Some(c) => parse_hint(c, hint).map(|_| ()),
        None => Ok(()),
    }
}

impl Plan {
    /// Whether every document the index scan yields matches `filter`, so
    /// that the scan alone answers it (MongoDB's FETCH without a filter).
    /// Only for a filter of plain field conditions, each bounded exactly by
    /// an operator whose bounds are known to be exact (`$all`, `$elemMatch`
    /// and numeric path components are left to the matcher).
    pub fn answers_exactly(&self, filter: &Filter) -> bool {
        const EXACT_OPS: &[&str] = &["$eq", "$gt", "$gte", "$lt", "$lte", "$in", "$regex"];
        let Access::Index(p) = &self.access else {
            return false;
        };
        !self.conds.is_empty()
            && filter.conjuncts().operators.is_empty()
            && p.exact.len() == self.conds.len()
            && p.exact.iter().all(|e| *e)
            && self.conds.iter().all(|c| {
                let op = c.shown.values().next().and_then(|v| match v {
                    Bson::Document(d) => d.keys().next().map(String::as_str),
                    _ => None,
                });
                op.is_some_and(|op| EXACT_OPS.contains(&op))
                    && c.path
                        .split('.')
                        .all(|f| !f.is_empty() && !f.bytes().all(|b| b.is_ascii_digit()))
            })
    }
}

/// Choose how to read `c` for `filter`, sorted by `sort`, honouring `hint`.
/// The planner reads the conjuncts recorded when the filter was compiled.
pub fn plan(
    c: Option<&Collection>,
    filter: &Filter,
    sort: Option<&SortSpec>,
    hint: Option<&Bson>,
) -> Result<Plan> {
    let query = filter.conjuncts();
    let conds = query.conds.clone();
    let Some(c) = c else {
        return Ok(Plan {
            access: Access::Eof,
            natural_sort: false,
            rejected: Vec::new(),
            conds,
            operators: query.operators.clone(),
        });
    };
    let sort = sort.filter(|s| !s.is_empty());
    let mut plans = Vec::new();
    let hint = parse_hint(c, hint)?;
    // `sort({$natural: -1})` reads the collection in reverse insertion order.
    // See https://www.mongodb.com/docs/manual/reference/method/cursor.sort/#return-in-natural-order.
    if let Some([(key, asc)]) = sort.map(|s| s.keys.as_slice()) {
        if key == "$natural" {
            return Ok(Plan {
                access: Access::CollScan { forward: *asc },
                natural_sort: true,
                rejected: Vec::new(),
                conds,
                operators: query.operators.clone(),
            });
        }
    }
    match hint {
        Hint::Natural(forward) => {
            return Ok(Plan {
                access: Access::CollScan { forward },
                natural_sort: false,
                rejected: Vec::new(),
                conds,
                operators: query.operators.clone(),
            })
        }
        Hint::Index(i) => {
            let ix = c.indexes().iter().nth(i).ok_or_else(bad_hint)?;
            if let Some(partial) = &ix.spec.partial {
                if !implies(query, partial.conjuncts()) {
                    return Err(bad_hint());
                }
            }
            let mut p = index_plan(ix, i, &conds, sort);
            super::collation::fit(ix, &conds, &mut p);
            plans.push(p);
        }
        Hint::None => {
            for (i, ix) in c.indexes().iter().enumerate() {
                // Text and geospatial indexes answer only their own queries.
                if ix.spec.hidden || ix.spec.text.is_some() || !ix.spec.geo.is_empty() {
                    continue;
                }
                let mut p = index_plan(ix, i, &conds, sort);
                if !super::collation::fit(ix, &conds, &mut p) {
                    continue;
                }
                let uses_filter = conds.iter().any(|pc| {
                    pc.path == ix.spec.paths[0].dotted() && translate(&pc.cond).is_some()
                });
                if !(uses_filter || (sort.is_some() && p.provides_sort)) {
                    continue;
                }
                if !usable(ix, query, &p) {
                    continue;
                }
                plans.push(p);
            }
            let plans_len = plans.len();
            // Fewest keys first; count each plan only as far as the best so far
            // (a single candidate needs no count).
            let mut best = usize::MAX;
            for p in plans.iter_mut().filter(|_| plans_len > 1) {
                if let Some(ix) = c.indexes().iter().nth(p.index) {
                    p.est_keys = count_keys(ix, p, best.saturating_add(1));
                    best = best.min(p.est_keys);
                }
            }
            crate::sorting::sort_by(&mut plans, |a, b| {
                a.est_keys
                    .cmp(&b.est_keys)
                    .then_with(|| b.provides_sort.cmp(&a.provides_sort))
                    .then_with(|| a.index.cmp(&b.index))
            });
        }
    }
    let mut plans = plans.into_iter();
    Ok(match plans.next() {
        Some(best) => Plan {
            access: Access::Index(best),
            natural_sort: false,
            rejected: plans.collect(),
            conds,
            operators: query.operators.clone(),
        },
        None => Plan {
            access: Access::CollScan { forward: true },
            natural_sort: false,
            rejected: Vec::new(),
            conds,
            operators: query.operators.clone(),
        },
    })
}

/// Bounds per field from the conditions on its path. On a multikey field
/// only the first condition bounds the scan (two conditions may be met by
/// different elements); otherwise they are intersected.
fn index_plan(ix: &Index, index: usize, conds: &[PathCond], sort: Option<&SortSpec>) -> IndexPlan {
    let mut exact = vec![false; conds.len()];
    let mut oils = Vec::with_capacity(ix.spec.paths.len());
    for (f, path) in ix.spec.paths.iter().enumerate() {
        let mut oil: Option<Oil> = None;
        for (j, pc) in conds.iter().enumerate() {
            if pc.path != path.dotted() {
                continue;
            }
            let Some((bounds, is_exact)) = translate(&pc.cond) else {
                continue;
            };
            if oil.is_some() && ix.field_is_multikey(f) {
                continue;
            }
            exact[j] = is_exact;
            oil = Some(match oil {
                Some(o) => intersect(&o, &bounds),
                None => bounds,
            });
        }
        oils.push(oil.unwrap_or_else(|| vec![Interval::all()]));
    }
    let (provides_sort, forward) = match sort {
        None => (false, true),
        Some(s) => sort_order(ix, &oils, s).map_or((false, true), |fwd| (true, fwd)),
    };
    IndexPlan {
        index,
        oils,
        forward,
        provides_sort,
        exact,
        est_keys: 0,
    }
}

/// Whether scanning the index returns documents in `sort` order (and in
/// which direction): the sort must be the key pattern, or all of it
/// reversed, after leading fields bounded to a single value. Multikey
/// fields cannot provide a sort.
fn sort_order(ix: &Index, oils: &[Oil], sort: &SortSpec) -> Option<bool> {
    let fields: Vec<(&str, bool)> = ix
        .spec
        .paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.dotted(), ix.spec.desc & (1 << i) == 0))
        .collect();
    let points = oils
        .iter()
        .take_while(|o| o.len() == 1 && o[0].is_point())
        .count();
    'start: for j in 0..=points {
        let mut forward = None;
        for (n, (path, asc)) in sort.keys.iter().enumerate() {
            let Some(&(field, field_asc)) = fields.get(j + n) else {
                continue 'start;
            };
            if field != path || ix.field_is_multikey(j + n) {
                continue 'start;
            }
            let same = *asc == field_asc;
            match forward {
                None => forward = Some(same),
                Some(f) if f != same => continue 'start,
                Some(_) => {}
            }
        }
        return forward;
    }
    None
}

/// A sparse index misses documents without the fields: usable only when
/// the bounds exclude null (the key of a missing field). A partial index
/// only when the query implies its filter. See
/// https://www.mongodb.com/docs/manual/core/index-sparse/ and
/// https://www.mongodb.com/docs/manual/core/index-partial/#query-coverage.
fn usable(ix: &Index, query: &Conjuncts, p: &IndexPlan) -> bool {
    if ix.spec.sparse && p.oils.iter().all(|o| oil_contains(o, &Bson::Null)) {
        return false;
    }
    match &ix.spec.partial {
        Some(partial) => implies(query, partial.conjuncts()),
        None => true,
    }
}

/// Does every document matching the query match the partial filter? Each of
/// the partial filter's conditions must follow from one of the query's.
fn implies(query: &Conjuncts, partial: &Conjuncts) -> bool {
    for (k, v) in &partial.operators {
        // `$or` and other top-level operators: the query must repeat them.
        let repeated = query.operators.iter().any(|(qk, qv)| qk == k && qv == v);
        if k != "$and" && !repeated {
            return false;
        }
    }
    partial.conds.iter().all(|pc| {
        query
            .conds
            .iter()
            .any(|qc| qc.path == pc.path && follows(&qc.cond, &qc.shown, pc))
    })
}

fn follows(q: &Cond, q_shown: &Document, p: &PathCond) -> bool {
    if q_shown == &p.shown {
        return true;
    }
    let exists_true = p
        .shown
        .get(&p.path)
        .and_then(|v| match v {
            Bson::Document(d) => d.get("$exists"),
            _ => None,
        })
        .is_some_and(|v| {
            !matches!(v, Bson::Boolean(false) | Bson::Null) && !matches!(v, Bson::Int32(0))
        });
    if exists_true {
        return match q {
            Cond::Eq(v) | Cond::Cmp(_, v) => !matches!(v, Bson::Null),
            Cond::In(items) => !items.iter().any(|v| matches!(v, Bson::Null)),
            Cond::Regex(..) | Cond::ElemMatch(_) => true,
            Cond::Other => false,
        };
    }
    let values: Vec<&Bson> = match q {
        Cond::Eq(v) => vec![v],
        Cond::In(items) => items.iter().collect(),
        Cond::Cmp(op, w) => {
            return match &p.cond {
                Cond::Cmp(pop, v) if type_rank(v) == type_rank(w) => {
                    let ord = compare(w, v);
                    match (*pop, *op) {
                        ("$gt", "$gt") | ("$gte", "$gte") | ("$gte", "$gt") => {
                            ord != Ordering::Less
                        }
                        ("$gt", "$gte") => ord == Ordering::Greater,
                        ("$lt", "$lt") | ("$lte", "$lte") | ("$lte", "$lt") => {
                            ord != Ordering::Greater
                        }
                        ("$lt", "$lte") => ord == Ordering::Less,
                        _ => false,
                    }
                }
                _ => false,
            }
        }
        _ => return false,
    };
    !values.is_empty() && values.iter().all(|w| satisfies(w, &p.cond))
}

/// Does the value `w` satisfy the partial filter's condition?
fn satisfies(w: &Bson, cond: &Cond) -> bool {
    match cond {
        Cond::Eq(v) => equal(w, v),
        Cond::In(items) => items.iter().any(|v| equal(w, v)),
        Cond::Cmp(op, v) if type_rank(v) == type_rank(w) => {
            let ord = compare(w, v);
            match *op {
                "$gt" => ord == Ordering::Greater,
                "$gte" => ord != Ordering::Less,
                "$lt" => ord == Ordering::Less,
                _ => ord != Ordering::Greater,
            }
        }
        _ => false,
    }
}

pub(crate) type KeyBound = Bound<(Key, Rid)>;

/// The B-tree ranges of a plan, in scan order: leading point intervals are
/// expanded into one range each, the next field's intervals bound each
/// range, and later fields are checked key by key.
pub fn ranges(ix: &Index, p: &IndexPlan) -> Vec<(KeyBound, KeyBound)> {
    let desc = ix.spec.desc;
    let n = p.oils.len();
    let is_desc = |i: usize| desc & (1 << i) != 0;
    // Each field's intervals in index order.
    let ordered: Vec<Vec<&Interval>> = p
        .oils
        .iter()
        .enumerate()
        .map(|(i, oil)| {
            let mut v: Vec<&Interval> = oil.iter().collect();
            if is_desc(i) {
                v.reverse();
            }
            v
        })
        .collect();
    let mut prefixes: Vec<Vec<Bson>> = vec![Vec::new()];
    let mut k = 0;
    while k < n {
        let oil = &ordered[k];
        if !oil.iter().all(|i| i.is_point()) || prefixes.len() * oil.len() > MAX_POINT_RANGES {
            break;
        }
        let mut next = Vec::with_capacity(prefixes.len() * oil.len());
        for pre in &prefixes {
            for i in oil {
                let mut v = pre.clone();
                v.push(i.lo.clone());
                next.push(v);
            }
        }
        prefixes = next;
        k += 1;
    }
    // Fill the fields after `k` with the smallest or largest value in index order.
    let fill = |v: &mut Vec<Bson>, from: usize, smallest: bool| {
        for i in from..n {
            v.push(if smallest != is_desc(i) {
                Bson::MinKey
            } else {
                Bson::MaxKey
            });
        }
    };
    let mut out = Vec::new();
    for pre in prefixes {
        if k == n {
            let key = Key::new(pre, desc);
            out.push((
                Bound::Included((key.clone(), 0)),
                Bound::Included((key, Rid::MAX)),
            ));
            continue;
        }
        for iv in &ordered[k] {
            let (start, start_inc, end, end_inc) = if is_desc(k) {
                (&iv.hi, iv.hi_inc, &iv.lo, iv.lo_inc)
            } else {
                (&iv.lo, iv.lo_inc, &iv.hi, iv.hi_inc)
            };
            let mut lo = pre.clone();
            lo.push(start.clone());
            fill(&mut lo, k + 1, start_inc);
            let mut hi = pre.clone();
            hi.push(end.clone());
            fill(&mut hi, k + 1, !end_inc);
            let lo = Key::new(lo, desc);
            let hi = Key::new(hi, desc);
            out.push((
                if start_inc {
                    Bound::Included((lo, 0))
                } else {
                    Bound::Excluded((lo, Rid::MAX))
                },
                if end_inc {
                    Bound::Included((hi, Rid::MAX))
                } else {
                    Bound::Excluded((hi, 0))
                },
            ));
        }
    }
    out.retain(|(lo, hi)| nonempty(lo, hi));
    if !p.forward {
        out.reverse();
    }
    out
}

/// BTreeSet::range panics on inverted bounds; such ranges hold nothing.
fn nonempty(lo: &KeyBound, hi: &KeyBound) -> bool {
    match (lo, hi) {
        (Bound::Included(a), Bound::Included(b)) => a <= b,
        (Bound::Included(a) | Bound::Excluded(a), Bound::Included(b) | Bound::Excluded(b)) => a < b,
        _ => true,
    }
}

/// Keys within a plan's bounds, counting no further than `cap`.
fn count_keys(ix: &Index, p: &IndexPlan, cap: usize) -> usize {
    let mut n = 0;
    for (lo, hi) in ranges(ix, p) {
        for (key, _) in ix.entries().range((lo, hi)) {
            if key_in_bounds(key, &p.oils) {
                n += 1;
            }
            if n >= cap {
                return n;
            }
        }
    }
    n
}

pub(crate) fn key_in_bounds(key: &Key, oils: &[Oil]) -> bool {
    key.vals
        .iter()
        .zip(oils)
        .all(|(v, oil)| oil_contains(oil, v))
}
