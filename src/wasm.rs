//! The page's entry points (wasm32 only): a thin adapter over [`crate::run`]
//! and [`crate::format`] that hands plain JS objects back.
use crate::output::extjson::Mode;
use crate::RunCtx;
use serde::Serialize;
use wasm_bindgen::prelude::*;

fn to_js(value: &serde_json::Value) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&e.to_string()))
}

/// Run `script` against the database `db`. `now_millis` and `seed` make the run
/// reproducible (the page stores them in its state). Returns
/// `{results, collections, error?, shell, work, collectionsShell, initial}` with relaxed
/// Extended JSON values: `shell` is each result printed in mongosh's format; `work`
/// what each read did (see `work_json`); for each
/// collection the script changed (created, modified or dropped), `collectionsShell`
/// holds its final documents printed the same way and `initial` its documents as the
/// configuration built them, so the page can mark inserted, changed and removed ones.
#[wasm_bindgen]
pub fn run(db: &str, script: &str, now_millis: f64, seed: f64) -> Result<JsValue, JsError> {
    let run = RunCtx::new(bson::DateTime::from_millis(now_millis as i64), seed as u64);
    let out = crate::run(db, script, &run);
    let mut json = out.to_json(Mode::Relaxed, db, script);
    if let serde_json::Value::Object(obj) = &mut json {
        let shell: Vec<serde_json::Value> = out
            .results
            .iter()
            .map(|r| crate::output::shell::print(r).into())
            .collect();
        obj.insert("shell".into(), serde_json::Value::Array(shell));
        obj.insert("work".into(), work_json(&out));
        let (printed, initial) = changed_collections(db, &run, &out);
        obj.insert(
            "collectionsShell".into(),
            serde_json::Value::Object(printed),
        );
        obj.insert("initial".into(), serde_json::Value::Object(initial));
    }
    to_js(&json)
}

/// Per result, what its read did (`null` for other statements):
/// `{stage, index, keysExamined, docsExamined, nReturned, explain}`, `stage`
/// being the scan (`IXSCAN`, `COLLSCAN`...), `explain` the read's
/// explain("executionStats") printed in mongosh's format.
fn work_json(out: &crate::RunOutput) -> serde_json::Value {
    out.work
        .iter()
        .map(|w| match w {
            None => serde_json::Value::Null,
            Some(w) => serde_json::json!({
                "stage": w.stage,
                "index": w.index,
                "keysExamined": w.keys_examined,
                "docsExamined": w.docs_examined,
                "nReturned": w.returned,
                "explain": crate::output::shell::print(&w.explain),
            }),
        })
        .collect()
}

/// The collections a run changed: their final documents in shell format, and their
/// initial documents (rebuilt from the configuration with the same instant and seed,
/// so generated `_id`s match). Unchanged collections are left out: nothing to print.
fn changed_collections(
    db: &str,
    run: &RunCtx,
    out: &crate::RunOutput,
) -> (
    serde_json::Map<String, serde_json::Value>,
    serde_json::Map<String, serde_json::Value>,
) {
    let mut printed = serde_json::Map::new();
    let mut initial = serde_json::Map::new();
    let Ok(start) = crate::load_database(db, run) else {
        return (printed, initial); // the run reported the configuration's error
    };
    let relaxed = |docs: &[bson::Document]| -> serde_json::Value {
        docs.iter()
            .map(|d| {
                crate::output::extjson::to_json(&bson::Bson::Document(d.clone()), Mode::Relaxed)
            })
            .collect()
    };
    let before: std::collections::HashMap<&str, &[bson::Document]> =
        start.collections().map(|(n, c)| (n, c.docs())).collect();
    for (name, docs) in &out.collections {
        let old = before.get(name.as_str());
        if old.is_some_and(|old| *old == docs.as_slice()) {
            continue;
        }
        let shell: Vec<serde_json::Value> = docs
            .iter()
            .map(|d| crate::output::shell::print(&bson::Bson::Document(d.clone())).into())
            .collect();
        printed.insert(name.clone(), serde_json::Value::Array(shell));
        if let Some(old) = old {
            initial.insert(name.clone(), relaxed(old));
        }
    }
    for (name, old) in &before {
        if !out.collections.iter().any(|(n, _)| n == name) {
            initial.insert((*name).to_string(), relaxed(old)); // dropped
        }
    }
    (printed, initial)
}

