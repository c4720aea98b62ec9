//! The formatter behind `mqlplay fmt` and the page's Format button.
//!
//! It re-prints the tokens (comments included) rather than the syntax tree, so
//! numbers keep their spelling (`1.0` stays `1.0`) and comments stay where they
//! were. The text is parsed first: a syntax error is returned and nothing is
//! formatted. Layout: groups (`{}`, `[]`, `()`) on one line when they fit in
//! 80 columns, otherwise one element per line; long method chains one call
//! per line; strings in single quotes; keys unquoted when they are names.
use super::ast::StmtKind;
use super::doc::{render, Doc};
use super::lexer::{Lexer, Tok, Token};
use super::parser::parse_script;
use crate::error::{Result, Span};

const WIDTH: usize = 80;

/// Re-indent a script or configuration; idempotent and meaning-preserving.
pub fn format_script(src: &str) -> Result<String> {
    let script = parse_script(src)?;
    let pieces = collect_pieces(src, &script.stmts)?;
    let units = group_units(&pieces, &script.stmts);
    let mut docs = Vec::new();
    let mut prev_end: Option<usize> = None;
    for unit in &units {
        let start = unit.start(&pieces);
        if let Some(end) = prev_end {
            let between = &src[end..start];
            if unit.trailing_comment && !between.contains('\n') {
                docs.push(Doc::text(" "));
            } else {
                docs.push(Doc::HardLine);
                if between.matches('\n').count() >= 2 {
                    docs.push(Doc::BlankLine);
                }
            }
        }
        docs.push(unit_doc(src, &pieces[unit.range.0..unit.range.1]));
        prev_end = Some(unit.end(&pieces));
    }
    let mut out = render(&Doc::Concat(docs), WIDTH);
    if !out.is_empty() {
        out.push('\n');
    }
    Ok(out)
}

/// A token, or the raw text of a shell helper line (`use my-db`).
#[derive(Clone, Debug)]
enum Piece<'a> {
    Tok(Token<'a>),
    Raw(Span),
}

impl Piece<'_> {
    fn span(&self) -> Span {
        match self {
            Piece::Tok(t) => t.span,
            Piece::Raw(s) => *s,
        }
    }
    fn is_comment(&self) -> bool {
        matches!(
            self,
            Piece::Tok(Token {
                tok: Tok::Comment(_),
                ..
            })
        )
    }
    fn is_punct(&self, p: &str) -> bool {
        matches!(self, Piece::Tok(t) if t.is_punct(p))
    }
}

/// All tokens and comments; shell helper lines become one raw piece.
fn collect_pieces<'a>(src: &'a str, stmts: &[super::ast::Stmt]) -> Result<Vec<Piece<'a>>> {
    let shells: Vec<Span> = stmts
        .iter()
        .filter(|s| matches!(s.kind, StmtKind::Shell { .. }))
        .map(|s| s.span)
        .collect();
    let mut lx = Lexer::with_comments(src);
    let mut out = Vec::new();
    loop {
        let t = lx.next_token()?;
        if t.tok == Tok::Eof {
            return Ok(out);
        }
        if let Some(shell) = shells.iter().find(|s| s.start == t.span.start) {
            out.push(Piece::Raw(*shell));
            lx.set_pos(shell.end, true);
            continue;
        }
        out.push(Piece::Tok(t));
    }
}

/// A top-level line group: one statement (with its `;`), or one comment.
struct Unit {
    range: (usize, usize),
    /// A comment on the same line as the previous unit's end.
    trailing_comment: bool,
}

impl Unit {
    fn start(&self, pieces: &[Piece]) -> usize {
        pieces[self.range.0].span().start
    }
    fn end(&self, pieces: &[Piece]) -> usize {
        pieces[self.range.1 - 1].span().end
    }
}

