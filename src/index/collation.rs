//! An index and the read's collation. An index holds strings by its own
//! collation (as sort keys when it has one), so for a read under another
//! collation it bounds no strings and provides no sort; under its own, the
//! bounds' strings become sort keys too. A regular expression bounds a
//! collated index by every string (sort keys keep no prefixes), and no
//! collated scan answers a filter alone: the matcher checks each document.
//! See https://www.mongodb.com/docs/manual/reference/collation/#collation-and-index-use.
use super::bounds::{Cond, Interval, PathCond};
use super::plan::IndexPlan;
use crate::storage::index::key::collation_key;
use crate::storage::index::Index;
use bson::{Bson, Document};

/// Fit a plan for `ix` to the active collation; `false` when the index
/// cannot bound this read's strings (it is then usable only when hinted,
/// and the plan scans those fields whole).
pub fn fit(ix: &Index, conds: &[PathCond], p: &mut IndexPlan) -> bool {
    let active = crate::collation::active();
    let mine = ix.spec.collation.as_deref();
    if !crate::collation::same(mine, active.as_deref()) {
        p.provides_sort = false;
        let mut usable = true;
        for oil in &mut p.oils {
            if oil.iter().any(bounds_strings) {
                *oil = vec![Interval::all()];
                usable = false;
            }
        }
        if !usable {
            p.exact.iter_mut().for_each(|e| *e = false);
        }
        return usable;
    }
    let Some(c) = mine else {
        return true;
    };
    p.exact.iter_mut().for_each(|e| *e = false);
    for (f, oil) in p.oils.iter_mut().enumerate() {
        let path = ix.spec.paths[f].dotted();
        let has_regex = conds.iter().any(|pc| pc.path == path && regex_in(&pc.cond));
        if has_regex {
            *oil = vec![Interval::all()];
            continue;
        }
        for iv in oil.iter_mut() {
            collation_key(c, &mut iv.lo);
            collation_key(c, &mut iv.hi);
        }
    }
    true
}

/// Does an interval have a string bound? (One whose ends hold no strings
/// takes all strings or none, by any collation.)
fn bounds_strings(iv: &Interval) -> bool {
    holds_string(&iv.lo) || holds_string(&iv.hi)
}

fn holds_string(v: &Bson) -> bool {
    match v {
        Bson::String(_) | Bson::Symbol(_) => true,
        Bson::Document(d) => doc_holds_string(d),
        Bson::Array(items) => items.iter().any(holds_string),
        _ => false,
    }
}

fn doc_holds_string(d: &Document) -> bool {
    d.values().any(holds_string)
}

fn regex_in(cond: &Cond) -> bool {
    match cond {
        Cond::Regex(..) => true,
        Cond::In(items) => items
            .iter()
            .any(|v| matches!(v, Bson::RegularExpression(_))),
        Cond::ElemMatch(conds) => conds.iter().any(regex_in),
        _ => false,
    }
}
