//! The engine's and reader's own English messages (not MongoDB's, mongosh's or
//! JavaScript's), recognised in an error so the page can show them in its
//! language: a key (`engine.<key>` in `www/i18n/<lang>.json`) and the parameters
//! filled into it. The English stays what the engine wrote: the CLI shows it and
//! the page falls back to it. Recognising at the edge, instead of a key carried
//! by every error built, leaves the many places that build errors untouched;
//! `tests/engine_texts.rs` makes each sentence here trigger and read as the
//! engine writes it.
use crate::error::Error;
use serde_json::{json, Map, Value};

/// A recognised message: its key and parameters, by name.
#[derive(Clone, Debug, PartialEq)]
pub struct Text {
    pub key: &'static str,
    pub params: Vec<(&'static str, Param)>,
}

/// A parameter: words kept as written (code, names, numbers), or a phrase of
/// ours that is translated too (`engine.part.<key>`).
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    Plain(String),
    Part(Text),
}

/// Whole messages: key, the error code they are raised with, the English with
/// `{name}` parameters.
pub const SENTENCES: &[(&str, i32, &str)] = &[
    ("notSupported", 115, "{what} is not supported in mqlplay"),
    (
        "collectionMethod",
        115,
        "the collection method {name}() is not supported in mqlplay; supported: {list}",
    ),
    (
        "regexFeature",
        115,
        "regular expressions with {feature} are not supported in mqlplay (its regex engine has no backtracking)",
    ),
    (
        "serverJavaScript",
        115,
        "{op} runs server-side JavaScript (deprecated since MongoDB 8.0), which mqlplay never executes: use $expr with aggregation operators instead",
    ),
    (
        "javaScriptFunctions",
        115,
        "JavaScript functions (arrow functions, `function`, callbacks for forEach/map) are not supported: the playground never runs JavaScript. Use aggregation operators instead (e.g. $project or $addFields with $map, $filter or $reduce)",
    ),
    (
        "nestingTooDeep",
        9,
        "nesting is too deep (more than {max} levels)",
    ),
    (
        "runMemory",
        146,
        "the run needs more than {mib} MiB of memory, mqlplay's limit for one run; {cause}",
    ),
    (
        "databaseTooLarge",
        146,
        "the Database pane holds more than the playground can load ({mb} MB of text; one run may use {mib} MiB): use fewer or smaller documents",
    ),
    (
        "rangeLimit",
        5029600,
        "$range would produce {count} elements; mqlplay limits $range to {max} elements",
    ),
    ("configDbEquals", 9, "expected `db = { collection: [ ... ] }`"),
    (
        "configForm",
        9,
        "the configuration must be `db = { collection: [ ... ] }` or an array of documents",
    ),
    (
        "configSingle",
        9,
        "the configuration must be a single `db = {...}` or `[...]`",
    ),
    (
        "configDbObject",
        9,
        "`db` must be an object of collections: db = { name: [ ... ] }",
    ),
    (
        "configCollectionArray",
        9,
        "a collection must be an array of documents",
    ),
    ("unterminatedComment", 9, "unterminated comment"),
    ("unterminatedString", 9, "unterminated string literal"),
    ("unterminatedTemplate", 9, "unterminated template literal"),
    ("unterminatedRegex", 9, "unterminated regular expression literal"),
    ("identifierEscapes", 9, "escapes in identifiers are not supported"),
    (
        "callConstructor",
        9,
        "{name} is a function: call it, as in {name}(...)",
    ),
    (
        "configNotDocument",
        9,
        "a collection must contain documents, found a {type}",
    ),
    // The reader's own words; `{js}` is JavaScript's message, kept in English.
    ("expectedPropertyName", 9, "{js}: expected a property name"),
    (
        "shorthandProperty",
        9,
        "shorthand property '{key}' is not supported: write '{key}: value'",
    ),
    (
        "arrayHoles",
        9,
        "holes in array literals are not supported (two commas in a row)",
    ),
    ("invalidNumber", 9, "invalid number '{text}'"),
    ("numberMissingDigits", 9, "{js}: missing digits"),
    ("numberMissingExponent", 9, "{js}: missing exponent"),
    ("numberMalformed", 9, "{js}: malformed number"),
    ("regexFlagTwice", 9, "{js}: duplicate '{flag}'"),
    ("bigIntNegation", 2, "BigInt negation overflows"),
    ("negateType", 14, "cannot negate a value of type {type}"),
    ("indexExpression", 14, "unsupported index expression"),
    ("extendedJson", 9, "invalid Extended JSON: {why}"),
    // The shell's constructors, checked as mongosh checks them, in our words.
    ("hashDigits", 2, "{name}: the hash must be 32 hex digits"),
    ("hashHex", 2, "{name}: the hash must be a hex string"),
    ("dataBase64", 2, "{name}: the data must be a base64 string"),
    ("dataHex", 2, "{name}: the data must be a hex string"),
    (
        "dataHexPairs",
        2,
        "{name}: the data must be a string of hex digit pairs",
    ),
    (
        "createFromTime",
        2,
        "ObjectId.createFromTime expects seconds as a 32-bit number",
    ),
    ("codeString", 2, "Code() expects a string"),
    ("codeScope", 2, "Code(): the scope must be an object"),
    (
        "stringOrNumberArgument",
        2,
        "{name}: argument must be a string or a number",
    ),
    ("stringOrNumber", 2, "{name}: expected a string or a number"),
    ("int64Invalid", 2, "{name}: {value} is not a valid 64-bit integer"),
    (
        "timestampRange",
        2,
        "{name}: t and i must be integers in the 32-bit unsigned range",
    ),
    (
        "binarySubtype",
        2,
        "{name}: the subtype must be a number from 0 to 255",
    ),
    ("uuidHex", 2, "{name}: expected a hex string"),
    ("patternString", 2, "{name}: the pattern must be a string"),
    ("flagsString", 2, "{name}: the flags must be a string"),
    ("optionsString", 2, "{name}: the options must be a string"),
    (
        "regexNul",
        2,
        "a regular expression cannot contain a null character",
    ),
    (
        "dbRefArguments",
        2,
        "{name}: expected a collection name and an id",
    ),
    (
        "dbRefDatabase",
        2,
        "{name}: the database name must be a string",
    ),
    // The engine's checks of a method call's arguments and chaining.
    ("dbAlone", 2, "`db` alone does nothing here: call a method, e.g. db.getCollectionNames()"),
    ("collectionAlone", 2, "db.{name} is a collection: call a method on it, e.g. db.{name}.find()"),
    ("methodNotCalled", 2, "{name} is a method: call it with ()"),
    ("tooManyArguments", 2, "{name}() takes at most {max} argument(s)"),
    ("wholeNumber", 14, "{what} must be a whole number, got {value}"),
    ("needsNumber", 2, "{name}() needs a number"),
    ("needsCollectionName", 2, "{name}() needs a collection name (a non-empty string)"),
    ("createCollectionName", 2, "createCollection() needs a collection name"),
    ("chainedAfterDocument", 2, "{name}() cannot be chained after {prev}(): it returns a document, not a cursor"),
    ("chainedAfterValue", 2, "{name}() cannot be chained after {prev}(): it returns a value, not a cursor"),
    ("chainedAfterExplained", 2, "{name}() cannot be chained after an explained {prev}()"),
    ("chainedAfter", 2, "{name}() cannot be chained after {prev}()"),
    ("notChainable", 2, "{name}() cannot be chained here: the previous call does not return a cursor"),
    ("chainedOnCollectionNames", 2, "{name}() cannot be chained on getCollectionNames()"),
    ("unknownCursorMethod", 2, "unknown cursor method {name}(); supported: {list}"),
    ("unknownFindOption", 2, "unknown find() option {name}; supported: sort, skip, limit, projection, hint, comment, maxTimeMS, batchSize, allowDiskUse"),
    ("unknownOption", 2, "unknown option {name}; supported: {list}"),
    ("sortArgument", 14, "sort must be an object, a field name or an array of [field, direction] pairs, got {type}"),
    ("distinctField", 2, "distinct() needs a field name"),
    ("needsDocument", 2, "{name}() needs a document"),
    ("needsDocumentGot", 2, "{name}() needs a document, got {type}"),
    ("insertOneArray", 2, "insertOne() takes one document, not an array: use insertMany() for several"),
    ("insertManyArray", 2, "insertMany() needs an array of documents"),
    ("documentNotObject", 2, "document {i} is not an object but {type}"),
    ("updateArgument", 14, "the update must be an object or a pipeline (array), got {type}"),
    ("replacementArgument", 14, "the replacement must be an object, got {type}"),
    ("mustBeObject", 14, "{what} must be an object, got {type}"),
    ("mustBeObjectValue", 2, "{what} must be an object, got {type}"),
    ("aggregateStages", 14, "aggregate() expects an array of stages, got {type}"),
    ("dbAggregateStart", 72, "db.aggregate() needs a pipeline that starts with a collection-less stage such as $documents"),
    ("explainMethod", 2, "db.collection.explain() explains a method: db.collection.explain().find({...})"),
    ("keyPatternNeeded", 2, "{name}() needs a key pattern, e.g. {a: 1}"),
    ("keyPatternObject", 14, "{name}() needs a key pattern object, got {type}"),
    ("createIndexesArray", 14, "createIndexes() needs an array of key patterns"),
    ("createIndexesObjects", 14, "createIndexes() needs key pattern objects, got {type}"),
    ("dropIndexArgument", 14, "dropIndex() needs an index name or key pattern"),
    ("dropIndexesArgument", 14, "dropIndexes() needs an index name, a key pattern or an array of names, got {type}"),
    ("dropIndexesNames", 14, "dropIndexes() needs index names, got {type}"),
    ("siblingDbString", 14, "getSiblingDB() needs a database name (a string)"),
    ("siblingDbOne", 2, "getSiblingDB() takes one database name"),
    ("variableNesting", 15, "the value of {name} nests more than {max} levels"),
    ("runCommandDocument", 2, "runCommand() needs a command document"),
    ("runCommandEmpty", 40414, "no command given: runCommand() needs a command document such as {collMod: 'name'}"),
    ("bulkWriteArray", 14, "bulkWrite() needs an array of operations, got {type}"),
    ("bulkWriteField", 2, "bulkWrite {op} needs a '{name}' field"),
    ("bulkWriteOneOf", 2, "bulkWrite operation {i} must be one of {insertOne: ...}, {updateOne: ...}, {updateMany: ...}, {replaceOne: ...}, {deleteOne: ...}, {deleteMany: ...}"),
    ("bulkWriteUnknown", 2, "unknown bulkWrite operation {name}; supported: insertOne, updateOne, updateMany, replaceOne, deleteOne, deleteMany"),
];

