//! The page's entry points (wasm32 only): a thin adapter over the page's runner
//! (`crate::page`, which runs through the facade's [`crate::run_each`]) and [`crate::format`]. Run results cross to JavaScript as JSON text parsed by
//! `JSON.parse`, far faster than building JS objects value by value (BENCHMARKS.md);
//! the small answers (format, links, statements, operator docs, the editor's
//! diagnostics and completions) as JS objects built by serde-wasm-bindgen.
use crate::page::{self, Collections};
use crate::RunCtx;
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;

/// A small answer as a plain JS object (maps as objects, as `JSON.parse` gives them).
fn to_js(value: &serde_json::Value) -> Result<JsValue, JsError> {
    use serde::Serialize;
    let js = value.serialize(&serde_wasm_bindgen::Serializer::json_compatible());
    // An integer past 2^53 does not convert: through JSON text it rounds, as JavaScript's own.
    js.or_else(|_| parse(&crate::json::to_string(value)))
}

fn parse(text: &str) -> Result<JsValue, JsError> {
    js_sys::JSON::parse(text).map_err(|_| JsError::new("the engine wrote JSON that does not parse"))
}

fn ctx(now_millis: f64, seed: f64) -> RunCtx {
    let mut run = RunCtx::new(bson::DateTime::from_millis(now_millis as i64), seed as u64);
    run.tz = TIME_ZONE.with(Cell::get);
    run
}

#[wasm_bindgen]
extern "C" {
    /// The host's `TextEncoder` (browsers, their workers and Node have it).
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(
        this: &TextEncoder,
        source: &js_sys::JsString,
        dest: &js_sys::Uint8Array,
    ) -> js_sys::Object;
}

/// A JavaScript string as UTF-8, written into wasm memory by the host's
/// `TextEncoder.encodeInto`. Why not a `&str` parameter: wasm-bindgen's glue
/// copies an ASCII text one character at a time in JavaScript, tens of
/// milliseconds for a 10 MB Database pane, where `encodeInto` takes about one
/// (BENCHMARKS.md, "The reader in the page's wasm").
pub fn text_of(s: &js_sys::JsString) -> String {
    let units = s.length() as usize;
    let encoder = TextEncoder::new();
    let mut buf: Vec<u8> = Vec::new();
    let mut read = 0;
    // One byte per UTF-16 unit first (all of an ASCII text); then the rest,
    // with room for 3 bytes per unit (the most one takes).
    for pass in 0..2 {
        if read >= units {
            break;
        }
        let rest = units - read;
        let room = if pass == 0 {
            rest
        } else {
            rest.saturating_mul(3)
        };
        buf.reserve(room);
        let part = if read == 0 {
            s.clone()
        } else {
            s.slice(read as u32, units as u32)
        };
        // SAFETY: a view of `room` reserved, unused bytes of `buf`; nothing
        // allocates in wasm memory (which would grow it and detach the view)
        // before `encodeInto` returns.
        let view =
            unsafe { js_sys::Uint8Array::view_mut_raw(buf.as_mut_ptr().add(buf.len()), room) };
        let done = encoder.encode_into(&part, &view);
        let count = |key: &str| {
            js_sys::Reflect::get(&done, &JsValue::from_str(key))
                .ok()
                .and_then(|v| v.as_f64())
                .map_or(0, |n| n as usize)
        };
        let (r, w) = (count("read"), count("written").min(room));
        // SAFETY: `encodeInto` wrote `w` bytes (at most `room`) there.
        unsafe { buf.set_len(buf.len() + w) };
        read += r;
    }
    match String::from_utf8(buf) {
        Ok(text) if read >= units => text,
        // Not expected (encodeInto writes UTF-8 and the second pass has room
        // for all): wasm-bindgen's own conversion.
        _ => s.as_string().unwrap_or_default(),
    }
}

thread_local! {
    /// The page's run setting for local-time dates (`None`: UTC).
    static TIME_ZONE: Cell<Option<crate::tzdb::Tz>> = const { Cell::new(None) };
}

