//! `$densify`'s streaming state machine (document_source_densify.cpp's), run
//! over the sorted documents: it passes each document on and generates the
//! missing steps before it, per partition, then fills the bounds at the end.
use super::{Bounds, Densify};
use crate::aggregate::key::KeyMap;
use crate::error::{Error, Result};
use crate::value::compare;
use bson::{Bson, Document};
use std::cmp::Ordering;

#[derive(Clone, Copy, PartialEq, Debug)]
enum State {
    Uninit,
    NeedGen,
    Done,
}

pub(super) struct Machine<'d> {
    d: &'d Densify,
    out: Vec<Document>,
    state: State,
    current: Option<Bson>,
    global_min: Option<Bson>,
    global_max: Option<Bson>,
    /// Last value seen per partition (keyed by the partition document).
    table: KeyMap<Bson>,
    partitioned: bool,
    eof: bool,
    /// Documents generated so far (MongoDB stops at `MAX_GENERATED`).
    n_generated: usize,
}

/// MongoDB's `internalQueryMaxAllowedDensifyDocs` default: past it, $densify fails
/// (error 5897900) instead of generating without end.
const MAX_GENERATED: usize = 500_000;

fn lt(a: &Bson, b: &Bson) -> bool {
    compare(a, b) == Ordering::Less
}
fn eq(a: &Bson, b: &Bson) -> bool {
    compare(a, b) == Ordering::Equal
}

