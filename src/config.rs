//! The database configuration pane, in Mongo Playground's two forms:
//! `db = { trades: [ {...} ], reviews: [...] }` (one collection per key) or a
//! bare array `[ {...} ]` (one collection named `collection`). Extended JSON is
//! read when `ctx.extjson` is set. `_id`s are left to the engine.
use crate::error::{Error, Result, Source, Span};
use crate::shell::lexer::Tok;
use crate::shell::parser::Parser;
use crate::shell::LowerCtx;
use bson::{Bson, Document};

/// Collections in the order written, each with its documents in order.
pub fn parse_database(src: &str, ctx: &LowerCtx) -> Result<Vec<(String, Vec<Document>)>> {
    read(src, ctx, true).map_err(|e| e.in_source(Source::Database))
}

/// [`parse_database`] with every value read by the general (token) reader.
#[cfg(test)]
pub(crate) fn parse_database_by_tokens(
    src: &str,
    ctx: &LowerCtx,
) -> Result<Vec<(String, Vec<Document>)>> {
    read(src, ctx, false).map_err(|e| e.in_source(Source::Database))
}

/// `plain`: objects and arrays through the byte reader (`shell::plain`), which
/// reads what the token reader reads; tests compare the two.
fn read(src: &str, ctx: &LowerCtx, plain: bool) -> Result<Vec<(String, Vec<Document>)>> {
    let mut p = Parser::new(src)?;
    skip_semicolons(&mut p)?;
    let out = match &p.tok.tok {
        Tok::Eof => return Ok(Vec::new()),
        Tok::Punct("[") => vec![("collection".to_string(), documents(&mut p, ctx, plain)?)],
        Tok::Ident("db") => {
            p.bump()?;
            if !p.tok.is_punct("=") {
                return Err(Error::syntax(
                    "expected `db = { collection: [ ... ] }`",
                    p.tok.span,
                ));
            }
            p.bump()?;
            collections(&mut p, ctx, plain)?
        }
        _ => {
            let msg =
                "the configuration must be `db = { collection: [ ... ] }` or an array of documents";
            return Err(Error::failed_to_parse(msg).at(p.tok.span));
        }
    };
    skip_semicolons(&mut p)?;
    if p.tok.tok != Tok::Eof {
        let msg = "the configuration must be a single `db = {...}` or `[...]`";
        return Err(Error::failed_to_parse(msg).at(p.tok.span));
    }
    Ok(out)
}

fn skip_semicolons(p: &mut Parser) -> Result<()> {
    while p.tok.is_punct(";") {
        p.bump()?;
    }
    Ok(())
}

/// `{ name: [ ... ], ... }`. A repeated collection name keeps its first
/// position and its last value, as a JavaScript object does.
fn collections(
    p: &mut Parser,
    ctx: &LowerCtx,
    plain: bool,
) -> Result<Vec<(String, Vec<Document>)>> {
    if !p.tok.is_punct("{") {
        let msg = "`db` must be an object of collections: db = { name: [ ... ] }";
        return Err(Error::failed_to_parse(msg).at(p.tok.span));
    }
    p.bump()?;
    let mut out: Vec<(String, Vec<Document>)> = Vec::new();
    while let Some((name, _)) = p.property_head()? {
        let docs = documents(p, ctx, plain)?;
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = docs,
            None => out.push((name, docs)),
        }
        p.property_tail()?;
    }
    Ok(out)
}

/// An array literal of documents, read straight into BSON.
fn documents(p: &mut Parser, ctx: &LowerCtx, plain: bool) -> Result<Vec<Document>> {
    if !p.tok.is_punct("[") {
        let msg = "a collection must be an array of documents";
        return Err(Error::failed_to_parse(msg).at(p.tok.span));
    }
    p.bump()?;
    let mut docs = Vec::new();
    while p.element_head()? {
        if plain && p.plain_documents(ctx, &mut docs)? {
            continue;
        }
        let start = p.tok.span.start;
        let v = if plain {
            p.data_value(ctx)?
        } else {
            p.literal_value(ctx)?
        };
        match v {
            Bson::Document(d) => docs.push(d),
            other => return Err(not_a_document(&other, Span::new(start, p.prev_end))),
        }
        p.element_tail()?;
    }
    Ok(docs)
}

