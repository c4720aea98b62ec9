//! Exact copies of what a run produced, for the page's Copy and Download
//! buttons: a statement's result or any collection after the run, as
//! canonical Extended JSON (every type kept: Int64, Decimal128, doubles
//! written as doubles, dates, binary; `mongoimport --jsonArray` reads the
//! array form) or in mongosh's shell form (which the reader reads back to
//! the same values). The script runs again on the kept configuration with
//! the run's clock and seed, so the copy is the run's own output.
use super::Cache;
use crate::text::shell;
use crate::{budget, RunCtx};
use bson::Bson;

/// What to copy.
#[derive(Clone, Copy, Debug)]
pub enum Target<'a> {
    /// The `n`-th result (counted from 0).
    Result(usize),
    /// A collection as the run left it.
    Collection(&'a str),
}

/// How to write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A canonical Extended JSON array, one document per line (a value that
    /// is not an array becomes a one-element array).
    Array,
    /// The value itself as canonical Extended JSON, indented.
    Value,
    /// As mongosh prints it.
    Shell,
}

impl Form {
    pub fn parse(s: &str) -> Option<Form> {
        match s {
            "array" => Some(Form::Array),
            "value" => Some(Form::Value),
            "shell" => Some(Form::Shell),
            _ => None,
        }
    }
}

/// `{"text": ...}`, or `{"error": ...}` when the run fails before the
/// result (or the collection does not exist).
pub fn export_json(
    cache: &mut Cache,
    db_text: &str,
    script: &str,
    run: &RunCtx,
    target: Target,
    form: Form,
) -> String {
    let _budget = budget::start_run();
    let found = match cache.database(db_text, run) {
        Err(e) => Err(e.clone()),
        Ok(start) => {
            let mut db = start.clone();
            let mut value: Option<Bson> = None;
            let mut n = 0;
            let error = crate::run_each(&mut db, script, run, false, |r, _| {
                if target_is_result(target, n) {
                    value = Some(r.to_bson());
                }
                n += 1;
            });
            match target {
                Target::Collection(name) => match crate::storage::namespaces::find(&db, name) {
                    Some(c) => Ok(Bson::Array(
                        c.docs().iter().cloned().map(Bson::Document).collect(),
                    )),
                    None => Err(error.unwrap_or_else(|| {
                        crate::Error::namespace_not_found(format!("no collection named {name}"))
                    })),
                },
                Target::Result(_) => match (value, error) {
                    (Some(v), _) => Ok(v),
                    (None, Some(e)) => Err(e),
                    (None, None) => Err(crate::Error::bad_value("the run has no such result")),
                },
            }
        }
    };
    let json = match found {
        Ok(v) => serde_json::json!({ "text": write(&v, form) }),
        Err(e) => serde_json::json!({ "error": crate::error_json(&e, db_text, script) }),
    };
    let mut out = String::new();
    crate::json::write(&mut out, &json);
    out
}

fn target_is_result(target: Target, n: usize) -> bool {
    matches!(target, Target::Result(i) if i == n)
}

/// `value` written in `form`.
pub fn write(value: &Bson, form: Form) -> String {
    match form {
        Form::Shell => shell::print(value),
        Form::Value => serde_json::to_string_pretty(&value.clone().into_canonical_extjson())
            .unwrap_or_default(),
        Form::Array => {
            let docs: Vec<&Bson> = match value {
                Bson::Array(items) => items.iter().collect(),
                other => vec![other],
            };
            let mut out = String::from("[");
            for (i, d) in docs.iter().enumerate() {
                out.push_str(if i > 0 { ",\n  " } else { "\n  " });
                let json = (*d).clone().into_canonical_extjson();
                out.push_str(&serde_json::to_string(&json).unwrap_or_default());
            }
            out.push_str(if docs.is_empty() { "]\n" } else { "\n]\n" });
            out
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    const DB: &str = "db = { t: [ {_id: 1, n: NumberLong(5), d: NumberDecimal('1.10'), x: 2.5,
        at: ISODate('2024-01-02T03:04:05.678Z'), b: BinData(0, 'AQI=')} ], u: [ {_id: 'u'} ] }";

    fn export(script: &str, target: Target, form: Form) -> serde_json::Value {
        let run = RunCtx::new(bson::DateTime::from_millis(0), 0);
        let text = export_json(&mut Cache::default(), DB, script, &run, target, form);
        serde_json::from_str(&text).expect("valid JSON")
    }

    fn text(v: &serde_json::Value) -> &str {
        v["text"].as_str().unwrap_or_else(|| panic!("no text: {v}"))
    }

    #[test]
    fn collections_are_canonical_and_read_back_to_the_same_values() {
        let v = export(
            "db.t.updateOne({_id: 1}, {$set: {y: 1}})",
            Target::Collection("t"),
            Form::Array,
        );
        let t = text(&v);
        assert!(t.starts_with("[\n  {") && t.ends_with("}\n]\n"), "{t}");
        for kept in [
            r#""n":{"$numberLong":"5"}"#,
            r#""d":{"$numberDecimal":"1.10"}"#,
            r#""x":{"$numberDouble":"2.5"}"#,
            r#""at":{"$date":{"$numberLong":"1704164645678"}}"#,
            r#""y":{"$numberInt":"1"}"#,
        ] {
            assert!(t.contains(kept), "{kept} in {t}");
        }
        // Read back through the bson crate's Extended JSON parser: the same document.
        let json: serde_json::Value = serde_json::from_str(t).expect("JSON array");
        let back = Bson::try_from(json).expect("Extended JSON");
        let run = RunCtx::new(bson::DateTime::from_millis(0), 0);
        let mut db = crate::load_database(DB, &run).expect("loads");
        crate::run_each(
            &mut db,
            "db.t.updateOne({_id: 1}, {$set: {y: 1}})",
            &run,
            false,
            |_, _| {},
        );
        let stored = db
            .collection("t")
            .map(|c| c.docs().to_vec())
            .unwrap_or_default();
        assert_eq!(
            back,
            Bson::Array(stored.into_iter().map(Bson::Document).collect())
        );
    }

    #[test]
    fn unchanged_collections_and_results_export_too() {
        let v = export("db.t.find()", Target::Collection("u"), Form::Array);
        assert_eq!(text(&v), "[\n  {\"_id\":\"u\"}\n]\n");
        let v = export(
            "db.t.countDocuments()\ndb.t.find({}, {n: 1})",
            Target::Result(1),
            Form::Array,
        );
        assert_eq!(
            text(&v),
            "[\n  {\"_id\":{\"$numberInt\":\"1\"},\"n\":{\"$numberLong\":\"5\"}}\n]\n"
        );
        let v = export("db.t.countDocuments()", Target::Result(0), Form::Value);
        assert_eq!(text(&v), "{\n  \"$numberInt\": \"1\"\n}");
        let v = export(
            "db.t.find({}, {n: 1, d: 1})",
            Target::Result(0),
            Form::Shell,
        );
        assert_eq!(
            text(&v),
            "[ { _id: 1, n: Long('5'), d: Decimal128('1.10') } ]"
        );
    }

    #[test]
    fn a_missing_collection_or_result_is_an_error() {
        let v = export("db.t.find()", Target::Collection("nope"), Form::Array);
        assert_eq!(v["error"]["code"], 26);
        let v = export("db.t.find()", Target::Result(3), Form::Array);
        assert_eq!(v["error"]["code"], 2);
    }
}
