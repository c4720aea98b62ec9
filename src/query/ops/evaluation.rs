//! `$regex`, `$mod`, `$expr` and the JavaScript operators we refuse.
//! See https://www.mongodb.com/docs/manual/reference/operator/query/regex/,
//! https://www.mongodb.com/docs/manual/reference/operator/query/mod/,
//! https://www.mongodb.com/docs/manual/reference/operator/query/expr/.
use crate::error::{Error, Result};
use crate::pcre::literal::Literal;
use crate::pcre::translate;
use crate::value::numeric::{decode_decimal, Dec};
use bson::{Bson, Document};
use std::sync::OnceLock;

/// A compiled regular expression with its original pattern and options
/// (a stored BSON regex matches only an identical regex).
#[derive(Clone, Debug)]
pub(crate) struct RegexPred {
    pattern: String,
    options: String,
    /// The translated pattern; compiled into `re` when first needed (a
    /// plain-string pattern rarely needs it, and building a regex costs more
    /// than a small query).
    full: String,
    re: OnceLock<Option<regex::Regex>>,
    /// A plain-string pattern, matched without the regex.
    literal: Option<Literal>,
    /// A string every match contains: a haystack without it is no match.
    required: Option<String>,
    /// The most bytes a match spans, when bounded (see `literal::windowed_match`).
    window: Option<usize>,
}

impl RegexPred {
    pub(crate) fn compile(pattern: &str, options: &str) -> Result<RegexPred> {
        if pattern.contains('\0') {
            return Err(Error::bad_value(
                "Regular expression cannot contain an embedded null byte",
            ));
        }
        for c in options.chars() {
            // `u` (UTF-8) is accepted and redundant (the server's pcre_util).
            if !matches!(c, 'i' | 'm' | 's' | 'x' | 'u') {
                return Err(Error::location(
                    51108,
                    format!("invalid flag in regex options: {c}"),
                ));
            }
        }
        let mut flags = String::new();
        for c in ['i', 'm', 's', 'x'] {
            if options.contains(c) {
                flags.push(c);
            }
        }
        let full = translate(pattern, &flags)?;
        let literal = Literal::of(pattern, options);
        let re = OnceLock::new();
        // A short plain string always compiles: its regex waits until a
        // haystack needs it. Anything else is compiled now, so that its errors
        // (the size limit) are the query's.
        if literal.is_none() || pattern.len() > LAZY_LITERAL_MAX {
            let _ = re.set(Some(build(&full)?));
        }
        Ok(RegexPred {
            pattern: pattern.to_string(),
            options: options.to_string(),
            full,
            re,
            literal,
            required: crate::pcre::literal::required(pattern, options),
            window: crate::pcre::literal::max_chars(pattern).and_then(|n| n.checked_mul(4)),
        })
    }

    /// Whether the regex matches `s` (building it if it was left for later;
    /// a short plain string always compiles, so `None` does not happen).
    fn re_match(&self, s: &str) -> bool {
        self.re
            .get_or_init(|| build(&self.full).ok())
            .as_ref()
            .is_some_and(|re| re.is_match(s))
    }

    pub(crate) fn is_match(&self, s: &str) -> bool {
        match self.literal.as_ref().and_then(|l| l.is_match(s)) {
            Some(m) => m,
            None => match (&self.required, self.window) {
                (Some(r), Some(w)) => {
                    crate::pcre::literal::windowed_match(s, r, w, |part| self.re_match(part))
                }
                (Some(r), None) if !s.contains(r.as_str()) => false,
                _ => self.re_match(s),
            },
        }
    }

    pub(crate) fn matches(&self, v: &Bson) -> bool {
        match v {
            Bson::String(s) | Bson::Symbol(s) => self.is_match(s),
            Bson::RegularExpression(r) => {
                r.pattern.as_str() == self.pattern && r.options.as_str() == self.options
            }
            _ => false,
        }
    }
}

/// The longest plain-string pattern (bytes) whose regex is built lazily: far
/// below what reaches `REGEX_SIZE_LIMIT`.
const LAZY_LITERAL_MAX: usize = 1024;

fn build(full: &str) -> Result<regex::Regex> {
    regex::RegexBuilder::new(full)
        .size_limit(crate::pcre::REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| Error::location(51091, format!("Regular expression is invalid: {e}")))
}

/// `{$regex, $options}` in an operator document (either may come first).
pub(crate) fn regex_from_operators(ops: &Document) -> Result<Option<RegexPred>> {
    let regex = ops.get("$regex");
    let options = ops.get("$options");
    let (pattern, mut flags) = match regex {
        None if options.is_some() => return Err(Error::bad_value("$options needs a $regex")),
        None => return Ok(None),
        Some(Bson::String(s)) => (s.clone(), String::new()),
        Some(Bson::RegularExpression(r)) => (r.pattern.to_string(), r.options.to_string()),
        Some(_) => return Err(Error::bad_value("$regex has to be a string")),
    };
    match options {
        None => {}
        Some(Bson::String(o)) => {
            if !flags.is_empty() && !o.is_empty() {
                return Err(Error::location(
                    51075,
                    "options set in both $regex and $options",
                ));
            }
            if !o.is_empty() {
                flags = o.clone();
            }
        }
        Some(_) => return Err(Error::bad_value("$options has to be a string")),
    }
    RegexPred::compile(&pattern, &flags).map(Some)
}

