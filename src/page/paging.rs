//! A long result crosses to the page a page at a time. Turning thousands of
//! documents into JavaScript objects costs far more than the query that found
//! them (BENCHMARKS.md, "Results to JavaScript"), and the page shows only the
//! first ones: the run's output holds a result's first [`PAGE`] documents and
//! its length. The first request for more runs the script again (as Copy and
//! Download do, `export`) and keeps that result's other documents as BSON until
//! the next run; every page is handed out from them ([`page_json`]). Keeping
//! them at every run would cost more than the rest of the run (an encoding per
//! document) for documents most runs never show.
use crate::engine::View;
use crate::text::ejson::{write_docs, write_str, write_value};
use crate::text::shell;
use bson::{Bson, Document};

/// Documents of a result in the run's output and in each later page.
pub const PAGE: usize = 100;

/// Per result of the last run: whole, cut, or cut with its other documents kept.
#[derive(Debug, Default)]
pub struct Kept {
    rest: Vec<Slot>,
}

#[derive(Debug)]
enum Slot {
    Whole,
    Cut,
    Kept(Rest),
}

/// Documents as BSON, one after the other: encoding them is a copy per document,
/// where cloning them would allocate every key and string again (and freeing them
/// at the next run as much).
#[derive(Debug, Default)]
struct Rest {
    bytes: Vec<u8>,
    /// Where each document ends in `bytes`.
    ends: Vec<usize>,
    /// Values other than documents, each kept as `{v: value}`.
    wrapped: bool,
}

impl Rest {
    fn of_docs<'a>(docs: impl Iterator<Item = &'a Document>) -> Option<Rest> {
        let mut rest = Rest::default();
        for d in docs {
            d.to_writer(&mut rest.bytes).ok()?;
            rest.ends.push(rest.bytes.len());
        }
        Some(rest)
    }

    /// Result `r`'s documents after the first page.
    fn of_view(r: &View<'_>) -> Option<Rest> {
        match r {
            View::Docs(docs) => Rest::of_docs(docs.get(PAGE..)?.iter().copied()),
            View::Value(Bson::Array(items)) => Rest::of_values(items.get(PAGE..)?),
            View::Value(_) => None,
        }
    }

    fn of_values(items: &[Bson]) -> Option<Rest> {
        let docs: Option<Vec<&Document>> = items.iter().map(Bson::as_document).collect();
        if let Some(docs) = docs {
            return Rest::of_docs(docs.into_iter());
        }
        let wrapped: Vec<Document> = items
            .iter()
            .map(|v| bson::doc! { "v": v.clone() })
            .collect();
        let mut rest = Rest::of_docs(wrapped.iter())?;
        rest.wrapped = true;
        Some(rest)
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    /// The values at `range` (decoded again; a document that does not decode is skipped).
    fn values(&self, range: std::ops::Range<usize>) -> Vec<Bson> {
        range
            .filter_map(|i| {
                let start = if i == 0 { 0 } else { *self.ends.get(i - 1)? };
                let bytes = self.bytes.get(start..*self.ends.get(i)?)?;
                let doc = Document::from_reader(bytes).ok()?;
                if self.wrapped {
                    doc.get("v").cloned()
                } else {
                    Some(Bson::Document(doc))
                }
            })
            .collect()
    }
}

impl Kept {
    /// Write result `r` (its first page when longer) as Extended JSON to `out` and
    /// printed by mongosh to `printed`; `Some(length)` when it was cut.
    pub fn write_result(
        &mut self,
        r: &View<'_>,
        out: &mut String,
        printed: &mut Vec<String>,
    ) -> Option<usize> {
        let total = match r {
            View::Docs(docs) if docs.len() > PAGE => {
                let first = &docs[..PAGE];
                write_docs(out, first.iter().copied());
                printed.push(shell::print_docs(first));
                docs.len()
            }
            View::Value(Bson::Array(items)) if items.len() > PAGE => {
                let first = Bson::Array(items[..PAGE].to_vec());
                write_value(out, &first);
                printed.push(shell::print(&first));
                items.len()
            }
            _ => {
                r.write_ejson(out);
                printed.push(r.print_shell());
                self.rest.push(Slot::Whole);
                return None;
            }
        };
        self.rest.push(Slot::Cut);
        Some(total)
    }

    /// Whether result `index` was cut and its other documents are not kept yet.
    pub fn needs(&self, index: usize) -> bool {
        matches!(self.rest.get(index), Some(Slot::Cut))
    }

    /// Keep result `index`'s documents after the first page, from `r` (the same
    /// result, run again); a result that does not encode stays cut, with none to give.
    pub fn keep(&mut self, index: usize, r: &View<'_>) {
        if let (Some(slot), Some(rest)) = (self.rest.get_mut(index), Rest::of_view(r)) {
            *slot = Slot::Kept(rest);
        }
    }
}