fn group_units(pieces: &[Piece], stmts: &[super::ast::Stmt]) -> Vec<Unit> {
    // Statement spans, merged where they overlap (`const a = 1, b = 2`).
    let mut spans: Vec<Span> = Vec::new();
    for s in stmts {
        match spans.last_mut() {
            Some(last) if s.span.start < last.end => last.end = last.end.max(s.span.end),
            _ => spans.push(s.span),
        }
    }
    let mut units = Vec::new();
    let mut k = 0;
    let mut i = 0;
    while i < pieces.len() {
        let start = pieces[i].span().start;
        while spans.get(k).is_some_and(|s| s.end <= start) {
            k += 1;
        }
        let inside = spans.get(k).filter(|s| s.start <= start);
        if let (Some(span), false) = (inside, pieces[i].is_comment()) {
            let mut j = i + 1;
            while j < pieces.len() && pieces[j].span().start < span.end {
                j += 1;
            }
            if j < pieces.len() && pieces[j].is_punct(";") {
                j += 1;
            }
            units.push(Unit {
                range: (i, j),
                trailing_comment: false,
            });
            i = j;
        } else if pieces[i].is_comment() {
            let same_line = matches!(&pieces[i], Piece::Tok(t) if !t.nl_before);
            units.push(Unit {
                range: (i, i + 1),
                trailing_comment: same_line && !units.is_empty(),
            });
            i += 1;
        } else {
            // A stray `;` (an empty statement): nothing to print.
            i += 1;
        }
    }
    units
}

/// A token tree: brackets grouped.
enum Tree<'p, 'a> {
    Leaf(&'p Piece<'a>),
    Group {
        open: &'p Token<'a>,
        items: Vec<Tree<'p, 'a>>,
        close: &'p Token<'a>,
    },
}

fn build_tree<'p, 'a>(pieces: &'p [Piece<'a>], i: &mut usize) -> Vec<Tree<'p, 'a>> {
    let mut out = Vec::new();
    while *i < pieces.len() {
        let p = &pieces[*i];
        match p {
            Piece::Tok(t) if matches!(t.tok, Tok::Punct("{" | "[" | "(")) => {
                *i += 1;
                let items = build_tree(pieces, i);
                match pieces.get(*i) {
                    Some(Piece::Tok(close)) => {
                        *i += 1;
                        out.push(Tree::Group {
                            open: t,
                            items,
                            close,
                        });
                    }
                    // Unbalanced input cannot reach here (it was parsed); keep going anyway.
                    _ => out.extend(items),
                }
            }
            Piece::Tok(t) if matches!(t.tok, Tok::Punct("}" | "]" | ")")) => return out,
            _ => {
                out.push(Tree::Leaf(p));
                *i += 1;
            }
        }
    }
    out
}

fn unit_doc(src: &str, pieces: &[Piece]) -> Doc {
    let mut i = 0;
    let mut trees = build_tree(pieces, &mut i);
    // Stray closers (impossible after a successful parse) are printed verbatim.
    while i < pieces.len() {
        trees.push(Tree::Leaf(&pieces[i]));
        i += 1;
        trees.extend(build_tree(pieces, &mut i));
    }
    let refs: Vec<&Tree> = trees.iter().collect();
    seq_doc(src, &refs)
}

/// The text a leaf prints as (`key` says it is an object key).
fn leaf_text(src: &str, p: &Piece, key: bool) -> String {
    match p {
        Piece::Raw(s) => src[s.start..s.end].to_string(),
        Piece::Tok(t) => match &t.tok {
            Tok::Str(s) if key && is_plain_key(s) => s.to_string(),
            Tok::Str(s) => quote(s),
            _ => src[t.span.start..t.span.end].to_string(),
        },
    }
}

/// Keys printed without quotes: identifier names (reserved words are fine as keys).
fn is_plain_key(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// A single-quoted JavaScript string literal with the minimum escaping.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn leaf_tok<'t, 'a>(t: &'t Tree<'_, 'a>) -> Option<&'t Token<'a>> {
    match t {
        Tree::Leaf(Piece::Tok(tok)) => Some(tok),
        _ => None,
    }
}