/// Format a script or configuration: `{text}` or `{error}`.
#[wasm_bindgen]
pub fn format(text: &str) -> Result<JsValue, JsError> {
    let json = match crate::format(text) {
        Ok(s) => serde_json::json!({ "text": s }),
        Err(e) => {
            let place = e.place("", text);
            serde_json::json!({ "error": {
                "message": e.message, "code": e.code, "codeName": e.code_name,
                "line": place.as_ref().map(|p| p.line), "column": place.as_ref().map(|p| p.column),
                "start": place.as_ref().map(|p| p.utf16_start), "end": place.as_ref().map(|p| p.utf16_end),
            }})
        }
    };
    to_js(&json)
}

/// Run a tutorial step and compare the outcome with its check (the step's
/// `check` object as JSON text): `{ok, differences: [...]}`, or `{error}` when
/// the check itself is malformed.
#[wasm_bindgen]
pub fn check_step(
    check_json: &str,
    db: &str,
    script: &str,
    now_millis: f64,
    seed: f64,
) -> Result<JsValue, JsError> {
    let run = RunCtx::new(bson::DateTime::from_millis(now_millis as i64), seed as u64);
    let json = match crate::tutorial::check_step(check_json, db, script, &run) {
        Ok(diffs) => serde_json::json!({ "ok": diffs.is_empty(), "differences": diffs }),
        Err(e) => serde_json::json!({ "error": e.to_string() }),
    };
    to_js(&json)
}

/// Where each result-producing statement (expression or shell helper) sits in
/// the script, in the order results come: `[{start, end, text}]` with UTF-16
/// offsets, so the page can label each result with its statement.
#[wasm_bindgen]
pub fn statements(script: &str) -> Result<JsValue, JsError> {
    let list: Vec<serde_json::Value> = match crate::shell::parse_script(script) {
        Ok(parsed) => parsed
            .stmts
            .iter()
            .filter(|s| !matches!(s.kind, crate::shell::StmtKind::Assign { .. }))
            .map(|s| {
                let text = script.get(s.span.start..s.span.end).unwrap_or_default();
                serde_json::json!({
                    "start": crate::error::utf16_offset(script, s.span.start),
                    "end": crate::error::utf16_offset(script, s.span.end),
                    "text": text,
                })
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    to_js(&serde_json::Value::Array(list))
}

/// Encode the page's state (a JSON string of [`crate::link::LinkState`]) as a
/// share-link fragment `v1…`. `{link}` or `{error}`.
#[wasm_bindgen]
pub fn encode_link(json_state: &str) -> Result<JsValue, JsError> {
    let json = match serde_json::from_str::<crate::link::LinkState>(json_state) {
        Ok(state) => match state.validate() {
            Ok(()) => serde_json::json!({ "link": crate::link::encode(&state) }),
            Err(e) => serde_json::json!({ "error": e.message }),
        },
        Err(e) => serde_json::json!({ "error": format!("cannot encode the state: {e}") }),
    };
    to_js(&json)
}

/// Decode a share-link fragment (or a URL holding one): `{state}` or `{error}`.
#[wasm_bindgen]
pub fn decode_link(fragment: &str) -> Result<JsValue, JsError> {
    let json = match crate::link::decode(fragment) {
        Ok(state) => serde_json::json!({ "state": state }),
        Err(e) => serde_json::json!({ "error": e.message }),
    };
    to_js(&json)
}
