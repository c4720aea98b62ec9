//! `$regexFind`, `$regexFindAll`, `$regexMatch` with the `regex` crate.
//! MongoDB uses PCRE; patterns are translated by the query's `$regex`
//! translation (`pcre::translate`), so what the crate lacks
//! (backreferences, lookaround, atomic groups, possessive quantifiers,
//! recursion) gives the same not-supported error naming the feature. Options: i, m, s, x (u is accepted).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/regexFind/
use crate::error::Result;
use crate::expr::compile::Compiler;
use crate::expr::eval::{Cx, Node, Special};
use crate::expr::value::{err, nullish, Value};
use crate::text::shell::type_name;
use bson::{Bson, Document};
use regex::{Regex, RegexBuilder};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Find,
    FindAll,
    Match,
}

#[derive(Debug)]
enum Pattern {
    /// Compiled at compile time (constant regex and options); None = null regex.
    Fixed(Option<Compiled>),
    Dynamic(Node, Option<Node>),
}

#[derive(Debug)]
struct RegexOp {
    name: &'static str,
    mode: Mode,
    input: Node,
    pattern: Pattern,
}

/// A compiled pattern and a string every match contains (see
/// `pcre::literal::required`): an input without it is no match at once.
#[derive(Debug)]
struct Compiled {
    re: Regex,
    required: Option<String>,
    /// The most bytes a match spans, when bounded.
    window: Option<usize>,
}

impl Compiled {
    fn cannot_match(&self, text: &str) -> bool {
        self.required
            .as_ref()
            .is_some_and(|r| !text.contains(r.as_str()))
    }
}

fn compile_regex(name: &str, pattern: &str, options: &str) -> Result<Compiled> {
    if pattern.contains('\0') {
        return Err(err(
            51109,
            format!("{name}: regular expression cannot contain an embedded null byte"),
        ));
    }
    if options.contains('\0') {
        return Err(err(
            51110,
            format!("{name}: regular expression options cannot contain an embedded null byte"),
        ));
    }
    let mut flags = String::new();
    for c in options.chars() {
        match c {
            'i' | 'm' | 's' | 'x' => flags.push(c),
            'u' => {}
            other => {
                return Err(err(
                    51108,
                    format!("{name} invalid flag in regex options: {other}"),
                ))
            }
        }
    }
    // The query's translation: PCRE-only syntax rewritten, features the crate
    // lacks refused with an error naming them.
    let full = crate::pcre::translate(pattern, &flags).map_err(|e| {
        if e.code == 51091 {
            err(51111, format!("Invalid Regex in {name}: {}", e.message))
        } else {
            e
        }
    })?;
    let re = RegexBuilder::new(&full)
        .size_limit(crate::pcre::REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| err(51111, format!("Invalid Regex in {name}: {e}")))?;
    Ok(Compiled {
        re,
        required: crate::pcre::literal::required(pattern, options),
        window: crate::pcre::literal::max_chars(pattern).and_then(|n| n.checked_mul(4)),
    })
}

/// Validate 'regex'/'options' values and compile; None when the regex is null.
fn build(name: &str, regex: &Value, options: &Value) -> Result<Option<Compiled>> {
    let opts = match options {
        _ if nullish(options) => None,
        Some(Bson::String(s)) => Some(s.clone()),
        _ => {
            return Err(err(
                51106,
                format!("{name} needs 'options' to be of type string"),
            ))
        }
    };
    let (pattern, opts) = match regex {
        _ if nullish(regex) => (None, opts),
        Some(Bson::String(s)) => (Some(s.clone()), opts),
        Some(Bson::RegularExpression(r)) => {
            let own = r.options.as_str().to_string();
            if !own.is_empty() && opts.is_some() {
                return Err(err(
                    51107,
                    format!(
                        "{name}: found regex option(s) specified in both 'regex' and 'option' fields"
                    ),
                ));
            }
            (
                Some(r.pattern.as_str().to_string()),
                if own.is_empty() { opts } else { Some(own) },
            )
        }
        _ => {
            return Err(err(
                51105,
                format!("{name} needs 'regex' to be of type string or regex"),
            ))
        }
    };
    match pattern {
        None => {
            // Options are still validated when the pattern is null.
            compile_regex(name, "", opts.as_deref().unwrap_or(""))?;
            Ok(None)
        }
        Some(p) => compile_regex(name, &p, opts.as_deref().unwrap_or("")).map(Some),
    }
}

