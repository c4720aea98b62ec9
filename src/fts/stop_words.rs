//! The stop words text search leaves out, per language: the lists MongoDB
//! ships (src/mongo/db/fts/stop_words_*.txt, from the Snowball project's
//! lists). They are lower case and keep their diacritics; they are kept as
//! the server has them, mistakes included (its Turkish list is in the wrong
//! 8-bit encoding, its Russian list lacks the letters ч and п).
use super::Language;
use std::collections::HashSet;
use std::sync::OnceLock;

fn list(lang: Language) -> &'static str {
    match lang {
        Language::Danish => include_str!("stop_words/danish.txt"),
        Language::Dutch => include_str!("stop_words/dutch.txt"),
        Language::English => include_str!("stop_words/english.txt"),
        Language::Finnish => include_str!("stop_words/finnish.txt"),
        Language::French => include_str!("stop_words/french.txt"),
        Language::German => include_str!("stop_words/german.txt"),
        Language::Hungarian => include_str!("stop_words/hungarian.txt"),
        Language::Italian => include_str!("stop_words/italian.txt"),
        Language::Norwegian => include_str!("stop_words/norwegian.txt"),
        Language::Portuguese => include_str!("stop_words/portuguese.txt"),
        Language::Russian => include_str!("stop_words/russian.txt"),
        Language::Spanish => include_str!("stop_words/spanish.txt"),
        Language::Swedish => include_str!("stop_words/swedish.txt"),
        Language::Turkish => include_str!("stop_words/turkish.txt"),
        // MongoDB ships no Romanian list; "none" has no stop words.
        Language::Romanian | Language::None => "",
    }
}

/// Is `word` (lower case, diacritics kept) a stop word of `lang`?
pub(super) fn is_stop_word(lang: Language, word: &str) -> bool {
    static SETS: OnceLock<Vec<(Language, HashSet<&'static str>)>> = OnceLock::new();
    let sets = SETS.get_or_init(|| {
        super::language::ALL
            .iter()
            .map(|&l| (l, list(l).lines().filter(|w| !w.is_empty()).collect()))
            .collect()
    });
    sets.iter()
        .find(|(l, _)| *l == lang)
        .is_some_and(|(_, set)| set.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_its_list() {
        for (lang, word) in [
            (Language::English, "the"),
            (Language::Spanish, "el"),
            (Language::French, "les"),
            (Language::German, "und"),
            (Language::Portuguese, "não"),
            (Language::Russian, "и"),
            (Language::Danish, "og"),
            (Language::Dutch, "het"),
            (Language::Finnish, "ja"),
            (Language::Hungarian, "és"),
            (Language::Italian, "il"),
            (Language::Norwegian, "og"),
            (Language::Swedish, "och"),
            (Language::Turkish, "ve"),
        ] {
            assert!(is_stop_word(lang, word), "{lang:?} {word}");
        }
        assert!(!is_stop_word(Language::None, "the"));
        assert!(!is_stop_word(Language::Spanish, "the"));
    }
}
