//! A document's entries by position. bson's `Document` is an `IndexMap`
//! underneath but offers only its iterator, whose `next` the page's
//! size-optimised wasm calls (not inlines) once per field: reaching field `p`
//! cost `p + 1` calls and most of a scan's time. The map's own slice gives
//! any entry by position with one bounds check.
use bson::{Bson, Document};
use indexmap::map::Slice;
use indexmap::IndexMap;

/// The map a bson 3 `Document` holds: its only field.
type Inner = IndexMap<String, Bson, ahash::RandomState>;

// The cast below relies on `Document` being exactly that map.
const _: () = assert!(std::mem::size_of::<Document>() == std::mem::size_of::<Inner>());
const _: () = assert!(std::mem::align_of::<Document>() == std::mem::align_of::<Inner>());

/// The entries of `doc`, in its order.
#[inline(always)]
pub fn of(doc: &Document) -> &Slice<String, Bson> {
    // SAFETY: bson 3's `Document` is `struct Document { inner: IndexMap<String,
    // Bson, ahash::RandomState> }` (bson-3.1.0/src/document.rs), a struct with
    // one field, laid out as that field (size and alignment checked above;
    // Cargo.toml pins bson, indexmap and ahash to the versions bson uses, and
    // the test below compares every entry with bson's own iterator). The
    // reference is only read.
    let inner = unsafe { &*(doc as *const Document).cast::<Inner>() };
    inner.as_slice()
}

/// Where `name` sits in `doc`, through the map's hash table (for wide
/// documents, where a linear scan costs more).
pub fn index_of(doc: &Document, name: &str) -> Option<usize> {
    // SAFETY: as in `of`.
    let inner = unsafe { &*(doc as *const Document).cast::<Inner>() };
    inner.get_index_of(name)
}

/// An empty document with room for exactly `n` fields: its hash table and
/// entries allocated once, at that size (a `Document` grows by doubling and
/// reserves as many entries as its table holds: 7 entries of 96 bytes on
/// wasm32 for a 4-field document).
pub fn with_capacity(n: usize) -> Document {
    let inner = Inner::with_capacity_and_hasher(n, ahash::RandomState::new());
    // SAFETY: as in `of`: a `Document` is exactly this map (size checked
    // by `transmute` itself), and `Document::new` builds the same map with the
    // same hasher (`IndexMap::default()`).
    unsafe { std::mem::transmute::<Inner, Document>(inner) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_the_documents_own() {
        let mut doc = bson::doc! {"a": 1, "b": {"c": [1, 2]}, "": "empty", "d.e": null};
        for _ in 0..3 {
            let by_position = of(&doc);
            assert_eq!(by_position.len(), doc.len());
            for (i, (k, v)) in doc.iter().enumerate() {
                assert_eq!(by_position.get_index(i), Some((k, v)));
            }
            assert_eq!(by_position.get_index(doc.len()), None);
            for (i, k) in doc.keys().enumerate() {
                assert_eq!(index_of(&doc, k), Some(i));
            }
            assert_eq!(index_of(&doc, "nope"), None);
            // Changes through bson's API show through the slice.
            doc.remove("a");
            doc.insert("z", 2.5);
        }
        assert!(of(&bson::Document::new()).is_empty());
        let mut built = with_capacity(2);
        built.insert("x", 1);
        built.insert("y", "two");
        built.insert("z", 3.0);
        assert_eq!(built, bson::doc! {"x": 1, "y": "two", "z": 3.0});
        assert_eq!(built.get("y"), Some(&Bson::String("two".into())));
    }
}
