//! Share links with no server: the page's whole state travels in the URL
//! fragment as `#v1` + base64url(raw deflate(JSON)). The page (through wasm)
//! and the CLI (`mqlplay link`, `mqlplay run --link`) both use this codec, so
//! they agree byte for byte.
//! The JSON is serde's for [`LinkState`]; the page hands the same fields over
//! as a JS object (serde-wasm-bindgen, `crate::wasm::encode_link`).
use crate::base64::{self as b64, Alphabet, Padding};
use crate::error::Result;
use serde::{Deserialize, Serialize};

pub mod reason;
mod whole;

pub use reason::Reason;

/// The fragment's version prefix.
pub const PREFIX: &str = "v1";
/// Largest decompressed state accepted, so a tiny link cannot inflate into gigabytes.
pub const MAX_STATE_BYTES: usize = 8 * 1024 * 1024;
/// Largest integer a JavaScript number holds exactly (seeds and instants round-trip through the page).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
/// Deflate level: fixed, so one state always gives one link.
const LEVEL: u8 = 9;

/// Everything a link restores. Field order is the JSON order, which the
/// encoding depends on: do not reorder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkState {
    /// The Database pane (configuration).
    pub db: String,
    /// The Query pane (script).
    pub script: String,
    /// The run's `now` instant, in milliseconds since the epoch.
    #[serde(deserialize_with = "whole::deserialize")]
    pub now: i64,
    /// The run's seed (`$rand`, `$sample`, generated `_id`s).
    #[serde(deserialize_with = "whole::deserialize")]
    pub seed: u64,
    /// How the result is shown: `shell`, `tree` or `ejson`.
    #[serde(default = "default_view")]
    pub view: String,
    /// The open tutorial's id and step, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tutorial: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// The sharer's page language (`en`, `pt-BR`, `ja`, `ko`, `de`): the opener's
    /// default when they have not chosen one. The page ignores one it does not know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// The run's time zone (an Olson name) for local-time dates; absent: UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tz: Option<String>,
}

fn default_view() -> String {
    "shell".to_string()
}

impl Default for LinkState {
    fn default() -> LinkState {
        LinkState {
            db: String::new(),
            script: String::new(),
            now: crate::RunCtx::default().now.timestamp_millis(),
            seed: 0,
            view: default_view(),
            tutorial: None,
            step: None,
            lang: None,
            tz: None,
        }
    }
}

impl LinkState {
    /// Check what the JSON's types alone cannot: numbers the page can hold exactly, a known view.
    pub fn validate(&self) -> Result<()> {
        self.check().map_err(|why| why.to_error())
    }

    /// [`LinkState::validate`], with the reason.
    pub fn check(&self) -> std::result::Result<(), Reason> {
        if self.seed > MAX_SAFE_INTEGER {
            return Err(Reason::SeedTooLarge(self.seed));
        }
        if self.now.unsigned_abs() > MAX_SAFE_INTEGER {
            return Err(Reason::InstantOutOfRange(self.now));
        }
        if !matches!(self.view.as_str(), "shell" | "tree" | "ejson") {
            return Err(Reason::UnknownView(self.view.clone()));
        }
        if let Some(tz) = &self.tz {
            if crate::tzdb::Tz::parse(tz).is_none() {
                return Err(Reason::UnknownTimeZone(tz.clone()));
            }
        }
        Ok(())
    }
}

/// The fragment for a state, without the leading `#`: `v1…`.
pub fn encode(state: &LinkState) -> String {
    // Strings and integers only: serde_json cannot fail on them.
    let json = serde_json::to_vec(state).unwrap_or_default();
    let deflated = miniz_oxide::deflate::compress_to_vec(&json, LEVEL);
    format!("{PREFIX}{}", b64::encode(Alphabet::UrlNoPad, &deflated))
}

/// Decode a fragment (`v1…`, `#v1…`) or a whole URL holding one.
pub fn decode(link: &str) -> Result<LinkState> {
    decode_why(link).map_err(|why| why.to_error())
}

