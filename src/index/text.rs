//! A `$text` query planned as the server plans it: over the collection's one
//! text index (its equality prefix given), and explained as 8.0's classic
//! engine shows it (TEXT_MATCH over TEXT_OR, or FETCH over OR/IXSCAN when no
//! score is asked for).
use crate::error::{Error, Result};
use crate::expr::Scope;
use crate::fts::Search;
use crate::index::explain::num;
use crate::query::text::{text_index_required, TextInOr};
use crate::query::Filter;
use crate::storage::Collection;
use bson::{doc, Bson, Document};

/// The filter with its `$text` bound to the collection's text index (a
/// collection that does not exist leaves it unbound: it has no documents).
/// `filter_doc`, when given, must fix a compound index's prefix fields.
pub fn bind(
    filter: &Filter,
    filter_doc: Option<&Document>,
    c: Option<&Collection>,
) -> Result<Filter> {
    let (Some(args), Some(c)) = (filter.text(), c) else {
        return Ok(filter.clone());
    };
    let ix = c
        .indexes()
        .iter()
        .find(|ix| ix.spec.text.is_some())
        .ok_or_else(text_index_required)?;
    let Some(spec) = ix.spec.text.as_deref() else {
        return Err(text_index_required());
    };
    let context = filter_doc.map(text_context).unwrap_or_default();
    for field in &spec.prefix {
        if filter_doc.is_some() && !context.iter().any(|d| equality_on(d, field)) {
            return Err(Error::new(
                291,
                "NoQueryExecutionPlans",
                "error processing query: planner returned error :: caused by :: failed to use text index to satisfy $text query (if text index is compound, are equality predicates given for all prefix fields?)",
            ));
        }
    }
    if let Some(in_or) = filter.text_in_or() {
        or_clause_scans(in_or, c)?;
    }
    let mut bound = filter.clone();
    bound.bind_text(Search::new(args, spec, &ix.spec.name, &ix.spec.key));
    Ok(bound)
}

/// The index scan that answers each `$or` clause beside `$text` (as
/// explain's `FETCH` over `IXSCAN`), or the server's error when one of them
/// has no index to use.
pub fn or_clause_scans(in_or: &TextInOr, c: &Collection) -> Result<Vec<Document>> {
    let mut scans = Vec::with_capacity(in_or.clauses.len());
    for clause in &in_or.clauses {
        let plan = crate::index::plan::plan(Some(c), clause, None, None)?;
        let crate::index::plan::Access::Index(p) = plan.access else {
            return Err(in_or.unindexed_clause());
        };
        let ix = c
            .indexes()
            .iter()
            .nth(p.index)
            .ok_or_else(|| in_or.unindexed_clause())?;
        scans.push(doc! {
            "stage": "FETCH",
            "inputStage": {
                "stage": "IXSCAN",
                "keyPattern": ix.spec.key.clone(),
                "indexName": ix.spec.name.clone(),
                "direction": if p.forward { "forward" } else { "backward" },
            },
        });
    }
    Ok(scans)
}

/// The filter documents on the way down to `$text` (through `$and` and `$or`
/// clauses): a compound text index's prefix equalities may sit in any of them.
fn text_context(filter: &Document) -> Vec<&Document> {
    fn walk<'a>(d: &'a Document, out: &mut Vec<&'a Document>) -> bool {
        out.push(d);
        if d.contains_key("$text") {
            return true;
        }
        for (k, v) in d {
            let ("$and" | "$or", Bson::Array(items)) = (k.as_str(), v) else {
                continue;
            };
            for item in items {
                if let Bson::Document(item) = item {
                    if walk(item, out) {
                        return true;
                    }
                }
            }
        }
        out.pop();
        false
    }
    let mut out = Vec::new();
    walk(filter, &mut out);
    out
}

/// Does the filter fix `field` by equality at its top level (or in a top-level `$and`)?
fn equality_on(filter: &Document, field: &str) -> bool {
    filter.iter().any(|(k, v)| match (k.as_str(), v) {
        ("$and", Bson::Array(items)) => items
            .iter()
            .any(|i| matches!(i, Bson::Document(d) if equality_on(d, field))),
        (k, Bson::Document(d)) if k == field => {
            d.keys().next().is_none_or(|op| !op.starts_with('$'))
                || d.len() == 1 && d.contains_key("$eq")
        }
        (k, _) => k == field,
    })
}

