//! A column: one field of a list of documents, laid out
//! contiguously so that a scan testing that field reads one small cell per
//! document instead of chasing the document's entries, key and string
//! through the heap (BENCHMARKS.md, "Where a scan's time goes"). Only values
//! a test can be decided on without the document are held; arrays,
//! documents and the rarer types are [`Cell::Other`], which sends the scan
//! back to the document.
use super::path::{FieldPath, LeafArrays, Part};
use bson::oid::ObjectId;
use bson::{Bson, Document};
use std::collections::HashMap;

/// Distinct strings and ObjectIds a column holds at most; values past that
/// are left [`Cell::Other`] (a column of unique names would copy them all).
const MAX_DICTIONARY: usize = 1 << 16;

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
            for b in building.iter_mut() {
                b.start = b.cells.len();
            }
            if let Some(Bson::Array(items)) = array_part.field_in(d) {
                for e in items {
                    for b in building.iter_mut() {
                        b.push(e);
                    }
                }
            }
            let mut total = 0usize;
            for b in building.iter_mut() {
                b.end_document(max_each);
                total = total.saturating_add(b.cells.len());
            }
            while total > max_total {
                let Some(last) = building.iter_mut().rev().find(|b| b.kept) else {
                    break;
                };
                total -= last.cells.len();
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

/// One element column while [`Column::build_elements_many`] builds it.
struct ElementCells<'d> {
    /// The field each document element gives its cell (`None`: the
    /// element itself; also `None` when the field names no part, and
    /// then nothing is kept).
    field: Option<Part>,
    /// The field as asked, which names the column.
    name: Option<String>,
    kept: bool,
    cells: Vec<Cell>,
    spans: Vec<Option<(u32, u32)>>,
    dictionary: Dictionary<'d>,
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
            start: 0,
        }
    }

    /// The cell `$elemMatch` tests for element `e`, if it tests one.
    #[inline]
    fn push(&mut self, e: &'d Bson) {
        if !self.kept {
            return;
        }
        let cell = match (&self.field, e) {
            (None, e) => self.dictionary.cell(Some(e)),
            (Some(part), Bson::Document(ed)) => self.dictionary.cell(part.field_in(ed)),
            (Some(_), Bson::Array(_)) => Cell::Other,
            (Some(_), _) => return,
        };
        self.cells.push(cell);
    }

    /// The current document's span; past `max_each` cells, nothing is kept.
    fn end_document(&mut self, max_each: usize) {
        if !self.kept {
            return;
        }
        let span = (
            u32::try_from(self.start),
            u32::try_from(self.cells.len() - self.start),
        );
        match span {
            (Ok(start), Ok(len)) if self.cells.len() <= max_each => {
                self.spans.push(Some((start, len)));
            }
            _ => self.drop_cells(),
        }
    }

    fn drop_cells(&mut self) {
        self.kept = false;
        self.cells = Vec::new();
        self.spans = Vec::new();
        self.dictionary = Dictionary::default();
    }

    fn finish(self, array: &str) -> Option<Column> {
        if !self.kept {
            return None;
        }
        Some(Column {
            source: Source::Elements {
                array: array.to_string(),
                field: self.name,
            },
            in_array: vec![true; self.cells.len()],
            cells: self.cells,
            spans: self.spans,
            dictionary: self.dictionary.values,
        })
    }
}

