//! `find()` with `$text`: matched over the collection's text index, each
//! document carrying its score to the sort and the projection that ask for
//! `{$meta: "textScore"}`. See https://www.mongodb.com/docs/manual/reference/operator/query/text/.
use crate::error::Result;
use crate::expr::Scope;
use crate::index::explain::Verbosity;
use crate::index::text::{
    bind, explain, scan, strip_score, winning_plan, with_or_clauses, with_score,
};
use crate::projection::Projection;
use crate::query::sort::SortSpec;
use crate::query::Filter;
use crate::storage::Database;
use bson::{doc, Bson, Document};

pub(super) struct TextFind<'a> {
    pub filter: &'a Filter,
    pub filter_doc: &'a Document,
    pub sort: Option<&'a SortSpec>,
    pub projection: Option<&'a Projection>,
    pub projection_doc: Option<&'a Document>,
    pub skip: usize,
    /// 0 = no limit.
    pub limit: usize,
}

impl TextFind<'_> {
    /// The documents and the explain of what was done.
    pub(super) fn run(
        &self,
        db: &Database,
        coll: &str,
        scope: &Scope,
        verbosity: Verbosity,
    ) -> Result<(Vec<Document>, Bson)> {
        let c = db.collection(coll);
        let filter = bind(self.filter, Some(self.filter_doc), c)?;
        let Some(search) = filter.text_search() else {
            return Ok((Vec::new(), Bson::Null));
        };
        let scanned = scan(&filter, c, scope)?;
        let mut matched = Vec::with_capacity(scanned.matched.len());
        for (d, pos) in &scanned.matched {
            matched.push((with_score(d, search)?, *pos));
        }
        if let Some(sort) = self.sort.filter(|s| !s.is_empty()) {
            let order = {
                let refs: Vec<&Document> = matched.iter().map(|m| &m.0).collect();
                sort.order(&refs, None)
            };
            let mut slots: Vec<Option<(Document, Option<usize>)>> =
                matched.into_iter().map(Some).collect();
            matched = order
                .into_iter()
                .filter_map(|i| slots.get_mut(i).and_then(Option::take))
                .collect();
        }
        let take = if self.limit == 0 {
            usize::MAX
        } else {
            self.limit
        };
        let mut out = Vec::new();
        for (d, pos) in matched.into_iter().skip(self.skip).take(take) {
            let mut d = match self.projection {
                Some(p) => p.apply(&d, pos, scope)?,
                None => d,
            };
            strip_score(&mut d);
            out.push(d);
        }
        let wants_score = self.sort.is_some_and(SortSpec::uses_text_score)
            || self.projection.is_some_and(Projection::uses_text_score);
        let mut plan = with_or_clauses(&filter, c, winning_plan(search, wants_score))?;
        if let Some(sort) = self.sort.filter(|s| !s.is_empty()) {
            plan = doc! {"stage": "SORT", "sortPattern": sort.pattern(), "memLimit": 104_857_600, "type": "simple", "inputStage": plan};
        }
        if let Some(p) = self.projection_doc.filter(|p| !p.is_empty()) {
            plan =
                doc! {"stage": "PROJECTION_DEFAULT", "transformBy": p.clone(), "inputStage": plan};
        }
        let exec = (verbosity >= Verbosity::ExecutionStats).then_some((
            out.len(),
            scanned.keys_examined,
            scanned.docs_examined,
        ));
        let command =
            doc! {"find": coll, "filter": self.filter_doc.clone(), "$db": Database::current_name()};
        let ns = Database::namespace(coll);
        let explain = explain(&ns, self.filter_doc, plan, exec, command);
        Ok((out, Bson::Document(explain)))
    }
}
