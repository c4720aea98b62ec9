//! A column's distinct strings and ObjectIds while it is built
//! (`value::column`): each cell of one names its entry. Every value of the
//! column is looked up, so the lookup is kept short: the page's
//! size-optimised wasm calls rather than inlines, and a build runs once per
//! loaded data, mostly before the wasm engine has optimised its code.
use super::column::Cell;
use super::path::{same_bytes, word};
use bson::oid::ObjectId;
use bson::Bson;
use std::collections::HashMap;

/// Distinct strings and ObjectIds a column holds at most; values past that
/// are left [`Cell::Other`] (a column of unique names would copy them all).
const MAX_DICTIONARY: usize = 1 << 16;

/// Strings met last, remembered by [`recent_slot`]: a field of few values
/// (`type: "buy"`) then hashes almost nothing.
const RECENT: usize = 8;

#[derive(Default)]
pub(super) struct Dictionary<'d> {
    strings: Strings,
    /// The values are the user's own data: no one mounts a collision
    /// attack, and ahash is fast.
    oids: HashMap<ObjectId, u32, ahash::RandomState>,
    recent: [Option<(&'d str, u32)>; RECENT],
    /// Each entry's value, as the documents hold it.
    pub(super) values: Vec<Bson>,
}

/// Where a string met last is remembered: by its length and first byte.
fn recent_slot(s: &str) -> usize {
    (s.len() ^ usize::from(s.as_bytes().first().copied().unwrap_or(0))) % RECENT
}

impl<'d> Dictionary<'d> {
    /// The cell of a value (`None`: missing).
    #[inline]
    pub(super) fn cell(&mut self, v: Option<&'d Bson>) -> Cell {
        match v {
            None => Cell::Missing,
            Some(Bson::Null) => Cell::Null,
            Some(Bson::Boolean(b)) => Cell::Bool(*b),
            Some(Bson::Int32(i)) => Cell::Int32(*i),
            Some(Bson::Int64(i)) => Cell::Int64(*i),
            Some(Bson::Double(f)) => Cell::Double(*f),
            Some(Bson::DateTime(t)) => Cell::Date(t.timestamp_millis()),
            Some(Bson::String(s)) => self.string(s),
            Some(Bson::ObjectId(o)) => self.oid(o),
            Some(_) => Cell::Other,
        }
    }

    fn string(&mut self, s: &'d str) -> Cell {
        let slot = recent_slot(s);
        if let Some(Some((seen, i))) = self.recent.get(slot) {
            if same_bytes(seen.as_bytes(), s.as_bytes()) {
                return Cell::Dict(*i);
            }
        }
        let next = self.next_entry();
        let Some(entry) = self.strings.entry(s.as_bytes(), next) else {
            return Cell::Other;
        };
        if Some(entry) == next {
            self.values.push(Bson::String(s.to_string()));
        }
        if let Some(r) = self.recent.get_mut(slot) {
            *r = Some((s, entry));
        }
        Cell::Dict(entry)
    }

    fn oid(&mut self, o: &ObjectId) -> Cell {
        if let Some(&i) = self.oids.get(o) {
            return Cell::Dict(i);
        }
        let Some(i) = self.next_entry() else {
            return Cell::Other;
        };
        self.oids.insert(*o, i);
        self.values.push(Bson::ObjectId(*o));
        Cell::Dict(i)
    }

    /// The entry a new value takes, if the dictionary has room.
    fn next_entry(&self) -> Option<u32> {
        let next = self.values.len();
        if next >= MAX_DICTIONARY {
            return None;
        }
        u32::try_from(next).ok()
    }
}

/// The distinct strings: an open-addressing table of their hashes, and a
/// copy of each in one contiguous text, which a lookup compares with (the
/// document a string first came from is a cache miss away on a large
/// collection).
#[derive(Default)]
struct Strings {
    /// A power of two of slots (none before the first string).
    slots: Vec<Slot>,
    used: usize,
    text: Vec<u8>,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    hash: u64,
    /// The entry, plus one (0: empty).
    entry: u32,
    start: u32,
    len: u32,
}

impl Strings {
    /// The entry of `s`, or `new` (when there is one) for a string not met
    /// before. `None` for a string whose hash another string has (which
    /// does not happen in practice: the cell then reads the document).
    fn entry(&mut self, s: &[u8], new: Option<u32>) -> Option<u32> {
        if self.used * 2 >= self.slots.len() {
            self.grow();
        }
        let hash = hash_bytes(s);
        let mask = self.slots.len() - 1;
        let mut i = (hash >> 32) as usize & mask;
        loop {
            let slot = *self.slots.get(i)?;
            if slot.entry == 0 {
                break;
            }
            if slot.hash == hash {
                let (start, len) = (slot.start as usize, slot.len as usize);
                let copy = self.text.get(start..start + len)?;
                return same_bytes(copy, s).then_some(slot.entry - 1);
            }
            i = (i + 1) & mask;
        }
        let entry = new?;
        let start = u32::try_from(self.text.len()).ok()?;
        let len = u32::try_from(s.len()).ok()?;
        *self.slots.get_mut(i)? = Slot {
            hash,
            entry: entry.checked_add(1)?,
            start,
            len,
        };
        self.used += 1;
        self.text.extend_from_slice(s);
        Some(entry)
    }

    /// Twice the slots (16 at first), every string placed again.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        for slot in old.into_iter().filter(|s| s.entry != 0) {
            let mut i = (slot.hash >> 32) as usize & (size - 1);
            while self.slots.get(i).is_some_and(|s| s.entry != 0) {
                i = (i + 1) & (size - 1);
            }
            if let Some(s) = self.slots.get_mut(i) {
                *s = slot;
            }
        }
    }
}

/// A string's hash: eight bytes at a time (the last word overlapping the
/// one before), each word mixed by a multiplication.
#[inline(always)]
fn hash_bytes(b: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mix = |h: u64, w: u64| (h ^ w).wrapping_mul(K).rotate_left(31);
    let n = b.len();
    let mut h = (n as u64).wrapping_mul(K);
    if n >= 8 {
        let mut at = 0;
        while at + 8 < n {
            h = mix(h, u64::from_le_bytes(word::<8>(b, at)));
            at += 8;
        }
        h = mix(h, u64::from_le_bytes(word::<8>(b, n - 8)));
    } else if n >= 4 {
        let first = u64::from(u32::from_le_bytes(word::<4>(b, 0)));
        let last = u64::from(u32::from_le_bytes(word::<4>(b, n - 4)));
        h = mix(h, first | (last << 32));
    } else {
        for &x in b {
            h = mix(h, u64::from(x));
        }
    }
    (h ^ (h >> 29)).wrapping_mul(K)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_string_keeps_its_entry() {
        let names: Vec<String> = (0..5000).map(|i| format!("user{i}")).collect();
        let mut d = Dictionary::default();
        let first: Vec<Cell> = names.iter().map(|n| d.string(n)).collect();
        let again: Vec<Cell> = names.iter().rev().map(|n| d.string(n)).collect();
        assert!(first.iter().rev().eq(again.iter()));
        assert_eq!(d.values.len(), names.len());
        for (n, c) in names.iter().zip(&first) {
            let Cell::Dict(i) = c else { panic!("{c:?}") };
            assert_eq!(d.values.get(*i as usize), Some(&Bson::String(n.clone())));
        }
    }
}
