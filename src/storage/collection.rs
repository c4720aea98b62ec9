//! A collection: its documents in natural (insertion) order, each with a record
//! id, and the indexes kept up to date on every change.
use super::columns::Columns;
use super::index::spec::IndexSpec;
use super::index::{IndexSet, Rid};
use super::options::CollectionOptions;
use crate::collation::Collation;
use crate::error::{Error, Result};
use bson::{Bson, Document};
use std::rc::Rc;

/// Documents in natural order, each with a record id (ascending, never reused)
/// that the indexes refer to. These methods are the only way documents
/// change, so they keep the indexes up to date (see `crate::index`).
#[derive(Clone, Debug, Default)]
pub struct Collection {
    docs: Vec<Document>,
    rids: Vec<Rid>,
    next_rid: Rid,
    indexes: IndexSet,
    /// The namespace of the last write, for the indexes' errors.
    ns: String,
    /// The default collation (`createCollection`'s option; `None`: simple).
    collation: Option<Rc<Collation>>,
    options: CollectionOptions,
    /// A capped collection's data size, while known (writes other than
    /// inserts forget it).
    capped_bytes: Option<usize>,
    /// No document's BSON size is above this, while known: an update that can
    /// add at most `g` bytes to a document then fits 16 MiB whenever this plus
    /// `g` does, without measuring each document (see `engine::write::exec`).
    size_bound: Option<usize>,
    /// Scan columns of top-level fields, dropped by every change.
    columns: Columns,
}

fn out_of_range() -> Error {
    Error::internal_error("document index out of range")
}

