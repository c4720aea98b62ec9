//! A run's collections across its databases, under the names its output
//! gives them: a collection's own name while only the configured database
//! (`test`) holds collections, else its namespace (`test.trades`,
//! `reporting.summary`), so a script that writes into another database shows
//! each database's collections apart.
use super::database::{Database, DB_NAME};
use super::Collection;
use std::borrow::Cow;

/// Whether the output names collections by namespace: a database other than
/// `test` holds one after the run.
pub fn several(db: &Database) -> bool {
    db.others().iter().any(|(_, d)| d.names().next().is_some())
}

/// The output's name of collection `coll` of database `db_name`.
pub fn key<'a>(several: bool, db_name: &str, coll: &'a str) -> Cow<'a, str> {
    if several {
        Cow::Owned(format!("{db_name}.{coll}"))
    } else {
        Cow::Borrowed(coll)
    }
}

/// Every collection after a run: `test`'s in creation order, then each other
/// database's (databases by name), with their output names; `true` marks
/// `test`'s own, which a run may share with the configuration it started from.
pub fn listed(db: &Database) -> Vec<(Cow<'_, str>, &Collection, bool)> {
    let several = several(db);
    let mut out: Vec<_> = db
        .collections()
        .map(|(n, c)| (key(several, DB_NAME, n), c, true))
        .collect();
    for (name, other) in db.others() {
        out.extend(
            other
                .collections()
                .map(|(n, c)| (Cow::Owned(format!("{name}.{n}")), c, false)),
        );
    }
    out
}

/// The collection the output names `key` (see [`listed`]).
pub fn find<'a>(db: &'a Database, key: &str) -> Option<&'a Collection> {
    if !several(db) {
        return db.collection(key);
    }
    // Database names hold no dot, so the first one ends the database's name.
    let (db_name, coll) = key.split_once('.')?;
    if db_name == DB_NAME {
        return db.collection(coll);
    }
    db.others()
        .iter()
        .find(|(n, _)| n == db_name)
        .and_then(|(_, d)| d.collection(coll))
}
