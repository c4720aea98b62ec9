//! Read methods: find (a cursor, see `cursor`), findOne, countDocuments,
//! estimatedDocumentCount, count, distinct.
mod count;
mod cursor;
mod distinct;
mod text_find;

pub(super) use count::{written, CountArgs, CountRun};
pub(super) use distinct::DistinctArgs;

use super::{Answer, Call, Command, Method, Session};
use crate::error::{Error, Result};
use crate::expr::CompileCtx;
use crate::query::Filter;
use crate::text::shell::type_name;
use crate::value::numeric::to_i64_exact;
use bson::{Bson, Document};

pub fn run(session: &mut Session, cmd: &Command) -> Result<Answer> {
    let (coll, first, rest) = (cmd.collection, cmd.call, cmd.modifiers);
    let mut counted = None;
    let mut distinct_run = None;
    let mut keep = |(n, run)| {
        counted = Some(run);
        n
    };
    let result = match cmd.method {
        Method::Find => return cursor::find(session, coll, first, rest),
        Method::FindOne => cursor::find_one(session, coll, first),
        Method::CountDocuments | Method::Count => CountArgs::decode(first, cmd.method)
            .and_then(|(filter, args)| count::count_matches(session, coll, &filter, args))
            .map(&mut keep),
        Method::EstimatedDocumentCount => {
            first.max_args(1)?;
            first.doc_arg(0, "options")?;
            Ok(count(docs_of(session, coll).len()))
        }
        Method::Distinct => DistinctArgs::decode(first).and_then(|(filter, args)| {
            let (values, ran) = distinct::distinct(session, coll, &filter, &args)?;
            distinct_run = Some((args, ran));
            Ok(values)
        }),
        other => Err(Error::not_supported(format!("{}()", other.name())).at(first.span)),
    }
    .map_err(|e| e.at(first.span))?;
    if let Some(run) = counted {
        session.note_work(|| super::explain::of_count(session, coll, run));
    } else if let Some((args, ran)) = distinct_run {
        session.note_work(|| super::explain::of_distinct(session, coll, &args, &ran));
    }
    if let Some(c) = rest.first() {
        let what = if cmd.method == Method::FindOne {
            "a document"
        } else {
            "a value"
        };
        return Err(Error::bad_value(format!(
            "{}() cannot be chained after {}(): it returns {what}, not a cursor",
            c.name, first.name
        ))
        .at(c.span));
    }
    Ok(Answer::Value(result))
}

/// Counts print as plain numbers: Int32 when they fit.
pub fn count(n: usize) -> Bson {
    i32::try_from(n).map_or(Bson::Int64(n as i64), Bson::Int32)
}

fn docs_of<'s>(session: &'s Session, coll: &str) -> &'s [Document] {
    session.db.collection(coll).map(|c| c.docs()).unwrap_or(&[])
}

/// The filter argument at `i` (absent or null = everything).
fn filter_arg(call: &Call, i: usize, ctx: &CompileCtx) -> Result<Filter> {
    let empty = Document::new();
    let spec = call.doc_arg(i, "filter")?.unwrap_or(&empty);
    Filter::compile(spec, ctx).map_err(|e| match call.arg(i) {
        Some(a) => e.at(a.span),
        None => e,
    })
}

/// A non-negative count argument (`skip`, `limit` in options).
fn count_option(opts: &Document, name: &str) -> Result<Option<i64>> {
    match opts.get(name) {
        None | Some(Bson::Null) => Ok(None),
        Some(v) => match to_i64_exact(v) {
            Some(n) => Ok(Some(n)),
            None => Err(Error::type_mismatch(format!(
                "{name} must be a whole number, got {}",
                type_name(v)
            ))),
        },
    }
}

/// Options we accept (indexes, timeouts and comments change nothing here).
fn check_options(opts: &Document, allowed: &[&str]) -> Result<()> {
    for key in opts.keys() {
        // Read by the engine for the whole command (engine::collation).
        if key == "collation" {
            continue;
        }
        if !allowed.contains(&key.as_str()) {
            return Err(Error::bad_value(format!(
                "unknown option {key}; supported: {}",
                allowed.join(", ")
            )));
        }
    }
    Ok(())
}
