//! Step-through tutorials: the file format of `www/tutorials/*.json` and the
//! checker that tells a learner whether a step's run came out as expected.
//!
//! A tutorial is data, not code: each step carries its database configuration,
//! its script and a `check` (see [`check`]) that this crate evaluates against
//! the [`crate::RunOutput`] of running the step, so the page, the CLI tests and
//! the browser tests all judge a step the same way.
pub mod check;
mod diff;

pub use check::Check;

use crate::error::{Error, Result};
use crate::{RunCtx, RunOutput};
use serde::{Deserialize, Deserializer};

/// One tutorial file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tutorial {
    pub id: String,
    pub title: String,
    pub summary: String,
    pub steps: Vec<Step>,
}

/// One step: what the learner reads, the editors' contents, and the expectation.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub title: String,
    /// Short Markdown (paragraphs, `code`, **bold**, lists).
    #[serde(deserialize_with = "lines")]
    pub text: String,
    /// A database configuration (`db = { trades: [...] }`).
    #[serde(deserialize_with = "lines")]
    pub db: String,
    /// mongosh statements.
    #[serde(deserialize_with = "lines")]
    pub script: String,
    pub check: serde_json::Value,
}

/// `index.json`: the tutorials in menu order.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    pub tutorials: Vec<IndexEntry>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexEntry {
    pub id: String,
    pub file: String,
    pub title: String,
    pub summary: String,
}

/// Long texts may be written as an array of lines, which keeps the JSON
/// readable and diffable; they are joined with newlines.
fn lines<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Text {
        One(String),
        Lines(Vec<String>),
    }
    Ok(match Text::deserialize(d)? {
        Text::One(s) => s,
        Text::Lines(v) => v.join("\n"),
    })
}

impl Tutorial {
    pub fn parse(json: &str) -> Result<Tutorial> {
        serde_json::from_str(json).map_err(|e| Error::failed_to_parse(format!("tutorial: {e}")))
    }
}

impl Index {
    pub fn parse(json: &str) -> Result<Index> {
        serde_json::from_str(json)
            .map_err(|e| Error::failed_to_parse(format!("tutorial index: {e}")))
    }
}

impl Step {
    /// Run the step as written and check it: the differences (empty when it passes).
    pub fn run_and_check(&self, run: &RunCtx) -> Result<(RunOutput, Vec<String>)> {
        let check = Check::parse(&self.check)?;
        let out = crate::run(&self.db, &self.script, run);
        let diffs = check.differences(&out, &self.db, &self.script);
        Ok((out, diffs))
    }
}

/// Run `script` against `db` and compare the outcome with `check_json`: the
/// page's entry point. `Err` only when the check itself is malformed.
pub fn check_step(check_json: &str, db: &str, script: &str, run: &RunCtx) -> Result<Vec<String>> {
    let spec = crate::json::parse(check_json)
        .map_err(|e| Error::failed_to_parse(format!("tutorial check: {e}")))?;
    let check = Check::parse(&spec)?;
    let out = crate::run(db, script, run);
    Ok(check.differences(&out, db, script))
}
