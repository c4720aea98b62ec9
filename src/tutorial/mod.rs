//! Step-through tutorials: the file format of `www/tutorials/*.json` and the
//! checker that tells a learner whether a step's run came out as expected.
//!
//! A tutorial is data, not code: each step carries its database configuration,
//! its script and a `check` (see [`check`]) that this crate evaluates against
//! the [`crate::RunOutput`] of running the step, so the page, the CLI tests and
//! the browser tests all judge a step the same way.
pub mod check;
mod diff;
pub mod feedback;

pub use check::{Check, Verdict};
pub use feedback::Feedback;

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
    /// The pages this tutorial is based on, credited and linked at its start.
    pub sources: Vec<Source>,
    pub steps: Vec<Step>,
}

/// A page a tutorial draws on: its title, address and language (BCP 47).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub title: String,
    pub url: String,
    pub language: String,
    /// Who wrote it, when it is not the MongoDB manual.
    #[serde(default)]
    pub author: Option<String>,
}

/// A walkthrough gives the script and the learner runs it; an exercise states a
/// goal, starts the Query pane with a starter and the learner writes the query.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    #[default]
    Walkthrough,
    Exercise,
}

/// A plausible wrong answer to an exercise and the feedback keys it must get
/// (the tests run it; the page never shows it).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wrong {
    #[serde(deserialize_with = "lines")]
    pub script: String,
    pub says: Vec<String>,
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
    /// mongosh statements: the script of a walkthrough, the starter of an exercise.
    #[serde(deserialize_with = "lines")]
    pub script: String,
    pub check: serde_json::Value,
    #[serde(default)]
    pub kind: Kind,
    /// An exercise's answer, put into the Query pane by "Show solution".
    #[serde(default, deserialize_with = "opt_lines")]
    pub solution: Option<String>,
    /// Short Markdown hints, revealed one at a time.
    #[serde(default)]
    pub hints: Vec<String>,
    #[serde(default)]
    pub wrong: Vec<Wrong>,
    /// The result (1-based) the text talks about: the page scrolls to it after a run.
    #[serde(default)]
    pub focus: Option<usize>,
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

fn opt_lines<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    lines(d).map(Some)
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
    /// The script that completes the step: an exercise's solution, or the
    /// walkthrough's own script.
    pub fn answer(&self) -> &str {
        self.solution.as_deref().unwrap_or(&self.script)
    }

    /// Run `script` on the step's database and judge it.
    pub fn judge(&self, script: &str, run: &RunCtx) -> Result<(RunOutput, Verdict)> {
        let check = Check::parse(&self.check)?;
        let out = crate::run(&self.db, script, run);
        let verdict = check.judge(&out, &self.db, script);
        Ok((out, verdict))
    }

    /// Run the step's answer and check it: the differences (empty when it passes).
    pub fn run_and_check(&self, run: &RunCtx) -> Result<(RunOutput, Vec<String>)> {
        let (out, v) = self.judge(self.answer(), run)?;
        Ok((out, v.details))
    }
}

/// Run `script` against `db` and judge the outcome with `check_json`: the
/// page's entry point. `Err` only when the check itself is malformed.
pub fn judge_step(check_json: &str, db: &str, script: &str, run: &RunCtx) -> Result<Verdict> {
    let check = parse_check(check_json)?;
    let out = crate::run(db, script, run);
    Ok(check.judge(&out, db, script))
}

/// A step's check from its JSON text (as the page sends it with a run).
pub fn parse_check(check_json: &str) -> Result<Check> {
    let spec = crate::json::parse(check_json)
        .map_err(|e| Error::failed_to_parse(format!("tutorial check: {e}")))?;
    Check::parse(&spec)
}

/// [`judge_step`]'s exact differences only.
pub fn check_step(check_json: &str, db: &str, script: &str, run: &RunCtx) -> Result<Vec<String>> {
    judge_step(check_json, db, script, run).map(|v| v.details)
}
