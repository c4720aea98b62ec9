//! `find()` and its cursor chain: `.sort() .skip() .limit() .projection()`
//! in any order (applied as MongoDB does: sort, then skip, then limit), then
//! at most one terminal method (`toArray()`, `count()`, `itcount()`...).
//! See https://www.mongodb.com/docs/manual/reference/method/js-cursor/.
use super::count;
use super::find_args::FindArgs;
use super::text_find::TextFind;
use crate::aggregate::stages::geo_near;
use crate::engine::{Answer, Call, Session};
use crate::error::{Error, Result, Span};
use crate::expr::Scope;
use crate::index::explain::{self, FindShape, Verbosity};
use crate::index::plan::{plan, Executed};
use crate::index::scan::column_check;
use crate::projection::Projection;
use crate::query::sort::SortSpec;
use crate::value::column::Source;
use bson::{Bson, Document};

/// Methods that shape the result; any order, each at most meaningful once (the last wins).
const MODIFIERS: &[&str] = &[
    "sort",
    "skip",
    "limit",
    "projection",
    "hint",
    "comment",
    "maxTimeMS",
    "batchSize",
    "allowDiskUse",
    "noCursorTimeout",
    "readPref",
    "readConcern",
    "collation",
    "min",
    "max",
    "returnKey",
    "showRecordId",
    "tailable",
    "allowPartialResults",
];
/// Methods that end the chain and produce the statement's value.
const TERMINALS: &[&str] = &[
    "toArray", "pretty", "count", "size", "itcount", "hasNext", "next", "explain",
];
/// Methods that take a JavaScript function, which the playground does not run.
const JS_METHODS: &[(&str, &str)] = &[
    (
        "forEach",
        "return the documents (toArray()) or transform them with an aggregation $project / $set",
    ),
    ("map", "an aggregation pipeline with $project or $set"),
    ("filter", "a query filter or an aggregation $match"),
    ("reduce", "an aggregation $group"),
    ("close", "nothing: cursors close by themselves here"),
];

pub(super) fn find(
    session: &mut Session,
    coll: &str,
    first: &Call,
    rest: &[Call],
) -> Result<Answer> {
    first.max_args(3)?;
    let mut f = FindArgs::decode(first, &session.run).map_err(|e| e.at(first.span))?;
    let mut terminal: Option<&Call> = None;
    for call in rest {
        if let Some(t) = terminal {
            return Err(Error::bad_value(format!(
                "{}() cannot be chained after {}()",
                call.name, t.name
            ))
            .at(call.span));
        }
        let name = call.name.as_str();
        if MODIFIERS.contains(&name) {
            f.modify(call).map_err(|e| e.at(call.span))?;
        } else if TERMINALS.contains(&name) {
            terminal = Some(call);
        } else if let Some((_, instead)) = JS_METHODS.iter().find(|(m, _)| *m == name) {
            return Err(Error::not_supported(format!(
                "cursor.{name}() (it runs a JavaScript function); use {instead} instead"
            ))
            .at(call.span));
        } else {
            return Err(unknown_cursor_method(name, call.span));
        }
    }
    let Some(t) = terminal else {
        return f.run(session, coll).map(|found| found.answer(coll));
    };
    let out = match t.name.as_str() {
        "toArray" | "pretty" => {
            t.max_args(0)?;
            return f
                .run(session, coll)
                .map(|found| found.answer(coll))
                .map_err(|e| e.at(t.span));
        }
        "itcount" | "size" => {
            t.max_args(0)?;
            f.run(session, coll).map(|docs| count(docs.len()))
        }
        "count" => {
            t.max_args(1)?;
            // cursor.count() ignores skip and limit unless applySkipLimit is true.
            let apply = matches!(t.arg(0).map(|a| &a.value), Some(Bson::Boolean(true)));
            if !apply {
                f.skip = 0;
                f.limit = 0;
            }
            f.projection = None;
            f.sort = None;
            f.run(session, coll).map(|docs| count(docs.len()))
        }
        "hasNext" => {
            f.limit = 1;
            f.run(session, coll)
                .map(|docs| Bson::Boolean(!docs.is_empty()))
        }
        "next" => {
            f.limit = 1;
            match f.run(session, coll)?.first(session, coll) {
                Some(d) => Ok(Bson::Document(d)),
                None => Err(Error::cursor_not_found(
                    "Cursor is exhausted: next() found no document",
                )),
            }
        }
        "explain" => {
            t.max_args(1)?;
            let verbosity = crate::index::explain::verbosity(t.arg(0).map(|a| &a.value))?;
            f.explain(session, coll, verbosity)
        }
        other => Err(Error::not_supported(format!("{other}()"))),
    };
    out.map(Answer::Value).map_err(|e| e.at(t.span))
}