/// Set the time zone of the following runs' local-time dates (an Olson
/// name; empty for UTC). False, leaving UTC, for a name the engine does not know.
#[wasm_bindgen]
pub fn set_time_zone(name: &str) -> bool {
    let tz = crate::tzdb::Tz::parse(name);
    TIME_ZONE.with(|t| t.set(tz));
    name.is_empty() || tz.is_some()
}

/// Whether a run since the last call wanted collation data the page has not
/// loaded (it then fetches `collation.postcard`, calls
/// [`load_collation_data`] and runs again; see `storage::collation::data`).
#[wasm_bindgen]
pub fn collation_data_wanted() -> bool {
    crate::storage::collation::data::wanted()
}

/// Load the collation data blob (`collation.postcard`).
#[wasm_bindgen]
pub fn load_collation_data(blob: Vec<u8>) -> Result<(), JsError> {
    crate::storage::collation::data::load(blob).map_err(|e| JsError::new(&e.to_string()))
}

/// Whether a run since the last call wanted time-zone offsets or names the
/// page has not loaded (it then fetches `tzdata.bin` and `names.tsv`, calls
/// [`load_time_zones`] and runs again; see `tzdb`).
#[wasm_bindgen]
pub fn time_zones_wanted() -> bool {
    crate::tzdb::wanted()
}

/// Load the time zones' offsets (`tzdata.bin`) and display names (`names.tsv`).
/// The configuration kept loaded is dropped: it may have read local dates without them.
#[wasm_bindgen]
pub fn load_time_zones(data: Vec<u8>, display_names: String) -> bool {
    let ok = crate::tzdb::load(data, display_names);
    CACHE.with(|c| *c.borrow_mut() = page::Cache::paged());
    ok
}

/// Whether a run since the last call wanted the text search's stop words
/// (the page then fetches `stop_words.txt`, calls [`load_stop_words`] and runs again).
#[wasm_bindgen]
pub fn stop_words_wanted() -> bool {
    crate::fts::stop_words_wanted()
}

/// Load the stop words (`stop_words.txt`: each language's list after a `## name` line).
/// The configuration kept loaded is dropped: its text indexes may have been built without them.
#[wasm_bindgen]
pub fn load_stop_words(text: String) -> bool {
    let ok = crate::fts::load_stop_words(text);
    CACHE.with(|c| *c.borrow_mut() = page::Cache::paged());
    ok
}

/// Run `script` against the database `db`. `now_millis` and `seed` make the run
/// reproducible (the page stores them in its state). Returns
/// `{results, collections, names, error?, shell, work, collectionsShell, initial, initialShell}` with
/// relaxed Extended JSON values: `collections` holds every collection's final documents (`names`: their names),
/// `shell` each result printed in mongosh's format, `work` what each read did
/// (see `page::write_work`); for each collection the script
/// changed (created, modified or dropped), `collectionsShell` holds its final
/// documents printed the same way and `initial` its documents as the configuration
/// built them (`initialShell`: printed), so the page can mark inserted, changed and removed ones.
#[wasm_bindgen]
pub fn run(db: &str, script: &str, now_millis: f64, seed: f64) -> Result<JsValue, JsError> {
    parse(&page::run_once(db, script, &ctx(now_millis, seed)))
}

thread_local! {
    static CACHE: RefCell<page::Cache> = RefCell::new(page::Cache::paged());
}

/// Documents `from..from + count` of result `index` of the last [`run_page`]
/// (whose output holds a long result's first page and its length in `totals`):
/// JSON text `{docs, shell}`, or `null` when that result was not cut. The first
/// request for a result runs the script again (see `page::paging`).
#[wasm_bindgen]
pub fn result_page(index: u32, from: u32, count: u32) -> String {
    CACHE.with(|cache| {
        cache
            .borrow_mut()
            .page_json(index as usize, from as usize, count as usize)
    })
}

