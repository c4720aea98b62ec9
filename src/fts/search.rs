//! A `$text` query bound to its collection's text index: which documents
//! match, and their scores (src/mongo/db/fts/fts_matcher.cpp, the TEXT_OR stage).
use super::query::{parse, ParsedSearch};
use super::spec::TextIndexSpec;
use super::tokenizer::{strip_diacritics, to_lower, Options, Tokenizer};
use super::Language;
use crate::error::{Error, Result};
use bson::{Bson, Document};

/// `$text`'s argument, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct TextArgs {
    pub search: String,
    pub language: Option<Language>,
    pub case_sensitive: bool,
    pub diacritic_sensitive: bool,
}

impl TextArgs {
    /// `{$search, $language, $caseSensitive, $diacriticSensitive}`.
    pub fn parse(arg: &Bson) -> Result<TextArgs> {
        let Bson::Document(d) = arg else {
            return Err(Error::bad_value("$text expects an object"));
        };
        let mut out = TextArgs {
            search: String::new(),
            language: None,
            case_sensitive: false,
            diacritic_sensitive: false,
        };
        let mut has_search = false;
        for (k, v) in d {
            let kind = crate::text::shell::type_name(v);
            match (k.as_str(), v) {
                ("$search", Bson::String(s)) => {
                    out.search = s.clone();
                    has_search = true;
                }
                ("$search", _) => {
                    return Err(Error::type_mismatch(format!(
                        "BSON field '$search' is the wrong type '{kind}', expected type 'string'"
                    )))
                }
                ("$language", Bson::String(s)) => out.language = Some(Language::parse(s)?),
                ("$language", _) => {
                    return Err(Error::type_mismatch(format!(
                        "BSON field '$language' is the wrong type '{kind}', expected type 'string'"
                    )))
                }
                ("$caseSensitive", Bson::Boolean(b)) => out.case_sensitive = *b,
                ("$diacriticSensitive", Bson::Boolean(b)) => out.diacritic_sensitive = *b,
                ("$caseSensitive" | "$diacriticSensitive", _) => {
                    return Err(Error::type_mismatch(format!(
                        "BSON field '{k}' is the wrong type '{kind}', expected type 'bool'"
                    )))
                }
                _ => {
                    return Err(Error::location(
                        40415,
                        format!("BSON field '$text.{k}' is an unknown field."),
                    ))
                }
            }
        }
        if !has_search {
            return Err(Error::location(
                40414,
                "BSON field '$text.$search' is missing but a required field",
            ));
        }
        Ok(out)
    }
}

/// A `$text` query ready to run over one text index.
#[derive(Clone, Debug)]
pub struct Search {
    pub spec: TextIndexSpec,
    pub index_name: String,
    pub key: Document,
    pub parsed: ParsedSearch,
    args: TextArgs,
}

impl Search {
    pub fn new(args: &TextArgs, spec: &TextIndexSpec, index_name: &str, key: &Document) -> Search {
        let lang = args.language.unwrap_or(spec.default_language);
        Search {
            spec: spec.clone(),
            index_name: index_name.to_string(),
            key: key.clone(),
            parsed: parse(
                &args.search,
                lang,
                args.case_sensitive,
                args.diacritic_sensitive,
            ),
            args: args.clone(),
        }
    }

    fn options(&self) -> Options {
        Options {
            filter_stop_words: false,
            case_sensitive: self.args.case_sensitive,
            diacritic_sensitive: self.args.diacritic_sensitive,
        }
    }

    /// How many of the query's index keys the document has (the keys an
    /// index scan would examine for it).
    pub fn keys_hit(&self, doc: &Document) -> Result<usize> {
        let keys = self.spec.score_document(doc)?;
        Ok(self
            .parsed
            .bounds_terms
            .iter()
            .filter(|t| keys.contains_key(*t))
            .count())
    }

    /// The document's score, or `None` when it does not match.
    pub fn score(&self, doc: &Document) -> Result<Option<f64>> {
        // The index lookup: some positive term among the document's keys.
        let keys = self.spec.score_document(doc)?;
        let mut score = 0.0;
        let mut found = false;
        for term in &self.parsed.bounds_terms {
            if let Some(s) = keys.get(term) {
                score += s;
                found = true;
            }
        }
        if !found {
            return Ok(None);
        }
        Ok(self.matches_terms_and_phrases(doc)?.then_some(score))
    }

    /// TEXT_MATCH: the sensitive positive terms, no negated term, every
    /// positive phrase and no negated phrase.
    fn matches_terms_and_phrases(&self, doc: &Document) -> Result<bool> {
        let strings = self.spec.strings(doc)?;
        let opts = self.options();
        let sensitive = self.args.case_sensitive || self.args.diacritic_sensitive;
        let mut positive = !sensitive;
        let mut tokenizers: Vec<(Language, Tokenizer)> = Vec::new();
        for s in &strings {
            if !tokenizers.iter().any(|(l, _)| *l == s.language) {
                tokenizers.push((s.language, Tokenizer::new(s.language)));
            }
            let Some((_, tok)) = tokenizers.iter().find(|(l, _)| *l == s.language) else {
                continue;
            };
            for term in tok.terms(s.text, opts) {
                if self.parsed.negated_terms.contains(&term) {
                    return Ok(false);
                }
                positive = positive || self.parsed.positive_terms.contains(&term);
            }
        }
        if !positive {
            return Ok(false);
        }
        let phrase_in = |phrase: &str| {
            strings
                .iter()
                .any(|s| self.phrase_matches(phrase, s.text, s.language))
        };
        Ok(self.parsed.positive_phrases.iter().all(|p| phrase_in(p))
            && !self.parsed.negated_phrases.iter().any(|p| phrase_in(p)))
    }

    /// A phrase is a substring of the text, folded as the query asks.
    fn phrase_matches(&self, phrase: &str, text: &str, lang: Language) -> bool {
        let fold = |s: &str| {
            let s = if self.args.case_sensitive {
                s.to_string()
            } else {
                to_lower(s, lang)
            };
            if self.args.diacritic_sensitive {
                s
            } else {
                strip_diacritics(&s)
            }
        };
        fold(text).contains(&fold(phrase))
    }

    /// `parsedTextQuery` as explain shows it.
    pub fn parsed_query(&self) -> Document {
        let strings = |v: &mut dyn Iterator<Item = &String>| {
            Bson::Array(v.map(|s| Bson::String(s.clone())).collect())
        };
        let mut d = Document::new();
        d.insert("terms", strings(&mut self.parsed.positive_terms.iter()));
        d.insert(
            "negatedTerms",
            strings(&mut self.parsed.negated_terms.iter()),
        );
        d.insert("phrases", strings(&mut self.parsed.positive_phrases.iter()));
        d.insert(
            "negatedPhrases",
            strings(&mut self.parsed.negated_phrases.iter()),
        );
        d
    }
}
