//! A column: one field of a list of documents, laid out
//! contiguously so that a scan testing that field reads one small cell per
//! document instead of chasing the document's entries, key and string
//! through the heap (BENCHMARKS.md, "Where a scan's time goes"). Only values
//! a test can be decided on without the document are held; arrays,
//! documents and the rarer types are [`Cell::Other`], which sends the scan
//! back to the document.
use super::path::{FieldPath, LeafArrays};
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

/// The cells of one field, in the collection's natural order. A top-level
/// field has one cell per document; a dotted path has, per document, the
/// values a filter's traversal of it yields (through arrays), in that order.
#[derive(Debug)]
pub struct Column {
    field: String,
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
            field: field.to_string(),
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
            field: path.to_string(),
            cells,
            spans,
            in_array,
            dictionary: dictionary.values,
        })
    }

    /// How many documents the column covers.
    pub fn rows(&self) -> usize {
        if self.spans.is_empty() {
            self.cells.len()
        } else {
            self.spans.len()
        }
    }

    /// A dotted path's column (several cells per document).
    pub fn is_path(&self) -> bool {
        !self.spans.is_empty()
    }

    /// A dotted path's cells for document `i`, each with whether it is an
    /// array's element; `None` when the document must be read.
    pub fn values(&self, i: usize) -> Option<(&[Cell], &[bool])> {
        let (start, len) = (*self.spans.get(i)?)?;
        let range = start as usize..start as usize + len as usize;
        Some((self.cells.get(range.clone())?, self.in_array.get(range)?))
    }

    pub fn field(&self) -> &str {
        &self.field
    }

    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    pub fn dictionary(&self) -> &[Bson] {
        &self.dictionary
    }
}

/// A column's distinct strings and ObjectIds while it is built.
#[derive(Default)]
struct Dictionary<'d> {
    strings: HashMap<&'d str, u32>,
    oids: HashMap<ObjectId, u32>,
    values: Vec<Bson>,
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
        let known = match v {
            Bson::String(s) => self.strings.get(s.as_str()),
            Bson::ObjectId(o) => self.oids.get(o),
            _ => return Cell::Other,
        };
        if let Some(&i) = known {
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
        Cell::Dict(i)
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
}