fn is_open(t: &Tree, c: &str) -> bool {
    matches!(t, Tree::Group { open, .. } if open.is_punct(c))
}

/// A sequence of trees (a statement, an element, a property value).
/// Method chains with two or more calls get a break before each later call.
fn seq_doc(src: &str, items: &[&Tree]) -> Doc {
    let calls: Vec<usize> = (0..items.len())
        .filter(|&i| {
            leaf_tok(items[i]).is_some_and(|t| t.is_punct("."))
                && items
                    .get(i + 1)
                    .and_then(|t| leaf_tok(t))
                    .is_some_and(|t| matches!(t.tok, Tok::Ident(_)))
                && items.get(i + 2).is_some_and(|t| is_open(t, "("))
        })
        .collect();
    if calls.len() >= 2 {
        let mut head = Vec::new();
        seq_parts(src, &items[..calls[1]], &mut head, None);
        let mut tail = Vec::new();
        for (k, &start) in calls.iter().enumerate().skip(1) {
            let end = calls.get(k + 1).copied().unwrap_or(items.len());
            tail.push(Doc::SoftLine);
            seq_parts(src, &items[start..end], &mut tail, None);
        }
        return Doc::Group(vec![Doc::Concat(head), Doc::Indent(tail)]);
    }
    let mut parts = Vec::new();
    seq_parts(src, items, &mut parts, None);
    Doc::Concat(parts)
}

/// Append the docs for `items`, spacing tokens as mongosh users write them.
fn seq_parts(src: &str, items: &[&Tree], out: &mut Vec<Doc>, key_at: Option<usize>) {
    let mut prev: Option<&Tree> = None;
    for (i, &t) in items.iter().enumerate() {
        if let Some(p) = prev {
            if needs_space(p, t) {
                out.push(Doc::text(" "));
            }
        }
        match t {
            Tree::Leaf(p) => {
                out.push(Doc::text(leaf_text(src, p, key_at == Some(i))));
                if let Piece::Tok(Token {
                    tok: Tok::Comment(c),
                    ..
                }) = p
                {
                    if c.starts_with("//") {
                        out.push(Doc::HardLine);
                        prev = None;
                        continue;
                    }
                }
            }
            Tree::Group { open, items, close } => out.push(group_doc(src, open, items, close)),
        }
        prev = Some(t);
    }
}

fn needs_space(prev: &Tree, next: &Tree) -> bool {
    let p = leaf_tok(prev);
    let n = leaf_tok(next);
    if let Some(n) = n {
        if matches!(n.tok, Tok::Comment(_)) {
            return true;
        }
        if let (
            Tok::Punct("."),
            Some(Token {
                tok: Tok::Num(_), ..
            }),
        ) = (&n.tok, p)
        {
            return true; // `1 .x`, not the number `1.`
        }
        if matches!(n.tok, Tok::Punct("," | ";" | ":" | ".")) {
            return false;
        }
    }
    let Some(p) = p else {
        // After a group: `f(a)(b)`, `x[0].y`, `{...} ` before an operator.
        return matches!(
            n.map(|t| &t.tok),
            Some(Tok::Punct("=")) | Some(Tok::Ident(_))
        );
    };
    match &p.tok {
        Tok::Punct(".") => false,
        Tok::Punct(op @ ("-" | "+")) => {
            // Keep `- -1` apart: `--` would be another token.
            n.is_some_and(|n| n.is_punct(op) || n.is_punct(&format!("{op}{op}")))
        }
        Tok::Comment(_) => true,
        Tok::Punct(_) => true,
        Tok::Ident(w) => {
            // A call or index follows a name directly, except after keywords.
            let opens = is_open(next, "(") || is_open(next, "[");
            !opens || matches!(*w, "new" | "const" | "let" | "var")
        }
        _ => !(is_open(next, "(") || is_open(next, "[")),
    }
}

