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
use super::feedback::{result_difference, Feedback, Place};
use crate::error::{Error, Result, Source};
use crate::text::shell::type_name;
use crate::value::equal;
use crate::RunOutput;
use bson::Bson;
use serde_json::Value;

mod compare;
mod spec;

use compare::{lookup, plural};

/// A compiled check: expected values already converted to BSON.
#[derive(Clone, Debug, Default)]
pub struct Check {
    result: Option<Bson>,
    results: Option<Vec<Bson>>,
    result_count: Option<usize>,
    result_where: Vec<Where>,
    result_every: Vec<Where>,
    result_ids: Option<Vec<Bson>>,
    collections: Vec<(String, CollectionCheck)>,
    error: Option<ErrorCheck>,
}

/// The outcome of a check: plain-words remarks for the learner and the exact
/// differences behind them (internal paths and raw values); both empty on a pass.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    pub feedback: Vec<Feedback>,
    pub details: Vec<String>,
}

impl Verdict {
    pub fn ok(&self) -> bool {
        self.feedback.is_empty() && self.details.is_empty()
    }

    pub fn keys(&self) -> Vec<&'static str> {
        self.feedback.iter().map(|f| f.key).collect()
    }
}

/// Both kinds of remark, gathered while comparing.
#[derive(Default)]
struct Judge {
    d: Diffs,
    fb: Vec<Feedback>,
}

