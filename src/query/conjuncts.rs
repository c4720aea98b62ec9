//! What a filter's top level says, recorded while filter.rs parses it: the
//! path conditions of its top-level conjunction (`$and` flattened) for the
//! planner's bounds and partial-index checks, its own `$` operators as
//! written, and the equalities an upsert seeds its document from. Nothing
//! here reads a filter document on its own.
use super::filter::is_operator_document;
use bson::{Bson, Document, Regex};

/// One condition of a filter on a path, in a form bounds can be built from.
#[derive(Clone, Debug)]
pub enum Cond {
    Eq(Bson),
    /// `$gt`, `$gte`, `$lt`, `$lte`.
    Cmp(&'static str, Bson),
    In(Vec<Bson>),
    Regex(String, String),
    /// `$elemMatch` on values: its conditions hold for one element together.
    ElemMatch(Vec<Cond>),
    /// Anything else: no bounds.
    Other,
}

/// A path condition of the filter's top-level conjunction.
#[derive(Clone, Debug)]
pub struct PathCond {
    pub path: String,
    pub cond: Cond,
    /// The condition as MongoDB writes it in plans (`{a: {$gt: 5}}`).
    pub shown: Document,
}

/// The filter's top level, as recorded by the parser.
#[derive(Clone, Debug, Default)]
pub struct Conjuncts {
    /// Path conditions of the top-level conjunction (`{a: .., b: ..}` and
    /// `$and`); `$or`, `$nor`, `$expr` and the like give none.
    pub conds: Vec<PathCond>,
    /// The top level's own `$` operators (`$and` too), as written.
    pub operators: Vec<(String, Bson)>,
    /// Equality conditions in filter order, for the upsert seed: `{a: v}`
    /// (not a regex), `{a: {$eq: v}}`, `{a: {$in: [v]}}`, `{a: {$all: [v]}}`,
    /// inside `$and` and a one-clause `$or`.
    pub(crate) equalities: Vec<(String, Bson)>,
}

/// The recorder the parser carries through the top level and `$and`/`$or`.
#[derive(Default)]
pub(crate) struct Recorder {
    pub out: Conjuncts,
    /// Inside `$and`/`$or` rather than at the document's own top level.
    nested: bool,
    /// Inside a one-clause `$or`: only its equalities seed an upsert.
    seed_only: bool,
}

/// Which recorder a logical operator's clauses go to.
pub(crate) enum Clauses {
    /// `$and`: the same conjunction.
    Same,
    /// A one-clause `$or`: equalities for the upsert only.
    SeedOnly,
    /// Anything else: nothing is recorded.
    Nothing,
}

impl Recorder {
    pub fn clauses(name: &str, count: usize) -> Clauses {
        match name {
            "$and" => Clauses::Same,
            "$or" if count == 1 => Clauses::SeedOnly,
            _ => Clauses::Nothing,
        }
    }

    /// Run `f` with the recorder set for the clauses of `$and` or a one-clause `$or`.
    pub fn within<T>(&mut self, seed_only: bool, f: impl FnOnce(&mut Recorder) -> T) -> T {
        let saved = (self.nested, self.seed_only);
        self.nested = true;
        self.seed_only |= seed_only;
        let out = f(self);
        (self.nested, self.seed_only) = saved;
        out
    }

    /// A `$` key of the document being parsed.
    pub fn operator(&mut self, name: &str, arg: &Bson) {
        if !self.nested {
            self.out.operators.push((name.to_string(), arg.clone()));
        }
    }

    /// `{path: value}`: equality, or a regex for a regex value.
    pub fn value(&mut self, path: &str, value: &Bson) {
        match value {
            Bson::RegularExpression(r) => {
                let cond = Cond::Regex(r.pattern.to_string(), r.options.to_string());
                self.cond(path_cond(path, cond, "$regex", value));
            }
            v => {
                self.cond(path_cond(path, Cond::Eq(v.clone()), "$eq", v));
                self.out.equalities.push((path.to_string(), v.clone()));
            }
        }
    }

    /// `{path: {$op: arg, ...}}`, called once per operator document with
    /// its operators already validated by the parser.
    pub fn operators(&mut self, path: &str, ops: &Document) {
        let mut regex_done = false;
        for (op, arg) in ops {
            if op == "$regex" || op == "$options" {
                if !regex_done {
                    regex_done = true;
                    self.cond(regex_cond(path, ops));
                }
                continue;
            }
            self.cond(path_cond(path, op_cond(op, arg), op, arg));
        }
        self.seed_equalities(path, ops);
    }

    fn cond(&mut self, pc: PathCond) {
        if !self.seed_only {
            self.out.conds.push(pc);
        }
    }

