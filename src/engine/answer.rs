//! An expression statement's result. A find without projection returns
//! stored documents unchanged: the answer names them by position in their
//! collection instead of cloning them, and whoever writes the result out
//! reads them from the database before the next statement runs (see
//! `Session::run_script_with_work`).
use super::Database;
use bson::{Bson, Document};

/// A statement's result, owned.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Value(Bson),
    /// Documents of a collection, by position in its natural order (valid
    /// until the collection changes).
    Stored {
        collection: String,
        positions: Vec<usize>,
    },
}

/// A result as its consumer reads it: a value, or stored documents borrowed
/// from the database.
#[derive(Clone, Debug)]
pub enum View<'a> {
    Value(&'a Bson),
    Docs(Vec<&'a Document>),
}

impl Answer {
    /// Read the answer against the database it was computed on.
    pub fn view<'a>(&'a self, db: &'a Database) -> View<'a> {
        match self {
            Answer::Value(v) => View::Value(v),
            Answer::Stored {
                collection,
                positions,
            } => {
                let docs = db.collection(collection).map(|c| c.docs()).unwrap_or(&[]);
                // Positions come from a scan of these very documents.
                View::Docs(positions.iter().filter_map(|&p| docs.get(p)).collect())
            }
        }
    }

    /// The answer as a value of its own (stored documents cloned).
    pub fn into_bson(self, db: &Database) -> Bson {
        match self {
            Answer::Value(v) => v,
            stored => stored.view(db).to_bson(),
        }
    }
}

impl View<'_> {
    /// The result as mongosh prints it (stored documents as the array they answer).
    pub fn print_shell(&self) -> String {
        match self {
            View::Value(v) => crate::text::shell::print(v),
            View::Docs(docs) => crate::text::shell::print_docs(docs),
        }
    }

    /// Append the result as relaxed Extended JSON.
    pub fn write_ejson(&self, out: &mut String) {
        match self {
            View::Value(v) => crate::text::ejson::write_value(out, v),
            View::Docs(docs) => crate::text::ejson::write_docs(out, docs.iter().copied()),
        }
    }

    /// The value this view shows, owned (stored documents cloned).
    pub fn to_bson(&self) -> Bson {
        match self {
            View::Value(v) => (*v).clone(),
            View::Docs(docs) => {
                Bson::Array(docs.iter().map(|&d| Bson::Document(d.clone())).collect())
            }
        }
    }
}
