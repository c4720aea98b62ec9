//! The locales a collation may name: MongoDB's locale IDs (`de_AT`,
//! `de@collation=phonebook`) with the BCP 47 tag ICU4X reads and the defaults
//! MongoDB's table lists for them. Other locales MongoDB knows are refused as
//! not supported; names it does not know are invalid.
//! https://www.mongodb.com/docs/manual/reference/collation-locales-defaults/
use icu_locale_core::Locale;

/// One locale the playground offers.
pub struct Known {
    /// MongoDB's ID (what `getIndexes` prints).
    pub id: &'static str,
    bcp47: &'static str,
    pub case_first: &'static str,
    pub alternate: &'static str,
    pub normalization: bool,
    pub backwards: bool,
}

impl Known {
    /// The locale for ICU4X (the tags below all parse).
    pub fn tag(&self) -> Locale {
        Locale::try_from_str(self.bcp47).unwrap_or(Locale::UNKNOWN)
    }
}

const fn plain(id: &'static str, bcp47: &'static str) -> Known {
    Known {
        id,
        bcp47,
        case_first: "off",
        alternate: "non-ignorable",
        normalization: false,
        backwards: false,
    }
}

pub(super) const OFFERED: &[Known] = &[
    plain("en", "en"),
    plain("en_US", "en-US"),
    plain("fr", "fr"),
    Known {
        backwards: true,
        ..plain("fr_CA", "fr-CA")
    },
    plain("de", "de"),
    plain("de_AT", "de-AT"),
    plain("de@collation=phonebook", "de-u-co-phonebk"),
    plain("de_AT@collation=phonebook", "de-AT-u-co-phonebk"),
    plain("es", "es"),
    plain("es@collation=traditional", "es-u-co-trad"),
    plain("es@collation=search", "es-u-co-search"),
    plain("pt", "pt"),
    plain("ja", "ja"),
    plain("ko", "ko"),
    plain("ko@collation=search", "ko-u-co-search"),
    plain("zh", "zh"),
    plain("zh@collation=pinyin", "zh-u-co-pinyin"),
    plain("zh@collation=stroke", "zh-u-co-stroke"),
    plain("zh@collation=zhuyin", "zh-u-co-zhuyin"),
    plain("zh@collation=unihan", "zh-u-co-unihan"),
    plain("zh_Hant", "zh-Hant"),
    plain("sv", "sv"),
    plain("sv@collation=search", "sv-u-co-search"),
    plain("it", "it"),
    plain("nl", "nl"),
    plain("pl", "pl"),
    plain("ru", "ru"),
    plain("tr", "tr"),
    plain("el", "el"),
    plain("uk", "uk"),
    plain("fi", "fi"),
    plain("nb", "nb"),
    Known {
        case_first: "upper",
        ..plain("da", "da")
    },
];

/// The other locales of MongoDB's table (base names; variants with
/// `@collation=` are checked by their base).
const MONGODB_ONLY: &[&str] = &[
    "af",
    "sq",
    "am",
    "ar",
    "hy",
    "as",
    "az",
    "be",
    "bn",
    "bs",
    "bs_Cyrl",
    "bg",
    "my",
    "ca",
    "chr",
    "hr",
    "cs",
    "dz",
    "en_US_POSIX",
    "eo",
    "et",
    "ee",
    "fo",
    "fil",
    "fi_FI",
    "gl",
    "ka",
    "gu",
    "ha",
    "haw",
    "he",
    "hi",
    "hu",
    "is",
    "ig",
    "smn",
    "id",
    "ga",
    "kl",
    "kn",
    "kk",
    "km",
    "kok",
    "ky",
    "lkt",
    "lo",
    "lv",
    "ln",
    "lt",
    "dsb",
    "lb",
    "mk",
    "ms",
    "ml",
    "mt",
    "mr",
    "mn",
    "ne",
    "se",
    "nn",
    "or",
    "om",
    "ps",
    "fa",
    "fa_AF",
    "pa",
    "ro",
    "sr",
    "sr_Latn",
    "si",
    "sk",
    "sl",
    "sw",
    "ta",
    "te",
    "th",
    "bo",
    "to",
    "hsb",
    "ur",
    "ug",
    "vi",
    "wae",
    "cy",
    "yi",
    "yo",
    "zu",
];

pub enum Lookup {
    Offered(&'static Known),
    /// A locale MongoDB has that the playground does not offer.
    NotOffered,
    Invalid,
}

pub fn find(id: &str) -> Lookup {
    if let Some(k) = OFFERED.iter().find(|k| k.id == id) {
        return Lookup::Offered(k);
    }
    let base = id.split('@').next().unwrap_or(id);
    if MONGODB_ONLY.contains(&base) || OFFERED.iter().any(|k| k.id == base) {
        Lookup::NotOffered
    } else {
        Lookup::Invalid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_offered_tag_parses() {
        for k in OFFERED {
            assert!(Locale::try_from_str(k.bcp47).is_ok(), "{}", k.bcp47);
        }
    }
}
