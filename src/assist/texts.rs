//! The words editor assistance shows, each with the stable key the page
//! translates it by (`www/i18n/assist/<lang>.json`): operator summaries
//! (`op.<kind>.<name>`), kind labels (`kind.*`), method descriptions
//! (`method.<receiver>.<name>`) and the engine's own texts below. The engine
//! speaks English only; the English text is the page's fallback.
use super::catalogue::{self, Kind};
use super::methods::{self, Receiver};

/// One of the engine's own texts and its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text {
    pub key: &'static str,
    pub en: &'static str,
}

const fn text(key: &'static str, en: &'static str) -> Text {
    Text { key, en }
}

pub const COLLECTION: Text = text("detail.collection", "collection");
pub const METHOD: Text = text("detail.method", "method");
pub const FIELD: Text = text("detail.field", "field");
pub const FIELD_PATH: Text = text("detail.fieldPath", "field path");
pub const VARIABLE: Text = text("detail.variable", "variable");
pub const GROUP_KEY: Text = text("detail.groupKey", "group key");
pub const GROUP_ID: Text = text(
    "info.groupId",
    "The expression documents are grouped by (null: one group).",
);
pub const ROOT: Text = text("var.ROOT", "The document at the top level.");
pub const CURRENT: Text = text(
    "var.CURRENT",
    "The document being processed (usually $$ROOT).",
);
pub const NOW: Text = text("var.NOW", "The run's current date and time.");
pub const REMOVE: Text = text("var.REMOVE", "Removes the field it is assigned to.");
pub const ELEMENT_AS: Text = text("var.as", "The element being processed (as).");
pub const ELEMENT: Text = text("var.this", "The element being processed.");
pub const LET: Text = text("var.let", "A variable bound by let.");
pub const VALUE: Text = text("var.value", "The value accumulated so far.");
pub const DESCEND: Text = text(
    "var.DESCEND",
    "Keep this level and examine the embedded documents.",
);
pub const PRUNE: Text = text("var.PRUNE", "Remove this level.");
pub const KEEP: Text = text("var.KEEP", "Keep this level and all below it.");

/// The engine's own texts, for the catalogues' parity test.
pub const OWN: &[Text] = &[
    COLLECTION, METHOD, FIELD, FIELD_PATH, VARIABLE, GROUP_KEY, GROUP_ID, ROOT, CURRENT, NOW,
    REMOVE, ELEMENT_AS, ELEMENT, LET, VALUE, DESCEND, PRUNE, KEEP,
];

/// The key of a method's description.
pub fn method_key(on: Receiver, name: &str) -> String {
    let receiver = match on {
        Receiver::Db => "db",
        Receiver::Collection => "collection",
        Receiver::Cursor => "cursor",
    };
    format!("method.{receiver}.{name}")
}

/// Every text assistance may show, `(key, English)`: what each page catalogue must translate.
pub fn all() -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = catalogue::entries()
        .iter()
        .map(|e| (e.summary_key(), e.summary))
        .collect();
    for kind in Kind::ALL {
        let key = kind.label_key().to_string();
        if !out.iter().any(|(k, _)| *k == key) {
            out.push((key, kind.label()));
        }
    }
    for on in [Receiver::Db, Receiver::Collection, Receiver::Cursor] {
        for (name, about, _) in methods::list(on) {
            out.push((method_key(on, name), about));
        }
    }
    out.extend(OWN.iter().map(|t| (t.key.to_string(), t.en)));
    out
}
