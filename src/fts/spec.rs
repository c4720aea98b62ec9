//! Text index specifications: the key pattern and options `createIndex`
//! takes, normalised as the server stores them (src/mongo/db/fts/fts_spec.cpp),
//! and the weighted strings of a document the index holds, with their scores.
//! See https://www.mongodb.com/docs/manual/core/indexes/index-types/index-text/.
use super::tokenizer::{Options, Tokenizer};
use super::Language;
use crate::error::{Error, Result};
use bson::{Bson, Document};
use std::collections::{BTreeMap, HashMap};

/// Weights are below this bound (the server's MAX_WORD_WEIGHT).
const MAX_WORD_WEIGHT: i64 = 100_000;

#[derive(Clone, Debug, PartialEq)]
pub struct TextIndexSpec {
    /// Field path → weight (integers, as the server stores them).
    pub weights: BTreeMap<String, i64>,
    /// `"$**"`: every string field, at weight 1 unless weighted.
    pub wildcard: bool,
    pub default_language: Language,
    pub language_override: String,
    pub version: i32,
    /// Equality fields before the text fields (a compound text index).
    pub prefix: Vec<String>,
    pub suffix: Vec<String>,
}

/// The pieces of a text index `createIndex` stores.
pub struct Fixed {
    pub spec: TextIndexSpec,
    /// `{<prefix>, _fts: "text", _ftsx: 1, <suffix>}`.
    pub key: Document,
    /// The options after `key` and `name`, as `getIndexes()` shows them.
    pub options: Document,
}

fn cannot(message: impl Into<String>) -> Error {
    Error::cannot_create_index(message)
}

/// Is this key pattern a text index's (some field is `"text"`)?
pub fn is_text_pattern(keys: &Document) -> bool {
    keys.iter()
        .any(|(k, v)| matches!(v, Bson::String(s) if s == "text") || k == "_fts")
}

fn int_of(v: &Bson) -> Option<i64> {
    match v {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(d) if d.is_finite() => Some(d.trunc() as i64),
        Bson::Decimal128(_) => crate::value::numeric::to_f64(v).map(|d| d.trunc() as i64),
        _ => None,
    }
}

fn reserved(field: &str) -> Result<()> {
    if field == "_fts" || field == "_ftsx" {
        return Err(cannot(
            "text index with reserved fields _fts/_ftsx not allowed",
        ));
    }
    Ok(())
}

