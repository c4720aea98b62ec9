//! Relaxed Extended JSON written straight to text in one pass, byte for byte what
//! `serde_json::to_string(&value.clone().into_relaxed_extjson())` gives (a property
//! test holds the two together) without building a `serde_json::Value` tree: the
//! page hands this text to `JSON.parse`, which is many times faster than building
//! JS objects value by value. Dates, the bulk of many results, get a direct formatter.
use bson::{Bson, Document};
use std::fmt::Write as _;

/// Append `value` as relaxed Extended JSON.
pub fn write_value(out: &mut String, value: &Bson) {
    match value {
        Bson::Double(v) => write_double(out, *v),
        Bson::String(s) => write_str(out, s),
        Bson::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Bson::Document(doc) => write_doc(out, doc),
        Bson::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Bson::Null => out.push_str("null"),
        Bson::RegularExpression(re) => {
            // bson sorts the options.
            let mut opts: Vec<char> = re.options.as_str().chars().collect();
            crate::sorting::sort(&mut opts);
            let opts: String = opts.into_iter().collect();
            out.push_str("{\"$regularExpression\":{\"pattern\":");
            write_str(out, re.pattern.as_str());
            out.push_str(",\"options\":");
            write_str(out, &opts);
            out.push_str("}}");
        }
        Bson::JavaScriptCode(code) => {
            out.push_str("{\"$code\":");
            write_str(out, code);
            out.push('}');
        }
        Bson::JavaScriptCodeWithScope(cws) => {
            out.push_str("{\"$code\":");
            write_str(out, &cws.code);
            out.push_str(",\"$scope\":");
            write_doc(out, &cws.scope);
            out.push('}');
        }
        Bson::Int32(v) => {
            let _ = write!(out, "{v}");
        }
        Bson::Int64(v) => {
            let _ = write!(out, "{v}");
        }
        Bson::Timestamp(ts) => {
            let _ = write!(
                out,
                "{{\"$timestamp\":{{\"t\":{},\"i\":{}}}}}",
                ts.time, ts.increment
            );
        }
        Bson::Binary(bin) => {
            out.push_str("{\"$binary\":{\"base64\":\"");
            crate::base64::encode_into(crate::base64::Alphabet::Standard, &bin.bytes, out);
            let sub: u8 = bin.subtype.into();
            let _ = write!(out, "\",\"subType\":\"{sub:02x}\"}}}}");
        }
        Bson::ObjectId(oid) => {
            out.push_str("{\"$oid\":\"");
            write_hex(out, &oid.bytes());
            out.push_str("\"}");
        }
        Bson::DateTime(dt) => write_date(out, dt.timestamp_millis()),
        Bson::Symbol(s) => {
            out.push_str("{\"$symbol\":");
            write_str(out, s);
            out.push('}');
        }
        Bson::Decimal128(d) => {
            let _ = write!(out, "{{\"$numberDecimal\":\"{d}\"}}");
        }
        Bson::Undefined => out.push_str("{\"$undefined\":true}"),
        Bson::MinKey => out.push_str("{\"$minKey\":1}"),
        Bson::MaxKey => out.push_str("{\"$maxKey\":1}"),
        Bson::DbPointer(p) => match db_pointer_parts(p) {
            Some((ns, id)) => {
                out.push_str("{\"$dbPointer\":{\"$ref\":");
                write_str(out, &ns);
                let _ = write!(out, ",\"$id\":{{\"$oid\":\"{id}\"}}}}}}");
            }
            None => out.push_str("null"),
        },
    }
}

/// A DBPointer's namespace and id. bson keeps the fields private, so they are
/// read back from the BSON bytes of `{"": pointer}` (a rare, deprecated type).
pub(crate) fn db_pointer_parts(p: &bson::DbPointer) -> Option<(String, bson::oid::ObjectId)> {
    let bytes = bson::doc! { "": Bson::DbPointer(p.clone()) }
        .to_vec()
        .ok()?;
    // int32 size, type 0x0C, empty key, int32 length of the namespace with its NUL.
    let len = usize::try_from(i32::from_le_bytes(bytes.get(6..10)?.try_into().ok()?)).ok()?;
    let ns = std::str::from_utf8(bytes.get(10..(10 + len).checked_sub(1)?)?).ok()?;
    let id: [u8; 12] = bytes.get(10 + len..22 + len)?.try_into().ok()?;
    (bytes.get(4..6)? == [0x0C, 0]).then(|| (ns.to_string(), bson::oid::ObjectId::from_bytes(id)))
}

