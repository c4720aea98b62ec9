//! The playground's database: named collections in creation order, each a
//! list of documents in natural (insertion) order with its unique `_id` set.
use crate::error::{Error, Result};
use crate::value::OrdBson;
use bson::oid::ObjectId;
use bson::{Bson, Document};
use std::cell::Cell;
use std::collections::BTreeSet;

#[derive(Clone, Debug, Default)]
pub struct Collection {
    docs: Vec<Document>,
    ids: BTreeSet<OrdBson>,
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
        self.ids.contains(&OrdBson(id.clone()))
    }

    /// Append a document that already has its `_id` (see `Database::prepare_insert`).
    /// A duplicate `_id` fails as MongoDB's E11000 does and changes nothing.
    pub fn insert(&mut self, namespace: &str, doc: Document) -> Result<()> {
        let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
        if !self.ids.insert(OrdBson(id.clone())) {
            return Err(duplicate_id_error(namespace, &id));
        }
        self.docs.push(doc);
        Ok(())
    }

    /// Replace the document at `index` (same `_id` unless the caller checked otherwise).
    pub fn replace(&mut self, namespace: &str, index: usize, doc: Document) -> Result<()> {
        let Some(old) = self.docs.get(index) else {
            return Err(Error::new(
                1,
                "InternalError",
                "document index out of range",
            ));
        };
        let old_id = old.get("_id").cloned().unwrap_or(Bson::Null);
        let new_id = doc.get("_id").cloned().unwrap_or(Bson::Null);
        if !crate::value::equal(&old_id, &new_id) {
            if self.ids.contains(&OrdBson(new_id.clone())) {
                return Err(duplicate_id_error(namespace, &new_id));
            }
            self.ids.remove(&OrdBson(old_id));
            self.ids.insert(OrdBson(new_id));
        }
        self.docs[index] = doc;
        Ok(())
    }

    /// Update the document at `index` in place; `f` returns whether it changed.
    /// `f` should leave `_id` alone (the update code refuses to change it); if
    /// it does not, the `_id` set follows the change.
    pub fn update_in_place(
        &mut self,
        index: usize,
        f: impl FnOnce(&mut Document) -> Result<bool>,
    ) -> Result<bool> {
        let Some(doc) = self.docs.get_mut(index) else {
            return Err(Error::new(
                1,
                "InternalError",
                "document index out of range",
            ));
        };
        let old_id = doc.get("_id").cloned().unwrap_or(Bson::Null);
        let changed = f(doc)?;
        if changed {
            let new_id = doc.get("_id").cloned().unwrap_or(Bson::Null);
            if !crate::value::equal(&old_id, &new_id) {
                self.ids.remove(&OrdBson(old_id));
                if !self.ids.insert(OrdBson(new_id)) {
                    return Err(Error::new(
                        1,
                        "InternalError",
                        "an in-place update changed _id",
                    ));
                }
            }
        }
        Ok(changed)
    }

    /// Remove the documents at the given indexes (ascending), keeping the
    /// others in order; returns the removed ones. Linear, unlike repeated `remove`.
    pub fn remove_many(&mut self, indexes: &[usize]) -> Vec<Document> {
        let mut removed = Vec::with_capacity(indexes.len());
        let mut next = indexes.iter().copied().peekable();
        let mut kept = Vec::with_capacity(self.docs.len().saturating_sub(indexes.len()));
        for (i, doc) in std::mem::take(&mut self.docs).into_iter().enumerate() {
            if next.peek() == Some(&i) {
                next.next();
                self.ids
                    .remove(&OrdBson(doc.get("_id").cloned().unwrap_or(Bson::Null)));
                removed.push(doc);
            } else {
                kept.push(doc);
            }
        }
        self.docs = kept;
        removed
    }

    /// Remove and return the document at `index`.
    pub fn remove(&mut self, index: usize) -> Option<Document> {
        if index >= self.docs.len() {
            return None;
        }
        let doc = self.docs.remove(index);
        self.ids
            .remove(&OrdBson(doc.get("_id").cloned().unwrap_or(Bson::Null)));
        Some(doc)
    }

    pub fn clear(&mut self) {
        self.docs.clear();
        self.ids.clear();
    }
}

/// `E11000 duplicate key error collection: test.trades index: _id_ dup key: { _id: "x" }`
pub fn duplicate_id_error(namespace: &str, id: &Bson) -> Error {
    let key = crate::output::shell::inline(id);
    Error::duplicate_key(format!(
        "E11000 duplicate key error collection: {namespace} index: _id_ dup key: {{ _id: {key} }}"
    ))
}

#[derive(Debug, Default)]
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
    pub fn prepare_insert(&self, mut doc: Document) -> Result<Document> {
        let id = match doc.remove("_id") {
            Some(Bson::Array(_)) => {
                return Err(Error::location(
                    53,
                    "The '_id' value cannot be of type array",
                ));
            }
            Some(Bson::RegularExpression(_)) => {
                return Err(Error::location(
                    53,
                    "The '_id' value cannot be of type regex",
                ));
            }
            Some(Bson::Undefined) => {
                return Err(Error::location(
                    53,
                    "The '_id' value cannot be of type undefined",
                ));
            }
            Some(id) => id,
            None => Bson::ObjectId(self.new_object_id()),
        };
        let mut out = Document::new();
        out.insert("_id", id);
        out.extend(doc);
        Ok(out)
    }

    /// `test.<name>`
    pub fn namespace(name: &str) -> String {
        format!("{DB_NAME}.{name}")
    }
}
