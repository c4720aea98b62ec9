//! Value helpers the update code needs: the server's "binary equal" test
//! (what decides whether a write modified anything), BSON size and nesting
//! depth limits.
use bson::{Bson, Document};

/// Largest document a write may produce (BSONObjMaxUserSize).
pub const MAX_DOC_SIZE: usize = 16 * 1024 * 1024;
/// BSONDepth::getMaxDepthForUserStorage(): 200 minus 20 system levels.
pub const MAX_DEPTH: usize = 180;

/// Same type, same value, same field order: what `binaryEqual` means.
pub fn identical(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Double(x), Bson::Double(y)) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        (Bson::Document(x), Bson::Document(y)) => identical_docs(x, y),
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| identical(a, b))
        }
        _ => a == b,
    }
}

pub fn identical_docs(x: &Document, y: &Document) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y.iter())
            .all(|((ka, va), (kb, vb))| ka == kb && identical(va, vb))
}

/// The serialized size of a document, computed without serializing.
pub fn doc_size(d: &Document) -> usize {
    5 + d
        .iter()
        .map(|(k, v)| 2 + k.len() + value_size(v))
        .sum::<usize>()
}

fn array_size(a: &[Bson]) -> usize {
    5 + a
        .iter()
        .enumerate()
        .map(|(i, v)| 2 + digits(i) + value_size(v))
        .sum::<usize>()
}

fn digits(mut i: usize) -> usize {
    let mut n = 1;
    while i >= 10 {
        i /= 10;
        n += 1;
    }
    n
}

pub fn value_size(v: &Bson) -> usize {
    match v {
        Bson::Double(_) | Bson::Int64(_) | Bson::DateTime(_) | Bson::Timestamp(_) => 8,
        Bson::Int32(_) => 4,
        Bson::Decimal128(_) => 16,
        Bson::String(s) | Bson::Symbol(s) | Bson::JavaScriptCode(s) => 5 + s.len(),
        Bson::Document(d) => doc_size(d),
        Bson::Array(a) => array_size(a),
        Bson::Binary(b) => 5 + b.bytes.len(),
        Bson::ObjectId(_) => 12,
        Bson::Boolean(_) => 1,
        Bson::RegularExpression(r) => r.pattern.as_str().len() + r.options.as_str().len() + 2,
        Bson::JavaScriptCodeWithScope(c) => 4 + 5 + c.code.len() + doc_size(&c.scope),
        Bson::DbPointer(_) => 5 + 12 + 64,
        Bson::Null | Bson::Undefined | Bson::MinKey | Bson::MaxKey => 0,
    }
}

/// How many container levels a value adds below its own element:
/// 0 for scalars and empty containers.
pub fn nesting(v: &Bson) -> usize {
    match v {
        Bson::Document(d) => d.values().map(|c| 1 + nesting(c)).max().unwrap_or(0),
        Bson::Array(a) => a.iter().map(|c| 1 + nesting(c)).max().unwrap_or(0),
        _ => 0,
    }
}

/// The deepest element level of a document (top-level fields are level 1).
pub fn doc_levels(d: &Document) -> usize {
    d.values().map(|v| 1 + nesting(v)).max().unwrap_or(0)
}

/// The server's error for a document nested too deeply.
pub fn depth_error() -> crate::error::Error {
    crate::error::Error::new(
        45,
        "Overflow",
        format!("Document exceeds maximum nesting depth of {MAX_DEPTH}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, doc};

    #[test]
    fn sizes_match_serialization() {
        let d = doc! {"_id": 1, "a": "xyz", "b": [1, 2.5, {"c": null}], "d": {"e": true}};
        let bytes = d.to_vec().unwrap_or_default();
        assert_eq!(doc_size(&d), bytes.len());
        assert_eq!(nesting(&bson!([1, {"a": [1]}])), 3);
        assert_eq!(doc_levels(&doc! {"a": {"b": 1}}), 2);
        assert!(!identical(&bson!(1), &bson!(1.0)));
        assert!(identical(&bson!({"a": [1]}), &bson!({"a": [1]})));
    }
}
