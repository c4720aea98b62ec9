//! `count()` and `countDocuments()`: their arguments decoded once into
//! [`CountArgs`] (the checks of each, in the server's order), the count, and
//! [`CountRun`], what the count did, from which its work line is explained.
use super::{check_options, count, count_option, docs_of, filter_arg};
use crate::engine::{Call, Method, Session};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::index::plan::{Executed, ScanStats};
use crate::query::Filter;
use bson::{Bson, Document};

/// A count's arguments, typed.
#[derive(Clone, Debug, Default)]
pub(crate) struct CountArgs {
    /// The filter as written (explain shows it).
    pub filter_doc: Document,
    pub skip: usize,
    /// 0: no limit.
    pub limit: usize,
    pub hint: Option<Bson>,
    /// `skip`, `limit` and `hint` as written, for explain's `command`.
    pub written: Document,
}

/// What a count did: the plan, the scan's work, how many documents matched,
/// and the arguments it ran with.
pub(crate) struct CountRun {
    pub ran: Executed,
    pub matched: usize,
    pub args: CountArgs,
}

impl CountArgs {
    /// Decode `count(filter, options)` or `countDocuments(filter, options)`:
    /// the compiled filter and the typed arguments.
    pub fn decode(call: &Call, method: Method) -> Result<(Filter, CountArgs)> {
        call.max_args(2)?;
        let filter = filter_arg(call, 0, &CompileCtx::default())?;
        let empty = Document::new();
        let opts = call.doc_arg(1, "options")?.unwrap_or(&empty);
        if method == Method::CountDocuments {
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
        } else {
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
        }
        let filter_doc = call.doc_arg(0, "filter")?.unwrap_or(&empty).clone();
        let skip = count_option(opts, "skip")?.unwrap_or(0);
        if skip < 0 {
            return Err(Error::location(
                51024,
                format!("Skip value must be non-negative, but received: {skip}"),
            ));
        }
        let limit = count_option(opts, "limit")?.unwrap_or(0).unsigned_abs();
        let args = CountArgs {
            filter_doc,
            skip: usize::try_from(skip).unwrap_or(usize::MAX),
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            hint: opts.get("hint").cloned(),
            written: written(opts),
        };
        Ok((filter, args))
    }
}

/// `skip`, `limit` and `hint` as the options wrote them.
fn written(opts: &Document) -> Document {
    let mut out = Document::new();
    for k in ["skip", "limit", "hint"] {
        if let Some(x) = opts.get(k) {
            out.insert(k, x.clone());
        }
    }
    out
}

/// Count matches, then apply skip and limit (limit 0 = none; a negative limit counts as its size).
pub(super) fn count_matches(
    session: &Session,
    coll: &str,
    filter: &Filter,
    args: CountArgs,
) -> Result<(Bson, CountRun)> {
    let scope = Scope::new(&session.run);
    let hint = args.hint.as_ref();
    let c = session.db.collection(coll);
    let filter = &crate::index::text::bind(filter, Some(&args.filter_doc), c)?;
    let plan = crate::index::plan::plan(c, filter, None, hint)?;
    let (matched, stats) = if args.filter_doc.is_empty() && hint.is_none() {
        // The collection's own count: nothing is scanned.
        (docs_of(session, coll).len(), ScanStats::default())
    } else {
        let mut n = 0;
        let mut scan = plan.scan(c);
        let whole = plan.index_plan().is_none();
        let mut columns = crate::index::scan::column_check(filter, c, whole, false);
        loop {
            // The columns count what they decide; the scan reads the rest.
            if let (Some(k), Some(next)) = (columns.as_mut(), scan.forward_at()) {
                let (yes, undecided) = k.count_to_undecided(next);
                n += yes;
                scan.pass_to(undecided);
            }
            let Some((at, d)) = scan.next_at() else {
                break;
            };
            let hit = match columns.as_mut().and_then(|k| k.decide(at)) {
                Some(hit) => hit,
                None => filter.matches(d, &scope)?,
            };
            if hit {
                n += 1;
            }
        }
        (n, scan.stats)
    };
    let mut n = matched.saturating_sub(args.skip);
    if args.limit > 0 {
        n = n.min(args.limit);
    }
    let run = CountRun {
        ran: Executed {
            plan,
            stats,
            matched,
        },
        matched,
        args,
    };
    Ok((count(n), run))
}
