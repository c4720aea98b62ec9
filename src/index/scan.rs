//! Running a plan: the documents of a collection scan, or of an index scan
//! over the plan's ranges (each document once, even from a multikey index),
//! counting the keys and documents examined as MongoDB's explain does.
//! See https://www.mongodb.com/docs/manual/reference/explain-results/#executionstats.
use super::plan::{key_in_bounds, ranges, Access, IndexPlan, KeyBound, Plan};
use crate::index::bounds::Oil;
use crate::query::{ColumnCheck, Filter};
use crate::storage::index::key::Key;
use crate::storage::index::{Index, Rid};
use crate::storage::Collection;
use bson::Document;
use std::collections::btree_set::Range;
use std::collections::HashSet;
use std::ops::Bound;

/// MongoDB scans a single interval (leading points, one range, then
/// unbounded fields) up to an end position, and anything else with a bounds
/// checker that reads, and counts, the key after each interval before
/// seeking to the next one (index_scan.cpp, IndexBoundsChecker).
fn single_interval(p: &IndexPlan) -> bool {
    let points = p
        .oils
        .iter()
        .take_while(|o| o.len() == 1 && o[0].is_point())
        .count();
    match p.oils.get(points) {
        None => true,
        Some(o) => {
            o.len() == 1
                && p.oils[points + 1..]
                    .iter()
                    .all(|o| o.len() == 1 && o[0].is_all())
        }
    }
}

/// The entry just past a range, in scan order.
fn past<'c>(ix: &'c Index, range: &(KeyBound, KeyBound), forward: bool) -> Option<&'c (Key, Rid)> {
    let flip = |b: &KeyBound| match b {
        Bound::Included(x) => Bound::Excluded(x.clone()),
        Bound::Excluded(x) => Bound::Included(x.clone()),
        Bound::Unbounded => Bound::Unbounded,
    };
    if forward {
        match &range.1 {
            Bound::Unbounded => None,
            hi => ix.entries().range((flip(hi), Bound::Unbounded)).next(),
        }
    } else {
        match &range.0 {
            Bound::Unbounded => None,
            lo => ix.entries().range((Bound::Unbounded, flip(lo))).next_back(),
        }
    }
}

fn in_range(e: &(Key, Rid), r: &(KeyBound, KeyBound)) -> bool {
    use std::ops::RangeBounds;
    (r.0.as_ref(), r.1.as_ref()).contains(e)
}

/// Is `e` before the end of range `r` in scan order (a seek could reach `r`)?
fn before_end(e: &(Key, Rid), r: &(KeyBound, KeyBound), forward: bool) -> bool {
    if forward {
        match &r.1 {
            Bound::Included(x) => e <= x,
            Bound::Excluded(x) => e < x,
            Bound::Unbounded => true,
        }
    } else {
        match &r.0 {
            Bound::Included(x) => e >= x,
            Bound::Excluded(x) => e > x,
            Bound::Unbounded => true,
        }
    }
}

/// What running a read did: its plan, the scan's work and how many
/// documents passed the filter (explain's executionStats).
#[derive(Debug)]
pub struct Executed {
    pub plan: Plan,
    pub stats: ScanStats,
    pub matched: usize,
}

/// Work done by a scan, for explain.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScanStats {
    pub keys_examined: usize,
    pub docs_examined: usize,
    pub dups_tested: usize,
    pub dups_dropped: usize,
    pub seeks: usize,
    /// The scan ran to its end (not stopped early by a limit).
    pub eof: bool,
}

// One cursor per read: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Cursor<'c> {
    Empty,
    Coll {
        next: usize,
        forward: bool,
    },
    Index {
        ix: &'c Index,
        oils: Vec<Oil>,
        forward: bool,
        ranges: std::vec::IntoIter<(KeyBound, KeyBound)>,
        current: Option<Range<'c, (Key, Rid)>>,
        /// The range being scanned, and whether the key past each range is
        /// read (and counted) as MongoDB's bounds checker does.
        range: Option<(KeyBound, KeyBound)>,
        checker: bool,
        /// The last key counted past a range (counted once).
        past: Option<&'c (Key, Rid)>,
        /// Multikey indexes hold several keys per document: return each once.
        seen: Option<HashSet<Rid>>,
    },
}

/// The check of `filter` over `c`'s scan columns (`storage::columns`);
/// `whole`: the scan reads every document, so missing columns are built
/// (first, those of one array together);
/// `positions`: the caller needs a match's array position.
pub fn column_check<'f>(
    filter: &'f Filter,
    c: Option<&Collection>,
    whole: bool,
    positions: bool,
) -> Option<ColumnCheck<'f>> {
    let c = c?;
    c.columns()
        .prepare(c.docs(), whole, || ColumnCheck::sources(filter, positions));
    ColumnCheck::new(filter, positions, &mut |source| {
        c.columns().for_scan(source, c.docs(), whole)
    })
}

/// The candidate documents of a plan, in scan order.
pub struct Scan<'c> {
    coll: Option<&'c Collection>,
    cursor: Cursor<'c>,
    pub stats: ScanStats,
}