/// One bracketed group, split into elements at its top-level commas.
fn group_doc(src: &str, open: &Token, items: &[Tree], close: &Token) -> Doc {
    let is_object = open.is_punct("{");
    let open_text = leaf_text(src, &Piece::Tok(open.clone()), false);
    let close_text = leaf_text(src, &Piece::Tok(close.clone()), false);
    let (elems, dangling) = split_elements(items);
    if elems.is_empty() && dangling.is_empty() {
        return Doc::text(format!("{open_text}{close_text}"));
    }
    // `f([...])` and `f({...})`: hug a single bracketed argument.
    if open.is_punct("(") && elems.len() == 1 && dangling.is_empty() {
        let e = &elems[0];
        if e.leading.is_empty()
            && e.trailing.is_empty()
            && e.items.len() == 1
            && (is_open(e.items[0], "{") || is_open(e.items[0], "["))
        {
            let mut parts = vec![Doc::text(open_text)];
            element_parts(src, e, is_object, &mut parts);
            parts.push(Doc::text(close_text));
            return Doc::Concat(parts);
        }
    }
    let edge = if is_object { Doc::Line } else { Doc::SoftLine };
    let mut inner = vec![edge.clone()];
    for (k, e) in elems.iter().enumerate() {
        if k > 0 {
            inner.push(Doc::Line);
        }
        for c in &e.leading {
            inner.push(Doc::text(leaf_text(src, c, false)));
            let own_line = is_line_comment(c) || newline_after(src, c.span().end);
            inner.push(if own_line {
                Doc::HardLine
            } else {
                Doc::text(" ")
            });
        }
        element_parts(src, e, is_object, &mut inner);
        if k + 1 < elems.len() {
            inner.push(Doc::text(","));
        }
        for c in &e.trailing {
            inner.push(Doc::text(" "));
            inner.push(Doc::text(leaf_text(src, c, false)));
            if is_line_comment(c) {
                inner.push(Doc::BreakParent);
            }
        }
    }
    for c in &dangling {
        if !elems.is_empty() {
            inner.push(Doc::HardLine);
        }
        inner.push(Doc::text(leaf_text(src, c, false)));
        inner.push(Doc::BreakParent);
    }
    Doc::Group(vec![
        Doc::text(open_text),
        Doc::Indent(inner),
        edge,
        Doc::text(close_text),
    ])
}

fn is_line_comment(p: &Piece) -> bool {
    matches!(p, Piece::Tok(Token { tok: Tok::Comment(c), .. }) if c.starts_with("//"))
}

/// Whether a line ends right after `pos` (a block comment followed by a
/// newline keeps its element on the next line).
fn newline_after(src: &str, pos: usize) -> bool {
    src.get(pos..).is_some_and(|rest| {
        rest.trim_start_matches([' ', '\t'])
            .starts_with(['\n', '\r'])
    })
}

fn element_parts(src: &str, e: &Element, is_object: bool, out: &mut Vec<Doc>) {
    // In an object, `key: value`: the key may lose its quotes, the value may be a chain.
    let keyed = is_object
        && e.items
            .get(1)
            .and_then(|t| leaf_tok(t))
            .is_some_and(|t| t.is_punct(":"));
    if keyed {
        seq_parts(src, &e.items[..2], out, Some(0));
        if e.items.len() > 2 {
            out.push(Doc::text(" "));
            out.push(seq_doc(src, &e.items[2..]));
        }
    } else {
        out.push(seq_doc(src, &e.items));
    }
}

/// An element of a group with the comments around it.
struct Element<'t, 'p, 'a> {
    leading: Vec<&'p Piece<'a>>,
    items: Vec<&'t Tree<'p, 'a>>,
    trailing: Vec<&'p Piece<'a>>,
}

