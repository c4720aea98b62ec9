//! Keys compared with MongoDB equality (`1`, `1.0` and `NumberLong(1)` are one
//! key) in a hash map: the hash is computed from a canonical form consistent
//! with `value::equal`, and candidates are confirmed with `equal`. Entries keep
//! first-seen order, which makes `$group` output deterministic (MongoDB does
//! not specify the order of groups).
use crate::value::path::same_bytes;
use crate::value::{equal, numeric::to_f64, type_rank};
use bson::{Bson, Document};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A small multiply-rotate hasher (FxHash's scheme): keys here are already
/// mixed by `hash_value`, and SipHash's DoS resistance is not needed.
#[derive(Default)]
pub struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    /// Words assembled with shifts: `copy_from_slice` into a buffer is a
    /// call per word in the page's wasm (group keys are mostly short strings).
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(le_word(c));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // The tail in one word (with its length, so "a\0" and "a" differ).
            self.write_u64(le_word(rest) ^ ((rest.len() as u64) << 59));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(SEED);
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Up to 8 bytes as a little-endian word.
#[inline(always)]
fn le_word(bytes: &[u8]) -> u64 {
    let mut w = 0u64;
    let mut i = 0;
    while i < bytes.len() && i < 8 {
        w |= u64::from(bytes[i]) << (8 * i);
        i += 1;
    }
    w
}

/// Hash a value so that MongoDB-equal values hash the same.
pub fn hash_value(v: &Bson, h: &mut FxHasher) {
    h.write_u8(type_rank(v));
    match v {
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
            // Equal numbers have the same nearest double; collisions are confirmed by `equal`.
            let f = to_f64(v).unwrap_or(f64::NAN);
            let bits = if f.is_nan() {
                f64::NAN.to_bits()
            } else if f == 0.0 {
                0
            } else {
                f.to_bits()
            };
            h.write_u64(bits);
        }
        Bson::String(s) | Bson::Symbol(s) => match crate::collation::hash_bytes(s) {
            Some(key) => h.write(&key),
            None => h.write(s.as_bytes()),
        },
        Bson::Document(d) => hash_document(d, h),
        Bson::Array(items) => {
            h.write_usize(items.len());
            for item in items {
                hash_value(item, h);
            }
        }
        Bson::Binary(b) => {
            h.write_u8(u8::from(b.subtype));
            h.write(&b.bytes);
        }
        Bson::ObjectId(o) => h.write(&o.bytes()),
        Bson::Boolean(b) => h.write_u8(u8::from(*b)),
        Bson::DateTime(d) => h.write_u64(d.timestamp_millis() as u64),
        Bson::Timestamp(t) => h.write_u64((u64::from(t.time) << 32) | u64::from(t.increment)),
        Bson::RegularExpression(r) => {
            h.write(r.pattern.as_str().as_bytes());
            h.write_u8(0);
            h.write(r.options.as_str().as_bytes());
        }
        Bson::JavaScriptCode(c) => h.write(c.as_bytes()),
        Bson::JavaScriptCodeWithScope(c) => {
            h.write(c.code.as_bytes());
            hash_document(&c.scope, h);
        }
        _ => {}
    }
}

fn hash_document(d: &Document, h: &mut FxHasher) {
    h.write_usize(d.len());
    for (k, v) in d {
        h.write(k.as_bytes());
        h.write_u8(0xff);
        hash_value(v, h);
    }
}

pub fn hash_of(v: &Bson) -> u64 {
    let mut h = FxHasher::default();
    hash_value(v, &mut h);
    h.finish()
}

/// MongoDB equality, with the common group key (two strings) compared
/// directly rather than through the general comparison.
#[inline]
fn same_key(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::String(x), Bson::String(y)) => {
            same_bytes(x.as_bytes(), y.as_bytes()) || crate::collation::equal_if_collated(x, y)
        }
        _ => equal(a, b),
    }
}

#[derive(Default)]
struct IdentityHasher(u64);
impl Hasher for IdentityHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Clone, Debug)]
enum Slot {
    One(usize),
    Many(Vec<usize>),
}

