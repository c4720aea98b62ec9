//! Storage: the database's collections, their documents and the indexes kept
//! in step with every write. Below the planner and the executors, above the
//! filter compiler (a partial index keeps its compiled filter).
pub mod collation;
pub mod collection;
pub mod columns;
pub mod database;
pub mod index;
pub mod namespaces;
pub mod options;
pub mod validation;

pub use collection::Collection;
pub use database::{duplicate_id_error, Database, DB_NAME};
