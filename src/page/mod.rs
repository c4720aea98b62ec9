//! The page's run output as one relaxed-Extended-JSON text (the worker hands it to
//! `JSON.parse`): `{results, collections, names, error?, shell, work, collectionsShell, initial,
//! initialShell, stmts, check?}` (`names`: every collection after the run; `stmts`: the script's
//! statements; `check`: a tutorial step's verdict on this run); from a [`Cache::paged`] cache
//! also `totals`, and long results hold only their first page (see `paging`).
//! The loaded configuration is kept between runs while its text (and seed, and the
//! instant when the text can read it) is unchanged: each run starts from a copy,
//! which shares the collections until the script writes one (see `storage`).
use crate::index::explain::WorkDone;
use crate::shell::{Script, StmtKind};
use crate::storage::{namespaces, Collection, Database, DB_NAME};
use crate::text::ejson::{write_docs, write_str};
use crate::text::shell;
use crate::{budget, Error, RunCtx, RunOutput};
use bson::Bson;
use std::borrow::Cow;

/// Which final collections the output carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collections {
    /// Every collection (the run contract of `wasm::run` and the CLI).
    All,
    /// Only those the script created, changed or dropped (what the page shows).
    Changed,
}

struct Loaded {
    db_text: std::rc::Rc<str>,
    seed: u64,
    /// The run's instant, when the configuration can read it (`new Date()`, `Date.now()`).
    now: Option<i64>,
    db: Result<Database, Error>,
}

/// The last configuration loaded.
#[derive(Default)]
pub struct Cache {
    loaded: Option<Loaded>,
    /// Whether long results are cut to their first page (the page's worker),
    /// and what the last run kept of them.
    paged: bool,
    kept: paging::Kept,
    /// The last run's Database text, script and context, run again for a cut result's pages.
    last: Option<(std::rc::Rc<str>, String, RunCtx)>,
}

impl Cache {
    /// The text of the configuration kept loaded, if any.
    pub fn db_text(&self) -> Option<std::rc::Rc<str>> {
        self.loaded.as_ref().map(|l| std::rc::Rc::clone(&l.db_text))
    }

    /// A cache whose runs hand long results out a page at a time (see `paging`).
    pub fn paged() -> Cache {
        Cache {
            paged: true,
            ..Cache::default()
        }
    }

    /// Documents of a result the last run cut (see `paging::page_json`); the
    /// first request runs the script again to keep them.
    pub fn page_json(&mut self, index: usize, from: usize, count: usize) -> String {
        if self.kept.needs(index) {
            self.keep_result(index);
        }
        paging::page_json(&self.kept, index, from, count)
    }

    fn keep_result(&mut self, index: usize) {
        let Some((text, script, run)) = self.last.clone() else {
            return;
        };
        let _budget = budget::start_run();
        let Ok(start) = self.database(&text, &run) else {
            return;
        };
        let mut db = start.clone();
        let mut kept = std::mem::take(&mut self.kept);
        let mut k = 0;
        crate::run_each(&mut db, &script, &run, false, |r, _| {
            if k == index {
                kept.keep(index, &r);
            }
            k += 1;
        });
        self.kept = kept;
    }

    /// The database built from `db_text`, loaded again only when something it
    /// depends on changed.
    fn database(&mut self, db_text: &str, run: &RunCtx) -> &Result<Database, Error> {
        let hit = self.loaded.as_ref().is_some_and(|l| {
            // The text of `run_again` is the kept one itself: no need to compare it.
            let same = std::ptr::eq(l.db_text.as_ptr(), db_text.as_ptr())
                && l.db_text.len() == db_text.len()
                || &*l.db_text == db_text;
            same && l.seed == run.seed && l.now.is_none_or(|t| t == run.now.timestamp_millis())
        });
        if !hit {
            // Only the Date constructors read the instant (src/shell/ctors.rs).
            let now = db_text.contains("Date").then(|| run.now.timestamp_millis());
            self.loaded = None; // free the old database before building the new one
            let db = crate::load_database(db_text, run);
            self.loaded = Some(Loaded {
                db_text: db_text.into(),
                seed: run.seed,
                now,
                db,
            });
        }
        match &self.loaded {
            Some(l) => &l.db,
            None => unreachable!("loaded just above"),
        }
    }
}

/// Judges a run's outcome (a tutorial step's check): its verdict is the output's `check`.
pub type Judge<'a> = &'a dyn Fn(&RunOutput) -> serde_json::Value;