/// What the page's worker calls: the output of [`run`] as JSON text, with
/// `collections` limited to the collections the script changed (the page shows
/// nothing else), `stmts` the statements with results, long results cut to their
/// first page ([`result_page`]), and with `check` (a tutorial step's check as
/// JSON text) the verdict on this very run as `check`: `{ok, feedback: [{key,
/// ...params}], differences: [...]}`, or `{error}` when the check itself is
/// malformed. The configuration stays loaded between calls while its text is
/// unchanged; each run starts from a fresh copy of it.
#[wasm_bindgen]
pub fn run_page(
    db: &js_sys::JsString,
    script: &str,
    now_millis: f64,
    seed: f64,
    check: Option<String>,
) -> String {
    let db = &text_of(db);
    let run = ctx(now_millis, seed);
    CACHE.with(|cache| {
        let judge = check.as_deref().map(|c| judge(c, db, script));
        page::run_judged(
            &mut cache.borrow_mut(),
            db,
            script,
            &run,
            Collections::Changed,
            judge.as_ref().map(|j| j as page::Judge),
        )
    })
}

/// [`run_page`] on the Database text of the previous call, which the worker
/// does not send again while it is unchanged (an 11 MB text takes tens of
/// milliseconds to cross into wasm). `undefined` when no text was loaded yet.
#[wasm_bindgen]
pub fn run_page_again(
    script: &str,
    now_millis: f64,
    seed: f64,
    check: Option<String>,
) -> Option<String> {
    let run = ctx(now_millis, seed);
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        let db = cache.db_text()?;
        let judge = check.as_deref().map(|c| judge(c, &db, script));
        Some(page::run_judged(
            &mut cache,
            &db,
            script,
            &run,
            Collections::Changed,
            judge.as_ref().map(|j| j as page::Judge),
        ))
    })
}

/// A tutorial step's check applied to a run's outcome, as the page reads it.
fn judge<'a>(
    check_json: &'a str,
    db: &'a str,
    script: &'a str,
) -> impl Fn(&crate::RunOutput) -> serde_json::Value + 'a {
    move |out| match crate::tutorial::parse_check(check_json) {
        Ok(check) => {
            let v = check.judge(out, db, script);
            serde_json::json!({
                "ok": v.ok(),
                "feedback": v.feedback.iter().map(|f| f.to_json()).collect::<Vec<_>>(),
                "differences": v.details,
            })
        }
        Err(e) => serde_json::json!({ "error": e.to_string() }),
    }
}

/// The page's "Stages" view: the script run with its `target`-th aggregate
/// reported stage by stage, the stages at the positions in `off` skipped
/// (JSON text, see `page::stages`).
#[wasm_bindgen]
pub fn stages_page(
    db: &str,
    script: &str,
    now_millis: f64,
    seed: f64,
    target: u32,
    off: Vec<u32>,
) -> String {
    let run = ctx(now_millis, seed);
    let off = off.into_iter().map(|i| i as usize).collect();
    CACHE.with(|cache| {
        page::stages::stages_json(
            &mut cache.borrow_mut(),
            db,
            script,
            &run,
            target as usize,
            off,
        )
    })
}

/// The page's Copy and Download: the script run again and its `index`-th
/// result written in `form` (`array`, `value`, `shell`; see `page::export`).
#[wasm_bindgen]
pub fn export_result(
    db: &str,
    script: &str,
    now_millis: f64,
    seed: f64,
    index: u32,
    form: &str,
) -> String {
    export(
        db,
        script,
        now_millis,
        seed,
        page::export::Target::Result(index as usize),
        form,
    )
}

/// [`export_result`] for a collection as the run left it.
#[wasm_bindgen]
pub fn export_collection(
    db: &str,
    script: &str,
    now_millis: f64,
    seed: f64,
    name: &str,
    form: &str,
) -> String {
    export(
        db,
        script,
        now_millis,
        seed,
        page::export::Target::Collection(name),
        form,
    )
}

fn export(
    db: &str,
    script: &str,
    now_millis: f64,
    seed: f64,
    target: page::export::Target,
    form: &str,
) -> String {
    let run = ctx(now_millis, seed);
    let form = page::export::Form::parse(form).unwrap_or(page::export::Form::Array);
    CACHE.with(|cache| {
        page::export::export_json(&mut cache.borrow_mut(), db, script, &run, target, form)
    })
}

