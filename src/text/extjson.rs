//! Extended JSON v2 through the bson crate (relaxed or canonical).
use bson::Bson;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Relaxed,
    Canonical,
}

pub fn to_json(value: &Bson, mode: Mode) -> serde_json::Value {
    match mode {
        // The one-pass writer's text (bson's form, but dates past 9999 as the
        // specification says, where bson clamps them): the page and the CLI agree.
        Mode::Relaxed => serde_json::from_str(&super::ejson::to_string(value))
            .unwrap_or_else(|_| value.clone().into_relaxed_extjson()),
        Mode::Canonical => value.clone().into_canonical_extjson(),
    }
}
