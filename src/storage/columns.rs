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
        if let Some(c) = self.get(source) {
            return Some(c);
        }
        if whole {
            self.build(&[source], docs);
        }
        self.get(source)
    }

    /// Builds the missing columns of `sources` (asked only when columns may
    /// be built) a scan of `docs` can use, as [`Columns::for_scan`] would
    /// one after the other, except that the element columns of one array
    /// are built together, in one pass over the documents
    /// (`Column::build_elements_many`).
    pub fn prepare(&self, docs: &[Document], whole: bool, sources: impl FnOnce() -> Vec<Source>) {
        if whole && docs.len() >= MIN_DOCUMENTS {
            let sources = sources();
            self.build(&sources.iter().collect::<Vec<_>>(), docs);
        }
    }

    /// Builds the missing columns of `sources`, in order, while there is
    /// room for more: a path's alone, the element columns of one array
    /// together (where the first of them is asked). A column too large
    /// is refused (not tried again).
    fn build(&self, sources: &[&Source], docs: &[Document]) {
        let mut tried: Vec<&Source> = Vec::new();
        for (i, &source) in sources.iter().enumerate() {
            if tried.contains(&source) || !self.missing(source) {
                continue;
            }
            let slots = MAX_COLUMNS.saturating_sub(self.len());
            if slots == 0 {
                return;
            }
            match source {
                Source::Path(field) => {
                    tried.push(source);
                    self.build_path(source, field, docs);
                }
                Source::Elements { array, .. } => {
                    let mut group: Vec<(&Source, Option<&str>)> = Vec::new();
                    for &s in sources.get(i..).unwrap_or(&[]) {
                        let Source::Elements { array: a, field } = s else {
                            continue;
                        };
                        let fresh = !group.iter().any(|(g, _)| *g == s) && self.missing(s);
                        if a == array && fresh && group.len() < slots {
                            group.push((s, field.as_deref()));
                        }
                    }
                    tried.extend(group.iter().map(|(s, _)| *s));
                    self.build_elements(array, &group, docs);
                }
            }
        }
    }

    /// Neither built nor refused.
    fn missing(&self, source: &Source) -> bool {
        self.get(source).is_none() && !self.refused.borrow().iter().any(|s| s == source)
    }

    /// Cells the columns may still take, and how many one dotted path's or
    /// element column over `docs` may hold.
    fn room(&self, docs: &[Document]) -> (usize, usize) {
        let held: usize = self.built.borrow().iter().map(|c| c.cells().len()).sum();
        let room = MAX_CELLS.saturating_sub(held);
        (room, docs.len().saturating_mul(MAX_VALUES_PER_DOCUMENT))
    }

    fn build_path(&self, source: &Source, field: &str, docs: &[Document]) {
        let (room, each) = self.room(docs);
        let column = match field.contains('.') {
            true => Column::build_path(field, docs, each.min(room)),
            false if docs.len() > room => None,
            false => Some(Column::build(field, docs)),
        };
        match column {
            Some(c) => self.keep(vec![Rc::new(c)]),
            None => self.refused.borrow_mut().push(source.clone()),
        }
    }

    /// The element columns `group` (all of `array`), in one pass. When
    /// there is room for some of them only, the first asked are kept and
    /// the others refused.
    fn build_elements(&self, array: &str, group: &[(&Source, Option<&str>)], docs: &[Document]) {
        let fields: Vec<Option<&str>> = group.iter().map(|(_, f)| *f).collect();
        let (room, each) = self.room(docs);
        let built = Column::build_elements_many(array, &fields, docs, each, room);
        let mut kept = Vec::with_capacity(built.len());
        for ((source, _), column) in group.iter().zip(built) {
            match column {
                Some(c) => kept.push(Rc::new(c)),
                None => self.refused.borrow_mut().push((*source).clone()),
            }
        }
        self.keep(kept);
    }

    /// Keeps `columns` while the run's memory budget allows: past it the
    /// scan goes on without the last ones (a faster scan is not worth
    /// failing the statement); a later run may build them again.
    fn keep(&self, mut columns: Vec<Rc<Column>>) {
        while !columns.is_empty() && crate::budget::check().is_err() {
            columns.pop();
        }
        self.built.borrow_mut().extend(columns);
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
        let docs = sixteen_elements();
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

    fn element(field: &str) -> Source {
        Source::Elements {
            array: "a".into(),
            field: Some(field.to_string()),
        }
    }

    /// 16 document elements in each of 20,000 documents: 320,000 cells an
    /// element column.
    fn sixteen_elements() -> Vec<Document> {
        (0..20_000)
            .map(|i| doc! {"a": (0..16).map(|k| doc! {"x": i + k}).collect::<Vec<_>>()})
            .collect()
    }

    fn cells(cols: &Columns) -> usize {
        cols.built.borrow().iter().map(|c| c.cells().len()).sum()
    }

    #[test]
    fn prepared_element_columns_are_the_scans() {
        let docs: Vec<Document> = (0..MIN_DOCUMENTS as i64)
            .map(|i| doc! {"a": [{"x": i, "y": 1}, 2]})
            .collect();
        let (x, y) = (element("x"), element("y"));
        let cols = Columns::default();
        cols.prepare(&docs[1..], true, || panic!("not asked: too small"));
        cols.prepare(&docs, false, || panic!("not asked: a partial scan"));
        let path = Source::Path("a".into());
        cols.prepare(&docs, true, || {
            vec![x.clone(), path.clone(), y.clone(), x.clone()]
        });
        assert_eq!(cols.len(), 3, "each once");
        let built = cols.get(&y).unwrap_or_else(|| panic!("built"));
        let scan = cols
            .for_scan(&y, &docs, false)
            .unwrap_or_else(|| panic!("kept"));
        assert!(Rc::ptr_eq(&built, &scan));
        assert_eq!(built.elements(5), Some((5, 1)));
        assert!(cols.get(&path).is_some(), "a path's built too");
    }

    #[test]
    fn prepared_columns_hold_at_most_max_cells() {
        let docs = sixteen_elements();
        let per_column = 20_000 * 16;
        let cols = Columns::default();
        let fields: Vec<Source> = (0..MAX_COLUMNS)
            .map(|k| element(&format!("f{k}")))
            .collect();
        cols.prepare(&docs, true, || fields.clone());
        let fit = MAX_CELLS / per_column;
        assert!(fit < MAX_COLUMNS, "the cap binds");
        assert_eq!(cols.len(), fit);
        assert!(cells(&cols) <= MAX_CELLS);
        for (k, f) in fields.iter().enumerate() {
            assert_eq!(cols.get(f).is_some(), k < fit, "the first asked are kept");
            assert_eq!(cols.refused.borrow().contains(f), k >= fit);
            assert!(
                k < fit || cols.for_scan(f, &docs, true).is_none(),
                "not tried again"
            );
        }
    }

    /// Room for one element column but not two: the first asked is built,
    /// the second refused (as when they are built one after the other).
    #[test]
    fn room_for_one_of_two() {
        let docs = sixteen_elements();
        let per_column = 20_000 * 16;
        let cols = Columns::default();
        let held = MAX_CELLS / per_column - 1;
        for k in 0..held {
            assert!(cols
                .for_scan(&element(&format!("f{k}")), &docs, true)
                .is_some());
        }
        let room = MAX_CELLS - cells(&cols);
        assert!(room >= per_column && room < 2 * per_column);
        let (x, y) = (element("x"), element("y"));
        cols.prepare(&docs, true, || vec![x.clone(), y.clone()]);
        assert!(cols.get(&x).is_some());
        assert!(cols.get(&y).is_none());
        assert!(cols.refused.borrow().contains(&y));
        assert!(!cols.refused.borrow().contains(&x));
        assert!(cells(&cols) <= MAX_CELLS);
        assert!(cols.for_scan(&y, &docs, true).is_none(), "not tried again");
    }

    /// Over MAX_COLUMNS, the columns asked last are not built (nor refused).
    #[test]
    fn prepared_columns_keep_to_max_columns() {
        let docs: Vec<Document> = (0..MIN_DOCUMENTS as i64)
            .map(|i| doc! {"a": [{"x": i}]})
            .collect();
        let cols = Columns::default();
        let fields: Vec<Source> = (0..MAX_COLUMNS + 2)
            .map(|k| element(&format!("f{k}")))
            .collect();
        cols.prepare(&docs, true, || fields.clone());
        assert_eq!(cols.len(), MAX_COLUMNS);
        assert!(fields
            .iter()
            .skip(MAX_COLUMNS)
            .all(|f| cols.get(f).is_none()));
        assert!(cols.refused.borrow().is_empty());
    }

    #[test]
    fn prepared_columns_past_the_budget_are_not_kept() {
        let docs: Vec<Document> = (0..MIN_DOCUMENTS as i64)
            .map(|i| doc! {"a": [{"x": i, "y": i}]})
            .collect();
        let cols = Columns::default();
        let both = || vec![element("x"), element("y")];
        let previous = crate::budget::set_run_limit(0);
        let run = crate::budget::start_run();
        cols.prepare(&docs, true, both);
        assert!(cols.is_empty(), "over the budget");
        assert!(cols.refused.borrow().is_empty(), "not refused");
        drop(run);
        crate::budget::set_run_limit(previous);
        cols.prepare(&docs, true, both);
        assert_eq!(cols.len(), 2, "built by a later run");
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
