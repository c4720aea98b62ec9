//! Patterns that are a plain string, maybe anchored (`/^123_/`, `/abc/i`,
//! `/789$/`): matched with string comparisons, without building a regex
//! search: such patterns are the common case (prefix searches, LIKE-style
//! matches) and a comparison beats even the engine's literal prefilter.

/// Where the literal must appear.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Anchor {
    Anywhere,
    Start,
    End,
    Whole,
}

#[derive(Clone, Debug)]
pub(crate) struct Literal {
    text: String,
    anchor: Anchor,
    /// The `i` option (the text is then ASCII).
    fold: bool,
    /// Under `i`, `k` and `s` also match U+212A and U+017F: a haystack that is
    /// not ASCII goes to the regex.
    fold_needs_ascii: bool,
}

/// Whether `c` is plain in PCRE (outside a class, without the x option).
fn plain(c: char) -> bool {
    !matches!(
        c,
        '\\' | '^' | '$' | '.' | '|' | '?' | '*' | '+' | '(' | ')' | '[' | ']' | '{' | '}'
    )
}

impl Literal {
    /// The literal a pattern stands for, if it is one. `options` are valid.
    pub(crate) fn of(pattern: &str, options: &str) -> Option<Literal> {
        // m changes what the anchors mean, x what white space means.
        if options.contains('x') {
            return None;
        }
        let multiline = options.contains('m');
        let fold = options.contains('i');
        let (start, rest) = match pattern.strip_prefix('^') {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        let mut text = String::with_capacity(rest.len());
        let mut chars = rest.chars();
        let mut end = false;
        while let Some(c) = chars.next() {
            match c {
                '$' if chars.as_str().is_empty() => end = true,
                // An escaped punctuation character is that character.
                '\\' => match chars.next() {
                    Some(e) if e.is_ascii_punctuation() => text.push(e),
                    _ => return None,
                },
                c if plain(c) => text.push(c),
                _ => return None,
            }
        }
        if (multiline && (start || end)) || (fold && !text.is_ascii()) {
            return None;
        }
        let anchor = match (start, end) {
            (false, false) => Anchor::Anywhere,
            (true, false) => Anchor::Start,
            (false, true) => Anchor::End,
            (true, true) => Anchor::Whole,
        };
        let fold_needs_ascii = fold && text.bytes().any(|b| matches!(b, b'k' | b'K' | b's' | b'S'));
        Some(Literal {
            text,
            anchor,
            fold,
            fold_needs_ascii,
        })
    }

    /// Whether `s` matches, or None when the regex must decide.
    pub(crate) fn is_match(&self, s: &str) -> Option<bool> {
        if self.fold_needs_ascii && !s.is_ascii() {
            return None;
        }
        let (h, t) = (s.as_bytes(), self.text.as_bytes());
        let eq = |a: &[u8]| {
            if self.fold {
                a.eq_ignore_ascii_case(t)
            } else {
                a == t
            }
        };
        // `$` also matches before a final newline.
        let trimmed = h.strip_suffix(b"\n").unwrap_or(h);
        Some(match self.anchor {
            Anchor::Start => h.get(..t.len()).is_some_and(eq),
            Anchor::Whole => eq(h) || eq(trimmed),
            Anchor::End => {
                let ends = |x: &[u8]| x.len() >= t.len() && eq(&x[x.len() - t.len()..]);
                ends(h) || ends(trimmed)
            }
            Anchor::Anywhere if !self.fold => s.contains(self.text.as_str()),
            Anchor::Anywhere => t.is_empty() || h.windows(t.len()).any(eq),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, o: &str, s: &str) -> Option<bool> {
        Literal::of(p, o).and_then(|l| l.is_match(s))
    }

    #[test]
    fn literals() {
        assert_eq!(m("^123_", "", "123_9"), Some(true));
        assert_eq!(m("^123_", "", "0123_9"), Some(false));
        assert_eq!(m("23_", "", "0123_9"), Some(true));
        assert_eq!(m("789$", "", "a789\n"), Some(true));
        assert_eq!(m("789$", "", "a789\n\n"), Some(false));
        assert_eq!(m("^ab$", "", "ab\n"), Some(true));
        assert_eq!(m("^ab$", "", "abab"), Some(false));
        assert_eq!(m("^abc", "i", "ABCD"), Some(true));
        assert_eq!(m("bc", "i", "éBC"), Some(true));
        assert_eq!(m("a\\.b", "", "a.b"), Some(true));
        assert_eq!(m("a\\.b", "", "axb"), Some(false));
        assert_eq!(m("", "", "x"), Some(true));
        assert_eq!(m("", "i", "x"), Some(true));
    }

    #[test]
    fn not_literals() {
        for (p, o) in [
            ("a.b", ""),
            ("a|b", ""),
            ("^a", "m"),
            ("a b", "x"),
            ("é", "i"),
            ("\\d", ""),
        ] {
            assert!(Literal::of(p, o).is_none(), "{p}");
        }
        // Kelvin sign: the regex decides.
        assert_eq!(m("k", "i", "\u{212A}"), None);
        assert_eq!(m("k", "i", "K"), Some(true));
    }
}
