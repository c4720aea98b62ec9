//! `$text` in a filter: the one node that calls into `crate::fts`. It is
//! compiled without its collection and bound to the collection's text index
//! before it runs. See https://www.mongodb.com/docs/manual/reference/operator/query/text/.
use super::matcher::Node;
use super::Filter;
use crate::error::{Error, Result};
use crate::fts::{Search, TextArgs};
use bson::Document;

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

/// At most one `$text`, never under `$nor`, and (the playground has no
/// index union) never under `$or`.
pub(super) fn check_placement(root: &Node) -> Result<()> {
    fn count(n: &Node, under_nor: bool, under_or: bool) -> Result<usize> {
        Ok(match n {
            Node::Text(_) if under_nor => {
                return Err(Error::bad_value("text expression not allowed in nor"))
            }
            Node::Text(_) if under_or => {
                return Err(Error::new(
                    291,
                    "NoQueryExecutionPlans",
                    "error processing query: planner returned error :: caused by :: Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well.",
                ))
            }
            Node::Text(_) => 1,
            Node::And(c) => c
                .iter()
                .map(|c| count(c, under_nor, under_or))
                .sum::<Result<usize>>()?,
            Node::Or(c) => c
                .iter()
                .map(|c| count(c, under_nor, true))
                .sum::<Result<usize>>()?,
            Node::Nor(c) => c
                .iter()
                .map(|c| count(c, true, under_or))
                .sum::<Result<usize>>()?,
            _ => 0,
        })
    }
    if count(root, false, false)? > 1 {
        return Err(Error::bad_value("Too many text expressions"));
    }
    Ok(())
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