/// `findOne(filter, projection, options)`: the first match or null.
pub(super) fn find_one(session: &mut Session, coll: &str, call: &Call) -> Result<Bson> {
    call.max_args(3)?;
    let mut f = FindArgs::decode(call, &session.run)?;
    f.limit = 1;
    Ok(f.run(session, coll)?
        .first(session, coll)
        .map_or(Bson::Null, Bson::Document))
}

fn unknown_cursor_method(name: &str, span: Span) -> Error {
    let mut all: Vec<&str> = MODIFIERS
        .iter()
        .chain(TERMINALS)
        .copied()
        .filter(|m| {
            ![
                "min",
                "max",
                "returnKey",
                "showRecordId",
                "tailable",
                "allowPartialResults",
                "readPref",
                "readConcern",
                "noCursorTimeout",
            ]
            .contains(m)
        })
        .collect();
    crate::sorting::sort(&mut all);
    Error::bad_value(format!(
        "unknown cursor method {name}(); supported: {}",
        all.join(", ")
    ))
    .at(span)
}

impl FindArgs {
    fn run(&self, session: &Session, coll: &str) -> Result<Found> {
        if self.filter.text().is_some() {
            let (docs, explained) = self.text_find(session, coll, Verbosity::ExecutionStats)?;
            session.note_work(|| explained);
            return Ok(Found::Projected(docs));
        }
        let (out, ran) = self.execute(session, coll)?;
        session
            .note_work(|| self.describe(session, coll, out.len(), &ran, Verbosity::ExecutionStats));
        Ok(out)
    }

    /// Run the find and describe how (see `crate::index::explain`).
    fn explain(&self, session: &Session, coll: &str, verbosity: Verbosity) -> Result<Bson> {
        if self.filter.text().is_some() {
            return Ok(self.text_find(session, coll, verbosity)?.1);
        }
        let (out, ran) = self.execute(session, coll)?;
        Ok(self.describe(session, coll, out.len(), &ran, verbosity))
    }

    fn describe(
        &self,
        session: &Session,
        coll: &str,
        returned: usize,
        ran: &Executed,
        verbosity: Verbosity,
    ) -> Bson {
        let shape = FindShape {
            filter: &self.filter_doc,
            sort: self.sort.as_ref(),
            projection: self.projection.as_ref(),
            skip: self.skip,
            limit: self.limit,
        };
        let c = session.db.collection(coll);
        explain::find(
            c,
            coll,
            &shape,
            ran,
            returned,
            verbosity,
            self.hint.as_ref(),
        )
    }

    fn compile_projection(&self) -> Result<Option<Projection>> {
        Ok(match &self.projection {
            Some(p) if !p.is_empty() => Some(Projection::compile_for_find(
                p,
                Some(&self.filter_doc),
                &self.ctx,
            )?),
            _ => None,
        })
    }

    /// A `$text` find (see `text_find`).
    fn text_find(
        &self,
        session: &Session,
        coll: &str,
        verbosity: Verbosity,
    ) -> Result<(Vec<Document>, Bson)> {
        self.check_skip()?;
        let projection = self.compile_projection()?;
        let scope = Scope::new(&session.run).with_vars(self.let_vars.clone());
        TextFind {
            filter: &self.filter,
            filter_doc: &self.filter_doc,
            sort: self.sort.as_ref(),
            projection: projection.as_ref(),
            projection_doc: self.projection.as_ref(),
            skip: usize::try_from(self.skip).unwrap_or(usize::MAX),
            limit: usize::try_from(self.limit.unsigned_abs()).unwrap_or(usize::MAX),
        }
        .run(session.db, coll, &scope, verbosity)
    }

    fn check_skip(&self) -> Result<()> {
        if self.skip < 0 {
            return Err(Error::location(
                51024,
                format!(
                    "Skip value must be non-negative, but received: {}",
                    self.skip
                ),
            ));
        }
        Ok(())
    }

