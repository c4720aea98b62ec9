//! The playground's database: named collections in creation order, each a
//! list of documents in natural (insertion) order with its unique `_id` set.
use crate::error::{Error, Result};
use crate::index::spec::IndexSpec;
use crate::index::{IndexSet, Rid};
use bson::oid::ObjectId;
use bson::{Bson, Document};
use std::cell::Cell;

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
}

fn out_of_range() -> Error {
    Error::new(1, "InternalError", "document index out of range")
}

impl Collection {
    pub fn docs(&self) -> &[Document] {
        &self.docs
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
    /// An empty collection with the same indexes (what `$out` writes into).
    pub fn emptied(&self) -> Collection {
        Collection {
            indexes: self.indexes.emptied(),
            ns: self.ns.clone(),
            ..Collection::default()
        }
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
        self.set_ns(namespace);
        let rid = self.next_rid;
        self.indexes.on_insert(namespace, rid, &doc)?;
        self.next_rid += 1;
        self.docs.push(doc);
        self.rids.push(rid);
        Ok(())
    }

    /// Append documents that already have their `_id`s (a configuration
    /// being read), indexed in one go; fails as inserting them one by one
    /// would, and the caller then discards the database.
    pub fn load(&mut self, namespace: &str, docs: Vec<Document>) -> Result<()> {
        self.set_ns(namespace);
        self.indexes.on_load(namespace, &docs, self.next_rid)?;
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

    /// Replace the document at `index` (same `_id` unless the caller checked otherwise).
    pub fn replace(&mut self, namespace: &str, index: usize, doc: Document) -> Result<()> {
        self.set_ns(namespace);
        let (Some(old), Some(&rid)) = (self.docs.get(index), self.rids.get(index)) else {
            return Err(out_of_range());
        };
        // With only the `_id` index, an identical `_id` needs no re-indexing.
        let same_id = self.indexes.only_id()
            && crate::update::values::identical(
                old.get("_id").unwrap_or(&Bson::Null),
                doc.get("_id").unwrap_or(&Bson::Null),
            );
        if !same_id {
            self.indexes.on_replace(namespace, rid, old, &doc)?;
        }
        if let Some(slot) = self.docs.get_mut(index) {
            *slot = doc;
        }
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
        self.set_ns(namespace);
        let (Some(doc), Some(&rid)) = (self.docs.get_mut(index), self.rids.get(index)) else {
            return Err(out_of_range());
        };
        if id_fixed && self.indexes.only_id() {
            return f(doc);
        }
        let old = doc.clone();
        let changed = f(doc)?;
        if changed {
            if let Err(e) = self.indexes.on_replace(&self.ns, rid, &old, doc) {
                *doc = old;
                return Err(e);
            }
        }
        Ok(changed)
    }

    /// Remove the documents at the given indexes (ascending), keeping the
    /// others in order; returns the removed ones. Linear, unlike repeated `remove`.
    pub fn remove_many(&mut self, indexes: &[usize]) -> Vec<Document> {
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
        let doc = self.docs.remove(index);
        let rid = self.rids.remove(index);
        self.indexes.on_remove(rid, &doc);
        Some(doc)
    }

    /// Remove every document; the indexes stay defined.
    pub fn clear(&mut self) {
        self.docs.clear();
        self.rids.clear();
        self.indexes.clear_entries();
    }
}

/// The server refuses arrays, regular expressions and undefined as `_id`, and
/// `$`-prefixed field names anywhere inside it.
fn check_new_id(id: &Bson) -> Result<()> {
    let bad = match id {
        Bson::Array(_) => "array",
        Bson::RegularExpression(_) => "regex",
        Bson::Undefined => "undefined",
        // The server's storageValidEmbedded: fields in order, depth first
        // (so the same field is named), DBRefs aside; a loop, not recursion.
        Bson::Document(_) => {
            type Frame<'a> = (Vec<(Option<&'a str>, &'a Bson)>, bool, usize);
            let mut frames: Vec<Frame> = Vec::new();
            fn open(v: &Bson) -> Option<Frame<'_>> {
                match v {
                    Bson::Document(d) => {
                        let dbref = d.keys().next().map(String::as_str) == Some("$ref")
                            && matches!(d.get("$ref"), Some(Bson::String(_)))
                            && d.keys().nth(1).map(String::as_str) == Some("$id");
                        let mut fields: Vec<_> =
                            d.iter().map(|(k, v)| (Some(k.as_str()), v)).collect();
                        fields.reverse();
                        Some((fields, dbref, d.len()))
                    }
                    Bson::Array(items) => Some((
                        items.iter().rev().map(|v| (None, v)).collect(),
                        false,
                        items.len(),
                    )),
                    _ => None,
                }
            }
            frames.extend(open(id));
            while let Some((fields, dbref, total)) = frames.last_mut() {
                let Some((key, v)) = fields.pop() else {
                    frames.pop();
                    continue;
                };
                if let Some(k) = key.filter(|k| k.starts_with('$')) {
                    // A DBRef keeps $ref and $id (its first two fields) and an optional string $db third.
                    let i = *total - fields.len() - 1;
                    let allowed =
                        *dbref && (i < 2 || (i == 2 && k == "$db" && matches!(v, Bson::String(_))));
                    if !allowed {
                        return Err(Error::new(
                            52,
                            "DollarPrefixedFieldName",
                            format!("_id fields may not contain '$'-prefixed fields: {k} is not valid for storage."),
                        ));
                    }
                }
                frames.extend(open(v));
            }
            return Ok(());
        }
        _ => return Ok(()),
    };
    Err(Error::location(
        53,
        format!("The '_id' value cannot be of type {bad}"),
    ))
}

/// `E11000 duplicate key error collection: test.trades index: _id_ dup key: { _id: "x" }`
pub fn duplicate_id_error(namespace: &str, id: &Bson) -> Error {
    let key = crate::index::display::server_string(id);
    Error::duplicate_key(format!(
        "E11000 duplicate key error collection: {namespace} index: _id_ dup key: {{ _id: {key} }}"
    ))
}

#[derive(Clone, Debug, Default)]
pub struct Database {
    collections: Vec<(String, Collection)>,
    /// Counter for seeded ObjectIds (Mongo Playground's `5a934e000102030405xxxxxx`).
    next_id: Cell<u32>,
}

/// The database name shown in namespaces (`test.trades`), as in mongosh.
pub const DB_NAME: &str = "test";

impl Database {
    pub fn new() -> Database {
        Database::default()
    }

