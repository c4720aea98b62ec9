//! `{$sum: "$a.b"}` and `{$avg: "$a.b"}` (one operand) computed from a scan
//! column (`value::column`) when the stage reads the collection's documents
//! in their stored order: the column holds, per document, the values a query
//! traversal of the path yields, contiguous in memory, so the sum reads a few
//! cells instead of chasing every array element through the heap.
//!
//! The traversal and the expression agree only on a field or a two-part path:
//! through one array the traversal yields its elements' values, as the
//! expression's array does; an array at the end or a value that is not a
//! cell leaves the document without cells (read it); an array directly
//! inside an array is skipped by the traversal and ignored by `$sum`/`$avg`
//! as a non-number. On a longer path two arrays (`a: [{b: [{c: 1}]}]`) make
//! the expression's values nested arrays (ignored) where the traversal
//! yields numbers, and a numeric part indexes an array in a query but names
//! a field in an expression: neither is read from a column.
use crate::expr::sum::{avg, SumState};
use crate::value::column::{Cell, Column};
use bson::Bson;

/// A projection's computed field that a column can answer.
#[derive(Clone, Debug)]
pub(super) struct ColumnSum {
    avg: bool,
    /// The path, dotted, without its `$`.
    path: String,
}

impl ColumnSum {
    /// `spec` when it is `{$sum|$avg: "$f"}`, `"$f.g"`, or the same in a
    /// one-element array.
    pub fn recognize(spec: &Bson) -> Option<ColumnSum> {
        let Bson::Document(d) = spec else {
            return None;
        };
        let mut entries = d.iter();
        let (op, arg) = entries.next()?;
        if entries.next().is_some() {
            return None;
        }
        let avg = match op.as_str() {
            "$avg" => true,
            "$sum" => false,
            _ => return None,
        };
        let arg = match arg {
            Bson::Array(items) => match items.as_slice() {
                [one] => one,
                _ => return None,
            },
            one => one,
        };
        let Bson::String(s) = arg else {
            return None;
        };
        let path = s.strip_prefix('$').filter(|p| !p.starts_with('$'))?;
        let parts: Vec<&str> = path.split('.').collect();
        let plain = |p: &&str| !p.is_empty() && !p.bytes().all(|b| b.is_ascii_digit());
        if parts.len() > 2 || !parts.iter().all(plain) {
            return None;
        }
        Some(ColumnSum {
            avg,
            path: path.to_string(),
        })
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// The value for the collection's document `row`, from `column` (built
    /// over the collection's documents for this path); `None` when the
    /// document must be read.
    pub fn value(&self, column: &Column, row: usize) -> Option<Bson> {
        let cells = if column.is_path() {
            column.values(row)?.0
        } else {
            std::slice::from_ref(column.cells().get(row)?)
        };
        let mut sum = SumState::default();
        let mut count = 0u64;
        for cell in cells {
            // What `SumState::add` counts; other values are ignored as it ignores them.
            let v = match *cell {
                Cell::Int32(i) => Bson::Int32(i),
                Cell::Int64(i) => Bson::Int64(i),
                Cell::Double(d) => Bson::Double(d),
                Cell::Other => return None,
                _ => continue,
            };
            if sum.add(&v) {
                count += 1;
            }
        }
        Some(if self.avg {
            avg(&sum, count)
        } else {
            sum.result()
        })
    }
}
