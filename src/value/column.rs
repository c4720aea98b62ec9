//! A column: one field of a list of documents, laid out
//! contiguously so that a scan testing that field reads one small cell per
//! document instead of chasing the document's entries, key and string
//! through the heap (BENCHMARKS.md, "Where a scan's time goes"). Only values
//! a test can be decided on without the document are held; arrays,
//! documents and the rarer types are [`Cell::Other`], which sends the scan
//! back to the document.
use super::column_dictionary::Dictionary;
use super::path::{FieldPath, LeafArrays, Part};
use bson::{Bson, Document};

/// One document's value of the field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell {
    Missing,
    Null,
    /// Anything else: the document itself must be read.
    Other,
    Bool(bool),
    Int32(i32),
    Int64(i64),
    Double(f64),
    Date(i64),
    /// A string or ObjectId: its index in [`Column::dictionary`].
    Dict(u32),
}

/// What a column holds: its name among a collection's columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A top-level field, or a dotted path as a filter traverses it.
    Path(String),
    /// What `$elemMatch` on the top-level array `array` tests: each element
    /// (`field: None`), or one field of each document element.
    Elements {
        array: String,
        field: Option<String>,
    },
}

/// The cells of one field, in the collection's natural order. A top-level
/// field has one cell per document; a dotted path has, per document, the
/// values a filter's traversal of it yields (through arrays), in that order;
/// an element column has, per document, one cell per element `$elemMatch`
/// tests.
#[derive(Debug)]
pub struct Column {
    source: Source,
    cells: Vec<Cell>,
    /// A dotted path's: each document's cells (`None`: one of its values is
    /// not a cell, so the document must be read).
    spans: Vec<Option<(u32, u32)>>,
    /// A dotted path's, per cell: the value is an array's element (a match
    /// on it has a position).
    in_array: Vec<bool>,
    /// Each distinct string or ObjectId once, as the documents hold it.
    dictionary: Vec<Bson>,
}

impl Column {
    /// The column of the top-level `field` over `docs`.
    pub fn build(field: &str, docs: &[Document]) -> Column {
        let path = FieldPath::new(field);
        let mut dictionary = Dictionary::default();
        let mut cells = Vec::with_capacity(docs.len());
        for d in docs {
            let v = path.parts().first().and_then(|p| p.field_in(d));
            cells.push(dictionary.cell(v));
        }
        Column {
            source: Source::Path(field.to_string()),
            cells,
            spans: Vec::new(),
            in_array: Vec::new(),
            dictionary: dictionary.values,
        }
    }

    /// The column of a dotted `path` over `docs`: the values its traversal
    /// yields (`LeafArrays::Traverse`). `None` past `max_values` cells.
    pub fn build_path(path: &str, docs: &[Document], max_values: usize) -> Option<Column> {
        let fp = FieldPath::new(path);
        let mut dictionary = Dictionary::default();
        let mut cells = Vec::with_capacity(docs.len());
        let mut in_array = Vec::with_capacity(docs.len());
        let mut spans = Vec::with_capacity(docs.len());
        for d in docs {
            let start = cells.len();
            let mut whole = true;
            fp.visit(d, LeafArrays::Traverse, &mut |v, offset| {
                let cell = dictionary.cell(v);
                if cell == Cell::Other {
                    whole = false;
                    return true;
                }
                cells.push(cell);
                in_array.push(offset.is_some());
                false
            });
            if cells.len() > max_values {
                return None;
            }
            let span = (
                u32::try_from(start).ok()?,
                u32::try_from(cells.len() - start).ok()?,
            );
            if whole {
                spans.push(Some(span));
            } else {
                cells.truncate(start);
                in_array.truncate(start);
                spans.push(None);
            }
        }
        Some(Column {
            source: Source::Path(path.to_string()),
            cells,
            spans,
            in_array,
            dictionary: dictionary.values,
        })
    }

    /// The column of what `$elemMatch` on the top-level `array` tests:
    /// per document, a cell for each element (`field: None`), or for each
    /// document element the cell of its `field` (other elements are passed
    /// over, as `$elemMatch` passes over them; a nested array, which it
    /// matches as a whole, is [`Cell::Other`]). A document whose `array` is
    /// not an array has no cells. `None` past `max_values` cells.
    pub fn build_elements(
        array: &str,
        field: Option<&str>,
        docs: &[Document],
        max_values: usize,
    ) -> Option<Column> {
        Column::build_elements_many(array, &[field], docs, max_values, max_values)
            .pop()
            .flatten()
    }

    /// The element columns of the top-level `array` for each of `fields`
    /// (as [`Column::build_elements`] builds one), from one walk of the
    /// documents' arrays: each element is read once for all the columns.
    /// A column is `None` past `max_each` cells; while the columns together
    /// hold more than `max_total`, the last one asked is dropped (`None`), so
    /// the columns never hold more and the first asked are kept.
    pub fn build_elements_many(
        array: &str,
        fields: &[Option<&str>],
        docs: &[Document],
        max_each: usize,
        max_total: usize,
    ) -> Vec<Option<Column>> {
        let array_path = FieldPath::new(array);
        let Some(array_part) = array_path.parts().first() else {
            return fields.iter().map(|_| None).collect();
        };
        let mut building: Vec<ElementCells<'_>> = fields
            .iter()
            .map(|f| ElementCells::new(*f, docs.len()))
            .collect();
        for d in docs {
            let items = match array_part.field_in(d) {
                Some(Bson::Array(items)) => items.as_slice(),
                _ => &[],
            };
            ElementCells::document(&mut building, items);
            let mut total = 0usize;
            for b in building.iter_mut() {
                b.end_document(max_each);
                total = total.saturating_add(b.used);
            }
            while total > max_total {
                let Some(last) = building.iter_mut().rev().find(|b| b.kept) else {
                    break;
                };
                total -= last.used;
                last.drop_cells();
            }
        }
        building.into_iter().map(|b| b.finish(array)).collect()
    }