impl Plan {
    /// Scan `c` (the collection the plan was made for).
    pub fn scan<'c>(&self, c: Option<&'c Collection>) -> Scan<'c> {
        let cursor = match (&self.access, c) {
            (Access::Eof, _) | (_, None) => Cursor::Empty,
            (Access::CollScan { forward }, Some(c)) => Cursor::Coll {
                next: if *forward { 0 } else { c.len() },
                forward: *forward,
            },
            (Access::Index(p), Some(c)) => match c.indexes().iter().nth(p.index) {
                Some(ix) => Cursor::Index {
                    ix,
                    oils: p.oils.clone(),
                    forward: p.forward,
                    ranges: ranges(ix, p).into_iter(),
                    current: None,
                    range: None,
                    checker: !single_interval(p),
                    past: None,
                    seen: ix.is_multikey().then(HashSet::new),
                },
                None => Cursor::Empty,
            },
        };
        Scan {
            coll: c,
            cursor,
            stats: ScanStats::default(),
        }
    }

    /// The index scan returns documents in the requested sort order.
    pub fn provides_sort(&self) -> bool {
        self.natural_sort || matches!(&self.access, Access::Index(p) if p.provides_sort)
    }

    pub fn index_plan(&self) -> Option<&IndexPlan> {
        match &self.access {
            Access::Index(p) => Some(p),
            _ => None,
        }
    }
}

/// At the end of a range, the bounds checker has read the key after
/// it: counted, unless a later range holds it (it is counted there) or
/// it was counted already; a later range beyond it takes a seek.
fn count_past<'c>(
    stats: &mut ScanStats,
    ix: &'c Index,
    r: &(KeyBound, KeyBound),
    forward: bool,
    rest: &[(KeyBound, KeyBound)],
    last: &mut Option<&'c (Key, Rid)>,
) {
    let Some(e) = past(ix, r, forward) else {
        return;
    };
    if rest.iter().any(|r| in_range(e, r)) || last.is_some_and(|l| std::ptr::eq(l, e)) {
        return;
    }
    *last = Some(e);
    stats.keys_examined += 1;
    if rest.iter().any(|r| before_end(e, r, forward)) {
        stats.seeks += 1;
    }
}

impl<'c> Iterator for Scan<'c> {
    type Item = &'c Document;

    fn next(&mut self) -> Option<&'c Document> {
        self.next_at().map(|(_, d)| d)
    }
}

impl<'c> Scan<'c> {
    /// Where a forward collection scan reads next (`None` for other scans).
    pub fn forward_at(&self) -> Option<usize> {
        match self.cursor {
            Cursor::Coll {
                next,
                forward: true,
            } => Some(next),
            _ => None,
        }
    }

    /// A forward collection scan passes over the documents before `at`,
    /// known not to match (they still count as examined, as in the server).
    pub fn pass_to(&mut self, at: usize) {
        let len = self.coll.map_or(0, Collection::len);
        if let Cursor::Coll {
            next,
            forward: true,
        } = &mut self.cursor
        {
            let at = at.min(len);
            if at > *next {
                self.stats.docs_examined += at - *next;
                *next = at;
            }
        }
    }

    /// The next document and its position in the collection's natural order.
    pub fn next_at(&mut self) -> Option<(usize, &'c Document)> {
        let c = self.coll?;
        match &mut self.cursor {
            Cursor::Empty => {
                self.stats.eof = true;
                None
            }
            Cursor::Coll { next, forward } => {
                let at = *next;
                let doc = if *forward {
                    crate::value::prefetch::scan(c.docs(), at);
                    *next += 1;
                    c.docs().get(at).map(|d| (at, d))
                } else if at > 0 {
                    *next -= 1;
                    c.docs().get(at - 1).map(|d| (at - 1, d))
                } else {
                    None
                };
                match doc {
                    Some(found) => {
                        self.stats.docs_examined += 1;
                        Some(found)
                    }
                    None => {
                        self.stats.eof = true;
                        None
                    }
                }
            }
            Cursor::Index {
                ix,
                oils,
                forward,
                ranges,
                current,
                range,
                checker,
                past: last_past,
                seen,
            } => loop {
                if current.is_none() {
                    let Some(r) = ranges.next() else {
                        self.stats.eof = true;
                        return None;
                    };
                    if self.stats.seeks == 0 {
                        self.stats.seeks = 1;
                    }
                    *current = Some(ix.entries().range(r.clone()));
                    *range = Some(r);
                }
                let entry = match current.as_mut() {
                    Some(scan) if *forward => scan.next(),
                    Some(scan) => scan.next_back(),
                    None => None,
                };
                let Some((key, rid)) = entry else {
                    *current = None;
                    if let (true, Some(r)) = (*checker, range.take()) {
                        count_past(
                            &mut self.stats,
                            ix,
                            &r,
                            *forward,
                            ranges.as_slice(),
                            last_past,
                        );
                    }
                    continue;
                };
                self.stats.keys_examined += 1;
                if !key_in_bounds(key, oils.as_slice()) {
                    continue;
                }
                if let Some(seen) = seen {
                    self.stats.dups_tested += 1;
                    if !seen.insert(*rid) {
                        self.stats.dups_dropped += 1;
                        continue;
                    }
                }
                if let Some(i) = c.position(*rid) {
                    if let Some(d) = c.docs().get(i) {
                        self.stats.docs_examined += 1;
                        return Some((i, d));
                    }
                }
            },
        }
    }
}