/// A map from values (MongoDB equality) to `V`, in first-seen order.
#[derive(Clone, Debug)]
pub struct KeyMap<V> {
    entries: Vec<(Bson, V)>,
    index: HashMap<u64, Slot, BuildHasherDefault<IdentityHasher>>,
}

impl<V> Default for KeyMap<V> {
    fn default() -> Self {
        KeyMap {
            entries: Vec::new(),
            index: HashMap::default(),
        }
    }
}

impl<V> KeyMap<V> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn find(&self, hash: u64, key: &Bson) -> Option<usize> {
        match self.index.get(&hash)? {
            Slot::One(i) => self
                .entries
                .get(*i)
                .filter(|(k, _)| same_key(k, key))
                .map(|_| *i),
            Slot::Many(is) => is
                .iter()
                .copied()
                .find(|&i| self.entries.get(i).is_some_and(|(k, _)| same_key(k, key))),
        }
    }

    pub fn get(&self, key: &Bson) -> Option<&V> {
        let i = self.find(hash_of(key), key)?;
        self.entries.get(i).map(|(_, v)| v)
    }

    pub fn contains(&self, key: &Bson) -> bool {
        self.find(hash_of(key), key).is_some()
    }

    /// The entry's position for `key`, inserting `make()` (with a clone of the key) if new.
    pub fn position_or_insert(&mut self, key: &Bson, make: impl FnOnce() -> V) -> usize {
        let hash = hash_of(key);
        if let Some(i) = self.find(hash, key) {
            return i;
        }
        let i = self.entries.len();
        self.entries.push((key.clone(), make()));
        match self.index.get_mut(&hash) {
            None => {
                self.index.insert(hash, Slot::One(i));
            }
            Some(slot) => {
                let prev = match slot {
                    Slot::One(j) => vec![*j, i],
                    Slot::Many(v) => {
                        v.push(i);
                        return i;
                    }
                };
                *slot = Slot::Many(prev);
            }
        }
        i
    }

    /// Like `position_or_insert`, with a fallible constructor.
    pub fn try_position_or_insert<E>(
        &mut self,
        key: &Bson,
        make: impl FnOnce() -> Result<V, E>,
    ) -> Result<usize, E> {
        if let Some(i) = self.find(hash_of(key), key) {
            return Ok(i);
        }
        let v = make()?;
        Ok(self.position_or_insert(key, || v))
    }

    /// Insert `key` if new; true if it was inserted.
    pub fn insert_new(&mut self, key: &Bson, make: impl FnOnce() -> V) -> bool {
        let before = self.entries.len();
        self.position_or_insert(key, make);
        self.entries.len() > before
    }

    pub fn get_or_insert_with(&mut self, key: &Bson, make: impl FnOnce() -> V) -> &mut V {
        let i = self.position_or_insert(key, make);
        &mut self.entries[i].1
    }

    pub fn value_at_mut(&mut self, i: usize) -> Option<&mut V> {
        self.entries.get_mut(i).map(|(_, v)| v)
    }

    pub fn entries(&self) -> &[(Bson, V)] {
        &self.entries
    }

    pub fn into_entries(self) -> Vec<(Bson, V)> {
        self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, Decimal128};
    use std::str::FromStr;

    #[test]
    fn equal_numbers_share_a_key() {
        let mut m: KeyMap<u32> = KeyMap::new();
        *m.get_or_insert_with(&bson!(1), || 0) += 1;
        *m.get_or_insert_with(&bson!(1.0), || 0) += 1;
        *m.get_or_insert_with(&Bson::Int64(1), || 0) += 1;
        let one = Decimal128::from_str("1.00").unwrap_or_else(|_| unreachable!());
        *m.get_or_insert_with(&Bson::Decimal128(one), || 0) += 1;
        *m.get_or_insert_with(&bson!({"a": 1}), || 0) += 1;
        *m.get_or_insert_with(&bson!({"a": 1.0}), || 0) += 1;
        *m.get_or_insert_with(&bson!(-0.0), || 0) += 1;
        *m.get_or_insert_with(&bson!(0), || 0) += 1;
        let counts: Vec<u32> = m.entries().iter().map(|(_, v)| *v).collect();
        assert_eq!(counts, vec![4, 2, 2]);
        assert!(!m.contains(&bson!("x")));
    }
}
