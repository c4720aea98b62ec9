//! The state's JSON, written and read by hand: the same text as serde_json
//! writes for `LinkState` (field order, escapes), and the same states read back
//! as its derived `Deserialize` gives (fields in any order, unknown ones
//! ignored, `view` defaulting to `shell`, the array form), without serde's
//! generated code in the page's wasm. The test compares the two. One
//! difference: a repeated field is an error for serde, here the last one wins
//! (the page never writes one).
use super::LinkState;
use crate::text::ejson::write_str;
use serde_json::Value;
use std::fmt::Write as _;

impl LinkState {
    /// Compact JSON, byte for byte `serde_json::to_string(self)`.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(self.db.len() + self.script.len() + 96);
        out.push_str("{\"db\":");
        write_str(&mut out, &self.db);
        out.push_str(",\"script\":");
        write_str(&mut out, &self.script);
        let _ = write!(
            out,
            ",\"now\":{},\"seed\":{},\"view\":",
            self.now, self.seed
        );
        write_str(&mut out, &self.view);
        if let Some(t) = &self.tutorial {
            out.push_str(",\"tutorial\":");
            write_str(&mut out, t);
        }
        if let Some(s) = self.step {
            let _ = write!(out, ",\"step\":{s}");
        }
        if let Some(l) = &self.lang {
            out.push_str(",\"lang\":");
            write_str(&mut out, l);
        }
        if let Some(tz) = &self.tz {
            out.push_str(",\"tz\":");
            write_str(&mut out, tz);
        }
        out.push('}');
        out
    }

    /// Read a state from JSON text; the error says what is wrong.
    pub fn from_json(text: &str) -> Result<LinkState, String> {
        let value = crate::json::parse(text)?;
        // Fields by name (object) or by position (array, as serde reads structs).
        const NAMES: [&str; 9] = [
            "db", "script", "now", "seed", "view", "tutorial", "step", "lang", "tz",
        ];
        let mut fields: [Option<Value>; 9] = Default::default();
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    if let Some(i) = NAMES.iter().position(|n| *n == k) {
                        if let Some(slot) = fields.get_mut(i) {
                            *slot = Some(v);
                        }
                    }
                }
            }
            Value::Array(items) => {
                if items.len() > NAMES.len() {
                    return Err(format!(
                        "invalid length {}, expected fewer elements in array",
                        items.len()
                    ));
                }
                for (slot, v) in fields.iter_mut().zip(items) {
                    *slot = Some(v);
                }
            }
            _ => return Err("invalid type: expected struct LinkState".into()),
        }
        read(fields).map_err(|name| format!("missing or invalid field `{name}`"))
    }
}

/// The fields in `NAMES` order; the error is the name of the first bad one.
fn read(fields: [Option<Value>; 9]) -> Result<LinkState, &'static str> {
    let [db, script, now, seed, view, tutorial, step, lang, tz] = fields;
    let string = |v: Option<Value>, name: &'static str| match v {
        Some(Value::String(s)) => Ok(s),
        _ => Err(name),
    };
    // Optional fields: absent or null is None.
    let some = |v: Option<Value>| v.filter(|v| !v.is_null());
    Ok(LinkState {
        db: string(db, "db")?,
        script: string(script, "script")?,
        now: now.and_then(|v| v.as_i64()).ok_or("now")?,
        seed: seed.and_then(|v| v.as_u64()).ok_or("seed")?,
        view: match view {
            None => "shell".to_string(),
            v => string(v, "view")?,
        },
        tutorial: match some(tutorial) {
            None => None,
            v => Some(string(v, "tutorial")?),
        },
        step: match some(step) {
            None => None,
            Some(v) => Some(
                v.as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or("step")?,
            ),
        },
        lang: match some(lang) {
            None => None,
            v => Some(string(v, "lang")?),
        },
        tz: match some(tz) {
            None => None,
            v => Some(string(v, "tz")?),
        },
    })
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
