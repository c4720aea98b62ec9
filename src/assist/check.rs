//! Compile-only diagnostics: every statement of a script is read and its
//! filters, projections, updates and pipelines compiled, nothing run. Errors
//! keep the engine's code and message; those the compilers raise without a
//! place point at the key they name (`$grop`) or at the argument.
use super::methods::{self, Receiver as MethodOn};
use crate::aggregate::pipeline::Pipeline;
use crate::engine::{Arg, Call, Chain, Receiver};
use crate::error::{Error, Span};
use crate::expr::CompileCtx;
use crate::projection::Projection;
use crate::query::Filter;
use crate::shell::{lower, LowerCtx, Node, NodeKind, StmtKind};
use crate::update::Update;
use bson::{Bson, Document};
use std::collections::HashMap;

/// At most this many diagnostics per text (the editor shows each).
const MAX_DIAGNOSTICS: usize = 50;

/// The errors of a script, each with a span into it.
pub fn check_script(script: &str) -> Vec<Error> {
    let parsed = match crate::shell::parse_script(script) {
        Ok(p) => p,
        Err(e) => return vec![e],
    };
    let mut vars: HashMap<String, Bson> = HashMap::new();
    let mut out = Vec::new();
    let ids = || bson::oid::ObjectId::from_bytes([0; 12]);
    for stmt in &parsed.stmts {
        if out.len() >= MAX_DIAGNOSTICS {
            break;
        }
        let (node, name) = match &stmt.kind {
            StmtKind::Expr(node) => (node, None),
            StmtKind::Assign { name, value, .. } => (value, Some(name)),
            StmtKind::Shell { .. } => continue,
        };
        let ctx = LowerCtx {
            vars: &vars,
            now: bson::DateTime::from_millis(0),
            extjson: false,
            new_id: &ids,
            tz: None,
        };
        let result = match crate::engine::decode_chain(node, &ctx) {
            Ok(Some(chain)) => check_chain(&chain, node).map(|()| None),
            Ok(None) => lower(node, &ctx).map(Some),
            Err(e) => Err(e),
        };
        let value = match result {
            Ok(v) => v,
            Err(e) => {
                out.push(placed(e, node, stmt.span));
                None
            }
        };
        // A later use of the name must not be an error: its value is unknown
        // when the statement would have run.
        if let Some(name) = name {
            vars.insert(name.clone(), value.unwrap_or(Bson::Null));
        }
    }
    out
}

/// Give an error a place: its own span, the key it names, or the statement.
fn placed(e: Error, node: &Node, fallback: Span) -> Error {
    if e.span.is_some() {
        return e;
    }
    let span = named_key(node, &e.message).unwrap_or(fallback);
    e.at(span)
}

/// The first object key inside `node` that the message names (`$grop`,
/// `'qty'`), depth-first; bounded like the reader's nesting.
fn named_key(node: &Node, message: &str) -> Option<Span> {
    fn walk(node: &Node, message: &str, depth: usize) -> Option<Span> {
        if depth > 200 {
            return None;
        }
        match &node.kind {
            NodeKind::Object(props) => props.iter().find_map(|p| {
                if p.key.starts_with('$') && mentions(message, &p.key) {
                    Some(p.key_span)
                } else {
                    walk(&p.value, message, depth + 1)
                }
            }),
            NodeKind::Array(items) => items.iter().find_map(|n| walk(n, message, depth + 1)),
            NodeKind::Call { callee, args } | NodeKind::New { callee, args } => {
                walk(callee, message, depth + 1)
                    .or_else(|| args.iter().find_map(|n| walk(n, message, depth + 1)))
            }
            NodeKind::Member { object, .. } => walk(object, message, depth + 1),
            _ => None,
        }
    }
    walk(node, message, 0)
}

