//! Benchmark support: a database read once, statements parsed once, then run
//! many times against the same data. [`crate::run`] reads the configuration
//! anew on every call (as the page's Run does), which would make every
//! measurement mostly a measurement of the reader.
use crate::engine::{Answer, Database, Session, View};
use crate::error::Result;
use crate::shell::{self, Script, StmtKind};
use crate::RunCtx;
use bson::Bson;

/// A database kept across runs. Writes are kept too: running an update twice
/// applies it twice, as in a mongosh session.
pub struct LoadedDb {
    db: Database,
    run: RunCtx,
}

/// A script parsed once, to be run many times.
pub struct Prepared {
    script: Script,
}

impl Prepared {
    pub fn parse(script: &str) -> Result<Prepared> {
        Ok(Prepared {
            script: shell::parse_script(script)?,
        })
    }
}

impl LoadedDb {
    /// Read a database configuration (either form) once.
    pub fn load(db_text: &str, run: RunCtx) -> Result<LoadedDb> {
        Ok(LoadedDb {
            db: crate::load_database(db_text, &run)?,
            run,
        })
    }

    /// Run every statement; returns the last expression statement's result
    /// (`Null` when there is none).
    pub fn run(&mut self, script: &Prepared) -> Result<Bson> {
        let last = self.run_answer(script)?;
        Ok(last.into_bson(&self.db))
    }

    /// Run every statement; returns the last expression statement's result
    /// as an [`Answer`]: stored documents are named, not copied (read them
    /// with [`LoadedDb::view`] before running anything else).
    pub fn run_answer(&mut self, script: &Prepared) -> Result<Answer> {
        // An assignment after the last result may change the documents it names.
        let keep = !matches!(
            script.script.stmts.last().map(|s| &s.kind),
            Some(StmtKind::Assign { .. })
        );
        let mut last = Answer::Value(Bson::Null);
        Session::new(&mut self.db, self.run).run_script_answers(&script.script, |a, db, _| {
            last = if keep {
                a
            } else {
                Answer::Value(a.into_bson(db))
            };
        })?;
        Ok(last)
    }

    /// The result of the last [`LoadedDb::run_answer`], read in place.
    pub fn view<'a>(&'a self, answer: &'a Answer) -> View<'a> {
        answer.view(&self.db)
    }

    /// Number of documents in a collection (0 when it does not exist).
    pub fn len(&self, collection: &str) -> usize {
        self.db.collection(collection).map_or(0, |c| c.len())
    }

    pub fn database(&self) -> &Database {
        &self.db
    }
}

/// [`result_size`] of a result read in place.
pub fn view_size(view: &View<'_>) -> f64 {
    match view {
        View::Value(v) => result_size(v),
        View::Docs(docs) => docs.len() as f64,
    }
}

/// The size of a result, comparable across engines: a cursor's number of
/// documents, a count's value, a write's `modifiedCount`; 0 for null, 1 for
/// any other single value.
pub fn result_size(result: &Bson) -> f64 {
    match result {
        Bson::Array(a) => a.len() as f64,
        Bson::Int32(n) => f64::from(*n),
        Bson::Int64(n) => *n as f64,
        Bson::Double(n) => *n,
        Bson::Null => 0.0,
        Bson::Document(d) => match d.get("modifiedCount") {
            Some(Bson::Int32(n)) => f64::from(*n),
            Some(Bson::Int64(n)) => *n as f64,
            _ => 1.0,
        },
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_once_and_keeps_writes() {
        let mut db = LoadedDb::load(
            r#"db = {"t": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2}]}"#,
            RunCtx::default(),
        )
        .expect("configuration reads");
        assert_eq!(db.len("t"), 2);
        assert_eq!(db.len("missing"), 0);
        let count = Prepared::parse("db.t.countDocuments({})").expect("script parses");
        assert_eq!(result_size(&db.run(&count).expect("runs")), 2.0);
        let insert = Prepared::parse("db.t.insertOne({_id: 3})").expect("script parses");
        db.run(&insert).expect("runs");
        assert_eq!(result_size(&db.run(&count).expect("runs")), 3.0);
        let find = Prepared::parse("db.t.find()").expect("script parses");
        assert_eq!(result_size(&db.run(&find).expect("runs")), 3.0);
        let answer = db.run_answer(&find).expect("runs");
        assert!(matches!(answer, Answer::Stored { .. }));
        assert_eq!(view_size(&db.view(&answer)), 3.0);
        // A write after the result: the result is kept as it was.
        let then_delete =
            Prepared::parse("db.t.find({_id: 3}); var r = db.t.deleteMany({})").expect("parses");
        let answer = db.run_answer(&then_delete).expect("runs");
        assert_eq!(db.len("t"), 0);
        assert_eq!(db.view(&answer).to_bson(), bson::bson!([{"_id": 3}]));
        let none = Prepared::parse("const x = 1").expect("script parses");
        assert_eq!(db.run(&none).expect("runs"), Bson::Null);
    }

    #[test]
    fn errors_are_returned() {
        assert!(LoadedDb::load("db = {", RunCtx::default()).is_err());
        assert!(Prepared::parse("db.t.find(").is_err());
    }

    #[test]
    fn result_sizes() {
        assert_eq!(result_size(&Bson::Int64(7)), 7.0);
        assert_eq!(result_size(&bson::bson!({"modifiedCount": 4})), 4.0);
        assert_eq!(result_size(&bson::bson!({"x": 4})), 1.0);
        assert_eq!(result_size(&Bson::Boolean(true)), 1.0);
    }
}
