//! `$text` in a filter: the one node that calls into `crate::fts`. It is
//! compiled without its collection and bound to the collection's text index
//! before it runs. See https://www.mongodb.com/docs/manual/reference/operator/query/text/.
use super::matcher::Node;
use super::Filter;
use crate::error::{Error, Result};
use crate::expr::CompileCtx;
use crate::fts::{Search, TextArgs};
use bson::{Bson, Document};

#[derive(Clone, Debug)]
pub(crate) struct TextNode {
    pub args: TextArgs,
    pub search: Option<Box<Search>>,
}

impl TextNode {
    pub(crate) fn matches(&self, doc: &Document) -> Result<bool> {
        match &self.search {
            Some(s) => Ok(s.score(doc)?.is_some()),
            None => Err(text_index_required()),
        }
    }
}

pub fn text_index_required() -> Error {
    Error::index_not_found("text index required for $text query")
}

/// At most one `$text`, never under `$nor`. Under `$or` it is allowed here;
/// whether the `$or`'s other clauses can use an index is decided once the
/// collection is known (see [`TextInOr`]).
pub(super) fn check_placement(root: &Node) -> Result<()> {
    fn count(n: &Node, under_nor: bool) -> Result<usize> {
        Ok(match n {
            Node::Text(_) if under_nor => {
                return Err(Error::bad_value("text expression not allowed in nor"))
            }
            Node::Text(_) => 1,
            Node::And(c) | Node::Or(c) => c
                .iter()
                .map(|c| count(c, under_nor))
                .sum::<Result<usize>>()?,
            Node::Nor(c) => c.iter().map(|c| count(c, true)).sum::<Result<usize>>()?,
            _ => 0,
        })
    }
    if count(root, false)? > 1 {
        return Err(Error::bad_value("Too many text expressions"));
    }
    Ok(())
}

/// A `$text` under one or more `$or`s. The server answers such a query only
/// with an index scan per `$or` clause (the text index for the clause that
/// holds `$text`), never with a collection scan, so every other clause of
/// those `$or`s must be able to use an index.
/// See https://www.mongodb.com/docs/manual/reference/operator/query/text/#restrictions.
#[derive(Clone, Debug)]
pub struct TextInOr {
    /// The other clauses, nested `$or`s flattened as the server flattens them.
    pub clauses: Vec<Filter>,
    /// The filter is one `$or` and `$text` is one of its clauses: the server
    /// then names the problem; otherwise it only finds "No query solutions".
    pub text_is_root_or_clause: bool,
}

impl TextInOr {
    /// The server's error when a clause cannot use an index.
    pub fn unindexed_clause(&self) -> Error {
        let reason = if self.text_is_root_or_clause {
            "Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well."
        } else {
            "No query solutions"
        };
        Error::new(
            291,
            "NoQueryExecutionPlans",
            format!("error processing query: planner returned error :: caused by :: {reason}"),
        )
    }
}

/// Find the `$or`s above the filter's `$text` and compile their other
/// clauses. The walk follows a filter the parser has already accepted, so
/// its depth is bounded by the parser's.
pub(super) fn text_in_or(
    root: &Node,
    filter: &Document,
    ctx: &CompileCtx,
) -> Result<Option<TextInOr>> {
    fn walk(d: &Document, out: &mut Vec<Document>) -> bool {
        for (k, v) in d {
            if k == "$text" {
                return true;
            }
            let ("$and" | "$or", Bson::Array(items)) = (k.as_str(), v) else {
                continue;
            };
            for (i, item) in items.iter().enumerate() {
                let Bson::Document(item) = item else { continue };
                if walk(item, out) {
                    if k == "$or" {
                        for (j, other) in items.iter().enumerate() {
                            if let (true, Bson::Document(o)) = (j != i, other) {
                                flatten_or(o, out);
                            }
                        }
                    }
                    return true;
                }
            }
        }
        false
    }
    fn flatten_or(d: &Document, out: &mut Vec<Document>) {
        match (d.len(), d.get("$or")) {
            (1, Some(Bson::Array(items))) => {
                for item in items {
                    if let Bson::Document(i) = item {
                        flatten_or(i, out);
                    }
                }
            }
            _ => out.push(d.clone()),
        }
    }
    if find_text(root).is_none() {
        return Ok(None);
    }
    let mut siblings = Vec::new();
    if !walk(filter, &mut siblings) || siblings.is_empty() {
        return Ok(None);
    }
    let text_is_root_or_clause = match (filter.len(), filter.get("$or")) {
        (1, Some(Bson::Array(items))) => items
            .iter()
            .any(|i| matches!(i, Bson::Document(d) if d.len() == 1 && d.contains_key("$text"))),
        _ => false,
    };
    let clauses = siblings
        .iter()
        .map(|s| Filter::compile(s, ctx))
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(TextInOr {
        clauses,
        text_is_root_or_clause,
    }))
}

fn find_text(n: &Node) -> Option<&TextNode> {
    match n {
        Node::Text(t) => Some(t),
        Node::And(c) | Node::Or(c) => c.iter().find_map(find_text),
        _ => None,
    }
}

fn find_text_mut(n: &mut Node) -> Option<&mut TextNode> {
    match n {
        Node::Text(t) => Some(t),
        Node::And(c) | Node::Or(c) => c.iter_mut().find_map(find_text_mut),
        _ => None,
    }
}

impl Filter {
    /// The filter's `$text` arguments, if it has one.
    pub fn text(&self) -> Option<&TextArgs> {
        find_text(&self.root).map(|t| &t.args)
    }

    /// Bind the `$text` query to its collection's text index.
    pub fn bind_text(&mut self, search: Search) {
        if let Some(t) = find_text_mut(&mut self.root) {
            t.search = Some(Box::new(search));
        }
    }

    /// The bound `$text` query.
    pub fn text_search(&self) -> Option<&Search> {
        find_text(&self.root).and_then(|t| t.search.as_deref())
    }
}