/// Whether `word` stands in the message as a whole word (`$sum` is not in `$summary`).
fn mentions(message: &str, word: &str) -> bool {
    message.match_indices(word).any(|(i, _)| {
        let after = message[i + word.len()..].chars().next();
        !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Compile what a chain's calls take, as the engine would before running.
fn check_chain(chain: &Chain, node: &Node) -> crate::error::Result<()> {
    let Some(first) = chain.calls.first() else {
        return Ok(());
    };
    let on = match chain.receiver {
        Receiver::Db => MethodOn::Db,
        Receiver::Collection(_) => MethodOn::Collection,
    };
    if !methods::known(on, &first.name) {
        let e = match on {
            MethodOn::Db => Error::not_supported(format!("db.{}()", first.name)),
            _ => Error::bad_value(methods::unknown_message(on, &first.name)),
        };
        return Err(e.at(member_span(node, &first.name).unwrap_or(first.span)));
    }
    let ctx = CompileCtx::default();
    let within = |r: crate::error::Result<()>, arg: &Arg| r.map_err(|e| placed(e, node, arg.span));
    match first.name.as_str() {
        "find" | "findOne" => {
            let filter = doc_arg(first, 0);
            if let (Some(f), Some(arg)) = (filter, first.arg(0)) {
                within(Filter::compile_find(f, &ctx).map(drop), arg)?;
            }
            if let (Some(p), Some(arg)) = (doc_arg(first, 1), first.arg(1)) {
                within(Projection::compile_for_find(p, filter, &ctx).map(drop), arg)?;
            }
        }
        "count" | "countDocuments" => filter_arg(first, 0, &ctx, node, false)?,
        "deleteOne" | "deleteMany" | "remove" | "findOneAndDelete" => {
            filter_arg(first, 0, &ctx, node, true)?;
        }
        "distinct" => filter_arg(first, 1, &ctx, node, false)?,
        "updateOne" | "updateMany" | "update" | "findOneAndUpdate" | "replaceOne"
        | "findOneAndReplace" => {
            filter_arg(first, 0, &ctx, node, true)?;
            if let Some(arg) = first.arg(1) {
                let filters = doc_arg(first, 2).and_then(|o| match o.get("arrayFilters") {
                    Some(Bson::Array(a)) => Some(a.as_slice()),
                    _ => None,
                });
                within(Update::compile(&arg.value, filters, &ctx).map(drop), arg)?;
            }
        }
        "aggregate" => {
            let stages: Vec<Bson> = match first.args.as_slice() {
                [Arg {
                    value: Bson::Array(stages),
                    ..
                }, ..] => stages.clone(),
                args => args.iter().map(|a| a.value.clone()).collect(),
            };
            if let Some(arg) = first.arg(0) {
                let whole = Arg {
                    value: Bson::Null,
                    span: first.args.last().map_or(arg.span, |l| arg.span.to(l.span)),
                };
                within(Pipeline::compile(&stages, &ctx).map(drop), &whole)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Where the chain names a method (`fnd` of `db.a.fnd()`).
fn member_span(node: &Node, name: &str) -> Option<Span> {
    let mut cur = node;
    for _ in 0..1000 {
        match &cur.kind {
            NodeKind::Call { callee, .. } => cur = callee,
            NodeKind::Member {
                object,
                property,
                property_span,
            } => {
                if property == name {
                    return Some(*property_span);
                }
                cur = object;
            }
            _ => return None,
        }
    }
    None
}

fn doc_arg(call: &Call, i: usize) -> Option<&Document> {
    match call.arg(i).map(|a| &a.value) {
        Some(Bson::Document(d)) => Some(d),
        _ => None,
    }
}

/// `writes`: a write's filter, where `$near` is allowed as in find.
fn filter_arg(
    call: &Call,
    i: usize,
    ctx: &CompileCtx,
    node: &Node,
    writes: bool,
) -> crate::error::Result<()> {
    if let (Some(f), Some(arg)) = (doc_arg(call, i), call.arg(i)) {
        let compiled = if writes {
            Filter::compile_find(f, ctx)
        } else {
            Filter::compile(f, ctx)
        };
        compiled.map_err(|e| placed(e, node, arg.span))?;
    }
    Ok(())
}
