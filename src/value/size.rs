//! BSON sizes and nesting: what a document takes on disk and on the wire
//! (`Object.bsonsize`, `$bsonSize`, collection stats), and the limits every
//! stored document obeys (16 MiB, 180 levels).
use bson::{Bson, Document};

/// MongoDB's maximum document size (16 MiB, BSONObjMaxUserSize).
pub const MAX_DOCUMENT_SIZE: usize = 16 * 1024 * 1024;

/// The encoded size of a document in bytes.
pub fn bson_size(doc: &Document) -> usize {
    // Encoding only fails for keys with NUL bytes, which the reader cannot produce;
    // fall back to 0 rather than panic.
    doc.to_vec().map_or(0, |v| v.len())
}

/// BSONDepth::getMaxDepthForUserStorage(): 200 minus 20 system levels.
pub const MAX_DEPTH: usize = 180;

/// The serialized size of a document, computed without serializing.
pub fn doc_size(d: &Document) -> usize {
    // A loop over the entries' slice: bson's iterator is a call per field
    // in the page's size-optimized wasm.
    let mut n = 5;
    for (k, v) in crate::value::entries::of(d) {
        n += 2 + k.len() + scalar_size(v).unwrap_or_else(|| value_size(v));
    }
    n
}

/// The common scalars' sizes, inlined into the loops (`value_size` recurses,
/// so it is a call per field).
#[inline(always)]
fn scalar_size(v: &Bson) -> Option<usize> {
    match v {
        Bson::Double(_) | Bson::Int64(_) | Bson::DateTime(_) => Some(8),
        Bson::Int32(_) => Some(4),
        Bson::String(s) => Some(5 + s.len()),
        _ => None,
    }
}

fn array_size(a: &[Bson]) -> usize {
    let mut n = 5;
    for (i, v) in a.iter().enumerate() {
        n += 2 + digits(i) + scalar_size(v).unwrap_or_else(|| value_size(v));
    }
    n
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
        // The old binary subtype (2) repeats the length inside its bytes.
        Bson::Binary(b) if b.subtype == bson::spec::BinarySubtype::BinaryOld => 9 + b.bytes.len(),
        Bson::Binary(b) => 5 + b.bytes.len(),
        Bson::ObjectId(_) => 12,
        Bson::Boolean(_) => 1,
        Bson::RegularExpression(r) => r.pattern.as_str().len() + r.options.as_str().len() + 2,
        Bson::JavaScriptCodeWithScope(c) => 4 + 5 + c.code.len() + doc_size(&c.scope),
        // bson keeps a DBPointer's namespace private: measure its encoding
        // (a one-field document: 4 + type + empty key + value + 1).
        Bson::DbPointer(_) => {
            let one = Document::from_iter([(String::new(), v.clone())]);
            bson_size(&one).saturating_sub(7)
        }
        Bson::Null | Bson::Undefined | Bson::MinKey | Bson::MaxKey => 0,
    }
}

/// [`doc_size`] and [`doc_levels`] in one walk over the document (what an
/// insert checks: a loaded collection's documents are read once, not twice).
pub fn doc_size_and_levels(d: &Document) -> (usize, usize) {
    let mut size = 5;
    let mut levels = 0;
    for (k, v) in crate::value::entries::of(d) {
        let (s, n) = value_size_and_nesting(v);
        size += 2 + k.len() + s;
        levels = levels.max(1 + n);
    }
    (size, levels)
}

