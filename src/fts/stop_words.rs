//! The stop words text search leaves out, per language: the lists MongoDB
//! ships (src/mongo/db/fts/stop_words_*.txt, from the Snowball project's
//! lists). They are lower case and keep their diacritics.
use super::Language;
use std::collections::HashSet;
use std::sync::OnceLock;

fn list(lang: Language) -> &'static str {
    match lang {
        Language::English => include_str!("stop_words/english.txt"),
        _ => "",
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
