//! A collection's scan columns (`value::column`): derived data, like an
//! index, built by the first scan that reads the whole collection and wants
//! one, kept while the collection is unchanged (shared by later runs on the
//! same loaded data) and dropped by any write.
use crate::value::column::{Column, Source};
use bson::Document;
use std::rc::Rc;

/// Collections smaller than this are scanned without columns: building one
/// costs about what one scan costs, and small scans are fast anyway.
pub const MIN_DOCUMENTS: usize = 2048;

/// Columns a collection keeps at most (each is 16 bytes per document).
const MAX_COLUMNS: usize = 16;

/// A dotted path's or an element column holds at most this many values per
/// document on average (arrays multiply them); past that it is not built.
const MAX_VALUES_PER_DOCUMENT: usize = 16;

/// Cells a collection's columns hold at most, all together (17 bytes each:
/// about 68 MiB). A page's memory never shrinks, so derived data is capped.
const MAX_CELLS: usize = 1 << 22;

/// A collection's columns, by field. Interior mutability: a read-only scan
/// (on a collection shared by runs) adds the column it built.
#[derive(Clone, Debug, Default)]
pub struct Columns {
    built: std::cell::RefCell<Vec<Rc<Column>>>,
    /// Columns too large to keep (not tried again).
    refused: std::cell::RefCell<Vec<Source>>,
}

impl Columns {
    /// The column of `source`, if built.
    pub fn get(&self, source: &Source) -> Option<Rc<Column>> {
        self.built
            .borrow()
            .iter()
            .find(|c| c.source() == source)
            .cloned()
    }

    /// The column a scan of `docs` (the collection's) can use for `source`:
    /// built if it was not and `whole` (the scan reads every document).
    pub fn for_scan(&self, source: &Source, docs: &[Document], whole: bool) -> Option<Rc<Column>> {
        if docs.len() < MIN_DOCUMENTS {
            return None;
        }
        match self.get(source) {
            Some(c) => Some(c),
            None if whole && self.len() < MAX_COLUMNS => self.get_or_build(source, docs),
            None => None,
        }
    }

    /// The column of `source`, built over `docs` if it was not; `None` if a
    /// path's or an element column is too large, or the columns would hold
    /// more than [`MAX_CELLS`].
    pub fn get_or_build(&self, source: &Source, docs: &[Document]) -> Option<Rc<Column>> {
        if let Some(c) = self.get(source) {
            return Some(c);
        }
        if self.refused.borrow().iter().any(|s| s == source) {
            return None;
        }
        let held: usize = self.built.borrow().iter().map(|c| c.cells().len()).sum();
        let room = MAX_CELLS.saturating_sub(held);
        let max = docs.len().saturating_mul(MAX_VALUES_PER_DOCUMENT).min(room);
        let column = match source {
            Source::Path(field) if field.contains('.') => Column::build_path(field, docs, max),
            Source::Path(_) if docs.len() > room => None,
            Source::Path(field) => Some(Column::build(field, docs)),
            Source::Elements { array, field } => {
                Column::build_elements(array, field.as_deref(), docs, max)
            }
        };
        let Some(c) = column.map(Rc::new) else {
            self.refused.borrow_mut().push(source.clone());
            return None;
        };
        // Past the run's memory budget the scan goes on without it (a faster
        // scan is not worth failing the statement); a later run may keep it.
        if crate::budget::check().is_err() {
            return None;
        }
        self.built.borrow_mut().push(Rc::clone(&c));
        Some(c)
    }

    /// How many columns are built.
    pub fn len(&self) -> usize {
        self.built.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The documents changed: every column is stale.
    pub fn clear(&mut self) {
        self.built.get_mut().clear();
        self.refused.get_mut().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{doc, Bson};

    #[test]
    fn built_once_for_whole_scans_of_large_collections() {
        let docs: Vec<Document> = (0..MIN_DOCUMENTS).map(|i| doc! {"a": i as i64}).collect();
        let mut cols = Columns::default();
        let a = Source::Path("a".into());
        assert!(cols.for_scan(&a, &docs[1..], true).is_none(), "small");
        assert!(
            cols.for_scan(&a, &docs, false).is_none(),
            "not built for a partial scan"
        );
        let first = cols
            .for_scan(&a, &docs, true)
            .unwrap_or_else(|| panic!("built"));
        let again = cols
            .for_scan(&a, &docs, false)
            .unwrap_or_else(|| panic!("kept"));
        assert!(Rc::ptr_eq(&first, &again));
        let elements = Source::Elements {
            array: "a".into(),
            field: None,
        };
        assert!(
            cols.get(&elements).is_none(),
            "a field's column is not its elements'"
        );
        cols.clear();
        assert!(cols.get(&a).is_none());
    }

    #[test]
    fn a_column_past_the_budget_is_not_kept() {
        let docs: Vec<Document> = (0..MIN_DOCUMENTS).map(|i| doc! {"a": i as i64}).collect();
        let cols = Columns::default();
        let a = Source::Path("a".into());
        let previous = crate::budget::set_run_limit(0);
        let run = crate::budget::start_run();
        assert!(cols.for_scan(&a, &docs, true).is_none(), "over the budget");
        drop(run);
        crate::budget::set_run_limit(previous);
        assert!(
            cols.for_scan(&a, &docs, true).is_some(),
            "built by a later run"
        );
    }

    #[test]
    fn columns_hold_at_most_max_cells() {
        // 16 elements of 20,000 documents: 320,000 cells a column.
        let docs: Vec<Document> = (0..20_000)
            .map(|i| doc! {"a": (0..16).map(|k| doc! {"x": i + k}).collect::<Vec<_>>()})
            .collect();
        let cols = Columns::default();
        let per_column = 20_000 * 16;
        let mut kept = 0;
        for k in 0..MAX_COLUMNS {
            let source = Source::Elements {
                array: "a".into(),
                field: Some(format!("f{k}")),
            };
            if cols.for_scan(&source, &docs, true).is_some() {
                kept += 1;
            }
        }
        assert!(MAX_CELLS / per_column < MAX_COLUMNS, "the cap binds");
        assert_eq!(kept, MAX_CELLS / per_column);
    }

    #[test]
    fn writes_drop_the_columns() {
        let docs: Vec<Document> = (0..MIN_DOCUMENTS as i64)
            .map(|i| doc! {"_id": i, "a": i})
            .collect();
        let ids = docs
            .iter()
            .map(|d| d.get("_id").cloned().unwrap_or(Bson::Null))
            .collect();
        let mut c = super::super::Collection::default();
        c.load("t.c", docs, ids, 0)
            .unwrap_or_else(|e| panic!("{e}"));
        let a = Source::Path("a".into());
        assert!(c.columns().for_scan(&a, c.docs(), true).is_some());
        let _ = c.remove(0);
        assert!(c.columns().is_empty());
    }
}
