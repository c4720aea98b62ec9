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
use crate::value::column::{Cell, Column, Source};
use bson::Bson;

/// A projection's computed field that a column can answer.
#[derive(Clone, Debug)]
pub(super) struct ColumnSum {
    avg: bool,
    /// The path's column: the path, dotted, without its `$`.
    source: Source,
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
            source: Source::Path(path.to_string()),
        })
    }

    /// The column to read.
    pub fn source(&self) -> &Source {
        &self.source
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::operand::Operand;
    use crate::context::RunCtx;
    use crate::expr::{CompileCtx, Scope};
    use bson::{bson, doc, Document};
    use std::str::FromStr;

    /// Each edge the column must answer as the evaluator does, or leave to it.
    #[test]
    fn cells_answer_as_the_evaluator() {
        let dec = |s: &str| Bson::Decimal128(bson::Decimal128::from_str(s).expect("decimal"));
        // (r, whether a column answers `$r.v` for it)
        let cases: Vec<(Bson, bool)> = vec![
            (bson!([{"v": 1}, {"v": 2}]), true),
            (bson!([{"v": i32::MAX}, {"v": 1}]), true),
            (bson!([{"v": i64::MAX}, {"v": 1_i64}]), true),
            (bson!([{"v": i64::MIN}, {"v": -1_i64}, {"v": 1}]), true),
            (bson!([{"v": 1}, {"v": 2_i64}, {"v": 0.5}]), true),
            (bson!([{"v": f64::NAN}, {"v": 1}]), true),
            (bson!([{"v": "4"}, {"v": null}, {"v": true}, {}, 3]), true),
            (bson!([]), true),
            (bson!({"v": 5}), true),
            (bson!({"v": "x"}), true),
            (bson!(5), true),
            // An array directly inside the array: skipped, and ignored by the sum.
            (bson!([[{"v": 1}], {"v": 2}]), true),
            // An array at the end of the path, a decimal: the document is read.
            (bson!([{"v": [1, 2]}, {"v": 1}]), false),
            (bson!({"v": [1, 2]}), false),
            (bson!([{"v": dec("1.5")}, {"v": 1}]), false),
            (bson!([{"v": {"w": 1}}]), false),
        ];
        let mut docs: Vec<Document> = cases.iter().map(|(r, _)| doc! {"r": r.clone()}).collect();
        docs.push(doc! {});
        let run = RunCtx::default();
        let scope = Scope::new(&run);
        let ctx = CompileCtx::default();
        for (spec, dotted) in [
            (bson!({"$sum": "$r.v"}), true),
            (bson!({"$avg": ["$r.v"]}), true),
            (bson!({"$sum": "$r"}), false),
            (bson!({"$avg": "$r"}), false),
        ] {
            let sum = ColumnSum::recognize(&spec).expect("recognized");
            let Source::Path(path) = sum.source() else {
                panic!("{spec}: not a path's column");
            };
            let column = if dotted {
                Column::build_path(path, &docs, usize::MAX).expect("column")
            } else {
                Column::build(path, &docs)
            };
            let op = Operand::compile(&spec, &ctx).expect("compiles");
            for (i, d) in docs.iter().enumerate() {
                let want = op
                    .eval(d, &scope)
                    .expect("evaluates")
                    .map(|v| v.into_owned());
                let got = sum.value(&column, i);
                if dotted && i < cases.len() {
                    assert_eq!(got.is_some(), cases[i].1, "{spec} on {d}: from the column");
                }
                if let Some(got) = got {
                    // Printed: NaN equals itself, and the types must agree.
                    let show = |v: &Option<Bson>| format!("{v:?}");
                    assert_eq!(show(&Some(got)), show(&want), "{spec} on {d}");
                }
            }
        }
    }

    #[test]
    fn only_plain_short_paths_are_recognized() {
        for spec in [
            bson!({"$sum": "$a.b.c"}),
            bson!({"$sum": "$a.0"}),
            bson!({"$sum": "$$ROOT.a"}),
            bson!({"$sum": ["$a", "$b"]}),
            bson!({"$min": "$a.b"}),
            bson!({"$sum": "$a.b", "$avg": "$a"}),
            bson!({"$sum": 1}),
        ] {
            assert!(ColumnSum::recognize(&spec).is_none(), "{spec}");
        }
    }
}
