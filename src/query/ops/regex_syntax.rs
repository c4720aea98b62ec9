//! PCRE (what MongoDB uses) to the `regex` crate's syntax. The common subset
//! passes through; PCRE-only literals are rewritten (`{` that is not a
//! quantifier, `[` inside a class, `$` before a final newline); features the
//! crate lacks (backreferences, lookaround, possessive quantifiers, atomic
//! groups, recursion) give an error naming the feature.
use crate::error::{Error, Result};

fn unsupported(feature: &str) -> Error {
    Error::new(
        115,
        "CommandNotSupported",
        format!("regular expressions with {feature} are not supported in mqlplay (its regex engine has no backtracking)"),
    )
}

/// Largest compiled program accepted (the crate's default is 10 MiB): keeps
/// `a{1000}{1000}`-style patterns from taking seconds and megabytes to compile.
pub(crate) const REGEX_SIZE_LIMIT: usize = 1 << 22;

/// Translate a PCRE pattern; `extended` and `multiline` are the `x` and `m` options.
pub(crate) fn translate(pattern: &str, extended: bool, multiline: bool) -> Result<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    let mut after_quantifier = false;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                i = escape(&chars, i, &mut out, false)?;
                after_quantifier = false;
                continue;
            }
            '[' => {
                i = class(&chars, i, &mut out, extended)?;
                after_quantifier = false;
                continue;
            }
            '(' => {
                i = group_open(&chars, i, &mut out)?;
                after_quantifier = false;
                continue;
            }
            '*' | '+' | '?' => {
                if after_quantifier {
                    if c == '+' {
                        return Err(unsupported("possessive quantifiers (*+, ++, ?+)"));
                    }
                    // `+?`: lazy, which ends the quantifier.
                    out.push(c);
                    after_quantifier = false;
                } else {
                    out.push(c);
                    after_quantifier = true;
                }
            }
            '{' => match quantifier_end(&chars, i) {
                Some(end) => {
                    let body: String = chars[i..=end].iter().collect();
                    // PCRE2 accepts `{,n}`; the crate wants `{0,n}`.
                    out.push_str(&body.replace("{,", "{0,"));
                    i = end + 1;
                    after_quantifier = true;
                    continue;
                }
                None => {
                    out.push_str("\\{");
                    after_quantifier = false;
                }
            },
            '}' => {
                out.push_str("\\}");
                after_quantifier = false;
            }
            // PCRE's `$` also matches before a final newline.
            '$' if !multiline => {
                out.push_str("(?:\\n?\\z)");
                after_quantifier = false;
            }
            '#' if extended => {
                // A comment to the end of the line: copied as is.
                while i < chars.len() && chars[i] != '\n' {
                    out.push(chars[i]);
                    i += 1;
                }
                continue;
            }
            _ => {
                out.push(c);
                after_quantifier = false;
            }
        }
        i += 1;
    }
    Ok(out)
}