/// [`decode`], with the reason a link is refused (the page translates it).
pub fn decode_why(link: &str) -> std::result::Result<LinkState, Reason> {
    let link = link.trim();
    let fragment = match link.find('#') {
        Some(i) => &link[i + 1..],
        None => link,
    };
    if fragment.is_empty() {
        return Err(Reason::NoState);
    }
    let Some(payload) = fragment.strip_prefix(PREFIX) else {
        return Err(Reason::UnknownVersion(fragment.chars().take(8).collect()));
    };
    // base64 of deflate is at most ~4/3 of the deflated size, itself far below the cap.
    if payload.len() > MAX_STATE_BYTES {
        return Err(Reason::TooLong);
    }
    let deflated = b64::decode(Alphabet::UrlNoPad, Padding::None, payload.as_bytes())
        .map_err(|_| Reason::NotLinkCharacters)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&deflated, MAX_STATE_BYTES)
        .map_err(|e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => Reason::TooLarge,
            miniz_oxide::inflate::TINFLStatus::FailedCannotMakeProgress => Reason::EndsEarly,
            _ => Reason::Damaged,
        })?;
    let json = std::str::from_utf8(&json).map_err(|_| Reason::Damaged)?;
    let state: LinkState = serde_json::from_str(json).map_err(|_| Reason::NotAState)?;
    state.check()?;
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let state = LinkState {
            db: "db = { trades: [ {_id: 1, s: 'é😀'} ] }".into(),
            script: "db.trades.find()".into(),
            now: 1_700_000_000_123,
            seed: 42,
            view: "tree".into(),
            tutorial: Some("basics".into()),
            step: Some(3),
            lang: Some("ja".into()),
            tz: None,
        };
        let link = encode(&state);
        assert!(link.starts_with("v1"));
        assert_eq!(decode(&link), Ok(state.clone()));
        assert_eq!(decode(&format!("#{link}")), Ok(state.clone()));
        assert_eq!(decode(&format!("http://127.0.0.1:8080/#{link}")), Ok(state));
    }

    /// A state with every field set, and its link as the page wrote it before:
    /// links already shared must keep opening, and one state gives one link.
    fn every_field() -> LinkState {
        LinkState {
            db: "db = { t: [ {_id: 1, s: 'é😀\"\\\n\t\u{1}\u{7f}\u{2028}'} ] }".into(),
            script: "db.t.find()\r\n// </script> 𝄞".into(),
            now: -1_700_000_000_123,
            seed: MAX_SAFE_INTEGER,
            view: "ejson".into(),
            tutorial: Some("basics".into()),
            step: Some(u32::MAX),
            lang: Some("pt-BR".into()),
            tz: Some("America/Sao_Paulo".into()),
        }
    }

    #[test]
    fn links_are_unchanged() {
        let link = "v1LY1NbsIwEIWvMpoNrRSInYZGttpK7QmqdllXyCRu5Sq1o9hpJaIIFhyCDbCFc3ATTsARMD-zGGnmfe-9Fosx8rDgEVrwHD6gHemCA43Acejttof1YiZQCGGEFw0hhE73s02vg0_oMEKX17ry54iBH3xpU9zcilqYOIaH-CI-wWE5XwXW2H_kfZqR69DkLgQoVSBnhGSUsWSYZilhjEb4p1WgUf04a4LXN97WWpbhNZZO5-7U7VWFPE1Yyu6zhA0jLKX5DkTl-y9vJ9MkHM-_qta5jN-lHb3KprTYHQE";
        assert_eq!(encode(&every_field()), link);
        assert_eq!(decode(link), Ok(every_field()));
    }

    #[test]
    fn broken_links_are_errors() {
        let link = encode(&LinkState::default());
        for bad in [
            "",
            "#",
            "#v2abc",
            "v1",
            "v1!!!",
            &link[..link.len() / 2],
            "v1AAAA",
        ] {
            let err = decode(bad).expect_err(bad);
            assert!(err.message.contains("share link"), "{bad}: {err}");
        }
    }

    #[test]
    fn bombs_are_capped() {
        let big = LinkState {
            script: "a".repeat(MAX_STATE_BYTES + 10),
            ..LinkState::default()
        };
        let err = decode(&encode(&big)).expect_err("too big");
        assert!(err.message.contains("8 MiB"), "{err}");
    }

    #[test]
    fn unsafe_numbers_are_rejected() {
        let state = LinkState {
            seed: u64::MAX,
            ..LinkState::default()
        };
        assert!(decode(&encode(&state)).is_err());
        let largest = LinkState {
            seed: MAX_SAFE_INTEGER,
            ..LinkState::default()
        };
        assert_eq!(decode(&encode(&largest)), Ok(largest));
        let past = LinkState {
            seed: MAX_SAFE_INTEGER + 1,
            ..LinkState::default()
        };
        assert_eq!(
            decode_why(&encode(&past)),
            Err(Reason::SeedTooLarge(1 << 53))
        );
    }
}