/// [`value_size`] and [`nesting`] in one walk.
fn value_size_and_nesting(v: &Bson) -> (usize, usize) {
    match v {
        Bson::Document(d) => doc_size_and_levels(d),
        Bson::Array(a) => {
            let mut size = 5;
            let mut levels = 0;
            for (i, c) in a.iter().enumerate() {
                let (s, n) = value_size_and_nesting(c);
                size += 2 + digits(i) + s;
                levels = levels.max(1 + n);
            }
            (size, levels)
        }
        _ => (value_size(v), 0),
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

/// BSONDepth::getMaxAllowableDepth(): the deepest BSON the server builds.
pub const MAX_BSON_DEPTH: usize = 200;

/// Whether the server would refuse to build `d` as BSON (Document::toBson:
/// the document is level 1, each embedded document or array one more, at
/// most [`MAX_BSON_DEPTH`]). The recursion stops at that depth, however
/// deep `d` is, and allocates nothing.
pub fn too_deep_for_bson(d: &Document) -> bool {
    crate::value::entries::of(d)
        .values()
        .any(|v| container_too_deep(v, 1))
}

/// Whether `v`, an element at `level`, is a container at or below
/// [`MAX_BSON_DEPTH`] (recursion at most that deep).
fn container_too_deep(v: &Bson, level: usize) -> bool {
    match v {
        Bson::Document(d) => {
            level >= MAX_BSON_DEPTH
                || crate::value::entries::of(d)
                    .values()
                    .any(|c| container_too_deep(c, level + 1))
        }
        Bson::Array(a) => {
            level >= MAX_BSON_DEPTH || a.iter().any(|c| container_too_deep(c, level + 1))
        }
        _ => false,
    }
}

/// The server's error for a document built deeper than [`MAX_BSON_DEPTH`].
pub fn bson_depth_error() -> crate::error::Error {
    crate::error::Error::overflow(format!(
        "cannot convert document to BSON because it exceeds the limit of {MAX_BSON_DEPTH} levels of nesting"
    ))
}

/// The server's error for a document nested too deeply.
pub fn depth_error() -> crate::error::Error {
    crate::error::Error::overflow(format!(
        "Document exceeds maximum nesting depth of {MAX_DEPTH}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, doc};

    #[test]
    fn one_walk_gives_size_and_levels() {
        let docs = [
            doc! {},
            doc! {"a": 1},
            doc! {"a": [], "b": {}},
            doc! {"_id": 1, "s": "text", "d": {"e": [1, [2, {"f": null}]], "g": 2.5}},
            doc! {"x": [[[[]]]], "y": {"z": {"w": {}}}, "r": 1_i64, "t": true},
        ];
        for d in docs {
            assert_eq!(
                doc_size_and_levels(&d),
                (doc_size(&d), doc_levels(&d)),
                "{d}"
            );
            assert_eq!(doc_size(&d), bson_size(&d), "{d}");
        }
    }

    #[test]
    fn sizes_match_serialization() {
        let d = doc! {"_id": 1, "a": "xyz", "b": [1, 2.5, {"c": null}], "d": {"e": true}};
        assert_eq!(doc_size(&d), bson_size(&d));
        assert_eq!(nesting(&bson!([1, {"a": [1]}])), 3);
        assert_eq!(doc_levels(&doc! {"a": {"b": 1}}), 2);
    }

    #[test]
    fn sizes_match_serialization_for_the_rare_types() {
        let old = bson::Binary {
            subtype: bson::spec::BinarySubtype::BinaryOld,
            bytes: vec![1, 2, 3],
        };
        let pointer = Document::from_reader(
            &[
                0x1b, 0, 0, 0, 0x0c, b'p', 0, 3, 0, 0, 0, b'd', b'b', 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                10, 11, 12, 0,
            ][..],
        )
        .expect("a DBPointer document");
        let d = doc! {"old": old, "p": pointer.get("p").cloned().unwrap_or(Bson::Null), "arr": [ {"x": 1} ]};
        assert!(matches!(d.get("p"), Some(Bson::DbPointer(_))));
        assert_eq!(doc_size(&d), bson_size(&d));
    }

    /// `levels` documents, each the only field of the one above.
    fn nested(levels: usize) -> Document {
        let mut d = doc! {};
        for _ in 1..levels {
            d = doc! {"a": d};
        }
        d
    }

    #[test]
    fn the_bson_depth_limit_counts_the_top_document_as_level_one() {
        assert!(!too_deep_for_bson(&nested(MAX_BSON_DEPTH)));
        assert!(too_deep_for_bson(&nested(MAX_BSON_DEPTH + 1)));
        // An array is a level too, even empty.
        let wrapped = |times: usize| {
            let mut d = doc! {"x": bson!([])};
            for _ in 0..times {
                d = doc! {"a": d};
            }
            d
        };
        assert!(!too_deep_for_bson(&wrapped(MAX_BSON_DEPTH - 2)));
        assert!(too_deep_for_bson(&wrapped(MAX_BSON_DEPTH - 1)));
    }
}
