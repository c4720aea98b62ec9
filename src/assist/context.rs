//! Where the cursor stands, read from the tokens before it: the statement's
//! chain (`db.trades.find`), the open brackets around the cursor with the key
//! each value belongs to, and the word being typed. Incomplete text is the
//! rule here, so this walks tokens instead of parsing.
use crate::shell::lexer::{Lexer, Tok};

/// How deep brackets are followed (deeper text gets no completion).
const MAX_FRAMES: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Open {
    Brace,
    Bracket,
    Paren,
}

/// One open bracket before the cursor.
#[derive(Clone, Debug)]
pub struct Frame {
    pub open: Open,
    /// Brace: the key being written or whose value is being written.
    pub key: Option<String>,
    /// Brace: past the key's `:`.
    pub after_colon: bool,
    /// Paren: the method called; the statement's chain before it.
    pub method: Option<String>,
    pub chain: Vec<String>,
    /// Argument or element index.
    pub index: usize,
    /// Brace: keys seen with a string value (`as: "item"`).
    pub strings: Vec<(String, String)>,
    /// Brace: every key seen so far.
    pub keys: Vec<String>,
    /// Brace: the names a closed `vars: {…}` or `let: {…}` bound.
    pub bound: Vec<String>,
}

/// The word at the cursor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Word {
    /// Byte offset where the word starts (after an opening quote).
    pub from: usize,
    pub text: String,
    /// Inside an unterminated string.
    pub quoted: bool,
}

#[derive(Clone, Debug)]
pub struct Place {
    pub frames: Vec<Frame>,
    /// The statement's chain at depth 0 (`["db", "trades", "find", "()"]`).
    pub chain: Vec<String>,
    /// The word is a member name (`db.tr`).
    pub member: bool,
    pub word: Word,
}

impl Frame {
    fn new(open: Open) -> Frame {
        Frame {
            open,
            key: None,
            after_colon: false,
            method: None,
            chain: Vec::new(),
            index: 0,
            strings: Vec::new(),
            keys: Vec::new(),
            bound: Vec::new(),
        }
    }
}

