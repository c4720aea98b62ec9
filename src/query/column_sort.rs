//! Sort keys read from scan columns (`value::column`): a sort on top-level
//! fields of a large collection compares small cells instead of looking each
//! field up in each document. A string or ObjectId is compared by its rank
//! in the column's dictionary, ranked once with the value order (and the
//! active collation), so the order is the one `SortSpec::order` gives.
use super::sort::SortSpec;
use crate::value::column::{Cell, Column};
use crate::value::compare;
use crate::value::numeric::{cmp_f64, cmp_i64_f64};
use crate::value::order::type_rank;
use bson::Bson;
use std::cmp::Ordering;
use std::rc::Rc;

/// A cell as a sort key: its type bracket, then its value within it.
#[derive(Clone, Copy)]
struct Key {
    bracket: u8,
    value: Value,
}

#[derive(Clone, Copy)]
enum Value {
    None,
    Int(i64),
    Double(f64),
    Rank(u32),
}

impl SortSpec {
    /// The order of the documents at positions `at` (see [`SortSpec::order`]),
    /// when `column` gives a column for every sort field and each of those
    /// documents' cells can be a key; `None` otherwise.
    pub fn order_by_columns(
        &self,
        at: &[usize],
        first: Option<usize>,
        column: &mut dyn FnMut(&str) -> Option<Rc<Column>>,
    ) -> Option<Vec<usize>> {
        let columns: Vec<Rc<Column>> = self
            .paths()
            .iter()
            .map(|p| p.single().and_then(&mut *column))
            .collect::<Option<_>>()?;
        // Ranking a dictionary sorts it: worth it only for few distinct
        // values (a sort by names or ObjectIds compares the documents' own).
        if columns.iter().any(|c| c.dictionary().len() > at.len() / 4) {
            return None;
        }
        let ranks: Vec<Vec<u32>> = columns.iter().map(|c| ranks(c.dictionary())).collect();
        let mut keys = Vec::with_capacity(at.len().saturating_mul(columns.len()));
        for &i in at {
            for (c, r) in columns.iter().zip(&ranks) {
                keys.push(key(*c.cells().get(i)?, c.dictionary(), r)?);
            }
        }
        Some(self.order_keys(&keys, first, compare_keys))
    }
}

/// Each dictionary entry's place in the value order (equal values, such as
/// strings a collation equates, share one).
fn ranks(dictionary: &[Bson]) -> Vec<u32> {
    let mut order: Vec<usize> = (0..dictionary.len()).collect();
    let entry = |i: usize| dictionary.get(i).unwrap_or(&Bson::Null);
    order.sort_by(|&a, &b| compare(entry(a), entry(b)));
    let mut ranks = vec![0; dictionary.len()];
    let mut rank = 0u32;
    for (k, &i) in order.iter().enumerate() {
        if k > 0
            && order
                .get(k - 1)
                .is_some_and(|&p| compare(entry(p), entry(i)) != Ordering::Equal)
        {
            rank += 1;
        }
        if let Some(r) = ranks.get_mut(i) {
            *r = rank;
        }
    }
    ranks
}

/// The key of a cell; `None` for a cell that is not a value (an array
/// sorts by its least or greatest element, which the document holds).
fn key(cell: Cell, dictionary: &[Bson], ranks: &[u32]) -> Option<Key> {
    let (bracket, value) = match cell {
        Cell::Other => return None,
        // A missing field sorts as null.
        Cell::Missing | Cell::Null => (type_rank(&Bson::Null), Value::None),
        Cell::Bool(b) => (type_rank(&Bson::Boolean(b)), Value::Int(i64::from(b))),
        Cell::Int32(i) => (type_rank(&Bson::Int32(i)), Value::Int(i64::from(i))),
        Cell::Int64(i) => (type_rank(&Bson::Int64(i)), Value::Int(i)),
        Cell::Double(f) => (type_rank(&Bson::Double(f)), Value::Double(f)),
        Cell::Date(t) => (
            type_rank(&Bson::DateTime(bson::DateTime::from_millis(t))),
            Value::Int(t),
        ),
        Cell::Dict(i) => {
            let i = i as usize;
            (type_rank(dictionary.get(i)?), Value::Rank(*ranks.get(i)?))
        }
    };
    Some(Key { bracket, value })
}

