//! String operators. Case mapping is ASCII-only and `$strcasecmp` compares
//! ASCII-uppercased bytes, as MongoDB does; code point operators count UTF-8 characters.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/#string-expression-operators
use super::array::index_arg;
use crate::error::{Error, Result};
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node, Special};
use crate::expr::value::{as_i32_exact, ensure, err, nullish, num_str, show, tname, Value};
use crate::text::shell::type_name;
use crate::value::numeric::{coerce_i64, is_number};
use bson::Bson;
use std::sync::Arc;

macro_rules! fixed {
    ($cname:ident, $f:ident, $n:expr) => {
        pub(crate) fn $cname(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
            Ok(call(n, $f, c.exact(n, a, $n)?))
        }
    };
}
fixed!(c_case, change_case, 1);
fixed!(c_strcasecmp, strcasecmp, 2);
fixed!(c_substr_bytes, substr_bytes, 3);
fixed!(c_substr_cp, substr_cp, 3);
fixed!(c_str_len, str_len, 1);
fixed!(c_split, split, 2);

pub(crate) fn c_concat(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, concat, c.args(a)?))
}
pub(crate) fn c_index_of(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, index_of, c.ranged(n, a, 2, 4)?))
}

/// MongoDB's `coerceToString` (used by `$toLower`, `$substr`, `$strcasecmp`...).
pub(crate) fn coerce_to_string(v: &Value) -> Result<String> {
    Ok(match v {
        None | Some(Bson::Null) | Some(Bson::Undefined) => String::new(),
        Some(Bson::String(s)) | Some(Bson::Symbol(s)) | Some(Bson::JavaScriptCode(s)) => s.clone(),
        Some(Bson::Int32(i)) => i.to_string(),
        Some(Bson::Int64(i)) => i.to_string(),
        // `str::stream() << double`: the server's StringBuilder prints "%g"
        // (6 significant digits): $toUpper of 1234567.5 is "1.23457e+06".
        Some(Bson::Double(d)) => crate::value::numeric::printf_g(*d),
        Some(Bson::Decimal128(d)) => d.to_string(),
        Some(Bson::DateTime(d)) => super::date::iso_string(*d),
        Some(Bson::Timestamp(t)) => format!("Timestamp({}, {})", t.time, t.increment),
        Some(other) => {
            return Err(err(
                16007,
                format!(
                    "can't convert from BSON type {} to String",
                    type_name(other)
                ),
            ))
        }
    })
}

fn change_case(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let s = coerce_to_string(&cx.eval(&args[0])?)?;
    Ok(Some(Bson::String(if name == "$toLower" {
        s.to_ascii_lowercase()
    } else {
        s.to_ascii_uppercase()
    })))
}

fn strcasecmp(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let a = coerce_to_string(&cx.eval(&args[0])?)?.to_ascii_uppercase();
    let b = coerce_to_string(&cx.eval(&args[1])?)?.to_ascii_uppercase();
    Ok(Some(Bson::Int32(match a.as_bytes().cmp(b.as_bytes()) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    })))
}

fn concat(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let mut out = String::new();
    for a in args {
        let v = cx.eval(a)?;
        if nullish(&v) {
            return Ok(Some(Bson::Null));
        }
        match v {
            Some(Bson::String(s)) => out.push_str(&s),
            other => {
                return Err(err(
                    16702,
                    format!("$concat only supports strings, not {}", tname(&other)),
                ))
            }
        }
    }
    Ok(Some(Bson::String(out)))
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

fn substr_bytes(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let name = "$substrBytes";
    let s = coerce_to_string(&cx.eval(&args[0])?)?;
    let lower = cx.eval(&args[1])?;
    let length = cx.eval(&args[2])?;
    let small_num =
        |v: &Value| matches!(v, Some(Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_)));
    ensure(small_num(&lower), 16034, || {
        format!(
            "{name}:  starting index must be a numeric type (is BSON type {})",
            tname(&lower)
        )
    })?;
    ensure(small_num(&length), 16035, || {
        format!(
            "{name}:  length must be a numeric type (is BSON type {})",
            tname(&length)
        )
    })?;
    let lower = lower.as_ref().and_then(coerce_i64).unwrap_or(0);
    ensure(lower >= 0, 50752, || {
        format!("{name}:  starting index must be non-negative (got: {lower})")
    })?;
    let bytes = s.as_bytes();
    let lower = lower as usize;
    let len = length.as_ref().and_then(coerce_i64).unwrap_or(0);
    let len = if len < 0 { bytes.len() } else { len as usize };
    ensure(
        lower >= bytes.len() || !is_continuation(bytes[lower]),
        28656,
        || format!("{name}:  Invalid range, starting index is a UTF-8 continuation byte."),
    )?;
    let end = lower.saturating_add(len);
    ensure(
        end >= bytes.len() || !is_continuation(bytes[end]),
        28657,
        || format!("{name}:  Invalid range, ending index is in the middle of a UTF-8 character."),
    )?;
    if lower >= bytes.len() {
        return Ok(Some(Bson::String(String::new())));
    }
    let end = end.min(bytes.len());
    Ok(Some(Bson::String(
        String::from_utf8_lossy(&bytes[lower..end]).into_owned(),
    )))
}

