//! The playground's database: named collections in creation order, and the
//! seeded ObjectIds given to documents inserted without an `_id`.
use super::collection::Collection;
use crate::error::{Error, Result};
use bson::oid::ObjectId;
use bson::{Bson, Document};
use std::cell::Cell;
use std::rc::Rc;

/// The server refuses arrays, regular expressions and undefined as `_id`, and
/// `$`-prefixed field names anywhere inside it.
fn check_new_id(id: &Bson) -> Result<()> {
    let bad = match id {
        Bson::Array(_) => "array",
        Bson::RegularExpression(_) => "regex",
        Bson::Undefined => "undefined",
        Bson::Document(_) => return check_id_fields(id),
        _ => return Ok(()),
    };
    Err(Error::location(
        53,
        format!("The '_id' value cannot be of type {bad}"),
    ))
}

/// The server's storageValidEmbedded on an `_id` document: fields in order,
/// depth first (so the same field is named), DBRefs aside; a loop, not recursion.
fn check_id_fields(id: &Bson) -> Result<()> {
    type Frame<'a> = (Vec<(Option<&'a str>, &'a Bson)>, bool, usize);
    fn open(v: &Bson) -> Option<Frame<'_>> {
        match v {
            Bson::Document(d) => {
                let dbref = d.keys().next().map(String::as_str) == Some("$ref")
                    && matches!(d.get("$ref"), Some(Bson::String(_)))
                    && d.keys().nth(1).map(String::as_str) == Some("$id");
                let mut fields: Vec<_> = d.iter().map(|(k, v)| (Some(k.as_str()), v)).collect();
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
    let mut frames: Vec<Frame> = Vec::new();
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
                return Err(Error::dollar_prefixed_field_name(format!(
                    "_id fields may not contain '$'-prefixed fields: {k} is not valid for storage."
                )));
            }
        }
        frames.extend(open(v));
    }
    Ok(())
}

/// `E11000 duplicate key error collection: test.trades index: _id_ dup key: { _id: "x" }`
pub fn duplicate_id_error(namespace: &str, id: &Bson) -> Error {
    let key = crate::text::server::server_string(id);
    Error::duplicate_key(format!(
        "E11000 duplicate key error collection: {namespace} index: _id_ dup key: {{ _id: {key} }}"
    ))
}

/// Cloning a database is cheap: collections are shared until written
/// (copy on write), so a run on a copy of the loaded configuration copies
/// only the collections it changes.
#[derive(Clone, Debug, Default)]
pub struct Database {
    collections: Vec<(String, Rc<Collection>)>,
    /// Counter for seeded ObjectIds (Mongo Playground's `5a934e000102030405xxxxxx`).
    next_id: Cell<u32>,
    /// After a run, the other databases its script used, by name (see
    /// `namespaces`); a configuration has none.
    others: Vec<(String, Database)>,
}

impl crate::shell::NewId for Database {
    fn new_id(&self) -> ObjectId {
        self.new_object_id()
    }
}

/// The database name shown in namespaces (`test.trades`), as in mongosh.
pub const DB_NAME: &str = "test";

thread_local! {
    /// The name of the database a script is in (see `Database::namespace`).
    static CURRENT_DB: std::cell::RefCell<String> = std::cell::RefCell::new(DB_NAME.to_string());
}

impl Database {
    pub fn new() -> Database {
        Database::default()
    }