fn not_a_document(v: &Bson, span: Span) -> Error {
    let msg = format!(
        "a collection must contain documents, found a {:?}",
        v.element_type()
    );
    Error::failed_to_parse(msg).at(span)
}

#[cfg(test)]
mod plain_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;
    use std::collections::HashMap;

    fn id() -> bson::oid::ObjectId {
        bson::oid::ObjectId::from_bytes([2; 12])
    }
    fn db(src: &str) -> Result<Vec<(String, Vec<Document>)>> {
        let vars = HashMap::new();
        let ctx = LowerCtx {
            vars: &vars,
            now: bson::DateTime::from_millis(0),
            extjson: true,
            new_id: &id,
            tz: None,
        };
        parse_database(src, &ctx)
    }

    #[test]
    fn forms() {
        assert_eq!(db("  \n ").expect("empty"), vec![]);
        assert_eq!(
            db("[{a: 1}, {b: 2},]").expect("array"),
            vec![("collection".to_string(), vec![doc! {"a": 1}, doc! {"b": 2}])]
        );
        let got = db("db = { trades: [ {_id: 1} ], reviews: [] }").expect("db");
        assert_eq!(
            got,
            vec![
                ("trades".to_string(), vec![doc! {"_id": 1}]),
                ("reviews".to_string(), vec![])
            ]
        );
        let got =
            db(r#"[{"_id": {"$oid": "5a934e000102030405000000"}, "n": {"$numberLong": "5"}}]"#)
                .expect("extjson");
        assert_eq!(got[0].1[0].get("n"), Some(&Bson::Int64(5)));
    }

    #[test]
    fn errors() {
        let e = db("[{a: 1}, 2]").expect_err("not a doc");
        assert_eq!(
            (e.span, e.source),
            (Some(Span::new(9, 10)), Source::Database)
        );
        let e = db("db = { a: [ {x: 1} {y: 2} ] }").expect_err("missing comma");
        assert_eq!(e.source, Source::Database);
        assert!(db("db = [1]").is_err());
        assert!(db("{a: [1]}").is_err());
        assert!(db("db = { a: 1 }").is_err());
    }

    #[cfg(not(target_arch = "wasm32"))]
    /// A configuration's objects whose first key is a wrapper are read as bson reads
    /// them (the shell reader hands them to `to_bson` through `lower`).
    #[test]
    fn the_configuration_reader_converts_every_wrapper() {
        use crate::shell::extjson::is_wrapper_key;
        use crate::shell::extjson::tests::{bodies, exact_in_javascript, KEYS};
        use crate::shell::LowerCtx;
        use serde_json::json;
        let vars = std::collections::HashMap::new();
        let new_id = || bson::oid::ObjectId::from_bytes([0; 12]);
        let ctx = LowerCtx {
            vars: &vars,
            now: bson::DateTime::from_millis(0),
            extjson: true,
            new_id: &new_id,
            tz: None,
        };
        let mut converted = 0;
        for key in KEYS.iter().filter(|k| is_wrapper_key(k)) {
            for body in bodies() {
                let wrapper = json!({ *key: body });
                let Ok(expected) = bson::Bson::try_from(wrapper.clone()) else {
                    continue;
                };
                if !exact_in_javascript(&wrapper) {
                    continue;
                }
                converted += 1;
                let src = format!("db = {{c: [{{v: {wrapper}}}]}}");
                let read = parse_database(&src, &ctx).unwrap_or_else(|e| panic!("{src}: {e:?}"));
                let v = read[0].1[0].get("v");
                assert_eq!(format!("{v:?}"), format!("{:?}", Some(&expected)), "{src}");
            }
        }
        // Every wrapper key has a valid body among `bodies()`.
        assert!(converted >= 15, "{converted}");
        assert!(!is_wrapper_key("$foo") && !is_wrapper_key("oid"));
    }
}
