//! The shell methods completion offers after `db.`, `db.coll.` and a cursor,
//! each with a one-line description and the skeleton inserted on accept.
//! `tests.rs` checks that the engine accepts every one of them.

/// What a method is called on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receiver {
    Db,
    Collection,
    Cursor,
}

/// `(name, description, skeleton)`: the skeleton follows the name (`${}` marks the cursor).
pub type Method = (&'static str, &'static str, &'static str);

pub const DB_METHODS: &[Method] = &[
    (
        "getCollection",
        "A collection by name (any name, even one with dots).",
        "(\"${}\")",
    ),
    (
        "createCollection",
        "Creates an empty collection.",
        "(\"${}\")",
    ),
    (
        "getCollectionNames",
        "The names of the collections, sorted.",
        "()",
    ),
    (
        "getCollectionInfos",
        "Name and type of each collection.",
        "()",
    ),
    (
        "aggregate",
        "Runs a pipeline that starts with $documents.",
        "([{ $documents: [${}] }])",
    ),
    ("stats", "Sizes and counts of the database.", "()"),
    ("getName", "The database's name.", "()"),
    (
        "getSiblingDB",
        "Another database by name (in the playground it starts empty).",
        "(\"${}\")",
    ),
    ("dropDatabase", "Drops every collection.", "()"),
];

pub const COLLECTION_METHODS: &[Method] = &[
    (
        "find",
        "Documents matching a filter, with an optional projection.",
        "({ ${} })",
    ),
    (
        "findOne",
        "The first document matching a filter.",
        "({ ${} })",
    ),
    (
        "aggregate",
        "Runs an aggregation pipeline.",
        "([\n  { ${} }\n])",
    ),
    (
        "countDocuments",
        "Number of documents matching a filter.",
        "({ ${} })",
    ),
    (
        "estimatedDocumentCount",
        "Number of documents in the collection.",
        "()",
    ),
    (
        "count",
        "Number of documents matching a filter (legacy).",
        "({ ${} })",
    ),
    ("distinct", "Distinct values of a field.", "(\"${}\")"),
    ("insertOne", "Inserts one document.", "({ ${} })"),
    (
        "insertMany",
        "Inserts an array of documents.",
        "([{ ${} }])",
    ),
    (
        "insert",
        "Inserts a document or an array of documents (legacy).",
        "({ ${} })",
    ),
    (
        "updateOne",
        "Updates the first document matching a filter.",
        "({ ${} }, { $set: {} })",
    ),
    (
        "updateMany",
        "Updates every document matching a filter.",
        "({ ${} }, { $set: {} })",
    ),
    (
        "update",
        "Updates documents (legacy; multi: true for all).",
        "({ ${} }, { $set: {} })",
    ),
    (
        "replaceOne",
        "Replaces the first document matching a filter.",
        "({ ${} }, {})",
    ),
    (
        "deleteOne",
        "Deletes the first document matching a filter.",
        "({ ${} })",
    ),
    (
        "deleteMany",
        "Deletes every document matching a filter.",
        "({ ${} })",
    ),
    (
        "remove",
        "Deletes documents matching a filter (legacy).",
        "({ ${} })",
    ),
    (
        "findOneAndUpdate",
        "Updates one document and returns it.",
        "({ ${} }, { $set: {} })",
    ),
    (
        "findOneAndReplace",
        "Replaces one document and returns it.",
        "({ ${} }, {})",
    ),
    (
        "findOneAndDelete",
        "Deletes one document and returns it.",
        "({ ${} })",
    ),
    (
        "findAndModify",
        "Updates or removes one document and returns it (legacy).",
        "({ query: { ${} }, update: {} })",
    ),
    (
        "bulkWrite",
        "Runs several writes in one call.",
        "([{ insertOne: { document: { ${} } } }])",
    ),
    (
        "createIndex",
        "Creates an index on a key pattern.",
        "({ ${}: 1 })",
    ),
    (
        "createIndexes",
        "Creates several indexes.",
        "([{ ${}: 1 }])",
    ),
    ("getIndexes", "The collection's indexes.", "()"),
    (
        "getIndexSpecs",
        "The collection's indexes (as getIndexes).",
        "()",
    ),
    ("getIndexKeys", "The key pattern of each index.", "()"),
    (
        "dropIndex",
        "Drops an index by name or key pattern.",
        "(\"${}\")",
    ),
    ("dropIndexes", "Drops every index but _id_.", "()"),
    ("hideIndex", "Hides an index from the planner.", "(\"${}\")"),
    (
        "unhideIndex",
        "Lets the planner use a hidden index again.",
        "(\"${}\")",
    ),
    (
        "explain",
        "Explains the plan of the method that follows.",
        "().find({ ${} })",
    ),
    ("stats", "Sizes and counts of the collection.", "()"),
    ("isCapped", "Whether the collection is capped.", "()"),
    ("drop", "Drops the collection.", "()"),
];

pub const CURSOR_METHODS: &[Method] = &[
    ("sort", "Orders the documents.", "({ ${}: 1 })"),
    ("limit", "At most n documents.", "(${})"),
    ("skip", "Skips the first n documents.", "(${})"),
    ("projection", "Which fields to return.", "({ ${} })"),
    ("hint", "Forces an index (name or key pattern).", "(${})"),
    ("count", "Number of matching documents.", "()"),
    ("toArray", "All the documents as an array.", "()"),
    (
        "pretty",
        "The documents (output is always pretty here).",
        "()",
    ),
    ("itcount", "Number of documents the cursor returns.", "()"),
    ("size", "Number of documents after skip and limit.", "()"),
    ("hasNext", "Whether the cursor has a document.", "()"),
    ("next", "The first document.", "()"),
    (
        "explain",
        "The query plan (queryPlanner, executionStats or allPlansExecution).",
        "(\"${}executionStats\")",
    ),
];

pub fn list(on: Receiver) -> &'static [Method] {
    match on {
        Receiver::Db => DB_METHODS,
        Receiver::Collection => COLLECTION_METHODS,
        Receiver::Cursor => CURSOR_METHODS,
    }
}

pub fn known(on: Receiver, name: &str) -> bool {
    list(on).iter().any(|(n, _, _)| *n == name)
}

/// The engine's wording for a method it does not have.
pub fn unknown_message(on: Receiver, name: &str) -> String {
    let mut all: Vec<&str> = list(on).iter().map(|(n, _, _)| *n).collect();
    crate::sorting::sort(&mut all);
    let what = match on {
        Receiver::Db => "database",
        Receiver::Collection => "collection",
        Receiver::Cursor => "cursor",
    };
    format!(
        "unknown {what} method {name}(); supported: {}",
        all.join(", ")
    )
}
