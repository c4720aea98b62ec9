//! The engine's own messages the page translates (`engine.*` in
//! `www/i18n/<lang>.json`, recognised by `mqlplay::messages`): English's sentence
//! is the table's, each sentence is raised by the engine and, filled with the
//! parameters read from the message, reads exactly as the engine wrote it; each
//! translation is filled with the same parameters.
use mqlplay::messages::{self, Param, Text, PARTS, SENTENCES};
use mqlplay::{Error, RunCtx};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

const LANGS: [&str; 4] = ["pt-BR", "ja", "ko", "de"];

fn page_catalogue(lang: &str) -> BTreeMap<String, String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("www/i18n/{lang}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{lang}.json: {e}"))
}

/// A memory limit (MiB) small enough to reach in a test, and a Database pane of `n` bytes.
const SMALL_MIB: usize = 4;
fn big_database(bytes: usize) -> String {
    let doc = format!("{{s: \"{}\"}}", "x".repeat(1000));
    let docs = vec![doc; bytes / 1000].join(", ");
    format!("db = {{c: [{docs}]}}")
}

/// What raises each message: the Database pane, the script, whether the run
/// has the small memory limit, and the expected key (`sentence` or `sentence/part`).
fn samples() -> Vec<(String, String, bool, &'static str)> {
    let s = |db: &str, script: &str, key| (db.to_string(), script.to_string(), false, key);
    let docs = "db = {c: [{_id: 1, a: 1}]}";
    vec![
        s(docs, "db.c.find({a: {$text: 1}})", "notSupported"),
        s(docs, "db.c.frobnicate()", "collectionMethod"),
        s(
            docs,
            r"db.c.find({a: /(a)\1/})",
            "regexFeature/backreferences",
        ),
        s(docs, r"db.c.find({a: /a(?=b)/})", "regexFeature/lookaround"),
        s(docs, r"db.c.find({a: /a*+/})", "regexFeature/possessive"),
        s(
            docs,
            r"db.c.find({a: /(?>a)/})",
            "regexFeature/atomicGroups",
        ),
        s(docs, "db.c.find({$where: 'true'})", "serverJavaScript"),
        s(docs, "db.c.find().forEach(x => x)", "javaScriptFunctions"),
        s(
            docs,
            &format!("x = {}1{}", "[".repeat(500), "]".repeat(500)),
            "nestingTooDeep",
        ),
        s(
            docs,
            "db.c.aggregate([{$project: {r: {$range: [0, 100000000]}}}])",
            "rangeLimit",
        ),
        (
            docs.into(),
            "db.c.aggregate([{$project: {r: {$range: [0, 5000000]}}}])".into(),
            true,
            "runMemory/statementGrowth",
        ),
        (
            big_database((SMALL_MIB << 20) / 3),
            "db.c.aggregate([{$project: {r: {$range: [0, 20000]}}}])".into(),
            true,
            "runMemory/heldBefore",
        ),
        (
            big_database(2 * (SMALL_MIB << 20)),
            "db.c.find()".into(),
            true,
            "databaseTooLarge",
        ),
        s(docs, "/* x", "unterminatedComment"),
        s(docs, "x = 'abc", "unterminatedString"),
        s(docs, "x = `abc", "unterminatedTemplate"),
        s(docs, "db.c.find({a: /abc", "unterminatedRegex"),
        s(docs, r"x\u0061 = 1", "identifierEscapes"),
        s(docs, "db.c.find({a: ObjectId})", "callConstructor"),
        s("db {c: []}", "db.c.find()", "configDbEquals"),
        s("x = 1", "db.c.find()", "configForm"),
        s("[] []", "db.c.find()", "configSingle"),
        s("db = 1", "db.c.find()", "configDbObject"),
        s("db = {c: 1}", "db.c.find()", "configCollectionArray"),
        s("db = {c: [1]}", "db.c.find()", "configNotDocument"),
        s(
            docs,
            "db.c.aggregate([{$group: {_id: null, x: {$setUnion: '$a'}}}])",
            "notSupported/accumulator",
        ),
        s(docs, "print(1)", "notSupported/function"),
        s(docs, "db.c.find({a: print})", "notSupported/shellGlobal"),
        s(docs, "db.c.find({a: db})", "notSupported/dbAsValue"),
        s(docs, "const {a} = {a: 1}", "notSupported/destructuring"),
        s(docs, "x = {a: 1}; x?.a", "notSupported/optionalChaining"),
        s(docs, "x = [1]; y = [...x]", "notSupported/arraySpread"),
        s(docs, "x = {a: 1}; y = {...x}", "notSupported/objectSpread"),
        s(docs, "x = 'a'; y = {[x]: 1}", "notSupported/computedNames"),
        s(docs, "x = `${1}`", "notSupported/templateSubstitution"),
        s(docs, "db = 1", "notSupported/assignDb"),
        s(docs, "db.c.find({)})", "expectedPropertyName"),
        s(docs, "db.c.find({a})", "shorthandProperty"),
        s(docs, "x = [1,,2]", "arrayHoles"),
        s(docs, "x = 99999999999999999999n", "invalidNumber"),
        s(docs, "x = 0x", "numberMissingDigits"),
        s(docs, "x = 1e", "numberMissingExponent"),
        s(docs, "x = 1.5n", "numberMalformed"),
        s(docs, "db.c.find({a: /a/gg})", "regexFlagTwice"),
        s(docs, "x = NumberLong('-9223372036854775808'); y = -x", "bigIntNegation"),
        s(docs, "x = -'a'", "negateType"),
        s(docs, "x = [1]; y = x[{}]", "indexExpression"),
        s("db = {c: [{a: {$oid: 1}}]}", "db.c.find()", "extendedJson/ejsonString"),
        s("db = {c: [{a: {$oid: '5a934e000102030405000000', b: 1}}]}", "db.c.find()", "extendedJson/ejsonNextField"),
        s("db = {c: [{a: {$minKey: 2}}]}", "db.c.find()", "extendedJson/ejsonOne"),
        s("db = {c: [{a: {$binary: {base64: '', subType: '00', x: 1}}}]}", "db.c.find()", "extendedJson/ejsonUnknownField"),
        s("db = {c: [{a: {$binary: {base64: ''}}}]}", "db.c.find()", "extendedJson/ejsonMissingField"),
        s("db = {c: [{a: {$timestamp: [1]}}]}", "db.c.find()", "extendedJson/ejsonValueCount"),
        s("db = {c: [{a: {$numberInt: 'x'}}]}", "db.c.find()", "extendedJson/ejsonInvalid"),
        s("db = {c: [{a: {$numberInt: ObjectId()}}]}", "db.c.find()", "extendedJson/ejsonPlain"),
        s(docs, "x = MD5('ab')", "hashDigits"),
        s(docs, "x = MD5(1)", "hashHex"),
        s(docs, "x = BinData(0, 1)", "dataBase64"),
        s(docs, "x = HexData(0, 1)", "dataHex"),
        s(docs, "x = HexData(0, 'abc')", "dataHexPairs"),
        s(docs, "x = ObjectId.createFromTime('a')", "createFromTime"),
        s(docs, "x = Code(1)", "codeString"),
        s(docs, "x = Code('a', 1)", "codeScope"),
        s(docs, "x = NumberInt({})", "stringOrNumberArgument"),
        s(docs, "x = NumberDecimal({})", "stringOrNumber"),
        s(docs, "x = NumberLong('abc')", "int64Invalid"),
        s(docs, "x = Timestamp(-1, 0)", "timestampRange"),
        s(docs, "x = BinData(300, '')", "binarySubtype"),
        s(docs, "x = UUID(1)", "uuidHex"),
        s(docs, "x = RegExp(1)", "patternString"),
        s(docs, "x = RegExp('a', 1)", "flagsString"),
        s(docs, "x = BSONRegExp('a', 1)", "optionsString"),
        s(docs, r"x = RegExp('a\u0000')", "regexNul"),
        s(docs, "x = DBRef()", "dbRefArguments"),
        s(docs, "x = DBRef('c', 1, 2)", "dbRefDatabase"),
        s(docs, "db.c.aggregate([{$currentOp: {}}])", "notSupported/serverStage"),
        s(docs, "db.c.createIndex({a: 'text'}, {textIndexVersion: 2})", "notSupported/textIndexVersion"),
        s(
            docs,
            "db.c.createIndex({a: 'text'}); db.c.find({$text: {$search: 'x', $language: 'arabic'}})",
            "notSupported/enterpriseLanguage",
        ),
        s(docs, "db.c.find({}, {s: {$meta: 'searchScore'}})", "notSupported/metaInProjection"),
        s(docs, "db.c.find().sort({s: {$meta: 'searchScore'}})", "notSupported/sortByMeta"),
        s(docs, "db.c.find({a: {$geoWithin: {$geometry: {type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]], crs: {type: 'name', properties: {name: 'urn:x-mongodb:crs:strictwinding:EPSG:4326'}}}}}})", "notSupported/strictWinding"),
        s(docs, "db.c.find().collation({locale: 'ar'})", "notSupported/collationLocale"),
        s(docs, "db.c.find().collation({locale: 'en', backwards: true})", "notSupported/collationBackwards"),
        s(docs, "db.runCommand({frobnicate: 1})", "notSupported/runCommand"),
        s(docs, "db.c.aggregate([]).limit(1)", "notSupported/aggregationCursor"),
        s(docs, "db.c.find().min({a: 1})", "notSupported/cursorOnIndexes"),
        s(docs, "db.c.find().map(1)", "notSupported/cursorMap"),
        s(docs, "db.c.find().close()", "notSupported/cursorClose"),
        s(docs, "x = new Date() + 1", "notSupported/operatorOnDate"),
        s(docs, "x = 1n + 1", "notSupported/operatorOnBigInt"),
        s(docs, "x = 'a' * 2", "notSupported/operatorOnType"),
        s(docs, "x = 'a'; y = x.foo()", "notSupported/methodOfValue"),
        s(docs, "x = 1; y = x.foo", "notSupported/propertyOfValue"),
        s(docs, "db.c.createIndex({a: 'hashed'})", "notSupported/indexesOfType"),
        s(docs, "db", "dbAlone"),
        s(docs, "db.c", "collectionAlone"),
        s(docs, "db.c.find().count", "methodNotCalled"),
        s(docs, "db.c.find().limit(1, 2)", "tooManyArguments"),
        s(docs, "db.c.find(1)", "mustBeObject"),
        s(docs, "db.c.bulkWrite([1])", "mustBeObjectValue"),
        s(docs, "db.c.find().limit('a')", "wholeNumber"),
        s(docs, "db.c.find().limit()", "needsNumber"),
        s(docs, "db.getCollection('')", "needsCollectionName"),
        s(docs, "db.createCollection()", "createCollectionName"),
        s(docs, "db.c.findOne().limit(1)", "chainedAfterDocument"),
        s(docs, "db.c.countDocuments({}).limit(1)", "chainedAfterValue"),
        s(docs, "db.c.explain().distinct('a').limit(1)", "chainedAfterExplained"),
        s(docs, "db.c.find().toArray().limit(1)", "chainedAfter"),
        s(docs, "db.c.insertOne({}).limit(1)", "notChainable"),
        s(docs, "db.getCollectionNames().limit(1)", "chainedOnCollectionNames"),
        s(docs, "db.c.find().frob()", "unknownCursorMethod"),
        s(docs, "db.c.find({}, {}, {frob: 1})", "unknownFindOption"),
        s(docs, "db.c.countDocuments({}, {frob: 1})", "unknownOption"),
        s(docs, "db.c.find().sort(1)", "sortArgument"),
        s(docs, "db.c.distinct()", "distinctField"),
        s(docs, "db.c.insertOne()", "needsDocument"),
        s(docs, "db.c.insertOne(1)", "needsDocumentGot"),
        s(docs, "db.c.insertOne([{}])", "insertOneArray"),
        s(docs, "db.c.insertMany({})", "insertManyArray"),
        s(docs, "db.c.insertMany([1])", "documentNotObject"),
        s(docs, "db.c.updateOne({}, 1)", "updateArgument"),
        s(docs, "db.c.replaceOne({}, 1)", "replacementArgument"),
        s(docs, "db.c.aggregate(1)", "aggregateStages"),
        s(docs, "db.aggregate([{$match: {}}])", "dbAggregateStart"),
        s(docs, "db.c.explain()", "explainMethod"),
        s(docs, "db.c.createIndex()", "keyPatternNeeded"),
        s(docs, "db.c.createIndex(1)", "keyPatternObject"),
        s(docs, "db.c.createIndexes({a: 1})", "createIndexesArray"),
        s(docs, "db.c.createIndexes([1])", "createIndexesObjects"),
        s(docs, "db.c.dropIndex()", "dropIndexArgument"),
        s(docs, "db.c.dropIndexes(1)", "dropIndexesArgument"),
        s(docs, "db.c.dropIndexes([1])", "dropIndexesNames"),
        s(docs, "db.getSiblingDB(1)", "siblingDbString"),
        s(docs, "db.getSiblingDB('a', 'b')", "siblingDbOne"),
        s(
            docs,
            &format!(
                "x0 = 1; {}",
                (0..300)
                    .map(|i| format!("x{} = [x{i}]", i + 1))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            "variableNesting",
        ),
        s(docs, "db.runCommand()", "runCommandDocument"),
        s(docs, "db.runCommand({})", "runCommandEmpty"),
        s(docs, "db.c.bulkWrite(1)", "bulkWriteArray"),
        s(docs, "db.c.bulkWrite([{insertOne: {}}])", "bulkWriteField"),
        s(docs, "db.c.bulkWrite([{}])", "bulkWriteOneOf"),
        s(docs, "db.c.bulkWrite([{frob: {}}])", "bulkWriteUnknown"),
    ]
}

/// The key path of a recognised message: `sentence` or `sentence/part`.
fn key_path(t: &Text) -> String {
    let part = t.params.iter().find_map(|(_, p)| match p {
        Param::Part(p) => Some(p.key),
        Param::Plain(_) => None,
    });
    part.map_or(t.key.to_string(), |p| format!("{}/{p}", t.key))
}

/// The page's filling of `text` (as `engineMessage` in www/src/i18n.js does) from a catalogue.
fn fill(cat: &BTreeMap<String, String>, text: &Value) -> String {
    let key = text["key"].as_str().expect("key");
    let template = cat
        .get(key)
        .unwrap_or_else(|| panic!("the catalogue lacks {key}"));
    let mut out = template.clone();
    for (name, v) in text["params"].as_object().expect("params") {
        let value = match v {
            Value::String(s) => s.clone(),
            part => fill(cat, part),
        };
        out = out.replace(&format!("{{{name}}}"), &value);
    }
    out
}

/// The parameters kept as written, at every level.
fn plain_values(text: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for v in text["params"]
        .as_object()
        .into_iter()
        .flat_map(|m| m.values())
    {
        match v {
            Value::String(s) => out.push(s.clone()),
            part => out.extend(plain_values(part)),
        }
    }
    out
}

fn error_of(db: &str, script: &str, small: bool) -> Option<Error> {
    let previous = small.then(|| mqlplay::budget::set_run_limit(SMALL_MIB << 20));
    let out = mqlplay::run(db, script, &RunCtx::default());
    if let Some(p) = previous {
        mqlplay::budget::set_run_limit(p);
    }
    out.error
}

#[test]
fn english_catalogue_holds_the_engines_sentences() {
    let en = page_catalogue("en");
    let mut ours = Vec::new();
    for (key, _, template) in SENTENCES {
        ours.push((format!("engine.{key}"), *template));
    }
    for (key, template) in PARTS {
        ours.push((format!("engine.part.{key}"), *template));
    }
    for (key, template) in &ours {
        assert_eq!(en.get(key).map(String::as_str), Some(*template), "{key}");
    }
    let extra: Vec<&String> = en
        .keys()
        .filter(|k| k.starts_with("engine.") && !ours.iter().any(|(o, _)| o == *k))
        .collect();
    assert!(
        extra.is_empty(),
        "engine keys the engine never gives: {extra:?}"
    );
}

#[test]
fn every_sentence_is_raised_and_reads_as_the_engine_writes_it() {
    let en = page_catalogue("en");
    let others: Vec<_> = LANGS.iter().map(|l| (*l, page_catalogue(l))).collect();
    let samples = samples();
    let mut problems = Vec::new();
    for (db, script, small, expected) in &samples {
        let Some(e) = error_of(db, script, *small) else {
            problems.push(format!("{expected}: no error from {script:?} on {db:.40}"));
            continue;
        };
        let Some(text) = messages::recognise(&e) else {
            problems.push(format!("{expected}: not recognised: {e}"));
            continue;
        };
        if key_path(&text) != *expected {
            problems.push(format!("{expected}: read as {}: {e}", key_path(&text)));
        }
        let json = messages::to_json(&text);
        let english = fill(&en, &json);
        if english != e.message {
            problems.push(format!(
                "{expected}: en reads {english:?}, the engine {:?}",
                e.message
            ));
        }
        for (lang, cat) in &others {
            let filled = fill(cat, &json);
            for value in plain_values(&json) {
                if !filled.contains(&value) {
                    problems.push(format!("{lang} {expected} drops {value}: {filled}"));
                }
            }
            if filled == e.message {
                problems.push(format!("{lang} {expected} is English"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    for (key, _, _) in SENTENCES {
        assert!(
            samples
                .iter()
                .any(|(_, _, _, k)| k.split('/').next() == Some(*key)),
            "no sample raises {key}"
        );
    }
}

#[test]
fn errors_on_the_page_and_in_diagnostics_carry_the_key() {
    let out = mqlplay::page::run_once("", "db.c.frobnicate()", &RunCtx::default());
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["error"]["text"]["key"], "engine.collectionMethod");
    assert_eq!(v["error"]["text"]["params"]["name"], "frobnicate");
    let diags = mqlplay::assist::diagnostics_json(
        &mqlplay::assist::check_script("db.c.find({a: {$text: 1}})"),
        "",
    );
    assert_eq!(diags[0]["text"]["key"], "engine.notSupported", "{diags}");
    // MongoDB's own words carry no key.
    let out = mqlplay::page::run_once("", "db.c.find({$foo: 1})", &RunCtx::default());
    let v: Value = serde_json::from_str(&out).expect("json");
    assert!(
        v["error"]["message"].is_string() && v["error"].get("text").is_none(),
        "{v}"
    );
    // A tutorial's feedback on a failed run names the message too.
    let verdict = mqlplay::tutorial::judge_step(
        r#"{"resultCount": 1}"#,
        "",
        "db.c.frobnicate()",
        &RunCtx::default(),
    )
    .expect("check parses");
    let said = verdict.feedback[0].to_json();
    assert_eq!(said["key"], "runError", "{said}");
    assert_eq!(said["text"]["key"], "engine.collectionMethod", "{said}");
}
