//! A value read in place from a stored document, borrowing its bytes.
use super::{le_i32, DocView, Element};
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Decimal128, Timestamp};

/// One BSON value, borrowed. Strings are the stored UTF-8; sub-documents and
/// arrays are views. The deprecated DBPointer and code-with-scope keep their
/// bytes (read through bson's decoder when a value is needed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RawValue<'a> {
    Double(f64),
    String(&'a str),
    Document(DocView<'a>),
    Array(DocView<'a>),
    Binary { subtype: u8, bytes: &'a [u8] },
    Undefined,
    ObjectId([u8; 12]),
    Boolean(bool),
    DateTime(i64),
    Null,
    Regex { pattern: &'a str, options: &'a str },
    DbPointer(&'a [u8]),
    JavaScriptCode(&'a str),
    Symbol(&'a str),
    JavaScriptCodeWithScope(&'a [u8]),
    Int32(i32),
    Timestamp { time: u32, increment: u32 },
    Int64(i64),
    Decimal128([u8; 16]),
    MinKey,
    MaxKey,
}

fn fixed<const N: usize>(b: &[u8]) -> Option<[u8; N]> {
    b.get(..N)?.try_into().ok()
}

/// A length-prefixed, NUL-terminated string.
fn string(b: &[u8]) -> Option<&str> {
    let n = usize::try_from(le_i32(b, 0)?).ok()?;
    let text = b.get(4..(4 + n).checked_sub(1)?)?;
    std::str::from_utf8(text).ok()
}

fn cstr(b: &[u8]) -> Option<(&str, &[u8])> {
    let p = b.iter().position(|&c| c == 0)?;
    let s = std::str::from_utf8(b.get(..p)?).ok()?;
    Some((s, b.get(p + 1..)?))
}

impl<'a> RawValue<'a> {
    /// The value of an element the walker found (its bytes have the length
    /// its type gives).
    #[inline(always)]
    pub(super) fn of(e: Element<'a>) -> Option<RawValue<'a>> {
        let v = e.value;
        Some(match e.ty {
            0x01 => RawValue::Double(f64::from_le_bytes(fixed(v)?)),
            0x02 => RawValue::String(string(v)?),
            0x03 => RawValue::Document(DocView::new(v)?),
            0x04 => RawValue::Array(DocView::new(v)?),
            0x05 => {
                let subtype = *v.get(4)?;
                let mut bytes = v.get(5..)?;
                // The old binary subtype repeats the length inside its bytes.
                if subtype == 0x02 {
                    bytes = bytes.get(4..)?;
                }
                RawValue::Binary { subtype, bytes }
            }
            0x06 => RawValue::Undefined,
            0x07 => RawValue::ObjectId(fixed(v)?),
            0x08 => RawValue::Boolean(*v.first()? != 0),
            0x09 => RawValue::DateTime(i64::from_le_bytes(fixed(v)?)),
            0x0A => RawValue::Null,
            0x0B => {
                let (pattern, rest) = cstr(v)?;
                let (options, _) = cstr(rest)?;
                RawValue::Regex { pattern, options }
            }
            0x0C => RawValue::DbPointer(v),
            0x0D => RawValue::JavaScriptCode(string(v)?),
            0x0E => RawValue::Symbol(string(v)?),
            0x0F => RawValue::JavaScriptCodeWithScope(v),
            0x10 => RawValue::Int32(i32::from_le_bytes(fixed(v)?)),
            0x11 => {
                let [i0, i1, i2, i3, t0, t1, t2, t3] = fixed(v)?;
                RawValue::Timestamp {
                    increment: u32::from_le_bytes([i0, i1, i2, i3]),
                    time: u32::from_le_bytes([t0, t1, t2, t3]),
                }
            }
            0x12 => RawValue::Int64(i64::from_le_bytes(fixed(v)?)),
            0x13 => RawValue::Decimal128(fixed(v)?),
            0x7F => RawValue::MaxKey,
            0xFF => RawValue::MinKey,
            _ => return None,
        })
    }

    /// The BSON type byte.
    pub fn element_type(&self) -> u8 {
        match self {
            RawValue::Double(_) => 0x01,
            RawValue::String(_) => 0x02,
            RawValue::Document(_) => 0x03,
            RawValue::Array(_) => 0x04,
            RawValue::Binary { .. } => 0x05,
            RawValue::Undefined => 0x06,
            RawValue::ObjectId(_) => 0x07,
            RawValue::Boolean(_) => 0x08,
            RawValue::DateTime(_) => 0x09,
            RawValue::Null => 0x0A,
            RawValue::Regex { .. } => 0x0B,
            RawValue::DbPointer(_) => 0x0C,
            RawValue::JavaScriptCode(_) => 0x0D,
            RawValue::Symbol(_) => 0x0E,
            RawValue::JavaScriptCodeWithScope(_) => 0x0F,
            RawValue::Int32(_) => 0x10,
            RawValue::Timestamp { .. } => 0x11,
            RawValue::Int64(_) => 0x12,
            RawValue::Decimal128(_) => 0x13,
            RawValue::MaxKey => 0x7F,
            RawValue::MinKey => 0xFF,
        }
    }

    /// The value as an owned `Bson` (what leaves the store).
    pub fn to_bson(&self) -> crate::error::Result<Bson> {
        Ok(match *self {
            RawValue::Double(d) => Bson::Double(d),
            RawValue::String(s) => Bson::String(s.to_string()),
            RawValue::Document(d) => Bson::Document(d.decode()?),
            RawValue::Array(a) => Bson::Array(a.decode_array()?),
            RawValue::Binary { subtype, bytes } => Bson::Binary(Binary {
                subtype: BinarySubtype::from(subtype),
                bytes: bytes.to_vec(),
            }),
            RawValue::Undefined => Bson::Undefined,
            RawValue::ObjectId(b) => Bson::ObjectId(bson::oid::ObjectId::from_bytes(b)),
            RawValue::Boolean(b) => Bson::Boolean(b),
            RawValue::DateTime(ms) => Bson::DateTime(bson::DateTime::from_millis(ms)),
            RawValue::Null => Bson::Null,
            RawValue::Int32(i) => Bson::Int32(i),
            RawValue::Int64(i) => Bson::Int64(i),
            RawValue::Timestamp { time, increment } => {
                Bson::Timestamp(Timestamp { time, increment })
            }
            RawValue::Decimal128(b) => Bson::Decimal128(Decimal128::from_bytes(b)),
            RawValue::MinKey => Bson::MinKey,
            RawValue::MaxKey => Bson::MaxKey,
            RawValue::JavaScriptCode(s) => Bson::JavaScriptCode(s.to_string()),
            RawValue::Symbol(s) => Bson::Symbol(s.to_string()),
            // Rare types: bson's decoder, on a one-element document around the value.
            RawValue::Regex { .. }
            | RawValue::DbPointer(_)
            | RawValue::JavaScriptCodeWithScope(_) => self.decode_alone()?,
        })
    }

    fn decode_alone(&self) -> crate::error::Result<Bson> {
        let mut value = Vec::new();
        match *self {
            RawValue::Regex { pattern, options } => {
                for s in [pattern, options] {
                    value.extend_from_slice(s.as_bytes());
                    value.push(0);
                }
            }
            RawValue::DbPointer(b) | RawValue::JavaScriptCodeWithScope(b) => {
                value.extend_from_slice(b)
            }
            _ => return Err(super::malformed("not a rare type")),
        }
        let len = 4 + 1 + 1 + value.len() + 1;
        let mut bytes = Vec::with_capacity(len);
        bytes.extend_from_slice(&i32::try_from(len).map_err(super::malformed)?.to_le_bytes());
        bytes.push(self.element_type());
        bytes.push(0);
        bytes.extend_from_slice(&value);
        bytes.push(0);
        let doc = super::DocView { bytes: &bytes }.decode()?;
        doc.into_iter()
            .next()
            .map(|(_, v)| v)
            .ok_or_else(|| super::malformed("empty"))
    }
}