impl<'d> Machine<'d> {
    pub(super) fn new(d: &'d Densify) -> Machine<'d> {
        Machine {
            d,
            out: Vec::new(),
            state: State::Uninit,
            current: None,
            global_min: None,
            global_max: None,
            table: KeyMap::new(),
            partitioned: false,
            eof: false,
            n_generated: 0,
        }
    }

    /// The documents so far: the input's and the generated ones, in order.
    pub(super) fn into_out(self) -> Vec<Document> {
        self.out
    }

    fn pkey(&self, doc: &Document) -> Bson {
        Bson::Document(self.d.partition_doc(doc))
    }

    fn set_partition_value(&mut self, key: &Bson, val: &Bson) {
        if self.partitioned {
            *self.table.get_or_insert_with(key, || Bson::Null) = val.clone();
        }
    }

    pub(super) fn next(&mut self, doc: Document) -> Result<()> {
        let Some(val) = self.d.value_of(&doc)? else {
            self.out.push(doc);
            return Ok(());
        };
        let key = self.pkey(&doc);
        match self.state {
            State::Done => self.out.push(doc),
            State::Uninit => {
                if !self.d.partitions.is_empty() && !self.partitioned {
                    self.partitioned = true;
                    self.set_partition_value(&key, &val);
                }
                match &self.d.bounds {
                    Bounds::Full => {
                        self.current = Some(val.clone());
                        self.global_min = Some(val.clone());
                        self.global_max = Some(val);
                        self.state = State::NeedGen;
                        self.out.push(doc);
                    }
                    Bounds::Partition => {
                        self.state = State::NeedGen;
                        self.out.push(doc);
                    }
                    Bounds::Explicit(..) => self.first_explicit(doc, val, key)?,
                }
            }
            State::NeedGen => match &self.d.bounds {
                Bounds::Full => {
                    if self.partitioned {
                        self.global_max = Some(val.clone());
                        match self.table.get(&key).cloned() {
                            None => {
                                let gmin = self.global_min.clone().unwrap_or(Bson::Null);
                                self.current = Some(self.d.increment(&gmin, -1));
                                self.set_partition_value(&key, &val);
                            }
                            Some(last) => self.current = Some(last),
                        }
                    }
                    self.need_gen(doc, val, key)?;
                }
                Bounds::Partition => match self.table.get(&key).cloned() {
                    None => {
                        self.set_partition_value(&key, &val);
                        self.out.push(doc);
                    }
                    Some(last) => {
                        self.current = Some(last);
                        self.need_gen(doc, val, key)?;
                    }
                },
                Bounds::Explicit(..) => {
                    if self.partitioned {
                        match self.table.get(&key).cloned() {
                            None => {
                                self.set_partition_value(&key, &val);
                                self.current = None;
                                return self.first_explicit(doc, val, key);
                            }
                            Some(last) => self.current = Some(last),
                        }
                    }
                    self.need_gen_explicit(doc, val, key)?;
                }
            },
        }
        Ok(())
    }

    /// A generated document: the partition fields, then the densified field.
    fn generated(&self, key: &Bson, v: &Bson) -> Document {
        let mut d = match (self.partitioned, key) {
            (true, Bson::Document(p)) => p.clone(),
            _ => Document::new(),
        };
        self.d.field.set(&mut d, v.clone());
        d
    }

    /// Values `from, from+step, ...` below `to`; at least `from`. Each becomes a
    /// generated document, so this is where MongoDB's limit on them is counted.
    fn steps(&mut self, from: &Bson, to: &Bson) -> Result<Vec<Bson>> {
        let mut vals = vec![from.clone()];
        let mut next = self.d.increment(from, 1);
        loop {
            if self.n_generated + vals.len() > MAX_GENERATED {
                let n = self.n_generated + vals.len();
                return Err(Error::location(
                    5897900,
                    format!(
                        "Generated {n} documents in $densify, which is over the limit of \
                         {MAX_GENERATED}. Increase the 'internalQueryMaxAllowedDensifyDocs' \
                         parameter to allow more generated documents"
                    ),
                ));
            }
            if !lt(&next, to) {
                break;
            }
            vals.push(next.clone());
            next = self.d.increment(&next, 1);
        }
        self.n_generated += vals.len();
        Ok(vals)
    }

    fn need_gen(&mut self, doc: Document, val: Bson, key: Bson) -> Result<()> {
        let cur = self.current.clone().unwrap_or(Bson::Null);
        let next = self.d.increment(&cur, 1);
        if eq(&val, &next) {
            self.set_partition_value(&key, &val);
            self.current = Some(val.clone());
        }
        if !lt(&next, &val) {
            self.out.push(doc);
            return Ok(());
        }
        for g in self.steps(&next, &val)? {
            self.current = Some(g.clone());
            self.set_partition_value(&key, &g);
            let gd = self.generated(&key, &g);
            self.out.push(gd);
        }
        // The final document updates the last value only when it is on the step.
        let cur = self.current.clone().unwrap_or(Bson::Null);
        if eq(&val, &self.d.increment(&cur, 1)) {
            self.current = Some(val.clone());
            self.set_partition_value(&key, &val);
        }
        self.out.push(doc);
        Ok(())
    }

    fn explicit(&self) -> (Bson, Bson) {
        match &self.d.bounds {
            Bounds::Explicit(b) => (b.0.clone(), b.1.clone()),
            _ => (Bson::Null, Bson::Null),
        }
    }

    fn first_explicit(&mut self, doc: Document, val: Bson, key: Bson) -> Result<()> {
        let (lo, hi) = self.explicit();
        if self.current.is_none() {
            self.current = Some(self.d.increment(&lo, -1));
        }
        if lt(&val, &lo) {
            self.state = State::Uninit;
            self.out.push(doc);
        } else if eq(&val, &lo) {
            self.state = State::NeedGen;
            self.current = Some(val);
            self.out.push(doc);
        } else {
            let _ = hi;
            self.above_min(doc, val, key)?;
        }
        Ok(())
    }

    fn above_min(&mut self, doc: Document, val: Bson, key: Bson) -> Result<()> {
        let (_, hi) = self.explicit();
        let cur = self.current.clone().unwrap_or(Bson::Null);
        let lower = self.d.increment(&cur, 1);
        if eq(&val, &lower) {
            self.set_partition_value(&key, &val);
            self.current = Some(lower);
            self.out.push(doc);
            return Ok(());
        }
        let upper = if lt(&val, &hi) {
            val.clone()
        } else {
            hi.clone()
        };
        let gens = self.steps(&lower, &upper)?;
        for (i, g) in gens.iter().enumerate() {
            let cur = self.current.clone().unwrap_or(Bson::Null);
            if i == 0 || self.d.on_step(g, &cur) {
                self.current = Some(g.clone());
                self.set_partition_value(&key, g);
            }
            let gd = self.generated(&key, g);
            self.out.push(gd);
        }
        let cur = self.current.clone().unwrap_or(Bson::Null);
        if self.d.on_step(&val, &cur) {
            self.current = Some(val.clone());
            self.set_partition_value(&key, &val);
        }
        self.out.push(doc);
        self.reset_after_generator(&hi);
        Ok(())
    }

    fn reset_after_generator(&mut self, hi: &Bson) {
        let cur = self.current.clone().unwrap_or(Bson::Null);
        if !lt(&cur, hi) && !self.partitioned {
            self.state = State::Done;
        } else {
            self.state = State::NeedGen;
        }
    }

    fn need_gen_explicit(&mut self, doc: Document, val: Bson, key: Bson) -> Result<()> {
        let (lo, hi) = self.explicit();
        let cur = self.current.clone().unwrap_or(Bson::Null);
        let next = self.d.increment(&cur, 1);
        if lt(&val, &lo) {
            self.set_partition_value(&key, &val);
            self.state = State::Uninit;
            self.out.push(doc);
        } else if eq(&val, &lo) {
            self.set_partition_value(&key, &val);
            self.current = Some(val);
            self.out.push(doc);
        } else if lt(&val, &hi) {
            if eq(&val, &next) {
                self.current = Some(val.clone());
                self.set_partition_value(&key, &val);
                self.out.push(doc);
            } else if lt(&val, &next) {
                self.out.push(doc);
            } else {
                self.above_min(doc, val, key)?;
            }
        } else if !lt(&next, &hi) {
            self.current = Some(next);
            self.set_partition_value(&key, &val);
            if !self.partitioned {
                self.state = State::Done;
            }
            self.out.push(doc);
        } else {
            self.above_min(doc, val, key)?;
        }
        Ok(())
    }

    pub(super) fn exhausted(&mut self) -> Result<()> {
        self.eof = true;
        if self.state == State::Done && !self.partitioned {
            return Ok(());
        }
        match self.d.bounds.clone() {
            Bounds::Full => {
                if self.partitioned {
                    let (Some(gmax), Some(cur)) = (self.global_max.clone(), self.current.clone())
                    else {
                        return Ok(());
                    };
                    let max = if self.d.on_step(&gmax, &cur) {
                        self.d.increment(&gmax, 1)
                    } else {
                        gmax
                    };
                    self.finish_partitions(&max, None)?;
                }
            }
            Bounds::Partition => {}
            Bounds::Explicit(b) => {
                let (lo, hi) = *b;
                if self.partitioned {
                    self.finish_partitions(&hi, Some(&lo))?;
                } else {
                    let from = match &self.current {
                        None => lo,
                        Some(c) => {
                            let n = self.d.increment(c, 1);
                            if !lt(&n, &hi) {
                                return Ok(());
                            }
                            n
                        }
                    };
                    if lt(&from, &hi) {
                        let key = Bson::Null;
                        for g in self.steps(&from, &hi)? {
                            let gd = self.generated(&key, &g);
                            self.out.push(gd);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// After the input ends, densify each partition from its last value to `max`.
    fn finish_partitions(&mut self, max: &Bson, min_override: Option<&Bson>) -> Result<()> {
        let mut entries: Vec<(Bson, Bson)> = std::mem::take(&mut self.table).into_entries();
        crate::sorting::sort_by(&mut entries, |a, b| compare(&a.0, &b.0));
        for (key, last) in entries {
            let mut from = self.d.increment(&last, 1);
            if !lt(&from, max) {
                continue;
            }
            if let Some(m) = min_override {
                if lt(&from, m) {
                    from = m.clone();
                }
            }
            for g in self.steps(&from, max)? {
                let gd = self.generated(&key, &g);
                self.out.push(gd);
            }
        }
        Ok(())
    }
}