/// Phrases of ours that fill a sentence's `what` or `cause`: key, English.
pub const PARTS: &[(&str, &str)] = &[
    ("accumulator", "the {name} accumulator"),
    ("windowFunction", "the {name} window function"),
    ("function", "the function {name}()"),
    ("jsonSchemaKeyword", "$jsonSchema keyword '{key}'"),
    ("javaScriptWord", "JavaScript '{word}'"),
    ("shellGlobal", "mongosh's {name}"),
    ("explainOf", "explain() of {name}()"),
    ("convertArgument", "$convert's '{name}' argument"),
    ("convertToBinData", "$convert from numbers to binData"),
    ("collationOption", "the collation option"),
    ("indexCollation", "indexes with a collation"),
    ("wildcardIndexes", "wildcard indexes"),
    ("tailable", "tailable cursors"),
    ("templateSubstitution", "template literal substitution `${}`"),
    ("assignment", "assignment to anything but a plain name"),
    ("destructuring", "destructuring declarations"),
    ("optionalChaining", "optional chaining `?.`"),
    ("spreadArguments", "spread arguments"),
    ("commaOperator", "the comma operator"),
    ("unaryPlus", "unary + on anything but a number"),
    ("computedNames", "computed property names"),
    ("objectSpread", "object spread"),
    ("methodsInLiterals", "methods in object literals"),
    ("arraySpread", "array spread"),
    ("literalCall", "calling or indexing a literal in data"),
    (
        "assignDb",
        "assigning to db anything but db.getSiblingDB(name)",
    ),
    ("dbAsValue", "using a database call as a literal value"),
    ("indexKeys", "the indexes' keys take more than that"),
    (
        "kept",
        "the script's variables, the results kept for printing and the stored documents take more than that",
    ),
    ("literals", "the script's literals alone take more than that"),
    (
        "statementGrowth",
        "this statement builds {mib} MiB of documents and values",
    ),
    (
        "heldBefore",
        "the database and the earlier statements already hold {mib} MiB of it",
    ),
    ("possessive", "possessive quantifiers (*+, ++, ?+)"),
    ("verbs", "backtracking control verbs ((*VERB))"),
    ("lookaround", "lookahead or lookbehind assertions ((?=, (?!, (?<=, (?<!)"),
    ("namedBackreferenceP", "named backreferences ((?P=name))"),
    ("atomicGroups", "atomic groups ((?>...))"),
    ("branchReset", "branch reset groups ((?|...))"),
    ("conditionalGroups", "conditional groups ((?(...)...))"),
    ("recursion", "recursion or subroutine calls ((?R), (?1))"),
    ("backreferences", "backreferences (\\1)"),
    ("namedBackreferenceK", "named backreferences (\\k<name>)"),
    ("backreferencesG", "backreferences (\\g)"),
    (
        "unicodeProperties",
        "Unicode property escapes (\\p{...}, \\P{...})",
    ),
    ("serverStage", "the {name} stage (it needs a MongoDB server); it"),
    ("outTimeSeries", "$out into a time series collection"),
    ("mergeTimeSeries", "$merge into a time series collection"),
    ("textIndexVersion", "text index version {version}"),
    (
        "enterpriseLanguage",
        "the text search language \"{name}\" (MongoDB Enterprise only)",
    ),
    (
        "metaBelowTop",
        "{$meta: \"textScore\"} below the top level of a projection",
    ),
    ("metaInProjection", "{$meta: \"{name}\"} in projections"),
    ("sortByMeta", "sorting by {$meta: \"{name}\"}"),
    (
        "strictWinding",
        "the strict-winding CRS (polygons larger than a hemisphere)",
    ),
    ("collationLocale", "the collation locale '{locale}'"),
    (
        "collationBackwards",
        "backwards: {backwards} with locale '{locale}'",
    ),
    (
        "indexOption",
        "the index option '{name}' (text, geospatial and wildcard indexes)",
    ),
    ("timeseriesOption", "the timeseries option '{name}'"),
    (
        "createCollectionCapped",
        "the createCollection option '{name}' without 'capped: true'",
    ),
    ("createCollectionOption", "the createCollection option '{name}'"),
    ("timeSeriesWith", "a time series collection with '{name}'"),
    ("timeSeriesValidator", "a validator on a time series collection"),
    ("collModOption", "the collMod option '{name}'"),
    ("runCommand", "the command '{name}' in db.runCommand()"),
    (
        "aggregationCursor",
        "{name}() on an aggregation cursor (supported: toArray, pretty, itcount)",
    ),
    ("cursorOnIndexes", "cursor.{name}() (it works on indexes)"),
    (
        "cursorForEach",
        "cursor.forEach() (it runs a JavaScript function); use return the documents (toArray()) or transform them with an aggregation $project / $set instead",
    ),
    (
        "cursorMap",
        "cursor.map() (it runs a JavaScript function); use an aggregation pipeline with $project or $set instead",
    ),
    (
        "cursorFilter",
        "cursor.filter() (it runs a JavaScript function); use a query filter or an aggregation $match instead",
    ),
    (
        "cursorReduce",
        "cursor.reduce() (it runs a JavaScript function); use an aggregation $group instead",
    ),
    (
        "cursorClose",
        "cursor.close() (it runs a JavaScript function); use nothing: cursors close by themselves here instead",
    ),
    (
        "operatorOnDate",
        "the {sign} operator on a date (use getTime() or subtract) (only numbers and dates are folded)",
    ),
    (
        "operatorOnBigInt",
        "the {sign} operator on a BigInt/NumberLong (only numbers and dates are folded)",
    ),
    (
        "operatorOnType",
        "the {sign} operator on a value of type {type} (only numbers and dates are folded)",
    ),
    ("methodOfValue", "calling .{name}() on a {type} value"),
    ("propertyOfValue", "reading .{name} of a {type} value"),
    ("indexesOfType", "{name} indexes"),
    // Why an Extended JSON wrapper is invalid.
    (
        "ejsonPlain",
        "expected plain JSON inside the wrapper",
    ),
    ("ejsonNextField", "invalid {key}: unexpected field next to it"),
    ("ejsonString", "invalid {key}: expected a string"),
    ("ejsonObject", "invalid {key}: expected an object"),
    ("ejsonOne", "invalid {key}: expected 1"),
    ("ejsonTrue", "invalid {key}: expected true"),
    ("ejsonDate", "invalid {key}: expected a date"),
    ("ejsonRfc3339", "invalid {key}: expected an RFC 3339 date"),
    ("ejsonInteger", "invalid {key}: expected an integer"),
    ("ejsonUnknownField", "invalid {key}: unknown field `{field}`"),
    ("ejsonMissingField", "invalid {key}: missing field `{field}`"),
    (
        "ejsonValueCount",
        "invalid {key}: {count} values where {expected} were expected",
    ),
    ("ejsonInvalid", "invalid {key}: {detail}"),
];

