//! Where a collection's documents sit in memory. A document read from a
//! configuration is built piece by piece among the reader's temporaries (its
//! field vector grows and moves, freed tokens leave holes that later keys and
//! strings fill), so one document's entries, keys and strings end up spread
//! over the heap and a scan meets a cache miss at each. Copying the
//! documents once, in order, into fresh memory puts each document's pieces
//! side by side and the documents one after another, which the CPU's own
//! sequential prefetching then follows (wasm has no software prefetch).
use bson::Document;

/// The same documents, copied in order into fresh allocations.
pub fn compact(docs: Vec<Document>) -> Vec<Document> {
    if std::env::var_os("MQLPLAY_NO_COMPACT").is_some() {
        return docs;
    }
    // The copies are made while the originals still hold their memory, so
    // they cannot reuse the originals' scattered blocks.
    let copies = docs.to_vec();
    drop(docs);
    copies
}
