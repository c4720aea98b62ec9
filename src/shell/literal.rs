//! Object and array literals, parsed two ways: into syntax nodes (scripts),
//! or straight into BSON (configurations and other pure data, where building
//! a tree first would double the allocations on multi-megabyte inputs).
use super::ast::{Node, NodeKind, Property};
use super::ctors::parse_oid;
use super::dates::parse_isodate;
use super::extjson::is_wrapper_key;
use super::lexer::Tok;
use super::lower::{lower, LowerCtx};
use super::number::{js_number_to_string, number_literal, typed_number, NumLit};
use super::parser::Parser;
use crate::error::{Error, Result, Span};
use bson::{Bson, Document};

impl<'a> Parser<'a> {
    pub(super) fn object(&mut self) -> Result<Node> {
        let open = self.bump()?;
        self.enter(open.span)?;
        let mut props = Vec::new();
        let r = self.object_body(&mut props);
        self.depth -= 1;
        r?;
        Ok(Node {
            kind: NodeKind::Object(props),
            span: Span::new(open.span.start, self.prev_end),
        })
    }

    /// Properties after `{`, through the closing `}`.
    pub(super) fn object_body(&mut self, props: &mut Vec<Property>) -> Result<()> {
        while let Some((key, key_span)) = self.property_head()? {
            let value = self.expr()?;
            props.push(Property {
                key,
                key_span,
                value,
            });
            self.property_tail()?;
        }
        Ok(())
    }

    /// At a property: its key and the `:` after it; `None` at `}` (consumed).
    pub(crate) fn property_head(&mut self) -> Result<Option<(String, Span)>> {
        if self.tok.is_punct("}") {
            self.bump()?;
            return Ok(None);
        }
        let key_span = self.tok.span;
        let key = match &self.tok.tok {
            Tok::Ident(w) => (*w).to_string(),
            Tok::Str(s) => s.to_string(),
            Tok::Num(text) => match number_literal(text) {
                Some(NumLit::Float(f)) => js_number_to_string(f),
                Some(NumLit::Big(i)) => i.to_string(),
                None => return Err(Error::syntax(format!("invalid number '{text}'"), key_span)),
            },
            Tok::Punct("[") => {
                return Err(Error::not_supported("computed property names").at(key_span))
            }
            Tok::Punct("...") => return Err(Error::not_supported("object spread").at(key_span)),
            Tok::Eof => {
                let end = Span::new(self.src.len(), self.src.len());
                return Err(Error::syntax("missing } after property list", end));
            }
            _ => {
                let e = self.unexpected();
                return Err(Error::syntax(
                    format!("{}: expected a property name", e.message),
                    key_span,
                ));
            }
        };
        self.bump()?;
        if !self.tok.is_punct(":") {
            if matches!(self.tok.tok, Tok::Punct("," | "}")) {
                let msg =
                    format!("shorthand property '{key}' is not supported: write '{key}: value'");
                return Err(Error::syntax(msg, key_span));
            }
            if self.tok.is_punct("(") {
                return Err(Error::not_supported("methods in object literals").at(key_span));
            }
            let e = self.unexpected();
            return Err(Error::syntax(
                format!("missing : after property id: {}", e.message),
                e.span.unwrap_or(key_span),
            ));
        }
        self.bump()?;
        Ok(Some((key, key_span)))
    }

    /// After a property value: `,` (consumed) or `}` (left for `property_head`).
    pub(crate) fn property_tail(&mut self) -> Result<()> {
        if self.tok.is_punct(",") {
            self.bump()?;
        } else if !self.tok.is_punct("}") {
            let e = self.unexpected();
            let span = if self.tok.tok == Tok::Eof {
                e.span.unwrap_or_default()
            } else {
                self.tok.span
            };
            return Err(Error::syntax(
                format!("missing , or }} after property: {}", e.message),
                span,
            ));
        }
        Ok(())
    }

    pub(super) fn array(&mut self) -> Result<Node> {
        let open = self.bump()?;
        self.enter(open.span)?;
        let mut items = Vec::new();
        let r = self.array_body(&mut items);
        self.depth -= 1;
        r?;
        Ok(Node {
            kind: NodeKind::Array(items),
            span: Span::new(open.span.start, self.prev_end),
        })
    }

    fn array_body(&mut self, items: &mut Vec<Node>) -> Result<()> {
        while self.element_head()? {
            items.push(self.expr()?);
            self.element_tail()?;
        }
        Ok(())
    }

    /// Before an array element: `false` at `]` (consumed).
    pub(crate) fn element_head(&mut self) -> Result<bool> {
        if self.tok.is_punct("]") {
            self.bump()?;
            return Ok(false);
        }
        if self.tok.is_punct(",") {
            let msg = "holes in array literals are not supported (two commas in a row)";
            return Err(Error::syntax(msg, self.tok.span));
        }
        if self.tok.is_punct("...") {
            return Err(Error::not_supported("array spread").at(self.tok.span));
        }
        Ok(true)
    }