    pub fn collection(&self, name: &str) -> Option<&Collection> {
        self.collections
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| &**c)
    }

    /// The named collection, created empty if it does not exist (as MongoDB does on first write).
    pub fn collection_mut(&mut self, name: &str) -> &mut Collection {
        let pos = match self.collections.iter().position(|(n, _)| n == name) {
            Some(pos) => pos,
            None => {
                self.collections
                    .push((name.to_string(), Rc::new(Collection::default())));
                self.collections.len() - 1
            }
        };
        Rc::make_mut(&mut self.collections[pos].1)
    }

    /// Replace a collection's contents (created if missing), without copying
    /// the old contents first.
    pub fn set_collection(&mut self, name: &str, coll: Collection) {
        match self.collections.iter_mut().find(|(n, _)| n == name) {
            Some((_, c)) => *c = Rc::new(coll),
            None => self.collections.push((name.to_string(), Rc::new(coll))),
        }
    }

    /// Whether a collection is still the very one of `other` (neither was
    /// written since one was cloned from the other).
    pub fn shares(&self, name: &str, other: &Database) -> bool {
        let find = |db: &Database| {
            db.collections
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, c)| Rc::clone(c))
        };
        matches!((find(self), find(other)), (Some(a), Some(b)) if Rc::ptr_eq(&a, &b))
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
        self.collections.iter().map(|(n, c)| (n.as_str(), &**c))
    }

    /// The other databases a run used (see `namespaces`).
    pub fn others(&self) -> &[(String, Database)] {
        &self.others
    }

    pub fn take_others(&mut self) -> Vec<(String, Database)> {
        std::mem::take(&mut self.others)
    }

    pub fn set_others(&mut self, others: Vec<(String, Database)>) {
        self.others = others;
    }

    /// A new empty database that continues this one's seeded ObjectIds (one
    /// sequence per run, whichever database a document goes to).
    pub fn continue_ids(&self, other: &Database) {
        other.next_id.set(self.next_id.get());
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

    /// A time series measurement as the server stores and returns it: the
    /// time field first, then the meta field, then the others as given;
    /// a missing `_id` is added last (as mongosh's driver appends it), not
    /// moved to the front.
    pub fn prepare_measurement(
        &self,
        mut doc: Document,
        time_field: &str,
        meta_field: Option<&str>,
    ) -> Result<Document> {
        match doc.get("_id") {
            Some(id) => check_new_id(id)?,
            None => {
                doc.insert("_id", Bson::ObjectId(self.new_object_id()));
            }
        }
        let mut out = Document::new();
        for first in std::iter::once(time_field).chain(meta_field) {
            if let Some(v) = doc.remove(first) {
                out.insert(first, v);
            }
        }
        out.extend(doc);
        Ok(out)
    }

    /// Fill a collection from a configuration: every document prepared and
    /// checked as an insert, then stored and indexed at once. The error is
    /// the one inserting them in order would meet first.
    pub fn load_collection(&mut self, name: &str, docs: Vec<Document>) -> Result<()> {
        let namespace = Database::namespace(name);
        let mut ready = Vec::with_capacity(docs.len());
        // The `_id`s for the index, taken while each document is at hand
        // (a later pass over 100,000 documents would fetch each from memory again).
        let mut ids = Vec::with_capacity(docs.len());
        let mut failed = None;
        let mut largest = 0;
        for doc in docs {
            match self
                .prepare_insert(doc)
                .and_then(|doc| Database::check_insert(&doc).map(|size| (doc, size)))
            {
                Ok((doc, size)) => {
                    largest = largest.max(size);
                    // `prepare_insert` puts `_id` first.
                    let id = crate::value::entries::of(&doc)
                        .first()
                        .map(|(_, v)| v.clone());
                    ids.push(id.unwrap_or(Bson::Null));
                    ready.push(doc);
                }
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        // A duplicate `_id` among the documents before a failing one comes first.
        self.collection_mut(name)
            .load(&namespace, ready, ids, largest)?;
        failed.map_or(Ok(()), Err)
    }

    /// Refuse a document to insert as the server does (insert.cpp's
    /// fixDocumentForInsert): over 16 MiB, or nested deeper than 180 levels
    /// (the limits updates enforce too, see `value::size`). Gives its size.
    pub fn check_insert(doc: &Document) -> Result<usize> {
        use crate::value::size::{doc_size_and_levels, MAX_DEPTH, MAX_DOCUMENT_SIZE};
        let (size, levels) = doc_size_and_levels(doc);
        if size > MAX_DOCUMENT_SIZE {
            return Err(Error::bson_object_too_large(format!(
                "object to insert too large. size in bytes: {size}, max size: {MAX_DOCUMENT_SIZE}"
            )));
        }
        if levels > MAX_DEPTH {
            return Err(Error::overflow(format!(
                "cannot insert document because it exceeds {MAX_DEPTH} levels of nesting"
            )));
        }
        Ok(size)
    }

    /// `<database>.<name>`: the database the script is in (`test` unless it
    /// switched with `use` or `getSiblingDB`), as the server's messages name it.
    pub fn namespace(name: &str) -> String {
        CURRENT_DB.with(|db| format!("{}.{name}", db.borrow()))
    }

    /// The name of the database a script is in (`test` by default).
    pub fn current_name() -> String {
        CURRENT_DB.with(|db| db.borrow().clone())
    }

    /// Name the database a script is in, for [`Database::namespace`] (the
    /// engine calls this when a script switches databases).
    pub fn set_current_name(name: &str) {
        CURRENT_DB.with(|db| {
            let mut db = db.borrow_mut();
            db.clear();
            db.push_str(name);
        });
    }
}
