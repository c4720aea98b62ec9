//! The compact form of a stored document: its BSON bytes (MongoDB's own
//! storage format), one allocation per document, and [`DocView`], the one
//! borrowed view through which readers reach fields and values in place.
//!
//! A scan over `bson::Document`s chases a pointer per key and per string;
//! over BSON bytes it reads contiguous memory. The bytes are written by
//! bson's encoder from a `Document` and read here by a walker of our own
//! (bson's `RawDocument::get` re-validates every element it passes, which
//! costs more than the walk). The walker never panics: a malformed element
//! ends the walk as if the document ended there.
mod encode;
pub mod matcher;
mod path;
mod value;

pub use value::RawValue;

use crate::error::{Error, Result};
use bson::{Bson, Document};

/// A document as its BSON bytes. Its size is `Object.bsonsize`'s, exactly.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredDoc {
    bytes: Box<[u8]>,
}

impl std::fmt::Debug for StoredDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.decode() {
            Ok(d) => d.fmt(f),
            Err(_) => f.write_str("StoredDoc(<malformed>)"),
        }
    }
}

impl StoredDoc {
    /// Encode a document. Fails only for what BSON cannot hold (a key with a
    /// NUL byte); the 16 MiB limit is the writer's to check (with [`StoredDoc::size`]).
    pub fn encode(doc: &Document) -> Result<StoredDoc> {
        let bytes = encode::encode(doc)
            .ok_or_else(|| Error::internal_error("a document cannot be stored as BSON"))?;
        Ok(StoredDoc {
            bytes: bytes.into_boxed_slice(),
        })
    }

    /// The document back as a `Document`, where it leaves the store.
    pub fn decode(&self) -> Result<Document> {
        self.view().decode()
    }

    /// The borrowed view every reader goes through.
    #[inline(always)]
    pub fn view(&self) -> DocView<'_> {
        DocView { bytes: &self.bytes }
    }

    /// The BSON size in bytes.
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// A borrowed BSON document (or array: a document whose keys are "0", "1", ...).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct DocView<'a> {
    bytes: &'a [u8],
}

impl std::fmt::Debug for DocView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.decode() {
            Ok(d) => d.fmt(f),
            Err(_) => f.write_str("DocView(<malformed>)"),
        }
    }
}

/// One element as stored: its type byte, key and value bytes.
#[derive(Clone, Copy)]
struct Element<'a> {
    ty: u8,
    key: &'a [u8],
    value: &'a [u8],
}

fn le_i32(b: &[u8], at: usize) -> Option<i32> {
    let four: [u8; 4] = b.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(i32::from_le_bytes(four))
}

/// The length of the value of type `ty` starting at `at`, from its fixed
/// size or its length prefix.
#[inline(always)]
fn value_len(ty: u8, b: &[u8], at: usize) -> Option<usize> {
    let prefixed = |extra: usize| usize::try_from(le_i32(b, at)?).ok()?.checked_add(extra);
    match ty {
        0x01 | 0x09 | 0x11 | 0x12 => Some(8),
        0x10 => Some(4),
        0x08 => Some(1),
        0x06 | 0x0A | 0x7F | 0xFF => Some(0),
        0x07 => Some(12),
        0x13 => Some(16),
        0x02 | 0x0D | 0x0E => prefixed(4),
        0x03 | 0x04 | 0x0F => prefixed(0),
        0x05 => prefixed(5),
        0x0C => prefixed(4 + 12),
        0x0B => {
            let rest = b.get(at..)?;
            let p = rest.iter().position(|&c| c == 0)?;
            let o = rest.get(p + 1..)?.iter().position(|&c| c == 0)?;
            Some(p + 1 + o + 1)
        }
        _ => None,
    }
}

