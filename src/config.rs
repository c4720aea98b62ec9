//! The database configuration pane, in Mongo Playground's two forms:
//! `db = { trades: [ {...} ], reviews: [...] }` (one collection per key) or a
//! bare array `[ {...} ]` (one collection named `collection`). Extended JSON is
//! read when `ctx.extjson` is set. `_id`s are left to the engine.
use crate::error::{Error, Result, Source, Span};
use crate::shell::ast::{Node, NodeKind, StmtKind};
use crate::shell::{lower, parse_script, LowerCtx};
use bson::{Bson, Document};

/// Collections in the order written, each with its documents in order.
pub fn parse_database(src: &str, ctx: &LowerCtx) -> Result<Vec<(String, Vec<Document>)>> {
    read(src, ctx).map_err(|e| e.in_source(Source::Database))
}

fn read(src: &str, ctx: &LowerCtx) -> Result<Vec<(String, Vec<Document>)>> {
    let script = parse_script(src)?;
    let mut stmts = script.stmts.into_iter();
    let Some(stmt) = stmts.next() else {
        return Ok(Vec::new());
    };
    if let Some(extra) = stmts.next() {
        return Err(Error::failed_to_parse(
            "the configuration must be a single `db = {...}` or `[...]`",
        )
        .at(extra.span));
    }
    match stmt.kind {
        StmtKind::Assign {
            name,
            value:
                Node {
                    kind: NodeKind::Object(props),
                    ..
                },
            ..
        } if name == "db" => {
            let mut out: Vec<(String, Vec<Document>)> = Vec::with_capacity(props.len());
            for p in props {
                let docs = documents(&p.value, ctx)?;
                // A repeated collection name keeps its first position and last value, as in JavaScript.
                match out.iter_mut().find(|(n, _)| *n == p.key) {
                    Some(slot) => slot.1 = docs,
                    None => out.push((p.key, docs)),
                }
            }
            Ok(out)
        }
        StmtKind::Assign { name, value, .. } if name == "db" => Err(Error::failed_to_parse(
            "`db` must be an object of collections: db = { name: [ ... ] }",
        )
        .at(value.span)),
        StmtKind::Expr(
            node @ Node {
                kind: NodeKind::Array(_),
                ..
            },
        ) => Ok(vec![("collection".to_string(), documents(&node, ctx)?)]),
        _ => Err(Error::failed_to_parse(
            "the configuration must be `db = { collection: [ ... ] }` or an array of documents",
        )
        .at(stmt.span)),
    }
}

/// An array literal of documents.
fn documents(node: &Node, ctx: &LowerCtx) -> Result<Vec<Document>> {
    let NodeKind::Array(items) = &node.kind else {
        return Err(
            Error::failed_to_parse("a collection must be an array of documents").at(node.span),
        );
    };
    let mut docs = Vec::with_capacity(items.len());
    for item in items {
        match lower(item, ctx)? {
            Bson::Document(d) => docs.push(d),
            other => return Err(not_a_document(&other, item.span)),
        }
    }
    Ok(docs)
}

fn not_a_document(v: &Bson, span: Span) -> Error {
    Error::failed_to_parse(format!(
        "a collection must contain documents, found a {:?}",
        v.element_type()
    ))
    .at(span)
}

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
}