/// Append a document as a relaxed Extended JSON object.
pub fn write_doc(out: &mut String, doc: &Document) {
    out.push('{');
    // By position: bson's iterator is a call per field in the page's wasm.
    for (i, (k, v)) in crate::value::entries::of(doc).iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(out, k);
        out.push(':');
        write_value(out, v);
    }
    out.push('}');
}

/// Append documents (stored or borrowed ones) as one JSON array.
pub fn write_docs<'a>(out: &mut String, docs: impl IntoIterator<Item = &'a Document>) {
    out.push('[');
    for (i, d) in docs.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_doc(out, d);
    }
    out.push(']');
}

/// Relaxed Extended JSON of one value as a string.
pub fn to_string(value: &Bson) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_double(out: &mut String, v: f64) {
    if v.is_nan() {
        out.push_str(if v.is_sign_negative() {
            "{\"$numberDouble\":\"-NaN\"}"
        } else {
            "{\"$numberDouble\":\"NaN\"}"
        });
    } else if v.is_infinite() {
        out.push_str(if v.is_sign_negative() {
            "{\"$numberDouble\":\"-Infinity\"}"
        } else {
            "{\"$numberDouble\":\"Infinity\"}"
        });
    } else {
        // serde_json's own float formatting (shortest round trip, `1.0`, `1e21`):
        // its `Number` prints as its serializer writes.
        if let Some(n) = serde_json::Number::from_f64(v) {
            let _ = write!(out, "{n}");
        }
    }
}

/// A JSON string literal, escaped exactly as serde_json escapes.
pub fn write_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        // Every byte matched above is ASCII, so `i` is a char boundary.
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

fn write_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 15)] as char);
    }
}

/// Milliseconds of 9999-12-31T23:59:59.999Z: the last date bson writes as a string.
const MAX_STRING_DATE: i64 = 253_402_300_799_999;

/// `{"$date":"1970-01-01T00:00:00Z"}` for years 1970–9999 (RFC 3339: fraction only
/// when non-zero, trailing zeros dropped), else `{"$date":{"$numberLong":"…"}}`.
fn write_date(out: &mut String, millis: i64) {
    if !(0..=MAX_STRING_DATE).contains(&millis) {
        let _ = write!(out, "{{\"$date\":{{\"$numberLong\":\"{millis}\"}}}}");
        return;
    }
    let days = millis.div_euclid(86_400_000);
    let ms_of_day = millis.rem_euclid(86_400_000);
    let (y, m, d) = crate::value::calendar::civil_from_days(days);
    let secs = ms_of_day / 1000;
    let ms = ms_of_day % 1000;
    let mut buf = [0u8; 24];
    put4(&mut buf[0..4], y);
    buf[4] = b'-';
    put2(&mut buf[5..7], m);
    buf[7] = b'-';
    put2(&mut buf[8..10], d);
    buf[10] = b'T';
    put2(&mut buf[11..13], secs / 3600);
    buf[13] = b':';
    put2(&mut buf[14..16], secs / 60 % 60);
    buf[16] = b':';
    put2(&mut buf[17..19], secs % 60);
    let mut len = 19;
    if ms != 0 {
        buf[19] = b'.';
        buf[20] = b'0' + (ms / 100) as u8;
        buf[21] = b'0' + (ms / 10 % 10) as u8;
        buf[22] = b'0' + (ms % 10) as u8;
        len = 23;
        while buf[len - 1] == b'0' {
            len -= 1;
        }
    }
    out.push_str("{\"$date\":\"");
    out.push_str(std::str::from_utf8(&buf[..len]).unwrap_or_default());
    out.push_str("Z\"}");
}

fn put2(dst: &mut [u8], v: i64) {
    dst[0] = b'0' + (v / 10 % 10) as u8;
    dst[1] = b'0' + (v % 10) as u8;
}

fn put4(dst: &mut [u8], v: i64) {
    put2(&mut dst[0..2], v / 100);
    put2(&mut dst[2..4], v % 100);
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