/// Brackets first; numbers exactly across widths (NaN below every number).
fn compare_keys(a: &Key, b: &Key) -> Ordering {
    a.bracket
        .cmp(&b.bracket)
        .then_with(|| match (a.value, b.value) {
            (Value::Int(x), Value::Int(y)) => x.cmp(&y),
            (Value::Int(x), Value::Double(y)) => cmp_i64_f64(x, y),
            (Value::Double(x), Value::Int(y)) => cmp_i64_f64(y, x).reverse(),
            (Value::Double(x), Value::Double(y)) => cmp_f64(x, y),
            (Value::Rank(x), Value::Rank(y)) => x.cmp(&y),
            _ => Ordering::Equal,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::oid::ObjectId;
    use bson::{doc, Document};

    fn scalars() -> Vec<Option<Bson>> {
        vec![
            None,
            Some(Bson::Null),
            Some(Bson::Int32(2)),
            Some(Bson::Int64(2)),
            Some(Bson::Double(2.0)),
            Some(Bson::Double(-0.5)),
            Some(Bson::Double(f64::NAN)),
            Some(Bson::Int64(i64::MIN)),
            Some(Bson::Double(9.223372036854776e18)),
            Some(Bson::String("b".into())),
            Some(Bson::String("B".into())),
            Some(Bson::String("a".into())),
            Some(Bson::ObjectId(ObjectId::from_bytes([2; 12]))),
            Some(Bson::ObjectId(ObjectId::from_bytes([1; 12]))),
            Some(Bson::Boolean(false)),
            Some(Bson::DateTime(bson::DateTime::from_millis(-3))),
        ]
    }

    fn sample(with_array: bool) -> Vec<Document> {
        let vals = scalars();
        let n = vals.len();
        let mut docs: Vec<Document> = (0..n * n * 2)
            .map(|i| {
                let mut d = doc! {"_id": i as i64};
                for (field, v) in [("a", &vals[i % n]), ("b", &vals[(i / n) % n])] {
                    if let Some(v) = v {
                        d.insert(field, v.clone());
                    }
                }
                d
            })
            .collect();
        if with_array {
            docs[7].insert("a", vec![Bson::Int32(1)]);
        }
        docs
    }

    /// The columns' order is `order`'s, for every spec and prefix, on any
    /// subset of positions; a document whose key the column lacks gives none.
    #[test]
    fn same_order_as_the_documents_give() {
        let docs = sample(false);
        let columns: Vec<Rc<Column>> = ["a", "b"]
            .iter()
            .map(|f| Rc::new(Column::build(f, &docs)))
            .collect();
        let mut column = |field: &str| columns.iter().find(|c| c.is_field(field)).cloned();
        let subsets: [Vec<usize>; 2] = [
            (0..docs.len()).collect(),
            (0..docs.len()).rev().step_by(3).collect(),
        ];
        for spec in [
            doc! {"a": 1},
            doc! {"a": -1},
            doc! {"b": 1, "a": -1},
            doc! {"a": 1, "b": 1},
        ] {
            let sort = SortSpec::compile(&spec).unwrap_or_else(|e| panic!("{e}"));
            for at in &subsets {
                let refs: Vec<&Document> = at.iter().map(|&i| &docs[i]).collect();
                for first in [None, Some(1), Some(10), Some(docs.len())] {
                    let by_docs = sort.order(&refs, first);
                    let by_columns = sort.order_by_columns(at, first, &mut column);
                    assert_eq!(by_columns, Some(by_docs), "{spec} first {first:?}");
                }
            }
        }
        let with_array = sample(true);
        let columns: Vec<Rc<Column>> = ["a"]
            .iter()
            .map(|f| Rc::new(Column::build(f, &with_array)))
            .collect();
        let sort = SortSpec::compile(&doc! {"a": 1}).unwrap_or_else(|e| panic!("{e}"));
        let all: Vec<usize> = (0..with_array.len()).collect();
        assert!(sort
            .order_by_columns(&all, None, &mut |_| columns.first().cloned())
            .is_none());
        let but_the_array: Vec<usize> = all.iter().copied().filter(|&i| i != 7).collect();
        assert!(sort
            .order_by_columns(&but_the_array, None, &mut |_| columns.first().cloned())
            .is_some());
        // Many distinct strings for few documents: the documents' keys are compared.
        assert!(sort
            .order_by_columns(&all[..7], None, &mut |_| columns.first().cloned())
            .is_none());
        assert!(sort.order_by_columns(&all, None, &mut |_| None).is_none());
    }
}
