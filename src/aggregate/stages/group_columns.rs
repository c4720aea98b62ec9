//! `$group` over a collection's documents in their stored order, reading
//! its key and its accumulators' arguments from scan columns
//! (`value::column`) where they are top-level fields (`_id: "$ticker"`,
//! `_id: {t: "$ticker", c: "$customer"}`, `{$sum: "$qty"}`): one small cell
//! per document instead of the document's entries, keys and strings
//! scattered over the heap.
//!
//! A top-level field's cell is the value `"$f"` evaluates to whenever it is
//! a cell (arrays, documents and the rarer types are `Cell::Other`: that
//! document is read, for that field only). Groups are still found in the
//! group's own `KeyMap` with MongoDB equality, so `1` and `1.0` meet and the
//! first value seen names the group. A string key's group is remembered per
//! dictionary entry, and a compound key's per combination of cells, so the
//! key is built and looked up once per distinct combination.
use super::group::{fields_key, Group, GroupKey};
use crate::aggregate::accumulators::State;
use crate::aggregate::key::{FxHasher, KeyMap};
use crate::aggregate::operand::Operand;
use crate::error::Result;
use crate::expr::Scope;
use crate::query::{for_each_match, ColumnCheck, Filter};
use crate::storage::Collection;
use crate::value::column::{Cell, Column, Source};
use bson::{Bson, Document};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::rc::Rc;

/// Fields a compound key read from columns has at most.
const MAX_KEY_FIELDS: usize = 4;

/// A compound key's cells, each as two words (see [`code`]). Hashed and
/// compared a word at a time: as a byte slice each is a loop of calls in
/// the page's wasm.
#[derive(Clone, Copy, Default)]
struct Codes([u64; 2 * MAX_KEY_FIELDS]);

impl std::hash::Hash for Codes {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for w in self.0 {
            state.write_u64(w);
        }
    }
}

impl PartialEq for Codes {
    fn eq(&self, other: &Codes) -> bool {
        let mut same = true;
        for (a, b) in self.0.iter().zip(&other.0) {
            same &= a == b;
        }
        same
    }
}
impl Eq for Codes {}

/// A `$group` with the columns it reads.
pub struct ColumnGroup<'g> {
    group: &'g Group,
    /// The key's column (a one-field path key).
    key: Option<Rc<Column>>,
    /// A compound key's columns, one per field (every field a path).
    key_fields: Vec<Rc<Column>>,
    /// Per accumulator, its argument's column.
    inputs: Vec<Option<Rc<Column>>>,
}

/// Groups found so far: the map, and where each of the key column's
/// dictionary entries and null went.
struct Groups {
    map: KeyMap<Vec<State>>,
    by_entry: Vec<Option<usize>>,
    null: Option<usize>,
    /// A compound key's groups, by its cells' codes.
    by_codes: HashMap<Codes, usize, BuildHasherDefault<FxHasher>>,
}

/// The top-level field a path operand reads.
fn field_of(op: &Operand) -> Option<&str> {
    match op {
        Operand::Path(p) => p.single(),
        _ => None,
    }
}

/// A scalar cell's value (`None` for missing, dictionary entries and
/// `Other`, which the caller reads elsewhere).
fn scalar(cell: Cell) -> Option<Bson> {
    Some(match cell {
        Cell::Null => Bson::Null,
        Cell::Bool(b) => Bson::Boolean(b),
        Cell::Int32(i) => Bson::Int32(i),
        Cell::Int64(i) => Bson::Int64(i),
        Cell::Double(d) => Bson::Double(d),
        Cell::Date(ms) => Bson::DateTime(bson::DateTime::from_millis(ms)),
        Cell::Missing | Cell::Other | Cell::Dict(_) => return None,
    })
}

/// A cell as two words, equal for equal cells of the same type (`1` and
/// `1.0` differ here; the group's `KeyMap` finds them one group).
fn code(cell: Cell) -> (u64, u64) {
    match cell {
        Cell::Missing => (0, 0),
        Cell::Null => (1, 0),
        Cell::Bool(b) => (2, u64::from(b)),
        Cell::Int32(i) => (3, i as u64),
        Cell::Int64(i) => (4, i as u64),
        Cell::Double(d) => (5, d.to_bits()),
        Cell::Date(ms) => (6, ms as u64),
        Cell::Dict(e) => (7, u64::from(e)),
        Cell::Other => (8, 0),
    }
}

/// A cell's value (`None`: missing); [`Cell::Other`] has none.
fn value(column: &Column, cell: Cell) -> Option<Bson> {
    match cell {
        Cell::Dict(e) => column.dictionary().get(e as usize).cloned(),
        cell => scalar(cell),
    }
}

