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

/// Builds the documents of one reader. A `Document` hashes every key it is
/// given, with a hasher state seeded anew for each document; a configuration
/// of 100,000 documents repeats a few keys, so this keeps one state for all
/// of its documents (cloned, not seeded again) and the hashes of the keys it
/// met last, and inserts each key with its known hash.
///
/// One state for every document of a reader is safe here: the text is the
/// user's own data, read in the user's own tab, so there is no one to mount
/// a collision (HashDoS) attack against.
pub struct Builder {
    state: ahash::RandomState,
    /// Keys and their hashes under `state`, by [`slot`] (empty until the
    /// first document).
    recent: Vec<Option<(Box<str>, u64)>>,
}

/// How many recent keys a [`Builder`] remembers (a power of two).
const SLOTS: usize = 256;

impl Default for Builder {
    fn default() -> Builder {
        Builder {
            state: ahash::RandomState::new(),
            recent: Vec::new(),
        }
    }
}

/// Where a key's hash is remembered: from its length and a few of its bytes
/// (cheap; two keys in one slot only cost a hash).
#[inline(always)]
fn slot(key: &[u8]) -> usize {
    let n = key.len();
    let byte = |i: usize| usize::from(key.get(i).copied().unwrap_or(0));
    let mix = n.wrapping_mul(0x9e37)
        ^ byte(0).wrapping_mul(0x45d)
        ^ (byte(n.wrapping_sub(1)) << 3)
        ^ byte(n / 2);
    (mix ^ (mix >> 8)) & (SLOTS - 1)
}

impl Builder {
    /// `key`'s hash under this builder's state (as `Document` computes it).
    #[inline]
    fn hash(&mut self, key: &str) -> u64 {
        if self.recent.is_empty() {
            self.recent.resize(SLOTS, None);
        }
        let at = slot(key.as_bytes());
        if let Some(Some((k, h))) = self.recent.get(at) {
            if **k == *key {
                return *h;
            }
        }
        let h = self.state.hash_one(key);
        if let Some(s) = self.recent.get_mut(at) {
            *s = Some((Box::from(key), h));
        }
        h
    }

    /// A document of `pairs` in their order, its table and entries allocated
    /// once at their exact size; a repeated key keeps its first position and
    /// takes the last value (as `Document::insert` does).
    pub fn document(&mut self, pairs: impl ExactSizeIterator<Item = (String, Bson)>) -> Document {
        use indexmap::map::raw_entry_v1::{RawEntryApiV1, RawEntryMut};
        let mut map = Inner::with_capacity_and_hasher(pairs.len(), self.state.clone());
        for (k, v) in pairs {
            let h = self.hash(&k);
            match map.raw_entry_mut_v1().from_hash(h, |q| *q == k) {
                RawEntryMut::Occupied(mut o) => {
                    o.insert(v);
                }
                RawEntryMut::Vacant(e) => {
                    e.insert_hashed_nocheck(h, k, v);
                }
            }
        }
        // SAFETY: as in `of`: a `Document` is exactly this map (size checked
        // by `transmute` itself), and `Document::new` builds the same map with
        // the same kind of hasher (`IndexMap::default()`); the hashes given are `state`'s, the
        // map's own hasher, so lookups through bson find every key.
        unsafe { std::mem::transmute::<Inner, Document>(map) }
    }
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

    #[test]
    fn built_documents_are_what_inserting_gives() {
        let mut b = Builder::default();
        // Enough distinct keys to share slots, and every key again later
        // (from memory, or after another key took its slot).
        let keys: Vec<String> = (0..600)
            .map(|i| match i % 4 {
                0 => format!("k{i}"),
                1 => "_id".to_string(),
                2 => String::new(),
                _ => format!("{}x", "ab".repeat(i % 9)),
            })
            .collect();
        for round in 0..3 {
            for chunk in keys.chunks(7 + round) {
                let pairs: Vec<(String, Bson)> = chunk
                    .iter()
                    .enumerate()
                    .map(|(i, k)| (k.clone(), Bson::Int32(i as i32)))
                    .collect();
                let mut expected = Document::new();
                for (k, v) in pairs.clone() {
                    expected.insert(k, v);
                }
                let built = b.document(pairs.into_iter());
                assert_eq!(built, expected);
                assert_eq!(format!("{built:?}"), format!("{expected:?}"));
                for (i, k) in expected.keys().enumerate() {
                    assert_eq!(built.get(k), expected.get(k), "{k}");
                    assert_eq!(index_of(&built, k), Some(i), "{k}");
                }
                assert_eq!(built.get("absent"), None);
                let mut grown = built.clone();
                grown.insert("new", 1);
                grown.insert("_id", 2);
                assert_eq!(grown.get("new"), Some(&Bson::Int32(1)));
                assert_eq!(grown.get("_id"), Some(&Bson::Int32(2)));
            }
        }
    }
}