/// Copy a matched document with its score, for the stages that read it.
pub fn with_score(doc: &Document, search: &Search) -> Result<Document> {
    let mut d = doc.clone();
    if let Some(score) = search.score(doc)? {
        d.insert(crate::fts::SCORE_FIELD, score);
    }
    Ok(d)
}

/// Remove the carried score from a document about to leave (at any depth:
/// `$push: "$$ROOT"` may have nested it).
pub fn strip_score(doc: &mut Document) {
    doc.remove(crate::fts::SCORE_FIELD);
    for (_, v) in doc.iter_mut() {
        strip_value(v);
    }
}

fn strip_value(v: &mut Bson) {
    match v {
        Bson::Document(d) => strip_score(d),
        Bson::Array(items) => items.iter_mut().for_each(strip_value),
        _ => {}
    }
}

/// The plan's stages: `TEXT_MATCH` over `TEXT_OR` (scores wanted) or over
/// `FETCH` of one `IXSCAN` per term (`OR` of them for several terms).
pub fn winning_plan(search: &Search, wants_score: bool) -> Document {
    let ixscan = |_term: &str| {
        doc! {
            "stage": "IXSCAN",
            "keyPattern": search.key.clone(),
            "indexName": search.index_name.clone(),
            "isMultiKey": true,
            "isUnique": false,
            "isSparse": false,
            "isPartial": false,
            "indexVersion": 2,
            "direction": "backward",
            "indexBounds": {},
        }
    };
    let scans: Vec<Document> = search
        .parsed
        .bounds_terms
        .iter()
        .map(|t| ixscan(t))
        .collect();
    let input = if wants_score {
        doc! {"stage": "TEXT_OR", "inputStages": scans.into_iter().map(Bson::Document).collect::<Vec<_>>()}
    } else {
        let inner = match scans.len() {
            1 => scans.into_iter().next().unwrap_or_default(),
            _ => {
                doc! {"stage": "OR", "inputStages": scans.into_iter().map(Bson::Document).collect::<Vec<_>>()}
            }
        };
        doc! {"stage": "FETCH", "inputStage": inner}
    };
    let prefix: Document = Document::new();
    doc! {
        "stage": "TEXT_MATCH",
        "indexPrefix": prefix,
        "indexName": search.index_name.clone(),
        "parsedTextQuery": search.parsed_query(),
        "textIndexVersion": search.spec.version,
        "inputStage": input,
    }
}

/// A `$text` under `$or`: the text plan beside the other clauses' index
/// scans under an `OR` (a `SUBPLAN` when the `$or` is the whole filter, as the
/// classic engine plans rooted `$or`s clause by clause).
pub fn with_or_clauses(
    filter: &Filter,
    c: Option<&Collection>,
    text_plan: Document,
) -> Result<Document> {
    let (Some(in_or), Some(c)) = (filter.text_in_or(), c) else {
        return Ok(text_plan);
    };
    let mut inputs = vec![Bson::Document(text_plan)];
    inputs.extend(or_clause_scans(in_or, c)?.into_iter().map(Bson::Document));
    let or = doc! {"stage": "OR", "inputStages": inputs};
    Ok(if in_or.text_is_root_or_clause {
        doc! {"stage": "SUBPLAN", "inputStage": or}
    } else {
        doc! {"stage": "FETCH", "filter": {}, "inputStage": or}
    })
}

/// The documents a bound `$text` filter matches (with their positional
/// matches), and the index keys and documents a scan of the text index reads.
pub struct TextScan<'c> {
    pub matched: Vec<(&'c Document, Option<usize>)>,
    pub keys_examined: usize,
    pub docs_examined: usize,
}

