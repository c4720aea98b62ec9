//! The engine's English texts the page translates by key, against the page's
//! catalogues. Editor assistance (`www/i18n/assist/<lang>.json`): every text it may
//! show (operator summaries, kind labels, method descriptions, its own texts) has a
//! translation in each language, no catalogue holds a key the engine does not give,
//! and each translation keeps the English text's code (`$match`, `$$ROOT`, `_id`,
//! `sortBy`). Share-link reasons (`link.why.<key>` in `www/i18n/<lang>.json`): each
//! has a sentence, English's is the engine's own, and the parameters match.
use mqlplay::assist::texts;
use mqlplay::link::reason;
use std::collections::BTreeMap;
use std::path::PathBuf;

const LANGS: [&str; 4] = ["pt-BR", "ja", "ko", "de"];

fn catalogue(lang: &str) -> BTreeMap<String, String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("www/i18n/assist/{lang}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{lang}.json: {e}"))
}

/// The code in a text: `$` names, names with `_`, camelCase names.
fn code(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '$' || c == '_'))
        .filter(|w| {
            w.starts_with('$')
                || w.contains('_')
                || w.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                    && w.chars().any(|c| c.is_ascii_uppercase())
        })
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_language_translates_every_text_assistance_shows() {
    let all = texts::all();
    assert!(all.len() > 300, "{} texts", all.len());
    for lang in LANGS {
        let tr = catalogue(lang);
        let missing: Vec<&str> = all
            .iter()
            .filter(|(k, _)| !tr.contains_key(k))
            .map(|(k, _)| k.as_str())
            .collect();
        assert!(missing.is_empty(), "{lang} lacks {missing:?}");
        let extra: Vec<&String> = tr
            .keys()
            .filter(|k| !all.iter().any(|(a, _)| a == *k))
            .collect();
        assert!(
            extra.is_empty(),
            "{lang} has keys the engine does not give: {extra:?}"
        );
    }
}

#[test]
fn translations_keep_the_code() {
    for lang in LANGS {
        let tr = catalogue(lang);
        for (key, en) in texts::all() {
            let Some(t) = tr.get(&key) else { continue };
            assert!(!t.trim().is_empty(), "{lang} {key} is empty");
            assert_eq!(
                code(t),
                code(en),
                "{lang} {key}: code differs from English {en:?}"
            );
        }
    }
}

#[test]
fn the_code_check_sees_operators_variables_and_field_names() {
    assert_eq!(
        code("Keeps levels by $$DESCEND or _id, sortBy and $sum."),
        ["$$DESCEND", "$sum", "_id", "sortBy"]
    );
    assert!(code("Plain words only.").is_empty());
}

fn page_catalogue(lang: &str) -> BTreeMap<String, String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("www/i18n/{lang}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{lang}.json: {e}"))
}

/// The page's `{name}` filling.
fn fill(template: &str, params: &[(&str, String)]) -> String {
    params.iter().fold(template.to_string(), |s, (k, v)| {
        s.replace(&format!("{{{k}}}"), v)
    })
}

#[test]
fn every_link_reason_reads_as_the_engine_writes_it_and_is_translated() {
    let en = page_catalogue("en");
    for why in reason::samples() {
        let key = format!("link.why.{}", why.key());
        let template = en.get(&key).unwrap_or_else(|| panic!("en lacks {key}"));
        let english = why.to_string();
        let ending = if english.ends_with('?') { "" } else { "." };
        assert_eq!(
            fill(template, &why.params()),
            format!("{english}{ending}"),
            "{key}"
        );
        for lang in LANGS {
            let tr = page_catalogue(lang);
            let text = tr.get(&key).unwrap_or_else(|| panic!("{lang} lacks {key}"));
            let filled = fill(text, &why.params());
            assert!(
                !filled.contains('{'),
                "{lang} {key}: a parameter is not the engine's: {text}"
            );
            for (_, v) in why.params() {
                assert!(filled.contains(&v), "{lang} {key} drops {v}: {text}");
            }
        }
    }
    let keys: Vec<String> = en
        .keys()
        .filter(|k| k.starts_with("link.why."))
        .cloned()
        .collect();
    assert_eq!(
        keys.len(),
        reason::samples().len(),
        "a link.why key the engine never gives: {keys:?}"
    );
}