impl<'g> ColumnGroup<'g> {
    /// `group` over `c`'s documents, when a column answers its key or one of
    /// its arguments (columns are built: the group reads every document).
    pub fn new(group: &'g Group, c: &Collection) -> Option<ColumnGroup<'g>> {
        let column = |op: &Operand| {
            let source = Source::Path(field_of(op)?.to_string());
            c.columns().for_scan(&source, c.docs(), true)
        };
        let (key, key_fields) = match &group.key {
            GroupKey::One(op) => (column(op), Vec::new()),
            GroupKey::Fields(fields) if fields.len() <= MAX_KEY_FIELDS => {
                let columns: Option<Vec<_>> = fields.iter().map(|(_, op)| column(op)).collect();
                (None, columns.unwrap_or_default())
            }
            GroupKey::Fields(_) => (None, Vec::new()),
        };
        let inputs: Vec<_> = group
            .outputs
            .fields
            .iter()
            .map(|(_, acc)| acc.takes_values().then(|| column(acc.input())).flatten())
            .collect();
        let any = key.is_some() || !key_fields.is_empty() || inputs.iter().any(Option::is_some);
        any.then_some(ColumnGroup {
            group,
            key,
            key_fields,
            inputs,
        })
    }

    /// Group every document of the collection the columns were built for.
    pub fn run(&self, docs: &[Document], scope: &Scope) -> Result<Vec<Document>> {
        let mut groups = self.groups();
        for (row, doc) in docs.iter().enumerate() {
            self.add(&mut groups, row, doc, scope)?;
        }
        Ok(self.group.finish(groups.map))
    }

    /// `$match` then this group, over the same collection's documents.
    pub fn run_filtered(
        &self,
        docs: &[Document],
        filter: &Filter,
        columns: Option<ColumnCheck>,
        scope: &Scope,
    ) -> Result<Vec<Document>> {
        let mut groups = self.groups();
        for_each_match(docs, filter, columns, scope, |row, doc| {
            self.add(&mut groups, row, doc, scope)
        })?;
        Ok(self.group.finish(groups.map))
    }

    fn groups(&self) -> Groups {
        let entries = self.key.as_ref().map_or(0, |k| k.dictionary().len());
        Groups {
            map: KeyMap::new(),
            by_entry: vec![None; entries],
            null: None,
            by_codes: HashMap::default(),
        }
    }

    /// Add the collection's document `row` (`doc`).
    fn add(&self, groups: &mut Groups, row: usize, doc: &Document, scope: &Scope) -> Result<()> {
        let group = self.group;
        if group.outputs.grows() {
            crate::budget::check()?;
        }
        let cell = self
            .key
            .as_ref()
            .and_then(|k| Some((k, *k.cells().get(row)?)));
        let i = match cell {
            Some((k, Cell::Dict(e))) => {
                let e = e as usize;
                match groups.by_entry.get(e).copied().flatten() {
                    Some(i) => i,
                    None => {
                        let key = k.dictionary().get(e).unwrap_or(&Bson::Null);
                        let i = group.position(&mut groups.map, key, scope)?;
                        if let Some(slot) = groups.by_entry.get_mut(e) {
                            *slot = Some(i);
                        }
                        i
                    }
                }
            }
            // `"$f"` missing is a null key.
            Some((_, Cell::Missing | Cell::Null)) => match groups.null {
                Some(i) => i,
                None => {
                    let i = group.position(&mut groups.map, &Bson::Null, scope)?;
                    groups.null = Some(i);
                    i
                }
            },
            Some((_, cell)) if cell != Cell::Other => {
                let key = scalar(cell).unwrap_or(Bson::Null);
                group.position(&mut groups.map, &key, scope)?
            }
            _ => match self.compound(groups, row, scope)? {
                Some(i) => i,
                None => group.position_of(&mut groups.map, doc, scope)?,
            },
        };
        let Some(states) = groups.map.value_at_mut(i) else {
            return Ok(());
        };
        for (((_, acc), state), column) in group
            .outputs
            .fields
            .iter()
            .zip(states.iter_mut())
            .zip(&self.inputs)
        {
            let Some(column) = column else {
                acc.add(state, doc, scope)?;
                continue;
            };
            match column.cells().get(row).copied().unwrap_or(Cell::Other) {
                Cell::Other => acc.add(state, doc, scope)?,
                Cell::Missing => acc.add_value(state, None)?,
                Cell::Dict(e) => acc.add_value(state, column.dictionary().get(e as usize))?,
                cell => acc.add_value(state, scalar(cell).as_ref())?,
            }
        }
        Ok(())
    }

    /// The group of document `row` by its compound key's cells; `None`
    /// without key columns or when a cell is [`Cell::Other`].
    fn compound(&self, groups: &mut Groups, row: usize, scope: &Scope) -> Result<Option<usize>> {
        let GroupKey::Fields(fields) = &self.group.key else {
            return Ok(None);
        };
        if self.key_fields.is_empty() {
            return Ok(None);
        }
        let mut codes = Codes::default();
        for (j, column) in self.key_fields.iter().enumerate() {
            let cell = column.cells().get(row).copied().unwrap_or(Cell::Other);
            if cell == Cell::Other {
                return Ok(None);
            }
            let (tag, payload) = code(cell);
            if let Some(pair) = codes.0.get_mut(2 * j..2 * j + 2) {
                pair.copy_from_slice(&[tag, payload]);
            }
        }
        if let Some(&i) = groups.by_codes.get(&codes) {
            return Ok(Some(i));
        }
        // As `GroupKey::eval` builds it: missing fields left out.
        let mut built = Document::new();
        for ((name, _), column) in fields.iter().zip(&self.key_fields) {
            let cell = column.cells().get(row).copied().unwrap_or(Cell::Missing);
            if let Some(v) = value(column, cell) {
                built.insert(name.clone(), v);
            }
        }
        let key = Bson::Document(fields_key(fields, built));
        let i = self.group.position(&mut groups.map, &key, scope)?;
        groups.by_codes.insert(codes, i);
        Ok(Some(i))
    }
}
