//! A step's expectation, written as JSON data in the tutorial file:
//!
//! ```json
//! { "result": [ {"_id": "123_1698335223", "count": 3} ],   // the last result (relaxed EJSON)
//!   "results": [ ..., ... ],                               // every result, in order
//!   "resultCount": 1,                                      // the last result has 1 element
//!   "resultWhere": [ {"index": 0, "path": "count", "equals": 3} ],
//!   "collections": { "trades": { "count": 2, "docs": [ ... ],
//!                                "where": [ {"index": 0, "path": "history", "size": 3} ] } },
//!   "error": { "codeName": "BadValue", "code": 2, "messageContains": "24 character",
//!              "source": "script", "line": 3 } }
//! ```
//!
//! Values are compared with MongoDB equality ([`crate::value::equal`]): numbers by
//! value across types, documents field by field in order. Without `error`, a run
//! that stops with an error fails the check.
use super::diff::{describe, diff, Diffs};
use crate::error::{Error, Result, Source};
use crate::text::shell::inline;
use crate::RunOutput;
use bson::{Bson, Document};
use serde_json::Value;

mod spec;

/// A compiled check: expected values already converted to BSON.
#[derive(Clone, Debug, Default)]
pub struct Check {
    result: Option<Bson>,
    results: Option<Vec<Bson>>,
    result_count: Option<usize>,
    result_where: Vec<Where>,
    collections: Vec<(String, CollectionCheck)>,
    error: Option<ErrorCheck>,
}

#[derive(Clone, Debug, Default)]
struct CollectionCheck {
    count: Option<usize>,
    docs: Option<Vec<Bson>>,
    wheres: Vec<Where>,
}

/// A condition on one value inside a document: `path` is dotted, array
/// elements by number (`history.2.qty`); `index` picks the document.
#[derive(Clone, Debug)]
struct Where {
    index: Option<usize>,
    path: String,
    test: Test,
}

#[derive(Clone, Debug)]
enum Test {
    Equals(Bson),
    Size(usize),
    Exists(bool),
}

#[derive(Clone, Debug, Default)]
struct ErrorCheck {
    code: Option<i32>,
    code_name: Option<String>,
    message_contains: Option<String>,
    source: Option<String>,
    line: Option<usize>,
}

// The JSON shapes, before conversion (read by `spec`: every field optional
// unless noted, unknown fields rejected; `result` and `equals` may be null).
struct CheckSpec {
    result: Option<Value>,
    results: Option<Vec<Value>>,
    result_count: Option<usize>,
    result_where: Vec<WhereSpec>,
    collections: serde_json::Map<String, Value>,
    error: Option<ErrorCheck>,
}

struct CollectionSpec {
    count: Option<usize>,
    docs: Option<Vec<Value>>,
    wheres: Vec<WhereSpec>,
}

struct WhereSpec {
    index: Option<usize>,
    /// Required.
    path: String,
    equals: Option<Value>,
    size: Option<usize>,
    exists: Option<bool>,
}

fn ejson(v: serde_json::Value) -> Result<Bson> {
    crate::shell::extjson::to_bson(v)
        .map_err(|e| Error::failed_to_parse(format!("tutorial check value: {e}")))
}

fn malformed(e: impl std::fmt::Display) -> Error {
    Error::failed_to_parse(format!("tutorial check: {e}"))
}

impl WhereSpec {
    fn compile(self) -> Result<Where> {
        let test = match (self.equals, self.size, self.exists) {
            (Some(v), None, None) => Test::Equals(ejson(v)?),
            (None, Some(n), None) => Test::Size(n),
            (None, None, Some(b)) => Test::Exists(b),
            _ => {
                return Err(malformed(format!(
                    "where on `{}` needs exactly one of equals, size, exists",
                    self.path
                )))
            }
        };
        Ok(Where {
            index: self.index,
            path: self.path,
            test,
        })
    }
}