    /// Match, sort, skip, limit, then project only what is returned. The
    /// planner picks the candidates (an index scan or the collection).
    fn execute(&self, session: &Session, coll: &str) -> Result<(Found, Executed)> {
        self.check_skip()?;
        let projection = self.compile_projection()?;
        if self.sort.as_ref().is_some_and(SortSpec::uses_text_score)
            || projection.as_ref().is_some_and(Projection::uses_text_score)
        {
            return Err(crate::fts::score_unavailable());
        }
        let scope = Scope::new(&session.run).with_vars(self.let_vars.clone());
        let c = session.db.collection(coll);
        let plan = plan(c, &self.filter, self.sort.as_ref(), self.hint.as_ref())?;
        let skip = usize::try_from(self.skip).unwrap_or(usize::MAX);
        let limit = usize::try_from(self.limit.unsigned_abs()).unwrap_or(usize::MAX);
        // Without a sort, stop scanning once skip + limit documents matched.
        let near = match (self.filter.near(), c) {
            (Some((path, q)), Some(c)) => {
                crate::aggregate::stages::geo_near::near_index(c, path.dotted(), q)?;
                Some((path, q))
            }
            _ => None,
        };
        // After `$near`'s ordering, a sort re-orders the documents (so an
        // index's order does not stand in for it).
        let sorting = self.sort.as_ref().is_some_and(|s| !s.is_empty())
            && (!plan.provides_sort() || near.is_some());
        let enough = if !sorting && limit > 0 && near.is_none() {
            skip.saturating_add(limit)
        } else {
            usize::MAX
        };
        let mut matched: Vec<Matched> = Vec::new();
        // Exact index bounds answer the filter: the documents are not read
        // (a projection still needs the positional `$` match).
        let answered = projection.is_none() && plan.answers_exactly(&self.filter);
        let mut scan = plan.scan(c);
        // Scan columns where there are some, built when the collection is read whole.
        let whole = enough == usize::MAX && plan.index_plan().is_none();
        let mut columns = match answered {
            true => None,
            false => column_check(&self.filter, c, whole, projection.is_some()),
        };
        loop {
            if let (Some(k), Some(next)) = (columns.as_mut(), scan.forward_at()) {
                scan.pass_to(k.next_candidate(next));
            }
            let Some((at, d)) = scan.next_at() else {
                break;
            };
            let found = if answered {
                Some(None)
            } else {
                match columns.as_mut().and_then(|k| k.decide(at)) {
                    Some(hit) => hit.then_some(None),
                    None => self.filter.matches_at(d, &scope)?,
                }
            };
            if let Some(pos) = found {
                matched.push((at, d, pos));
                if matched.len() >= enough {
                    break;
                }
            }
        }
        let stats = scan.stats;
        if let Some((path, q)) = near {
            // `$near` keeps the documents within its distances, nearest first.
            let order = geo_near::nearest(matched.iter().map(|m| m.1).enumerate(), path, q);
            matched = order
                .into_iter()
                .filter_map(|(i, _, _)| matched.get(i).copied())
                .collect();
        }
        let n_matched = matched.len();
        if let Some(sort) = self.sort.as_ref().filter(|_| sorting) {
            // Only the first skip + limit in order are needed: a top-k selection.
            let first = (limit > 0).then(|| skip.saturating_add(limit));
            // Sort keys from scan columns when there are some, built when
            // most of the collection is sorted.
            let at: Vec<usize> = matched.iter().map(|m| m.0).collect();
            let build = whole && c.is_some_and(|c| at.len().saturating_mul(2) >= c.len());
            let mut column = |field: &str| {
                let source = Source::Path(field.to_string());
                c.and_then(|c| c.columns().for_scan(&source, c.docs(), build))
            };
            let order = match sort.order_by_columns(&at, first, &mut column) {
                Some(order) => order,
                None => {
                    let refs: Vec<&Document> = matched.iter().map(|m| m.1).collect();
                    sort.order(&refs, first)
                }
            };
            matched = order
                .into_iter()
                .filter_map(|i| matched.get(i).copied())
                .collect();
        }
        let take = if limit == 0 { usize::MAX } else { limit };
        let returned = matched.into_iter().skip(skip).take(take);
        // Without a projection the stored documents are the answer: named, not cloned.
        let out = match &projection {
            None => Found::Stored(returned.map(|m| m.0).collect()),
            Some(p) => Found::Projected(
                returned
                    .map(|(_, d, pos)| p.apply(d, pos, &scope))
                    .collect::<Result<_>>()?,
            ),
        };
        Ok((
            out,
            Executed {
                plan,
                stats,
                matched: n_matched,
            },
        ))
    }
}

/// A matching document: its position in the collection, itself, and its
/// positional `$` position.
type Matched<'a> = (usize, &'a Document, Option<usize>);

/// What a find returns: stored documents by position, or projected copies.
enum Found {
    Stored(Vec<usize>),
    Projected(Vec<Document>),
}

impl Found {
    fn len(&self) -> usize {
        match self {
            Found::Stored(p) => p.len(),
            Found::Projected(d) => d.len(),
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn answer(self, coll: &str) -> Answer {
        match self {
            Found::Stored(positions) => Answer::Stored {
                collection: coll.to_string(),
                positions,
            },
            Found::Projected(docs) => {
                Answer::Value(Bson::Array(docs.into_iter().map(Bson::Document).collect()))
            }
        }
    }

    /// The first document, owned.
    fn first(self, session: &Session, coll: &str) -> Option<Document> {
        match self {
            Found::Stored(p) => {
                let docs = session.db.collection(coll)?.docs();
                p.first().and_then(|&i| docs.get(i)).cloned()
            }
            Found::Projected(d) => d.into_iter().next(),
        }
    }
}
