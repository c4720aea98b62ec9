//! Data read byte by byte, without tokens: the JSON-shaped part of a
//! configuration (objects, arrays, strings without escapes, decimal numbers,
//! `true`/`false`/`null`, `{"$date": "<ISO>"}` and `{"$oid": "<hex>"}`).
//!
//! Everything else is handed to the general reader ([`Parser::literal_value`])
//! at the same position and in the same state (the end of the token before,
//! the nesting depth), so what it gives, values and errors with their
//! positions, is the general reader's: a value this reader does not know (a
//! constructor call, an escaped string, a comment before it) is read there in
//! place; a container with anything unexpected between its values (a comment,
//! a missing comma, a computed key, nesting past the limit) is read there
//! again from its opening bracket.
use super::extjson::{is_wrapper_key, rfc3339};
use super::lexer::Tok;
use super::lower::LowerCtx;
use super::number::{number_literal, typed_number, NumLit};
use super::parser::{Parser, MAX_DEPTH};
use crate::error::{Result, Span};
use bson::Bson;

/// The general reader must read the container again from its opening bracket.
struct Again;

/// Where reading goes on after a value: the next byte to look at, and the
/// end of the value's last token (where the general reader would resume).
#[derive(Clone, Copy)]
struct At {
    next: usize,
    prev_end: usize,
}

impl<'a> Parser<'a> {
    /// The value at the current token, exactly as [`Parser::literal_value`]
    /// reads it; objects and arrays through this module's reader.
    pub(crate) fn data_value(&mut self, ctx: &LowerCtx) -> Result<Bson> {
        if !matches!(self.tok.tok, Tok::Punct("{" | "[")) {
            return self.literal_value(ctx);
        }
        let start = self.tok.span.start;
        let depth = self.depth;
        // A value handed over inside moves the tokens on: kept to start again.
        let saved = (self.lex.clone(), self.tok.clone(), self.prev_end);
        let (v, at) = match self.plain_container(start, depth, ctx)? {
            Ok(read) => read,
            Err(Again) => {
                (self.lex, self.tok, self.prev_end) = saved;
                self.depth = depth;
                return self.literal_value(ctx);
            }
        };
        // Back to tokens after the closing bracket (after which `/` divides).
        self.lex.set_pos(at.prev_end, false);
        let next = self.lex.next_token()?;
        crate::budget::check_for(crate::budget::LITERALS).map_err(|e| e.at(next.span))?;
        self.tok = next;
        self.prev_end = at.prev_end;
        self.depth = depth;
        self.after_literal(start)?;
        Ok(v)
    }

    /// At a collection's element (the current token, after `element_head`):
    /// the documents from there on read by bytes, as long as each is a plain
    /// object followed by `,` or `]`, pushed on `docs`. Leaves the tokens as
    /// the token loop would after the last one's `element_tail`; `false`
    /// (tokens untouched) when the first element is not such a document.
    pub(crate) fn plain_documents(
        &mut self,
        ctx: &LowerCtx,
        docs: &mut Vec<bson::Document>,
    ) -> Result<bool> {
        let b = self.src.as_bytes();
        let depth = self.depth;
        let saved = (self.lex.clone(), self.tok.clone(), self.prev_end);
        let mut at = self.tok.span.start;
        // Past the `,` after the last document read.
        let mut resume = None;
        loop {
            if !matches!(b.get(at), Some(b'{')) {
                break;
            }
            let read = self.plain_container(at, depth, ctx)?;
            self.depth = depth;
            let Ok((Bson::Document(doc), end)) = read else {
                break;
            };
            // What `data_value` and `element_tail` would check, at the tokens
            // they would stand at.
            let next = skip_space(b, end.next);
            let sep = *match b.get(next) {
                Some(c @ (b',' | b']')) => c,
                _ => break,
            };
            crate::budget::check_for(crate::budget::LITERALS)
                .map_err(|e| e.at(Span::new(next, next + 1)))?;
            docs.push(doc);
            if sep == b']' {
                // After `}` a `/` divides.
                self.lex.set_pos(end.prev_end, false);
                self.tok = self.lex.next_token()?;
                self.prev_end = end.prev_end;
                return Ok(true);
            }
            resume = Some(next + 1);
            at = skip_space(b, next + 1);
            if matches!(b.get(at), Some(b'{')) {
                crate::budget::check_for(crate::budget::LITERALS)
                    .map_err(|e| e.at(Span::new(at, at + 1)))?;
            }
        }
        match resume {
            Some(after_comma) => {
                // After `,` a `/` starts a regular expression.
                self.lex.set_pos(after_comma, true);
                let next = self.lex.next_token()?;
                crate::budget::check_for(crate::budget::LITERALS).map_err(|e| e.at(next.span))?;
                self.tok = next;
                self.prev_end = after_comma;
                Ok(true)
            }
            None => {
                (self.lex, self.tok, self.prev_end) = saved;
                Ok(false)
            }
        }
    }

