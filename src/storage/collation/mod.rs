//! A `collation` document read and checked field by field as the server's
//! collator factory does, resolved to every option (the form `getIndexes`,
//! `getCollectionInfos` and explain print) and built into an ICU4X collator.
pub mod data;
mod locales;

use crate::collation::Collation;
use crate::error::{Error, Result};
use crate::text::server::server_string;
use crate::text::shell::type_name;
use bson::{Bson, Document};
use icu_collator::options::{AlternateHandling, CaseLevel, CollatorOptions, MaxVariable, Strength};
use icu_collator::preferences::{CollationCaseFirst, CollationNumericOrdering};
use icu_collator::CollatorPreferences;
use std::rc::Rc;

/// The ICU version MongoDB 8.x reports in every resolved collation.
const VERSION: &str = "57.1";

fn shown(spec: &Document) -> String {
    server_string(&Bson::Document(spec.clone()))
}

fn wrong_type(field: &str, v: &Bson, want: &str) -> Error {
    Error::type_mismatch(format!(
        "BSON field 'collation.{field}' is the wrong type '{}', expected type '{want}'",
        type_name(v)
    ))
}

fn string_field<'d>(spec: &'d Document, field: &str) -> Result<Option<&'d str>> {
    match spec.get(field) {
        None => Ok(None),
        Some(Bson::String(s)) => Ok(Some(s)),
        Some(v) => Err(wrong_type(field, v, "string")),
    }
}

fn bool_field(spec: &Document, field: &str) -> Result<Option<bool>> {
    match spec.get(field) {
        None => Ok(None),
        Some(Bson::Boolean(b)) => Ok(Some(*b)),
        Some(v) => Err(wrong_type(field, v, "bool")),
    }
}

fn strength_field(spec: &Document) -> Result<Option<i64>> {
    let Some(v) = spec.get("strength") else {
        return Ok(None);
    };
    let n = match v {
        Bson::Int32(n) => i64::from(*n),
        Bson::Int64(n) => *n,
        Bson::Double(d) if d.fract() == 0.0 && d.abs() < 1e18 => *d as i64,
        Bson::Double(_) => {
            return Err(Error::bad_value(format!(
                "Expected field \"strength\" to have a value exactly representable as a 64-bit integer, but found strength: {}",
                server_string(v)
            )))
        }
        v => return Err(wrong_type("strength", v, "int")),
    };
    if !(1..=5).contains(&n) {
        return Err(Error::failed_to_parse(format!(
            "Field 'strength' must be an integer 1 through 5. Got: {n}"
        )));
    }
    Ok(Some(n))
}

fn one_of<'a>(field: &str, got: &str, allowed: &[&'a str]) -> Result<&'a str> {
    match allowed.iter().find(|a| **a == got) {
        Some(a) => Ok(a),
        None => {
            let names: Vec<String> = allowed.iter().map(|a| format!("'{a}'")).collect();
            let list = match names.split_last() {
                Some((last, rest)) if rest.len() > 1 => format!("{}, or {last}", rest.join(", ")),
                Some((last, rest)) if rest.len() == 1 => format!("{} or {last}", rest[0]),
                _ => names.join(""),
            };
            Err(Error::failed_to_parse(format!(
                "Field '{field}' must be {list}. Got: {got}"
            )))
        }
    }
}

/// The fields a collation document may hold (the server refuses others).
const FIELDS: &[&str] = &[
    "locale",
    "caseLevel",
    "caseFirst",
    "strength",
    "numericOrdering",
    "alternate",
    "maxVariable",
    "normalization",
    "backwards",
    "version",
];

