//! Text split into terms as the server's Unicode tokenizer (text index
//! version 3) splits it: words between delimiters, lower-cased, stop words
//! left out, stemmed, then stripped of diacritics.
use super::tables::{BASES, DELIMITERS, MARKS};
use super::{stop_words, Language};
use rust_stemmers::Stemmer;

#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    pub filter_stop_words: bool,
    pub case_sensitive: bool,
    pub diacritic_sensitive: bool,
}

fn in_ranges(ranges: &[(u32, u32)], cp: u32) -> bool {
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Is `c` a word delimiter? In English the apostrophe is not (`don't` is one word).
pub(super) fn is_delimiter(c: char, lang: Language) -> bool {
    if c == '\'' && lang == Language::English {
        return false;
    }
    in_ranges(DELIMITERS, c as u32)
}

/// Lower case; Turkish folds `I` to `ı` and `İ` to `i`.
pub(super) fn to_lower(word: &str, lang: Language) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        match c {
            'I' if lang == Language::Turkish => out.push('ı'),
            'İ' if lang == Language::Turkish => out.push('i'),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// The text without its diacritics (`é` → `e`, combining marks removed).
pub(super) fn strip_diacritics(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        let cp = c as u32;
        if cp < 0x80 && !matches!(c, '^' | '`') {
            out.push(c);
        } else if in_ranges(MARKS, cp) {
            continue;
        } else if let Ok(i) = BASES.binary_search_by_key(&cp, |&(from, _)| from) {
            out.extend(BASES.get(i).and_then(|&(_, to)| char::from_u32(to)));
        } else {
            out.push(c);
        }
    }
    out
}

/// The words of `text` (slices between delimiters).
pub(super) fn words(text: &str, lang: Language) -> impl Iterator<Item = &str> {
    text.split(move |c| is_delimiter(c, lang))
        .filter(|w| !w.is_empty())
}

/// A language's tokenizer: its stemmer is built once.
pub struct Tokenizer {
    lang: Language,
    stemmer: Option<Stemmer>,
}

impl Tokenizer {
    pub fn new(lang: Language) -> Tokenizer {
        Tokenizer {
            lang,
            stemmer: lang.stemmer(),
        }
    }

    /// The terms of `text`, in order (repeats kept).
    pub fn terms(&self, text: &str, opts: Options) -> Vec<String> {
        let mut out = Vec::new();
        for word in words(text, self.lang) {
            let lower = to_lower(word, self.lang);
            if opts.filter_stop_words && stop_words::is_stop_word(self.lang, &lower) {
                continue;
            }
            let base = if opts.case_sensitive {
                word.to_string()
            } else {
                lower
            };
            // The stemmer is diacritic sensitive: stem first, then strip.
            let stemmed = match &self.stemmer {
                Some(s) => s.stem(&base).into_owned(),
                None => base,
            };
            out.push(if opts.diacritic_sensitive {
                stemmed
            } else {
                strip_diacritics(&stemmed)
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str, lang: Language) -> Vec<String> {
        let opts = Options {
            filter_stop_words: true,
            ..Options::default()
        };
        Tokenizer::new(lang).terms(text, opts)
    }

    #[test]
    fn splits_stems_and_folds() {
        assert_eq!(
            terms("Coffee and cakes!", Language::English),
            ["coffe", "cake"]
        );
        assert_eq!(
            terms("don't stop-words", Language::English),
            ["stop", "word"]
        );
        assert_eq!(terms("don't", Language::None), ["don", "t"]);
        assert_eq!(terms("Café CRÈME", Language::None), ["cafe", "creme"]);
        assert_eq!(terms("under_score", Language::None), ["under_score"]);
        assert_eq!(to_lower("IŞIK", Language::Turkish), "ışık");
        assert_eq!(strip_diacritics("ışık"), "ısık");
    }

    #[test]
    fn delimiters_follow_unicode_properties() {
        for c in [' ', '\t', '-', '.', ',', '"', '¿', '。', '\u{2014}'] {
            assert!(is_delimiter(c, Language::French), "{c:?}");
        }
        for c in ['a', '_', 'é', '1', '中'] {
            assert!(!is_delimiter(c, Language::French), "{c:?}");
        }
        assert!(is_delimiter('\'', Language::French));
        assert!(!is_delimiter('\'', Language::English));
    }
}