    /// The object or array opening at `open`, inside `depth` open ones.
    fn plain_container(
        &mut self,
        open: usize,
        depth: usize,
        ctx: &LowerCtx,
    ) -> Result<std::result::Result<(Bson, At), Again>> {
        if depth >= MAX_DEPTH {
            return Ok(Err(Again));
        }
        let read = if matches!(self.src.as_bytes().get(open), Some(b'{')) {
            self.plain_object(open, depth + 1, ctx)?
        } else {
            self.plain_array(open, depth + 1, ctx)?
        };
        Ok(read.map(|(v, end)| {
            let at = At {
                next: end,
                prev_end: end,
            };
            (v, at)
        }))
    }

    /// `{...}` from its `{`: the value and the position after its `}`.
    fn plain_object(
        &mut self,
        open: usize,
        depth: usize,
        ctx: &LowerCtx,
    ) -> Result<std::result::Result<(Bson, usize), Again>> {
        let start = self.scratch.pairs.len();
        let r = self.plain_properties(open, depth, ctx);
        let out = match r {
            Ok(Ok((None, end))) => Ok(Ok((Bson::Document(self.scratch.document(start)), end))),
            Ok(Ok((Some(wrapper), end))) => Ok(Ok((wrapper, end))),
            Ok(Err(Again)) => Ok(Err(Again)),
            Err(e) => Err(e),
        };
        self.scratch.pairs.truncate(start);
        out
    }

    /// The properties of the object opening at `open`, pushed on
    /// `scratch.pairs`, and the position after its `}`; or, for the two
    /// commonest Extended JSON wrappers, their value.
    fn plain_properties(
        &mut self,
        open: usize,
        depth: usize,
        ctx: &LowerCtx,
    ) -> Result<std::result::Result<(Option<Bson>, usize), Again>> {
        let b = self.src.as_bytes();
        let mut at = open + 1;
        let mut first = true;
        loop {
            at = skip_space(b, at);
            let key = match b.get(at) {
                Some(b'}') => return Ok(Ok((None, at + 1))),
                Some(&q @ (b'"' | b'\'')) => match plain_string(b, at, q) {
                    Some(end) => {
                        let key = ascii_bounded(self.src, at + 1, end - 1);
                        at = end;
                        key
                    }
                    None => return Ok(Err(Again)),
                },
                Some(b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$') => {
                    let end = word_end(b, at);
                    if matches!(b.get(end), Some(b'\\' | 0x80..)) {
                        return Ok(Err(Again));
                    }
                    let key = ascii_bounded(self.src, at, end);
                    at = end;
                    key
                }
                _ => return Ok(Err(Again)),
            };
            at = skip_space(b, at);
            if !matches!(b.get(at), Some(b':')) {
                return Ok(Err(Again));
            }
            at += 1;
            if first && ctx.extjson && is_wrapper_key(key) {
                return Ok(plain_wrapper(self.src, key, at).ok_or(Again));
            }
            first = false;
            let after_colon = At {
                next: at,
                prev_end: at,
            };
            let (value, after) = self.plain_value(after_colon, depth, ctx)?;
            self.scratch.pairs.push((key.to_string(), value));
            self.budget_now_and_then(Span::new(after_colon.next, after.prev_end))?;
            at = skip_space(b, after.next);
            match b.get(at) {
                Some(b',') => at += 1,
                Some(b'}') => return Ok(Ok((None, at + 1))),
                _ => return Ok(Err(Again)),
            }
        }
    }

    /// `[...]` from its `[`: the value and the position after its `]`.
    fn plain_array(
        &mut self,
        open: usize,
        depth: usize,
        ctx: &LowerCtx,
    ) -> Result<std::result::Result<(Bson, usize), Again>> {
        let start = self.scratch.items.len();
        let r = self.plain_elements(open, depth, ctx);
        // Moved out of the buffer: exactly the array's length, one allocation.
        let items = self
            .scratch
            .items
            .split_off(start.min(self.scratch.items.len()));
        Ok(r?.map(|end| (Bson::Array(items), end)))
    }

