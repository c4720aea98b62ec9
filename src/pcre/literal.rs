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

/// A string every match of `pattern` contains, if one is plain to see: the
/// longest run of literal characters at the top level of a pattern without
/// `|` (a character made optional by `?`, `*` or `{0,…}` is left out).
/// A haystack without it cannot match, whatever the regex engine would
/// spend finding that out (`/a{0,1000}b/` over a megabyte of `a`).
pub(crate) fn required(pattern: &str, options: &str) -> Option<String> {
    // x changes what white space means; under i letters fold.
    // Inline options (`(?i)`) change the rest of the pattern.
    if options.contains('x') || pattern.contains("\\Q") || pattern.contains("(?") {
        return None;
    }
    let fold = options.contains('i');
    let chars: Vec<char> = pattern.chars().collect();
    let (mut best, mut run) = (String::new(), String::new());
    let mut depth = 0usize;
    let mut i = 0;
    let end_run = |run: &mut String, best: &mut String| {
        if run.chars().count() > best.chars().count() {
            *best = run.clone();
        }
        run.clear();
    };
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            '|' if depth == 0 => return None,
            '(' => {
                depth += 1;
                end_run(&mut run, &mut best);
            }
            ')' => {
                depth = depth.checked_sub(1)?;
                end_run(&mut run, &mut best);
            }
            '[' => {
                // Skip the class: `]` first is literal, escapes skip a character.
                end_run(&mut run, &mut best);
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                loop {
                    match chars.get(i)? {
                        '\\' => i += 2,
                        ']' => {
                            i += 1;
                            break;
                        }
                        _ => i += 1,
                    }
                }
            }
            '\\' => {
                i += 1;
                end_run(&mut run, &mut best);
            }
            '?' | '*' => {
                run.pop();
                end_run(&mut run, &mut best);
            }
            '+' => end_run(&mut run, &mut best),
            '{' => {
                let close = chars.get(i..)?.iter().position(|&c| c == '}')?;
                let inner: String = chars.get(i..i + close)?.iter().collect();
                let min = inner.split(',').next()?;
                if min.is_empty() || !inner.chars().all(|c| c.is_ascii_digit() || c == ',') {
                    return None;
                }
                if min.parse::<u64>().ok()? == 0 {
                    run.pop();
                }
                i += close + 1;
                end_run(&mut run, &mut best);
            }
            '.' | '^' | '$' => end_run(&mut run, &mut best),
            c if depth == 0 && !(fold && c.is_alphabetic()) && !c.is_whitespace() => run.push(c),
            _ => end_run(&mut run, &mut best),
        }
    }
    end_run(&mut run, &mut best);
    (!best.is_empty()).then_some(best)
}

#[cfg(test)]
mod required_tests {
    use super::required;

    #[test]
    fn required_literals() {
        assert_eq!(required("a{0,1000}b", ""), Some("b".into()));
        assert_eq!(required("abc?d", ""), Some("ab".into()));
        assert_eq!(required("x(abc)*yz", ""), Some("yz".into()));
        assert_eq!(required("a|b", ""), None);
        assert_eq!(required("[ab]cd\\d+e", ""), Some("cd".into()));
        assert_eq!(required("ab", "i"), None);
        assert_eq!(required("a b", "x"), None);
        assert_eq!(required("a{2}bc", ""), Some("bc".into()));
        assert_eq!(required("(a|b)", ""), None);
        assert_eq!(required("a+b", ""), Some("a".into()));
        assert_eq!(required("(?i)abc", ""), None);
    }
}

/// The most characters a match of `pattern` can span, if bounded and plain
/// to see (no `*`, `+`, `{n,}`, no escapes beyond one character, no inline
/// options).
pub(crate) fn max_chars(pattern: &str) -> Option<usize> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let n = seq_max(&chars, &mut i, 0)?;
    (i == chars.len()).then_some(n)
}