/// Validate and normalise `createIndex(keys, options)` for a text index.
pub fn fix_spec(keys: &Document, options: &Document) -> Result<Fixed> {
    let mut weights: BTreeMap<String, i64> = BTreeMap::new();
    let mut key = Document::new();
    let mut prefix = Vec::new();
    let mut suffix = Vec::new();
    // Where we are: 0 prefix fields, 1 text fields, 2 suffix fields.
    let mut stage = 0;
    for (field, v) in keys {
        let is_text = matches!(v, Bson::String(s) if s == "text");
        if let Bson::String(s) = v {
            if !is_text {
                return Err(cannot(format!("Unknown index plugin '{s}'")));
            }
        }
        reserved(field)?;
        if is_text {
            if stage == 2 {
                return Err(cannot("'text' fields in index must all be adjacent"));
            }
            if stage == 0 {
                key.insert("_fts", "text");
                key.insert("_ftsx", 1);
            }
            stage = 1;
            weights.insert(field.clone(), 1);
            continue;
        }
        let n = int_of(v).unwrap_or(0);
        if n != 1 && n != -1 {
            return Err(cannot(
                "expected value 1 or -1 for non-text key in compound index",
            ));
        }
        key.insert(field.clone(), v.clone());
        if stage == 0 {
            prefix.push(field.clone());
        } else {
            stage = 2;
            suffix.push(field.clone());
        }
    }
    match options.get("weights") {
        Some(Bson::Document(w)) => {
            for (field, v) in w {
                let Some(n) = int_of(v) else {
                    return Err(cannot("weight for text index needs numeric type"));
                };
                weights.insert(field.clone(), n);
            }
        }
        Some(Bson::String(s)) if s == "$**" => {
            weights.insert("$**".to_string(), 1);
        }
        Some(_) => {
            return Err(cannot("text index option 'weights' must be an object"));
        }
        None => {}
    }
    for (field, &w) in &weights {
        if w <= 0 || w >= MAX_WORD_WEIGHT {
            return Err(cannot(format!(
                "text index weight must be in the exclusive interval (0,{MAX_WORD_WEIGHT}) but found: {w}"
            )));
        }
        if field != "$**" {
            if field.split('.').any(str::is_empty) {
                return Err(cannot(if field.is_empty() {
                    "weight cannot be on an empty field"
                } else {
                    "weight cannot have empty path component"
                }));
            }
            if field.split('.').any(|p| p.starts_with('$')) {
                return Err(cannot("weight cannot have path component with $ prefix"));
            }
        }
    }
    let default_language = match options.get("default_language") {
        None => Language::English,
        Some(Bson::String(s)) => {
            Language::parse(s).map_err(|_| cannot("default_language is not valid"))?
        }
        Some(_) => return Err(cannot("default_language needs a string type")),
    };
    let language_override = match options.get("language_override") {
        None => "language".to_string(),
        Some(Bson::String(s)) if !s.is_empty() && !s.starts_with('$') && !s.contains('.') => {
            s.clone()
        }
        Some(Bson::String(_)) => return Err(cannot("language_override is not valid")),
        Some(_) => return Err(cannot("language_override must be a string")),
    };
    let version = match options.get("textIndexVersion") {
        None => 3,
        Some(v) => match int_of(v) {
            Some(3) => 3,
            Some(n) if crate::value::numeric::is_number(v) => {
                return Err(if n == 2 || n == 1 {
                    Error::not_supported(format!("text index version {n}"))
                } else {
                    cannot(format!("bad textIndexVersion: {n}"))
                })
            }
            _ => {
                return Err(cannot(
                    "text index option 'textIndexVersion' must be a number",
                ))
            }
        },
    };
    let weights_doc: Document = weights
        .iter()
        .map(|(k, &w)| (k.clone(), Bson::Int32(w as i32)))
        .collect();
    let mut out = Document::new();
    let mut missing = [true; 3];
    for (k, v) in options {
        match k.as_str() {
            "name" | "v" => {}
            "weights" => {
                out.insert("weights", weights_doc.clone());
                missing[0] = false;
            }
            "default_language" => {
                out.insert("default_language", default_language.name());
                missing[1] = false;
            }
            "language_override" => {
                out.insert("language_override", language_override.clone());
                missing[2] = false;
            }
            "textIndexVersion" => {}
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    if missing[0] {
        out.insert("weights", weights_doc);
    }
    if missing[1] {
        out.insert("default_language", default_language.name());
    }
    if missing[2] {
        out.insert("language_override", language_override.clone());
    }
    out.insert("textIndexVersion", version);
    let wildcard = weights.remove("$**").is_some();
    Ok(Fixed {
        spec: TextIndexSpec {
            weights,
            wildcard,
            default_language,
            language_override,
            version,
            prefix,
            suffix,
        },
        key,
        options: out,
    })
}

/// One string a document holds for the index: its text, language and weight.
pub struct Indexed<'a> {
    pub text: &'a str,
    pub language: Language,
    pub weight: f64,
}

impl TextIndexSpec {
    /// The weight of a field path, if the index holds it.
    fn weight(&self, path: &str) -> Option<f64> {
        match self.weights.get(path) {
            Some(&w) => Some(w as f64),
            None if self.wildcard => Some(1.0),
            None => None,
        }
    }

    /// Does the index hold anything under `path.`?
    fn holds_under(&self, path: &str) -> bool {
        self.wildcard
            || self.weights.keys().any(|k| {
                k.len() > path.len() && k.starts_with(path) && k[path.len()..].starts_with('.')
            })
    }

    /// The language a (sub)document asks for in its override field.
    fn language_of(&self, doc: &Document, inherited: Language) -> Result<Language> {
        match doc.get(&self.language_override) {
            None => Ok(inherited),
            Some(Bson::String(s)) => Language::parse(s).map_err(|e| {
                if e.code == 2 {
                    Error::location(17262, format!("language override unsupported: {s}"))
                } else {
                    e
                }
            }),
            Some(_) => Err(Error::location(
                17261,
                "found language override field in document with non-string type",
            )),
        }
    }

    /// Every string the index holds for `doc`, in document order.
    pub fn strings<'a>(&self, doc: &'a Document) -> Result<Vec<Indexed<'a>>> {
        let mut out = Vec::new();
        let lang = self.language_of(doc, self.default_language)?;
        self.walk_doc(doc, "", lang, &mut out)?;
        Ok(out)
    }

    fn walk_doc<'a>(
        &self,
        doc: &'a Document,
        prefix: &str,
        lang: Language,
        out: &mut Vec<Indexed<'a>>,
    ) -> Result<()> {
        for (k, v) in doc {
            let path = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            self.walk_value(v, &path, lang, out)?;
        }
        Ok(())
    }

    fn walk_value<'a>(
        &self,
        v: &'a Bson,
        path: &str,
        lang: Language,
        out: &mut Vec<Indexed<'a>>,
    ) -> Result<()> {
        match v {
            Bson::String(s) => {
                if let Some(weight) = self.weight(path) {
                    out.push(Indexed {
                        text: s,
                        language: lang,
                        weight,
                    });
                }
            }
            Bson::Document(d) if self.holds_under(path) => {
                let lang = self.language_of(d, lang)?;
                self.walk_doc(d, path, lang, out)?;
            }
            Bson::Array(items) => {
                for item in items {
                    self.walk_value(item, path, lang, out)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The document's index keys: term → score (the server's scoreDocument).
    pub fn score_document(&self, doc: &Document) -> Result<HashMap<String, f64>> {
        let mut scores: HashMap<String, f64> = HashMap::new();
        let mut tokenizers: Vec<(Language, Tokenizer)> = Vec::new();
        for s in self.strings(doc)? {
            if !tokenizers.iter().any(|(l, _)| *l == s.language) {
                tokenizers.push((s.language, Tokenizer::new(s.language)));
            }
            let Some((_, tok)) = tokenizers.iter().find(|(l, _)| *l == s.language) else {
                continue;
            };
            score_string(tok, s.text, s.weight, &mut scores);
        }
        Ok(scores)
    }
}

/// One string's contribution: a term's repeats count less and less (1, ½, ¼…),
/// scaled by how much of the string the term is, with a small boost when the
/// whole string is the term.
fn score_string(tok: &Tokenizer, raw: &str, weight: f64, scores: &mut HashMap<String, f64>) {
    let opts = Options {
        filter_stop_words: true,
        ..Options::default()
    };
    let terms = tok.terms(raw, opts);
    let total = terms.len() as f64;
    // term → (freq, count, exp), in first-seen order for a stable sum.
    let mut seen: Vec<(String, f64, f64, f64)> = Vec::new();
    for term in terms {
        match seen.iter_mut().find(|(t, ..)| *t == term) {
            Some((_, freq, count, exp)) => {
                *exp *= 2.0;
                *count += 1.0;
                *freq += 1.0 / *exp;
            }
            None => seen.push((term, 1.0, 1.0, 1.0)),
        }
    }
    for (term, freq, count, _) in seen {
        let coeff = (0.5 * count / total) + 0.5;
        let adjustment = if raw.len() == term.len() && raw.eq_ignore_ascii_case(&term) {
            1.1
        } else {
            1.0
        };
        *scores.entry(term).or_insert(0.0) += weight * freq * coeff * adjustment;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn normalised_like_the_server() {
        let f = fix_spec(&doc! {"subject": "text"}, &doc! {}).ok();
        let f = f.map(|f| (f.key, f.options));
        assert_eq!(
            f,
            Some((
                doc! {"_fts": "text", "_ftsx": 1},
                doc! {"weights": {"subject": 1}, "default_language": "english", "language_override": "language", "textIndexVersion": 3}
            ))
        );
        let code = |k: Document, o: Document| fix_spec(&k, &o).err().map(|e| e.code);
        assert_eq!(
            code(doc! {"a": "text", "b": 1, "c": "text"}, doc! {}),
            Some(67)
        );
        assert_eq!(
            code(doc! {"a": "text"}, doc! {"weights": {"a": 0.5}}),
            Some(67)
        );
        assert_eq!(
            code(doc! {"a": "text"}, doc! {"default_language": "xx"}),
            Some(67)
        );
        assert_eq!(
            code(doc! {"a": "text"}, doc! {"language_override": "$l"}),
            Some(67)
        );
    }

    #[test]
    fn scores_as_the_server() {
        let spec = fix_spec(&doc! {"subject": "text"}, &doc! {})
            .map(|f| f.spec)
            .ok();
        let Some(spec) = spec else { panic!("spec") };
        let scores = spec.score_document(&doc! {"subject": "Cake"}).ok();
        // One term, the whole string (its own stem): 1 × 1 × 1 × 1.1.
        assert_eq!(scores.and_then(|s| s.get("cake").copied()), Some(1.1));
        let scores = spec.score_document(&doc! {"subject": "coffee"}).ok();
        assert_eq!(scores.and_then(|s| s.get("coffe").copied()), Some(1.0));
        let scores = spec
            .score_document(&doc! {"subject": "Coffee Shopping"})
            .ok();
        assert_eq!(scores.and_then(|s| s.get("coffe").copied()), Some(0.75));
        let scores = spec
            .score_document(&doc! {"subject": "coffee coffee x"})
            .ok();
        // freq 1 + ½, coeff ½·⅔ + ½.
        assert_eq!(
            scores.and_then(|s| s.get("coffe").copied()),
            Some(1.5 * (0.5 * 2.0 / 3.0 + 0.5))
        );
    }
}