/// A column's distinct strings and ObjectIds while it is built. Every
/// value of the column is looked up: the strings met last are compared
/// before any is hashed (a field of few values, `type: "buy"`, then hashes
/// almost nothing), and the maps hash with ahash (the values are the user's
/// own data, so there is no one to mount a collision attack).
#[derive(Default)]
struct Dictionary<'d> {
    strings: HashMap<&'d str, u32, ahash::RandomState>,
    oids: HashMap<ObjectId, u32, ahash::RandomState>,
    /// Strings met last, by [`recent_slot`], with their entries.
    recent: [Option<(&'d str, u32)>; RECENT],
    values: Vec<Bson>,
}

const RECENT: usize = 8;

/// Where a string met last is remembered: by its length and first byte.
fn recent_slot(s: &str) -> usize {
    (s.len() ^ usize::from(s.as_bytes().first().copied().unwrap_or(0))) % RECENT
}

impl<'d> Dictionary<'d> {
    /// The cell of a value (`None`: missing).
    fn cell(&mut self, v: Option<&'d Bson>) -> Cell {
        match v {
            None => Cell::Missing,
            Some(Bson::Null) => Cell::Null,
            Some(Bson::Boolean(b)) => Cell::Bool(*b),
            Some(Bson::Int32(i)) => Cell::Int32(*i),
            Some(Bson::Int64(i)) => Cell::Int64(*i),
            Some(Bson::Double(f)) => Cell::Double(*f),
            Some(Bson::DateTime(t)) => Cell::Date(t.timestamp_millis()),
            Some(v) => self.intern(v),
        }
    }

    /// The cell of a value that is none of the inline kinds.
    fn intern(&mut self, v: &'d Bson) -> Cell {
        if let Bson::String(s) = v {
            if let Some(Some((seen, i))) = self.recent.get(recent_slot(s)) {
                if *seen == s.as_str() {
                    return Cell::Dict(*i);
                }
            }
        }
        let known = match v {
            Bson::String(s) => self.strings.get(s.as_str()),
            Bson::ObjectId(o) => self.oids.get(o),
            _ => return Cell::Other,
        };
        if let Some(&i) = known {
            self.remember(v, i);
            return Cell::Dict(i);
        }
        let next = self.values.len();
        let Ok(i) = u32::try_from(next) else {
            return Cell::Other;
        };
        if next >= MAX_DICTIONARY {
            return Cell::Other;
        }
        match v {
            Bson::String(s) => self.strings.insert(s.as_str(), i),
            Bson::ObjectId(o) => self.oids.insert(*o, i),
            _ => return Cell::Other,
        };
        self.values.push(v.clone());
        self.remember(v, i);
        Cell::Dict(i)
    }

    fn remember(&mut self, v: &'d Bson, i: u32) {
        if let Bson::String(s) = v {
            if let Some(slot) = self.recent.get_mut(recent_slot(s)) {
                *slot = Some((s.as_str(), i));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn cells_hold_what_a_test_can_use() {
        let oid = ObjectId::from_bytes([7; 12]);
        let docs = vec![
            doc! {"a": 1},
            doc! {"a": 2_i64},
            doc! {"a": 1.5},
            doc! {"a": "x"},
            doc! {"a": "x"},
            doc! {"a": oid},
            doc! {"a": null},
            doc! {"b": 1},
            doc! {"a": [1]},
            doc! {"a": {"b": 1}},
            doc! {"a": true},
            doc! {"a": bson::DateTime::from_millis(-5)},
        ];
        let c = Column::build("a", &docs);
        assert_eq!(
            c.cells(),
            &[
                Cell::Int32(1),
                Cell::Int64(2),
                Cell::Double(1.5),
                Cell::Dict(0),
                Cell::Dict(0),
                Cell::Dict(1),
                Cell::Null,
                Cell::Missing,
                Cell::Other,
                Cell::Other,
                Cell::Bool(true),
                Cell::Date(-5),
            ]
        );
        assert_eq!(
            c.dictionary(),
            &[Bson::String("x".into()), Bson::ObjectId(oid)]
        );
    }

    /// Strings remembered in one slot (same length and first byte) still
    /// get their own entries.
    #[test]
    fn strings_met_last_keep_their_entries() {
        let docs: Vec<Document> = ["ab", "ac", "ab", "ac", "ad", "ab", "b", "ad"]
            .iter()
            .map(|s| doc! {"a": *s})
            .collect();
        let c = Column::build("a", &docs);
        let entries: Vec<u32> = c
            .cells()
            .iter()
            .map(|cell| match cell {
                Cell::Dict(i) => *i,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(entries, [0, 1, 0, 1, 2, 0, 3, 2]);
        assert_eq!(c.dictionary().len(), 4);
    }

    #[test]
    fn element_cells_are_what_elem_match_tests() {
        let docs = vec![
            doc! {"r": [{"x": 1, "y": "a"}, 7, {"y": "b"}, [{"x": 2}], {"x": [3]}]},
            doc! {"r": {"x": 1}},
            doc! {"s": 1},
            doc! {"r": []},
            doc! {"r": [1.5, {"x": 1}, null]},
        ];
        let x = Column::build_elements("r", Some("x"), &docs, usize::MAX)
            .unwrap_or_else(|| panic!("built"));
        let x_cells = |i| x.values(i).map(|(c, _)| c.to_vec());
        assert_eq!(
            x_cells(0),
            Some(vec![
                Cell::Int32(1),
                Cell::Missing,
                Cell::Other,
                Cell::Other
            ])
        );
        assert_eq!(x_cells(1), Some(vec![]), "not an array");
        assert_eq!(x_cells(2), Some(vec![]), "missing");
        assert_eq!(x_cells(3), Some(vec![]));
        assert_eq!(x_cells(4), Some(vec![Cell::Int32(1)]));
        let y = Column::build_elements("r", Some("y"), &docs, usize::MAX)
            .unwrap_or_else(|| panic!("built"));
        assert_eq!(
            y.values(0).map(|(c, _)| c.len()),
            x.values(0).map(|(c, _)| c.len()),
            "one cell per element tested, whatever the field"
        );
        let all =
            Column::build_elements("r", None, &docs, usize::MAX).unwrap_or_else(|| panic!("built"));
        assert_eq!(
            all.values(4).map(|(c, _)| c.to_vec()),
            Some(vec![Cell::Double(1.5), Cell::Other, Cell::Null])
        );
        assert!(
            Column::build_elements("r", None, &docs, 3).is_none(),
            "too large"
        );
    }

    /// Documents with what `$elemMatch` meets: document elements, scalars,
    /// nested arrays, missing fields, empty arrays, a `r` that is not an
    /// array or is missing, a key written twice.
    fn elements_docs() -> Vec<Document> {
        let mut twice = Document::new();
        twice.insert("x", 1);
        twice.insert("y", "a");
        twice.insert("x", "b");
        vec![
            doc! {"r": [{"x": 1, "y": "a"}, 7, {"y": "b"}, [{"x": 2}], {"x": [3]}]},
            doc! {"r": {"x": 1}},
            doc! {"s": 1},
            doc! {"r": []},
            doc! {"r": [1.5, {"x": 1}, null, "a", [], {"y": {"z": 1}}]},
            doc! {"r": [Bson::Document(twice), {"y": "b", "x": 2_i64}]},
            doc! {"r": "abc"},
            doc! {"r": [{"x": "b"}, {"x": "a"}, {}, {"x": null}]},
        ]
    }

    fn rows_of(c: &Column) -> Vec<Option<Vec<Cell>>> {
        (0..c.rows())
            .map(|i| c.values(i).map(|(v, _)| v.to_vec()))
            .collect()
    }

    /// Each column of a many-field build is the one-field build's.
    #[test]
    fn one_pass_builds_what_one_field_builds() {
        let docs = elements_docs();
        let fields = [Some("x"), None, Some("y"), Some("x"), Some("z"), Some("")];
        let many = Column::build_elements_many("r", &fields, &docs, usize::MAX, usize::MAX);
        assert_eq!(many.len(), fields.len());
        for (field, built) in fields.iter().zip(&many) {
            let one = Column::build_elements("r", *field, &docs, usize::MAX);
            let (Some(m), Some(o)) = (built, &one) else {
                assert!(built.is_none() && one.is_none(), "{field:?}");
                continue;
            };
            assert_eq!(m.source(), o.source(), "{field:?}");
            assert_eq!(m.rows(), docs.len(), "{field:?}");
            assert_eq!(rows_of(m), rows_of(o), "{field:?}");
            assert_eq!(m.cells(), o.cells(), "{field:?}");
            assert_eq!(m.dictionary(), o.dictionary(), "{field:?}");
            let spans = |c: &Column| (0..c.rows()).map(|i| c.elements(i)).collect::<Vec<_>>();
            assert_eq!(spans(m), spans(o), "{field:?}");
            assert!(m
                .values(0)
                .is_some_and(|(_, inside)| inside.iter().all(|&b| b)));
        }
        let x = many
            .first()
            .and_then(Option::as_ref)
            .unwrap_or_else(|| panic!("x"));
        assert_eq!(
            rows_of(x),
            [
                Some(vec![
                    Cell::Int32(1),
                    Cell::Missing,
                    Cell::Other,
                    Cell::Other
                ]),
                Some(vec![]),
                Some(vec![]),
                Some(vec![]),
                Some(vec![Cell::Int32(1), Cell::Other, Cell::Missing]),
                Some(vec![Cell::Dict(0), Cell::Int64(2)]),
                Some(vec![]),
                Some(vec![
                    Cell::Dict(0),
                    Cell::Dict(1),
                    Cell::Missing,
                    Cell::Null
                ]),
            ]
            .to_vec()
        );
        let all = many
            .get(1)
            .and_then(Option::as_ref)
            .unwrap_or_else(|| panic!("all"));
        assert_eq!(all.elements(4), Some((5, 6)), "every element, scalars too");
    }

    /// Past `max_each` a column is dropped; past `max_total` the last
    /// asked go first, and the kept ones never hold more.
    #[test]
    fn one_pass_keeps_the_first_columns_that_fit() {
        let docs = elements_docs();
        let one = |f| Column::build_elements("r", Some(f), &docs, usize::MAX);
        let x_cells = one("x").map_or(0, |c| c.cells().len());
        assert_eq!(x_cells, 13);
        let kept = |max_each, max_total| {
            Column::build_elements_many(
                "r",
                &[Some("x"), Some("y"), None],
                &docs,
                max_each,
                max_total,
            )
            .iter()
            .map(Option::is_some)
            .collect::<Vec<_>>()
        };
        // The value form has 17 cells, each field 13.
        assert_eq!(kept(usize::MAX, 43), [true, true, true]);
        assert_eq!(kept(usize::MAX, 42), [true, true, false]);
        assert_eq!(kept(usize::MAX, 25), [true, false, false], "room for one");
        assert_eq!(kept(usize::MAX, 12), [false, false, false]);
        assert_eq!(kept(16, usize::MAX), [true, true, false]);
        assert_eq!(kept(12, usize::MAX), [false, false, false]);
        let built = Column::build_elements_many("r", &[Some("x"), Some("y")], &docs, 13, 26);
        let total: usize = built.iter().flatten().map(|c| c.cells().len()).sum();
        assert_eq!(total, 26);
    }
}
