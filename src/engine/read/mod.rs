//! Read methods: find (a cursor, see `cursor`), findOne, countDocuments,
//! estimatedDocumentCount, count, distinct.
mod cursor;

use super::explain::CountRun;
use super::{Answer, Call, Command, Method, Session};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::index::plan::{Executed, ScanStats};
use crate::query::Filter;
use crate::text::shell::type_name;
use crate::value::numeric::to_i64_exact;
use crate::value::path::{FieldPath, LeafArrays};
use crate::value::OrdBson;
use bson::{Bson, Document};
use std::collections::BTreeSet;

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
        Method::CountDocuments => count_documents(session, coll, first).map(&mut keep),
        Method::EstimatedDocumentCount => {
            first.max_args(1)?;
            first.doc_arg(0, "options")?;
            Ok(count(docs_of(session, coll).len()))
        }
        Method::Count => legacy_count(session, coll, first).map(&mut keep),
        Method::Distinct => distinct(session, coll, first).map(|(values, field, ran)| {
            distinct_run = Some((field, ran));
            values
        }),
        other => Err(Error::not_supported(format!("{}()", other.name())).at(first.span)),
    }
    .map_err(|e| e.at(first.span))?;
    if let Some(run) = counted {
        session.note_work(|| super::explain::of_count(session, coll, first, run));
    } else if let Some((field, ran)) = distinct_run {
        session.note_work(|| super::explain::of_distinct(session, coll, first, &field, &ran));
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

/// Count matches, then apply skip and limit (limit 0 = none; a negative limit counts as its size).
fn count_matches(
    session: &Session,
    coll: &str,
    filter: &Filter,
    filter_doc: &Document,
    opts: &Document,
) -> Result<(Bson, CountRun)> {
    let skip = count_option(opts, "skip")?.unwrap_or(0);
    if skip < 0 {
        return Err(Error::location(
            51024,
            format!("Skip value must be non-negative, but received: {skip}"),
        ));
    }
    let limit = count_option(opts, "limit")?.unwrap_or(0).unsigned_abs();
    let scope = Scope::new(&session.run);
    let hint = opts.get("hint");
    let c = session.db.collection(coll);
    let plan = crate::index::plan::plan(c, filter_doc, None, hint)?;
    let (matched, stats) = if filter_doc.is_empty() && hint.is_none() {
        // The collection's own count: nothing is scanned.
        (docs_of(session, coll).len(), ScanStats::default())
    } else {
        let mut n = 0;
        let mut scan = plan.scan(c);
        for d in scan.by_ref() {
            if filter.matches(d, &scope)? {
                n += 1;
            }
        }
        (n, scan.stats)
    };
    let skip = usize::try_from(skip).unwrap_or(usize::MAX);
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut n = matched.saturating_sub(skip);
    if limit > 0 {
        n = n.min(limit);
    }
    let run = CountRun {
        ran: Executed {
            plan,
            stats,
            matched,
        },
        matched,
        skip,
        limit,
    };
    Ok((count(n), run))
}

/// `countDocuments(filter, {skip, limit, hint, maxTimeMS})`.
fn count_documents(session: &Session, coll: &str, call: &Call) -> Result<(Bson, CountRun)> {
    call.max_args(2)?;
    let filter = filter_arg(call, 0, &CompileCtx::default())?;
    let empty = Document::new();
    let opts = call.doc_arg(1, "options")?.unwrap_or(&empty);
    check_options(opts, &["skip", "limit", "hint", "maxTimeMS", "comment"])?;
    // mongosh's driver runs countDocuments as a pipeline, `{$skip}` and
    // `{$limit}` included, so their stages' rules apply: `limit: 0` or a
    // negative limit is "the limit must be positive" (15958).
    use crate::aggregate::stages::simple;
    use crate::value::numeric::is_number;
    if let Some(v) = opts.get("skip").filter(|v| is_number(v)) {
        simple::skip(v)?;
    }
    if let Some(v) = opts.get("limit").filter(|v| is_number(v)) {
        simple::limit(v)?;
    }
    let filter_doc = call.doc_arg(0, "filter")?.unwrap_or(&empty);
    count_matches(session, coll, &filter, filter_doc, opts)
}

/// Legacy `count(filter, {skip, limit})`.
fn legacy_count(session: &Session, coll: &str, call: &Call) -> Result<(Bson, CountRun)> {
    call.max_args(2)?;
    let filter = filter_arg(call, 0, &CompileCtx::default())?;
    let empty = Document::new();
    let opts = call.doc_arg(1, "options")?.unwrap_or(&empty);
    check_options(
        opts,
        &[
            "skip",
            "limit",
            "hint",
            "maxTimeMS",
            "comment",
            "readConcern",
        ],
    )?;
    let filter_doc = call.doc_arg(0, "filter")?.unwrap_or(&empty);
    count_matches(session, coll, &filter, filter_doc, opts)
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

/// `distinct(field, filter)`: the distinct values at a path, array elements
/// counted separately, in BSON order. See
/// https://www.mongodb.com/docs/manual/reference/method/db.collection.distinct/.
fn distinct(session: &Session, coll: &str, call: &Call) -> Result<(Bson, String, Executed)> {
    call.max_args(3)?;
    let field = match call.arg(0).map(|a| &a.value) {
        Some(Bson::String(s)) => s.clone(),
        Some(v) => {
            return Err(Error::type_mismatch(format!(
                "BSON field 'distinct.key' is the wrong type '{}', expected type 'string'",
                type_name(v)
            )))
        }
        None => return Err(Error::bad_value("distinct() needs a field name")),
    };
    if field.is_empty() || field.starts_with('$') {
        return Err(Error::bad_value(format!(
            "distinct field name cannot be empty or start with '$': '{field}'"
        )));
    }
    let filter = filter_arg(call, 1, &CompileCtx::default())?;
    let empty = Document::new();
    let opts = call.doc_arg(2, "options")?.unwrap_or(&empty);
    check_options(opts, &["maxTimeMS", "comment", "hint"])?;
    let path = FieldPath::new(&field);
    let scope = Scope::new(&session.run);
    let mut seen: BTreeSet<OrdBson> = BTreeSet::new();
    let c = session.db.collection(coll);
    let filter_doc = call.doc_arg(1, "filter")?.unwrap_or(&empty);
    let plan = crate::index::plan::plan(c, filter_doc, None, opts.get("hint"))?;
    let mut matched = 0;
    let mut scan = plan.scan(c);
    for d in scan.by_ref() {
        if !filter.matches(d, &scope)? {
            continue;
        }
        matched += 1;
        path.visit(d, LeafArrays::TraverseOmitArray, &mut |v, _| {
            if let Some(v) = v {
                seen.insert(OrdBson(v.clone()));
            }
            false
        });
    }
    let stats = scan.stats;
    // The set is ordered by MongoDB's comparison and deduplicated by its equality.
    let values = Bson::Array(seen.into_iter().map(|o| o.0).collect());
    Ok((
        values,
        field,
        Executed {
            plan,
            stats,
            matched,
        },
    ))
}
