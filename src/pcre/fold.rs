//! Unicode simple case folding for case-insensitive patterns. MongoDB's PCRE
//! in UTF mode folds `é`/`É`, `σ`/`ς`/`Σ`, `k`/`K`/`K`
//! (Kelvin sign): `syntax` writes each such letter as a class of its
//! case variants, so the translation carries PCRE's folding itself (the
//! `regex` engine's own Unicode folding agrees, and the tests check it). The variants come from std's case mappings (no table of our
//! own): a character's fold is its lowercase, or for the few that are their
//! own lowercase (`ς`, `ſ`, `ϑ`...) the lowercase of their uppercase; the
//! characters a fold cannot be reached back from (`K`, `ǅ`, `ς`...) are
//! listed in `UNREACHED`. The tests check every character against the `regex`
//! crate's simple case folding (Unicode's CaseFolding.txt, C and S lines).

fn single(mut it: impl Iterator<Item = char>) -> Option<char> {
    let c = it.next()?;
    it.next().is_none().then_some(c)
}

fn lower(c: char) -> char {
    single(c.to_lowercase()).unwrap_or(c)
}

fn upper(c: char) -> char {
    single(c.to_uppercase()).unwrap_or(c)
}

/// The representative of `c`'s case class (its simple case fold).
fn fold(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    if let Some(&(_, f)) = EXTRA.iter().find(|(from, _)| *from == c) {
        return f;
    }
    let l = lower(c);
    // U+0131 (dotless i) uppercases to `I` but folds only under Turkic rules.
    if l != c || c == '\u{131}' {
        return l;
    }
    lower(upper(c))
}

/// Every character whose fold is neither itself nor the uppercase of its fold
/// (so `variants` cannot reach it from the fold). The tests check the list is
/// complete for the Unicode version std implements.
/// Simple case folds that std's case mappings do not give (Unicode 14 made
/// these pairs of lowercase letters equivalent).
const EXTRA: &[(char, char)] = &[
    ('\u{1FD3}', '\u{390}'),
    ('\u{1FE3}', '\u{3B0}'),
    ('\u{FB05}', '\u{FB06}'),
];

const UNREACHED: &[char] = &[
    '\u{B5}', '\u{17F}', '\u{1C5}', '\u{1C8}', '\u{1CB}', '\u{1F2}', '\u{345}', '\u{3C2}',
    '\u{3D0}', '\u{3D1}', '\u{3D5}', '\u{3D6}', '\u{3F0}', '\u{3F1}', '\u{3F4}', '\u{3F5}',
    '\u{1C80}', '\u{1C81}', '\u{1C82}', '\u{1C83}', '\u{1C84}', '\u{1C85}', '\u{1C86}', '\u{1C87}',
    '\u{1C88}', '\u{1E9B}', '\u{1E9E}', '\u{1F88}', '\u{1F89}', '\u{1F8A}', '\u{1F8B}', '\u{1F8C}',
    '\u{1F8D}', '\u{1F8E}', '\u{1F8F}', '\u{1F98}', '\u{1F99}', '\u{1F9A}', '\u{1F9B}', '\u{1F9C}',
    '\u{1F9D}', '\u{1F9E}', '\u{1F9F}', '\u{1FA8}', '\u{1FA9}', '\u{1FAA}', '\u{1FAB}', '\u{1FAC}',
    '\u{1FAD}', '\u{1FAE}', '\u{1FAF}', '\u{1FBC}', '\u{1FBE}', '\u{1FCC}', '\u{1FD3}', '\u{1FE3}',
    '\u{1FFC}', '\u{2126}', '\u{212A}', '\u{212B}', '\u{FB05}',
];

/// The characters that match `c` case-insensitively, `c` included, in no
/// particular order (at most four).
pub(crate) fn variants(c: char) -> Vec<char> {
    let f = fold(c);
    let mut out = vec![f];
    let u = upper(f);
    if u != f && fold(u) == f {
        out.push(u);
    }
    out.extend(UNREACHED.iter().copied().filter(|&d| fold(d) == f));
    if !out.contains(&c) {
        out.push(c);
    }
    out
}

