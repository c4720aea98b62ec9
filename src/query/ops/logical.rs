//! `$and $or $nor` (top level) and `$not` (on a path).
//! See https://www.mongodb.com/docs/manual/reference/operator/query-logical/.
use super::evaluation::RegexPred;
use crate::error::{Error, Result};
use crate::query::conjuncts::{Clauses, Recorder};
use crate::query::filter::{Level, Parser};
use crate::query::matcher::{and, Node, Pred};
use bson::Bson;

/// `$and/$or/$nor: [query, ...]`: a non-empty array of documents.
pub(crate) fn compile_tree(
    parser: &Parser,
    name: &str,
    arg: &Bson,
    level: Level,
    rec: Option<&mut Recorder>,
) -> Result<Node> {
    let Bson::Array(items) = arg else {
        return Err(Error::bad_value(format!("{name} must be an array")));
    };
    if items.is_empty() {
        return Err(Error::bad_value("$and/$or/$nor must be a nonempty array"));
    }
    // `$and`'s clauses are top-level conjuncts; a one-clause `$or` seeds upserts.
    let mut rec = match (rec, Recorder::clauses(name, items.len())) {
        (Some(r), Clauses::Same) => Some((r, false)),
        (Some(r), Clauses::SeedOnly) => Some((r, true)),
        _ => None,
    };
    let mut children = Vec::with_capacity(items.len());
    for item in items {
        let Bson::Document(d) = item else {
            return Err(Error::bad_value(
                "$or/$and/$nor entries need to be full objects",
            ));
        };
        children.push(match rec.as_mut() {
            Some((r, seed_only)) => {
                r.within(*seed_only, |r| parser.parse_recorded(d, level, Some(r)))?
            }
            None => parser.parse_doc(d, level)?,
        });
    }
    Ok(match name {
        "$and" => and(children),
        "$or" => Node::Or(children),
        _ => Node::Nor(children),
    })
}

/// `$not: /re/` or `$not: {operators}`: negates the whole path match, so
/// `{price: {$not: {$gt: 1.99}}}` also matches documents without `price`.
pub(crate) fn compile_not(parser: &Parser, path: &str, arg: &Bson) -> Result<Pred> {
    match arg {
        Bson::RegularExpression(re) => Ok(Pred::Not(vec![Pred::Regex(Box::new(
            RegexPred::compile(re.pattern.as_str(), re.options.as_str())?,
        ))])),
        Bson::Document(d) => {
            if d.is_empty() {
                return Err(Error::bad_value("$not cannot be empty"));
            }
            Ok(Pred::Not(parser.parse_ops(path, d)?))
        }
        _ => Err(Error::bad_value("$not needs a regex or a document")),
    }
}