/// Parameters whose value may be one of [`PARTS`].
const PHRASE_PARAMS: [&str; 4] = ["what", "cause", "feature", "why"];

/// The message's key and parameters, if the engine wrote it (by code and words).
pub fn recognise(e: &Error) -> Option<Text> {
    SENTENCES
        .iter()
        .filter(|(_, code, _)| *code == e.code)
        .find_map(|(key, _, template)| {
            let params = matches(template, &e.message)?;
            Some(Text {
                key,
                params: params
                    .into_iter()
                    .map(|(name, value)| {
                        let part = PHRASE_PARAMS
                            .contains(&name)
                            .then(|| part(&value))
                            .flatten();
                        (name, part.map_or(Param::Plain(value), Param::Part))
                    })
                    .collect(),
            })
        })
}

fn part(value: &str) -> Option<Text> {
    PARTS.iter().find_map(|(key, template)| {
        let params = matches(template, value)?;
        Some(Text {
            key,
            params: params
                .into_iter()
                .map(|(n, v)| (n, Param::Plain(v)))
                .collect(),
        })
    })
}

/// `{key, params}` for the page, `key` as its catalogues name it: a parameter
/// that is a phrase is itself `{key, params}`.
pub fn to_json(text: &Text) -> Value {
    to_json_in("engine.", text)
}