fn substr_cp(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let name = "$substrCP";
    let s = coerce_to_string(&cx.eval(&args[0])?)?;
    let lower = cx.eval(&args[1])?.unwrap_or(Bson::Undefined);
    let length = cx.eval(&args[2])?.unwrap_or(Bson::Undefined);
    ensure(is_number(&lower), 34450, || {
        format!(
            "{name}: starting index must be a numeric type (is BSON type {})",
            type_name(&lower)
        )
    })?;
    let start = as_i32_exact(&lower).ok_or_else(|| {
        err(
            34451,
            format!(
                "{name}: starting index cannot be represented as a 32-bit integral value: {}",
                num_str(&lower)
            ),
        )
    })?;
    ensure(is_number(&length), 34452, || {
        format!(
            "{name}: length must be a numeric type (is BSON type {})",
            type_name(&length)
        )
    })?;
    let len = as_i32_exact(&length).ok_or_else(|| {
        err(
            34453,
            format!(
                "{name}: length cannot be represented as a 32-bit integral value: {}",
                num_str(&length)
            ),
        )
    })?;
    ensure(len >= 0, 34454, || {
        format!("{name}: length must be a nonnegative integer.")
    })?;
    ensure(start >= 0, 34455, || {
        format!("{name}: the starting index must be nonnegative integer.")
    })?;
    let out: String = s.chars().skip(start as usize).take(len as usize).collect();
    Ok(Some(Bson::String(out)))
}

fn str_len(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    let Some(Bson::String(s)) = &v else {
        let code = if name == "$strLenBytes" { 34473 } else { 34471 };
        return Err(err(
            code,
            format!("{name} requires a string argument, found: {}", tname(&v)),
        ));
    };
    let n = if name == "$strLenBytes" {
        s.len()
    } else {
        s.chars().count()
    };
    Ok(Some(Bson::Int32(i32::try_from(n).unwrap_or(i32::MAX))))
}

fn split(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let input = cx.eval(&args[0])?;
    let sep = cx.eval(&args[1])?;
    if nullish(&input) || nullish(&sep) {
        return Ok(Some(Bson::Null));
    }
    let Some(Bson::String(input)) = &input else {
        return Err(err(40085, format!("$split requires an expression that evaluates to a string as a first argument, found: {}", tname(&input))));
    };
    let Some(Bson::String(sep)) = &sep else {
        return Err(err(40086, format!("$split requires an expression that evaluates to a string as a second argument, found: {}", tname(&sep))));
    };
    ensure(!sep.is_empty(), 40087, || {
        "$split requires a non-empty separator".into()
    })?;
    Ok(Some(Bson::Array(
        input
            .split(sep.as_str())
            .map(|p| Bson::String(p.to_string()))
            .collect(),
    )))
}

fn index_of(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let cp = name == "$indexOfCP";
    let s = cx.eval(&args[0])?;
    if nullish(&s) {
        return Ok(Some(Bson::Null));
    }
    let Some(Bson::String(s)) = &s else {
        return Err(err(
            if cp { 40093 } else { 40091 },
            format!(
                "{name} requires a string as the first argument, found: {}",
                tname(&s)
            ),
        ));
    };
    let t = cx.eval(&args[1])?;
    let Some(Bson::String(token)) = &t else {
        return Err(err(
            if cp { 40094 } else { 40092 },
            format!(
                "{name} requires a string as the second argument, found: {}",
                tname(&t)
            ),
        ));
    };
    let start = match args.get(2) {
        Some(a) => index_arg(name, "starting index", &cx.eval(a)?)?,
        None => 0,
    };
    let end_arg = match args.get(3) {
        Some(a) => Some(index_arg(name, "ending index", &cx.eval(a)?)?),
        None => None,
    };
    if cp {
        let chars: Vec<(usize, char)> = s.char_indices().collect();
        let n = chars.len();
        let end = end_arg.map_or(n, |e| e.min(n));
        if start == 0 && s.is_empty() && token.is_empty() {
            return Ok(Some(Bson::Int32(0)));
        }
        for i in start..end {
            let Some((byte, _)) = chars.get(i) else { break };
            if s.as_bytes()[*byte..].starts_with(token.as_bytes()) {
                return Ok(Some(Bson::Int32(i as i32)));
            }
        }
        return Ok(Some(Bson::Int32(-1)));
    }
    let bytes = s.as_bytes();
    let end = end_arg.map_or(bytes.len(), |e| e.min(bytes.len()));
    if start > bytes.len() || end < start {
        return Ok(Some(Bson::Int32(-1)));
    }
    let hay = &bytes[..end];
    let tok = token.as_bytes();
    let found = (start..=hay.len().saturating_sub(tok.len()))
        .find(|&i| i + tok.len() <= hay.len() && &hay[i..i + tok.len()] == tok);
    Ok(Some(Bson::Int32(found.map_or(-1, |i| i as i32))))
}

