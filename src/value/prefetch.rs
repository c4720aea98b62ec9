//! Memory locality for scans over a collection. Matching a document reads
//! memory scattered over the heap (its field entries, then key and string
//! bytes); on a large collection those are cache misses.
//!
//! Two things cut them. Field lookups remember the positions where they
//! found fields ([`note`], [`hot`]): documents of a collection usually share
//! a field order, so the next lookup looks there first and touches one entry
//! instead of every entry before it. And the scan asks for the next
//! documents' memory a few iterations early ([`scan`]), for the positions
//! the previous document's lookups read ([`touch`]): a bson entry is 144
//! bytes (96 in wasm), so fetching every field of every document would spend
//! the memory bandwidth on fields nobody reads, and so would fetching a field
//! only a few documents reach (the second condition of an `$and` whose first
//! one rarely holds). The
//! prefetch is a no-op without a prefetch instruction (wasm, where a plain
//! load of the bytes ahead made scans slower: see BENCHMARKS.md).
use bson::{Bson, Document};
use std::cell::Cell;

/// How many documents ahead [`scan`] looks (entries; keys and strings at half).
const AHEAD: usize = 16;
/// Fields prefetched per document when no lookup has found a field yet.
const FIELDS: usize = 8;
/// Positions tracked (documents this small are searched linearly).
pub const TRACKED: usize = 16;

thread_local! {
    /// Bit `i`: a lookup in the current scan found its field at position `i`.
    static HOT: Cell<u32> = const { Cell::new(0) };
    /// Bit `i`: a lookup read position `i` of the document being scanned.
    static READ: Cell<u32> = const { Cell::new(0) };
}

/// The positions where lookups found fields since the scan began.
#[inline(always)]
pub fn hot() -> u32 {
    HOT.try_with(Cell::get).unwrap_or(0)
}

/// A lookup found its field at position `i` (which was not hot).
#[inline]
pub fn note(i: usize) {
    if i < TRACKED {
        let _ = HOT.try_with(|h| h.set(h.get() | (1 << i)));
        touch(i);
    }
}

/// A lookup read the field at position `i` of the current document.
#[inline(always)]
pub fn touch(i: usize) {
    // Only prefetching reads these bits.
    if cfg!(target_arch = "x86_64") && i < TRACKED {
        let _ = READ.try_with(|r| r.set(r.get() | (1 << i)));
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn hint<T: ?Sized>(p: *const T) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    // SAFETY: SSE is part of the x86_64 baseline, and a prefetch is only a
    // hint: it never faults, whatever the address.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn hint<T: ?Sized>(_: *const T) {}

/// Called for `docs[i]` by a forward scan: a scan starting at 0 forgets the
/// previous scan's positions; then prefetch for the neighbours ahead, at the
/// positions the previous document's lookups read: the field entries of the
/// document `AHEAD` on (address arithmetic only, nothing is read), and the
/// key and string bytes of those fields in the one `AHEAD / 2` on (whose
/// entries an earlier call asked for).
#[inline(always)]
pub fn scan(docs: &[Document], i: usize) {
    if i == 0 {
        let _ = HOT.try_with(|h| h.set(0));
    }
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let read = READ.try_with(|r| r.replace(0)).unwrap_or(0);
    let hot = if read != 0 && i > 0 { read } else { hot() };
    if hot == 0 {
        scan_first_fields(docs, i);
        return;
    }
    if let Some(d) = docs.get(i + AHEAD) {
        each_hot(d, hot, |k, v| {
            hint(k);
            hint(v);
        });
    }
    if let Some(d) = docs.get(i + AHEAD / 2) {
        each_hot(d, hot, |k, v| {
            hint(k.as_ptr());
            if let Bson::String(s) = v {
                hint(s.as_ptr());
            }
        });
    }
}

/// The fields of `d` at the positions set in `hot`.
#[inline(always)]
fn each_hot<'a>(d: &'a Document, hot: u32, mut f: impl FnMut(&'a String, &'a Bson)) {
    let entries = super::entries::of(d);
    let mut m = hot;
    while m != 0 {
        let p = m.trailing_zeros() as usize;
        m &= m - 1;
        match entries.get_index(p) {
            Some((k, v)) => f(k, v),
            None => return,
        }
    }
}

/// Before any lookup found a field: the first fields of the documents ahead.
#[inline(always)]
fn scan_first_fields(docs: &[Document], i: usize) {
    if let Some(d) = docs.get(i + AHEAD) {
        for (k, _) in d.iter().take(FIELDS) {
            hint(k);
        }
    }
    if let Some(d) = docs.get(i + AHEAD / 2) {
        for (k, v) in d.iter().take(FIELDS) {
            hint(k.as_ptr());
            if let Bson::String(s) = v {
                hint(s.as_ptr());
            }
        }
    }
}