    /// After an element: `,` (consumed) or `]` (left for `element_head`).
    pub(crate) fn element_tail(&mut self) -> Result<()> {
        if self.tok.is_punct(",") {
            self.bump()?;
        } else if !self.tok.is_punct("]") {
            let e = self.unexpected();
            let msg = format!("missing ] after element list: {}", e.message);
            return Err(Error::syntax(msg, e.span.unwrap_or_default()));
        }
        Ok(())
    }

    /// A value read straight into BSON: `{...}` and `[...]` without a tree;
    /// anything else (constructor calls, variables, Extended JSON wrappers)
    /// through the tree and `lower`, so the result is identical.
    pub(crate) fn literal_value(&mut self, ctx: &LowerCtx) -> Result<Bson> {
        let start = self.tok.span.start;
        if let Some(v) = self.scalar()? {
            if !matches!(self.tok.tok, Tok::Punct("." | "[" | "(" | "?." | "=>")) {
                return Ok(v);
            }
            // Rare in data (`'abc'.length`): continue as a tree.
            let mut node = Node {
                kind: NodeKind::Value(v),
                span: Span::new(start, self.prev_end),
            };
            let saved = self.depth;
            let r = self.postfix_ops(&mut node, true);
            self.depth = saved;
            r?;
            return lower(&node, ctx);
        }
        if let Some(v) = self.simple_call(ctx)? {
            return Ok(v);
        }
        let v = if self.tok.is_punct("{") {
            self.direct_object(ctx)?
        } else if self.tok.is_punct("[") {
            self.direct_array(ctx)?
        } else {
            let node = self.expr()?;
            return match node.kind {
                NodeKind::Value(v) => Ok(v),
                _ => lower(&node, ctx),
            };
        };
        self.after_literal(start)?;
        Ok(v)
    }

    /// After an object or array literal starting at `start`: no call or index on it.
    pub(super) fn after_literal(&self, start: usize) -> Result<()> {
        if matches!(self.tok.tok, Tok::Punct("." | "[" | "(" | "?.")) && !self.tok.nl_before {
            let span = Span::new(start, self.tok.span.end);
            return Err(Error::not_supported("calling or indexing a literal in data").at(span));
        }
        Ok(())
    }