/// The default `$trim` characters: NUL, space, the ASCII whitespace controls and
/// the Unicode spaces MongoDB lists.
const TRIM_DEFAULT: &[char] = &[
    '\0', ' ', '\t', '\n', '\u{b}', '\u{c}', '\r', '\u{a0}', '\u{1680}', '\u{2000}', '\u{2001}',
    '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}',
    '\u{200a}',
];

#[derive(Debug)]
struct Trim {
    name: &'static str,
    left: bool,
    right: bool,
    input: Node,
    chars: Option<Node>,
}

impl Special for Trim {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let v = cx.eval(&self.input)?;
        if nullish(&v) {
            return Ok(Some(Bson::Null));
        }
        let Some(Bson::String(s)) = &v else {
            return Err(err(
                50699,
                format!(
                    "{} requires its input to be a string, got {} (of type {}) instead.",
                    self.name,
                    show(&v),
                    tname(&v)
                ),
            ));
        };
        let set: Vec<char> = match &self.chars {
            None => TRIM_DEFAULT.to_vec(),
            Some(c) => {
                let cv = cx.eval(c)?;
                if nullish(&cv) {
                    return Ok(Some(Bson::Null));
                }
                let Some(Bson::String(cs)) = &cv else {
                    return Err(err(
                        50700,
                        format!(
                            "{} requires 'chars' to be a string, got {} (of type {}) instead.",
                            self.name,
                            show(&cv),
                            tname(&cv)
                        ),
                    ));
                };
                cs.chars().collect()
            }
        };
        let mut out: &str = s;
        if self.left {
            out = out.trim_start_matches(|c| set.contains(&c));
        }
        if self.right {
            out = out.trim_end_matches(|c| set.contains(&c));
        }
        Ok(Some(Bson::String(out.to_string())))
    }
}

pub(crate) fn c_trim(name: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let Bson::Document(d) = a else {
        return Err(err(
            50696,
            format!(
                "{name} only supports an object as an argument, found {}",
                type_name(a)
            ),
        ));
    };
    let (mut input, mut chars) = (None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(c.operand(v)?),
            "chars" => chars = Some(c.operand(v)?),
            _ => return Err(err(50694, format!("{name} found an unknown argument: {k}"))),
        }
    }
    let input = input.ok_or_else(|| err(50695, format!("{name} requires an 'input' field")))?;
    Ok(Node::Special(Arc::new(Trim {
        name,
        left: name != "$rtrim",
        right: name != "$ltrim",
        input,
        chars,
    })))
}

#[derive(Debug)]
struct Replace {
    name: &'static str,
    all: bool,
    input: Node,
    find: Node,
    replacement: Node,
}

impl Special for Replace {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let input = cx.eval(&self.input)?;
        let find = cx.eval(&self.find)?;
        let repl = cx.eval(&self.replacement)?;
        let check = |v: &Value, what: &str, code: i32| -> Result<()> {
            ensure(
                matches!(v, Some(Bson::String(_))) || nullish(v),
                code,
                || {
                    format!(
                        "{} requires that '{what}' be a string, found: {}",
                        self.name,
                        show(v)
                    )
                },
            )
        };
        check(&input, "input", 51746)?;
        check(&find, "find", 51745)?;
        check(&repl, "replacement", 51744)?;
        match (&input, &find, &repl) {
            (Some(Bson::String(i)), Some(Bson::String(f)), Some(Bson::String(r))) => {
                Ok(Some(Bson::String(if self.all {
                    if f.is_empty() {
                        // Every position, like MongoDB's empty-find replacement.
                        let mut out = String::new();
                        for ch in i.chars() {
                            out.push_str(r);
                            out.push(ch);
                        }
                        out.push_str(r);
                        out
                    } else {
                        i.replace(f.as_str(), r)
                    }
                } else {
                    i.replacen(f.as_str(), r, 1)
                })))
            }
            _ => Ok(Some(Bson::Null)),
        }
    }
}

pub(crate) fn c_replace(name: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let Bson::Document(d) = a else {
        return Err(err(
            51751,
            format!(
                "{name} requires an object as an argument, found: {}",
                type_name(a)
            ),
        ));
    };
    let (mut input, mut find, mut repl) = (None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(c.operand(v)?),
            "find" => find = Some(c.operand(v)?),
            "replacement" => repl = Some(c.operand(v)?),
            _ => return Err(err(51750, format!("{name} found an unknown argument: {k}"))),
        }
    }
    let input =
        input.ok_or_else(|| err(51749, format!("{name} requires 'input' to be specified")))?;
    let find = find.ok_or_else(|| err(51748, format!("{name} requires 'find' to be specified")))?;
    let replacement = repl.ok_or_else(|| {
        err(
            51747,
            format!("{name} requires 'replacement' to be specified"),
        )
    })?;
    Ok(Node::Special(Arc::new(Replace {
        name,
        all: name == "$replaceAll",
        input,
        find,
        replacement,
    })))
}

#[allow(dead_code)]
fn unused(_: Error) {}
