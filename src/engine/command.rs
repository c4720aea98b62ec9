//! A collection method chain decoded once into a typed command: the
//! collection, the method (one table names every method the playground runs),
//! the call with its lowered arguments, and the cursor modifiers after it.
//! Reads, writes, explain and the page's work line take this value instead of
//! matching method names again.
use super::call::Call;
use crate::error::{Error, Result};

/// Which part of the engine runs a method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Read,
    Write,
    Insert,
    Index,
    Aggregate,
    Explain,
    Stats,
    Drop,
}

/// Declares [`Method`] and its table from one list, so every method has
/// exactly one name and one family.
macro_rules! methods {
    ($($name:literal => $variant:ident, $family:ident;)*) => {
        /// Every collection method the playground runs.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Method {
            $($variant,)*
        }

        /// The methods' names, in the order of the list below.
        const NAMES: &[&str] = &[$($name,)*];

        impl Method {
            pub fn parse(name: &str) -> Option<Method> {
                match name {
                    $($name => Some(Method::$variant),)*
                    _ => None,
                }
            }

            /// The method's name as scripts write it.
            pub fn name(self) -> &'static str {
                match self {
                    $(Method::$variant => $name,)*
                }
            }

            pub fn family(self) -> Family {
                match self {
                    $(Method::$variant => Family::$family,)*
                }
            }
        }
    };
}

methods! {
    "find" => Find, Read;
    "findOne" => FindOne, Read;
    "countDocuments" => CountDocuments, Read;
    "estimatedDocumentCount" => EstimatedDocumentCount, Read;
    "count" => Count, Read;
    "distinct" => Distinct, Read;
    "updateOne" => UpdateOne, Write;
    "updateMany" => UpdateMany, Write;
    "replaceOne" => ReplaceOne, Write;
    "update" => Update, Write;
    "deleteOne" => DeleteOne, Write;
    "deleteMany" => DeleteMany, Write;
    "remove" => Remove, Write;
    "findOneAndUpdate" => FindOneAndUpdate, Write;
    "findOneAndReplace" => FindOneAndReplace, Write;
    "findOneAndDelete" => FindOneAndDelete, Write;
    "findAndModify" => FindAndModify, Write;
    "bulkWrite" => BulkWrite, Write;
    "insertOne" => InsertOne, Insert;
    "insertMany" => InsertMany, Insert;
    "insert" => Insert, Insert;
    "createIndex" => CreateIndex, Index;
    "createIndexes" => CreateIndexes, Index;
    "dropIndex" => DropIndex, Index;
    "dropIndexes" => DropIndexes, Index;
    "getIndexes" => GetIndexes, Index;
    "getIndexSpecs" => GetIndexSpecs, Index;
    "getIndexKeys" => GetIndexKeys, Index;
    "hideIndex" => HideIndex, Index;
    "unhideIndex" => UnhideIndex, Index;
    "aggregate" => Aggregate, Aggregate;
    "explain" => Explain, Explain;
    "stats" => Stats, Stats;
    "isCapped" => IsCapped, Stats;
    "drop" => Drop, Drop;
}

impl Method {
    /// Writes that `explain()` plans without writing (not findAndModify or bulkWrite).
    pub fn explainable_write(self) -> bool {
        self.family() == Family::Write && !matches!(self, Method::FindAndModify | Method::BulkWrite)
    }

    /// Every method's name, sorted (for "supported: …" messages).
    pub fn names_sorted() -> Vec<&'static str> {
        let mut all = NAMES.to_vec();
        crate::sorting::sort(&mut all);
        all
    }
}

/// One collection method call and the cursor modifiers chained after it.
#[derive(Clone, Copy, Debug)]
pub struct Command<'c> {
    pub collection: &'c str,
    pub method: Method,
    /// The whole chain: `call` then `modifiers`.
    pub calls: &'c [Call],
    pub call: &'c Call,
    pub modifiers: &'c [Call],
}

impl<'c> Command<'c> {
    /// Decode `db.<collection>.<calls>`; `None` when the first call names no
    /// method the playground knows.
    pub fn decode(collection: &'c str, calls: &'c [Call]) -> Option<Command<'c>> {
        let (call, modifiers) = calls.split_first()?;
        Some(Command {
            collection,
            method: Method::parse(&call.name)?,
            calls,
            call,
            modifiers,
        })
    }

    /// Methods that return a result document, not a cursor: nothing may follow.
    pub fn no_modifiers(&self) -> Result<()> {
        match self.modifiers.first() {
            Some(c) => Err(Error::bad_value(format!(
                "{}() cannot be chained here: the previous call does not return a cursor",
                c.name
            ))
            .at(c.span)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in NAMES {
            let method = Method::parse(name).expect("a listed name parses");
            assert_eq!(method.name(), *name);
        }
        assert_eq!(Method::CountDocuments.family(), Family::Read);
        assert_eq!(Method::InsertMany.family(), Family::Insert);
        assert!(Method::UpdateOne.explainable_write() && !Method::BulkWrite.explainable_write());
        assert_eq!(Method::parse("renameCollection"), None);
    }
}
