//! The stop words text search leaves out, per language: the lists MongoDB
//! ships (src/mongo/db/fts/stop_words_*.txt, from the Snowball project's
//! lists). They are lower case and keep their diacritics; they are kept as
//! the server has them, mistakes included (its Turkish list is in the wrong
//! 8-bit encoding, its Russian list lacks the letters ч and п).
//!
//! The page's wasm carries none: the worker fetches them all (`stop_words.txt`,
//! each list after a `## language` line, written by www/build.mjs) when a run
//! first asks for one ([`wanted`], [`load`]), as it does the time zones.
use super::Language;
use std::cell::Cell;
use std::collections::HashSet;
use std::sync::OnceLock;

type Sets = Vec<(Language, HashSet<&'static str>)>;

#[cfg(not(target_arch = "wasm32"))]
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

fn words(list: &'static str) -> HashSet<&'static str> {
    list.lines().filter(|w| !w.is_empty()).collect()
}

static LOADED: OnceLock<Sets> = OnceLock::new();

thread_local! {
    static WANTED: Cell<bool> = const { Cell::new(false) };
}

/// The lists: loaded, or compiled in (not in the page's wasm).
fn sets() -> Option<&'static Sets> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        static SETS: OnceLock<Sets> = OnceLock::new();
        Some(LOADED.get().unwrap_or_else(|| {
            SETS.get_or_init(|| {
                super::language::ALL
                    .iter()
                    .map(|&l| (l, words(list(l))))
                    .collect()
            })
        }))
    }
    #[cfg(target_arch = "wasm32")]
    {
        LOADED.get()
    }
}

/// Whether a run asked for stop words that are not loaded, since the last call.
pub fn wanted() -> bool {
    WANTED.with(|w| w.replace(false))
}

/// Load every list from `stop_words.txt`'s text (once). False for a text
/// that names a language the engine does not know or lacks one of its lists.
pub fn load(text: String) -> bool {
    if LOADED.get().is_some() {
        return true;
    }
    let text: &'static str = Box::leak(text.into_boxed_str());
    let mut sets = Sets::new();
    for section in text.split("## ").skip(1) {
        let (name, list) = section.split_once('\n').unwrap_or((section, ""));
        let Some(&lang) = super::language::ALL
            .iter()
            .find(|l| l.name() == name.trim())
        else {
            return false;
        };
        sets.push((lang, words(list)));
    }
    sets.len() >= 14 && LOADED.set(sets).is_ok()
}

/// Is `word` (lower case, diacritics kept) a stop word of `lang`?
pub(super) fn is_stop_word(lang: Language, word: &str) -> bool {
    if matches!(lang, Language::None | Language::Romanian) {
        return false;
    }
    let Some(sets) = sets() else {
        WANTED.with(|w| w.set(true));
        return false;
    };
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

    /// The page loads the lists as www/build.mjs writes them: the same words.
    #[test]
    fn loads_the_lists_as_the_page_fetches_them() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/fts/stop_words");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .expect("stop_words/")
            .map(|e| e.expect("entry").path())
            .collect();
        files.sort();
        let mut text = String::new();
        for f in &files {
            let name = f.file_stem().and_then(|s| s.to_str()).expect("name");
            let list = std::fs::read_to_string(f).expect("list");
            text.push_str(&format!("## {name}\n{list}\n"));
        }
        let compiled: Vec<_> = crate::fts::language::ALL
            .iter()
            .map(|&l| (l, words(list(l))))
            .filter(|(_, w)| !w.is_empty())
            .collect();
        assert!(load(text));
        let loaded = LOADED.get().expect("loaded");
        assert_eq!(loaded.len(), compiled.len());
        for (lang, set) in &compiled {
            let theirs = loaded.iter().find(|(l, _)| l == lang).map(|(_, s)| s);
            assert_eq!(theirs, Some(set), "{lang:?}");
        }
        assert!(!wanted());
    }
}