impl Check {
    /// Compile a check from its JSON; a malformed check is an error, so a typo in
    /// a tutorial file cannot pass silently.
    pub fn parse(json: &serde_json::Value) -> Result<Check> {
        let spec = spec::check(json.clone())?;
        if let Some(source) = spec.error.as_ref().and_then(|e| e.source.as_deref()) {
            if source != "script" && source != "db" {
                return Err(malformed("error.source is \"script\" or \"db\""));
            }
        }
        let mut collections = Vec::new();
        for (name, v) in spec.collections {
            let c = spec::collection(v)?;
            collections.push((
                name,
                CollectionCheck {
                    count: c.count,
                    docs: c
                        .docs
                        .map(|d| d.into_iter().map(ejson).collect::<Result<_>>())
                        .transpose()?,
                    wheres: c
                        .wheres
                        .into_iter()
                        .map(WhereSpec::compile)
                        .collect::<Result<_>>()?,
                },
            ));
        }
        Ok(Check {
            result: spec.result.map(ejson).transpose()?,
            results: spec
                .results
                .map(|r| r.into_iter().map(ejson).collect::<Result<_>>())
                .transpose()?,
            result_count: spec.result_count,
            result_where: spec
                .result_where
                .into_iter()
                .map(WhereSpec::compile)
                .collect::<Result<_>>()?,
            collections,
            error: spec.error,
        })
    }

    /// What differs between the expectation and the run, one sentence each;
    /// empty when the step passes.
    pub fn differences(&self, out: &RunOutput, db_text: &str, script: &str) -> Vec<String> {
        let mut d = Diffs::default();
        match (&self.error, &out.error) {
            (None, Some(e)) => {
                d.push(format!(
                    "the run stopped with an error: {}",
                    e.one_line(db_text, script)
                ));
                return d.into_vec();
            }
            (Some(want), None) => d.push(format!(
                "expected an error{}, but the run finished without one",
                want.describe()
            )),
            (Some(want), Some(e)) => want.compare(e, db_text, script, &mut d),
            (None, None) => {}
        }
        self.check_results(out, &mut d);
        for (name, c) in &self.collections {
            let docs = out
                .collections
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, docs)| docs.as_slice());
            c.compare(name, docs, &mut d);
        }
        d.into_vec()
    }

    fn check_results(&self, out: &RunOutput, d: &mut Diffs) {
        if let Some(want) = &self.results {
            if want.len() != out.results.len() {
                d.push(format!(
                    "expected {} results, found {}",
                    want.len(),
                    out.results.len()
                ));
            }
            for (i, (w, f)) in want.iter().zip(&out.results).enumerate() {
                diff(&format!("result {}", i + 1), w, f, d);
            }
        }
        let wants_last =
            self.result.is_some() || self.result_count.is_some() || !self.result_where.is_empty();
        if !wants_last {
            return;
        }
        let Some(last) = out.results.last() else {
            d.push("expected a result, but the script produced none".to_string());
            return;
        };
        if let Some(want) = &self.result {
            diff("result", want, last, d);
        }
        if let Some(n) = self.result_count {
            match last {
                Bson::Array(a) if a.len() == n => {}
                Bson::Array(a) => d.push(format!(
                    "result: expected {n} {}, found {}",
                    plural(n, "document"),
                    a.len()
                )),
                other => d.push(format!(
                    "result: expected {n} {}, found {}",
                    plural(n, "document"),
                    describe(other)
                )),
            }
        }
        for w in &self.result_where {
            let (target, label) = match (w.index, last) {
                (None, v) => (Some(v), "result".to_string()),
                (Some(i), Bson::Array(a)) => (a.get(i), format!("result[{i}]")),
                (Some(i), _) => (None, format!("result[{i}]")),
            };
            match target {
                Some(v) => w.check(&label, v, d),
                None => d.push(format!("{label}: missing")),
            }
        }
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

impl CollectionCheck {
    fn compare(&self, name: &str, docs: Option<&[Document]>, d: &mut Diffs) {
        let label = format!("collection {name}");
        let docs = docs.unwrap_or(&[]);
        if let Some(n) = self.count {
            if n != docs.len() {
                d.push(format!(
                    "{label}: expected {n} {}, found {}",
                    plural(n, "document"),
                    docs.len()
                ));
            }
        }
        if let Some(want) = &self.docs {
            let found = Bson::Array(docs.iter().cloned().map(Bson::Document).collect());
            diff(name, &Bson::Array(want.clone()), &found, d);
        }
        for w in &self.wheres {
            let i = w.index.unwrap_or(0);
            match docs.get(i) {
                Some(doc) => w.check(&format!("{name}[{i}]"), &Bson::Document(doc.clone()), d),
                None => d.push(format!(
                    "{label}: expected a document at position {i}, found {} {}",
                    docs.len(),
                    plural(docs.len(), "document")
                )),
            }
        }
    }
}

impl Where {
    fn check(&self, label: &str, root: &Bson, d: &mut Diffs) {
        let label = if self.path.is_empty() {
            label.to_string()
        } else {
            format!("{label}.{}", self.path)
        };
        let found = lookup(root, &self.path);
        match (&self.test, found) {
            (Test::Exists(true), None) => d.push(format!("{label}: expected the field, missing")),
            (Test::Exists(false), Some(v)) => d.push(format!(
                "{label}: expected no such field, found {}",
                inline(v)
            )),
            (Test::Exists(_), _) => {}
            (Test::Equals(want), None) => {
                d.push(format!("{label}: expected {}, missing", inline(want)))
            }
            (Test::Equals(want), Some(v)) => diff(&label, want, v, d),
            (Test::Size(n), Some(Bson::Array(a))) if a.len() == *n => {}
            (Test::Size(n), Some(Bson::Array(a))) => d.push(format!(
                "{label}: expected {n} {}, found {}",
                plural(*n, "element"),
                a.len()
            )),
            (Test::Size(n), Some(v)) => d.push(format!(
                "{label}: expected an array of {n}, found {}",
                describe(v)
            )),
            (Test::Size(n), None) => d.push(format!("{label}: expected an array of {n}, missing")),
        }
    }
}

/// Follow a dotted path; numeric parts index arrays. An empty path is the root.
fn lookup<'a>(root: &'a Bson, path: &str) -> Option<&'a Bson> {
    if path.is_empty() {
        return Some(root);
    }
    path.split('.').try_fold(root, |v, part| match v {
        Bson::Document(doc) => doc.get(part),
        Bson::Array(a) => part.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    })
}

