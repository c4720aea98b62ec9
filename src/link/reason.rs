//! Why a share link cannot be opened: the engine's English words, and a stable
//! key with its parameters that the page translates by (`link.why.<key>` in
//! `www/i18n/<lang>.json`).
use crate::error::Error;
use std::fmt;

/// One reason a link is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    NoState,
    UnknownVersion(String),
    TooLong,
    NotLinkCharacters,
    TooLarge,
    EndsEarly,
    Damaged,
    NotAState,
    SeedTooLarge(u64),
    InstantOutOfRange(i64),
    UnknownView(String),
    UnknownTimeZone(String),
}

impl Reason {
    /// The page's key: `link.why.<key>`.
    pub fn key(&self) -> &'static str {
        match self {
            Reason::NoState => "noState",
            Reason::UnknownVersion(_) => "unknownVersion",
            Reason::TooLong => "tooLong",
            Reason::NotLinkCharacters => "notLinkCharacters",
            Reason::TooLarge => "tooLarge",
            Reason::EndsEarly => "endsEarly",
            Reason::Damaged => "damaged",
            Reason::NotAState => "notAState",
            Reason::SeedTooLarge(_) => "seedTooLarge",
            Reason::InstantOutOfRange(_) => "instantOutOfRange",
            Reason::UnknownView(_) => "unknownView",
            Reason::UnknownTimeZone(_) => "unknownTimeZone",
        }
    }

    /// The parameters the page fills into its sentence, by name.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        match self {
            Reason::UnknownVersion(v) => vec![
                ("version", format!("{v:?}")),
                ("prefix", super::PREFIX.into()),
            ],
            Reason::SeedTooLarge(seed) => vec![
                ("seed", seed.to_string()),
                ("max", super::MAX_SAFE_INTEGER.to_string()),
            ],
            Reason::InstantOutOfRange(now) => vec![("now", now.to_string())],
            Reason::UnknownView(view) => vec![("view", format!("{view:?}"))],
            Reason::UnknownTimeZone(tz) => vec![("zone", format!("{tz:?}"))],
            _ => Vec::new(),
        }
    }

    /// The error the CLI and the page's English show.
    pub fn to_error(&self) -> Error {
        Error::failed_to_parse(format!("this share link cannot be opened: {self}"))
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = super::PREFIX;
        match self {
            Reason::NoState => write!(f, "it has no state after '#'"),
            Reason::UnknownVersion(v) => {
                write!(f, "unknown version {v:?} (this page reads {prefix} links)")
            }
            Reason::TooLong => write!(f, "it is too long"),
            // The decoder's own words (symbols, offsets) mean nothing to the person holding the link.
            Reason::NotLinkCharacters => write!(
                f,
                "some of its characters are not part of a link; was it cut short or changed when copied?"
            ),
            Reason::TooLarge => write!(f, "its state is larger than 8 MiB"),
            Reason::EndsEarly => write!(f, "its data ends too early; was it cut short?"),
            Reason::Damaged => write!(f, "its data is damaged"),
            Reason::NotAState => write!(f, "it does not hold a playground's state"),
            Reason::SeedTooLarge(seed) => write!(
                f,
                "the seed {seed} is larger than {}",
                super::MAX_SAFE_INTEGER
            ),
            Reason::InstantOutOfRange(now) => write!(f, "the instant {now} is out of range"),
            Reason::UnknownView(view) => {
                write!(f, "unknown view {view:?} (expected shell, tree or ejson)")
            }
            Reason::UnknownTimeZone(tz) => write!(f, "unknown time zone {tz:?}"),
        }
    }
}

/// Every kind of reason with sample parameters, for the catalogues' parity test.
pub fn samples() -> Vec<Reason> {
    vec![
        Reason::NoState,
        Reason::UnknownVersion("v2".into()),
        Reason::TooLong,
        Reason::NotLinkCharacters,
        Reason::TooLarge,
        Reason::EndsEarly,
        Reason::Damaged,
        Reason::NotAState,
        Reason::SeedTooLarge(1 << 60),
        Reason::InstantOutOfRange(i64::MAX),
        Reason::UnknownView("grid".into()),
        Reason::UnknownTimeZone("Mars/Olympus".into()),
    ]
}