    /// `ISODate("<ISO>")` or `ObjectId("<hex>")` with a valid string, read
    /// without a syntax tree (data pasted from mongosh holds thousands); the
    /// same values `lower` gives. Anything else (another shape, a variable
    /// of that name, a method call after it, invalid text) puts the tokens
    /// back and returns `None`, so the general path reads it, errors included.
    fn simple_call(&mut self, ctx: &LowerCtx) -> Result<Option<Bson>> {
        let Tok::Ident(name @ ("ISODate" | "ObjectId")) = self.tok.tok else {
            return Ok(None);
        };
        if ctx.vars.contains_key(name) {
            return Ok(None);
        }
        let saved = (self.lex.clone(), self.tok.clone(), self.prev_end);
        let mut attempt = || -> Result<Option<Bson>> {
            self.bump()?;
            if !self.tok.is_punct("(") {
                return Ok(None);
            }
            self.bump()?;
            let v = match &self.tok.tok {
                Tok::Str(s) if name == "ISODate" => {
                    parse_isodate(s).map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms)))
                }
                Tok::Str(s) => parse_oid(s).ok(),
                _ => None,
            };
            if v.is_none() {
                return Ok(None);
            }
            self.bump()?;
            if !self.tok.is_punct(")") {
                return Ok(None);
            }
            self.bump()?;
            if matches!(self.tok.tok, Tok::Punct("." | "[" | "(" | "?." | "=>")) {
                return Ok(None);
            }
            Ok(v)
        };
        match attempt() {
            Ok(Some(v)) => Ok(Some(v)),
            _ => {
                (self.lex, self.tok, self.prev_end) = saved;
                Ok(None)
            }
        }
    }

    /// A string, plain number, boolean or null token, consumed; `None` (nothing
    /// consumed) for anything else.
    fn scalar(&mut self) -> Result<Option<Bson>> {
        let v = match &self.tok.tok {
            Tok::Str(_) => match self.bump()?.tok {
                Tok::Str(s) => return Ok(Some(Bson::String(s.into_owned()))),
                _ => return Ok(None),
            },
            Tok::Num(text) => match number_literal(text) {
                Some(NumLit::Float(f)) => typed_number(f),
                _ => return Ok(None),
            },
            Tok::Ident("true") => Bson::Boolean(true),
            Tok::Ident("false") => Bson::Boolean(false),
            Tok::Ident("null") => Bson::Null,
            _ => return Ok(None),
        };
        self.bump()?;
        Ok(Some(v))
    }

    fn direct_object(&mut self, ctx: &LowerCtx) -> Result<Bson> {
        let open = self.bump()?;
        self.enter(open.span)?;
        let r = self.direct_object_body(open.span, ctx);
        self.depth -= 1;
        r
    }

    #[inline(never)]
    fn direct_object_body(&mut self, open: Span, ctx: &LowerCtx) -> Result<Bson> {
        let start = self.scratch.pairs.len();
        let r = self.direct_properties(open, ctx);
        let out = match r {
            Ok(None) => Ok(Bson::Document(self.scratch.document(start))),
            Ok(Some(wrapper)) => Ok(wrapper),
            Err(e) => Err(e),
        };
        self.scratch.pairs.truncate(start);
        out
    }

    /// The properties of an object pushed on `scratch.pairs`, through its `}`;
    /// or, when the object is an Extended JSON wrapper, its value.
    #[inline(never)]
    fn direct_properties(&mut self, open: Span, ctx: &LowerCtx) -> Result<Option<Bson>> {
        let mut first = true;
        while let Some((key, key_span)) = self.property_head()? {
            if first && ctx.extjson && is_wrapper_key(&key) {
                // A wrapper: finish it as a tree and let `lower` convert it.
                let value = self.expr()?;
                if self.tok.is_punct("}") {
                    if let Some(v) = simple_wrapper(&key, &value) {
                        self.bump()?;
                        return Ok(Some(v));
                    }
                }
                let mut props = vec![Property {
                    key,
                    key_span,
                    value,
                }];
                self.property_tail()?;
                self.object_body(&mut props)?;
                let node = Node {
                    kind: NodeKind::Object(props),
                    span: Span::new(open.start, self.prev_end),
                };
                return lower(&node, ctx).map(Some);
            }
            first = false;
            let value = self.literal_value(ctx)?;
            self.scratch.pairs.push((key, value));
            self.property_tail()?;
        }
        Ok(None)
    }

    fn direct_array(&mut self, ctx: &LowerCtx) -> Result<Bson> {
        let open = self.bump()?;
        self.enter(open.span)?;
        let start = self.scratch.items.len();
        let r = (|| {
            while self.element_head()? {
                let item = self.literal_value(ctx)?;
                self.scratch.items.push(item);
                self.element_tail()?;
            }
            Ok(())
        })();
        self.depth -= 1;
        // Moved out of the buffer: exactly the array's length, one allocation.
        let items = self
            .scratch
            .items
            .split_off(start.min(self.scratch.items.len()));
        r.map(|()| Bson::Array(items))
    }
}

/// Buffers the direct reader reuses: the properties or elements read so far
/// of the objects and arrays being read (nested ones above their parents').
///
/// Why: a configuration's documents are what every scan walks. Built key by
/// key, a document's table and entries grow by reallocation (room for 3,
/// then 7, ...), and the freed blocks are filled by the next documents'
/// keys and strings, so a document's pieces end up spread over the heap,
/// a cache miss at each in wasm (no prefetching). Built once at its exact
/// size after its values are read, each document's keys, strings, table
/// and entries lie one after another, in the order a scan visits them,
/// with no unused entries between one document and the next.
#[derive(Default)]
pub(crate) struct Scratch {
    pub(super) pairs: Vec<(String, Bson)>,
    pub(super) items: Vec<Bson>,
    /// Values read by the byte reader (`super::plain`), for its budget checks.
    pub(super) values: u32,
    /// Builds the documents (one hasher state for all of them).
    builder: crate::value::entries::Builder,
}

impl Scratch {
    /// A document of the properties from `start` on, taken off the buffer; a repeated
    /// key keeps its first position and takes the last value, as in JavaScript.
    pub(super) fn document(&mut self, start: usize) -> Document {
        let start = start.min(self.pairs.len());
        self.builder.document(self.pairs.drain(start..))
    }
}

/// The commonest one-field wrappers in data, `{"$date": "<ISO>"}` and
/// `{"$oid": "<hex>"}`, converted directly (the Extended JSON reader,
/// `super::extjson`, used for every other wrapper, goes through `serde_json` values):
/// the same conversions that reader makes. `None` for anything else and for
/// invalid text, which then takes the general path and its error.
fn simple_wrapper(key: &str, value: &Node) -> Option<Bson> {
    let NodeKind::Value(Bson::String(s)) = &value.kind else {
        return None;
    };
    match key {
        "$date" => super::extjson::rfc3339(s.as_bytes())
            .map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms))),
        "$oid" => bson::oid::ObjectId::parse_str(s).ok().map(Bson::ObjectId),
        _ => None,
    }
}