/// Split group contents at top-level commas. A comment right after a comma
/// on the same line trails the element before it; a comment on its own line
/// leads the next element (or dangles before the closing bracket).
fn split_elements<'t, 'p, 'a>(
    items: &'t [Tree<'p, 'a>],
) -> (Vec<Element<'t, 'p, 'a>>, Vec<&'p Piece<'a>>) {
    let mut elems: Vec<Element> = Vec::new();
    let mut cur = Element {
        leading: vec![],
        items: vec![],
        trailing: vec![],
    };
    let mut after_comma = false;
    for t in items {
        match t {
            Tree::Leaf(p @ Piece::Tok(tok)) if matches!(tok.tok, Tok::Comment(_)) => {
                if after_comma && !tok.nl_before {
                    if let Some(last) = elems.last_mut() {
                        last.trailing.push(p);
                        continue;
                    }
                }
                after_comma = false;
                if cur.items.is_empty() {
                    cur.leading.push(p);
                } else {
                    // A comment between tokens of one element stays inside it.
                    cur.items.push(t);
                }
            }
            Tree::Leaf(Piece::Tok(tok)) if tok.is_punct(",") => {
                elems.push(std::mem::replace(
                    &mut cur,
                    Element {
                        leading: vec![],
                        items: vec![],
                        trailing: vec![],
                    },
                ));
                after_comma = true;
            }
            _ => {
                after_comma = false;
                cur.items.push(t);
            }
        }
    }
    let dangling = if cur.items.is_empty() {
        cur.leading
    } else {
        // Comments after the last element's tokens trail it while on its line;
        // from the first one on a line of its own, they dangle before the bracket.
        let mut e = cur;
        let mut tail = Vec::new();
        while let Some(Tree::Leaf(p @ Piece::Tok(tok))) = e.items.last().copied() {
            if !matches!(tok.tok, Tok::Comment(_)) {
                break;
            }
            e.items.pop();
            tail.insert(0, (*p, tok.nl_before));
        }
        let split = tail.iter().position(|(_, nl)| *nl).unwrap_or(tail.len());
        let dangling = tail.split_off(split).into_iter().map(|(p, _)| p).collect();
        e.trailing.extend(tail.into_iter().map(|(p, _)| p));
        elems.push(e);
        dangling
    };
    (elems, dangling)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(src: &str) -> String {
        let out = format_script(src).expect("formats");
        assert_eq!(
            format_script(&out).expect("formats again"),
            out,
            "not idempotent for {src:?}"
        );
        out
    }

    #[test]
    fn short_and_long() {
        assert_eq!(
            fmt("db.x.find( { \"a\" : 1,b:[1,2,] } )"),
            "db.x.find({ a: 1, b: [1, 2] })\n"
        );
        assert_eq!(
            fmt("x = {'a b': \"it's\", 1.0: 1.0}"),
            "x = { 'a b': 'it\\'s', 1.0: 1.0 }\n"
        );
        let long = "db.trades.insertMany([{ _id: 1, name: 'aaaaaaaaaaaaaaaaaaaa' }, { _id: 2, name: 'bbbbbbbbbbbbbbbbbbbbbbbbbb' }])";
        assert_eq!(
            fmt(long),
            "db.trades.insertMany([\n  { _id: 1, name: 'aaaaaaaaaaaaaaaaaaaa' },\n  { _id: 2, name: 'bbbbbbbbbbbbbbbbbbbbbbbbbb' }\n])\n"
        );
        let chain = "db.trades.find({ customerId: 123456789, ticker: 'MDB' }).sort({ date: -1, _id: 1 }).skip(10).limit(5)";
        assert_eq!(
            fmt(chain),
            "db.trades.find({ customerId: 123456789, ticker: 'MDB' })\n  .sort({ date: -1, _id: 1 })\n  .skip(10)\n  .limit(5)\n"
        );
    }

    #[test]
    fn comments_and_statements() {
        let src = "// setup\ndb.a.drop(); // gone\n\n\nshow collections\nconst x = [1, // one\n2 /* two */]\n/* end */";
        assert_eq!(
            fmt(src),
            "// setup\ndb.a.drop(); // gone\n\nshow collections\nconst x = [\n  1, // one\n  2 /* two */\n]\n/* end */\n"
        );
        assert_eq!(fmt(""), "");
        assert!(format_script("db.x.find({").is_err());
    }
}