/// One match as `{match, idx, captures}`; `idx` counts code points, from
/// `at`: the code points before byte `at.0` (matches come in order, so all
/// of them are counted in one pass over the input).
fn match_doc(input: &str, caps: &regex::Captures, at: &mut (usize, usize)) -> Bson {
    let m = caps.get(0);
    let start = m.map_or(0, |m| m.start());
    if start >= at.0 {
        at.1 += input[at.0..start].chars().count();
    } else {
        at.1 = input[..start].chars().count();
    }
    at.0 = start;
    let mut d = Document::new();
    d.insert("match", m.map_or("", |m| m.as_str()));
    d.insert("idx", Bson::Int32(i32::try_from(at.1).unwrap_or(i32::MAX)));
    let captures: Vec<Bson> = caps
        .iter()
        .skip(1)
        .map(|c| c.map_or(Bson::Null, |c| Bson::String(c.as_str().to_string())))
        .collect();
    d.insert("captures", captures);
    Bson::Document(d)
}

impl Special for RegexOp {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let input = cx.eval(&self.input)?;
        let dynamic;
        let re = match &self.pattern {
            Pattern::Fixed(r) => r.as_ref(),
            Pattern::Dynamic(rn, on) => {
                let rv = cx.eval(rn)?;
                let ov = match on {
                    Some(o) => cx.eval(o)?,
                    None => None,
                };
                dynamic = build(self.name, &rv, &ov)?;
                dynamic.as_ref()
            }
        };
        let text = match &input {
            _ if nullish(&input) => None,
            Some(Bson::String(s)) => Some(s.as_str()),
            _ => {
                return Err(err(
                    51104,
                    format!("{} needs 'input' to be of type string", self.name),
                ))
            }
        };
        let (Some(text), Some(compiled)) = (
            text,
            re.filter(|c| !text.is_some_and(|t| c.cannot_match(t))),
        ) else {
            return Ok(Some(match self.mode {
                Mode::Find => Bson::Null,
                Mode::FindAll => Bson::Array(Vec::new()),
                Mode::Match => Bson::Boolean(false),
            }));
        };
        let re = &compiled.re;
        Ok(Some(match self.mode {
            Mode::Match => Bson::Boolean(match (&compiled.required, compiled.window) {
                (Some(r), Some(w)) => {
                    crate::pcre::literal::windowed_match(text, r, w, |part| re.is_match(part))
                }
                _ => re.is_match(text),
            }),
            Mode::Find => re
                .captures(text)
                .map_or(Bson::Null, |c| match_doc(text, &c, &mut (0, 0))),
            Mode::FindAll => {
                // Non-overlapping matches; after an empty match move one code point on.
                let mut out = Vec::new();
                let mut pos = 0;
                let mut at = (0, 0);
                // A do-while in MongoDB: an empty input is still matched once.
                while pos < text.len() || (pos == 0 && out.is_empty()) {
                    let Some(c) = re.captures_at(text, pos) else {
                        break;
                    };
                    let Some(m) = c.get(0) else { break };
                    out.push(match_doc(text, &c, &mut at));
                    crate::budget::check()?;
                    pos = if m.end() > m.start() {
                        m.end()
                    } else {
                        match text[m.end()..].chars().next() {
                            Some(ch) => m.end() + ch.len_utf8(),
                            None => break,
                        }
                    };
                }
                Bson::Array(out)
            }
        }))
    }
}

pub(crate) fn c_regex(name: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let Bson::Document(d) = a else {
        return Err(err(
            51103,
            format!(
                "{name} expects an object of named arguments but found: {}",
                type_name(a)
            ),
        ));
    };
    let (mut input, mut regex, mut options) = (None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(c.operand(v)?),
            "regex" => regex = Some(c.operand(v)?),
            "options" => options = Some(c.operand(v)?),
            _ => return Err(err(31024, format!("{name} found an unknown argument: {k}"))),
        }
    }
    let input = input.ok_or_else(|| err(31022, format!("{name} requires 'input' parameter")))?;
    let regex = regex.ok_or_else(|| err(31023, format!("{name} requires 'regex' parameter")))?;
    let constant = |n: &Option<Node>| matches!(n, None | Some(Node::Const(_)));
    let pattern = match (&regex, constant(&options)) {
        (Node::Const(r), true) => {
            let o = match &options {
                Some(Node::Const(o)) => Some(o.clone()),
                _ => None,
            };
            Pattern::Fixed(build(name, &Some(r.clone()), &o)?)
        }
        _ => Pattern::Dynamic(regex, options),
    };
    let mode = match name {
        "$regexFind" => Mode::Find,
        "$regexFindAll" => Mode::FindAll,
        _ => Mode::Match,
    };
    Ok(Node::Special(Arc::new(RegexOp {
        name,
        mode,
        input,
        pattern,
    })))
}
