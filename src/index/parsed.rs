//! `parsedQuery`: the filter as the server normalises it — one condition per
//! entry (`{a: 5}` is `{a: {$eq: 5}}`, `$ne` is `{$not: {$eq: ..}}`), several
//! under `$and` in the canonical order (by kind, then path).
//! See https://www.mongodb.com/docs/manual/reference/explain-results/#mongodb-data-explain.queryPlanner.parsedQuery
use super::bounds::PathCond;
use bson::{Bson, Document};

/// The server's MatchExpression order: trees, array operators, leaves, negations...
fn kind_rank(op: &str) -> u8 {
    match op {
        "$and" => 0,
        "$or" => 1,
        "$elemMatch" => 3,
        "$size" => 4,
        "$eq" => 5,
        "$lte" => 6,
        "$lt" => 7,
        "$gt" => 8,
        "$gte" => 9,
        "$regex" => 10,
        "$mod" => 11,
        "$exists" => 12,
        "$in" => 13,
        "$bitsAllSet" | "$bitsAllClear" | "$bitsAnySet" | "$bitsAnyClear" => 14,
        "$not" => 18,
        "$nor" => 19,
        "$type" => 20,
        "$where" => 22,
        "$expr" => 23,
        _ => 30,
    }
}

/// One normalised condition and its sort key.
#[derive(Clone, Debug)]
pub struct Entry {
    pub doc: Document,
    rank: u8,
    path: String,
}

/// The normalised form of one path condition.
pub fn normalize(pc: &PathCond) -> Entry {
    let (op, arg) = match pc.shown.get(&pc.path) {
        Some(Bson::Document(d)) => match d.iter().next() {
            Some((op, arg)) => (op.as_str(), arg.clone()),
            None => ("$eq", Bson::Document(Document::new())),
        },
        _ => ("$eq", Bson::Null),
    };
    let inner = pc.shown.get(&pc.path).cloned().unwrap_or(Bson::Null);
    let (rank, value) = match op {
        "$ne" => (kind_rank("$not"), wrap("$not", wrap("$eq", arg))),
        "$nin" => (
            kind_rank("$not"),
            wrap("$not", wrap("$in", sorted_set(arg))),
        ),
        "$in" => match sorted_set(arg) {
            Bson::Array(items) if items.len() == 1 => {
                let one = items.into_iter().next().unwrap_or(Bson::Null);
                (kind_rank("$eq"), wrap("$eq", one))
            }
            set => (kind_rank("$in"), wrap("$in", set)),
        },
        "$exists" if !truthy(&arg) => (
            kind_rank("$not"),
            wrap("$not", wrap("$exists", Bson::Boolean(true))),
        ),
        "$exists" => (kind_rank("$exists"), wrap("$exists", Bson::Boolean(true))),
        "$all" => match &arg {
            Bson::Array(items) if items.len() == 1 => {
                let one = items.first().cloned().unwrap_or(Bson::Null);
                (kind_rank("$eq"), wrap("$eq", one))
            }
            _ => (kind_rank("$and"), inner),
        },
        op => (kind_rank(op), inner),
    };
    let mut doc = Document::new();
    doc.insert(pc.path.clone(), value);
    Entry {
        doc,
        rank,
        path: pc.path.clone(),
    }
}

/// A top-level operator (`$or`, `$expr`...) as an entry; `$comment` has none.
pub fn top_level(op: &str, arg: &Bson) -> Option<Entry> {
    if op == "$comment" || op == "$and" {
        return None;
    }
    let mut doc = Document::new();
    doc.insert(op, arg.clone());
    Some(Entry {
        doc,
        rank: kind_rank(op),
        path: String::new(),
    })
}

/// Entries as one document: nothing is `{}`, one is itself, more are `$and`.
pub fn combine(mut entries: Vec<Entry>) -> Document {
    crate::sorting::sort_by(&mut entries, |a, b| {
        a.rank.cmp(&b.rank).then_with(|| a.path.cmp(&b.path))
    });
    match entries.len() {
        0 => Document::new(),
        1 => entries.pop().map(|e| e.doc).unwrap_or_default(),
        _ => {
            let mut d = Document::new();
            d.insert(
                "$and",
                Bson::Array(entries.into_iter().map(|e| Bson::Document(e.doc)).collect()),
            );
            d
        }
    }
}

fn wrap(op: &str, v: Bson) -> Bson {
    let mut d = Document::new();
    d.insert(op, v);
    Bson::Document(d)
}

/// `$in` lists are shown sorted and without duplicates.
fn sorted_set(v: Bson) -> Bson {
    match v {
        Bson::Array(mut items) => {
            crate::sorting::sort_by(&mut items, crate::value::order::compare_binary);
            items.dedup_by(|a, b| crate::value::equal(a, b));
            Bson::Array(items)
        }
        other => other,
    }
}

fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Null | Bson::Undefined => false,
        v => crate::value::numeric::to_f64(v).is_none_or(|x| x != 0.0),
    }
}
