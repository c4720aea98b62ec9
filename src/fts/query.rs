//! The `$search` string: terms are OR'ed, `"phrases"` AND'ed, and `-` negates
//! the term or phrase it touches (src/mongo/db/fts/fts_query_impl.cpp).
//! See https://www.mongodb.com/docs/manual/reference/operator/query/text/.
use super::tokenizer::{Options, Tokenizer};
use super::Language;
use std::collections::BTreeSet;

/// A parsed search: terms as the index holds them, and the phrases as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParsedSearch {
    /// The terms looked up in the index (lower case, diacritics stripped).
    pub bounds_terms: BTreeSet<String>,
    /// The terms a document must have one of (as sensitive as the query asks).
    pub positive_terms: BTreeSet<String>,
    pub negated_terms: BTreeSet<String>,
    pub positive_phrases: Vec<String>,
    pub negated_phrases: Vec<String>,
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{0B}' | '\u{0C}')
}

/// The query's tokens: runs of text, and the delimiters `-` and `"`, each
/// with its byte offset and whether white space came before it.
fn tokens(raw: &str) -> Vec<(bool, &str, usize, bool)> {
    let mut out = Vec::new();
    let mut previous_space = true;
    let mut rest = raw.char_indices().peekable();
    while let Some((start, c)) = rest.next() {
        if is_space(c) {
            previous_space = true;
            continue;
        }
        if c == '-' || c == '"' {
            out.push((false, &raw[start..start + 1], start, previous_space));
        } else {
            let mut end = start + c.len_utf8();
            while let Some(&(i, n)) = rest.peek() {
                if is_space(n) || n == '-' || n == '"' {
                    break;
                }
                end = i + n.len_utf8();
                rest.next();
            }
            out.push((true, &raw[start..end], start, previous_space));
        }
        previous_space = false;
    }
    out
}

pub fn parse(
    raw: &str,
    lang: Language,
    case_sensitive: bool,
    diacritic_sensitive: bool,
) -> ParsedSearch {
    let mut positive = String::new();
    let mut negative = String::new();
    let mut out = ParsedSearch::default();
    let mut in_negation = false;
    let mut in_phrase = false;
    let mut quote_offset = 0;
    for (is_text, data, offset, previous_space) in tokens(raw) {
        if is_text {
            if in_phrase && in_negation {
                continue;
            }
            // A negation lasts until the next white space: "-foo-bar" negates both.
            if in_negation && previous_space {
                in_negation = false;
            }
            let sentence = if in_negation {
                &mut negative
            } else {
                &mut positive
            };
            sentence.push_str(data);
            sentence.push(' ');
        } else if data == "-" {
            if !in_phrase && previous_space {
                in_negation = true;
            }
        } else if in_phrase {
            let phrase = raw.get(quote_offset + 1..offset).unwrap_or("").to_string();
            if in_negation {
                out.negated_phrases.push(phrase);
            } else {
                out.positive_phrases.push(phrase);
            }
            in_phrase = false;
        } else {
            in_phrase = true;
            if in_negation && previous_space {
                in_negation = false;
            }
            quote_offset = offset;
        }
    }
    let tokenizer = Tokenizer::new(lang);
    let insensitive = Options {
        filter_stop_words: true,
        ..Options::default()
    };
    let sensitive = Options {
        filter_stop_words: true,
        case_sensitive,
        diacritic_sensitive,
    };
    for (sentence, negated) in [(&positive, false), (&negative, true)] {
        let terms = tokenizer.terms(sentence, insensitive);
        if !negated {
            out.bounds_terms.extend(terms.iter().cloned());
        }
        let active = if case_sensitive || diacritic_sensitive {
            tokenizer.terms(sentence, sensitive)
        } else {
            terms
        };
        if negated {
            out.negated_terms.extend(active);
        } else {
            out.positive_terms.extend(active);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(raw: &str) -> ParsedSearch {
        parse(raw, Language::English, false, false)
    }

    fn set(words: &[&str]) -> BTreeSet<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn terms_phrases_and_negations() {
        let q = p("coffee -shop \"coffee shop\" -\"cafe con\"");
        assert_eq!(q.positive_terms, set(&["coffe", "shop"]));
        assert_eq!(q.negated_terms, set(&["shop"]));
        assert_eq!(q.positive_phrases, ["coffee shop"]);
        assert_eq!(q.negated_phrases, ["cafe con"]);
        let q = p("-foo-bar - baz");
        assert_eq!(q.negated_terms, set(&["foo", "bar"]));
        assert_eq!(q.positive_terms, set(&["baz"]));
        let q = p("\"a\" -b -\"c\"");
        assert_eq!(q.positive_phrases, ["a"]);
        assert_eq!(q.negated_phrases, ["c"]);
        assert_eq!(q.negated_terms, set(&["b"]));
    }
}