/// `$mod: [divisor, remainder]`.
#[derive(Clone, Debug)]
pub(crate) struct Modulo {
    divisor: i64,
    remainder: i64,
}

impl Modulo {
    /// Checks run in the server's order (parseMOD): element count and types
    /// first, one element at a time, then the coercions, then the zero divisor.
    pub(crate) fn compile(arg: &Bson) -> Result<Modulo> {
        let Bson::Array(items) = arg else {
            return Err(Error::bad_value("malformed mod, needs to be an array"));
        };
        let not_enough = || Error::bad_value("malformed mod, not enough elements");
        let d = items.first().ok_or_else(not_enough)?;
        if !is_number(d) {
            return Err(Error::bad_value("malformed mod, divisor not a number"));
        }
        let r = items.get(1).ok_or_else(not_enough)?;
        if !is_number(r) {
            return Err(Error::bad_value("malformed mod, remainder not a number"));
        }
        if items.len() > 2 {
            return Err(Error::bad_value("malformed mod, too many elements"));
        }
        let divisor = mod_operand(d, "divisor")?;
        let remainder = mod_operand(r, "remainder")?;
        if divisor == 0 {
            return Err(Error::bad_value("divisor cannot be 0"));
        }
        Ok(Modulo { divisor, remainder })
    }

    pub(crate) fn matches(&self, v: &Bson) -> bool {
        let dividend = match v {
            Bson::Int32(i) => i64::from(*i),
            Bson::Int64(i) => *i,
            Bson::Double(d) => match trunc_to_i64(*d) {
                Some(i) => i,
                None => return false,
            },
            Bson::Decimal128(d) => match decode_decimal(d) {
                Dec::Finite(b) => match i64::try_from(b.with_scale(0).into_bigint_and_exponent().0)
                {
                    Ok(i) => i,
                    Err(_) => return false,
                },
                _ => return false,
            },
            _ => return false,
        };
        // i64::MIN % -1 overflows; its remainder is 0.
        dividend.checked_rem(self.divisor).unwrap_or(0) == self.remainder
    }
}

fn trunc_to_i64(d: f64) -> Option<i64> {
    if !d.is_finite() {
        return None;
    }
    let t = d.trunc();
    (-9.223372036854776e18..9.223372036854776e18)
        .contains(&t)
        .then_some(t as i64)
}

/// Divisor and remainder truncate toward zero, as the server's
/// `BSONElement::tryCoerce` does: NaN/Infinity and values outside the 64-bit
/// range are refused with its two distinct reasons.
fn mod_operand(v: &Bson, what: &str) -> Result<i64> {
    let invalid = |reason: &str| {
        Error::bad_value(format!(
            "malformed mod, {what} value is invalid :: caused by :: {reason}"
        ))
    };
    const NAN_INF: &str = "Unable to coerce NaN/Inf to integral type";
    const BOUNDS: &str = "Out of bounds coercing to integral value";
    match v {
        Bson::Int32(i) => Ok(i64::from(*i)),
        Bson::Int64(i) => Ok(*i),
        Bson::Double(d) if !d.is_finite() => Err(invalid(NAN_INF)),
        Bson::Double(d) => trunc_to_i64(*d).ok_or_else(|| invalid(BOUNDS)),
        Bson::Decimal128(d) => match decode_decimal(d) {
            Dec::Finite(b) => i64::try_from(b.with_scale(0).into_bigint_and_exponent().0)
                .map_err(|_| invalid(BOUNDS)),
            _ => Err(invalid(NAN_INF)),
        },
        _ => Err(Error::bad_value(format!(
            "malformed mod, {what} not a number"
        ))),
    }
}

fn is_number(v: &Bson) -> bool {
    matches!(
        v,
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_)
    )
}

/// `$where` and `$function` would run JavaScript, which the playground never does.
pub(crate) fn javascript_error(op: &str) -> Error {
    Error::command_not_supported(format!(
            "{op} runs server-side JavaScript (deprecated since MongoDB 8.0), which mqlplay never executes: use $expr with aggregation operators instead"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_strings_build_their_regex_only_when_needed() {
        let p = RegexPred::compile("^kelvin", "i").expect("compiles");
        assert!(p.re.get().is_none());
        assert!(p.is_match("KELVIN scale"));
        assert!(p.re.get().is_none());
        // U+212A KELVIN SIGN folds to `k`: the literal leaves it to the regex.
        assert!(p.is_match("\u{212A}elvin"));
        assert!(p.re.get().is_some());
        assert!(!p.is_match("\u{212A}elvix"));
    }

    #[test]
    fn other_patterns_are_built_at_once() {
        assert!(RegexPred::compile("^a.c", "")
            .expect("compiles")
            .re
            .get()
            .is_some());
        let long = "a".repeat(LAZY_LITERAL_MAX + 1);
        assert!(RegexPred::compile(&long, "")
            .expect("compiles")
            .re
            .get()
            .is_some());
        assert_eq!(
            RegexPred::compile("a(", "").map(|_| ()).map_err(|e| e.code),
            Err(51091)
        );
    }
}