fn to_json_in(prefix: &str, text: &Text) -> Value {
    let mut params = Map::new();
    for (name, p) in &text.params {
        let v = match p {
            Param::Plain(s) => Value::String(s.clone()),
            Param::Part(t) => to_json_in("engine.part.", t),
        };
        params.insert((*name).to_string(), v);
    }
    json!({ "key": format!("{prefix}{}", text.key), "params": params })
}

/// Add `text` to an error's JSON object when the message is one of ours.
pub fn annotate(e: &Error, json: &mut Value) {
    if let (Some(t), Some(obj)) = (recognise(e), json.as_object_mut()) {
        obj.insert("text".into(), to_json(&t));
    }
}

/// The English of a template with its parameters filled (what the engine writes).
pub fn fill(template: &str, params: &[(&str, String)]) -> String {
    let mut out = template.to_string();
    for (name, value) in params {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

/// A template's pieces: literal text, or a parameter's name.
enum Piece<'a> {
    Lit(&'a str),
    Param(&'a str),
}

fn pieces(template: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}').map(|i| open + i);
        let name = close.map(|c| &rest[open + 1..c]);
        match (close, name) {
            (Some(c), Some(n))
                if !n.is_empty() && n.chars().all(|ch| ch.is_ascii_alphanumeric()) =>
            {
                if open > 0 {
                    out.push(Piece::Lit(&rest[..open]));
                }
                out.push(Piece::Param(n));
                rest = &rest[c + 1..];
            }
            // A brace that is the message's own (`${}`, `{$meta: …}`): a
            // parameter may still follow inside it.
            _ => {
                out.push(Piece::Lit(&rest[..=open]));
                rest = &rest[open + 1..];
            }
        }
    }
    if !rest.is_empty() {
        out.push(Piece::Lit(rest));
    }
    out
}

/// The parameters that make `template` read as `message`, if any does.
fn matches<'t>(template: &'t str, message: &str) -> Option<Vec<(&'t str, String)>> {
    let pieces = pieces(template);
    let mut out = Vec::new();
    match_from(&pieces, message, &mut out).then_some(out)
}

