//! find() projections: inclusion/exclusion, `_id` rules, `$slice`,
//! `$elemMatch`, positional `field.$`, and (MongoDB 4.4+) aggregation
//! expressions and literals. Parsing follows the server's
//! src/mongo/db/query/projection_parser.cpp; see
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.find/#projection
//! and https://www.mongodb.com/docs/manual/tutorial/project-fields-from-query-results/.
mod apply;
mod parse;

use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Expr, Scope};
use crate::query::ElemMatch;
use bson::{Bson, Document};

#[derive(Clone, Debug)]
pub struct Projection {
    root: Tree,
    inclusion: bool,
    /// Fields given `{$meta: "textScore"}`, added last.
    meta: Vec<String>,
}

/// One level of the projection, in specification order.
#[derive(Clone, Debug, Default)]
struct Tree {
    fields: Vec<(String, PNode)>,
}

#[derive(Clone, Debug)]
enum PNode {
    Include,
    Exclude,
    Sub(Tree),
    /// A literal value (`{a: "x"}`, `{a: null}`).
    Literal(Bson),
    /// An aggregation expression (`{a: "$b"}`, `{a: {$add: [...]}}`).
    Expr(Box<Expr>),
    /// find's `$slice`: `n`, `-n` or `[skip, n]`.
    Slice {
        skip: Option<i64>,
        limit: i64,
    },
    ElemMatch(Box<ElemMatch>),
    /// `field.$`: the element the query matched.
    Positional,
}

impl PNode {
    /// Computed after the included fields (expressions and find operators).
    fn is_computed(&self) -> bool {
        !matches!(self, PNode::Include | PNode::Exclude | PNode::Sub(_))
    }
}

impl Tree {
    fn get(&self, name: &str) -> Option<&PNode> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, p)| p)
    }

    /// Whether a positional `$` lies somewhere below this level.
    fn has_positional(&self) -> bool {
        self.fields.iter().any(|(_, p)| match p {
            PNode::Sub(t) => t.has_positional(),
            p => matches!(p, PNode::Positional),
        })
    }

    fn has_computed(&self) -> bool {
        self.fields.iter().any(|(_, p)| match p {
            PNode::Sub(t) => t.has_computed(),
            p => p.is_computed(),
        })
    }

    /// Add a node at a dotted path, creating levels (server codes 31249/31250).
    fn add(&mut self, path: &[&str], full: &str, node: PNode) -> Result<()> {
        crate::value::path::check_length(full)?;
        let Some((first, rest)) = path.split_first() else {
            return Ok(());
        };
        let pos = self.fields.iter().position(|(n, _)| n == first);
        if rest.is_empty() {
            if pos.is_some() {
                return Err(Error::location(31250, format!("Path collision at {full}")));
            }
            self.fields.push((first.to_string(), node));
            return Ok(());
        }
        let idx = match pos {
            Some(i) => i,
            None => {
                self.fields
                    .push((first.to_string(), PNode::Sub(Tree::default())));
                self.fields.len() - 1
            }
        };
        match self.fields.get_mut(idx) {
            Some((_, PNode::Sub(t))) => t.add(rest, full, node),
            _ => Err(Error::location(
                31249,
                format!(
                    "Path collision at {full} remaining portion {}",
                    rest.join(".")
                ),
            )),
        }
    }

    fn remove(&mut self, name: &str) {
        self.fields.retain(|(n, _)| n != name);
    }
}

impl Projection {
    /// Compile a find() projection; `filter` is the query, which a positional
    /// projection (`grades.$`) must refer to (without one, positional `$` is
    /// refused).
    pub fn compile_for_find(
        spec: &Document,
        filter: Option<&Document>,
        ctx: &CompileCtx,
    ) -> Result<Projection> {
        parse::parse(spec, filter, ctx)
    }

    /// Project one document; `position` is the filter's positional match.
    pub fn apply(
        &self,
        doc: &Document,
        position: Option<usize>,
        scope: &Scope,
    ) -> Result<Document> {
        let cx = apply::Cx {
            root: doc,
            position,
            positional_done: false,
            scope,
        };
        let mut out = if self.inclusion {
            apply::include_doc(&self.root, doc, &cx)?
        } else {
            apply::exclude_doc(&self.root, doc, &cx)?
        };
        if let Some(score) = doc.get(crate::fts::SCORE_FIELD) {
            for name in &self.meta {
                match name.split_once('.') {
                    None => {
                        out.remove(name);
                        out.insert(name.clone(), score.clone());
                    }
                    Some(_) => {
                        let parts: Vec<&str> = name.split('.').collect();
                        apply::set_computed(&mut out, &parts, score);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Does it ask for `{$meta: "textScore"}`?
    pub fn uses_text_score(&self) -> bool {
        !self.meta.is_empty()
    }
}
