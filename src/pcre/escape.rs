//! PCRE escapes (`\d`, `\x{…}`, `\Q…\E`, …) read into the `regex` crate's syntax,
//! and the character-level helpers and errors the translator shares.
use crate::error::{Error, Result};

pub(super) fn unsupported(feature: &str) -> Error {
    Error::command_not_supported(format!("regular expressions with {feature} are not supported in mqlplay (its regex engine has no backtracking)"),
    )
}

pub(super) fn invalid(msg: &str) -> Error {
    Error::location(51091, format!("Regular expression is invalid: {msg}"))
}

/// What an escape stands for.
pub(super) enum Esc {
    Char(char),
    /// `\Q...\E`: literal characters.
    Chars(Vec<char>),
    /// Engine syntax copied as is (class escapes, assertions).
    Raw(String),
}

/// The engine's metacharacters (escaping any of them is allowed).
pub(super) fn is_meta(c: char) -> bool {
    matches!(
        c,
        '\\' | '.'
            | '+'
            | '*'
            | '?'
            | '('
            | ')'
            | '|'
            | '['
            | ']'
            | '{'
            | '}'
            | '^'
            | '$'
            | '#'
            | '&'
            | '-'
            | '~'
    )
}

/// A character that is not a metacharacter; white space and controls are
/// written as hex escapes, which the x option does not drop.
pub(super) fn push_plain(out: &mut String, c: char) {
    if c.is_whitespace() || c.is_control() {
        out.push_str(&format!("\\x{{{:X}}}", c as u32));
    } else {
        out.push(c);
    }
}

/// A literal character inside a class.
pub(super) fn push_class_char(out: &mut String, c: char) {
    if matches!(c, '\\' | ']' | '[' | '^' | '-' | '&' | '~' | '#') {
        out.push('\\');
        out.push(c);
    } else {
        push_plain(out, c);
    }
}

/// `{n}`, `{n,}`, `{n,m}`, `{,m}`: the index of the closing brace.
pub(super) fn quantifier_end(chars: &[char], start: usize) -> Option<usize> {
    let mut j = start + 1;
    let mut digits_before = 0;
    while chars.get(j).is_some_and(|c| c.is_ascii_digit()) {
        j += 1;
        digits_before += 1;
    }
    match chars.get(j) {
        Some('}') if digits_before > 0 => Some(j),
        Some(',') => {
            j += 1;
            let mut digits_after = 0;
            while chars.get(j).is_some_and(|c| c.is_ascii_digit()) {
                j += 1;
                digits_after += 1;
            }
            (chars.get(j) == Some(&'}') && digits_before + digits_after > 0).then_some(j)
        }
        _ => None,
    }
}

/// Up to `max` hex digits from `j`: the value and the index after them.
fn hex(chars: &[char], mut j: usize, max: usize) -> (u32, usize, usize) {
    let (mut value, mut n) = (0u32, 0);
    while n < max {
        let Some(d) = chars.get(j).and_then(|c| c.to_digit(16)) else {
            break;
        };
        value = value.saturating_mul(16).saturating_add(d);
        j += 1;
        n += 1;
    }
    (value, j, n)
}

/// A Perl class escape (`\d \D \w \W \s \S`, the letter `c`) as PCRE without
/// UCP has it: ASCII only, and untouched by caseless matching (the engine's
/// Unicode folding would add the Kelvin sign to `\w` under `i`). `\s` is
/// PCRE2's set, with the vertical tab. Inside a class, the POSIX name alone.
fn ascii_class(c: char, in_class: bool) -> String {
    let name = match c.to_ascii_lowercase() {
        'd' => "digit",
        'w' => "word",
        _ => "space",
    };
    let neg = if c.is_ascii_uppercase() { "^" } else { "" };
    if in_class {
        format!("[:{neg}{name}:]")
    } else {
        format!("(?-i:[[:{neg}{name}:]])")
    }
}