/// Read the place of `cursor` (a byte offset on a char boundary) in `text`.
pub fn place(text: &str, cursor: usize) -> Place {
    let prefix = text.get(..cursor).unwrap_or(text);
    let mut toks: Vec<(Tok, usize, usize)> = Vec::new();
    let mut open_string: Option<usize> = None;
    let mut lx = Lexer::new(prefix);
    loop {
        let before = lx.pos();
        match lx.next_token() {
            Ok(t) if t.tok == Tok::Eof => break,
            Ok(t) => toks.push((t.tok, t.span.start, t.span.end)),
            Err(_) => {
                let rest = &prefix[before..];
                let skipped = rest.len() - rest.trim_start().len();
                let at = before + skipped;
                if prefix[at..].starts_with(['"', '\'', '`']) && !prefix[at..].contains('\n') {
                    open_string = Some(at);
                    break;
                }
                if lx.pos() <= before {
                    break;
                }
            }
        }
    }
    let mut word = Word {
        from: cursor,
        ..Word::default()
    };
    if let Some(q) = open_string {
        word = Word {
            from: q + 1,
            text: prefix[q + 1..].to_string(),
            quoted: true,
        };
    } else if let Some((Tok::Ident(name), start, end)) = toks.last() {
        if *end == cursor {
            word.from = *start;
            word.text = (*name).to_string();
            toks.pop();
        }
    }
    let mut member = !word.quoted && matches!(toks.last(), Some((Tok::Punct("."), _, _)));
    // Inside brackets `address.ci` is one dotted field path being typed, not a member.
    if member && open_brackets(&toks) {
        while let [.., (Tok::Ident(name), start, _), (Tok::Punct("."), _, _)] = toks.as_slice() {
            word.text = format!("{name}.{}", word.text);
            word.from = *start;
            toks.truncate(toks.len() - 2);
        }
        member = false;
    }
    let mut frames: Vec<Frame> = Vec::new();
    let mut chain: Vec<String> = Vec::new();
    let mut prev_dot = false;
    for (tok, _, _) in &toks {
        let top = frames.last_mut();
        match (tok, top) {
            (Tok::Punct(p @ ("{" | "[" | "(")), _) => {
                if frames.len() >= MAX_FRAMES {
                    return Place {
                        frames: Vec::new(),
                        chain: Vec::new(),
                        member: false,
                        word,
                    };
                }
                let mut f = Frame::new(match *p {
                    "{" => Open::Brace,
                    "[" => Open::Bracket,
                    _ => Open::Paren,
                });
                if f.open == Open::Paren && frames.is_empty() {
                    f.method = chain.last().cloned();
                    f.chain = chain.clone();
                }
                frames.push(f);
            }
            (Tok::Punct("}" | "]" | ")"), _) => {
                let closed = frames.pop();
                if let (Some(c), Some(parent)) = (&closed, frames.last_mut()) {
                    if c.open == Open::Brace
                        && matches!(parent.key.as_deref(), Some("vars" | "let"))
                    {
                        parent.bound.extend(c.keys.iter().cloned());
                    }
                }
                if frames.is_empty() && closed.is_some_and(|f| f.open == Open::Paren) {
                    chain.push("()".to_string());
                }
            }
            (Tok::Punct(","), Some(f)) => {
                f.index += 1;
                f.key = None;
                f.after_colon = false;
            }
            (Tok::Punct(":"), Some(f)) if f.open == Open::Brace => f.after_colon = true,
            (Tok::Ident(name), Some(f)) if f.open == Open::Brace && !f.after_colon => {
                f.key = Some((*name).to_string());
                f.keys.push((*name).to_string());
            }
            (Tok::Str(s), Some(f)) if f.open == Open::Brace => {
                if f.after_colon {
                    if let Some(k) = &f.key {
                        f.strings.push((k.clone(), s.to_string()));
                    }
                } else {
                    f.key = Some(s.to_string());
                    f.keys.push(s.to_string());
                }
            }
            (Tok::Punct(";"), None) => chain.clear(),
            (Tok::Ident(name), None) => {
                if !prev_dot {
                    chain.clear();
                }
                chain.push((*name).to_string());
            }
            _ => {}
        }
        prev_dot = matches!(tok, Tok::Punct("."));
    }
    Place {
        frames,
        chain,
        member,
        word,
    }
}

/// Whether the tokens leave a bracket open.
fn open_brackets(toks: &[(Tok, usize, usize)]) -> bool {
    let mut depth: i64 = 0;
    for (t, _, _) in toks {
        match t {
            Tok::Punct("{" | "[" | "(") => depth += 1,
            Tok::Punct("}" | "]" | ")") => depth -= 1,
            _ => {}
        }
    }
    depth > 0
}

/// The collections a script names as `db.<name>.` (it may create them).
pub fn named_collections(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lx = Lexer::new(text);
    let mut last: [Option<Tok>; 3] = [None, None, None];
    loop {
        let before = lx.pos();
        let tok = match lx.next_token() {
            Ok(t) if t.tok == Tok::Eof => break,
            Ok(t) => t.tok,
            Err(_) if lx.pos() > before => continue,
            Err(_) => break,
        };
        if let [Some(Tok::Ident("db")), Some(Tok::Punct(".")), Some(Tok::Ident(name))] = &last {
            if tok == Tok::Punct(".") && !out.iter().any(|n: &String| n == name) {
                out.push((*name).to_string());
            }
        }
        last = [last[1].take(), last[2].take(), Some(tok)];
    }
    out
}

/// The array filter identifiers a script uses (`elem` of `"grades.$[elem].mean"`).
pub fn array_filter_ids(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, _) in text.match_indices("$[") {
        let rest = &text[i + 2..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end > 0 && rest[end..].starts_with(']') && !out.iter().any(|o| o == &rest[..end]) {
            out.push(rest[..end].to_string());
        }
    }
    out
}