/// The longest match of the alternatives from `i` to the closing `)` (or the
/// end), `depth` groups deep.
fn seq_max(chars: &[char], i: &mut usize, depth: usize) -> Option<usize> {
    if depth > 50 {
        return None;
    }
    let (mut best, mut cur) = (0usize, 0usize);
    let mut last = 0usize;
    while let Some(&c) = chars.get(*i) {
        *i += 1;
        let item = match c {
            '|' => {
                best = best.max(cur);
                cur = 0;
                last = 0;
                continue;
            }
            ')' if depth > 0 => {
                *i -= 1;
                break;
            }
            ')' => return None,
            '(' => {
                if chars.get(*i) == Some(&'?') {
                    return None;
                }
                let inner = seq_max(chars, i, depth + 1)?;
                if chars.get(*i) != Some(&')') {
                    return None;
                }
                *i += 1;
                inner
            }
            '[' => {
                if chars.get(*i) == Some(&'^') {
                    *i += 1;
                }
                if chars.get(*i) == Some(&']') {
                    *i += 1;
                }
                loop {
                    match chars.get(*i)? {
                        '\\' => *i += 2,
                        '[' => return None,
                        ']' => {
                            *i += 1;
                            break;
                        }
                        _ => *i += 1,
                    }
                }
                1
            }
            '\\' => {
                let e = *chars.get(*i)?;
                *i += 1;
                if e.is_ascii_alphanumeric()
                    && !matches!(e, 'd' | 'D' | 'w' | 'W' | 's' | 'S' | 'n' | 't' | 'r')
                {
                    return None;
                }
                1
            }
            '?' => {
                // `x?` keeps x's length; a lazy `??` or `*?` changes nothing.
                continue;
            }
            '*' | '+' => return None,
            '{' => {
                let close = chars.get(*i..)?.iter().position(|&c| c == '}')?;
                let inner: String = chars.get(*i..*i + close)?.iter().collect();
                *i += close + 1;
                let max = match inner.split_once(',') {
                    None => inner.parse::<usize>().ok()?,
                    Some((_, "")) => return None,
                    Some((_, hi)) => hi.parse::<usize>().ok()?,
                };
                cur = cur.checked_sub(last)?.checked_add(last.checked_mul(max)?)?;
                last = 0;
                continue;
            }
            '^' | '$' => return None,
            _ => 1,
        };
        cur = cur.checked_add(item)?;
        last = item;
    }
    Some(best.max(cur))
}

/// Match only near each occurrence of a required string: a match contains
/// one and spans at most `max_bytes`, so the regex runs on those windows
/// (merged) instead of the whole haystack. Patterns with anchors or word
/// boundaries are not windowed (`max_chars` refuses them).
pub(crate) fn windowed_match(
    s: &str,
    required: &str,
    max_bytes: usize,
    is_match: impl Fn(&str) -> bool,
) -> bool {
    let floor = |mut at: usize| {
        while at > 0 && !s.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let ceil = |mut at: usize| {
        at = at.min(s.len());
        while at < s.len() && !s.is_char_boundary(at) {
            at += 1;
        }
        at
    };
    let mut window: Option<(usize, usize)> = None;
    for (at, _) in s.match_indices(required) {
        let start = floor(at.saturating_sub(max_bytes));
        let end = ceil(at + required.len() + max_bytes);
        window = match window {
            Some((ws, we)) if start <= we => Some((ws, we.max(end))),
            Some((ws, we)) => {
                if s.get(ws..we).is_some_and(&is_match) {
                    return true;
                }
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    window.is_some_and(|(ws, we)| s.get(ws..we).is_some_and(&is_match))
}

#[cfg(test)]
mod window_tests {
    use super::{max_chars, windowed_match};

    #[test]
    fn bounded_lengths() {
        assert_eq!(max_chars("a{0,1000}b"), Some(1001));
        assert_eq!(max_chars("ab?c"), Some(3));
        assert_eq!(max_chars("(ab|cde)f"), Some(4));
        assert_eq!(max_chars("[a-z]{2,3}x"), Some(4));
        assert_eq!(max_chars("a*b"), None);
        assert_eq!(max_chars("^ab"), None);
        assert_eq!(max_chars("a\\bb"), None);
        assert_eq!(max_chars("(?i)ab"), None);
    }

    #[test]
    fn windows_find_what_the_whole_search_finds() {
        let hay = format!("{}b{}", "a".repeat(5000), "c".repeat(5000));
        let re = regex::Regex::new("a{0,10}b").expect("valid");
        assert!(windowed_match(&hay, "b", 11, |w| re.is_match(w)));
        let re = regex::Regex::new("ca{0,10}b").expect("valid");
        assert!(!windowed_match(&hay, "b", 12, |w| re.is_match(w)));
        assert!(!windowed_match("aaaa", "b", 12, |w| re.is_match(w)));
    }

    /// The prefilter and the windows answer as the whole search does.
    #[test]
    fn windowed_answers_equal_whole_answers() {
        let patterns = [
            "a{0,5}b",
            "xa{2}b?c",
            "(ab|cd)e",
            "[abc]{1,3}dd",
            "d.{0,4}e",
            "é{1,2}ü",
            "b\\d{2}",
        ];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let alphabet = ['a', 'b', 'c', 'd', 'e', 'x', 'é', 'ü', '1', '2'];
        for p in patterns {
            let re = regex::Regex::new(p).expect("valid");
            let req = super::required(p, "");
            let max = max_chars(p).map(|n| n * 4);
            for _ in 0..400 {
                let len = next() % 40;
                let hay: String = (0..len)
                    .map(|_| alphabet[next() % alphabet.len()])
                    .collect();
                let whole = re.is_match(&hay);
                if let (Some(r), Some(m)) = (&req, max) {
                    assert_eq!(
                        windowed_match(&hay, r, m, |w| re.is_match(w)),
                        whole,
                        "{p} {hay}"
                    );
                }
                if let Some(r) = &req {
                    if !hay.contains(r.as_str()) {
                        assert!(!whole, "{p} {hay}");
                    }
                }
            }
        }
    }
}