/// Documents `from..from + count` of result `index` of the last run (`from` counts
/// from the result's start, so at least [`PAGE`]): `{"docs": [...], "shell":
/// [...]}` (each document printed by mongosh), or `null` when that result was not
/// cut or its documents could not be kept.
pub fn page_json(kept: &Kept, index: usize, from: usize, count: usize) -> String {
    let Some(Slot::Kept(rest)) = kept.rest.get(index) else {
        return "null".to_string();
    };
    let start = from.saturating_sub(PAGE).min(rest.len());
    let end = start.saturating_add(count).min(rest.len());
    let docs = rest.values(start..end);
    let mut out = String::with_capacity(256 * docs.len() + 32);
    out.push_str("{\"docs\":");
    write_value(&mut out, &Bson::Array(docs.clone()));
    out.push_str(",\"shell\":[");
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(&mut out, &shell::print(d));
    }
    out.push_str("]}");
    out
}

/// `[null, 6563, ...]`: per result, its length when the output holds only its first page.
pub fn write_totals(out: &mut String, totals: &[Option<usize>]) {
    out.push('[');
    for (i, t) in totals.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match t {
            Some(n) => out.push_str(&n.to_string()),
            None => out.push_str("null"),
        }
    }
    out.push(']');
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::page::{run_json, Cache, Collections};
    use crate::RunCtx;
    use serde_json::Value;

    fn parsed(text: &str) -> Value {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    fn db(n: usize) -> String {
        let docs: Vec<String> = (0..n)
            .map(|i| format!("{{\"_id\": {i}, \"tag\": \"t{}\"}}", i % 7))
            .collect();
        format!("db = {{\"c\": [{}]}}", docs.join(","))
    }

    fn run(cache: &mut Cache, db: &str, script: &str) -> Value {
        let ctx = RunCtx::new(bson::DateTime::from_millis(0), 1);
        parsed(&run_json(cache, db, script, &ctx, Collections::Changed))
    }

    /// Every document of a cut result, from its first page and the kept pages, as
    /// the unpaged run gives them; the shell texts printed per document.
    #[test]
    fn pages_add_up_to_the_whole_result() {
        let db = db(250);
        let script = "db.c.find()\ndb.c.aggregate([{$sort: {_id: -1}}])\ndb.c.countDocuments()";
        let whole = run(&mut Cache::default(), &db, script);
        let mut cache = Cache::paged();
        let out = run(&mut cache, &db, script);
        assert_eq!(out["totals"], serde_json::json!([250, 250, null]));
        assert!(whole.get("totals").is_none());
        for i in 0..2 {
            let Value::Array(all) = &whole["results"][i] else {
                panic!("an array")
            };
            let mut got = out["results"][i].as_array().cloned().unwrap_or_default();
            assert_eq!(got.len(), PAGE);
            let mut from = PAGE;
            while from < 250 {
                let page = parsed(&cache.page_json(i, from, 60));
                let docs = page["docs"].as_array().cloned().unwrap_or_default();
                let shell: Vec<&str> = page["shell"]
                    .as_array()
                    .map(|s| s.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                assert_eq!(shell.len(), docs.len());
                let id = &docs[0]["_id"];
                assert!(shell[0].contains(&format!("_id: {id},")), "{}", shell[0]);
                got.extend(docs);
                from += 60;
            }
            assert_eq!(&got, all, "result {i}");
        }
        assert_eq!(out["results"][2], whole["results"][2]);
        // The shell text of the first page is the first page printed.
        let first: Vec<&str> = whole["shell"][0]
            .as_str()
            .unwrap_or_default()
            .lines()
            .collect();
        let cut = out["shell"][0].as_str().unwrap_or_default();
        assert!(cut.starts_with(&first[..20].join("\n")));
        assert!(cut.len() < whole["shell"][0].as_str().unwrap_or_default().len() / 2);
    }

    /// Values other than documents (and mixed ones) come back as they were.
    #[test]
    fn values_other_than_documents() {
        let db = db(120);
        let mut cache = Cache::paged();
        let whole = run(&mut Cache::default(), &db, "db.c.distinct('_id')");
        let out = run(&mut cache, &db, "db.c.distinct('_id')");
        assert_eq!(out["totals"], serde_json::json!([120]));
        let page = parsed(&cache.page_json(0, 100, 100));
        assert_eq!(page["docs"].as_array().map(Vec::len), Some(20));
        assert_eq!(page["docs"][0], whole["results"][0][100]);
        assert_eq!(page["shell"][19], "119");
    }

    /// A result that fits, one past the end, and one of an earlier run: `null`.
    #[test]
    fn nothing_kept_gives_null() {
        let db = db(150);
        let mut cache = Cache::paged();
        let out = run(&mut cache, &db, "db.c.find().limit(100)\ndb.c.find()");
        assert_eq!(out["totals"], serde_json::json!([null, 150]));
        assert_eq!(cache.page_json(0, 100, 10), "null");
        assert_eq!(cache.page_json(2, 100, 10), "null");
        assert_eq!(
            parsed(&cache.page_json(1, 140, 100))["docs"]
                .as_array()
                .map(Vec::len),
            Some(10)
        );
        assert_eq!(
            parsed(&cache.page_json(1, 400, 100))["docs"],
            serde_json::json!([])
        );
        run(&mut cache, &db, "db.c.countDocuments()");
        assert_eq!(cache.page_json(1, 100, 10), "null");
    }
}