    /// How many documents the column covers.
    pub fn rows(&self) -> usize {
        if self.spans.is_empty() {
            self.cells.len()
        } else {
            self.spans.len()
        }
    }

    /// A dotted path's column (several cells per document, in spans).
    /// An element column is read as one row per element.
    pub fn is_path(&self) -> bool {
        matches!(self.source, Source::Path(_)) && !self.spans.is_empty()
    }

    /// An element column's cells of document `i`: where they start, and
    /// how many.
    pub fn elements(&self, i: usize) -> Option<(usize, usize)> {
        let (start, len) = (*self.spans.get(i)?)?;
        Some((start as usize, len as usize))
    }

    /// A dotted path's cells for document `i`, each with whether it is an
    /// array's element; `None` when the document must be read.
    pub fn values(&self, i: usize) -> Option<(&[Cell], &[bool])> {
        let (start, len) = (*self.spans.get(i)?)?;
        let range = start as usize..start as usize + len as usize;
        Some((self.cells.get(range.clone())?, self.in_array.get(range)?))
    }

    pub fn source(&self) -> &Source {
        &self.source
    }

    /// Whether this is the column of the top-level field or dotted path `name`.
    pub fn is_field(&self, name: &str) -> bool {
        matches!(&self.source, Source::Path(p) if p == name)
    }

    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    pub fn dictionary(&self) -> &[Bson] {
        &self.dictionary
    }
}

/// Cells an element column makes room for past a document's own.
const ROOM_AHEAD: usize = 1024;

/// One element column while [`Column::build_elements_many`] builds it.
struct ElementCells<'d> {
    /// The field each document element gives its cell (`None`: the
    /// element itself); it remembers where it was found last (elements
    /// usually share a field order).
    field: Option<Part>,
    /// The field as asked, which names the column.
    name: Option<String>,
    /// `false` once dropped (or when the field names no part).
    kept: bool,
    cells: Vec<Cell>,
    spans: Vec<Option<(u32, u32)>>,
    dictionary: Dictionary<'d>,
    /// The cells written: `cells` past them is room (see `document`).
    used: usize,
    /// Where the current document's cells start.
    start: usize,
}

impl<'d> ElementCells<'d> {
    fn new(field: Option<&str>, docs: usize) -> ElementCells<'d> {
        let part = field.map(|f| FieldPath::new(f).parts().first().cloned());
        ElementCells {
            kept: !matches!(part, Some(None)),
            field: part.flatten(),
            name: field.map(str::to_string),
            cells: Vec::with_capacity(docs),
            spans: Vec::with_capacity(docs),
            dictionary: Dictionary::default(),
            used: 0,
            start: 0,
        }
    }

    /// The cells of one document's elements, each element read once for
    /// every column. The cells are written in place, into room made
    /// ahead (a cell per element, and more): the page's size-optimised wasm
    /// calls `Vec::push` and `Vec::resize` rather than inlining them.
    fn document(building: &mut [ElementCells<'d>], items: &'d [Bson]) {
        for b in building.iter_mut() {
            b.start = b.used;
            let needed = b.used + items.len();
            if b.kept && b.cells.len() < needed {
                b.cells.resize(needed + ROOM_AHEAD, Cell::Missing);
            }
        }
        for e in items {
            for b in building.iter_mut() {
                b.put(e);
            }
        }
    }

    /// The cell `$elemMatch` tests for element `e`, if it tests one.
    #[inline]
    fn put(&mut self, e: &'d Bson) {
        if !self.kept {
            return;
        }
        let cell = match (&self.field, e) {
            (None, e) => self.dictionary.cell(Some(e)),
            (Some(part), Bson::Document(ed)) => self.dictionary.cell(part.field_in(ed)),
            (Some(_), Bson::Array(_)) => Cell::Other,
            (Some(_), _) => return,
        };
        if let Some(slot) = self.cells.get_mut(self.used) {
            *slot = cell;
            self.used += 1;
        }
    }

    /// The current document's span; past `max_each` cells, nothing is kept.
    fn end_document(&mut self, max_each: usize) {
        if !self.kept {
            return;
        }
        let span = (
            u32::try_from(self.start),
            u32::try_from(self.used - self.start),
        );
        match span {
            (Ok(start), Ok(len)) if self.used <= max_each => {
                self.spans.push(Some((start, len)));
            }
            _ => self.drop_cells(),
        }
    }

    fn drop_cells(&mut self) {
        self.kept = false;
        self.used = 0;
        self.cells = Vec::new();
        self.spans = Vec::new();
        self.dictionary = Dictionary::default();
    }

    fn finish(mut self, array: &str) -> Option<Column> {
        if !self.kept {
            return None;
        }
        self.cells.truncate(self.used);
        Some(Column {
            source: Source::Elements {
                array: array.to_string(),
                field: self.name,
            },
            in_array: vec![true; self.used],
            cells: self.cells,
            spans: self.spans,
            dictionary: self.dictionary.values,
        })
    }
}

#[cfg(test)]
#[path = "column_tests.rs"]
mod tests;