impl ErrorCheck {
    fn describe(&self) -> String {
        match (&self.code_name, self.code) {
            (Some(n), _) => format!(" ({n})"),
            (None, Some(c)) => format!(" (code {c})"),
            (None, None) => String::new(),
        }
    }

    fn compare(&self, e: &Error, db_text: &str, script: &str, d: &mut Diffs) {
        let found = e.one_line(db_text, script);
        if let Some(n) = &self.code_name {
            if *n != e.code_name {
                d.push(format!("error: expected {n}, found {found}"));
            }
        }
        if let Some(c) = self.code {
            if c != e.code {
                d.push(format!("error: expected code {c}, found code {}", e.code));
            }
        }
        if let Some(m) = &self.message_contains {
            if !e.message.contains(m.as_str()) {
                d.push(format!(
                    "error: expected a message containing {m:?}, found {found}"
                ));
            }
        }
        let place = e.place(db_text, script);
        if let Some(s) = &self.source {
            let actual = match e.source {
                Source::Script => "script",
                Source::Database => "db",
            };
            if s != actual {
                d.push(format!(
                    "error: expected it in the {s}, found it in the {actual}"
                ));
            }
        }
        if let Some(line) = self.line {
            match &place {
                Some(p) if p.line == line => {}
                Some(p) => d.push(format!(
                    "error: expected it on line {line}, found line {}",
                    p.line
                )),
                None => d.push(format!(
                    "error: expected it on line {line}, found no position"
                )),
            }
        }
    }
}