/// Format a script or configuration: `{text}` or `{error}`.
#[wasm_bindgen]
pub fn format(text: &str) -> Result<JsValue, JsError> {
    let json = match crate::format(text) {
        Ok(s) => serde_json::json!({ "text": s }),
        Err(e) => {
            let place = e.place("", text);
            let mut error = serde_json::json!({
                "message": e.message, "code": e.code, "codeName": e.code_name,
                "line": place.as_ref().map(|p| p.line), "column": place.as_ref().map(|p| p.column),
                "start": place.as_ref().map(|p| p.utf16_start), "end": place.as_ref().map(|p| p.utf16_end),
            });
            crate::messages::annotate(&e, &mut error);
            serde_json::json!({ "error": error })
        }
    };
    to_js(&json)
}
/// Where each result-producing statement (expression or shell helper) sits in
/// the script, in the order results come: `[{start, end, text}]` with UTF-16
/// offsets, so the page can label each result with its statement.
#[wasm_bindgen]
pub fn statements(script: &str) -> Result<JsValue, JsError> {
    let list = match crate::shell::parse_script(script) {
        Ok(parsed) => page::statements_json(script, &parsed),
        Err(_) => serde_json::Value::Array(Vec::new()),
    };
    to_js(&list)
}

/// Encode the page's state (a JS object with [`crate::link::LinkState`]'s
/// fields) as a share-link fragment `v1…`. `{link}` or `{error}`.
#[wasm_bindgen]
pub fn encode_link(state: JsValue) -> Result<JsValue, JsError> {
    let json = match serde_wasm_bindgen::from_value::<crate::link::LinkState>(state) {
        Ok(state) => match state.validate() {
            Ok(()) => serde_json::json!({ "link": crate::link::encode(&state) }),
            Err(e) => serde_json::json!({ "error": e.message }),
        },
        Err(e) => serde_json::json!({ "error": format!("cannot encode the state: {e}") }),
    };
    to_js(&json)
}

/// A decoded link's answer: `{state}`.
#[derive(serde::Serialize)]
struct Decoded<'a> {
    state: &'a crate::link::LinkState,
}

/// Decode a share-link fragment (or a URL holding one): `{state}` (a plain JS
/// object; its numbers are safe integers, `LinkState::check`) or `{error, reason, params}`
/// (`reason` and `params` for the page's translation, see `crate::link::Reason`).
#[wasm_bindgen]
pub fn decode_link(fragment: &str) -> Result<JsValue, JsError> {
    let json = match crate::link::decode_why(fragment) {
        Ok(state) => {
            use serde::Serialize;
            let answer = Decoded { state: &state };
            return answer
                .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
                .map_err(|e| JsError::new(&e.to_string()));
        }
        Err(why) => {
            let params: serde_json::Map<String, serde_json::Value> = why
                .params()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.into()))
                .collect();
            serde_json::json!({ "error": why.to_error().message, "reason": why.key(), "params": params })
        }
    };
    to_js(&json)
}

thread_local! {
    static ASSIST: RefCell<crate::assist::Summary> = RefCell::new(crate::assist::Summary::default());
}

/// Editor assistance (see `crate::assist`): read the Database pane, keep what
/// completion needs of it, and answer its diagnostics as a JS array
/// `[{from, to, message, code, codeName}]` (UTF-16 offsets).
#[wasm_bindgen]
pub fn assist_database(db: &str) -> Result<JsValue, JsError> {
    let (errors, summary) = crate::assist::check_database(db);
    ASSIST.with(|s| *s.borrow_mut() = summary);
    to_js(&crate::assist::diagnostics_json(&errors, db))
}

/// Compile every statement of the script without running it: its diagnostics as [`assist_database`]'s.
#[wasm_bindgen]
pub fn assist_script(script: &str) -> Result<JsValue, JsError> {
    let errors = crate::assist::check_script(script);
    to_js(&crate::assist::diagnostics_json(&errors, script))
}

/// Completion at a UTF-16 cursor: a JS object `{from, to, options}`.
#[wasm_bindgen]
pub fn assist_complete(script: &str, cursor: f64) -> Result<JsValue, JsError> {
    ASSIST.with(|s| {
        to_js(&crate::assist::completion_json(
            script,
            cursor as usize,
            &s.borrow(),
        ))
    })
}

/// An operator's catalogue entries, for hover docs: `[{name, kind, summary, syntax, url}]`.
#[wasm_bindgen]
pub fn operator_docs(name: &str) -> Result<JsValue, JsError> {
    to_js(&crate::assist::docs_json(name))
}
