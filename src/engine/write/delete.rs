//! deleteOne, deleteMany and the legacy remove().
//! https://www.mongodb.com/docs/manual/reference/method/db.collection.deleteMany/
use super::super::{Call, Method, Session};
use super::delete_args::DeleteArgs;
use super::exec::{self, Target};
use crate::error::Result;
use crate::query::Filter;
use bson::{Bson, Document};

pub fn run(session: &mut Session, coll: &str, call: &Call, m: Method) -> Result<Bson> {
    let DeleteArgs {
        filter: filter_doc,
        filter_span,
        opts,
        multi,
    } = DeleteArgs::decode(call, m, &session.run)?;
    let ctx = opts.compile_ctx();
    let filter = Filter::compile_find(&filter_doc, &ctx).map_err(|e| e.at(filter_span))?;
    let filter = crate::index::text::bind(&filter, Some(&filter_doc), session.db.collection(coll))
        .map_err(|e| e.at(filter_span))?;
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