    fn plain_elements(
        &mut self,
        open: usize,
        depth: usize,
        ctx: &LowerCtx,
    ) -> Result<std::result::Result<usize, Again>> {
        let b = self.src.as_bytes();
        let mut at = open + 1;
        loop {
            let here = At {
                next: at,
                prev_end: at,
            };
            at = skip_space(b, at);
            // The general reader looks for `]`, holes and spreads before
            // reading an element: only a value's first byte is handed over.
            match b.get(at) {
                Some(b']') => return Ok(Ok(at + 1)),
                Some(b',' | b'.' | b'/' | 0x0b | 0x0c | 0x80..) | None => return Ok(Err(Again)),
                _ => {}
            }
            let (item, after) = self.plain_value(here, depth, ctx)?;
            self.scratch.items.push(item);
            self.budget_now_and_then(Span::new(at, after.prev_end))?;
            at = skip_space(b, after.next);
            match b.get(at) {
                Some(b',') => at += 1,
                Some(b']') => return Ok(Ok(at + 1)),
                _ => return Ok(Err(Again)),
            }
        }
    }

    /// The memory budget, checked every few values read here (a value takes
    /// a few dozen bytes beyond its text) and at each document's end.
    #[inline(always)]
    fn budget_now_and_then(&mut self, value: Span) -> Result<()> {
        self.scratch.values = self.scratch.values.wrapping_add(1);
        if !self.scratch.values.is_multiple_of(16) {
            return Ok(());
        }
        crate::budget::check_for(crate::budget::LITERALS).map_err(|e| e.at(value))
    }

    /// The value after `before` (the end of a `:`, `[` or `,`), in a
    /// container `depth` deep: read here, or else by the general reader.
    fn plain_value(&mut self, before: At, depth: usize, ctx: &LowerCtx) -> Result<(Bson, At)> {
        let b = self.src.as_bytes();
        let start = skip_space(b, before.next);
        let read = match b.get(start) {
            // The commonest wrapper in data, without reading it as an object.
            Some(b'{')
                if ctx.extjson
                    && depth < MAX_DEPTH
                    && b.get(start..)
                        .is_some_and(|r| r.starts_with(b"{\"$date\":\"")) =>
            {
                match plain_wrapper(self.src, "$date", start + 9) {
                    Some((Some(v), end)) => Some((v, end)),
                    _ => self
                        .plain_container(start, depth, ctx)?
                        .ok()
                        .map(|(v, at)| (v, at.next)),
                }
            }
            Some(b'{' | b'[') => match self.plain_container(start, depth, ctx)? {
                Ok((v, at)) => Some((v, at.next)),
                Err(Again) => None,
            },
            Some(&q @ (b'"' | b'\'')) => plain_string(b, start, q).map(|end| {
                let text = ascii_bounded(self.src, start + 1, end - 1);
                (Bson::String(text.to_owned()), end)
            }),
            Some(b'0'..=b'9') => {
                plain_number(self.src, start).map(|(f, end)| (typed_number(f), end))
            }
            // A negative number: what the general reader folds `-<number>` into
            // (it counts the sign as one more level).
            Some(b'-') if depth < MAX_DEPTH && b.get(start + 1).is_some_and(u8::is_ascii_digit) => {
                plain_number(self.src, start + 1).map(|(f, end)| (typed_number(-f), end))
            }
            Some(b't') if word_end(b, start) == start + 4 && &b[start..start + 4] == b"true" => {
                Some((Bson::Boolean(true), start + 4))
            }
            Some(b'f') if word_end(b, start) == start + 5 && &b[start..start + 5] == b"false" => {
                Some((Bson::Boolean(false), start + 5))
            }
            Some(b'n') if word_end(b, start) == start + 4 && &b[start..start + 4] == b"null" => {
                Some((Bson::Null, start + 4))
            }
            _ => None,
        };
        if let Some((v, end)) = read {
            // The general reader would go on after `1.` or `{}` followed by
            // `.x`, `(`, `[`...: only a separator or a closing bracket ends
            // the value here.
            if matches!(b.get(skip_space(b, end)), Some(b',' | b'}' | b']')) {
                let at = At {
                    next: end,
                    prev_end: end,
                };
                return Ok((v, at));
            }
        }
        self.general_value(before, depth, ctx)
    }

