//! Query filters: compiled once from a filter document into a matcher tree,
//! then matched against documents by borrowing them. Also the shared sort
//! specification and the upsert seed.
mod column_elements;
mod column_sort;
mod columns;
mod conjuncts;
mod filter;
mod matcher;
mod near;
mod ops;
pub mod sort;
pub mod text;
pub(crate) mod upsert;
pub mod validation_error;
mod validation_schema;

use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::geo::NearQuery;
use crate::value::path::FieldPath;
use bson::{Bson, Document};
pub use columns::{for_each_match, ColumnCheck};
pub use conjuncts::{regex_value, Cond, Conjuncts, PathCond};
use filter::{Level, Parser};
use matcher::{Node, Root};

/// A compiled filter.
#[derive(Clone, Debug)]
pub struct Filter {
    root: Node,
    /// Its top level as the parser saw it: for the planner and upserts.
    conjuncts: Conjuncts,
    /// A top-level `$near`/`$nearSphere` and its path (finds and writes).
    near: Option<(FieldPath, NearQuery)>,
    /// The other clauses of the `$or`s a `$text` sits under.
    text_in_or: Option<Box<text::TextInOr>>,
}

impl Filter {
    /// A filter where `$near` is not allowed (`$match`, `$pull`, `$lookup`,
    /// partial indexes, validators...).
    pub fn compile(filter: &Document, ctx: &CompileCtx) -> Result<Filter> {
        let f = Self::compile_find(filter, ctx)?;
        if f.near.is_some() {
            return Err(Error::location(
                5626500,
                "$geoNear, $near, and $nearSphere are not allowed in this context",
            ));
        }
        Ok(f)
    }

    /// A find's or a write's filter: one `$near`/`$nearSphere` at the top
    /// level is allowed (the server plans both alike).
    pub fn compile_find(filter: &Document, ctx: &CompileCtx) -> Result<Filter> {
        let mut rec = conjuncts::Recorder::default();
        let root = Parser { ctx }.parse_recorded(filter, Level::Top, Some(&mut rec))?;
        text::check_placement(&root)?;
        let mut near = Vec::new();
        near::collect(&root, true, &mut near);
        if near.len() > 1 {
            return Err(Error::bad_value("Too many geoNear expressions"));
        }
        let near = match near.pop() {
            Some((path, q, true)) => Some((path.clone(), q.clone())),
            Some(_) => return Err(Error::bad_value("geoNear must be top-level expr")),
            None => None,
        };
        let text_in_or = text::text_in_or(&root, filter, ctx)?.map(Box::new);
        Ok(Filter {
            root,
            conjuncts: rec.out,
            near,
            text_in_or,
        })
    }

    /// The top-level conjuncts and operators, recorded while compiling.
    pub fn conjuncts(&self) -> &Conjuncts {
        &self.conjuncts
    }

    /// The `$or` clauses beside the filter's `$text`, when it sits under `$or`.
    pub fn text_in_or(&self) -> Option<&text::TextInOr> {
        self.text_in_or.as_deref()
    }

    /// The filter's `$near`/`$nearSphere` and its path.
    pub fn near(&self) -> Option<(&FieldPath, &NearQuery)> {
        self.near.as_ref().map(|(p, q)| (p, q))
    }

    /// True when the filter matches every document (`{}`), so callers can skip matching.
    pub fn matches_everything(&self) -> bool {
        matches!(self.root, Node::True)
    }

    #[inline(always)]
    pub fn matches(&self, doc: &Document, scope: &Scope) -> Result<bool> {
        self.root.matches(Root::Doc(doc), Some(scope), &mut None)
    }

    /// Match and report the array position the positional `$` operator would use:
    /// `None` = no match, `Some(None)` = match without a position.
    pub fn matches_at(&self, doc: &Document, scope: &Scope) -> Result<Option<Option<usize>>> {
        let mut pos = None;
        Ok(self
            .root
            .matches(Root::Doc(doc), Some(scope), &mut pos)?
            .then_some(pos))
    }

