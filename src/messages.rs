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
];

/// Parameters whose value may be one of [`PARTS`].
const PHRASE_PARAMS: [&str; 3] = ["what", "cause", "feature"];

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
            // A brace that is the message's own (`${}`, `{...}`).
            _ => {
                let end = close.map_or(rest.len(), |c| c + 1);
                out.push(Piece::Lit(&rest[..end]));
                rest = &rest[end..];
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
