//! `{array: {$elemMatch: ...}}` on a top-level array, decided from element
//! columns (`Column::build_elements`). Every element column of one array has
//! one cell per element `$elemMatch` tests, in order, so its cells are read
//! as rows, one per element: the query inside `$elemMatch` is checked over
//! them as a filter is over documents (the value form's operators on the
//! elements' column, the object form's paths on the columns of the
//! elements' fields). An element a cell cannot decide (an array, a
//! sub-document, a rarer type) is undecided.
//!
//! The document matches when one element does; it does not when none may.
//! Nothing inside `$elemMatch` raises an error, so which element decides
//! first does not matter.
use super::columns::{compile, Check, Columns, Leaf, NO, READ, YES};
use super::matcher::Pred;
use crate::value::column::{Column, Source};
use std::rc::Rc;

pub(super) struct ElementCheck<'f> {
    /// The query inside `$elemMatch`, over element rows.
    inner: Box<Check<'f>>,
    /// One of its columns: where each document's elements are.
    rows: Rc<Column>,
    /// A match has an array position the caller needs: left to the matcher.
    positions: bool,
    /// The decisions of one document's elements.
    elements: Vec<u8>,
}

impl<'f> ElementCheck<'f> {
    /// The check of `pred` (an `$elemMatch`) on the top-level field
    /// `array`; `None` when the columns decide none of its parts.
    pub(super) fn new(
        array: &str,
        pred: &'f Pred,
        positions: bool,
        column: &mut Columns<'_>,
    ) -> Option<ElementCheck<'f>> {
        let mut rows: Option<Rc<Column>> = None;
        let mut element_column = |field: Option<&str>| {
            let c = column(&Source::Elements {
                array: array.to_string(),
                field: field.map(str::to_string),
            })?;
            rows.get_or_insert_with(|| Rc::clone(&c));
            Some(c)
        };
        let inner = match pred {
            Pred::ElemMatchValue(preds) => {
                let c = element_column(None)?;
                let tests = preds
                    .iter()
                    .map(|p| Check::Leaf(Leaf::new(p, Rc::clone(&c), false)));
                Check::And(tests.collect())
            }
            // The element's own fields, each a column; a longer path is
            // left to the matcher.
            Pred::ElemMatchObject(node) => compile(node, false, &mut |source| match source {
                Source::Path(field) if !field.contains('.') => element_column(Some(field)),
                _ => None,
            }),
            _ => return None,
        };
        if matches!(inner, Check::Unknown) {
            return None;
        }
        Some(ElementCheck {
            inner: Box::new(inner),
            rows: rows?,
            positions,
            elements: Vec::new(),
        })
    }

    /// The documents the columns cover.
    pub(super) fn rows(&self) -> usize {
        self.rows.rows()
    }

    /// The decisions for the documents from `at` on, one per slot of `out`:
    /// their elements (one run of rows) decided together, then each
    /// document from its own.
    pub(super) fn fill(&mut self, at: usize, out: &mut [u8], scratch: &mut Vec<Vec<u8>>) {
        let first = self.rows.elements(at).map_or(0, |(start, _)| start);
        let end = (at..at + out.len())
            .rev()
            .find_map(|i| self.rows.elements(i))
            .map_or(first, |(start, len)| start + len);
        self.elements.clear();
        self.elements.resize(end.saturating_sub(first), READ);
        self.inner.fill(first, &mut self.elements, scratch);
        for (k, o) in out.iter_mut().enumerate() {
            let decided = self.rows.elements(at + k).and_then(|(start, len)| {
                let from = start.checked_sub(first)?;
                self.elements.get(from..from + len)
            });
            *o = match decided {
                Some(elements) if elements.contains(&YES) => match self.positions {
                    true => READ,
                    false => YES,
                },
                Some(elements) if elements.iter().all(|&e| e == NO) => NO,
                _ => READ,
            };
        }
    }
}
