//! explain() of `distinct`: PROJECTION_SIMPLE over the access plan; the
//! page's work line of a distinct.
use super::super::read::DistinctArgs;
use super::super::{Call, Database, Session};
use super::{execute_all, rejected, wrap};
use crate::error::Result;
use crate::index::explain::{access, parsed_query, stage, Counters, Verbosity};
use crate::index::plan::Executed;
use bson::{doc, Bson, Document};

/// A count or distinct's explain("executionStats"), for the page's "work
/// done" line (`Null` when it cannot be explained). `countDocuments` is
/// explained as the count it amounts to.
pub(crate) fn of_distinct(
    session: &Session,
    coll: &str,
    args: &DistinctArgs,
    ran: &Executed,
) -> Bson {
    distinct_explained(
        session,
        coll,
        &args.field,
        &args.filter_doc,
        Verbosity::ExecutionStats,
        ran,
    )
}

/// `distinct(field, filter)`: the projection of the field over the access plan.
pub(super) fn distinct(session: &Session, coll: &str, call: &Call, v: Verbosity) -> Result<Bson> {
    // The same arguments, with the same checks, as the distinct itself.
    let (_, args) = DistinctArgs::decode(call)?;
    let (_, ran) = execute_all(session, coll, &args.filter_doc, args.hint.as_ref())?;
    Ok(distinct_explained(
        session,
        coll,
        &args.field,
        &args.filter_doc,
        v,
        &ran,
    ))
}

/// The explain of a distinct from an execution of its filter.
fn distinct_explained(
    session: &Session,
    coll: &str,
    field: &str,
    filter_doc: &Document,
    v: Verbosity,
    ran: &Executed,
) -> Bson {
    let ns = Database::namespace(coll);
    let c = session.db.collection(coll);
    let transform = doc! { field: 1, "_id": 0 };
    let tree = |exec: bool| {
        let input = access(
            c,
            &ran.plan.access,
            &ran.plan,
            exec.then_some((&ran.stats, ran.matched)),
        );
        let counters = exec.then_some(Counters {
            returned: ran.matched,
            works: input.1,
            eof: true,
        });
        stage(
            "PROJECTION_SIMPLE",
            None,
            counters,
            doc! { "transformBy": transform.clone() },
            Some(input.0),
        )
    };
    let command = doc! { "distinct": coll, "key": field, "query": filter_doc.clone(), "$db": Database::current_name() };
    wrap(
        &ns,
        parsed_query(&ran.plan),
        tree(false),
        rejected(c, &ran.plan),
        (v >= Verbosity::ExecutionStats).then(|| (ran.matched, ran, tree(true))),
        command,
    )
}
