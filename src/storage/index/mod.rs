//! Indexes: every collection's unique `_id` index plus the ones
//! `createIndex` adds, kept up to date by `Collection` on every write (the
//! planner that uses them is `crate::index`).
//!
//! An index is an ordered set of `(key, record id)`. Record ids are assigned
//! in insertion order and never reused, so the collection's record ids are
//! sorted and a record id's position is a binary search away; removing a
//! document shifts positions but leaves every index entry valid. Equal keys
//! are ordered by record id, i.e. in natural order, as in MongoDB.
//! See https://www.mongodb.com/docs/manual/indexes/.
pub mod key;
pub mod spec;

use crate::context::RunCtx;
use crate::error::{Error, Result};
use crate::expr::Scope;
use crate::text::shell::inline;
use crate::value::path::Part;
use bson::{Bson, Document};
use key::{collation_key, document_keys, Key};
use spec::IndexSpec;
use std::collections::BTreeSet;

/// A document's stable identity inside its collection.
pub type Rid = u64;

/// A document's keys in one index and where its arrays were.
type DocKeys = (Vec<Key>, Vec<Vec<String>>);
type PendingKeys = Vec<Option<DocKeys>>;

#[derive(Clone, Debug)]
pub struct Index {
    pub spec: IndexSpec,
    parts: Vec<Vec<Part>>,
    names: Vec<String>,
    entries: BTreeSet<(Key, Rid)>,
    /// Per field: the paths where some document had an array (multiKeyPaths).
    multikey_paths: Vec<Vec<String>>,
}

