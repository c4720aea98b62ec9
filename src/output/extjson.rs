//! Extended JSON v2 through the bson crate (relaxed or canonical).
use bson::Bson;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Relaxed,
    Canonical,
}

pub fn to_json(value: &Bson, mode: Mode) -> serde_json::Value {
    match mode {
        Mode::Relaxed => value.clone().into_relaxed_extjson(),
        Mode::Canonical => value.clone().into_canonical_extjson(),
    }
}
