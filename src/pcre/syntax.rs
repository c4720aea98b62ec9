//! PCRE (what MongoDB uses) to the syntax of the `regex` crate. The common subset passes through; PCRE-only literals are
//! rewritten (`{` that is not a quantifier, `[` inside a class, `$` before a
//! final newline); under the `i` option a letter with non-ASCII case variants
//! becomes a class of them (see `fold`); `\w \d \s \b` stay ASCII;
//! features the engine lacks (backreferences, lookaround, possessive
//! quantifiers, atomic groups, recursion, Unicode properties) give an error
//! naming the feature.
use super::escape::{
    escape, invalid, is_meta, push_class_char, push_plain, quantifier_end, unsupported, Esc,
};
use super::fold::{needs_class, range_variants, variants};
use crate::error::Result;

/// Largest compiled program accepted: keeps `a{1000}{1000}`-style patterns
/// from taking seconds and megabytes to compile.
pub const REGEX_SIZE_LIMIT: usize = 1 << 22;

/// Translate a PCRE pattern compiled with `flags` (any of `imsx`, already
/// validated), which lead the result as inline flags.
pub fn translate(pattern: &str, flags: &str) -> Result<String> {
    let mut t = Translator {
        chars: pattern.chars().collect(),
        out: String::with_capacity(pattern.len() + 8),
        extended: flags.contains('x'),
        multiline: flags.contains('m'),
        ci: flags.contains('i'),
        scopes: Vec::new(),
    };
    if !flags.is_empty() {
        t.out.push_str("(?");
        t.out.push_str(flags);
        t.out.push(')');
    }
    t.run()?;
    Ok(t.out)
}

struct Translator {
    chars: Vec<char>,
    out: String,
    extended: bool,
    multiline: bool,
    /// Whether case-insensitive matching is on here (`(?i)` may change it).
    ci: bool,
    /// `ci` outside each open group, restored at its `)`.
    scopes: Vec<bool>,
}

enum Item {
    Char(char),
    Range(char, char),
    Raw(String),
}

impl Translator {
    fn run(&mut self) -> Result<()> {
        let mut i = 0;
        let mut after_quantifier = false;
        while let Some(&c) = self.chars.get(i) {
            match c {
                '\\' => {
                    let (esc, next) = escape(&self.chars, i, false)?;
                    match esc {
                        Esc::Char(c) => self.literal(c),
                        Esc::Chars(cs) => cs.into_iter().for_each(|c| self.literal(c)),
                        Esc::Raw(r) => self.out.push_str(&r),
                    }
                    i = next;
                    after_quantifier = false;
                    continue;
                }
                '[' => {
                    i = self.class(i)?;
                    after_quantifier = false;
                    continue;
                }
                '(' => {
                    i = self.group_open(i)?;
                    after_quantifier = false;
                    continue;
                }
                ')' => {
                    self.ci = self.scopes.pop().unwrap_or(self.ci);
                    self.out.push(')');
                    after_quantifier = false;
                }
                '*' | '+' | '?' => {
                    if after_quantifier {
                        if c == '+' {
                            return Err(unsupported("possessive quantifiers (*+, ++, ?+)"));
                        }
                        // `+?`: lazy, which ends the quantifier.
                        after_quantifier = false;
                    } else {
                        after_quantifier = true;
                    }
                    self.out.push(c);
                }
                '{' => match quantifier_end(&self.chars, i) {
                    Some(end) => {
                        let body: String = self.chars[i..=end].iter().collect();
                        // PCRE2 accepts `{,n}`; the engine wants `{0,n}`.
                        self.out.push_str(&body.replace("{,", "{0,"));
                        i = end + 1;
                        after_quantifier = true;
                        continue;
                    }
                    None => {
                        self.out.push_str("\\{");
                        after_quantifier = false;
                    }
                },
                '}' => {
                    self.out.push_str("\\}");
                    after_quantifier = false;
                }
                // PCRE's `$` also matches before a final newline.
                '$' if !self.multiline => {
                    self.out.push_str("(?:\\n?\\z)");
                    after_quantifier = false;
                }
                '#' if self.extended => {
                    // A comment to the end of the line: copied as is.
                    while let Some(&c) = self.chars.get(i).filter(|c| **c != '\n') {
                        self.out.push(c);
                        i += 1;
                    }
                    continue;
                }
                _ => {
                    // Metacharacters and (under x) white space keep their meaning.
                    if self.ci && needs_class(c) {
                        self.literal(c);
                    } else {
                        self.out.push(c);
                    }
                    after_quantifier = false;
                }
            }
            i += 1;
        }
        Ok(())
    }

    /// A literal character: under `i`, a class of its case variants when
    /// some are not ASCII.
    fn literal(&mut self, c: char) {
        if self.ci && needs_class(c) {
            self.out.push('[');
            for v in variants(c) {
                push_class_char(&mut self.out, v);
            }
            self.out.push(']');
        } else if is_meta(c) {
            self.out.push('\\');
            self.out.push(c);
        } else {
            push_plain(&mut self.out, c);
        }
    }

