//! explain() of a pipeline that starts with a `$text` match: the text plan
//! under `$cursor`, then the other stages as written.
use super::super::{Database, Session};
use crate::error::Result;
use crate::expr::{CompileCtx, Scope};
use crate::index::explain::Verbosity;
use crate::query::Filter;
use bson::{doc, Bson, Document};

pub fn aggregate(session: &Session, coll: &str, stages: &[Bson], v: Verbosity) -> Result<Bson> {
    let filter_doc = match stages.first() {
        Some(Bson::Document(d)) => d.get_document("$match").cloned().unwrap_or_default(),
        _ => Document::new(),
    };
    let c = session.db.collection(coll);
    let filter = Filter::compile(&filter_doc, &CompileCtx::default())?;
    let filter = crate::index::text::bind(&filter, Some(&filter_doc), c)?;
    let Some(search) = filter.text_search() else {
        return Ok(Bson::Null);
    };
    let scope = Scope::new(&session.run);
    let scanned = crate::index::text::scan(&filter, c, &scope)?;
    let wants_score = stages.iter().skip(1).any(crate::fts::asks_text_score);
    let plan = crate::index::text::with_or_clauses(
        &filter,
        c,
        crate::index::text::winning_plan(search, wants_score),
    )?;
    let exec = (v >= Verbosity::ExecutionStats).then_some((
        scanned.matched.len(),
        scanned.keys_examined,
        scanned.docs_examined,
    ));
    let command = doc! { "aggregate": coll, "pipeline": stages.to_vec(), "explain": true, "cursor": {}, "$db": Database::current_name() };
    let ns = Database::namespace(coll);
    let mut explained = crate::index::text::explain(&ns, &filter_doc, plan, exec, command.clone());
    if stages.len() == 1 {
        return Ok(Bson::Document(explained));
    }
    explained.remove("explainVersion");
    explained.remove("command");
    explained.remove("ok");
    let mut out_stages = vec![Bson::Document(doc! { "$cursor": explained })];
    out_stages.extend(stages.iter().skip(1).cloned());
    Ok(Bson::Document(doc! {
        "explainVersion": "1",
        "stages": out_stages,
        "command": command,
        "ok": 1,
    }))
}