/// An escape at `i` (the backslash): what it stands for and the index after it.
pub(super) fn escape(chars: &[char], i: usize, in_class: bool) -> Result<(Esc, usize)> {
    let Some(&c) = chars.get(i + 1) else {
        // A trailing backslash: let the engine report it.
        return Ok((Esc::Raw("\\".to_string()), i + 1));
    };
    let next = i + 2;
    let raw = |r: &str| Ok((Esc::Raw(r.to_string()), next));
    let ch = |c: char| Ok((Esc::Char(c), next));
    match c {
        '1'..='9' if !in_class => Err(unsupported("backreferences (\\1)")),
        'k' if matches!(chars.get(next), Some('<' | '{' | '\'')) => {
            Err(unsupported("named backreferences (\\k<name>)"))
        }
        'g' => Err(unsupported("backreferences (\\g)")),
        'G' | 'K' | 'X' | 'C' => Err(unsupported(&format!("\\{c}"))),
        'Q' => {
            // Quote to \E.
            let mut j = next;
            let mut quoted = Vec::new();
            while j < chars.len() && !(chars[j] == '\\' && chars.get(j + 1) == Some(&'E')) {
                quoted.push(chars[j]);
                j += 1;
            }
            Ok((Esc::Chars(quoted), if j < chars.len() { j + 2 } else { j }))
        }
        'E' => Ok((Esc::Chars(Vec::new()), next)),
        'Z' if !in_class => raw("(?:\\n?\\z)"),
        // PCRE without UCP (MongoDB's build): Perl classes and word boundaries are
        // ASCII, as the engine's.
        'd' | 'D' | 'w' | 'W' | 's' | 'S' => raw(&ascii_class(c, in_class)),
        'b' if in_class => ch('\x08'), // backspace, as in PCRE
        // In a group: `\b{2}` is a repeated boundary, not the engine's `\b{start}`.
        'b' => raw("(?-u:\\b)"),
        'B' => raw("(?-u:\\B)"),
        'p' | 'P' => Err(unsupported("Unicode property escapes (\\p{...}, \\P{...})")),
        'h' => raw(if in_class {
            "\\t\\x20\\xA0"
        } else {
            "[\\t\\x20\\xA0]"
        }),
        'H' if !in_class => raw("[^\\t\\x20\\xA0]"),
        'R' if !in_class => raw("(?:\\r\\n|\\n|\\r)"),
        'e' => ch('\x1B'),
        'a' => ch('\x07'),
        'f' => ch('\x0C'),
        'n' => ch('\n'),
        'r' => ch('\r'),
        't' => ch('\t'),
        'v' => ch('\x0B'),
        '0'..='7' => {
            // Octal: \0, \012 (inside a class every digit escape is octal).
            let mut j = i + 1;
            let mut value = 0u32;
            while j < chars.len() && j < i + 4 && ('0'..='7').contains(&chars[j]) {
                value = value * 8 + (chars[j] as u32 - '0' as u32);
                j += 1;
            }
            Ok((Esc::Char(char::from_u32(value).unwrap_or('\0')), j))
        }
        'x' => {
            // `\xhh` (up to two digits) or `\x{h...}`.
            let (value, end) = if chars.get(next) == Some(&'{') {
                let (v, j, n) = hex(chars, next + 1, 8);
                if n == 0 || chars.get(j) != Some(&'}') {
                    return raw("\\x");
                }
                (v, j + 1)
            } else {
                let (v, j, _) = hex(chars, next, 2);
                (v, j)
            };
            match char::from_u32(value) {
                Some(c) => Ok((Esc::Char(c), end)),
                None => Err(invalid("character code point value in \\x{} is too large")),
            }
        }
        'c' => match chars.get(next) {
            Some(x) if x.is_ascii() => {
                let code = (x.to_ascii_uppercase() as u32) ^ 0x40;
                Ok((Esc::Char(char::from_u32(code).unwrap_or('\0')), next + 1))
            }
            _ => Err(invalid("\\c at end of pattern")),
        },
        // Other letters and digits: the engine's meaning or its error.
        c if c.is_ascii_alphanumeric() => Ok((Esc::Raw(format!("\\{c}")), next)),
        // An escaped punctuation or other character is that literal character.
        c => ch(c),
    }
}