/// The elements of a document, in order.
#[derive(Clone)]
pub struct Elements<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Elements<'a> {
    #[inline(always)]
    fn next_element(&mut self) -> Option<Element<'a>> {
        let b = self.bytes;
        let ty = *b.get(self.at)?;
        if ty == 0 {
            return None;
        }
        let key_at = self.at + 1;
        let key_len = b.get(key_at..)?.iter().position(|&c| c == 0)?;
        let value_at = key_at + key_len + 1;
        let n = value_len(ty, b, value_at)?;
        let end = value_at.checked_add(n)?;
        let element = Element {
            ty,
            key: b.get(key_at..key_at + key_len)?,
            value: b.get(value_at..end)?,
        };
        self.at = end;
        Some(element)
    }

    /// Skip to the element named `key`, comparing the key bytes in place.
    #[inline(always)]
    fn find(&mut self, key: &[u8]) -> Option<Element<'a>> {
        let b = self.bytes;
        loop {
            let ty = *b.get(self.at)?;
            if ty == 0 {
                return None;
            }
            let key_at = self.at + 1;
            let candidate = b.get(key_at..key_at + key.len() + 1)?;
            let (name, nul) = candidate.split_at(key.len());
            if nul == [0] && crate::value::path::same_bytes(name, key) {
                let value_at = key_at + key.len() + 1;
                let n = value_len(ty, b, value_at)?;
                self.at = value_at.checked_add(n)?;
                return Some(Element {
                    ty,
                    key: name,
                    value: b.get(value_at..self.at)?,
                });
            }
            let key_len = b.get(key_at..)?.iter().position(|&c| c == 0)?;
            let value_at = key_at + key_len + 1;
            self.at = value_at.checked_add(value_len(ty, b, value_at)?)?;
        }
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = (&'a str, RawValue<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        let e = self.next_element()?;
        Some((std::str::from_utf8(e.key).ok()?, RawValue::of(e)?))
    }
}

impl<'a> DocView<'a> {
    /// A view over bytes that hold one BSON document (checked: its length
    /// prefix and terminator; elements are checked as they are read).
    pub fn new(bytes: &'a [u8]) -> Option<DocView<'a>> {
        let len = usize::try_from(le_i32(bytes, 0)?).ok()?;
        (len == bytes.len() && len >= 5 && bytes.last() == Some(&0)).then_some(DocView { bytes })
    }

    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Its elements in order (an array's keys are its indexes).
    pub fn iter(&self) -> Elements<'a> {
        Elements {
            bytes: self.bytes,
            at: 4,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.len() <= 5
    }

    /// The number of elements (a walk).
    pub fn len(&self) -> usize {
        let mut it = self.iter();
        let mut n = 0;
        while it.next_element().is_some() {
            n += 1;
        }
        n
    }

    /// The value of the top-level field `name`.
    #[inline(always)]
    pub fn get(&self, name: &str) -> Option<RawValue<'a>> {
        RawValue::of(self.iter().find(name.as_bytes())?)
    }

    /// The top-level element `name`, undecoded.
    #[inline(always)]
    fn element(&self, name: &str) -> Option<Element<'a>> {
        self.iter().find(name.as_bytes())
    }

    /// The `i`th element's value (an array's element `i`).
    pub fn index(&self, i: usize) -> Option<RawValue<'a>> {
        let mut it = self.iter();
        for _ in 0..i {
            it.next_element()?;
        }
        RawValue::of(it.next_element()?)
    }

    /// The document as a `Document` (bson's decoder: exactly what was encoded).
    pub fn decode(&self) -> Result<Document> {
        let raw = bson::RawDocument::from_bytes(self.bytes).map_err(malformed)?;
        Document::try_from(raw).map_err(malformed)
    }

    /// The array as its values (bson's decoder).
    pub fn decode_array(&self) -> Result<Vec<Bson>> {
        Ok(self.decode()?.into_iter().map(|(_, v)| v).collect())
    }
}

fn malformed(e: impl std::fmt::Display) -> Error {
    Error::internal_error(format!("a stored document is not valid BSON: {e}"))
}

#[cfg(test)]
mod tests;
