//! Comparing one part of a check with the run: a collection, a condition on a
//! value, the error. Each difference is said twice: an exact detail, and a
//! plain-words remark for the learner.
use super::{CollectionCheck, ErrorCheck, Judge, Test, Where};
use crate::error::{Error, Source};
use crate::text::shell::{inline, type_name};
use crate::tutorial::diff::{describe, diff};
use crate::tutorial::feedback::{first_difference, result_difference, Feedback, Place};
use crate::value::equal;
use bson::{Bson, Document};

pub(super) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

impl CollectionCheck {
    pub(super) fn compare(&self, name: &str, docs: Option<&[Document]>, j: &mut Judge) {
        let label = format!("collection {name}");
        let docs = docs.unwrap_or(&[]);
        if let Some(n) = self.count {
            if n != docs.len() {
                j.d.push(format!(
                    "{label}: expected {n} {}, found {}",
                    plural(n, "document"),
                    docs.len()
                ));
                j.say(
                    Feedback::new("collectionCount")
                        .with("collection", name)
                        .with("expected", n)
                        .with("actual", docs.len()),
                );
            }
        }
        if let Some(want) = &self.docs {
            let found = Bson::Array(docs.iter().cloned().map(Bson::Document).collect());
            let want = Bson::Array(want.clone());
            diff(name, &want, &found, &mut j.d);
            if let Some(mut fb) = result_difference(&want, &found, None) {
                if fb.key == "resultCount" {
                    fb.key = "collectionCount";
                }
                fb.params.insert("collection".into(), name.into());
                j.say(fb);
            }
        }
        for w in &self.wheres {
            let i = w.index.unwrap_or(0);
            match docs.get(i) {
                Some(doc) => {
                    let place = Place {
                        position: Some(i),
                        collection: Some(name.to_string()),
                        ..Place::default()
                    };
                    w.check(
                        &format!("{name}[{i}]"),
                        &Bson::Document(doc.clone()),
                        &place,
                        j,
                    )
                }
                None => {
                    j.d.push(format!(
                        "{label}: expected a document at position {i}, found {} {}",
                        docs.len(),
                        plural(docs.len(), "document")
                    ));
                    j.say(
                        Feedback::new("collectionCount")
                            .with("collection", name)
                            .with("expected", i + 1)
                            .with("actual", docs.len()),
                    );
                }
            }
        }
    }
}

impl Where {
    /// Check this condition inside one result (the whole result, or its
    /// `index`th document).
    pub(super) fn in_result(
        &self,
        root: &Bson,
        label: &str,
        statement: Option<usize>,
        j: &mut Judge,
    ) {
        let place = Place {
            statement,
            position: self.index,
            collection: None,
        };
        match (self.index, root) {
            (None, v) => self.check(label, v, &place, j),
            (Some(i), Bson::Array(a)) => match a.get(i) {
                Some(v) => self.check(&format!("{label}[{i}]"), v, &place, j),
                None => {
                    j.d.push(format!("{label}[{i}]: missing"));
                    j.say(
                        Feedback::new("resultCount")
                            .with("expected", i + 1)
                            .with("actual", a.len())
                            .with("atLeast", true),
                    );
                }
            },
            (Some(i), other) => {
                j.d.push(format!("{label}[{i}]: missing"));
                j.say(Feedback::new("notList").with("actual", type_name(other)));
            }
        }
    }