/// Read a `collation` option: `None` for `{locale: "simple"}` (binary
/// comparison), the collation otherwise, or the server's error.
pub fn parse(v: &Bson) -> Result<Option<Rc<Collation>>> {
    let Bson::Document(spec) = v else {
        return Err(Error::type_mismatch(format!(
            "BSON field 'collation' is the wrong type '{}', expected type 'object'",
            type_name(v)
        )));
    };
    let locale = match spec.get("locale") {
        None => {
            return Err(Error::location(
                40414,
                "BSON field 'collation.locale' is missing but a required field",
            ))
        }
        Some(Bson::String(s)) => s.as_str(),
        Some(v) => return Err(wrong_type("locale", v, "string")),
    };
    if locale.contains('\0') {
        return Err(Error::bad_value(format!(
            "Field 'locale' cannot contain null byte. Collation spec: {}",
            shown(spec)
        )));
    }
    if locale == "simple" {
        if spec.len() > 1 {
            return Err(Error::failed_to_parse(format!(
                "If locale=simple, no other fields should be present in: {}",
                shown(spec)
            )));
        }
        return Ok(None);
    }
    if locale.is_empty() {
        return Err(Error::bad_value(format!(
            "Field 'locale' cannot be the empty string in: {}",
            shown(spec)
        )));
    }
    let known = match locales::find(locale) {
        locales::Lookup::Offered(k) => k,
        locales::Lookup::NotOffered => {
            return Err(Error::not_supported(format!(
                "the collation locale '{locale}'"
            )))
        }
        locales::Lookup::Invalid => {
            return Err(Error::bad_value(format!(
                "Field 'locale' is invalid in: {}",
                shown(spec)
            )))
        }
    };
    if let Some(k) = spec.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(Error::location(
            40415,
            format!("BSON field 'collation.{k}' is an unknown field."),
        ));
    }
    let case_level = bool_field(spec, "caseLevel")?.unwrap_or(false);
    let case_first = match string_field(spec, "caseFirst")? {
        Some(s) => one_of("caseFirst", s, &["upper", "lower", "off"])?,
        None => known.case_first,
    };
    let strength = strength_field(spec)?.unwrap_or(3);
    let numeric = bool_field(spec, "numericOrdering")?.unwrap_or(false);
    let alternate = match string_field(spec, "alternate")? {
        Some(s) => one_of("alternate", s, &["non-ignorable", "shifted"])?,
        None => known.alternate,
    };
    let max_variable = match string_field(spec, "maxVariable")? {
        Some(s) => one_of("maxVariable", s, &["punct", "space"])?,
        None => "punct",
    };
    let normalization = bool_field(spec, "normalization")?.unwrap_or(known.normalization);
    let backwards = bool_field(spec, "backwards")?.unwrap_or(known.backwards);
    if let Some(version) = string_field(spec, "version")? {
        if version != VERSION {
            return Err(Error::new(
                    109,
                    "IncompatibleCollationVersion",
                    format!(
                        "Requested collation version {version} but the only available collator version was {VERSION}. Requested collation spec: {}",
                        shown(spec)
                    ),
                ));
        }
    }
    let resolved = bson::doc! {
        "locale": known.id,
        "caseLevel": case_level,
        "caseFirst": case_first,
        "strength": strength as i32,
        "numericOrdering": numeric,
        "alternate": alternate,
        "maxVariable": max_variable,
        "normalization": normalization,
        "backwards": backwards,
        "version": VERSION,
    };
    if backwards && strength == 1 {
        return Err(Error::bad_value(format!(
            "'backwards' is invalid with 'strength' of 1 in: {}",
            shown(&resolved)
        )));
    }
    if case_first != "off" && !case_level && strength < 3 {
        return Err(Error::bad_value(format!(
                "'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: {}",
                shown(&resolved)
            )));
    }
    // ICU4X sets backward secondary weighting only from a locale's data
    // (fr_CA), not as an option.
    if backwards != known.backwards {
        return Err(Error::not_supported(format!(
            "backwards: {backwards} with locale '{}'",
            known.id
        )));
    }
    let mut prefs = CollatorPreferences::from(&known.tag());
    prefs.case_first = Some(match case_first {
        "upper" => CollationCaseFirst::Upper,
        "lower" => CollationCaseFirst::Lower,
        _ => CollationCaseFirst::False,
    });
    prefs.numeric_ordering = Some(if numeric {
        CollationNumericOrdering::True
    } else {
        CollationNumericOrdering::False
    });
    let mut options = CollatorOptions::default();
    options.strength = Some(match strength {
        1 => Strength::Primary,
        2 => Strength::Secondary,
        3 => Strength::Tertiary,
        4 => Strength::Quaternary,
        _ => Strength::Identical,
    });
    options.case_level = Some(if case_level {
        CaseLevel::On
    } else {
        CaseLevel::Off
    });
    options.alternate_handling = Some(if alternate == "shifted" {
        AlternateHandling::Shifted
    } else {
        AlternateHandling::NonIgnorable
    });
    options.max_variable = Some(if max_variable == "space" {
        MaxVariable::Space
    } else {
        MaxVariable::Punctuation
    });
    let collator = data::collator(prefs, options).map_err(|e| {
        Error::new(
            96,
            "OperationFailed",
            format!("Failed to create collator: {e}"),
        )
    })?;
    Ok(Some(Rc::new(Collation::new(resolved, collator))))
}