impl Collection {
    /// The collection's default collation (`None`: simple).
    pub fn collation(&self) -> Option<&Rc<Collation>> {
        self.collation.as_ref()
    }
    pub fn set_collation(&mut self, collation: Option<Rc<Collation>>) {
        self.collation = collation;
    }
    pub fn docs(&self) -> &[Document] {
        &self.docs
    }
    /// The scan columns built over `docs()` so far.
    pub fn columns(&self) -> &Columns {
        &self.columns
    }
    pub fn len(&self) -> usize {
        self.docs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
    pub fn contains_id(&self, id: &Bson) -> bool {
        self.indexes.contains_id(id)
    }
    pub fn indexes(&self) -> &IndexSet {
        &self.indexes
    }
    /// The record ids, parallel to `docs()`.
    pub fn rids(&self) -> &[Rid] {
        &self.rids
    }
    /// The position in `docs()` of a record id. Record ids ascend from 0 and
    /// are never reused, so a record sits at or before its id: exactly there
    /// while nothing was removed (no search), else found by binary search.
    pub fn position(&self, rid: Rid) -> Option<usize> {
        let at = usize::try_from(rid).unwrap_or(usize::MAX);
        match self.rids.get(at) {
            Some(&r) if r == rid => Some(at),
            _ => {
                let upto = at.saturating_add(1).min(self.rids.len());
                self.rids.get(..upto)?.binary_search(&rid).ok()
            }
        }
    }
    /// An empty collection with the same indexes and options (what `$out` writes into).
    pub fn emptied(&self) -> Collection {
        Collection {
            indexes: self.indexes.emptied(),
            ns: self.ns.clone(),
            collation: self.collation.clone(),
            options: self.options.clone(),
            size_bound: Some(0),
            ..Collection::default()
        }
    }

    /// No document is larger than this (in BSON bytes), while known.
    pub fn size_bound(&self) -> Option<usize> {
        self.size_bound
    }

    /// Set after a write whose every document's growth the caller bounded.
    pub fn set_size_bound(&mut self, bound: Option<usize>) {
        self.size_bound = bound;
    }

    /// The bound kept true once a document of `size` BSON bytes is stored.
    fn bound_with(&mut self, size: usize) {
        let known = match self.size_bound {
            None if self.docs.is_empty() => Some(0),
            known => known,
        };
        self.size_bound = known.map(|b| b.max(size));
    }

    pub fn options(&self) -> &CollectionOptions {
        &self.options
    }

    /// A collection created with options (`createCollection`), or changed by `collMod`.
    pub fn set_options(&mut self, options: CollectionOptions) {
        self.options = options;
        self.capped_bytes = None;
    }

    /// A capped collection drops its oldest documents until the newest fit
    /// its size and count (the newest document always stays).
    fn evict_capped(&mut self, added: usize) {
        let Some(capped) = self.options.capped else {
            return;
        };
        let limit = usize::try_from(capped.size).unwrap_or(usize::MAX);
        let max = capped
            .max
            .filter(|m| *m > 0)
            .and_then(|m| usize::try_from(m).ok());
        let mut bytes = match self.capped_bytes {
            Some(b) => b + added,
            None => self.docs.iter().map(crate::value::size::doc_size).sum(),
        };
        let mut drop = 0;
        while drop + 1 < self.docs.len()
            && (bytes > limit || max.is_some_and(|m| self.docs.len() - drop > m))
        {
            bytes -= self.docs.get(drop).map_or(0, crate::value::size::doc_size);
            drop += 1;
        }
        if drop > 0 {
            let gone: Vec<usize> = (0..drop).collect();
            self.remove_many(&gone);
        }
        self.capped_bytes = Some(bytes);
    }

    fn set_ns(&mut self, namespace: &str) {
        if self.ns != namespace {
            self.ns = namespace.to_string();
        }
    }

    /// Build an index over the stored documents (false: an identical one exists).
    pub fn create_index(&mut self, namespace: &str, spec: IndexSpec) -> Result<bool> {
        self.set_ns(namespace);
        self.indexes.create(namespace, spec, &self.docs, &self.rids)
    }

    /// Index definitions changes that need no document: drop, hide.
    pub fn indexes_mut(&mut self) -> &mut IndexSet {
        &mut self.indexes
    }

    /// Append a document that already has its `_id` (see `Database::prepare_insert`).
    /// A duplicate key fails as MongoDB's E11000 does and changes nothing.
    pub fn insert(&mut self, namespace: &str, doc: Document) -> Result<()> {
        let size = crate::value::size::doc_size(&doc);
        self.insert_sized(namespace, doc, size)
    }

    /// [`Collection::insert`] of a document whose BSON size the caller has
    /// just measured (`Database::check_insert` gives it).
    pub fn insert_sized(&mut self, namespace: &str, doc: Document, size: usize) -> Result<()> {
        self.columns.clear();
        self.set_ns(namespace);
        if let Some(capped) = self.options.capped {
            if size as i64 > capped.size {
                return Err(Error::bad_value("object to insert exceeds cappedMaxSize"));
            }
        }
        let rid = self.next_rid;
        self.indexes.on_insert(namespace, rid, &doc)?;
        self.next_rid += 1;
        self.bound_with(size);
        let added = if self.options.capped.is_some() {
            size
        } else {
            0
        };
        self.docs.push(doc);
        self.rids.push(rid);
        self.evict_capped(added);
        Ok(())
    }

    /// Append documents that already have their `_id`s (a configuration
    /// being read), indexed in one go; fails as inserting them one by one
    /// would, and the caller then discards the database. `ids`: each
    /// document's `_id`, in order; `largest`: the largest one's BSON size.
    pub fn load(
        &mut self,
        namespace: &str,
        docs: Vec<Document>,
        ids: Vec<Bson>,
        largest: usize,
    ) -> Result<()> {
        self.columns.clear();
        self.set_ns(namespace);
        self.indexes.on_load(namespace, &docs, ids, self.next_rid)?;
        self.size_bound = match self.size_bound {
            Some(b) => Some(b.max(largest)),
            None if self.docs.is_empty() => Some(largest),
            None => None,
        };
        let n = docs.len() as Rid;
        self.rids.extend(self.next_rid..self.next_rid + n);
        self.next_rid += n;
        if self.docs.is_empty() {
            self.docs = docs;
        } else {
            self.docs.extend(docs);
        }
        Ok(())
    }

    /// Replace the document at `index` (same `_id` unless the caller checked
    /// otherwise) with `doc`, of `size` BSON bytes (the caller's 16 MiB check measured it).
    pub fn replace(
        &mut self,
        namespace: &str,
        index: usize,
        doc: Document,
        size: usize,
    ) -> Result<()> {
        self.columns.clear();
        self.set_ns(namespace);
        let (Some(old), Some(&rid)) = (self.docs.get(index), self.rids.get(index)) else {
            return Err(out_of_range());
        };
        // With only the `_id` index, an identical `_id` needs no re-indexing.
        let same_id = self.indexes.only_id()
            && crate::value::identical::identical(
                old.get("_id").unwrap_or(&Bson::Null),
                doc.get("_id").unwrap_or(&Bson::Null),
            );
        if !same_id {
            self.indexes.on_replace(namespace, rid, old, &doc)?;
        }
        self.bound_with(size);
        if let Some(slot) = self.docs.get_mut(index) {
            *slot = doc;
        }
        self.capped_bytes = None;
        Ok(())
    }

    /// Update the document at `index` in place; `f` returns whether it
    /// changed and, when it fails, must leave the document as it was.
    /// `id_fixed`: the update cannot change `_id` (known when it was
    /// compiled), so with only the `_id` index nothing needs re-indexing.
    /// Otherwise the old version is kept so that a duplicate key puts it back.
    pub fn update_in_place(
        &mut self,
        namespace: &str,
        index: usize,
        id_fixed: bool,
        f: impl FnOnce(&mut Document) -> Result<bool>,
    ) -> Result<bool> {
        self.columns.clear();
        self.capped_bytes = None;
        // The caller knows how much `f` can add, and sets the bound again.
        self.size_bound = None;
        let (Some(doc), Some(&rid)) = (self.docs.get_mut(index), self.rids.get(index)) else {
            return Err(out_of_range());
        };
        if id_fixed && self.indexes.only_id() {
            return f(doc);
        }
        let old = doc.clone();
        let changed = f(doc)?;
        if changed {
            if let Err(e) = self.indexes.on_replace(namespace, rid, &old, doc) {
                *doc = old;
                return Err(e);
            }
        }
        Ok(changed)
    }

    /// Remove the documents at the given indexes (ascending), keeping the
    /// others in order; returns the removed ones. Linear, unlike repeated `remove`.
    pub fn remove_many(&mut self, indexes: &[usize]) -> Vec<Document> {
        self.columns.clear();
        self.capped_bytes = None;
        let mut removed = Vec::with_capacity(indexes.len());
        let docs = std::mem::take(&mut self.docs);
        let rids = std::mem::take(&mut self.rids);
        let keep = docs.len().saturating_sub(indexes.len());
        self.docs.reserve_exact(keep);
        self.rids.reserve_exact(keep);
        let mut next = 0;
        for (i, (doc, rid)) in docs.into_iter().zip(rids).enumerate() {
            if indexes.get(next) == Some(&i) {
                next += 1;
                self.indexes.on_remove(rid, &doc);
                removed.push(doc);
            } else {
                self.docs.push(doc);
                self.rids.push(rid);
            }
        }
        removed
    }

    /// Remove and return the document at `index`.
    pub fn remove(&mut self, index: usize) -> Option<Document> {
        if index >= self.docs.len() {
            return None;
        }
        self.columns.clear();
        self.capped_bytes = None;
        let doc = self.docs.remove(index);
        let rid = self.rids.remove(index);
        self.indexes.on_remove(rid, &doc);
        Some(doc)
    }

    /// Remove every document; the indexes stay defined.
    pub fn clear(&mut self) {
        self.columns.clear();
        self.capped_bytes = None;
        self.size_bound = Some(0);
        self.docs.clear();
        self.rids.clear();
        self.indexes.clear_entries();
    }
}
