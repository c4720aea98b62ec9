//! The languages of text search (text index version 3): MongoDB's names and
//! two-letter codes, each with its Snowball stemmer and stop words.
//! See https://www.mongodb.com/docs/manual/reference/text-search-languages/.
use crate::error::{Error, Result};
use rust_stemmers::{Algorithm, Stemmer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    None,
    Danish,
    Dutch,
    English,
    Finnish,
    French,
    German,
    Hungarian,
    Italian,
    Norwegian,
    Portuguese,
    Romanian,
    Russian,
    Spanish,
    Swedish,
    Turkish,
}

/// Name, two-letter code, language.
const NAMES: &[(&str, &str, Language)] = &[
    ("none", "none", Language::None),
    ("danish", "da", Language::Danish),
    ("dutch", "nl", Language::Dutch),
    ("english", "en", Language::English),
    ("finnish", "fi", Language::Finnish),
    ("french", "fr", Language::French),
    ("german", "de", Language::German),
    ("hungarian", "hu", Language::Hungarian),
    ("italian", "it", Language::Italian),
    ("norwegian", "nb", Language::Norwegian),
    ("portuguese", "pt", Language::Portuguese),
    ("romanian", "ro", Language::Romanian),
    ("russian", "ru", Language::Russian),
    ("spanish", "es", Language::Spanish),
    ("swedish", "sv", Language::Swedish),
    ("turkish", "tr", Language::Turkish),
];

/// MongoDB Enterprise's languages (Basis Technology's linguistics), which the
/// community server and the playground do not have.
const ENTERPRISE: &[&str] = &[
    "arabic",
    "ara",
    "dari",
    "prs",
    "iranian persian",
    "pes",
    "urdu",
    "urd",
    "simplified chinese",
    "zhs",
    "hans",
    "traditional chinese",
    "zht",
    "hant",
    "pashto",
    "pus",
    "persian",
    "fas",
    "hebrew",
    "heb",
    "korean",
    "kor",
    "japanese",
    "jpn",
];

impl Language {
    /// A language by name or code, case-insensitively, as the server resolves it.
    pub fn parse(name: &str) -> Result<Language> {
        let lower = name.to_lowercase();
        if let Some((_, _, l)) = NAMES.iter().find(|(n, c, _)| *n == lower || *c == lower) {
            return Ok(*l);
        }
        if ENTERPRISE.contains(&lower.as_str()) {
            return Err(Error::not_supported(format!(
                "the text search language \"{name}\" (MongoDB Enterprise only)"
            )));
        }
        Err(Error::bad_value(format!(
            "unsupported language: \"{name}\" for text index version 3"
        )))
    }

    /// The canonical name (`english`).
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, _, l)| *l == self)
            .map_or("none", |(n, _, _)| n)
    }

    /// The language's Snowball stemmer. Each arm names its algorithm, so the
    /// linker keeps only these fifteen of the crate's eighteen.
    pub(super) fn stemmer(self) -> Option<Stemmer> {
        Some(match self {
            Language::None => return None,
            Language::Danish => Stemmer::create(Algorithm::Danish),
            Language::Dutch => Stemmer::create(Algorithm::Dutch),
            Language::English => Stemmer::create(Algorithm::English),
            Language::Finnish => Stemmer::create(Algorithm::Finnish),
            Language::French => Stemmer::create(Algorithm::French),
            Language::German => Stemmer::create(Algorithm::German),
            Language::Hungarian => Stemmer::create(Algorithm::Hungarian),
            Language::Italian => Stemmer::create(Algorithm::Italian),
            Language::Norwegian => Stemmer::create(Algorithm::Norwegian),
            Language::Portuguese => Stemmer::create(Algorithm::Portuguese),
            Language::Romanian => Stemmer::create(Algorithm::Romanian),
            Language::Russian => Stemmer::create(Algorithm::Russian),
            Language::Spanish => Stemmer::create(Algorithm::Spanish),
            Language::Swedish => Stemmer::create(Algorithm::Swedish),
            Language::Turkish => Stemmer::create(Algorithm::Turkish),
        })
    }
}

pub(super) const ALL: [Language; 16] = [
    Language::None,
    Language::Danish,
    Language::Dutch,
    Language::English,
    Language::Finnish,
    Language::French,
    Language::German,
    Language::Hungarian,
    Language::Italian,
    Language::Norwegian,
    Language::Portuguese,
    Language::Romanian,
    Language::Russian,
    Language::Spanish,
    Language::Swedish,
    Language::Turkish,
];
