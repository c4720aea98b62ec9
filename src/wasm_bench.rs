//! Benchmark entry points (wasm32 only): a database read once and kept inside
//! wasm across runs, so a benchmark measures the statement and not the reader.
//! The page itself uses [`crate::wasm::run`].
use crate::bench_api::{view_size, LoadedDb, Prepared};
use crate::engine::Answer;
use crate::RunCtx;
use bson::Bson;
use wasm_bindgen::prelude::*;

/// A script parsed once.
#[wasm_bindgen]
pub struct BenchScript {
    inner: Prepared,
}

#[wasm_bindgen]
impl BenchScript {
    #[wasm_bindgen(constructor)]
    pub fn new(script: &str) -> Result<BenchScript, JsError> {
        Prepared::parse(script)
            .map(|inner| BenchScript { inner })
            .map_err(|e| JsError::new(&e.to_string()))
    }
}

/// A database read once, with the last result kept for [`BenchDb::last_to_js`].
#[wasm_bindgen]
pub struct BenchDb {
    inner: LoadedDb,
    /// Stored documents named in place (the database does not change until
    /// the next run).
    last: Answer,
}

#[wasm_bindgen]
impl BenchDb {
    /// Read a database configuration; `now_millis` and `seed` as in `run`.
    #[wasm_bindgen(constructor)]
    pub fn new(db_text: &js_sys::JsString, now_millis: f64, seed: f64) -> Result<BenchDb, JsError> {
        let run = RunCtx::new(bson::DateTime::from_millis(now_millis as i64), seed as u64);
        LoadedDb::load(&crate::wasm::text_of(db_text), run)
            .map(|inner| BenchDb {
                inner,
                last: Answer::Value(Bson::Null),
            })
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Run the script and keep its last result inside wasm; only the result's
    /// size (documents, count or modifiedCount) crosses to JavaScript.
    pub fn run_size(&mut self, script: &BenchScript) -> Result<f64, JsError> {
        self.last = Answer::Value(Bson::Null);
        self.last = self
            .inner
            .run_answer(&script.inner)
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(view_size(&self.inner.view(&self.last)))
    }

    /// The last result as plain JavaScript values (relaxed Extended JSON, the
    /// way the page's `run` hands results over).
    pub fn last_to_js(&self) -> Result<JsValue, JsError> {
        js_sys::JSON::parse(&self.last_to_json_text())
            .map_err(|_| JsError::new("the engine wrote JSON that does not parse"))
    }

    /// The last result as relaxed Extended JSON text (for `JSON.parse` on the
    /// JavaScript side: one string copy instead of one call per value).
    pub fn last_to_json_text(&self) -> String {
        let mut out = String::new();
        self.inner.view(&self.last).write_ejson(&mut out);
        out
    }

    /// Number of documents in a collection.
    pub fn len(&self, collection: &str) -> f64 {
        self.inner.len(collection) as f64
    }
}
