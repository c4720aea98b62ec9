//! explain() of `distinct`: PROJECTION_SIMPLE over the access plan; the
//! page's work line of a distinct.
use super::super::read::DistinctArgs;
use super::super::{Call, Database, Session};
use super::{execute, rejected, wrap};
use crate::error::{Error, Result};
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
    call.max_args(3)?;
    let Some(Bson::String(field)) = call.arg(0).map(|a| &a.value) else {
        return Err(Error::type_mismatch(
            "distinct() needs a field name (a string)",
        ));
    };
    let empty = Document::new();
    let filter_doc = call.doc_arg(1, "filter")?.unwrap_or(&empty);
    let opts = call.doc_arg(2, "options")?.unwrap_or(&empty);
    let c = session.db.collection(coll);
    let (_, ran) = execute(
        c,
        filter_doc,
        None,
        opts.get("hint"),
        &session.run,
        usize::MAX,
    )?;
    Ok(distinct_explained(
        session, coll, field, filter_doc, v, &ran,
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
    let command =
        doc! { "distinct": coll, "key": field, "query": filter_doc.clone(), "$db": Database::current_name() };
    wrap(
        &ns,
        parsed_query(&ran.plan),
        tree(false),
        rejected(c, &ran.plan),
        (v >= Verbosity::ExecutionStats).then(|| (ran.matched, ran, tree(true))),
        command,
    )
}
