//! Collation: MongoDB's `collation` documents read and checked as the server's
//! collator factory does (collator_factory_icu.cpp), and string comparison by
//! ICU4X's collator (the Unicode Consortium's own Rust ICU, compiled data).
//!
//! One collation is *active* while a command runs ([`scoped`]): the value
//! order ([`crate::value::compare`]) compares strings through it, so matching,
//! sorting, grouping, `$min`/`$max`, `distinct` and expressions all follow the
//! command's collation from one place, as the server's `ExpressionContext`
//! collator does. Index keys do not use the active collation: an index with a
//! collation stores each string as its sort key ([`index_key_string`]) and
//! orders keys bytewise, as MongoDB's `CollationIndexKey` does.
//! https://www.mongodb.com/docs/manual/reference/collation/
use bson::Document;
#[cfg(not(target_arch = "wasm32"))]
use icu_collator::CollatorBorrowed;
use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::rc::Rc;

/// A collation other than simple: its resolved spec (every option, as the
/// server prints it) and its collator. Read from a `collation` document by
/// `storage::collation`.
pub struct Collation {
    spec: Document,
    collator: Collator,
}

/// ICU4X's collator, from its compiled data (the CLI) or from data loaded
/// at run time (the page: `storage::collation::data`).
pub enum Collator {
    #[cfg(not(target_arch = "wasm32"))]
    Compiled(CollatorBorrowed<'static>),
    Loaded(Box<icu_collator::Collator>),
}

impl std::fmt::Debug for Collation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Collation").field(&self.spec).finish()
    }
}

/// Two collations are the same when their resolved specs are.
impl PartialEq for Collation {
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec
    }
}

impl Collation {
    pub fn new(spec: Document, collator: Collator) -> Collation {
        Collation { spec, collator }
    }

    pub fn spec(&self) -> &Document {
        &self.spec
    }

    pub fn compare(&self, a: &str, b: &str) -> Ordering {
        match &self.collator {
            #[cfg(not(target_arch = "wasm32"))]
            Collator::Compiled(c) => c.compare(a, b),
            Collator::Loaded(c) => c.as_borrowed().compare(a, b),
        }
    }

    /// The sort key of `s`: comparing keys bytewise is comparing the strings.
    pub fn sort_key(&self, s: &str) -> Vec<u8> {
        let mut key = Vec::new();
        let Ok(()) = match &self.collator {
            #[cfg(not(target_arch = "wasm32"))]
            Collator::Compiled(c) => c.write_sort_key_to(s, &mut key),
            Collator::Loaded(c) => c.as_borrowed().write_sort_key_to(s, &mut key),
        };
        key
    }
}

/// Two optional collations are the same (`None` is simple).
pub fn same(a: Option<&Collation>, b: Option<&Collation>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

thread_local! {
    static ACTIVE: RefCell<Option<Rc<Collation>>> = const { RefCell::new(None) };
    /// Whether `ACTIVE` holds a collation. Most runs use none: the per-value
    /// paths read this flag alone and borrow `ACTIVE` only when it is set.
    static COLLATED: Cell<bool> = const { Cell::new(false) };
}

/// Make `collation` the active one; returns the one it replaces.
fn set_active(collation: Option<Rc<Collation>>) -> Option<Rc<Collation>> {
    COLLATED.with(|c| c.set(collation.is_some()));
    ACTIVE.with(|a| std::mem::replace(&mut *a.borrow_mut(), collation))
}

/// Whether a collation other than simple is active.
#[inline(always)]
fn collated() -> bool {
    COLLATED.with(Cell::get)
}

/// Restores the collation that was active before [`scoped`] when dropped
/// (also when the command fails).
pub struct Scope {
    previous: Option<Rc<Collation>>,
}

impl Drop for Scope {
    fn drop(&mut self) {
        set_active(self.previous.take());
    }
}

/// Make `collation` (`None`: simple, binary comparison) the active one until
/// the returned value is dropped.
#[must_use = "the collation is active only while the scope lives"]
pub fn scoped(collation: Option<Rc<Collation>>) -> Scope {
    Scope {
        previous: set_active(collation),
    }
}

/// The active collation (`None`: simple).
pub fn active() -> Option<Rc<Collation>> {
    if !collated() {
        return None;
    }
    ACTIVE.with(|a| a.borrow().clone())
}

/// Compare two strings by the active collation (bytes when simple).
#[inline(always)]
pub fn compare_strings(a: &str, b: &str) -> Ordering {
    if !collated() {
        return a.as_bytes().cmp(b.as_bytes());
    }
    compare_collated(a, b)
}

#[cold]
#[inline(never)]
fn compare_collated(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    ACTIVE.with(|c| match &*c.borrow() {
        Some(c) => c.compare(a, b),
        None => a.as_bytes().cmp(b.as_bytes()),
    })
}

/// Whether two strings whose bytes differ are equal under the active
/// collation (never when simple). The hot paths compare bytes first, then ask
/// this.
#[inline(always)]
pub fn equal_if_collated(a: &str, b: &str) -> bool {
    collated() && equal_collated(a, b)
}

#[cold]
#[inline(never)]
fn equal_collated(a: &str, b: &str) -> bool {
    ACTIVE.with(|c| matches!(&*c.borrow(), Some(c) if c.compare(a, b) == Ordering::Equal))
}

/// The bytes that stand for `s` when hashing under the active collation:
/// strings the collation calls equal give the same bytes (their sort key).
#[inline]
pub fn hash_bytes(s: &str) -> Option<Vec<u8>> {
    if !collated() {
        return None;
    }
    ACTIVE.with(|c| c.borrow().as_ref().map(|c| c.sort_key(s)))
}

/// An index key for `s` under an index's collation: its sort key in hex, so
/// that ordering the hex strings bytewise orders the strings by the collation
/// (and strings it calls equal have one key).
pub fn index_key_string(collation: &Collation, s: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let key = collation.sort_key(s);
    let mut out = String::with_capacity(key.len() * 2);
    for b in key {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 15)]));
    }
    out
}