    /// `$eq` first, else a one-value `$in`, else `$all`'s values.
    fn seed_equalities(&mut self, path: &str, ops: &Document) {
        let out = &mut self.out.equalities;
        if let Some(v) = ops.get("$eq") {
            out.push((path.to_string(), v.clone()));
        } else if let Some(Bson::Array(items)) = ops.get("$in") {
            if let [one] = items.as_slice() {
                if !matches!(one, Bson::RegularExpression(_)) {
                    out.push((path.to_string(), one.clone()));
                }
            }
        } else if let Some(Bson::Array(items)) = ops.get("$all") {
            // `$all` is an `$and` of equalities (regexes and `$elemMatch`
            // aside): one seeds the field, two are "matched twice"
            // (jstests/core/upsert_fields.js).
            for one in items {
                if !matches!(one, Bson::RegularExpression(_)) && !is_operator_document(one) {
                    out.push((path.to_string(), one.clone()));
                }
            }
        }
    }
}

fn path_cond(path: &str, cond: Cond, op: &str, arg: &Bson) -> PathCond {
    let mut inner = Document::new();
    match (&cond, arg) {
        (Cond::Regex(p, o), _) => {
            inner.insert("$regex", p.clone());
            if !o.is_empty() {
                inner.insert("$options", o.clone());
            }
        }
        _ => {
            inner.insert(op, arg.clone());
        }
    }
    let mut shown = Document::new();
    shown.insert(path, inner);
    PathCond {
        path: path.to_string(),
        cond,
        shown,
    }
}

fn regex_cond(path: &str, ops: &Document) -> PathCond {
    let (pattern, mut flags) = match ops.get("$regex") {
        Some(Bson::String(s)) => (s.clone(), String::new()),
        Some(Bson::RegularExpression(r)) => (r.pattern.to_string(), r.options.to_string()),
        _ => {
            return PathCond {
                path: path.to_string(),
                cond: Cond::Other,
                shown: Document::new(),
            }
        }
    };
    if let Some(Bson::String(o)) = ops.get("$options") {
        if !o.is_empty() {
            flags = o.clone();
        }
    }
    let re = regex_value(&pattern, &flags).unwrap_or(Bson::Null);
    path_cond(path, Cond::Regex(pattern, flags), "$regex", &re)
}

fn op_cond(op: &str, arg: &Bson) -> Cond {
    match op {
        "$eq" => Cond::Eq(arg.clone()),
        "$gt" => Cond::Cmp("$gt", arg.clone()),
        "$gte" => Cond::Cmp("$gte", arg.clone()),
        "$lt" => Cond::Cmp("$lt", arg.clone()),
        "$lte" => Cond::Cmp("$lte", arg.clone()),
        "$in" => match arg {
            Bson::Array(items) => Cond::In(items.clone()),
            _ => Cond::Other,
        },
        // `$all: [x, ...]` needs x among the values: x's bounds hold.
        "$all" => match arg {
            Bson::Array(items) => match items.first() {
                Some(Bson::Document(d)) if d.contains_key("$elemMatch") => Cond::Other,
                Some(Bson::RegularExpression(r)) => {
                    Cond::Regex(r.pattern.to_string(), r.options.to_string())
                }
                Some(first) => Cond::Eq(first.clone()),
                None => Cond::Other,
            },
            _ => Cond::Other,
        },
        "$elemMatch" => match arg {
            Bson::Document(d) if d.keys().all(|k| k.starts_with('$')) && !d.is_empty() => {
                Cond::ElemMatch(d.iter().map(|(o, a)| op_cond(o, a)).collect())
            }
            _ => Cond::Other,
        },
        _ => Cond::Other,
    }
}

/// A regex as a BSON value (`None` when the pattern or flags hold a NUL).
pub fn regex_value(pattern: &str, flags: &str) -> Option<Bson> {
    Some(Bson::RegularExpression(Regex {
        pattern: pattern.to_string().try_into().ok()?,
        options: flags.to_string().try_into().ok()?,
    }))
}

#[cfg(test)]
mod tests {
    use crate::expr::CompileCtx;
    use crate::query::Filter;
    use bson::{doc, Bson, Document};

    fn conjuncts(filter: Document) -> super::Conjuncts {
        Filter::compile(&filter, &CompileCtx::default())
            .map(|f| f.conjuncts().clone())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn top_level_only_and_flattened() {
        let c = conjuncts(doc! {
            "a": 1,
            "$and": [{"b": {"$gt": 2, "$lt": 9}}, {"$and": [{"c": {"$in": [3, 4]}}]}],
            "$or": [{"d": 5}],
            "$nor": [{"e": 6}],
            "f": {"$elemMatch": {"g": 7}},
            "h": {"$regex": "^x", "$options": "i"},
        });
        let paths: Vec<&str> = c.conds.iter().map(|pc| pc.path.as_str()).collect();
        assert_eq!(paths, ["a", "b", "b", "c", "f", "h"]);
        assert!(matches!(
            c.conds[1].cond,
            super::Cond::Cmp("$gt", Bson::Int32(2))
        ));
        assert!(matches!(&c.conds[5].cond, super::Cond::Regex(p, o) if p == "^x" && o == "i"));
        assert_eq!(
            c.conds[5].shown,
            doc! {"h": {"$regex": "^x", "$options": "i"}}
        );
        // The top level's own operators as written; `$and`'s clauses are not repeated.
        let ops: Vec<&str> = c.operators.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(ops, ["$and", "$or", "$nor"]);
        // A one-clause `$or` seeds upserts; `$nor` and `$elemMatch` do not.
        let eqs: Vec<&str> = c.equalities.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(eqs, ["a", "d"]);
        // Nothing is recorded from inside `$elemMatch`, `$or` or `$nor`.
        let inner = conjuncts(
            doc! {"$or": [{"x": 1}, {"y": 2}], "z": {"$elemMatch": {"$and": [{"w": 1}]}}},
        );
        assert_eq!(inner.conds.len(), 1);
        assert!(inner.equalities.is_empty());
    }
}