    /// A character class at `i` (`[`); returns the index after its `]`.
    fn class(&mut self, i: usize) -> Result<usize> {
        let chars = &self.chars;
        let mut j = i + 1;
        let negated = chars.get(j) == Some(&'^');
        if negated {
            j += 1;
        }
        let mut items = Vec::new();
        // A `]` first in the class is literal.
        if chars.get(j) == Some(&']') {
            items.push(Item::Char(']'));
            j += 1;
        }
        loop {
            let Some(&c) = chars.get(j) else {
                return Err(invalid("missing terminating ] for character class"));
            };
            let lo = match c {
                ']' => {
                    j += 1;
                    break;
                }
                '\\' => {
                    let (esc, next) = escape(chars, j, true)?;
                    j = next;
                    match esc {
                        Esc::Char(c) => c,
                        Esc::Chars(cs) => {
                            items.extend(cs.into_iter().map(Item::Char));
                            continue;
                        }
                        Esc::Raw(r) => {
                            items.push(Item::Raw(r));
                            // `[\w-z]`: a `-` after a class escape is literal in PCRE.
                            if chars.get(j) == Some(&'-') && chars.get(j + 1) != Some(&']') {
                                items.push(Item::Char('-'));
                                j += 1;
                            }
                            continue;
                        }
                    }
                }
                '[' if chars.get(j + 1) == Some(&':') => {
                    // POSIX class `[:alpha:]`: copied to its closing `:]`.
                    let mut k = j + 2;
                    while k + 1 < chars.len() && !(chars[k] == ':' && chars[k + 1] == ']') {
                        k += 1;
                    }
                    let end = (k + 2).min(chars.len());
                    items.push(Item::Raw(chars[j..end].iter().collect()));
                    j = end;
                    continue;
                }
                c => {
                    j += 1;
                    c
                }
            };
            // A range `lo-hi` (a `-` before the closing `]` is literal).
            if chars.get(j) == Some(&'-') && chars.get(j + 1).is_some_and(|c| *c != ']') {
                let (hi, next) = match chars.get(j + 1) {
                    Some('\\') => match escape(chars, j + 1, true)? {
                        (Esc::Char(hi), next) => (hi, next),
                        _ => return Err(invalid("invalid range in character class")),
                    },
                    Some('[') if chars.get(j + 2) == Some(&':') => {
                        return Err(invalid("invalid range in character class"))
                    }
                    Some(&hi) => (hi, j + 2),
                    None => break,
                };
                if hi < lo {
                    return Err(invalid("range out of order in character class"));
                }
                items.push(Item::Range(lo, hi));
                j = next;
                continue;
            }
            items.push(Item::Char(lo));
        }
        let out = &mut self.out;
        out.push('[');
        if negated {
            out.push('^');
        }
        for item in &items {
            match item {
                Item::Char(c) => push_class_char(out, *c),
                Item::Range(lo, hi) => {
                    push_class_char(out, *lo);
                    out.push('-');
                    push_class_char(out, *hi);
                }
                Item::Raw(r) => out.push_str(r),
            }
        }
        if self.ci {
            // Case variants are added before negation, as PCRE folds `[^é]`.
            for item in &items {
                match *item {
                    Item::Char(c) if needs_class(c) => {
                        for v in variants(c).into_iter().filter(|v| *v != c) {
                            push_class_char(out, v);
                        }
                    }
                    Item::Range(lo, hi) => {
                        for (a, b) in range_variants(lo, hi) {
                            push_class_char(out, a);
                            if b != a {
                                out.push('-');
                                push_class_char(out, b);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        out.push(']');
        Ok(j)
    }

    /// A group opening at `i` (`(`); returns the index after what was consumed.
    fn group_open(&mut self, i: usize) -> Result<usize> {
        let chars = &self.chars;
        if chars.get(i + 1) != Some(&'?') {
            if chars.get(i + 1) == Some(&'*') {
                return Err(unsupported("backtracking control verbs ((*VERB))"));
            }
            self.scopes.push(self.ci);
            self.out.push('(');
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
        if lookaround("<") || lookaround("'") || lookaround("P<") {
            // Named group `(?<name>`, `(?'name'`, `(?P<name>`.
            let (close, mut j) = match chars[i + 2] {
                '\'' => ('\'', i + 3),
                'P' => ('>', i + 4),
                _ => ('>', i + 3),
            };
            self.out.push_str("(?P<");
            while j < chars.len() && chars[j] != close {
                self.out.push(chars[j]);
                j += 1;
            }
            self.out.push('>');
            self.scopes.push(self.ci);
            return Ok(j + 1);
        }
        // Flags: `(?i)` to the end of the enclosing group, `(?i:...)` for its body.
        let mut j = i + 2;
        let (mut ci, mut negate) = (self.ci, false);
        while let Some(&c) = chars
            .get(j)
            .filter(|c| c.is_ascii_alphabetic() || **c == '-')
        {
            match c {
                '-' => negate = true,
                'i' => ci = !negate,
                _ => {}
            }
            j += 1;
        }
        self.out.push_str("(?");
        self.out.extend(&chars[i + 2..j]);
        match chars.get(j) {
            Some(':') => {
                self.out.push(':');
                self.scopes.push(self.ci);
                self.ci = ci;
                Ok(j + 1)
            }
            Some(')') => {
                self.out.push(')');
                self.ci = ci;
                Ok(j + 1)
            }
            // Let the engine report it.
            _ => Ok(j),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(p: &str) -> String {
        translate(p, "").unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    fn ci(p: &str) -> String {
        translate(p, "i").unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn passes_and_rewrites() {
        assert_eq!(ok("^abc$"), "^abc(?:\\n?\\z)");
        assert_eq!(translate("a$", "m").ok().as_deref(), Some("(?m)a$"));
        assert_eq!(ok("a{2,3}"), "a{2,3}");
        assert_eq!(ok("a{x}"), "a\\{x\\}");
        assert_eq!(ok("[a[]"), "[a\\[]");
        assert_eq!(ok("[]a]"), "[\\]a]");
        assert_eq!(ok("(?<y>\\d+)"), "(?P<y>(?-i:[[:digit:]])+)");
        assert_eq!(ok("(?P<ks>a)"), "(?P<ks>a)");
        assert_eq!(ok("[\\w-]"), "[[:word:]\\-]");
        assert_eq!(ok("[\\d-z]"), "[[:digit:]\\-z]");
        assert_eq!(ok("[+--]"), "[+-\\-]");
        assert_eq!(ok("[\\S]"), "[[:^space:]]");
        assert_eq!(ok("\\bx\\B"), "(?-u:\\b)x(?-u:\\B)");
        assert_eq!(ok("\\Qa.b\\E"), "a\\.b");
        assert_eq!(ok("a+?"), "a+?");
        assert_eq!(ok("[\\x41-\\x{5A}\\t]"), "[A-Z\\x{9}]");
        assert_eq!(ok("\\060\\cA"), "0\\x{1}");
    }

    /// The translation on the engine: Perl classes and boundaries stay ASCII
    /// (PCRE without UCP), caseless matching does not widen them, and `\s`
    /// has the vertical tab.
    #[test]
    fn perl_classes_are_ascii_on_the_engine() {
        let is = |p: &str, flags: &str, s: &str| {
            let re = regex::Regex::new(&translate(p, flags).unwrap_or_else(|e| panic!("{p}: {e}")))
                .unwrap_or_else(|e| panic!("{p}: {e}"));
            re.is_match(s)
        };
        assert!(is("^\\w+$", "", "a_9Z"));
        assert!(!is("\\w", "", "é"));
        assert!(!is("\\w", "i", "\u{212A}"));
        assert!(is("\\W", "i", "\u{212A}"));
        assert!(!is("[\\w]", "", "é"));
        assert!(is("[^\\w]", "", "é"));
        assert!(!is("\\d", "", "\u{663}"));
        assert!(is("[\\D]", "", "\u{663}"));
        assert!(is("^\\s$", "", "\u{b}"));
        assert!(!is("\\s", "", "\u{a0}"));
        assert!(is("\\S", "", "\u{a0}"));
        // `é` is not a word character: "aé" has a boundary between its letters.
        assert!(is("a\\b", "", "aé"));
        assert!(!is("a\\B", "", "aé"));
        assert!(is("(?i)[kK]", "", "\u{212A}"));
        assert!(is("\\x{e9}", "i", "É"));
    }

    #[test]
    fn folds_non_ascii_case() {
        assert_eq!(ci("été"), "(?i)[éÉ]t[éÉ]");
        assert_eq!(ci("k+"), "(?i)[kK\u{212A}]+");
        assert_eq!(ci("ab"), "(?i)ab");
        assert_eq!(ci("\\x{e9}"), "(?i)[éÉ]");
        assert_eq!(ci("[à-âz]"), "(?i)[à-âzÀ-Â]");
        assert_eq!(ci("[^é]"), "(?i)[^éÉ]");
        assert_eq!(ok("é(?i)é(?-i)é"), "é(?i)[éÉ](?-i)é");
        assert_eq!(ok("(é(?i)é)é"), "(é(?i)[éÉ])é");
        assert_eq!(ok("(?i:é)é"), "(?i:[éÉ])é");
        assert_eq!(ci("(?-i:é)é"), "(?i)(?-i:é)[éÉ]");
    }

    #[test]
    fn refuses_what_the_engine_lacks() {
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
            let e = translate(p, "").err();
            assert!(e.is_some_and(|e| e.code == 115), "{p}");
        }
    }
}