impl Judge {
    fn say(&mut self, f: Feedback) {
        // A count is said once: the positions past it only repeat it.
        let counts = ["resultCount", "resultsCount", "notList", "noResult"];
        if counts.contains(&f.key) && self.fb.iter().any(|g| counts.contains(&g.key)) {
            return;
        }
        // A few remarks are enough to act on; the details keep the rest.
        if self.fb.len() < 3 && !self.fb.contains(&f) {
            self.fb.push(f);
        }
    }
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
    /// Which result (1-based); the last one when absent.
    result: Option<usize>,
    path: String,
    test: Test,
    /// The learner's name for the value ("the bucket's count"), prose from the file.
    label: Option<String>,
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
    result_every: Vec<WhereSpec>,
    result_ids: Option<Vec<Value>>,
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
    result: Option<usize>,
    label: Option<String>,
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
        if self.result == Some(0) {
            return Err(malformed("where: result counts from 1"));
        }
        Ok(Where {
            index: self.index,
            result: self.result,
            path: self.path,
            test,
            label: self.label,
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
            result_every: spec
                .result_every
                .into_iter()
                .map(WhereSpec::compile)
                .collect::<Result<_>>()?,
            result_ids: spec
                .result_ids
                .map(|r| r.into_iter().map(ejson).collect::<Result<_>>())
                .transpose()?,
            collections,
            error: spec.error,
        })
    }

    /// What differs between the expectation and the run, one sentence each;
    /// empty when the step passes.
    pub fn differences(&self, out: &RunOutput, db_text: &str, script: &str) -> Vec<String> {
        self.judge(out, db_text, script).details
    }

    /// Judge a run: plain-words remarks and the exact differences behind them.
    pub fn judge(&self, out: &RunOutput, db_text: &str, script: &str) -> Verdict {
        let mut j = Judge::default();
        match (&self.error, &out.error) {
            (None, Some(e)) => {
                j.d.push(format!(
                    "the run stopped with an error: {}",
                    e.one_line(db_text, script)
                ));
                let mut f = Feedback::new("runError")
                    .with("codeName", e.code_name.clone())
                    .with("message", e.message.clone());
                // The engine's own words, for the page to show in its language.
                if let Some(t) = crate::messages::recognise(e) {
                    f = f.with("text", crate::messages::to_json(&t));
                }
                if let Some(p) = e.place(db_text, script) {
                    f = f.with("line", p.line).with(
                        "source",
                        match e.source {
                            Source::Script => "script",
                            Source::Database => "db",
                        },
                    );
                }
                j.say(f);
                return j.finish();
            }
            (Some(want), None) => {
                j.d.push(format!(
                    "expected an error{}, but the run finished without one",
                    want.describe()
                ));
                let mut f = Feedback::new("noError");
                if let Some(n) = &want.code_name {
                    f = f.with("expected", n.clone());
                }
                j.say(f);
            }
            (Some(want), Some(e)) => want.compare(e, db_text, script, &mut j),
            (None, None) => {}
        }
        self.check_results(out, &mut j);
        for (name, c) in &self.collections {
            let docs = out
                .collections
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, docs)| docs.as_slice());
            c.compare(name, docs, &mut j);
        }
        j.finish()
    }

    fn check_results(&self, out: &RunOutput, j: &mut Judge) {
        if let Some(want) = &self.results {
            if want.len() != out.results.len() {
                j.d.push(format!(
                    "expected {} results, found {}",
                    want.len(),
                    out.results.len()
                ));
                j.say(
                    Feedback::new("resultsCount")
                        .with("expected", want.len())
                        .with("actual", out.results.len()),
                );
            }
            for (i, (w, f)) in want.iter().zip(&out.results).enumerate() {
                diff(&format!("result {}", i + 1), w, f, &mut j.d);
                if let Some(fb) = result_difference(w, f, Some(i + 1)) {
                    j.say(fb);
                }
            }
        }
        for w in self.result_where.iter().filter(|w| w.result.is_some()) {
            let n = w.result.unwrap_or(1);
            match out.results.get(n - 1) {
                Some(r) => w.in_result(r, &format!("result {n}"), Some(n), j),
                None => {
                    j.d.push(format!("result {n}: missing"));
                    j.say(
                        Feedback::new("resultsCount")
                            .with("expected", n)
                            .with("actual", out.results.len()),
                    );
                }
            }
        }
        let wants_last = self.result.is_some()
            || self.result_count.is_some()
            || self.result_ids.is_some()
            || !self.result_every.is_empty()
            || self.result_where.iter().any(|w| w.result.is_none());
        if !wants_last {
            return;
        }
        let Some(last) = out.results.last() else {
            j.d.push("expected a result, but the script produced none".to_string());
            j.say(Feedback::new("noResult"));
            return;
        };
        if let Some(want) = &self.result {
            diff("result", want, last, &mut j.d);
            if let Some(fb) = result_difference(want, last, None) {
                j.say(fb);
            }
        }
        if let Some(n) = self.result_count {
            let found = match last {
                Bson::Array(a) if a.len() == n => None,
                Bson::Array(a) => Some((a.len().to_string(), Some(a.len()))),
                other => Some((describe(other), None)),
            };
            if let Some((text, len)) = found {
                j.d.push(format!(
                    "result: expected {n} {}, found {text}",
                    plural(n, "document")
                ));
                j.say(match len {
                    Some(len) => Feedback::new("resultCount")
                        .with("expected", n)
                        .with("actual", len),
                    None => Feedback::new("notList")
                        .with("expected", n)
                        .with("actual", type_name(last)),
                });
            }
        }
        if let Some(want) = &self.result_ids {
            let ids: Vec<Bson> = match last {
                Bson::Array(a) => a
                    .iter()
                    .map(|d| match d {
                        Bson::Document(doc) => doc.get("_id").cloned().unwrap_or(Bson::Null),
                        _ => Bson::Null,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let same = ids.len() == want.len() && ids.iter().zip(want).all(|(a, b)| equal(a, b));
            if !same {
                let list = |v: &[Bson]| v.iter().map(describe).collect::<Vec<_>>().join(", ");
                j.d.push(format!(
                    "result _ids: expected [{}], found [{}]",
                    list(want),
                    list(&ids)
                ));
                j.say(
                    Feedback::new("ids")
                        .with("expected", list(want))
                        .with("actual", list(&ids))
                        .with("expectedCount", want.len())
                        .with("actualCount", ids.len()),
                );
            }
        }
        for w in &self.result_every {
            match last {
                Bson::Array(a) => {
                    // The first document that breaks the rule speaks for the others.
                    for (i, doc) in a.iter().enumerate() {
                        let mut probe = Judge::default();
                        w.check(&format!("result[{i}]"), doc, &Place::default(), &mut probe);
                        if probe.d.len() > 0 {
                            j.d.push(probe.d.into_vec().join("; "));
                            let actual = lookup(doc, &w.path).map_or_else(String::new, describe);
                            let mut f = Feedback::new(if actual.is_empty() {
                                "everyMissing"
                            } else {
                                "every"
                            })
                            .with("field", w.path.clone())
                            .with("position", i + 1)
                            .with("actual", actual);
                            f = match &w.test {
                                Test::Equals(v) => f.value("expected", v),
                                Test::Exists(false) => Feedback::new("everyAbsent")
                                    .with("field", w.path.clone())
                                    .with("position", i + 1),
                                _ => f,
                            };
                            j.say(f);
                            break;
                        }
                    }
                }
                other => {
                    j.d.push(format!(
                        "result: expected documents, found {}",
                        describe(other)
                    ));
                    j.say(Feedback::new("notList").with("actual", type_name(other)));
                }
            }
        }
        for w in self.result_where.iter().filter(|w| w.result.is_none()) {
            w.in_result(last, "result", None, j);
        }
    }
}

impl Judge {
    fn finish(mut self) -> Verdict {
        let details = std::mem::take(&mut self.d).into_vec();
        // Every difference gets at least one plain remark.
        if !details.is_empty() && self.fb.is_empty() {
            self.fb.push(Feedback::new("differs"));
        }
        Verdict {
            feedback: self.fb,
            details,
        }
    }
}
