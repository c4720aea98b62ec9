//! BSON sizes: what a document takes on disk and on the wire (`Object.bsonsize`,
//! `$bsonSize`, collection stats, the 16 MiB document limit).
use bson::Document;

/// MongoDB's maximum document size (16 MiB).
pub const MAX_DOCUMENT_SIZE: usize = 16 * 1024 * 1024;

/// The encoded size of a document in bytes.
pub fn bson_size(doc: &Document) -> usize {
    // Encoding only fails for keys with NUL bytes, which the reader cannot produce;
    // fall back to 0 rather than panic.
    doc.to_vec().map_or(0, |v| v.len())
}
