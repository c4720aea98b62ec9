//! Text search as MongoDB's fts code does it (src/mongo/db/fts/ in the
//! server): the languages, the tokenizer (Unicode delimiters, stop words,
//! Snowball stemming, diacritic folding for text index version 3), the
//! `$search` grammar, text index specifications and the scores of
//! `{$meta: "textScore"}`.
//! See https://www.mongodb.com/docs/manual/core/text-search/.
mod language;
mod query;
pub mod search;
pub mod spec;
mod stop_words;
mod tables;
mod tokenizer;

pub use language::Language;
pub use search::{Search, TextArgs};
pub use spec::{fix_spec, is_text_pattern, TextIndexSpec};
pub use stop_words::{load as load_stop_words, wanted as stop_words_wanted};

/// The field under which a matched document carries its text score between
/// stages (a NUL cannot appear in a stored field name). Removed before any
/// document leaves a find or a pipeline.
pub const SCORE_FIELD: &str = "\u{0}textScore";

/// The `$meta` names MongoDB knows besides `textScore`.
pub const META_NAMES: &[&str] = &[
    "randVal",
    "searchScore",
    "searchHighlights",
    "searchScoreDetails",
    "searchSequenceToken",
    "indexKey",
    "recordId",
    "sortKey",
    "geoNearDistance",
    "geoNearPoint",
    "vectorSearchScore",
    "score",
    "scoreDetails",
];

/// `{$meta: "textScore"}` needs a `$text` query.
pub fn score_unavailable() -> crate::error::Error {
    crate::error::Error::location(
        40218,
        "query requires text score metadata, but it is not available",
    )
}

/// Does a stage ask for `{$meta: "textScore"}` anywhere (nesting is bounded by the reader)?
pub fn asks_text_score(v: &bson::Bson) -> bool {
    match v {
        bson::Bson::Document(d) => {
            matches!(d.get("$meta"), Some(bson::Bson::String(s)) if s == "textScore")
                || d.values().any(asks_text_score)
        }
        bson::Bson::Array(items) => items.iter().any(asks_text_score),
        _ => false,
    }
}
