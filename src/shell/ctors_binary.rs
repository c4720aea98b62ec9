//! mongosh's binary constructors (`BinData`, `HexData`, `UUID`, and the
//! base64 and hex readers `Binary.createFrom*` share), reading their text as
//! Node's `Buffer` does.
use super::ctors::to_number;
use super::lower::LowerCtx;
use crate::error::{Error, Result};
use bson::spec::BinarySubtype;
use bson::{Binary, Bson};

pub(super) fn binary_subtype(v: Option<&Bson>) -> Result<BinarySubtype> {
    match v {
        None | Some(Bson::Null | Bson::Undefined) => Ok(BinarySubtype::Generic),
        some => subtype_arg(some),
    }
}

/// Node's `Buffer.from(s, "base64")`, which mongosh's `BinData` and
/// `Binary.createFromBase64` call: both alphabets, other characters skipped,
/// decoding stops at `=`, and bits that do not fill a byte are dropped.
pub(super) fn node_base64(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in s.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => continue,
        };
        acc = (acc << 6 | u32::from(v)) & 0xffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// Node's `Buffer.from(s, "hex")`: pairs of hex digits up to the first bad pair.
pub(super) fn node_hex(s: &str) -> Vec<u8> {
    s.as_bytes()
        .chunks_exact(2)
        .map_while(|pair| {
            let digit = |b: u8| (b as char).to_digit(16);
            Some((digit(pair[0])? << 4 | digit(pair[1])?) as u8)
        })
        .collect()
}

pub(super) fn subtype_arg(v: Option<&Bson>) -> Result<BinarySubtype> {
    let n = v.map_or(f64::NAN, to_number);
    if n.fract() == 0.0 && (0.0..=255.0).contains(&n) {
        Ok(BinarySubtype::from(n as u8))
    } else {
        Err(Error::bad_value(
            "BinData: the subtype must be a number from 0 to 255",
        ))
    }
}

pub(super) fn bindata(vals: &[Bson]) -> Result<Bson> {
    let subtype = subtype_arg(vals.first())?;
    let Some(Bson::String(b64)) = vals.get(1) else {
        return Err(Error::bad_value(
            "BinData: the data must be a base64 string",
        ));
    };
    Ok(Bson::Binary(Binary {
        subtype,
        bytes: node_base64(b64),
    }))
}

pub(super) fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

pub(super) fn hexdata(vals: &[Bson]) -> Result<Bson> {
    let subtype = subtype_arg(vals.first())?;
    match vals.get(1) {
        Some(Bson::String(h)) => hex_bytes(h)
            .map(|bytes| Bson::Binary(Binary { subtype, bytes }))
            .ok_or_else(|| {
                Error::bad_value("HexData: the data must be a string of hex digit pairs")
            }),
        _ => Err(Error::bad_value("HexData: the data must be a hex string")),
    }
}

/// `UUID("…")` (32 hex digits, dashes allowed) → binary subtype 4; `UUID()` makes one.
pub(super) fn uuid(arg: Option<&Bson>, ctx: &LowerCtx) -> Result<Bson> {
    let bytes = match arg {
        None | Some(Bson::Null) => {
            let (a, b) = (ctx.new_id.new_id().bytes(), ctx.new_id.new_id().bytes());
            let mut u = [0u8; 16];
            u[..12].copy_from_slice(&a);
            u[12..].copy_from_slice(&b[8..]);
            u[6] = (u[6] & 0x0f) | 0x40; // version 4
            u[8] = (u[8] & 0x3f) | 0x80; // RFC 4122 variant
            u.to_vec()
        }
        Some(Bson::String(s)) => {
            let hex: String = s.chars().filter(|&c| c != '-').collect();
            hex_bytes(&hex)
                .filter(|b| b.len() == 16)
                .ok_or_else(|| Error::bad_value("BSONError: UUID string representation must be 32 hex digits or canonical hyphenated representation"))?
        }
        Some(_) => return Err(Error::bad_value("UUID: expected a hex string")),
    };
    Ok(Bson::Binary(Binary {
        subtype: BinarySubtype::Uuid,
        bytes,
    }))
}
