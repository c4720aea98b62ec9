//! deleteOne, deleteMany and the legacy remove().
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.deleteMany/
use super::super::{Call, Method, Session};
use super::exec::{self, Target};
use super::options;
use crate::error::Result;
use crate::query::Filter;
use bson::{Bson, Document};

pub fn run(session: &mut Session, coll: &str, call: &Call, m: Method) -> Result<Bson> {
    let method = m.name();
    call.max_args(2)?;
    let filter_doc = options::required_doc(call, 0, method, "filter")?;
    // remove(query, justOne): a boolean, or options whose justOne mongosh
    // reads by truthiness; anything else spreads to no options (deleteMany).
    let (opts_doc, just_one) = match call.arg(1).map(|a| &a.value) {
        Some(Bson::Boolean(b)) if m == Method::Remove => (None, *b),
        Some(Bson::Document(d)) if m == Method::Remove => {
            (Some(d), d.get("justOne").is_some_and(options::truthy))
        }
        Some(_) if m == Method::Remove => (None, false),
        _ => (call.doc_arg(1, "options")?, false),
    };
    let opts = options::parse(opts_doc, &session.run).map_err(|e| e.at(call.span))?;
    let ctx = opts.compile_ctx();
    let filter_span = call.arg(0).map_or(call.span, |a| a.span);
    let filter = Filter::compile_find(filter_doc, &ctx).map_err(|e| e.at(filter_span))?;
    let filter = crate::index::text::bind(&filter, Some(filter_doc), session.db.collection(coll))
        .map_err(|e| e.at(filter_span))?;
    let multi = m == Method::DeleteMany || (m == Method::Remove && !just_one);
    let scope = opts.scope(&session.run);
    let target = Target {
        filter: &filter,
        sort: None,
        multi,
        command: "delete",
        bypass: false,
    };
    let removed = exec::delete(session.db, coll, &target, &scope).map_err(|e| e.at(call.span))?;
    Ok(delete_result(removed.len()))
}

pub fn delete_result(n: usize) -> Bson {
    let mut d = Document::new();
    d.insert("acknowledged", true);
    d.insert("deletedCount", exec::count(n));
    Bson::Document(d)
}
