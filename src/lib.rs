//! mqlplay: a MongoDB query playground engine. Plain Rust, tested natively;
//! `wasm` and `page` adapt it for the page, `bin/mqlplay` for the terminal.
//! Both run scripts through [`run_each`] (the one run loop) and format through
//! [`format`], so the page and the CLI never disagree.
//!
//! Layers, lowest first; a module uses only itself and the modules listed before
//! it (tests/layers.rs reads these lines and checks every file's imports):
//! - values and text: error, messages, base64, sorting, budget, tzdb, context, collation, value, pcre, text, json
//! - geometry: geo
//! - reader: shell, config, link
//! - text search: fts
//! - expressions: expr
//! - filters and projections: query, projection
//! - storage: storage
//! - planner: index
//! - pipelines: aggregate
//! - updates: update
//! - execution: engine
//! - facade: lib
//! - adapters: page, tutorial, assist, bench_api, wasm, wasm_bench
#![deny(clippy::unwrap_used)]

pub mod aggregate;
pub mod assist;
pub mod base64;
pub mod bench_api;
pub mod budget;
pub mod collation;
pub mod config;
pub mod context;
pub mod engine;
pub mod error;
pub mod expr;
pub mod fts;
pub mod geo;
pub mod index;
pub mod json;
pub mod link;
pub mod messages;
pub mod page;
pub mod pcre;
pub mod projection;
pub mod query;
pub mod shell;
pub mod sorting;
pub mod storage;
pub mod text;
pub mod tutorial;
pub mod tzdb;
pub mod update;
pub mod value;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(target_arch = "wasm32")]
pub mod wasm_bench;

pub use context::RunCtx;
pub use error::{Error, Result, Source, Span};

use bson::{Bson, Document};
use engine::{Session, View};
use std::collections::HashMap;
use storage::Database;
use text::extjson::{self, Mode};

/// What a run produced: one result per expression statement (in order), every
/// collection's final state, and the error that stopped the script, if any.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub results: Vec<Bson>,
    /// Per result: what its read did (index or collection scan, keys and
    /// documents examined, the explain), `None` for other statements.
    pub work: Vec<Option<index::explain::WorkDone>>,
    pub collections: Vec<(String, Vec<Document>)>,
    pub error: Option<Error>,
}

/// Build the database from its configuration text (seeded `_id`s for documents without one).
pub fn load_database(db_text: &str, run: &RunCtx) -> Result<Database> {
    let db = Database::new();
    let vars = HashMap::new();
    let parsed = {
        let ctx = shell::LowerCtx {
            vars: &vars,
            now: run.now,
            extjson: true,
            new_id: &db,
            tz: run.tz,
        };
        config::parse_database(db_text, &ctx).map_err(|e| loading(e, db_text))?
    };
    let mut db = db;
    for (name, docs) in parsed {
        db.load_collection(&name, docs)
            .and_then(|()| budget::check())
            .map_err(|e| loading(e, db_text))?;
    }
    Ok(db)
}

/// An error while loading the Database pane; past the memory budget, say
/// that the pane holds too much (no script has run yet).
fn loading(e: Error, db_text: &str) -> Error {
    let e = if budget::is_exceeded(&e) {
        Error {
            message: format!(
                "the Database pane holds more than the playground can load ({} MB of text; \
                 one run may use {} MiB): use fewer or smaller documents",
                db_text.len() / 1_000_000,
                budget::run_limit() >> 20
            ),
            ..e
        }
    } else {
        e
    };
    e.in_source(Source::Database)
}

/// Run a script against a fresh database built from the configuration.
pub fn run(db_text: &str, script: &str, run: &RunCtx) -> RunOutput {
    let _budget = budget::start_run();
    let mut db = match load_database(db_text, run) {
        Ok(db) => db,
        Err(e) => {
            return RunOutput {
                results: Vec::new(),
                work: Vec::new(),
                collections: Vec::new(),
                error: Some(e),
            }
        }
    };
    let (results, work, error) = run_loaded(&mut db, script, run);
    let collections = storage::namespaces::listed(&db)
        .into_iter()
        .map(|(n, c, _)| (n.into_owned(), c.docs().to_vec()))
        .collect();
    RunOutput {
        results,
        work,
        collections,
        error,
    }
}

/// Run a script against a database already loaded (the page keeps the loaded
/// configuration and runs on a copy): the results in order and the error that
/// stopped the script, if any, with each result's work (see [`RunOutput::work`]).
/// The caller holds the run's memory budget.
pub fn run_loaded(
    db: &mut Database,
    script: &str,
    run: &RunCtx,
) -> (
    Vec<Bson>,
    Vec<Option<index::explain::WorkDone>>,
    Option<Error>,
) {
    let mut results = Vec::new();
    let mut work = Vec::new();
    let error = run_each(db, script, run, true, |r, w| {
        results.push(r.to_bson());
        work.push(w);
    });
    (results, work, error)
}

