//! A filter decided from a collection's scan columns (`storage::columns`)
//! where it can be: its tests on fields and dotted paths read cells (one
//! per document for a top-level field), and a test on a string or ObjectId
//! is evaluated once per distinct value. Where a cell cannot decide (an
//! array or sub-document at the end of the path, a rarer type) or the
//! filter has parts the columns do not cover (`$expr`, `$size`, `$elemMatch`
//! on a dotted path, `$text`...), the caller matches the document as before.
//! `$elemMatch` on a top-level array reads element columns
//! (`column_elements`).
//!
//! Every decision calls the matcher's own predicate on the same value, so the
//! answer is the matcher's. The filter's parts are tried in the matcher's
//! order and the first one left undecided hands the document back, so an
//! error an earlier part would raise is still raised.
use super::column_elements::ElementCheck;
use super::matcher::{Node, Pred};
use super::ops::comparison::CmpOp;
use super::Filter;
use crate::error::Result;
use crate::expr::Scope;
use crate::value::column::{Cell, Column, Source};
use crate::value::numeric::{cmp_f64, cmp_i64_f64};
use bson::{Bson, DateTime, Document};
use std::cmp::Ordering;
use std::rc::Rc;

/// Documents decided together by a forward scan: one tight loop per test
/// instead of a walk of the filter per document, and at most this many
/// decided ahead of a scan that stops early (a limit).
const CHUNK: usize = 512;

/// A decision: the document does not match, matches, or must be read.
pub(super) const NO: u8 = 0;
pub(super) const YES: u8 = 1;
pub(super) const READ: u8 = 2;

/// A compiled filter's column view over one collection, for one scan.
pub struct ColumnCheck<'f> {
    root: Check<'f>,
    /// Decisions for the documents from `start` on.
    decided: Vec<u8>,
    start: usize,
    /// Buffers for the parts of `$and`/`$or`/`$nor`, one per depth.
    scratch: Vec<Vec<u8>>,
}