/// Run `script` on (a copy of) the configuration and write the page's output.
pub fn run_json(
    cache: &mut Cache,
    db_text: &str,
    script: &str,
    run: &RunCtx,
    which: Collections,
) -> String {
    run_judged(cache, db_text, script, run, which, None)
}

/// [`run_json`], the outcome also handed to `judge` (the results are kept as
/// values only then).
pub fn run_judged(
    cache: &mut Cache,
    db_text: &str,
    script: &str,
    run: &RunCtx,
    which: Collections,
    judge: Option<Judge>,
) -> String {
    let _budget = budget::start_run();
    // Each result is written out when its statement has run: stored
    // documents are read in place, before a later statement changes them.
    let mut out = String::with_capacity(1024);
    out.push_str("{\"results\":[");
    let mut printed: Vec<String> = Vec::new();
    let mut work: Vec<Option<WorkDone>> = Vec::new();
    let mut results: Vec<Bson> = Vec::new();
    let mut stmts = serde_json::Value::Array(Vec::new());
    let mut totals: Vec<Option<usize>> = Vec::new();
    let paged = cache.paged;
    let mut kept = paging::Kept::default();
    let mut db_failed = false;
    let (start, error, end) = match cache.database(db_text, run) {
        Err(e) => {
            db_failed = true;
            if let Ok(parsed) = crate::shell::parse_script(script) {
                stmts = statements_json(script, &parsed);
            }
            (None, Some(e.clone()), None)
        }
        Ok(start) => {
            let mut db = start.clone();
            let error = match crate::shell::parse_script(script) {
                Err(e) => Some(e),
                Ok(parsed) => {
                    stmts = statements_json(script, &parsed);
                    crate::run_parsed(&mut db, &parsed, run, true, |r, w| {
                        if !printed.is_empty() {
                            out.push(',');
                        }
                        if judge.is_some() {
                            results.push(r.to_bson());
                        }
                        if paged {
                            totals.push(kept.write_result(&r, &mut out, &mut printed));
                        } else {
                            r.write_ejson(&mut out);
                            printed.push(r.print_shell());
                        }
                        work.push(w);
                    })
                }
            };
            (Some(start), error, Some(db))
        }
    };
    // Collections the script created, changed or dropped, with their initial
    // documents, under their output names (namespaces once several databases hold some).
    let finals = end.as_ref().map(namespaces::listed).unwrap_or_default();
    let several = end.as_ref().is_some_and(namespaces::several);
    let mut changed: Vec<&str> = Vec::new();
    if let (Some(start), Some(end)) = (start, &end) {
        for (key, coll, in_test) in &finals {
            let own = key
                .split_once('.')
                .filter(|_| several)
                .map_or(&**key, |(_, n)| n);
            let unchanged = *in_test && {
                let before = start.collection(own);
                end.shares(own, start) || before.is_some_and(|b| b.docs() == coll.docs())
            };
            if !unchanged {
                changed.push(key);
            }
        }
    }
    out.push_str("],\"collections\":");
    write_collections(
        &mut out,
        finals
            .iter()
            .filter(|(key, _, _)| which == Collections::All || changed.contains(&&**key))
            .map(|(key, c, _)| (&**key, *c)),
    );
    // Every collection after the run, for the page's Copy and Download (see `export`).
    out.push_str(",\"names\":[");
    for (i, (key, _, _)) in finals.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(&mut out, key);
    }
    out.push(']');
    if let Some(e) = &error {
        out.push_str(",\"error\":");
        let mut json = crate::error_json(e, db_text, script);
        // An error without a place (a duplicate _id) still names the pane at fault.
        if let (true, Some(obj)) = (db_failed, json.as_object_mut()) {
            obj.entry("source").or_insert_with(|| "db".into());
        }
        crate::json::write(&mut out, &json);
    }
    out.push_str(",\"shell\":[");
    for (i, r) in printed.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(&mut out, r);
    }
    out.push_str("],\"work\":");
    write_work(&mut out, &work);
    if paged {
        out.push_str(",\"totals\":");
        paging::write_totals(&mut out, &totals);
    }
    out.push_str(",\"collectionsShell\":{");
    for (i, key) in changed.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(&mut out, key);
        out.push_str(":[");
        let docs = finals
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, c, _)| c.docs())
            .unwrap_or_default();
        for (j, d) in docs.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            write_str(&mut out, &shell::print_doc(d));
        }
        out.push(']');
    }
    out.push_str("},\"initial\":");
    match (start, &end) {
        // Changed ones, and dropped ones (gone from the end state), named as the finals are.
        (Some(start), Some(end)) => {
            let initial: Vec<(Cow<str>, &Collection)> = start
                .collections()
                .map(|(name, c)| (namespaces::key(several, DB_NAME, name), c))
                .filter(|(key, _)| {
                    namespaces::find(end, key).is_none() || changed.contains(&&**key)
                })
                .collect();
            let initial = || initial.iter().map(|(k, c)| (&**k, *c));
            write_collections(&mut out, initial());
            // Printed as mongosh prints them, so removed documents read like the others.
            out.push_str(",\"initialShell\":");
            write_collections_shell(&mut out, initial());
        }
        _ => out.push_str("{},\"initialShell\":{}"),
    }
    out.push_str(",\"stmts\":");
    crate::json::write(&mut out, &stmts);
    if let Some(judge) = judge {
        let outcome = RunOutput {
            results,
            work,
            collections: finals
                .iter()
                .map(|(n, c, _)| (n.to_string(), c.docs().to_vec()))
                .collect(),
            error,
        };
        out.push_str(",\"check\":");
        crate::json::write(&mut out, &judge(&outcome));
    }
    out.push('}');
    cache.kept = kept;
    cache.last = match &cache.loaded {
        Some(l) if paged => Some((std::rc::Rc::clone(&l.db_text), script.to_string(), *run)),
        _ => None,
    };
    out
}

