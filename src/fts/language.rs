//! The languages of text search (text index version 3): MongoDB's names and
//! two-letter codes, each with its Snowball stemmer and stop words.
//! See https://www.mongodb.com/docs/manual/reference/text-search-languages/.
use crate::error::{Error, Result};
use rust_stemmers::Algorithm;

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

    pub(super) fn algorithm(self) -> Option<Algorithm> {
        Some(match self {
            Language::None => return None,
            Language::Danish => Algorithm::Danish,
            Language::Dutch => Algorithm::Dutch,
            Language::English => Algorithm::English,
            Language::Finnish => Algorithm::Finnish,
            Language::French => Algorithm::French,
            Language::German => Algorithm::German,
            Language::Hungarian => Algorithm::Hungarian,
            Language::Italian => Algorithm::Italian,
            Language::Norwegian => Algorithm::Norwegian,
            Language::Portuguese => Algorithm::Portuguese,
            Language::Romanian => Algorithm::Romanian,
            Language::Russian => Algorithm::Russian,
            Language::Spanish => Algorithm::Spanish,
            Language::Swedish => Algorithm::Swedish,
            Language::Turkish => Algorithm::Turkish,
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
