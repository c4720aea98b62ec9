//! The wasm API under Node (wasm-bindgen-test): the page's entry points return
//! plain JS objects with results, collections and errors.
#![cfg(target_arch = "wasm32")]
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn get(obj: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// The Database text crosses into wasm through `TextEncoder.encodeInto`: the
/// same text as wasm-bindgen's own conversion, whatever its characters.
#[wasm_bindgen_test]
fn database_text_crosses_whole() {
    let long_ascii = "[{a: 1}],".repeat(5000);
    let mixed = format!("{}é{}", "x".repeat(100), "日本語😀".repeat(300));
    let texts = [
        "",
        "a",
        "é",
        "😀",
        "ab😀cd",
        "Grüße, 日本語 and 😀 text",
        long_ascii.as_str(),
        mixed.as_str(),
    ];
    for text in texts {
        let js = js_sys::JsString::from(text);
        assert_eq!(mqlplay::wasm::text_of(&js), text);
    }
    // Lone surrogates become U+FFFD, as wasm-bindgen's conversion makes them.
    let lone = js_sys::JsString::from_char_code(&[0x61, 0xd800, 0x62, 0xdc00]);
    assert_eq!(
        mqlplay::wasm::text_of(&lone),
        lone.as_string().unwrap_or_default()
    );
    assert_eq!(mqlplay::wasm::text_of(&lone), "a\u{fffd}b\u{fffd}");
}

#[wasm_bindgen_test]
fn run_returns_results_and_collections() {
    let out =
        mqlplay::wasm::run("[{_id: 1, a: 5}]", "db.collection.find()", 0.0, 0.0).expect("run");
    let json = js_sys::JSON::stringify(&out)
        .expect("json")
        .as_string()
        .unwrap_or_default();
    assert!(json.contains(r#""results":[[{"_id":1,"a":5}]]"#), "{json}");
    assert!(
        json.contains(r#""collections":{"collection":[{"_id":1,"a":5}]}"#),
        "{json}"
    );
    assert!(get(&out, "error").is_undefined());
}

#[wasm_bindgen_test]
fn errors_carry_a_position() {
    let out = mqlplay::wasm::run("", "db.c.find({a: 1)", 0.0, 0.0).expect("run");
    let err = get(&out, "error");
    assert_eq!(get(&err, "line").as_f64(), Some(1.0));
    assert!(get(&err, "column").as_f64().is_some());
    assert!(get(&err, "message").as_string().is_some());
}

#[wasm_bindgen_test]
fn bucket_seed_round_trips() {
    let script = r#"db.trades.insertMany([
 { "_id": "123_1698349623", "customerId": 123, "count": 2,
   "history": [ { "type": "buy", "ticker": "MDB", "qty": 419, "date": ISODate("2023-10-26T15:47:03.434Z") } ] },
 ])
db.trades.find()"#;
    let out = mqlplay::wasm::run("", script, 0.0, 0.0).expect("run");
    let json = js_sys::JSON::stringify(&out)
        .expect("json")
        .as_string()
        .unwrap_or_default();
    assert!(
        json.contains(r#""date":{"$date":"2023-10-26T15:47:03.434Z"}"#),
        "{json}"
    );
    assert!(get(&out, "error").is_undefined(), "{json}");
}

#[wasm_bindgen_test]
fn run_page_sends_only_changed_collections() {
    let db = "db = { a: [{_id: 1}], b: [{_id: 2, at: ISODate(\"2023-10-26T15:47:03.434Z\")}] }";
    let text = mqlplay::wasm::run_page(&db.into(), "db.b.deleteOne({_id: 2})", 0.0, 0.0, None);
    let out = js_sys::JSON::parse(&text).expect("json");
    let json = js_sys::JSON::stringify(&out)
        .expect("json")
        .as_string()
        .unwrap_or_default();
    assert!(json.contains(r#""collections":{"b":[]}"#), "{json}");
    assert!(
        json.contains(r#""initial":{"b":[{"_id":2,"at":{"$date":"2023-10-26T15:47:03.434Z"}}]}"#),
        "{json}"
    );
    // The same configuration again (kept loaded): the run starts from it anew.
    let again = mqlplay::wasm::run_page(&db.into(), "db.b.countDocuments()", 0.0, 0.0, None);
    assert!(
        again.starts_with(r#"{"results":[1],"collections":{}"#),
        "{again}"
    );
}

#[wasm_bindgen_test]
fn exports_are_canonical_and_name_every_collection() {
    let db = "db = { a: [{_id: 1, n: NumberLong(5)}], b: [{_id: 2}] }";
    let text = mqlplay::wasm::run_page(&db.into(), "db.b.find()", 0.0, 0.0, None);
    assert!(text.contains(r#""names":["a","b"]"#), "{text}");
    let a = mqlplay::wasm::export_collection(db, "db.b.find()", 0.0, 0.0, "a", "array");
    assert_eq!(
        a,
        r#"{"text":"[\n  {\"_id\":{\"$numberInt\":\"1\"},\"n\":{\"$numberLong\":\"5\"}}\n]\n"}"#
    );
    let r = mqlplay::wasm::export_result(db, "db.a.find()", 0.0, 0.0, 0, "shell");
    assert_eq!(r, r#"{"text":"[ { _id: 1, n: Long('5') } ]"}"#);
}

/// A run reports its statements and, given a tutorial check, the verdict on
/// that same run (the worker neither parses nor runs the script again).
#[wasm_bindgen_test]
fn run_page_reports_statements_and_judges_its_run() {
    let db = "db = { a: [{_id: 1}, {_id: 2}] }";
    let script = "x = 1\ndb.a.find({_id: 2})\ndb.a.countDocuments()";
    let check = r#"{"results": [[{"_id": 2}], 2]}"#;
    let text = mqlplay::wasm::run_page(&db.into(), script, 0.0, 0.0, Some(check.to_string()));
    assert!(
        text.contains(r#""stmts":[{"start":6,"end":25,"text":"db.a.find({_id: 2})"},{"start":26,"end":47,"text":"db.a.countDocuments()"}]"#),
        "{text}"
    );
    assert!(
        text.contains(r#""check":{"ok":true,"feedback":[],"differences":[]}"#),
        "{text}"
    );
    let wrong =
        mqlplay::wasm::run_page_again("db.a.find({_id: 1})", 0.0, 0.0, Some(check.to_string()))
            .unwrap_or_default();
    assert!(wrong.contains(r#""ok":false"#), "{wrong}");
    let plain = mqlplay::wasm::run_page_again(script, 0.0, 0.0, None).unwrap_or_default();
    assert!(!plain.contains(r#""check""#), "{plain}");
}

/// A long result crosses a page at a time: `totals` gives its length, `result_page`
/// the documents after the first page (`null` for a result that was not cut), and
/// the small answers come as plain objects (serde-wasm-bindgen).
#[wasm_bindgen_test]
fn long_results_are_paged_and_small_answers_are_objects() {
    let docs: Vec<String> = (0..130).map(|i| format!("{{_id: {i}}}")).collect();
    let db = format!("db = {{ c: [{}] }}", docs.join(","));
    let text = mqlplay::wasm::run_page(
        &db.as_str().into(),
        "db.c.find()\ndb.c.find().limit(3)",
        0.0,
        0.0,
        None,
    );
    assert!(text.contains(r#""totals":[130,null]"#), "{text}");
    let page = mqlplay::wasm::result_page(0, 100, 100);
    assert!(page.starts_with(r#"{"docs":[{"_id":100},"#), "{page}");
    assert!(page.contains(r#"{"_id":129}],"shell":["#), "{page}");
    assert_eq!(mqlplay::wasm::result_page(1, 100, 100), "null");
    let stmts = mqlplay::wasm::statements("db.c.find()").expect("statements");
    let json = js_sys::JSON::stringify(&stmts)
        .expect("json")
        .as_string()
        .unwrap_or_default();
    assert_eq!(json, r#"[{"start":0,"end":11,"text":"db.c.find()"}]"#);
}

/// Nesting far past the limits answers with an error on wasm's own 1 MiB
/// stack (no trap): calls, indexes, constructors, brackets, long paths.
/// Optimised builds only, as the page's wasm is: an unoptimised build's
/// frames are several times larger (run it with
/// `cargo test --release --target wasm32-unknown-unknown --test wasm_api`).
#[cfg(not(debug_assertions))]
#[wasm_bindgen_test]
fn deep_nesting_is_refused_without_a_trap() {
    let nest = |open: &str, mid: &str, close: &str| {
        format!("{}{mid}{}", open.repeat(3000), close.repeat(3000))
    };
    let path = vec!["a"; 5_200].join(".");
    for script in [
        nest("x(", "1", ")"),
        nest("ObjectId(", "", ")"),
        nest("a[", "0", "]"),
        nest("[", "1", "]"),
        nest("{a: ", "1", "}"),
        format!("db.c.updateOne({{_id: 1}}, {{$set: {{'{path}': 1}}}}, {{upsert: true}})"),
        format!("db.c.aggregate([{{$addFields: {{'{path}': 1}}}}])"),
        format!("db.c.find({{}}, {{'{path}': 1}})"),
    ] {
        let out = mqlplay::wasm::run("", &script, 0.0, 0.0).expect("run");
        assert!(!get(&out, "error").is_undefined(), "{:.60}", script);
    }
}

/// A JS object from `[key, value]` pairs.
fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let obj = js_sys::Object::new();
    for (k, v) in fields {
        let _ = js_sys::Reflect::set(&obj, &JsValue::from_str(k), v);
    }
    obj.into()
}

/// The page's state crosses as a JS object both ways: every field set, a
/// seed of 2^53 − 1 (the largest a link holds) and astral characters come
/// back as they went; the decoded state is a plain object.
#[wasm_bindgen_test]
fn link_state_round_trips_as_an_object() {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    let full = [
        (
            "db",
            JsValue::from_str("db = { t: [ { s: 'é😀𝄞\u{2028}\"' } ] }"),
        ),
        (
            "script",
            JsValue::from_str("db.t.find({ s: /😀/ })\r\n// </script>"),
        ),
        ("now", JsValue::from_f64(-1_700_000_000_123.0)),
        ("seed", JsValue::from_f64(MAX_SAFE)),
        ("view", JsValue::from_str("ejson")),
        ("tutorial", JsValue::from_str("basics")),
        ("step", JsValue::from_f64(4_294_967_295.0)),
        ("lang", JsValue::from_str("ko")),
        ("tz", JsValue::from_str("Asia/Seoul")),
    ];
    let encoded = mqlplay::wasm::encode_link(object(&full)).expect("encode");
    assert!(get(&encoded, "error").is_undefined(), "{encoded:?}");
    let link = get(&encoded, "link").as_string().unwrap_or_default();
    assert!(link.starts_with("v1"), "{link}");
    let decoded = mqlplay::wasm::decode_link(&link).expect("decode");
    let state = get(&decoded, "state");
    let plain = js_sys::Object::get_prototype_of(&js_sys::Object::new());
    assert!(
        js_sys::Object::get_prototype_of(&state) == plain,
        "not a plain object"
    );
    assert_eq!(
        js_sys::Object::keys(state.unchecked_ref::<js_sys::Object>()).length(),
        9
    );
    for (k, v) in &full {
        assert_eq!(&get(&state, k), v, "{k}");
    }
    // Optional fields left out stay out; `view` defaults to shell.
    let bare = object(&full[..4]);
    let link = get(&mqlplay::wasm::encode_link(bare).expect("encode"), "link");
    let state = get(
        &mqlplay::wasm::decode_link(&link.as_string().unwrap_or_default()).expect("decode"),
        "state",
    );
    let keys: Vec<String> = js_sys::Object::keys(state.unchecked_ref::<js_sys::Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .collect();
    assert_eq!(keys, ["db", "script", "now", "seed", "view"]);
    assert_eq!(get(&state, "view").as_string().as_deref(), Some("shell"));
}

/// A state the page cannot hold exactly is refused with the engine's reason.
#[wasm_bindgen_test]
fn link_states_out_of_range_keep_their_reasons() {
    let with = |key: &str, value: JsValue| {
        let mut fields = vec![
            ("db", JsValue::from_str("")),
            ("script", JsValue::from_str("")),
            ("now", JsValue::from_f64(0.0)),
            ("seed", JsValue::from_f64(0.0)),
        ];
        fields.retain(|(k, _)| *k != key);
        fields.push((key, value));
        let out = mqlplay::wasm::encode_link(object(&fields)).expect("encode");
        assert!(get(&out, "link").is_undefined(), "{key}: {out:?}");
        get(&out, "error").as_string().unwrap_or_default()
    };
    let two_53 = 9_007_199_254_740_992.0;
    assert!(with("seed", JsValue::from_f64(two_53))
        .contains("the seed 9007199254740992 is larger than 9007199254740991"),);
    assert!(with("seed", JsValue::from_f64(2f64.powi(60)))
        .contains("the seed 1152921504606846976 is larger"));
    assert!(with("now", JsValue::from_f64(-2f64.powi(60)))
        .contains("the instant -1152921504606846976 is out of range"));
    assert!(with("view", JsValue::from_str("grid")).contains("unknown view \"grid\""));
    assert!(with("tz", JsValue::from_str("Mars/Olympus")).contains("unknown time zone"));
    for (key, value) in [
        ("seed", JsValue::from_f64(-1.0)),
        ("seed", JsValue::from_f64(1.5)),
        ("seed", JsValue::from_str("7")),
        ("now", JsValue::from_f64(f64::NAN)),
        ("now", JsValue::from_f64(f64::INFINITY)),
        ("step", JsValue::from_f64(-1.0)),
        ("db", JsValue::from_f64(1.0)),
        ("script", JsValue::NULL),
    ] {
        assert!(
            with(key, value.clone()).starts_with("cannot encode the state: "),
            "{key}: {value:?}"
        );
    }
    let text = mqlplay::wasm::encode_link(JsValue::from_str("{}")).expect("encode");
    assert!(get(&text, "error")
        .as_string()
        .unwrap_or_default()
        .starts_with("cannot encode the state: "));
    // A link holding a seed of 2^53 (written by hand: the codec refuses it) names its reason.
    let state = mqlplay::link::LinkState {
        seed: 1 << 53,
        ..Default::default()
    };
    let out = mqlplay::wasm::decode_link(&mqlplay::link::encode(&state)).expect("decode");
    assert_eq!(
        get(&out, "reason").as_string().as_deref(),
        Some("seedTooLarge")
    );
    let params = get(&out, "params");
    assert_eq!(
        get(&params, "seed").as_string().as_deref(),
        Some("9007199254740992")
    );
    assert_eq!(
        get(&params, "max").as_string().as_deref(),
        Some("9007199254740991")
    );
    assert!(get(&out, "error")
        .as_string()
        .unwrap_or_default()
        .contains("share link cannot be opened"));
    assert!(get(&out, "state").is_undefined());
}