    pub(super) fn check(&self, label: &str, root: &Bson, place: &Place, j: &mut Judge) {
        let label = if self.path.is_empty() {
            label.to_string()
        } else {
            format!("{label}.{}", self.path)
        };
        let found = lookup(root, &self.path);
        let before = j.d.len();
        let mut plain: Option<Feedback> = None;
        match (&self.test, found) {
            (Test::Exists(true), None) => {
                j.d.push(format!("{label}: expected the field, missing"));
                plain = Some(Feedback::new("absent"));
            }
            (Test::Exists(false), Some(v)) => {
                j.d.push(format!(
                    "{label}: expected no such field, found {}",
                    inline(v)
                ));
                plain = Some(Feedback::new("present").value("actual", v));
            }
            (Test::Exists(_), _) => {}
            (Test::Equals(want), None) => {
                j.d.push(format!("{label}: expected {}, missing", inline(want)));
                plain = Some(Feedback::new("missing").value("expected", want));
            }
            (Test::Equals(want), Some(v)) => {
                diff(&label, want, v, &mut j.d);
                plain = if self.label.is_some() && !equal(want, v) {
                    Some(
                        Feedback::new("value")
                            .value("expected", want)
                            .value("actual", v),
                    )
                } else {
                    first_difference(want, v, &self.path, place)
                };
            }
            (Test::Size(n), Some(Bson::Array(a))) if a.len() == *n => {}
            (Test::Size(n), Some(Bson::Array(a))) => {
                j.d.push(format!(
                    "{label}: expected {n} {}, found {}",
                    plural(*n, "element"),
                    a.len()
                ));
                plain = Some(
                    Feedback::new("size")
                        .with("expected", *n)
                        .with("actual", a.len()),
                );
            }
            (Test::Size(n), Some(v)) => {
                j.d.push(format!(
                    "{label}: expected an array of {n}, found {}",
                    describe(v)
                ));
                plain = Some(
                    Feedback::new("notArray")
                        .with("expected", *n)
                        .with("actual", type_name(v)),
                );
            }
            (Test::Size(n), None) => {
                j.d.push(format!("{label}: expected an array of {n}, missing"));
                plain = Some(Feedback::new("absent"));
            }
        }
        if j.d.len() == before {
            return;
        }
        if let Some(mut f) = plain {
            // A labelled condition speaks of "the bucket's count", not of a path.
            if let Some(l) = &self.label {
                f.params.insert("label".into(), l.clone().into());
                f.params.remove("position");
                f.params.remove("collection");
                f.params.remove("statement");
                f.params.remove("field");
            } else {
                if !f.params.contains_key("field") {
                    f.params.insert("field".into(), self.path.clone().into());
                }
                f = f.at(place);
            }
            j.say(f);
        }
    }
}

/// Follow a dotted path; numeric parts index arrays. An empty path is the root.
pub(super) fn lookup<'a>(root: &'a Bson, path: &str) -> Option<&'a Bson> {
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
    pub(super) fn describe(&self) -> String {
        match (&self.code_name, self.code) {
            (Some(n), _) => format!(" ({n})"),
            (None, Some(c)) => format!(" (code {c})"),
            (None, None) => String::new(),
        }
    }

    pub(super) fn compare(&self, e: &Error, db_text: &str, script: &str, j: &mut Judge) {
        let found = e.one_line(db_text, script);
        let before = j.d.len();
        if let Some(n) = &self.code_name {
            if *n != e.code_name {
                j.d.push(format!("error: expected {n}, found {found}"));
            }
        }
        if let Some(c) = self.code {
            if c != e.code {
                j.d.push(format!("error: expected code {c}, found code {}", e.code));
            }
        }
        if let Some(m) = &self.message_contains {
            if !e.message.contains(m.as_str()) {
                j.d.push(format!(
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
                j.d.push(format!(
                    "error: expected it in the {s}, found it in the {actual}"
                ));
            }
        }
        if let Some(line) = self.line {
            match &place {
                Some(p) if p.line == line => {}
                Some(p) => j.d.push(format!(
                    "error: expected it on line {line}, found line {}",
                    p.line
                )),
                None => j.d.push(format!(
                    "error: expected it on line {line}, found no position"
                )),
            }
        }
        if j.d.len() > before {
            j.say(
                Feedback::new("otherError")
                    .with("expected", self.code_name.clone().unwrap_or_default())
                    .with("actual", e.code_name.clone())
                    .with("message", e.message.clone()),
            );
        }
    }
}