    /// The document an upsert starts from: the filter's equality conditions
    /// (`{a: 1}`, `{a: {$eq: 1}}`, `{a: {$in: [1]}}`, inside `$and`), dotted
    /// paths as sub-documents. Two conditions on one path (or a path and its
    /// prefix) fail with NotSingleValueField, as in MongoDB.
    pub fn upsert_seed(&self) -> Result<Document> {
        upsert::seed(&self.conjuncts.equalities)
    }

    /// What a replacement upsert keeps from the filter: only `_id`, which must
    /// be given whole (`{"_id.name": ...}` fails with NotExactValueField).
    pub fn upsert_replacement_seed(&self) -> Result<Document> {
        upsert::replacement_seed(&self.conjuncts.equalities)
    }
}

/// A compiled `$elemMatch` argument on its own (the find projection operator).
#[derive(Clone, Debug)]
pub struct ElemMatch {
    pred: matcher::Pred,
}

impl ElemMatch {
    /// Compile `{$elemMatch: arg}`'s argument; `$expr`/`$where`/`$text` are refused.
    pub fn compile(arg: &Bson, ctx: &CompileCtx) -> Result<ElemMatch> {
        Ok(ElemMatch {
            pred: ops::array::compile_elem_match(&Parser { ctx }, arg)?,
        })
    }

    /// The index of the first matching element, if `value` is an array with one.
    pub fn first_match(&self, value: &Bson) -> Option<usize> {
        let mut pos = None;
        self.pred
            .matches(Some(value), &mut pos)
            .then_some(pos)
            .flatten()
    }
}

/// Does the filter have a condition on a path whose first component is
/// `field`? (A positional projection `field.$` needs one.)
pub fn filter_mentions_field(filter: &Document, field: &str) -> bool {
    filter.iter().any(|(k, v)| match k.as_str() {
        "$and" | "$or" | "$nor" => match v {
            Bson::Array(items) => items.iter().any(|i| match i {
                Bson::Document(d) => filter_mentions_field(d, field),
                _ => false,
            }),
            _ => false,
        },
        k if k.starts_with('$') => false,
        k => k.split('.').next() == Some(field),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::RunCtx;
    use bson::doc;

    fn matches(filter: Document, d: Document) -> bool {
        let run = RunCtx::default();
        let f = Filter::compile(&filter, &CompileCtx::default())
            .unwrap_or_else(|e| panic!("{filter}: {e}"));
        f.matches(&d, &Scope::new(&run))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn arrays_and_null() {
        assert!(matches(doc! {"a": 5}, doc! {"a": [5, 6]}));
        assert!(matches(doc! {"a": [5, 6]}, doc! {"a": [5, 6]}));
        assert!(matches(doc! {"a": [5, 6]}, doc! {"a": [[5, 6], 7]}));
        assert!(!matches(doc! {"a": [6, 5]}, doc! {"a": [5, 6]}));
        assert!(matches(doc! {"a": null}, doc! {"b": 1}));
        assert!(matches(doc! {"a": null}, doc! {"a": [1, null]}));
        assert!(!matches(doc! {"a": {"$ne": 5}}, doc! {"a": [5, 6]}));
        assert!(matches(doc! {"a.b": 1}, doc! {"a": [{"b": 2}, {"b": 1}]}));
        assert!(matches(doc! {"a.1": 6}, doc! {"a": [5, 6]}));
        assert!(!matches(doc! {"a": {"$gt": 5}}, doc! {"a": "x"}));
    }

    #[test]
    fn positions() {
        let run = RunCtx::default();
        let scope = Scope::new(&run);
        let f = Filter::compile(&doc! {"grades": {"$gte": 85}}, &CompileCtx::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            f.matches_at(&doc! {"grades": [80, 85, 90]}, &scope).ok(),
            Some(Some(Some(1)))
        );
        assert_eq!(
            f.matches_at(&doc! {"grades": 90}, &scope).ok(),
            Some(Some(None))
        );
    }
}
