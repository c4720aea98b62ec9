//! Sizes and metadata: `db.<coll>.stats()`, `db.stats()`, `db.getCollectionInfos()`,
//! `Object.bsonsize(doc)`. Shaped like MongoDB 8's output, with the fields a
//! playground can know (no storage engine details).
use super::{Collection, Database};
use crate::error::{Error, Result};
use crate::value::size::bson_size;
use bson::{doc, Bson, Document};

fn data_size(c: &Collection) -> usize {
    c.docs().iter().map(bson_size).sum()
}

/// Index size estimates: each entry's encoded key plus a record id (8 bytes).
fn index_sizes(c: &Collection) -> (Document, usize) {
    let mut sizes = Document::new();
    let mut total = 0;
    for ix in c.indexes().iter() {
        let n = ix.size_estimate();
        total += n;
        sizes.insert(ix.name(), num(n));
    }
    (sizes, total)
}

fn num(n: usize) -> Bson {
    i32::try_from(n).map_or(Bson::Int64(n as i64), Bson::Int32)
}

/// `db.<coll>.stats()`
pub fn collection_stats(db: &Database, name: &str) -> Result<Bson> {
    let Some(c) = db.collection(name) else {
        return Err(Error::namespace_not_found(format!(
            "Collection [{}] not found.",
            Database::namespace(name)
        )));
    };
    let size = data_size(c);
    let (sizes, index_size) = index_sizes(c);
    let avg = if c.is_empty() { 0 } else { size / c.len() };
    let mut stats = doc! {
        "ns": Database::namespace(name),
        "size": num(size),
        "count": num(c.len()),
        "avgObjSize": num(avg),
        "storageSize": num(size),
    };
    // As the server's collStats: `capped` always, its limits when capped.
    stats.insert("capped", c.options().capped.is_some());
    if let Some(capped) = c.options().capped {
        stats.insert("max", long(capped.max.unwrap_or(0)));
        stats.insert("maxSize", long(capped.size));
    }
    stats.extend(doc! {
        "nindexes": num(c.indexes().len()),
        "indexSizes": sizes,
        "totalIndexSize": num(index_size),
        "totalSize": num(size + index_size),
        "ok": 1,
    });
    Ok(Bson::Document(stats))
}

/// A 64-bit count as the server's `appendNumber` writes it: an int when it fits.
fn long(n: i64) -> Bson {
    i32::try_from(n).map_or(Bson::Int64(n), Bson::Int32)
}

/// `db.<coll>.isCapped()`: mongosh reads the collection's options.
pub fn is_capped(db: &Database, name: &str) -> Result<Bson> {
    match db.collection(name) {
        Some(c) => Ok(Bson::Boolean(c.options().capped.is_some())),
        None => Err(Error::namespace_not_found(format!(
            "collection {} not found",
            Database::namespace(name)
        ))),
    }
}

/// `db.stats()`
pub fn db_stats(db: &Database) -> Bson {
    let (mut objects, mut size, mut index_size, mut collections, mut indexes) = (0, 0, 0, 0, 0);
    for (_, c) in db.collections() {
        collections += 1;
        objects += c.len();
        size += data_size(c);
        index_size += index_sizes(c).1;
        indexes += c.indexes().len();
    }
    let avg = size.checked_div(objects).unwrap_or(0);
    Bson::Document(doc! {
        "db": Database::current_name(),
        "collections": num(collections),
        "views": 0,
        "objects": num(objects),
        "avgObjSize": num(avg),
        "dataSize": num(size),
        "storageSize": num(size),
        "indexes": num(indexes),
        "indexSize": num(index_size),
        "totalSize": num(size + index_size),
        "ok": 1,
    })
}

/// `db.getCollectionInfos()`: one entry per collection, sorted by name as
/// mongosh lists them, with the options it was created with (a time series
/// collection has no `_id` index).
pub fn collection_infos(db: &Database) -> Bson {
    let mut names: Vec<&str> = db.names().collect();
    crate::sorting::sort(&mut names);
    Bson::Array(
        names
            .into_iter()
            .filter_map(|n| Some((n, db.collection(n)?)))
            .map(|(n, c)| {
                let options = c.options();
                let timeseries = options.timeseries.is_some();
                let mut shown = options.to_document();
                if let Some(collation) = c.collation() {
                    shown.insert("collation", collation.spec().clone());
                }
                let mut d = doc! {
                    "name": n,
                    "type": if timeseries { "timeseries" } else { "collection" },
                    "options": shown,
                    "info": { "readOnly": false },
                };
                if !timeseries {
                    d.insert(
                        "idIndex",
                        doc! { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
                    );
                }
                Bson::Document(d)
            })
            .collect(),
    )
}

/// `Object.bsonsize(doc)`
pub fn object_bsonsize(value: &Bson) -> Result<Bson> {
    match value {
        Bson::Document(d) => Ok(num(bson_size(d))),
        other => Err(Error::bad_value(format!(
            "Object.bsonsize() needs a document, got {}",
            crate::text::shell::type_name(other)
        ))),
    }
}
