//! Tokens with byte spans, produced on demand (the parser pulls one at a time,
//! so a 10 MB configuration never holds a token vector). Strings without
//! escapes borrow from the source; only escaped strings allocate.
//!
//! Regex-vs-division is decided as JavaScript does, by the previous token:
//! after a value (`x`, `1`, `)`, `]`, `}`) a `/` divides, elsewhere it starts a
//! regular expression literal (scanned in `regex`).
use crate::error::{Error, Result, Span};
use std::borrow::Cow;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok<'a> {
    /// An identifier name, keywords included (`db`, `$match`, `new`, `true`).
    Ident(&'a str),
    /// A numeric literal as written (`1.0`, `0x1F`, `.5`, `10n`).
    Num(&'a str),
    /// A string (or `${}`-free template) literal, escapes decoded.
    Str(Cow<'a, str>),
    /// `/pattern/flags`: pattern as written, flags already validated.
    Regex {
        pattern: &'a str,
        flags: &'a str,
    },
    /// Punctuation or an operator.
    Punct(&'static str),
    /// A comment, delimiters included; only produced when `keep_comments` is set.
    Comment(&'a str),
    Eof,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    pub span: Span,
    /// A line terminator (or a comment holding one) precedes the token: the
    /// parser needs it for automatic semicolon insertion.
    pub nl_before: bool,
}

impl Token<'_> {
    #[inline]
    pub fn is_punct(&self, p: &str) -> bool {
        // The first byte settles most comparisons without a memcmp call.
        matches!(self.tok, Tok::Punct(q) if q.as_bytes().first() == p.as_bytes().first() && q == p)
    }
    pub fn is_ident(&self, name: &str) -> bool {
        matches!(self.tok, Tok::Ident(q) if q == name)
    }
    /// How the token reads in an error message: `')'`, `'foo'`, `end of input`.
    pub fn describe(&self, src: &str) -> String {
        match &self.tok {
            Tok::Eof => "end of input".to_string(),
            Tok::Str(_) => "string".to_string(),
            Tok::Num(n) => format!("number '{n}'"),
            _ => {
                let text = src.get(self.span.start..self.span.end).unwrap_or("");
                let short: String = text.chars().take(30).collect();
                format!("token '{short}'")
            }
        }
    }
}

/// Operators, longest first so the first match is the longest.
const PUNCTS: &[&str] = &[
    ">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=", "=>", "==", "!=",
    "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
    "**", "<<", ">>", "{", "}", "(", ")", "[", "]", ";", ",", "<", ">", "+", "-", "*", "/", "%",
    "&", "|", "^", "!", "~", "?", ":", "=", ".", "@", "#",
];

/// Words after which a `/` starts a regex even though they look like identifiers.
const REGEX_AFTER_WORDS: &[&str] = &[
    "return",
    "typeof",
    "case",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "instanceof",
    "else",
    "do",
    "yield",
    "await",
];

#[derive(Clone)]
pub struct Lexer<'a> {
    pub(super) src: &'a str,
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    /// Whether a `/` at this point starts a regex (decided by the previous token).
    regex_ok: bool,
    keep_comments: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Lexer<'a> {
        let mut lx = Lexer {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            regex_ok: true,
            keep_comments: false,
        };
        // A leading byte-order mark or `#!` line is not part of the script.
        if src.starts_with('\u{feff}') {
            lx.pos = 3;
        }
        lx
    }
    /// A lexer that also yields comments (for the formatter).
    pub fn with_comments(src: &'a str) -> Lexer<'a> {
        let mut lx = Lexer::new(src);
        lx.keep_comments = true;
        lx
    }
    pub fn pos(&self) -> usize {
        self.pos
    }
    pub fn src(&self) -> &'a str {
        self.src
    }
    /// Resume lexing at `pos` (a char boundary the caller got from this lexer).
    pub fn set_pos(&mut self, pos: usize, regex_ok: bool) {
        self.pos = pos.min(self.bytes.len());
        self.regex_ok = regex_ok;
    }

    /// The next token. After an error the lexer has advanced, so a caller
    /// that keeps going still terminates.
    pub fn next_token(&mut self) -> Result<Token<'a>> {
        let nl_before = self.skip_space()?;
        let start = self.pos;
        if let Some(comment) = self.comment_here()? {
            let tok = Token {
                tok: Tok::Comment(comment),
                span: Span::new(start, self.pos),
                nl_before,
            };
            return Ok(tok);
        }
        let Some(&b) = self.bytes.get(start) else {
            return Ok(Token {
                tok: Tok::Eof,
                span: Span::new(start, start),
                nl_before,
            });
        };
        let tok = match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' | b'\\' => self.ident(start)?,
            b'0'..=b'9' => self.number(start)?,
            b'.' if self.bytes.get(start + 1).is_some_and(u8::is_ascii_digit) => {
                self.number(start)?
            }
            b'"' | b'\'' => Tok::Str(self.string(start, b)?),
            b'`' => Tok::Str(self.template(start)?),
            b'/' if self.regex_ok => self.regex(start)?,
            0x80.. => {
                let c = self.src[start..].chars().next().unwrap_or('\u{fffd}');
                if c.is_alphabetic() {
                    self.ident(start)?
                } else {
                    self.pos = start + c.len_utf8();
                    return Err(Error::syntax(
                        format!("Invalid or unexpected token '{c}'"),
                        Span::new(start, self.pos),
                    ));
                }
            }
            // Brackets and separators never start a longer operator.
            b'{' | b'}' | b'[' | b']' | b'(' | b')' | b',' | b':' | b';' => {
                self.pos = start + 1;
                Tok::Punct(match b {
                    b'{' => "{",
                    b'}' => "}",
                    b'[' => "[",
                    b']' => "]",
                    b'(' => "(",
                    b')' => ")",
                    b',' => ",",
                    b':' => ":",
                    _ => ";",
                })
            }
            _ => {
                let rest = &self.bytes[start..];
                let found = PUNCTS.iter().find(|p| rest.starts_with(p.as_bytes()));
                match found {
                    // `?.5` is a conditional followed by a number, not optional chaining.
                    Some(&"?.") if rest.get(2).is_some_and(u8::is_ascii_digit) => {
                        self.pos = start + 1;
                        Tok::Punct("?")
                    }
                    Some(p) => {
                        self.pos = start + p.len();
                        Tok::Punct(p)
                    }
                    None => {
                        self.pos = start + 1;
                        let shown = (b as char).escape_default();
                        return Err(Error::syntax(
                            format!("Invalid or unexpected token '{shown}'"),
                            Span::new(start, self.pos),
                        ));
                    }
                }
            }
        };
        self.regex_ok = match &tok {
            Tok::Ident(w) => {
                w.len() <= 10
                    && w.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
                    && REGEX_AFTER_WORDS.contains(w)
            }
            Tok::Punct(p) => !matches!(*p, ")" | "]" | "}" | "++" | "--"),
            _ => false,
        };
        Ok(Token {
            tok,
            span: Span::new(start, self.pos),
            nl_before,
        })
    }

    /// Skip whitespace (and comments unless they are kept); report whether a line ended.
    fn skip_space(&mut self) -> Result<bool> {
        let mut nl = false;
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b'\n' | b'\r' => {
                    nl = true;
                    self.pos += 1;
                }
                b' ' | b'\t' | 0x0b | 0x0c => self.pos += 1,
                b'/' if !self.keep_comments
                    && matches!(self.bytes.get(self.pos + 1), Some(b'/' | b'*')) =>
                {
                    let start = self.pos;
                    if let Some(c) = self.comment_here()? {
                        nl |= c.contains(['\n', '\r', '\u{2028}', '\u{2029}']);
                    }
                    debug_assert!(self.pos > start);
                }
                0x80.. => {
                    let c = self.src[self.pos..].chars().next().unwrap_or('a');
                    if c == '\u{2028}' || c == '\u{2029}' {
                        nl = true;
                    } else if !(c.is_whitespace() || c == '\u{feff}') {
                        break;
                    }
                    self.pos += c.len_utf8();
                }
                _ => break,
            }
        }
        Ok(nl)
    }

    /// If a comment starts here, consume it and return its text.
    fn comment_here(&mut self) -> Result<Option<&'a str>> {
        let start = self.pos;
        match (self.bytes.get(start), self.bytes.get(start + 1)) {
            (Some(b'/'), Some(b'/')) => {
                let end = self.src[start..]
                    .find(['\n', '\r', '\u{2028}', '\u{2029}'])
                    .map_or(self.src.len(), |i| start + i);
                self.pos = end;
                Ok(Some(&self.src[start..end]))
            }
            (Some(b'/'), Some(b'*')) => match self.src[start + 2..].find("*/") {
                Some(i) => {
                    self.pos = start + 2 + i + 2;
                    Ok(Some(&self.src[start..self.pos]))
                }
                None => {
                    self.pos = self.src.len();
                    Err(Error::syntax(
                        "unterminated comment",
                        Span::new(start, start + 2),
                    ))
                }
            },
            _ => Ok(None),
        }
    }

    fn ident(&mut self, start: usize) -> Result<Tok<'a>> {
        let mut p = start;
        while let Some(&b) = self.bytes.get(p) {
            match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'$' => p += 1,
                b'\\' => {
                    self.pos = p + 1;
                    return Err(Error::syntax(
                        "escapes in identifiers are not supported",
                        Span::new(p, p + 1),
                    ));
                }
                0x80.. => {
                    let c = self.src[p..].chars().next().unwrap_or(' ');
                    if c.is_alphanumeric() || c == '\u{200c}' || c == '\u{200d}' {
                        p += c.len_utf8();
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        self.pos = p;
        Ok(Tok::Ident(&self.src[start..p]))
    }

    fn number(&mut self, start: usize) -> Result<Tok<'a>> {
        let bytes = self.bytes;
        let mut p = start;
        let digits = |p: &mut usize, ok: fn(u8) -> bool| {
            let from = *p;
            while bytes.get(*p).is_some_and(|&b| ok(b) || b == b'_') {
                *p += 1;
            }
            *p > from
        };
        let radix = match (bytes.get(p), bytes.get(p + 1).map(u8::to_ascii_lowercase)) {
            (Some(b'0'), Some(b'x')) => Some(16),
            (Some(b'0'), Some(b'o')) => Some(8),
            (Some(b'0'), Some(b'b')) => Some(2),
            _ => None,
        };
        let mut bigint_ok = true;
        if let Some(radix) = radix {
            p += 2;
            let ok: fn(u8) -> bool = match radix {
                16 => |b| b.is_ascii_hexdigit(),
                8 => |b| (b'0'..=b'7').contains(&b),
                _ => |b| b == b'0' || b == b'1',
            };
            if !digits(&mut p, ok) {
                self.pos = p;
                return Err(Error::syntax(
                    "Invalid or unexpected token: missing digits",
                    Span::new(start, p),
                ));
            }
        } else {
            digits(&mut p, |b| b.is_ascii_digit());
            if bytes.get(p) == Some(&b'.') {
                bigint_ok = false;
                p += 1;
                digits(&mut p, |b| b.is_ascii_digit());
            }
            if matches!(bytes.get(p), Some(b'e' | b'E')) {
                bigint_ok = false;
                let mut q = p + 1;
                if matches!(bytes.get(q), Some(b'+' | b'-')) {
                    q += 1;
                }
                if !digits(&mut q, |b| b.is_ascii_digit()) {
                    self.pos = q;
                    return Err(Error::syntax(
                        "Invalid or unexpected token: missing exponent",
                        Span::new(start, q),
                    ));
                }
                p = q;
            }
        }
        if bigint_ok && bytes.get(p) == Some(&b'n') {
            p += 1;
        }
        self.pos = p;
        // `3in`, `1abc`: JavaScript forbids an identifier right after a number.
        let next_is_word = match bytes.get(p) {
            Some(b) if b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$' => true,
            Some(0x80..) => self.src[p..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric),
            _ => false,
        };
        let text = &self.src[start..p];
        if next_is_word || text.ends_with('_') || text.contains("__") {
            let end = if next_is_word { p + 1 } else { p };
            self.pos = end.min(bytes.len());
            while !self.src.is_char_boundary(self.pos) {
                self.pos += 1;
            }
            return Err(Error::syntax(
                "Invalid or unexpected token: malformed number",
                Span::new(start, self.pos),
            ));
        }
        Ok(Tok::Num(text))
    }

    /// A string, template or regex literal cut off at `end` (by a line break
    /// or the end of the text); lexing resumes there.
    pub(super) fn unterminated(&mut self, what: &str, start: usize, end: usize) -> Error {
        self.pos = end;
        Error::syntax(
            format!("unterminated {what} literal"),
            Span::new(start, end),
        )
    }

    pub(super) fn ceil_char(&self, mut p: usize) -> usize {
        p = p.min(self.src.len());
        while !self.src.is_char_boundary(p) {
            p += 1;
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok<'_>> {
        let mut lx = Lexer::new(src);
        let mut out = vec![];
        loop {
            let t = lx.next_token().expect("lexes");
            if t.tok == Tok::Eof {
                return out;
            }
            out.push(t.tok);
        }
    }

    #[test]
    fn basics() {
        assert_eq!(
            toks("a.$b(1.5, 'x')"),
            vec![
                Tok::Ident("a"),
                Tok::Punct("."),
                Tok::Ident("$b"),
                Tok::Punct("("),
                Tok::Num("1.5"),
                Tok::Punct(","),
                Tok::Str("x".into()),
                Tok::Punct(")")
            ]
        );
        assert_eq!(
            toks(".5 0x1F 1e-3 10n"),
            vec![
                Tok::Num(".5"),
                Tok::Num("0x1F"),
                Tok::Num("1e-3"),
                Tok::Num("10n")
            ]
        );
    }

    #[test]
    fn strings() {
        let s = r#""a\n\t\\\'\"\u0041\u{1F600}\x41\
b" 'it''s'"#;
        assert_eq!(
            toks(s),
            vec![
                Tok::Str("a\n\t\\'\"A😀Ab".into()),
                Tok::Str("it".into()),
                Tok::Str("s".into())
            ]
        );
        assert_eq!(toks(r#""\uD83D\uDE00""#), vec![Tok::Str("😀".into())]);
        assert_eq!(toks("`a\nb`"), vec![Tok::Str("a\nb".into())]);
        assert!(Lexer::new("'abc").next_token().is_err());
        assert!(Lexer::new("'ab\nc'").next_token().is_err());
        assert!(Lexer::new("'\\x4'").next_token().is_err());
    }

    #[test]
    fn regex_vs_division() {
        assert_eq!(
            toks("/^a/i"),
            vec![Tok::Regex {
                pattern: "^a",
                flags: "i"
            }]
        );
        assert_eq!(
            toks("a / b"),
            vec![Tok::Ident("a"), Tok::Punct("/"), Tok::Ident("b")]
        );
        assert_eq!(
            toks("x(/[/]/)")[2],
            Tok::Regex {
                pattern: "[/]",
                flags: ""
            }
        );
        assert!(Lexer::new("/a/q").next_token().is_err());
        assert!(Lexer::new("/a/ii").next_token().is_err());
        assert!(Lexer::new("/a/x").next_token().is_err());
    }

    #[test]
    fn newlines_and_comments() {
        let mut lx = Lexer::new("a // c\n/* x\n */ b /* y */ c");
        assert!(!lx.next_token().expect("a").nl_before);
        assert!(lx.next_token().expect("b").nl_before);
        assert!(!lx.next_token().expect("c").nl_before);
        let mut lx = Lexer::with_comments("a // c\nb");
        lx.next_token().expect("a");
        assert_eq!(lx.next_token().expect("comment").tok, Tok::Comment("// c"));
    }

    #[test]
    fn garbage_terminates() {
        for src in [
            "\u{0}\u{1}\u{7f}",
            "1abc",
            "0x",
            "1e",
            "'\\u{110000}'",
            "/*",
            "é€",
            "\\u0041",
        ] {
            let mut lx = Lexer::new(src);
            for _ in 0..100 {
                match lx.next_token() {
                    Ok(Token { tok: Tok::Eof, .. }) => break,
                    Ok(_) => {}
                    Err(e) => {
                        let span = e.span.expect("span");
                        assert!(span.end <= src.len());
                    }
                }
            }
            assert_eq!(lx.pos(), src.len().max(lx.pos()));
        }
    }
}
