//! Editor assistance: compile-only diagnostics, completion and operator docs
//! for the page's editors. It reads text with the reader and calls the
//! compilers; it never runs a statement and changes nothing they do.
pub mod catalogue;
mod check;
pub mod complete;
mod context;
pub mod methods;
#[cfg(test)]
mod tests;
pub mod texts;

pub use check::check_script;
pub use complete::{complete, Candidate, Completion};

use crate::error::{Error, Source};
use bson::{Bson, Document};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};

/// Documents read per collection for field paths, and paths kept per collection.
const SAMPLE_DOCS: usize = 1000;
const MAX_PATHS: usize = 500;
const MAX_DEPTH: usize = 8;

/// What completion knows of the Database pane: each collection and the dotted
/// field paths its documents use.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    collections: Vec<(String, Vec<String>)>,
}

impl Summary {
    pub fn collections(&self) -> impl Iterator<Item = &str> {
        self.collections.iter().map(|(n, _)| n.as_str())
    }
    /// The field paths of a collection, sorted (none for an unknown one).
    pub fn fields(&self, collection: &str) -> &[String] {
        self.collections
            .iter()
            .find(|(n, _)| n == collection)
            .map_or(&[], |(_, f)| f.as_slice())
    }
}

/// Read the Database pane: its errors (spans into it) and its summary.
pub fn check_database(db_text: &str) -> (Vec<Error>, Summary) {
    let vars = HashMap::new();
    let ids = || bson::oid::ObjectId::from_bytes([0; 12]);
    let ctx = crate::shell::LowerCtx {
        vars: &vars,
        now: bson::DateTime::from_millis(0),
        extjson: true,
        new_id: &ids,
        tz: None,
    };
    match crate::config::parse_database(db_text, &ctx) {
        Ok(colls) => {
            let collections = colls
                .iter()
                .map(|(name, docs)| (name.clone(), field_paths(docs)))
                .collect();
            (Vec::new(), Summary { collections })
        }
        Err(e) => (vec![e.in_source(Source::Database)], Summary::default()),
    }
}

fn field_paths(docs: &[Document]) -> Vec<String> {
    let mut paths = BTreeSet::new();
    for d in docs.iter().take(SAMPLE_DOCS) {
        walk(d, "", 0, &mut paths);
    }
    paths.into_iter().collect()
}

fn walk(d: &Document, prefix: &str, depth: usize, out: &mut BTreeSet<String>) {
    if depth >= MAX_DEPTH {
        return;
    }
    for (k, v) in d {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        if !out.contains(&path) {
            if out.len() >= MAX_PATHS {
                return;
            }
            out.insert(path.clone());
        }
        match v {
            Bson::Document(sub) => walk(sub, &path, depth + 1, out),
            Bson::Array(items) => {
                for item in items.iter().take(20) {
                    if let Bson::Document(sub) = item {
                        walk(sub, &path, depth + 1, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The catalogue's entries for a name, for hover docs: `[{name, kind, summary, syntax, url}]`.
pub fn docs(name: &str) -> Vec<&'static catalogue::Entry> {
    catalogue::lookup(name).collect()
}

/// Diagnostics as the editor takes them: `[{from, to, message, code, codeName}]`
/// with UTF-16 offsets into `text` (the pane the errors point into).
pub fn diagnostics_json(errors: &[Error], text: &str) -> Value {
    let list = errors
        .iter()
        .map(|e| {
            let span = e.span.unwrap_or_default();
            let mut d = json!({
                "from": crate::error::utf16_offset(text, span.start),
                "to": crate::error::utf16_offset(text, span.end),
                "message": e.message,
                "code": e.code,
                "codeName": e.code_name.to_string(),
            });
            crate::messages::annotate(e, &mut d);
            d
        })
        .collect();
    Value::Array(list)
}

/// Completion at a UTF-16 cursor: `{from, to, options: [{label, type, detail, info, apply?}]}`;
/// `detailKey` and `infoKey` (when there is an info) name the texts for the page's catalogues.
pub fn completion_json(script: &str, cursor_utf16: usize, summary: &Summary) -> Value {
    let cursor = byte_offset(script, cursor_utf16);
    let c = complete(script, cursor, summary);
    let options: Vec<Value> = c
        .candidates
        .iter()
        .map(|o| {
            let mut v = json!({ "label": o.label, "type": o.icon, "detail": o.detail.en,
                                "detailKey": o.detail.key, "info": o.info });
            if let Value::Object(m) = &mut v {
                if !o.info_key.is_empty() {
                    m.insert("infoKey".into(), o.info_key.clone().into());
                }
                if let Some(apply) = &o.apply {
                    m.insert("apply".into(), apply.clone().into());
                }
            }
            v
        })
        .collect();
    json!({
        "from": crate::error::utf16_offset(script, c.from),
        "to": crate::error::utf16_offset(script, c.to),
        "options": options,
    })
}

/// Hover docs for an operator name: `[{name, kind, summary, syntax, url, kindKey, summaryKey}]`
/// (the keys name the texts for the page's catalogues).
pub fn docs_json(name: &str) -> Value {
    Value::Array(
        docs(name)
            .into_iter()
            .map(|e| {
                json!({ "name": e.name, "kind": e.kind.label(), "summary": e.summary,
                        "syntax": e.syntax, "url": e.url, "kindKey": e.kind.label_key(),
                        "summaryKey": e.summary_key() })
            })
            .collect(),
    )
}

/// The byte offset of a UTF-16 offset (clamped to the text, on a char boundary).
pub fn byte_offset(text: &str, utf16: usize) -> usize {
    let mut units = 0;
    for (i, ch) in text.char_indices() {
        if units >= utf16 {
            return i;
        }
        units += ch.len_utf16();
    }
    text.len()
}
