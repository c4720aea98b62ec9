//! `$convert` between strings and binData (MongoDB 8.0): `format` is one of
//! base64, base64url, hex, utf8, uuid. Numeric ↔ binData (`byteOrder`) is not supported.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/convert/
use crate::base64::{decode, encode, Alphabet, Padding};
use crate::error::{Error, Result};
use bson::spec::BinarySubtype;
use bson::{Binary, Bson};

fn failure(msg: impl Into<String>) -> Error {
    Error::conversion_failure(msg)
}

const FORMATS: &[&str] = &["base64", "base64url", "hex", "utf8", "uuid", "auto"];

/// Check a `format` value (a BadValue when unknown; MongoDB's code is unverified).
pub(crate) fn check_format(f: &str) -> Result<()> {
    if FORMATS.contains(&f) {
        Ok(())
    } else {
        Err(Error::bad_value(format!(
            "Invalid format value for $convert: {f}"
        )))
    }
}

fn parse_uuid(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.len() != 36 || [8, 13, 18, 23].iter().any(|&i| b[i] != b'-') {
        return None;
    }
    let hex: String = s.chars().filter(|c| *c != '-').collect();
    decode_hex(&hex)
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

/// A string → binData of `subtype` with `format`.
pub(crate) fn string_to_bin(s: &str, format: Option<&str>, subtype: u8) -> Result<Bson> {
    let Some(format) = format else {
        return Err(failure(
            "Format must be specified when converting from 'string' to 'binData'",
        ));
    };
    let bad = || {
        failure(format!(
            "Failed to parse BinData '{s}' in $convert with no onError value: invalid {format} input"
        ))
    };
    // The server (parseStringToBinData, 4341116 turned into a ConversionFailure):
    // the uuid format and the UUID subtype go together, both ways.
    if (format == "uuid") != (subtype == 4) {
        return Err(failure(format!(
            "Failed to parse BinData '{s}' in $convert with no onError value: Only the 'uuid' format is allowed with the UUID subtype"
        )));
    }
    let bytes = match format {
        "base64" | "auto" => {
            decode(Alphabet::Standard, Padding::Canonical, s.as_bytes()).map_err(|_| bad())?
        }
        "base64url" => decode(
            Alphabet::UrlNoPad,
            Padding::None,
            s.trim_end_matches('=').as_bytes(),
        )
        .map_err(|_| bad())?,
        "hex" => decode_hex(s).ok_or_else(bad)?,
        "utf8" => s.as_bytes().to_vec(),
        _ => parse_uuid(s).ok_or_else(bad)?,
    };
    Ok(Bson::Binary(Binary {
        subtype: BinarySubtype::from(subtype),
        bytes,
    }))
}

/// binData → string with `format`.
pub(crate) fn bin_to_string(b: &Binary, format: Option<&str>) -> Result<Bson> {
    let Some(format) = format else {
        return Err(failure(
            "Format must be specified when converting from 'binData' to 'string'",
        ));
    };
    let hex = |bytes: &[u8]| bytes.iter().map(|x| format!("{x:02X}")).collect::<String>();
    Ok(Bson::String(match format {
        "base64" => encode(Alphabet::Standard, &b.bytes),
        "base64url" => encode(Alphabet::UrlNoPad, &b.bytes),
        "hex" => hex(&b.bytes),
        "utf8" => String::from_utf8(b.bytes.clone())
            .map_err(|_| failure("Failed to convert binData to a UTF-8 string: invalid UTF-8"))?,
        "uuid" | "auto" if u8::from(b.subtype) == 4 && b.bytes.len() == 16 => {
            let h = hex(&b.bytes).to_ascii_lowercase();
            format!(
                "{}-{}-{}-{}-{}",
                &h[..8],
                &h[8..12],
                &h[12..16],
                &h[16..20],
                &h[20..]
            )
        }
        "auto" => encode(Alphabet::Standard, &b.bytes),
        _ => {
            return Err(failure(
                "Only binData of the UUID subtype (4) can be converted with the 'uuid' format",
            ))
        }
    }))
}