/// Whether `c` has a case variant outside ASCII (which the engine's own ASCII
/// folding would miss): every non-ASCII cased letter, and `k`, `s` (Kelvin
/// sign, long s).
pub(crate) fn needs_class(c: char) -> bool {
    if c.is_ascii() {
        return matches!(c, 'k' | 'K' | 's' | 'S');
    }
    // `ı` uppercases to `I` but folds only under Turkic rules.
    let cased = fold(c) != c || upper(c) != c && c != '\u{131}';
    // A fold the `upper` route misses (`ß`, `ᾀ`): uppercases to several characters.
    let target = c.to_uppercase().nth(1).is_some() && UNREACHED.iter().any(|&d| fold(d) == c);
    cased || target || UNREACHED.contains(&c)
}

/// The case variants of the characters in `lo..=hi` that are outside the
/// range, as sorted, merged ranges.
pub(crate) fn range_variants(lo: char, hi: char) -> Vec<(char, char)> {
    let mut extra: Vec<char> = Vec::new();
    // No character above U+1E943 has a case variant.
    let top = hi.min('\u{1E943}');
    let mut c = lo;
    while c <= top {
        if needs_class(c) {
            extra.extend(variants(c).into_iter().filter(|&v| v < lo || v > hi));
        }
        match char::from_u32(c as u32 + 1).or(char::from_u32(0xE000)) {
            Some(n) if n > c => c = n,
            _ => break,
        }
    }
    extra.sort_unstable();
    extra.dedup();
    let mut out: Vec<(char, char)> = Vec::new();
    for v in extra {
        match out.last_mut() {
            Some((_, end)) if *end as u32 + 1 == v as u32 => *end = v,
            _ => out.push((v, v)),
        }
    }
    out
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};

    fn reference(c: char) -> Vec<char> {
        let mut class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
        class.case_fold_simple();
        let mut out = Vec::new();
        for r in class.iter() {
            let mut x = r.start();
            loop {
                out.push(x);
                if x == r.end() {
                    break;
                }
                x = char::from_u32(x as u32 + 1).unwrap_or(r.end());
            }
        }
        out
    }

    #[test]
    fn every_character_folds_as_the_regex_crate() {
        let mut bad = Vec::new();
        for x in 0..=0x1FFFFu32 {
            let Some(c) = char::from_u32(x) else { continue };
            let mut ours = variants(c);
            ours.sort_unstable();
            ours.dedup();
            let want = reference(c);
            // Some variant that the engine's ASCII folding misses.
            let missed = want
                .iter()
                .any(|&v| v != c && !(v.is_ascii() && c.is_ascii()));
            // Letters std knows and regex-syntax (an older Unicode) does not.
            let newer = matches!(x, 0xA7CB..=0xA7DC | 0x16EA0..=0x16EDF);
            if (ours != want || needs_class(c) != missed) && !(newer && want == [c]) {
                bad.push(format!("U+{x:04X} {ours:?} {want:?} {}", needs_class(c)));
            }
        }
        assert!(bad.is_empty(), "{bad:#?}");
    }

    #[test]
    fn unreached_is_complete() {
        for x in 0..=0x1FFFFu32 {
            let Some(d) = char::from_u32(x) else { continue };
            let f = fold(d);
            if d != f && d != upper(f) {
                assert!(UNREACHED.contains(&d), "U+{x:04X}");
            }
        }
    }

    #[test]
    fn nothing_above_the_last_cased_letter() {
        for x in 0x1E944..=0x10FFFFu32 {
            assert!(
                char::from_u32(x).is_none_or(|c| !needs_class(c)),
                "U+{x:04X}"
            );
        }
    }

    #[test]
    fn ranges() {
        let k = ('K', 'K');
        let s = ('S', 'S');
        let long_s = ('\u{17F}', '\u{17F}');
        let kelvin = ('\u{212A}', '\u{212A}');
        assert_eq!(range_variants('a', 'z'), vec![k, s, long_s, kelvin]);
        assert_eq!(range_variants('é', 'é'), vec![('É', 'É')]);
        assert_eq!(range_variants('0', '9'), vec![]);
    }
}
