//! Writing a `Document` as BSON bytes (bson's own encoder goes through
//! serde and costs several times more, which every load would pay).
//! The bytes equal bson's (tested for every type).
use bson::spec::BinarySubtype;
use bson::{Bson, Document};

/// Nesting beyond this is refused (stored documents stop far earlier, at
/// `value::size::MAX_DEPTH`).
const MAX_NESTING: usize = 400;

/// The document's bytes, or `None` for what BSON cannot hold (a NUL in a
/// key or a regex, nesting past [`MAX_NESTING`], a size past `i32`).
pub(super) fn encode(doc: &Document) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(crate::value::size::doc_size(doc));
    write_doc(&mut out, doc.iter().map(|(k, v)| (k.as_str(), v)), 0)?;
    Some(out)
}

fn cstr(out: &mut Vec<u8>, s: &str) -> Option<()> {
    if s.as_bytes().contains(&0) {
        return None;
    }
    out.extend_from_slice(s.as_bytes());
    out.push(0);
    Some(())
}

fn string(out: &mut Vec<u8>, s: &str) -> Option<()> {
    let n = i32::try_from(s.len() + 1).ok()?;
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    out.push(0);
    Some(())
}

fn write_doc<'a>(
    out: &mut Vec<u8>,
    entries: impl Iterator<Item = (&'a str, &'a Bson)>,
    depth: usize,
) -> Option<()> {
    if depth > MAX_NESTING {
        return None;
    }
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    for (k, v) in entries {
        out.push(v.element_type() as u8);
        cstr(out, k)?;
        write_value(out, v, depth)?;
    }
    out.push(0);
    let len = i32::try_from(out.len() - start).ok()?;
    out.get_mut(start..start + 4)?
        .copy_from_slice(&len.to_le_bytes());
    Some(())
}

fn write_value(out: &mut Vec<u8>, v: &Bson, depth: usize) -> Option<()> {
    match v {
        Bson::Double(d) => out.extend_from_slice(&d.to_le_bytes()),
        Bson::String(s) | Bson::JavaScriptCode(s) | Bson::Symbol(s) => string(out, s)?,
        Bson::Document(d) => write_doc(out, d.iter().map(|(k, v)| (k.as_str(), v)), depth + 1)?,
        Bson::Array(a) => {
            let keys: Vec<String> = (0..a.len()).map(|i| i.to_string()).collect();
            write_doc(
                out,
                keys.iter().map(String::as_str).zip(a.iter()),
                depth + 1,
            )?
        }
        Bson::Binary(b) => {
            let old = b.subtype == BinarySubtype::BinaryOld;
            let inner = b.bytes.len() + if old { 4 } else { 0 };
            out.extend_from_slice(&i32::try_from(inner).ok()?.to_le_bytes());
            out.push(u8::from(b.subtype));
            if old {
                out.extend_from_slice(&i32::try_from(b.bytes.len()).ok()?.to_le_bytes());
            }
            out.extend_from_slice(&b.bytes);
        }
        Bson::ObjectId(id) => out.extend_from_slice(&id.bytes()),
        Bson::Boolean(b) => out.push(u8::from(*b)),
        Bson::DateTime(d) => out.extend_from_slice(&d.timestamp_millis().to_le_bytes()),
        Bson::RegularExpression(r) => {
            cstr(out, r.pattern.as_str())?;
            cstr(out, r.options.as_str())?;
        }
        Bson::Int32(i) => out.extend_from_slice(&i.to_le_bytes()),
        Bson::Int64(i) => out.extend_from_slice(&i.to_le_bytes()),
        Bson::Timestamp(t) => {
            out.extend_from_slice(&t.increment.to_le_bytes());
            out.extend_from_slice(&t.time.to_le_bytes());
        }
        Bson::Decimal128(d) => out.extend_from_slice(&d.bytes()),
        Bson::Null | Bson::Undefined | Bson::MinKey | Bson::MaxKey => {}
        // Deprecated types with private parts: bson's encoder, on the value alone.
        Bson::DbPointer(_) | Bson::JavaScriptCodeWithScope(_) => {
            let mut alone = Document::new();
            alone.insert("", v.clone());
            let bytes = alone.to_vec().ok()?;
            // Length, type byte, the empty key's NUL: then the value, then the final NUL.
            out.extend_from_slice(bytes.get(6..bytes.len().checked_sub(1)?)?);
        }
    }
    Some(())
}