pub fn scan<'c>(filter: &Filter, c: Option<&'c Collection>, scope: &Scope) -> Result<TextScan<'c>> {
    let mut out = TextScan {
        matched: Vec::new(),
        keys_examined: 0,
        docs_examined: 0,
    };
    let (Some(search), Some(c)) = (filter.text_search(), c) else {
        return Ok(out);
    };
    // Under `$or`, the other clauses' index scans bring documents of their own.
    let in_or = filter.text_in_or().is_some();
    for d in c.docs() {
        let hits = search.keys_hit(d)?;
        if hits == 0 && !in_or {
            continue;
        }
        let matched = filter.matches_at(d, scope)?;
        if hits > 0 || matched.is_some() {
            out.keys_examined += hits;
            out.docs_examined += 1;
        }
        if let Some(pos) = matched {
            out.matched.push((d, pos));
        }
    }
    crate::budget::check()?;
    Ok(out)
}

/// The explain document around a text plan (`exec`: documents returned,
/// keys and documents examined).
pub fn explain(
    ns: &str,
    filter_doc: &Document,
    plan: Document,
    exec: Option<(usize, usize, usize)>,
    command: Document,
) -> Document {
    let mut out = doc! {
        "explainVersion": "1",
        "queryPlanner": {
            "namespace": ns,
            "parsedQuery": filter_doc.clone(),
            "winningPlan": plan.clone(),
            "rejectedPlans": [],
        },
    };
    if let Some((returned, keys, docs)) = exec {
        out.insert(
            "executionStats",
            doc! {
                "executionSuccess": true,
                "nReturned": num(returned),
                "executionTimeMillis": 0,
                "totalKeysExamined": num(keys),
                "totalDocsExamined": num(docs),
                "executionStages": plan,
            },
        );
    }
    out.insert("command", command);
    out.insert("ok", 1);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fts::{fix_spec, TextArgs};

    fn search(q: &str) -> Search {
        let fixed = fix_spec(&doc! {"subject": "text"}, &doc! {}).ok();
        let Some(fixed) = fixed else { panic!("spec") };
        let args = TextArgs::parse(&Bson::Document(doc! {"$search": q})).ok();
        let Some(args) = args else { panic!("args") };
        Search::new(&args, &fixed.spec, "subject_text", &fixed.key)
    }

    #[test]
    fn plans_as_the_classic_engine_shows_them() {
        let plan = winning_plan(&search("coffee -tea"), false);
        assert_eq!(plan.get_str("stage").ok(), Some("TEXT_MATCH"));
        assert_eq!(
            plan.get_document("parsedTextQuery").ok(),
            Some(
                &doc! {"terms": ["coffe"], "negatedTerms": ["tea"], "phrases": [], "negatedPhrases": []}
            )
        );
        let fetch = plan.get_document("inputStage").ok();
        assert_eq!(fetch.and_then(|f| f.get_str("stage").ok()), Some("FETCH"));
        let scan = fetch.and_then(|f| f.get_document("inputStage").ok());
        assert_eq!(scan.and_then(|s| s.get_str("stage").ok()), Some("IXSCAN"));
        // Two terms: an OR of two scans; a score asked for: TEXT_OR.
        let plan = winning_plan(&search("coffee cake"), false);
        let or = plan
            .get_document("inputStage")
            .and_then(|f| f.get_document("inputStage"))
            .ok();
        assert_eq!(or.and_then(|o| o.get_str("stage").ok()), Some("OR"));
        let plan = winning_plan(&search("coffee"), true);
        let text_or = plan.get_document("inputStage").ok();
        assert_eq!(
            text_or.and_then(|o| o.get_str("stage").ok()),
            Some("TEXT_OR")
        );
    }

    #[test]
    fn the_score_never_leaves() {
        let mut d = doc! {"a": 1, "b": [{"c": 2}]};
        d.insert(crate::fts::SCORE_FIELD, 1.5);
        if let Some(Bson::Array(items)) = d.get_mut("b") {
            if let Some(Bson::Document(inner)) = items.first_mut() {
                inner.insert(crate::fts::SCORE_FIELD, 0.5);
            }
        }
        strip_score(&mut d);
        assert_eq!(d, doc! {"a": 1, "b": [{"c": 2}]});
    }
}