    pub fn collection(&self, name: &str) -> Option<&Collection> {
        self.collections
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c)
    }

    /// The named collection, created empty if it does not exist (as MongoDB does on first write).
    pub fn collection_mut(&mut self, name: &str) -> &mut Collection {
        let pos = match self.collections.iter().position(|(n, _)| n == name) {
            Some(pos) => pos,
            None => {
                self.collections
                    .push((name.to_string(), Collection::default()));
                self.collections.len() - 1
            }
        };
        &mut self.collections[pos].1
    }

    /// Remove a collection; true if it existed (what `drop()` returns).
    pub fn drop_collection(&mut self, name: &str) -> bool {
        let before = self.collections.len();
        self.collections.retain(|(n, _)| n != name);
        before != self.collections.len()
    }

    /// Collection names in creation order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.collections.iter().map(|(n, _)| n.as_str())
    }

    pub fn collections(&self) -> impl Iterator<Item = (&str, &Collection)> {
        self.collections.iter().map(|(n, c)| (n.as_str(), c))
    }

    /// The next seeded ObjectId: `5a934e00` `0102030405` + a 3-byte counter.
    pub fn new_object_id(&self) -> ObjectId {
        let n = self.next_id.get();
        self.next_id.set(n.wrapping_add(1));
        let c = n.to_be_bytes();
        ObjectId::from_bytes([0x5a, 0x93, 0x4e, 0x00, 1, 2, 3, 4, 5, c[1], c[2], c[3]])
    }

    /// Give a document its `_id` (a seeded ObjectId when missing) and move
    /// `_id` to the front, as the server does on insert; reject invalid `_id`s.
    /// A document whose `_id` is already first is kept as it is (no rebuild).
    pub fn prepare_insert(&self, mut doc: Document) -> Result<Document> {
        if let Some((k, id)) = doc.iter().next() {
            if k == "_id" {
                check_new_id(id)?;
                return Ok(doc);
            }
        }
        let id = match doc.remove("_id") {
            Some(id) => {
                check_new_id(&id)?;
                id
            }
            None => Bson::ObjectId(self.new_object_id()),
        };
        let mut out = Document::new();
        out.insert("_id", id);
        out.extend(doc);
        Ok(out)
    }

    /// Fill a collection from a configuration: every document prepared and
    /// checked as an insert, then stored and indexed at once. The error is
    /// the one inserting them in order would meet first.
    pub fn load_collection(&mut self, name: &str, docs: Vec<Document>) -> Result<()> {
        let namespace = Database::namespace(name);
        let mut ready = Vec::with_capacity(docs.len());
        let mut failed = None;
        for doc in docs {
            match self
                .prepare_insert(doc)
                .and_then(|doc| Database::check_insert(&doc).map(|()| doc))
            {
                Ok(doc) => ready.push(doc),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        // A duplicate `_id` among the documents before a failing one comes first.
        self.collection_mut(name).load(&namespace, ready)?;
        failed.map_or(Ok(()), Err)
    }

    /// Refuse a document to insert as the server does (insert.cpp's
    /// fixDocumentForInsert): over 16 MiB, or nested deeper than 180 levels
    /// (the limits updates enforce too, see `update::values`).
    pub fn check_insert(doc: &Document) -> Result<()> {
        use crate::update::values::{doc_levels, doc_size, MAX_DEPTH, MAX_DOC_SIZE};
        let size = doc_size(doc);
        if size > MAX_DOC_SIZE {
            return Err(Error::new(
                10334,
                "BSONObjectTooLarge",
                format!(
                    "object to insert too large. size in bytes: {size}, max size: {MAX_DOC_SIZE}"
                ),
            ));
        }
        if doc_levels(doc) > MAX_DEPTH {
            return Err(Error::new(
                45,
                "Overflow",
                format!("cannot insert document because it exceeds {MAX_DEPTH} levels of nesting"),
            ));
        }
        Ok(())
    }

    /// `test.<name>`
    pub fn namespace(name: &str) -> String {
        format!("{DB_NAME}.{name}")
    }
}