/// The one run loop of the CLI and the page: read the script, run its
/// statements in order on `db`, and hand each result to `on_result` as soon as
/// its statement has run (stored documents are borrowed until the next one
/// runs), with what each read did when `with_work` asks for it (the page's
/// work line). Returns the error that stopped the script, if any.
pub fn run_each(
    db: &mut Database,
    script: &str,
    run: &RunCtx,
    with_work: bool,
    on_result: impl FnMut(View<'_>, Option<index::explain::WorkDone>),
) -> Option<Error> {
    match shell::parse_script(script) {
        Ok(parsed) => run_parsed(db, &parsed, run, with_work, on_result),
        Err(e) => Some(e),
    }
}

/// [`run_each`] on a script already read (the page's runner reports its
/// statements from the same reading).
pub fn run_parsed(
    db: &mut Database,
    parsed: &shell::Script,
    run: &RunCtx,
    with_work: bool,
    on_result: impl FnMut(View<'_>, Option<index::explain::WorkDone>),
) -> Option<Error> {
    let session = Session::new(db, *run);
    let mut session = if with_work {
        session.record_work()
    } else {
        session
    };
    session.run_script_with_work(parsed, on_result).err()
}

/// Format a script or configuration (the page's Format button, `mqlplay fmt`).
pub fn format(text: &str) -> Result<String> {
    shell::format_script(text)
}

/// Where an error points, for people and editors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorPlace {
    pub source: Source,
    pub line: usize,
    pub column: usize,
    /// UTF-16 offsets into the text (what JavaScript editors count).
    pub utf16_start: usize,
    pub utf16_end: usize,
    /// The source line and a caret line under the span.
    pub excerpt: String,
}

impl Error {
    /// Resolve the span against the text it refers to.
    pub fn place(&self, db_text: &str, script: &str) -> Option<ErrorPlace> {
        let span = self.span?;
        let text = match self.source {
            Source::Script => script,
            Source::Database => db_text,
        };
        let (line, column) = error::line_col(text, span.start);
        Some(ErrorPlace {
            source: self.source,
            line,
            column,
            utf16_start: error::utf16_offset(text, span.start),
            utf16_end: error::utf16_offset(text, span.end),
            excerpt: error::excerpt(text, span),
        })
    }

    /// One line for a terminal: `script line 3, column 14: (FailedToParse) …`.
    pub fn one_line(&self, db_text: &str, script: &str) -> String {
        match self.place(db_text, script) {
            Some(p) => {
                let what = if p.source == Source::Database {
                    "database"
                } else {
                    "script"
                };
                format!("{what} line {}, column {}: {self}", p.line, p.column)
            }
            None => self.to_string(),
        }
    }
}

impl RunOutput {
    /// The run contract's JSON: `{results, collections, error?}` in Extended JSON v2.
    pub fn to_json(&self, mode: Mode, db_text: &str, script: &str) -> serde_json::Value {
        let results: Vec<serde_json::Value> = self
            .results
            .iter()
            .map(|r| extjson::to_json(r, mode))
            .collect();
        let mut collections = serde_json::Map::new();
        for (name, docs) in &self.collections {
            let docs: Vec<serde_json::Value> = docs
                .iter()
                .map(|d| extjson::to_json(&Bson::Document(d.clone()), mode))
                .collect();
            collections.insert(name.clone(), serde_json::Value::Array(docs));
        }
        let mut out = serde_json::Map::new();
        out.insert("results".into(), serde_json::Value::Array(results));
        out.insert("collections".into(), serde_json::Value::Object(collections));
        if let Some(e) = &self.error {
            out.insert("error".into(), error_json(e, db_text, script));
        }
        serde_json::Value::Object(out)
    }
}

pub(crate) fn error_json(e: &Error, db_text: &str, script: &str) -> serde_json::Value {
    let mut obj = serde_json::Map::new();
    obj.insert("message".into(), e.message.clone().into());
    obj.insert("code".into(), e.code.into());
    obj.insert("codeName".into(), e.code_name.to_string().into());
    if let Some(p) = e.place(db_text, script) {
        obj.insert(
            "source".into(),
            if p.source == Source::Database {
                "db"
            } else {
                "script"
            }
            .into(),
        );
        obj.insert("line".into(), p.line.into());
        obj.insert("column".into(), p.column.into());
        obj.insert("start".into(), p.utf16_start.into());
        obj.insert("end".into(), p.utf16_end.into());
        obj.insert("excerpt".into(), p.excerpt.into());
    }
    let mut json = serde_json::Value::Object(obj);
    messages::annotate(e, &mut json);
    json
}