/// Where each result-producing statement (expression or shell helper) sits in
/// the script, in the order results come: `[{start, end, text}]` with UTF-16
/// offsets, so the page can label each result with its statement.
pub fn statements_json(script: &str, parsed: &Script) -> serde_json::Value {
    parsed
        .stmts
        .iter()
        .filter(|s| !matches!(s.kind, StmtKind::Assign { .. }))
        .map(|s| {
            let text = script.get(s.span.start..s.span.end).unwrap_or_default();
            serde_json::json!({
                "start": crate::error::utf16_offset(script, s.span.start),
                "end": crate::error::utf16_offset(script, s.span.end),
                "text": text,
            })
        })
        .collect()
}

/// `{"<name>": [<documents>], ...}`.
fn write_collections<'a>(
    out: &mut String,
    collections: impl Iterator<Item = (&'a str, &'a Collection)>,
) {
    write_by_name(out, collections, |out, coll| write_docs(out, coll.docs()));
}

/// `{"<name>": ["<document printed by mongosh>", ...], ...}`.
fn write_collections_shell<'a>(
    out: &mut String,
    collections: impl Iterator<Item = (&'a str, &'a Collection)>,
) {
    write_by_name(out, collections, |out, coll| {
        out.push('[');
        for (j, d) in coll.docs().iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            write_str(out, &shell::print_doc(d));
        }
        out.push(']');
    });
}

/// `{"<name>": <each collection as write_one writes it>, ...}`.
fn write_by_name<'a>(
    out: &mut String,
    collections: impl Iterator<Item = (&'a str, &'a Collection)>,
    write_one: impl Fn(&mut String, &Collection),
) {
    out.push('{');
    for (i, (name, coll)) in collections.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(out, name);
        out.push(':');
        write_one(out, coll);
    }
    out.push('}');
}

/// Per result, what its read did (`null` for other statements):
/// `{stage, index, keysExamined, docsExamined, nReturned, explain}`, `stage`
/// being the scan (`IXSCAN`, `COLLSCAN`...), `explain` the read's
/// explain("executionStats") printed in mongosh's format.
fn write_work(out: &mut String, work: &[Option<WorkDone>]) {
    let json: serde_json::Value = work
        .iter()
        .map(|w| match w {
            None => serde_json::Value::Null,
            Some(w) => serde_json::json!({
                "stage": w.stage,
                "index": w.index,
                "keysExamined": w.keys_examined,
                "docsExamined": w.docs_examined,
                "nReturned": w.returned,
                "nCounted": w.counted,
                "explain": shell::print(&w.explain),
            }),
        })
        .collect();
    crate::json::write(out, &json);
}

/// Run `script` on the configuration the last run loaded, without its text
/// crossing again (the page's worker calls this while the Database pane is
/// unchanged); `None` when nothing is loaded yet.
pub fn run_again(
    cache: &mut Cache,
    script: &str,
    run: &RunCtx,
    which: Collections,
) -> Option<String> {
    let text = cache.db_text()?;
    Some(run_json(cache, &text, script, run, which))
}

/// The output of one run from scratch (no cache), every collection included.
pub fn run_once(db_text: &str, script: &str, run: &RunCtx) -> String {
    run_json(
        &mut Cache::default(),
        db_text,
        script,
        run,
        Collections::All,
    )
}

pub mod export;
pub mod paging;
pub mod stages;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