/// `{n}`, `{n,}`, `{n,m}`, `{,m}`: the index of the closing brace.
fn quantifier_end(chars: &[char], start: usize) -> Option<usize> {
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

/// An escape at `i` (the backslash); returns the index after it.
fn escape(chars: &[char], i: usize, out: &mut String, in_class: bool) -> Result<usize> {
    let Some(&c) = chars.get(i + 1) else {
        // A trailing backslash: let the crate report it.
        out.push('\\');
        return Ok(i + 1);
    };
    let next = i + 2;
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
            while j < chars.len() && !(chars[j] == '\\' && chars.get(j + 1) == Some(&'E')) {
                let mut buf = [0u8; 4];
                out.push_str(&regex::escape(chars[j].encode_utf8(&mut buf)));
                j += 1;
            }
            Ok(if j < chars.len() { j + 2 } else { j })
        }
        'E' => Ok(next),
        'Z' if !in_class => {
            out.push_str("(?:\\n?\\z)");
            Ok(next)
        }
        // PCRE without UCP (MongoDB's build): Perl classes and word boundaries are
        // ASCII. `(?-i:` keeps case folding from adding U+212A/U+017F to \\w.
        'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
            let set = match c.to_ascii_lowercase() {
                'd' => "0-9",
                'w' => "0-9A-Za-z_",
                _ => "\\t\\n\\x0B\\x0C\\r\\x20", // no bare space: the x flag drops it
            };
            let negated = c.is_ascii_uppercase();
            match (in_class, negated) {
                (true, _) => {
                    out.push_str(if negated { "[^" } else { "[" });
                    out.push_str(set);
                    out.push(']');
                    // `[\\w-z]`: a `-` after a class escape is literal in PCRE.
                    if chars.get(next) == Some(&'-') && chars.get(next + 1) != Some(&']') {
                        out.push_str("\\-");
                        return Ok(next + 1);
                    }
                }
                (false, _) => {
                    out.push_str(if negated { "(?-i:[^" } else { "(?-i:[" });
                    out.push_str(set);
                    out.push_str("])");
                }
            }
            Ok(next)
        }
        'b' if in_class => {
            out.push_str("\\x08"); // backspace, as in PCRE
            Ok(next)
        }
        'b' | 'B' => {
            out.push_str(if c == 'b' { "(?-u:\\b)" } else { "(?-u:\\B)" });
            Ok(next)
        }
        'p' | 'P' => Err(unsupported("Unicode property escapes (\\p{...}, \\P{...})")),
        'h' => {
            out.push_str(if in_class { "\\t \\xA0" } else { "[\\t \\xA0]" });
            Ok(next)
        }
        'H' if !in_class => {
            out.push_str("[^\\t \\xA0]");
            Ok(next)
        }
        'R' if !in_class => {
            out.push_str("(?:\\r\\n|\\n|\\r)");
            Ok(next)
        }
        'e' => {
            out.push_str("\\x1B");
            Ok(next)
        }
        '0'..='7' => {
            // Octal: \0, \012 (inside a class every digit escape is octal).
            let mut j = i + 1;
            let mut value = 0u32;
            while j < chars.len() && j < i + 4 && ('0'..='7').contains(&chars[j]) {
                value = value * 8 + (chars[j] as u32 - '0' as u32);
                j += 1;
            }
            out.push_str(&format!("\\x{{{value:X}}}"));
            Ok(j)
        }
        'c' => match chars.get(next) {
            Some(x) if x.is_ascii() => {
                let code = (x.to_ascii_uppercase() as u32) ^ 0x40;
                out.push_str(&format!("\\x{{{code:X}}}"));
                Ok(next + 1)
            }
            _ => Err(Error::location(
                51091,
                "Regular expression is invalid: \\c at end of pattern",
            )),
        },
        c if c.is_ascii_alphanumeric() => {
            out.push('\\');
            out.push(c);
            Ok(next)
        }
        c => {
            // An escaped punctuation or other character is that literal character.
            let mut buf = [0u8; 4];
            let lit = c.encode_utf8(&mut buf);
            if in_class && matches!(c, '&' | '~' | '-' | '[' | ']' | '^' | '\\') {
                out.push('\\');
                out.push(c);
            } else if c == ' ' || c == '#' {
                // Literal even in extended mode.
                out.push('\\');
                out.push(c);
            } else {
                out.push_str(&regex::escape(lit));
            }
            Ok(next)
        }
    }
}

