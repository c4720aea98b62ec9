//! A statement's method chain, decoded from the syntax tree: which receiver
//! (`db` or a collection) and which calls, with lowered arguments and spans.
use crate::error::{Error, Result, Span};
use crate::shell::{lower, LowerCtx, Node, NodeKind};
use bson::{Bson, Document};

/// One lowered argument.
#[derive(Clone, Debug)]
pub struct Arg {
    pub value: Bson,
    pub span: Span,
}

/// One method call of a chain: `.sort({a: 1})`.
#[derive(Clone, Debug)]
pub struct Call {
    pub name: String,
    /// The whole call, from the method name to the closing parenthesis.
    pub span: Span,
    pub args: Vec<Arg>,
}

/// What the first call is made on.
#[derive(Clone, Debug, PartialEq)]
pub enum Receiver {
    Db,
    Collection(String),
}

#[derive(Clone, Debug)]
pub struct Chain {
    pub receiver: Receiver,
    pub calls: Vec<Call>,
}

/// Methods called on `db` itself (anything else after `db.` names a collection).
const DB_METHODS: &[&str] = &[
    "getCollectionNames",
    "getCollectionInfos",
    "getName",
    "aggregate",
    "createCollection",
    "dropDatabase",
    "stats",
    "runCommand",
    "adminCommand",
];

enum Seg<'a> {
    Member(&'a str, Span),
    Call(&'a [Node], Span),
}

impl Call {
    /// The argument at `i`, if given.
    pub fn arg(&self, i: usize) -> Option<&Arg> {
        self.args.get(i)
    }

    /// The argument at `i` as a document; `None` when absent, null or undefined.
    pub fn doc_arg(&self, i: usize, what: &str) -> Result<Option<&Document>> {
        match self.args.get(i) {
            None => Ok(None),
            Some(Arg {
                value: Bson::Null | Bson::Undefined,
                ..
            }) => Ok(None),
            Some(Arg {
                value: Bson::Document(d),
                ..
            }) => Ok(Some(d)),
            Some(arg) => Err(Error::type_mismatch(format!(
                "{what} must be an object, got {}",
                crate::text::shell::type_name(&arg.value)
            ))
            .at(arg.span)),
        }
    }

    /// Fail when more than `max` arguments were given.
    pub fn max_args(&self, max: usize) -> Result<()> {
        match self.args.get(max) {
            Some(extra) => Err(Error::bad_value(format!(
                "{}() takes at most {max} argument(s)",
                self.name
            ))
            .at(extra.span)),
            None => Ok(()),
        }
    }
}

/// Decode `db.<coll>.<method>(...).<method>(...)`; `None` if the expression is not rooted at `db`.
pub fn decode_chain(node: &Node, ctx: &LowerCtx) -> Result<Option<Chain>> {
    let mut segs = Vec::new();
    let mut cur = node;
    loop {
        match &cur.kind {
            NodeKind::Call { callee, args } => {
                segs.push(Seg::Call(args, cur.span));
                cur = callee;
            }
            NodeKind::Member {
                object,
                property,
                property_span,
            } => {
                segs.push(Seg::Member(property, *property_span));
                cur = object;
            }
            NodeKind::Index { object, index } => {
                let name = match &index.kind {
                    NodeKind::Value(Bson::String(s)) => s.as_str(),
                    _ => return Ok(None),
                };
                segs.push(Seg::Member(name, index.span));
                cur = object;
            }
            NodeKind::Ident(name) if name == "db" => break,
            _ => return Ok(None),
        }
    }
    segs.reverse();
    let mut segs = segs.into_iter().peekable();
    // The receiver.
    let mut receiver = Receiver::Db;
    let mut pending: Option<(&str, Span)> = None;
    let mut coll_parts: Vec<&str> = Vec::new();
    let mut calls = Vec::new();
    while let Some(seg) = segs.next() {
        match seg {
            Seg::Member(name, span) => {
                let next_is_call = matches!(segs.peek(), Some(Seg::Call(..)));
                if !calls.is_empty()
                    || (next_is_call && (receiver != Receiver::Db || !coll_parts.is_empty()))
                {
                    pending = Some((name, span));
                } else if let (true, Some(Seg::Call(args, call_span))) = (
                    name == "getCollection" || name == "collection",
                    // Only consume the call when the name matched (the tuple evaluates both).
                    segs.next_if(|s| {
                        (name == "getCollection" || name == "collection")
                            && matches!(s, Seg::Call(..))
                    }),
                ) {
                    let name_arg = match args.first().map(|a| lower(a, ctx)).transpose()? {
                        Some(Bson::String(s)) if !s.is_empty() => s,
                        _ => {
                            return Err(Error::bad_value(format!(
                                "{name}() needs a collection name (a non-empty string)"
                            ))
                            .at(call_span))
                        }
                    };
                    receiver = Receiver::Collection(name_arg);
                } else if next_is_call && DB_METHODS.contains(&name) {
                    pending = Some((name, span));
                } else if next_is_call {
                    // `db.trades()`: a collection is not a function.
                    return Err(Error::bad_value(format!("db.{name} is not a function")).at(span));
                } else {
                    coll_parts.push(name);
                    receiver = Receiver::Collection(coll_parts.join("."));
                }
            }
            Seg::Call(args, span) => {
                let Some((name, name_span)) = pending.take() else {
                    return Err(Error::bad_value("this expression is not a function").at(span));
                };
                let args = args
                    .iter()
                    .map(|a| {
                        Ok(Arg {
                            value: lower(a, ctx)?,
                            span: a.span,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                calls.push(Call {
                    name: name.to_string(),
                    span: name_span.to(span),
                    args,
                });
            }
        }
    }
    if let Some((name, span)) = pending {
        return Err(Error::bad_value(format!("{name} is a method: call it with ()")).at(span));
    }
    Ok(Some(Chain { receiver, calls }))
}