    /// The value after `before`, read by the general reader in the state it
    /// would be in there.
    fn general_value(&mut self, before: At, depth: usize, ctx: &LowerCtx) -> Result<(Bson, At)> {
        // After `:`, `[` or `,` a `/` starts a regular expression.
        self.lex.set_pos(before.prev_end, true);
        let first = self.lex.next_token()?;
        crate::budget::check_for(crate::budget::LITERALS).map_err(|e| e.at(first.span))?;
        self.tok = first;
        self.prev_end = before.prev_end;
        self.depth = depth;
        let v = self.literal_value(ctx)?;
        let at = At {
            next: self.tok.span.start,
            prev_end: self.prev_end,
        };
        Ok((v, at))
    }
}

/// `src[from..to]` where both ends are next to an ASCII byte this reader
/// matched (a quote, an identifier or digit): char boundaries by
/// construction, so the slice skips the two boundary checks (a call each in
/// the page's size-optimised wasm, per key and string read).
#[inline(always)]
fn ascii_bounded(src: &str, from: usize, to: usize) -> &str {
    debug_assert!(from <= to && src.is_char_boundary(from) && src.is_char_boundary(to));
    match src.as_bytes().get(from..to) {
        // SAFETY: `from` and `to` are char boundaries of `src` (see above), so
        // the bytes between them are whole UTF-8 sequences of a `str`.
        Some(bytes) => unsafe { std::str::from_utf8_unchecked(bytes) },
        None => "",
    }
}

/// Past ASCII spaces and line breaks (anything else, comments included, is
/// left for the caller to see).
#[inline(always)]
fn skip_space(b: &[u8], mut at: usize) -> usize {
    while matches!(b.get(at), Some(b' ' | b'\n' | b'\r' | b'\t')) {
        at += 1;
    }
    at
}

/// The end of the ASCII identifier characters from `at`.
#[inline(always)]
fn word_end(b: &[u8], mut at: usize) -> usize {
    while matches!(
        b.get(at),
        Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'$')
    ) {
        at += 1;
    }
    at
}

/// The position after the string opening at `open` with quote `q`, when it
/// has no escape and no line break (the lexer reads those bytes as they are).
#[inline(always)]
fn plain_string(b: &[u8], open: usize, q: u8) -> Option<usize> {
    let mut at = open + 1;
    while let Some(&c) = b.get(at) {
        if c == q {
            return Some(at + 1);
        }
        if c == b'\\' || c == b'\n' || c == b'\r' {
            return None;
        }
        at += 1;
    }
    None
}

/// A decimal number from `start` (`12`, `1.5`, `2e-3`), as the lexer
/// delimits it and `number_literal` reads it, and the position after it;
/// `None` for any other form (`0x1F`, `1_000`, `10n`, `1e`, `1abc`).
#[inline]
fn plain_number(src: &str, start: usize) -> Option<(f64, usize)> {
    let b = src.as_bytes();
    let digits = |mut p: usize| {
        while b.get(p).is_some_and(u8::is_ascii_digit) {
            p += 1;
        }
        p
    };
    let mut p = digits(start);
    if matches!(b.get(p), Some(b'.')) {
        p = digits(p + 1);
    }
    if matches!(b.get(p), Some(b'e' | b'E')) {
        let mut q = p + 1;
        if matches!(b.get(q), Some(b'+' | b'-')) {
            q += 1;
        }
        let end = digits(q);
        if end == q {
            return None;
        }
        p = end;
    }
    if matches!(
        b.get(p),
        Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'$' | b'.' | b'\\' | 0x80..)
    ) {
        return None;
    }
    match number_literal(ascii_bounded(src, start, p))? {
        NumLit::Float(f) => Some((f, p)),
        NumLit::Big(_) => None,
    }
}

/// `"<ISO>"}` or `"<hex>"}` after `{"$date":` or `{"$oid":` (at `at`): the
/// date or ObjectId and the position after the `}`, converted as the general
/// reader converts them; `None` for any other wrapper or text.
fn plain_wrapper(src: &str, key: &str, at: usize) -> Option<(Option<Bson>, usize)> {
    let b = src.as_bytes();
    let open = skip_space(b, at);
    let q = *b.get(open)?;
    if q != b'"' && q != b'\'' {
        return None;
    }
    let end = plain_string(b, open, q)?;
    let close = skip_space(b, end);
    if !matches!(b.get(close), Some(b'}')) {
        return None;
    }
    let text = ascii_bounded(src, open + 1, end - 1);
    let v = match key {
        "$date" => Bson::DateTime(bson::DateTime::from_millis(rfc3339(text.as_bytes())?)),
        "$oid" => Bson::ObjectId(bson::oid::ObjectId::parse_str(text).ok()?),
        _ => return None,
    };
    Some((Some(v), close + 1))
}