/// A character class at `i` (`[`); returns the index after its `]`.
fn class(chars: &[char], i: usize, out: &mut String, extended: bool) -> Result<usize> {
    out.push('[');
    let mut j = i + 1;
    if chars.get(j) == Some(&'^') {
        out.push('^');
        j += 1;
    }
    // A `]` first in the class is literal.
    if chars.get(j) == Some(&']') {
        out.push_str("\\]");
        j += 1;
    }
    while j < chars.len() {
        let c = chars[j];
        match c {
            ']' => {
                out.push(']');
                return Ok(j + 1);
            }
            '\\' => {
                j = escape(chars, j, out, true)?;
                continue;
            }
            '[' if chars.get(j + 1) == Some(&':') => {
                // POSIX class `[:alpha:]`: copied to its closing `:]`.
                let mut k = j + 2;
                while k + 1 < chars.len() && !(chars[k] == ':' && chars[k + 1] == ']') {
                    k += 1;
                }
                let end = (k + 2).min(chars.len());
                out.extend(&chars[j..end]);
                j = end;
                continue;
            }
            // Literal in PCRE, special (nesting, set operations) in the crate.
            '[' | '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '-' if chars.get(j + 1) == Some(&'-') => {
                out.push_str("-\\-");
                j += 2;
                continue;
            }
            ' ' | '\t' | '\n' | '#' if extended => {
                // PCRE keeps whitespace in classes even in extended mode.
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        j += 1;
    }
    Err(Error::location(
        51091,
        "Regular expression is invalid: missing terminating ] for character class",
    ))
}

/// A group opening at `i` (`(`); returns the index after what was consumed.
fn group_open(chars: &[char], i: usize, out: &mut String) -> Result<usize> {
    if chars.get(i + 1) != Some(&'?') {
        if chars.get(i + 1) == Some(&'*') {
            return Err(unsupported("backtracking control verbs ((*VERB))"));
        }
        out.push('(');
        return Ok(i + 1);
    }
    let rest: String = chars[i + 2..chars.len().min(i + 5)].iter().collect();
    let lookaround = |s: &str| rest.starts_with(s);
    if lookaround("=") || lookaround("!") || lookaround("<=") || lookaround("<!") {
        return Err(unsupported(
            "lookahead or lookbehind assertions ((?=, (?!, (?<=, (?<!)",
        ));
    }
    if lookaround("P=") {
        return Err(unsupported("named backreferences ((?P=name))"));
    }
    if lookaround(">") {
        return Err(unsupported("atomic groups ((?>...))"));
    }
    if lookaround("|") {
        return Err(unsupported("branch reset groups ((?|...))"));
    }
    if lookaround("(") {
        return Err(unsupported("conditional groups ((?(...)...))"));
    }
    if lookaround("R")
        || lookaround("&")
        || lookaround("P>")
        || rest.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-')
            && rest
                .chars()
                .nth(1)
                .is_some_and(|c| c.is_ascii_digit() || c == ')')
    {
        return Err(unsupported("recursion or subroutine calls ((?R), (?1))"));
    }
    if lookaround("#") {
        // A comment group: dropped.
        let mut j = i + 3;
        while j < chars.len() && chars[j] != ')' {
            j += 1;
        }
        return Ok(j + 1);
    }
    if lookaround("<") || lookaround("'") {
        // Named group `(?<name>` / `(?'name'`.
        let close = if lookaround("<") { '>' } else { '\'' };
        let mut j = i + 3;
        let mut name = String::new();
        while j < chars.len() && chars[j] != close {
            name.push(chars[j]);
            j += 1;
        }
        out.push_str("(?P<");
        out.push_str(&name);
        out.push('>');
        return Ok(j + 1);
    }
    out.push_str("(?");
    Ok(i + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(p: &str) -> String {
        translate(p, false, false).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn passes_and_rewrites() {
        assert_eq!(ok("^abc$"), "^abc(?:\\n?\\z)");
        assert_eq!(translate("a$", false, true).ok().as_deref(), Some("a$"));
        assert_eq!(ok("a{2,3}"), "a{2,3}");
        assert_eq!(ok("a{x}"), "a\\{x\\}");
        assert_eq!(ok("[a[]"), "[a\\[]");
        assert_eq!(ok("[]a]"), "[\\]a]");
        assert_eq!(ok("(?<y>\\d+)"), "(?P<y>(?-i:[0-9])+)");
        assert_eq!(ok("[\\w-]"), "[[0-9A-Za-z_]-]");
        assert_eq!(ok("[\\d-z]"), "[[0-9]\\-z]");
        assert_eq!(ok("[\\S]"), "[[^\\t\\n\\x0B\\x0C\\r\\x20]]");
        assert_eq!(ok("\\bx\\B"), "(?-u:\\b)x(?-u:\\B)");
        assert_eq!(ok("\\Qa.b\\E"), "a\\.b");
        assert_eq!(ok("a+?"), "a+?");
    }

    #[test]
    fn refuses_what_the_crate_lacks() {
        for p in [
            "(a)\\1",
            "\\p{L}",
            "[\\P{Greek}]",
            "a(?=b)",
            "(?<!x)y",
            "a++",
            "a{2}+",
            "(?>a)",
            "\\k<n>",
        ] {
            let e = translate(p, false, false).err();
            assert!(e.is_some_and(|e| e.code == 115), "{p}");
        }
    }
}
