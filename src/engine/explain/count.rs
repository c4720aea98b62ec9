//! explain() of `count` and `countDocuments`: COUNT over the access plan,
//! COUNT_SCAN or RECORD_STORE_FAST_COUNT; the page's work line of a count.
use super::super::read::{CountArgs, CountRun};
use super::super::{Call, Database, Method, Session};
use super::{execute_all, rejected, wrap};
use crate::error::Result;
use crate::index::explain::{access, index_fields, num, parsed_query, stage, Counters, Verbosity};
use crate::index::plan::{ranges, Executed};
use crate::storage::Collection;
use bson::{doc, Bson, Document};
use std::ops::Bound;

/// The work line of a count that has run: its explain("executionStats") from
/// that very run.
pub(crate) fn of_count(session: &Session, coll: &str, run: CountRun) -> Bson {
    counted_explain(session, coll, Verbosity::ExecutionStats, run).unwrap_or(Bson::Null)
}

/// `count(filter, {skip, limit, hint})`: COUNT over the access plan, COUNT_SCAN
/// when one index range answers the filter exactly, RECORD_STORE_FAST_COUNT
/// without a filter.
pub(super) fn count(session: &Session, coll: &str, call: &Call, v: Verbosity) -> Result<Bson> {
    // The same arguments, with the same checks, as the count itself.
    let (_, args) = CountArgs::decode(call, Method::Count)?;
    let (docs, ran) = execute_all(session, coll, &args.filter_doc, args.hint.as_ref())?;
    let counted = CountRun {
        ran,
        matched: docs.len(),
        args,
    };
    counted_explain(session, coll, v, counted)
}

/// The explain of a count from the count's own execution (nothing is scanned again).
fn counted_explain(session: &Session, coll: &str, v: Verbosity, run: CountRun) -> Result<Bson> {
    let ns = Database::namespace(coll);
    let c = session.db.collection(coll);
    let CountRun {
        mut ran,
        matched,
        args,
    } = run;
    let (filter_doc, skip, limit, hint) =
        (&args.filter_doc, args.skip, args.limit, args.hint.as_ref());
    let mut command = doc! { "count": coll, "query": filter_doc.clone() };
    command.extend(args.written.clone());
    command.insert("$db", Database::current_name());
    let with_exec = v >= Verbosity::ExecutionStats;
    let fast = filter_doc.is_empty() && hint.is_none() && c.is_some();
    if fast {
        // The count comes from the collection's metadata: nothing is scanned.
        ran.stats = Default::default();
    }
    let mut counted = matched.saturating_sub(skip);
    if limit != 0 {
        counted = counted.min(limit);
    }
    let parsed = parsed_query(&ran.plan);
    let count_fields = |d: &mut Document| {
        d.insert("nCounted", num(counted));
        d.insert("nSkipped", num(matched.min(skip)));
    };
    if fast {
        let winning = doc! { "stage": "RECORD_STORE_FAST_COUNT" };
        let mut stages = stage(
            "RECORD_STORE_FAST_COUNT",
            None,
            Some(Counters {
                returned: 0,
                works: 1,
                eof: true,
            }),
            Document::new(),
            None,
        );
        count_fields(&mut stages);
        return Ok(wrap(
            &ns,
            parsed,
            winning,
            Vec::new(),
            with_exec.then_some((0, &ran, stages)),
            command,
        ));
    }
    if count_scan(c, &ran, false).is_some() {
        // COUNT_SCAN counts index keys and fetches no document.
        ran.stats.docs_examined = 0;
    }
    let input = |exec: bool| match count_scan(c, &ran, exec) {
        Some(d) => d,
        None => {
            access(
                c,
                &ran.plan.access,
                &ran.plan,
                exec.then_some((&ran.stats, ran.matched)),
            )
            .0
        }
    };
    let winning = stage("COUNT", None, None, Document::new(), Some(input(false)));
    let mut fields = Document::new();
    count_fields(&mut fields);
    let works = ran.stats.keys_examined.max(ran.stats.docs_examined) + 1;
    let stages = stage(
        "COUNT",
        None,
        Some(Counters {
            returned: 0,
            works,
            eof: true,
        }),
        fields,
        Some(input(true)),
    );
    Ok(wrap(
        &ns,
        parsed,
        winning,
        rejected(c, &ran.plan),
        with_exec.then_some((0, &ran, stages)),
        command,
    ))
}

/// COUNT_SCAN: the index alone answers the count (exact bounds, one range,
/// no arrays), so no document is fetched.
fn count_scan(c: Option<&Collection>, ran: &Executed, exec: bool) -> Option<Document> {
    let p = ran.plan.index_plan()?;
    let ix = c?.indexes().iter().nth(p.index)?;
    let exact = p.exact.iter().all(|e| *e) && ran.plan.operators.is_empty();
    if !exact || ix.is_multikey() || ix.spec.partial.is_some() || ix.spec.sparse {
        return None;
    }
    let rs = ranges(ix, p);
    let [(lo, hi)] = rs.as_slice() else {
        return None;
    };
    let names = ix.spec.field_names();
    let key_doc = |b: &Bound<(crate::storage::index::key::Key, u64)>| -> (Document, bool) {
        match b {
            Bound::Included((k, _)) | Bound::Excluded((k, _)) => (
                names.iter().cloned().zip(k.vals.iter().cloned()).collect(),
                matches!(b, Bound::Included(_)),
            ),
            Bound::Unbounded => (Document::new(), true),
        }
    };
    let (start, start_inc) = key_doc(lo);
    let (end, end_inc) = key_doc(hi);
    let mut fields = index_fields(ix);
    fields.insert(
        "indexBounds",
        doc! { "startKey": start, "startKeyInclusive": start_inc, "endKey": end, "endKeyInclusive": end_inc },
    );
    let counters = exec.then(|| {
        fields.insert("keysExamined", num(ran.stats.keys_examined));
        Counters {
            returned: 0,
            works: ran.stats.keys_examined + 1,
            eof: true,
        }
    });
    Some(stage("COUNT_SCAN", None, counters, fields, None))
}