fn match_from<'t>(pieces: &[Piece<'t>], text: &str, out: &mut Vec<(&'t str, String)>) -> bool {
    match pieces.split_first() {
        None => text.is_empty(),
        Some((Piece::Lit(l), rest)) => {
            text.starts_with(l) && match_from(rest, &text[l.len()..], out)
        }
        Some((Piece::Param(name), rest)) => {
            // Shortest non-empty value that lets the rest match.
            for (i, _) in text.char_indices().skip(1).chain([(text.len(), ' ')]) {
                // A parameter used twice reads the same both times.
                if out.iter().any(|(n, v)| n == name && *v != text[..i]) {
                    continue;
                }
                let mark = out.len();
                out.push((name, text[..i].to_string()));
                if match_from(rest, &text[i..], out) {
                    return true;
                }
                out.truncate(mark);
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_parameters_and_phrases() {
        let e = Error::not_supported("the $top accumulator");
        let t = recognise(&e).expect("recognised");
        assert_eq!(t.key, "notSupported");
        let Param::Part(what) = &t.params[0].1 else {
            panic!("{t:?}")
        };
        assert_eq!(what.key, "accumulator");
        assert_eq!(what.params, vec![("name", Param::Plain("$top".into()))]);
        // A plain parameter stays as written.
        let t = recognise(&Error::not_supported("db.foo()")).expect("recognised");
        assert_eq!(t.params, vec![("what", Param::Plain("db.foo()".into()))]);
    }

    #[test]
    fn other_messages_and_codes_are_left_alone() {
        assert_eq!(
            recognise(&Error::bad_value("$foo is not supported in mqlplay")),
            None
        );
        assert_eq!(
            recognise(&Error::command_not_supported("no such command")),
            None
        );
        assert_eq!(recognise(&Error::not_supported("")), None);
    }

    #[test]
    fn braces_of_the_message_are_text() {
        let t = part("template literal substitution `${}`").expect("recognised");
        assert_eq!(t.key, "templateSubstitution");
        assert_eq!(fill("a {x} b", &[("x", "1".into())]), "a 1 b");
    }
}
