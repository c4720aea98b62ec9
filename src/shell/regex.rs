//! Regular expressions in scripts: `/pattern/flags` literals (scanned here for
//! the lexer), JavaScript's flags and the BSON options mongosh's driver writes
//! for them, and the `RegExp()` and `BSONRegExp()` constructors.
use super::lexer::{Lexer, Tok};
use crate::error::{Error, Result, Span};
use bson::Bson;

impl<'a> Lexer<'a> {
    /// `/pattern/flags`, with JavaScript's flags (d g i m s u v y). What
    /// reaches the server is what mongosh's driver writes for a RegExp
    /// ([`bson_regex_options`]).
    pub(super) fn regex(&mut self, start: usize) -> Result<Tok<'a>> {
        let mut p = start + 1;
        let mut in_class = false;
        loop {
            let Some(&b) = self.bytes.get(p) else {
                return Err(self.unterminated("regular expression", start, p));
            };
            match b {
                b'\n' | b'\r' => {
                    return Err(self.unterminated("regular expression", start, p));
                }
                b'\\' => {
                    p += 1;
                    if matches!(self.bytes.get(p), Some(b'\n' | b'\r') | None) {
                        continue;
                    }
                    p = self.ceil_char(p + 1);
                }
                b'[' => {
                    in_class = true;
                    p += 1;
                }
                b']' => {
                    in_class = false;
                    p += 1;
                }
                b'/' if !in_class => break,
                _ => p += 1,
            }
        }
        let pattern = &self.src[start + 1..p];
        let flags_start = p + 1;
        let mut q = flags_start;
        while self
            .bytes
            .get(q)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$')
        {
            q += 1;
        }
        self.pos = q;
        let flags = &self.src[flags_start..q];
        check_regex_flags(flags).map_err(|m| Error::syntax(m, Span::new(flags_start, q)))?;
        if pattern.is_empty() {
            return Err(Error::syntax(
                "Unexpected token '/'",
                Span::new(start, start + 1),
            ));
        }
        Ok(Tok::Regex { pattern, flags })
    }
}

/// Validate JavaScript regex flags: JavaScript's own (`/a/x` is a
/// SyntaxError in mongosh), each at most once.
pub fn check_regex_flags(flags: &str) -> std::result::Result<(), String> {
    for (i, c) in flags.char_indices() {
        if !"dgimsuvy".contains(c) {
            return Err(format!("Invalid regular expression flags '{flags}'"));
        }
        if flags[..i].contains(c) {
            return Err(format!(
                "Invalid regular expression flags '{flags}': duplicate '{c}'"
            ));
        }
    }
    Ok(())
}

/// The BSON options mongosh's driver writes for a JavaScript RegExp: `i`
/// for ignoreCase, `m` for multiline and `s` for *global* (js-bson's
/// serializeRegExp: `if (value.global) ... 0x73; // s`); JavaScript's own
/// `s` (dotAll) and the other flags are dropped. So `/a.b/g` matches across
/// a newline and `/a.b/s` does not; `{$regex: "a.b", $options: "s"}` is the
/// way to ask for dotAll.
pub fn bson_regex_options(flags: &str) -> String {
    let mut out = String::new();
    if flags.contains('i') {
        out.push('i');
    }
    if flags.contains('m') {
        out.push('m');
    }
    if flags.contains('g') {
        out.push('s');
    }
    out
}

/// `RegExp(pattern[, flags])`: a string or another regex, JavaScript's flags
/// written as the driver writes them.
pub(super) fn regexp(vals: &[Bson]) -> Result<Bson> {
    let (pattern, old_flags) = match vals.first() {
        None | Some(Bson::Null) => ("(?:)".to_string(), String::new()),
        Some(Bson::String(s)) => (s.clone(), String::new()),
        Some(Bson::RegularExpression(r)) => (r.pattern.to_string(), r.options.to_string()),
        Some(_) => return Err(Error::bad_value("RegExp: the pattern must be a string")),
    };
    // `old_flags` are already BSON options (a regex literal's, as the driver wrote them).
    let options = match vals.get(1) {
        None | Some(Bson::Null) => old_flags,
        Some(Bson::String(f)) => {
            check_regex_flags(f)
                .map_err(|m| Error::failed_to_parse(format!("SyntaxError: {m}")))?;
            bson_regex_options(f)
        }
        Some(_) => return Err(Error::bad_value("RegExp: the flags must be a string")),
    };
    regex_value(&pattern, &options)
}

/// `BSONRegExp(pattern, options)`: BSON options as they are (i, l, m, s,
/// u, x; sorted), for the ones a JavaScript literal cannot carry (js-bson's
/// BSONRegExp rejects any other letter).
pub(super) fn bson_regexp(vals: &[Bson]) -> Result<Bson> {
    let Some(Bson::String(pattern)) = vals.first() else {
        return Err(Error::bad_value("BSONRegExp: the pattern must be a string"));
    };
    let options = match vals.get(1) {
        None | Some(Bson::Null | Bson::Undefined) => String::new(),
        Some(Bson::String(o)) => o.clone(),
        Some(_) => return Err(Error::bad_value("BSONRegExp: the options must be a string")),
    };
    if let Some(c) = options.chars().find(|c| !"ilmsux".contains(*c)) {
        return Err(Error::bad_value(format!(
            "The regular expression option [{c}] is not supported"
        )));
    }
    // Sorted and each once: the allowed letters, in order, that appear.
    let sorted: String = "ilmsux".chars().filter(|c| options.contains(*c)).collect();
    regex_value(pattern, &sorted)
}

/// A BSON regex; BSON stores both parts as C strings, so a NUL is refused.
pub(crate) fn regex_value(pattern: &str, options: &str) -> Result<Bson> {
    let nul = || Error::bad_value("a regular expression cannot contain a null character");
    Ok(Bson::RegularExpression(bson::Regex {
        pattern: pattern.to_string().try_into().map_err(|_| nul())?,
        options: options.to_string().try_into().map_err(|_| nul())?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_to_bson_options() {
        assert_eq!(bson_regex_options("gsmi"), "ims");
        assert_eq!(bson_regex_options("s"), "");
        assert_eq!(bson_regex_options("yudg"), "s");
    }
}