impl Index {
    fn new(spec: IndexSpec) -> Index {
        let parts = spec.parts();
        let names = spec.field_names();
        let n = parts.len();
        Index {
            spec,
            parts,
            names,
            entries: BTreeSet::new(),
            multikey_paths: vec![Vec::new(); n],
        }
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    pub fn entries(&self) -> &BTreeSet<(Key, Rid)> {
        &self.entries
    }

    pub fn is_multikey(&self) -> bool {
        self.multikey_paths.iter().any(|p| !p.is_empty())
    }

    /// Is field `i` multikey (some document had an array along its path)?
    pub fn field_is_multikey(&self, i: usize) -> bool {
        self.multikey_paths.get(i).is_some_and(|p| !p.is_empty())
    }

    pub fn multikey_paths(&self) -> &[Vec<String>] {
        &self.multikey_paths
    }

    /// The document's keys, or `None` when a sparse or partial index leaves it out.
    fn doc_keys(&self, doc: &Document) -> Result<Option<DocKeys>> {
        if self.spec.is_id() {
            let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
            return Ok(Some((vec![Key::new(vec![id], 0)], Vec::new())));
        }
        if let Some(filter) = &self.spec.partial {
            // Partial filters cannot use $expr, so the run's clock plays no part.
            let run = RunCtx::default();
            if !filter.matches(doc, &Scope::new(&run))? {
                return Ok(None);
            }
        }
        if let Some(text) = &self.spec.text {
            // Checked as the server checks it (the language override); the
            // terms are read from the documents when a `$text` query runs.
            text.strings(doc)?;
            return Ok(None);
        }
        if !self.spec.geo.is_empty() {
            return self.geo_doc_keys(doc);
        }
        let dk = document_keys(doc, &self.parts, &self.names)?;
        if self.spec.sparse && !dk.found {
            return Ok(None);
        }
        let collation = self.spec.collation.as_deref();
        let keys = dk
            .keys
            .into_iter()
            .map(|mut k| {
                if let Some(c) = collation {
                    k.iter_mut().for_each(|v| collation_key(c, v));
                }
                Key::new(k, self.spec.desc)
            })
            .collect();
        Ok(Some((keys, dk.array_paths)))
    }

    /// A geospatial index's keys: its geometries are checked (a document
    /// with a bad one is refused) and keyed whole, one per document; the
    /// other fields as usual. Without any geometry the document is left out.
    fn geo_doc_keys(&self, doc: &Document) -> Result<Option<DocKeys>> {
        let mut found = None;
        for (i, kind) in &self.spec.geo {
            if let Some(path) = self.spec.paths.get(*i) {
                let values = crate::geo::index::check(doc, path, *kind, self.spec.flat_range)?;
                if found.is_none() {
                    found = values.first().map(|v| (*v).clone());
                }
            }
        }
        let Some(geometry) = found else {
            return Ok(None);
        };
        let is_geo = |i: usize| self.spec.geo.iter().any(|(g, _)| *g == i);
        let others: Vec<usize> = (0..self.parts.len()).filter(|&i| !is_geo(i)).collect();
        let parts: Vec<Vec<Part>> = others.iter().map(|&i| self.parts[i].clone()).collect();
        let names: Vec<String> = others.iter().map(|&i| self.names[i].clone()).collect();
        let dk = document_keys(doc, &parts, &names)?;
        let mut array_paths = vec![Vec::new(); self.parts.len()];
        for (slot, paths) in others.iter().zip(dk.array_paths) {
            array_paths[*slot] = paths;
        }
        let keys = dk
            .keys
            .into_iter()
            .map(|rest| {
                let mut rest = rest.into_iter();
                let vals = (0..self.parts.len())
                    .map(|i| {
                        if is_geo(i) {
                            geometry.clone()
                        } else {
                            rest.next().unwrap_or(Bson::Null)
                        }
                    })
                    .collect();
                Key::new(vals, self.spec.desc)
            })
            .collect();
        Ok(Some((keys, array_paths)))
    }

    /// Does another record than `rid` hold `key`?
    fn taken(&self, key: &Key, rid: Rid) -> bool {
        self.entries
            .range((key.clone(), 0)..)
            .take_while(|(k, _)| k == key)
            .any(|(_, r)| *r != rid)
    }

    /// `E11000 duplicate key error collection: test.c index: a_1 dup key: { a: 1 }`
    fn duplicate(&self, ns: &str, key: &Key) -> Error {
        let fields: Vec<String> = self
            .names
            .iter()
            .zip(key.vals.iter())
            .map(|(n, v)| format!("{n}: {}", crate::text::server::server_string(v)))
            .collect();
        // An index with a collation names it; its keys are sort keys.
        let collation = match &self.spec.collation {
            Some(c) => format!(
                " collation: {}",
                crate::text::server::server_string(&Bson::Document(c.spec().clone()))
            ),
            None => String::new(),
        };
        Error::duplicate_key(format!(
            "E11000 duplicate key error collection: {ns} index: {}{collation} dup key: {{ {} }}",
            self.spec.name,
            fields.join(", ")
        ))
    }

    fn check_unique(&self, ns: &str, keys: &[Key], rid: Rid) -> Result<()> {
        if self.spec.unique {
            for k in keys {
                if self.taken(k, rid) {
                    return Err(self.duplicate(ns, k));
                }
            }
        }
        Ok(())
    }

    fn add(&mut self, keys: Vec<Key>, arrays: Vec<Vec<String>>, rid: Rid) {
        for k in keys {
            self.entries.insert((k, rid));
        }
        for (mine, found) in self.multikey_paths.iter_mut().zip(arrays) {
            for p in found {
                if !mine.contains(&p) {
                    mine.push(p);
                }
            }
        }
    }

    fn remove(&mut self, doc: &Document, rid: Rid) {
        // The keys were computed from the same document when it was stored, so
        // recomputing them cannot fail; if it somehow does, nothing is removed.
        if let Ok(Some((keys, _))) = self.doc_keys(doc) {
            for k in keys {
                self.entries.remove(&(k, rid));
            }
        }
    }

    /// Rough size in bytes: each key's encoded size plus a record id (see stats).
    pub fn size_estimate(&self) -> usize {
        self.entries
            .iter()
            .map(|(k, _)| {
                let mut d = Document::new();
                for v in k.vals.iter() {
                    // Keys are stored without field names.
                    d.insert("", v.clone());
                }
                crate::value::size::bson_size(&d) + 8
            })
            .sum()
    }
}

/// A collection's indexes; the first is always `_id_`.
#[derive(Clone, Debug)]
pub struct IndexSet {
    list: Vec<Index>,
}

impl Default for IndexSet {
    fn default() -> IndexSet {
        IndexSet {
            list: vec![Index::new(IndexSpec::id_index())],
        }
    }
}

impl IndexSet {
    pub fn iter(&self) -> impl Iterator<Item = &Index> {
        self.list.iter()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&Index> {
        self.list.iter().find(|i| i.spec.name == name)
    }

    pub fn id_index(&self) -> Option<&Index> {
        self.list.first()
    }

    /// Only the `_id` index (writes can skip the general key bookkeeping).
    pub fn only_id(&self) -> bool {
        self.list.len() == 1
    }

    pub fn contains_id(&self, id: &Bson) -> bool {
        let key = Key::new(vec![id.clone()], 0);
        self.list.first().is_some_and(|i| i.taken(&key, Rid::MAX))
    }

    /// Every index's keys for a document, checked for uniqueness against other records.
    fn keys_checked(&self, ns: &str, doc: &Document, rid: Rid) -> Result<PendingKeys> {
        let mut all = Vec::with_capacity(self.list.len());
        for ix in &self.list {
            let keys = ix.doc_keys(doc)?;
            if let Some((keys, _)) = &keys {
                ix.check_unique(ns, keys, rid)?;
            }
            all.push(keys);
        }
        Ok(all)
    }

    /// Index a new document; on error (duplicate key, parallel arrays) nothing changes.
    pub fn on_insert(&mut self, ns: &str, rid: Rid, doc: &Document) -> Result<()> {
        let all = self.keys_checked(ns, doc, rid)?;
        for (ix, keys) in self.list.iter_mut().zip(all) {
            if let Some((keys, arrays)) = keys {
                ix.add(keys, arrays, rid);
            }
        }
        Ok(())
    }

    /// Re-index a changed document; on error nothing changes.
    pub fn on_replace(&mut self, ns: &str, rid: Rid, old: &Document, new: &Document) -> Result<()> {
        let all = self.keys_checked(ns, new, rid)?;
        for (ix, keys) in self.list.iter_mut().zip(all) {
            ix.remove(old, rid);
            if let Some((keys, arrays)) = keys {
                ix.add(keys, arrays, rid);
            }
        }
        Ok(())
    }

    /// Index the documents of a collection being loaded, with record ids
    /// from `first_rid` on. When only the empty `_id` index exists (a
    /// configuration being read) its entries are sorted and built in one go
    /// instead of searched for document by document; either way it fails as
    /// inserting them one by one would, at the first document whose `_id` an
    /// earlier one holds (and then the database is discarded).
    /// `ids`: each document's `_id`, in order.
    pub fn on_load(
        &mut self,
        ns: &str,
        docs: &[Document],
        ids: Vec<Bson>,
        first_rid: Rid,
    ) -> Result<()> {
        let bulk = self.only_id() && self.list.first().is_some_and(|i| i.entries.is_empty());
        let Some(ix) = self.list.first_mut().filter(|_| bulk) else {
            for (doc, rid) in docs.iter().zip(first_rid..) {
                self.on_insert(ns, rid, doc)?;
            }
            return Ok(());
        };
        let mut keys: Vec<(Key, Rid)> = ids
            .into_iter()
            .zip(first_rid..)
            .map(|(id, rid)| (Key::new(vec![id], 0), rid))
            .collect();
        // Stable and linear on sorted input (the usual case).
        keys.sort();
        let first_dup = keys
            .windows(2)
            .filter(|w| w[0].0 == w[1].0)
            .map(|w| w[1].1)
            .min();
        if let Some(rid) = first_dup {
            let at = usize::try_from(rid - first_rid).unwrap_or(usize::MAX);
            let id = docs
                .get(at)
                .and_then(|d| d.get("_id"))
                .cloned()
                .unwrap_or(Bson::Null);
            return Err(ix.duplicate(ns, &Key::new(vec![id], 0)));
        }
        ix.entries = keys.into_iter().collect();
        Ok(())
    }

    pub fn on_remove(&mut self, rid: Rid, doc: &Document) {
        for ix in &mut self.list {
            ix.remove(doc, rid);
        }
    }

    /// Forget every entry, keep the definitions (all documents were removed).
    pub fn clear_entries(&mut self) {
        for ix in &mut self.list {
            ix.entries.clear();
        }
    }

    /// A copy with the same definitions and no entries (`$out` keeps the target's indexes).
    pub fn emptied(&self) -> IndexSet {
        let mut out = self.clone();
        for ix in &mut out.list {
            ix.entries.clear();
            ix.multikey_paths.iter_mut().for_each(Vec::clear);
        }
        out
    }

    /// Build a new index over the documents. Returns false when an identical
    /// index exists already (createIndex is then a no-op).
    pub fn create(
        &mut self,
        ns: &str,
        spec: IndexSpec,
        docs: &[Document],
        rids: &[Rid],
    ) -> Result<bool> {
        // `{_id: 1}` under any name is the `_id` index, which always exists.
        if let Some(id) = self.list.first() {
            if spec.same_keys(&id.spec) && spec.options.is_empty() {
                return Ok(false);
            }
        }
        for ix in &self.list {
            let existing = &ix.spec;
            if existing.name == spec.name {
                if !existing.same_keys(&spec) {
                    return Err(Error::index_key_specs_conflict(format!(
                            "An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: {}, existing index: {}",
                            inline(&Bson::Document(spec.describe())),
                            inline(&Bson::Document(existing.describe()))
                        ),
                    ));
                }
                if !existing.same_options(&spec) && !spec.is_id() {
                    return Err(Error::index_options_conflict(format!(
                            "An equivalent index already exists with the same name but different options. Requested index: {}, existing index: {}",
                            inline(&Bson::Document(spec.describe())),
                            inline(&Bson::Document(existing.describe()))
                        ),
                    ));
                }
                return Ok(false);
            }
            if existing.same_keys(&spec)
                && existing.text == spec.text
                && existing.options.get("partialFilterExpression")
                    == spec.options.get("partialFilterExpression")
            {
                return Err(Error::index_options_conflict(format!(
                    "Index already exists with a different name: {}",
                    existing.name
                )));
            }
        }
        if spec.text.is_some() {
            if let Some(other) = self.list.iter().find(|ix| ix.spec.text.is_some()) {
                return Err(Error::cannot_create_index(format!(
                    "only one text index per collection allowed, found existing text index \"{}\"",
                    other.spec.name
                )));
            }
        }
        if self.list.len() >= 64 {
            return Err(Error::cannot_create_index(format!(
                "add index fails, too many indexes for {ns} key:{}",
                inline(&Bson::Document(spec.key.clone()))
            )));
        }
        let mut ix = Index::new(spec);
        for (doc, &rid) in docs.iter().zip(rids) {
            if let Some((keys, arrays)) = ix.doc_keys(doc)? {
                ix.check_unique(ns, &keys, rid)?;
                ix.add(keys, arrays, rid);
                crate::budget::check_for(crate::budget::INDEX_KEYS)?;
            }
        }
        self.list.push(ix);
        Ok(true)
    }

    /// Remove an index by name; `_id_` cannot be dropped.
    pub fn drop_named(&mut self, name: &str) -> Result<()> {
        if name == "_id_" {
            return Err(Error::invalid_options("cannot drop _id index"));
        }
        match self.list.iter().position(|i| i.spec.name == name) {
            Some(pos) => {
                self.list.remove(pos);
                Ok(())
            }
            None => Err(Error::index_not_found(format!(
                "index not found with name [{name}]"
            ))),
        }
    }

    /// The name of the index with this key pattern.
    pub fn name_for_keys(&self, keys: &Document) -> Result<String> {
        let found: Vec<&Index> = self
            .list
            .iter()
            .filter(|i| {
                crate::value::order::compare_documents(&i.spec.key, keys)
                    == std::cmp::Ordering::Equal
            })
            .collect();
        match found.as_slice() {
            [one] => Ok(one.spec.name.clone()),
            [] => Err(Error::index_not_found(format!(
                "can't find index with key: {}",
                inline(&Bson::Document(keys.clone()))
            ))),
            _ => Err(Error::index_not_found(format!(
                "{} indexes found for key: {}, identify by name instead. Conflicting indexes: {}",
                found.len(),
                inline(&Bson::Document(keys.clone())),
                found
                    .iter()
                    .map(|i| inline(&Bson::Document(i.spec.describe())))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Drop every index but `_id_`.
    pub fn drop_all(&mut self) {
        self.list.truncate(1);
    }

    pub fn set_hidden(&mut self, name: &str, hidden: bool) -> Result<bool> {
        if name == "_id_" {
            return Err(Error::bad_value(
                "cannot modify hidden field of an _id index",
            ));
        }
        let Some(ix) = self.list.iter_mut().find(|i| i.spec.name == name) else {
            return Err(Error::index_not_found(format!("cannot find index {name}")));
        };
        let was = ix.spec.hidden;
        ix.spec.hidden = hidden;
        if hidden {
            ix.spec.options.insert("hidden", true);
        } else {
            ix.spec.options.remove("hidden");
        }
        Ok(was)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn unique_and_maintenance() {
        let mut set = IndexSet::default();
        let docs = vec![doc! {"_id": 1, "a": 1}, doc! {"_id": 2, "a": 2}];
        for (i, d) in docs.iter().enumerate() {
            assert!(set.on_insert("test.c", i as Rid, d).is_ok());
        }
        let spec = IndexSpec::parse(&doc! {"a": 1}, &doc! {"unique": true});
        let Ok(spec) = spec else { panic!("spec") };
        assert_eq!(set.create("test.c", spec, &docs, &[0, 1]).ok(), Some(true));
        let err = set.on_insert("test.c", 2, &doc! {"_id": 3, "a": 1}).err();
        assert_eq!(
            err.map(|e| e.message),
            Some(
                "E11000 duplicate key error collection: test.c index: a_1 dup key: { a: 1 }".into()
            )
        );
        // The failed insert left nothing behind.
        assert!(!set.contains_id(&Bson::Int32(3)));
        assert!(set
            .on_replace("test.c", 1, &docs[1], &doc! {"_id": 2, "a": 3})
            .is_ok());
        assert!(set.on_insert("test.c", 3, &doc! {"_id": 4, "a": 2}).is_ok());
        assert_eq!(set.drop_named("_id_").err().map(|e| e.code), Some(72));
        assert_eq!(set.drop_named("x").err().map(|e| e.code), Some(27));
    }
}