pub(super) enum Check<'f> {
    Const(bool),
    /// The document must be read.
    Unknown,
    Leaf(Leaf<'f>),
    Elements(ElementCheck<'f>),
    And(Vec<Check<'f>>),
    Or(Vec<Check<'f>>),
    Nor(Vec<Check<'f>>),
    Not(Box<Check<'f>>),
}

pub(super) struct Leaf<'f> {
    pred: &'f Pred,
    /// The predicate when it compares with a number (not NaN): decided on
    /// the cell without building a value.
    /// As the orderings it accepts (see `accepted`) and the number.
    number: Option<(u8, Number)>,
    column: Rc<Column>,
    /// A match through an array is left to the matcher (see `new`).
    positions: bool,
    /// Per dictionary entry: `NO`, `YES`, `READ`, or `UNTRIED`.
    memo: Vec<u8>,
}

const UNTRIED: u8 = 3;

impl<'f> Leaf<'f> {
    pub(super) fn new(pred: &'f Pred, column: Rc<Column>, positions: bool) -> Leaf<'f> {
        Leaf {
            pred,
            number: number_test(pred),
            memo: vec![UNTRIED; column.dictionary().len()],
            positions,
            column,
        }
    }
}

#[derive(Clone, Copy)]
enum Number {
    Int(i64),
    Double(f64),
}

impl<'f> ColumnCheck<'f> {
    /// The check of `filter` over the columns `column` gives (by field or
    /// dotted path; `None` where there is none). `None` when no column can
    /// decide anything. `positions`: the caller needs the array position of
    /// a match (positional `$`), so a match through an array is left to the
    /// matcher, which records it.
    pub fn new(
        filter: &'f Filter,
        positions: bool,
        column: &mut Columns<'_>,
    ) -> Option<ColumnCheck<'f>> {
        match compile(&filter.root, positions, column) {
            Check::Const(_) | Check::Unknown => None,
            root => Some(ColumnCheck {
                root,
                decided: Vec::new(),
                start: 0,
                scratch: Vec::new(),
            }),
        }
    }

    /// The columns [`ColumnCheck::new`] asks for, in its order: a caller
    /// builds the missing ones first, those of one array in one pass.
    pub fn sources(filter: &Filter, positions: bool) -> Vec<Source> {
        let mut wanted: Vec<Source> = Vec::new();
        compile(&filter.root, positions, &mut |source| {
            wanted.push(source.clone());
            None
        });
        wanted
    }

    /// The filter's answer for the document at `at` (natural order), when
    /// the columns give it; `Some(true)` records no array position. A scan
    /// going forward gets its decisions a chunk at a time; any other order
    /// (an index, `$natural: -1`) one document at a time.
    #[inline]
    pub fn decide(&mut self, at: usize) -> Option<bool> {
        let state = match at.checked_sub(self.start) {
            Some(i) if i < self.decided.len() => self.decided[i],
            Some(i) if i == self.decided.len() => {
                self.fill(at, CHUNK);
                self.decided.first().copied().unwrap_or(READ)
            }
            _ => {
                self.fill(at, 1);
                self.decided.first().copied().unwrap_or(READ)
            }
        };
        match state {
            NO => Some(false),
            YES => Some(true),
            _ => None,
        }
    }

    /// The first document from `at` on that is not known to fail (the
    /// collection's end when none): a forward scan passes over the others.
    pub fn next_candidate(&mut self, mut at: usize) -> usize {
        let rows = self.root.rows();
        while at < rows {
            let i = at.wrapping_sub(self.start);
            if i >= self.decided.len() {
                self.fill(at, CHUNK);
                continue;
            }
            match self
                .decided
                .get(i..)
                .and_then(|s| s.iter().position(|&d| d != NO))
            {
                Some(k) => return at + k,
                None => at = self.start + self.decided.len(),
            }
        }
        rows
    }

    /// From `at` on, how many documents match before the first the columns
    /// cannot decide, and where that one is (the collection's end when none).
    pub fn count_to_undecided(&mut self, mut at: usize) -> (usize, usize) {
        let rows = self.root.rows();
        let mut yes = 0;
        while at < rows {
            let i = at.wrapping_sub(self.start);
            if i >= self.decided.len() {
                self.fill(at, CHUNK);
                continue;
            }
            for &d in self.decided.get(i..).unwrap_or(&[]) {
                match d {
                    NO => {}
                    YES => yes += 1,
                    _ => return (yes, at),
                }
                at += 1;
            }
        }
        (yes, rows)
    }

    /// Do fewer than a quarter of the first documents pass (or need
    /// reading)? A consumer that reads every passing document gains from
    /// the columns only then: reading the filter's field warms the document
    /// it reads next, and at higher shares the misses moved to it cost more
    /// than the lookups saved (BENCHMARKS.md, scan columns).
    pub fn mostly_fails(&mut self) -> bool {
        self.fill(0, CHUNK);
        let passing = self.decided.iter().filter(|&&d| d != NO).count();
        passing * 4 < self.decided.len()
    }

    /// Decide the documents from `at` on (up to `n`, within the collection).
    fn fill(&mut self, at: usize, n: usize) {
        let len = self.root.rows().saturating_sub(at).min(n);
        self.start = at;
        self.decided.clear();
        self.decided.resize(len, READ);
        self.root.fill(at, &mut self.decided, &mut self.scratch);
    }
}

pub(super) type Columns<'a> = dyn FnMut(&Source) -> Option<Rc<Column>> + 'a;

/// Calls `f` with each position and document of `docs` (a collection's, in
/// natural order) that `filter` matches; `check`: the filter's column check
/// over them, which lets the loop pass over what fails.
pub fn for_each_match<'d>(
    docs: &'d [Document],
    filter: &Filter,
    mut check: Option<ColumnCheck<'_>>,
    scope: &Scope,
    mut f: impl FnMut(usize, &'d Document) -> Result<()>,
) -> Result<()> {
    let mut i = 0;
    while i < docs.len() {
        if let Some(k) = check.as_mut() {
            i = k.next_candidate(i);
        }
        let Some(d) = docs.get(i) else {
            break;
        };
        crate::value::prefetch::scan(docs, i);
        let hit = match check.as_mut().and_then(|k| k.decide(i)) {
            Some(hit) => hit,
            None => filter.matches(d, scope)?,
        };
        if hit {
            f(i, d)?;
        }
        i += 1;
    }
    Ok(())
}

pub(super) fn compile<'f>(node: &'f Node, positions: bool, column: &mut Columns<'_>) -> Check<'f> {
    let mut all = |children: &'f [Node]| -> Vec<Check<'f>> {
        children
            .iter()
            .map(|n| compile(n, positions, column))
            .collect()
    };
    match node {
        Node::True => Check::Const(true),
        Node::False => Check::Const(false),
        Node::And(children) => leading_known(Check::And(all(children))),
        Node::Or(children) => leading_known(Check::Or(all(children))),
        Node::Nor(children) => leading_known(Check::Nor(all(children))),
        Node::Not(child) => match compile(child, positions, column) {
            Check::Unknown => Check::Unknown,
            child => Check::Not(Box::new(child)),
        },
        Node::Path { path, pred } => {
            if let ([array], Pred::ElemMatchObject(_) | Pred::ElemMatchValue(_)) =
                (path.parts(), pred)
            {
                return match ElementCheck::new(&array.name, pred, positions, column) {
                    Some(check) => Check::Elements(check),
                    None => Check::Unknown,
                };
            }
            // A dotted path's column holds what the traversal yields for
            // predicates on values, not on whole arrays.
            let on_values = !matches!(
                pred,
                Pred::Size(_) | Pred::ElemMatchObject(_) | Pred::ElemMatchValue(_)
            );
            let field = match path.parts() {
                _ if matches!(pred, Pred::Near(_)) => None,
                [part] => Some(part.name.as_str()),
                _ if on_values => Some(path.dotted()),
                _ => None,
            };
            match field.and_then(|f| column(&Source::Path(f.to_string()))) {
                Some(column) => Check::Leaf(Leaf::new(pred, column, positions)),
                None => Check::Unknown,
            }
        }
        Node::Expr(_) | Node::Schema(_) | Node::Text(_) => Check::Unknown,
    }
}

/// A list whose first part is unknown never decides: the document is read.
fn leading_known(check: Check<'_>) -> Check<'_> {
    match &check {
        Check::And(v) | Check::Or(v) | Check::Nor(v)
            if v.first().is_none_or(|c| matches!(c, Check::Unknown)) =>
        {
            Check::Unknown
        }
        _ => check,
    }
}

/// `{$gt: 5}` and the like: a comparison with a number that is not NaN.
fn number_test(pred: &Pred) -> Option<(u8, Number)> {
    let Pred::Cmp(cmp) = pred else {
        return None;
    };
    match cmp.parts() {
        (op, Bson::Int32(i)) => Some((accepted(op), Number::Int(i64::from(*i)))),
        (op, Bson::Int64(i)) => Some((accepted(op), Number::Int(*i))),
        (op, Bson::Double(f)) if !f.is_nan() => Some((accepted(op), Number::Double(*f))),
        _ => None,
    }
}

impl Check<'_> {
    /// The documents a leaf's column covers (the collection's, when built).
    fn rows(&self) -> usize {
        match self {
            Check::Leaf(leaf) => leaf.column.rows(),
            Check::Elements(check) => check.rows(),
            Check::And(v) | Check::Or(v) | Check::Nor(v) => {
                v.iter().map(Check::rows).max().unwrap_or(0)
            }
            Check::Not(c) => c.rows(),
            Check::Const(_) | Check::Unknown => 0,
        }
    }

    /// The decisions for the documents from `at` on, one per slot of `out`.
    /// A list is decided as the matcher runs it: in order, the first part
    /// that does not pass (`$and`) or fail (`$or`, `$nor`) settles it.
    pub(super) fn fill(&mut self, at: usize, out: &mut [u8], scratch: &mut Vec<Vec<u8>>) {
        match self {
            Check::Const(b) => out.fill(u8::from(*b)),
            Check::Unknown => out.fill(READ),
            Check::Leaf(leaf) => leaf.fill(at, out),
            Check::Elements(check) => check.fill(at, out, scratch),
            Check::Not(child) => {
                child.fill(at, out, scratch);
                negate(out);
            }
            Check::And(children) => fill_list(children, YES, at, out, scratch),
            Check::Or(children) => fill_list(children, NO, at, out, scratch),
            Check::Nor(children) => {
                fill_list(children, NO, at, out, scratch);
                negate(out);
            }
        }
    }
}

fn negate(out: &mut [u8]) {
    for s in out {
        *s = match *s {
            NO => YES,
            YES => NO,
            other => other,
        };
    }
}

/// `$and` (`pass` = `YES`) or `$or` (`pass` = `NO`): a document whose parts
/// so far all gave `pass` takes the next part's decision.
fn fill_list(
    children: &mut [Check<'_>],
    pass: u8,
    at: usize,
    out: &mut [u8],
    scratch: &mut Vec<Vec<u8>>,
) {
    out.fill(pass);
    let mut part = scratch.pop().unwrap_or_default();
    for c in children {
        part.clear();
        part.resize(out.len(), READ);
        c.fill(at, &mut part, scratch);
        for (o, p) in out.iter_mut().zip(&part) {
            if *o == pass {
                *o = *p;
            }
        }
    }
    scratch.push(part);
}

impl Leaf<'_> {
    fn fill(&mut self, at: usize, out: &mut [u8]) {
        let column = Rc::clone(&self.column);
        if column.is_path() {
            for (k, o) in out.iter_mut().enumerate() {
                *o = match column.values(at + k) {
                    Some((cells, in_array)) => self.any_value(cells, in_array),
                    None => READ,
                };
            }
            return;
        }
        let cells = column.cells().get(at..).unwrap_or(&[]);
        match self.number {
            Some((accepted, Number::Int(r))) => {
                for (o, cell) in out.iter_mut().zip(cells) {
                    *o = match *cell {
                        Cell::Int32(i) => verdict(accepted, i64::from(i).cmp(&r)),
                        Cell::Int64(i) => verdict(accepted, i.cmp(&r)),
                        cell => number_state(accepted, Number::Int(r), cell),
                    };
                }
            }
            Some((accepted, rhs)) => {
                for (o, cell) in out.iter_mut().zip(cells) {
                    *o = number_state(accepted, rhs, *cell);
                }
            }
            None => {
                for (o, cell) in out.iter_mut().zip(cells) {
                    *o = match *cell {
                        Cell::Dict(i) => match self.memo.get(i as usize) {
                            Some(&known) if known != UNTRIED => known,
                            _ => self.entry_state(i as usize),
                        },
                        cell => self.state(cell),
                    };
                }
            }
        }
    }

    /// A path matches when one of its values does (the first, in the
    /// traversal's order, gives the position).
    fn any_value(&mut self, cells: &[Cell], in_array: &[bool]) -> u8 {
        let mut state = NO;
        for (cell, inside) in cells.iter().zip(in_array) {
            match self.cell_state(*cell) {
                YES if *inside && self.positions => return READ,
                YES => return YES,
                NO => {}
                _ => state = READ,
            }
        }
        state
    }

    /// The predicate's answer for one cell.
    fn cell_state(&mut self, cell: Cell) -> u8 {
        match self.number {
            Some((accepted, rhs)) => number_state(accepted, rhs, cell),
            None => self.state(cell),
        }
    }

    fn state(&mut self, cell: Cell) -> u8 {
        let value = match cell {
            Cell::Other => return READ,
            Cell::Missing => return test(self.pred, None),
            Cell::Null => Bson::Null,
            Cell::Bool(b) => Bson::Boolean(b),
            Cell::Int32(i) => Bson::Int32(i),
            Cell::Int64(i) => Bson::Int64(i),
            Cell::Double(f) => Bson::Double(f),
            Cell::Date(t) => Bson::DateTime(DateTime::from_millis(t)),
            Cell::Dict(i) => return self.entry_state(i as usize),
        };
        test(self.pred, Some(&value))
    }

    /// A string or ObjectId: the predicate's answer for that value, once.
    fn entry_state(&mut self, i: usize) -> u8 {
        let Some(seen) = self.memo.get(i).copied() else {
            return READ;
        };
        if seen != UNTRIED {
            return seen;
        }
        let state = test(self.pred, self.column.dictionary().get(i));
        if let Some(m) = self.memo.get_mut(i) {
            *m = state;
        }
        state
    }
}

/// The orderings (bit 0 less, 1 equal, 2 greater) an operator accepts.
fn accepted(op: CmpOp) -> u8 {
    [Ordering::Less, Ordering::Equal, Ordering::Greater]
        .iter()
        .enumerate()
        .filter(|(_, o)| op.accepts(**o))
        .fold(0, |m, (i, _)| m | (1 << i))
}

#[inline(always)]
fn verdict(accepted: u8, ord: Ordering) -> u8 {
    (accepted >> (ord as i8 + 1)) & 1
}

/// A number test on a cell: other brackets never compare with a number
/// (missing included), and NaN is neither above nor below one.
fn number_state(accepted: u8, rhs: Number, cell: Cell) -> u8 {
    let ord = match (cell, rhs) {
        (Cell::Other, _) => return READ,
        (Cell::Int32(i), Number::Int(r)) => i64::from(i).cmp(&r),
        (Cell::Int64(i), Number::Int(r)) => i.cmp(&r),
        (Cell::Int32(i), Number::Double(r)) => cmp_i64_f64(i64::from(i), r),
        (Cell::Int64(i), Number::Double(r)) => cmp_i64_f64(i, r),
        (Cell::Double(f), _) if f.is_nan() => return NO,
        (Cell::Double(f), Number::Int(r)) => cmp_i64_f64(r, f).reverse(),
        (Cell::Double(f), Number::Double(r)) => cmp_f64(f, r),
        _ => return NO,
    };
    verdict(accepted, ord)
}

/// The matcher's test of one value; `READ` if it would record a position.
fn test(pred: &Pred, v: Option<&Bson>) -> u8 {
    let mut pos = None;
    let ok = pred.matches(v, &mut pos);
    if pos.is_some() {
        READ
    } else {
        u8::from(ok)
    }
}

#[cfg(test)]
#[path = "columns_tests.rs"]
mod tests;
