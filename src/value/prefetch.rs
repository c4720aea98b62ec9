//! Software prefetch for scans over a collection. Matching a document reads
//! memory scattered over the heap (its field entries, then key and string
//! bytes); on a large collection those are cache misses the CPU meets one
//! document at a time. Asking for the next documents' memory a few
//! iterations early overlaps the misses. A no-op without a prefetch
//! instruction (wasm).
use bson::{Bson, Document};

/// How many documents ahead [`scan`] looks (entries; keys and strings at half).
const AHEAD: usize = 12;
/// Fields looked at per document (the ones a filter usually reads first).
const FIELDS: usize = 8;

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

/// Prefetch for `docs[i]`'s neighbours ahead: the field entries of the
/// document `AHEAD` on (address arithmetic only, nothing is read), and the
/// key and string bytes of the one `AHEAD / 2` on (whose entries an earlier
/// call asked for).
#[inline(always)]
pub fn scan(docs: &[Document], i: usize) {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
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
