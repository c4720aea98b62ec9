//! `$group`, and the stages MongoDB defines through it: `$count` and `$sortByCount`.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/group/
use crate::aggregate::accumulators::{Accumulator, State};
use crate::aggregate::key::KeyMap;
use crate::aggregate::operand::Operand;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::query::{for_each_match, ColumnCheck, Filter};
use bson::{Bson, Document};
use std::borrow::Cow;

/// The group key: one operand, or `{a: <operand>, b: <operand>}` built here
/// without the general evaluator.
#[derive(Clone, Debug)]
pub enum GroupKey {
    One(Operand),
    Fields(Vec<(String, Operand)>),
}

impl GroupKey {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<GroupKey> {
        if let Bson::Document(d) = spec {
            let plain = !d.is_empty()
                && d.keys()
                    .all(|k| !k.starts_with('$') && !k.contains('.') && !k.is_empty());
            if plain {
                let fields = d
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), Operand::compile(v, ctx)?)))
                    .collect::<Result<_>>()?;
                return Ok(GroupKey::Fields(fields));
            }
        }
        Ok(GroupKey::One(Operand::compile(spec, ctx)?))
    }

    /// The key of `doc` without evaluating anything, when it is a constant or
    /// a one-field path (`"$ticker"`): no `Result<Cow>` per document (about 90
    /// bytes copied per call level in wasm). `None`: use [`GroupKey::eval`].
    #[inline]
    pub fn borrowed<'a>(&'a self, doc: &'a Document) -> Option<&'a Bson> {
        static NULL: Bson = Bson::Null;
        match self {
            GroupKey::One(op) => op.borrowed(doc).map(|v| v.unwrap_or(&NULL)),
            GroupKey::Fields(_) => None,
        }
    }

    /// The key of `doc`; missing becomes null.
    pub fn eval<'a>(&'a self, doc: &'a Document, scope: &Scope) -> Result<Cow<'a, Bson>> {
        match self {
            // Not `unwrap_or`: it would build (and drop) a null per document.
            GroupKey::One(op) => Ok(match op.eval(doc, scope)? {
                Some(v) => v,
                None => Cow::Owned(Bson::Null),
            }),
            GroupKey::Fields(fields) => {
                let mut out = Document::new();
                for (k, op) in fields {
                    if let Some(v) = op.eval(doc, scope)? {
                        out.insert(k.clone(), v.into_owned());
                    }
                }
                Ok(Cow::Owned(Bson::Document(fields_key(fields, out))))
            }
        }
    }
}

/// A document key built from its fields' values. With one field a missing
/// value is null (`{g: null}`, grouped with the documents where `g` is null):
/// the server evaluates a one-field `_id` as one expression, missing → null
/// (group_processor_base.cpp's computeGroupKey); with several, missing
/// fields are left out.
pub(crate) fn fields_key(fields: &[(String, Operand)], mut built: Document) -> Document {
    if let ([(k, _)], true) = (fields, built.is_empty()) {
        built.insert(k.clone(), Bson::Null);
    }
    built
}

/// Named accumulators, shared by `$group`, `$bucket` and `$bucketAuto`.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    pub fields: Vec<(String, Accumulator)>,
    /// Whether some accumulator's state grows with the documents it sees.
    grow: bool,
}

impl Outputs {
    pub fn compile<'a>(
        fields: impl Iterator<Item = (&'a String, &'a Bson)>,
        ctx: &CompileCtx,
    ) -> Result<Outputs> {
        let mut out = Vec::new();
        for (name, spec) in fields {
            out.push((name.clone(), Accumulator::compile(name, spec, ctx)?));
        }
        let grow = out.iter().any(|(_, a)| a.grows());
        Ok(Outputs { fields: out, grow })
    }

    /// Whether some accumulator's state grows with every document.
    pub fn grows(&self) -> bool {
        self.grow
    }

    pub fn start(&self, key: &Bson, scope: &Scope) -> Result<Vec<State>> {
        self.fields
            .iter()
            .map(|(_, a)| a.start(key, scope))
            .collect()
    }

    pub fn add(&self, states: &mut [State], doc: &Document, scope: &Scope) -> Result<()> {
        for ((_, acc), state) in self.fields.iter().zip(states.iter_mut()) {
            acc.add(state, doc, scope)?;
        }
        Ok(())
    }

    /// Append the results to `out`.
    pub fn finish(&self, states: &[State], out: &mut Document) {
        for ((name, acc), state) in self.fields.iter().zip(states) {
            out.insert(name.clone(), acc.result(state));
        }
    }
}

#[derive(Clone, Debug)]
pub struct Group {
    pub(crate) key: GroupKey,
    pub(crate) outputs: Outputs,
}

impl Group {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<Group> {
        let Bson::Document(spec) = spec else {
            return Err(Error::location(
                15947,
                "a group's fields must be specified in an object",
            ));
        };
        let id = spec
            .get("_id")
            .ok_or_else(|| Error::location(15955, "a group specification must include an _id"))?;
        let key = GroupKey::compile(id, ctx)?;
        let outputs = Outputs::compile(spec.iter().filter(|(k, _)| *k != "_id"), ctx)?;
        Ok(Group { key, outputs })
    }

    /// Groups come out in first-seen order: MongoDB does not specify an order,
    /// and this one is deterministic.
    pub fn run<'a, I>(&self, docs: I, scope: &Scope) -> Result<Vec<Document>>
    where
        I: IntoIterator<Item = &'a Document>,
    {
        let mut groups: KeyMap<Vec<State>> = KeyMap::new();
        for doc in docs {
            self.add(&mut groups, doc, scope)?;
        }
        Ok(self.finish(groups))
    }

    /// `$match` then `$group` over borrowed documents: the documents that only
    /// feed accumulators are never collected, let alone cloned.
    /// `columns`: the filter's scan-column check over `docs`, when there is one.
    pub fn run_filtered(
        &self,
        docs: &[Document],
        filter: &Filter,
        columns: Option<ColumnCheck>,
        scope: &Scope,
    ) -> Result<Vec<Document>> {
        let mut groups: KeyMap<Vec<State>> = KeyMap::new();
        let columns = columns.and_then(|mut k| k.mostly_fails().then_some(k));
        for_each_match(docs, filter, columns, scope, |_, doc| {
            self.add(&mut groups, doc, scope)
        })?;
        Ok(self.finish(groups))
    }

    fn add(&self, groups: &mut KeyMap<Vec<State>>, doc: &Document, scope: &Scope) -> Result<()> {
        // The run's memory budget: checked where memory grows, on a new group
        // and (`$push`, `$addToSet`...) on every document.
        if self.outputs.grow {
            crate::budget::check()?;
        }
        let i = self.position_of(groups, doc, scope)?;
        if let Some(states) = groups.value_at_mut(i) {
            self.outputs.add(states, doc, scope)?;
        }
        Ok(())
    }

    /// Where `doc`'s group is in `groups` (a new one at the end).
    pub(super) fn position_of(
        &self,
        groups: &mut KeyMap<Vec<State>>,
        doc: &Document,
        scope: &Scope,
    ) -> Result<usize> {
        let evaluated;
        let key = match self.key.borrowed(doc) {
            Some(v) => v,
            None => {
                evaluated = self.key.eval(doc, scope)?;
                &*evaluated
            }
        };
        self.position(groups, key, scope)
    }

    /// Where the group of `key` is in `groups` (a new one at the end).
    pub(super) fn position(
        &self,
        groups: &mut KeyMap<Vec<State>>,
        key: &Bson,
        scope: &Scope,
    ) -> Result<usize> {
        groups.try_position_or_insert(key, || {
            crate::budget::check()?;
            self.outputs.start(key, scope)
        })
    }

    pub(super) fn finish(&self, groups: KeyMap<Vec<State>>) -> Vec<Document> {
        groups
            .into_entries()
            .into_iter()
            .map(|(key, states)| {
                let mut out = Document::new();
                out.insert("_id", key);
                self.outputs.finish(&states, &mut out);
                out
            })
            .collect()
    }
}

/// `$count: "<field>"`.
#[derive(Clone, Debug)]
pub struct Count {
    field: String,
}

impl Count {
    pub fn compile(spec: &Bson) -> Result<Count> {
        let field = match spec {
            Bson::String(s) if !s.is_empty() => s,
            Bson::String(_) => {
                return Err(Error::location(
                    40157,
                    "the count field must be a non-empty string",
                ))
            }
            _ => {
                return Err(Error::location(
                    40156,
                    "the count field must be a non-empty string",
                ))
            }
        };
        if field.starts_with('$') {
            return Err(Error::location(
                40158,
                "the count field cannot be a $-prefixed path",
            ));
        }
        if field.contains('\0') {
            return Err(Error::location(
                40159,
                "the count field cannot contain a null byte",
            ));
        }
        if field.contains('.') {
            return Err(Error::location(40160, "the count field cannot contain '.'"));
        }
        // document_source_count.cpp: it would name the $group's _id twice.
        if field == "_id" {
            return Err(Error::location(9039800, "the count field cannot be '_id'"));
        }
        Ok(Count {
            field: field.clone(),
        })
    }

    /// No documents in, no document out (it is a `$group` on null).
    pub fn run(&self, n: usize) -> Vec<Document> {
        if n == 0 {
            return Vec::new();
        }
        let mut d = Document::new();
        d.insert(self.field.clone(), crate::expr::sum::count_value(n));
        vec![d]
    }
}

/// `$sortByCount: <expression>`: group, count, sort by count descending.
#[derive(Clone, Debug)]
pub struct SortByCount {
    key: Operand,
}

impl SortByCount {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<SortByCount> {
        // Three codes, by the spec's type (server document_source_sort_by_count.cpp):
        // an object not led by a $-key 40147, a string not a $-path 40148, else 40149.
        const MSG: &str =
            "the sortByCount field must be defined as a $-prefixed path or an expression inside an object";
        match spec {
            Bson::Document(d) if !d.keys().next().is_some_and(|k| k.starts_with('$')) => {
                return Err(Error::location(40147, MSG))
            }
            Bson::String(s) if !s.starts_with('$') => return Err(Error::location(40148, MSG)),
            Bson::Document(_) | Bson::String(_) => {}
            _ => {
                return Err(Error::location(
                    40149,
                    "the sortByCount field must be specified as a string or as an object",
                ))
            }
        }
        Ok(SortByCount {
            key: Operand::compile(spec, ctx)?,
        })
    }

    pub fn run<'a, I>(&self, docs: I, scope: &Scope) -> Result<Vec<Document>>
    where
        I: IntoIterator<Item = &'a Document>,
    {
        let mut groups: KeyMap<usize> = KeyMap::new();
        for doc in docs {
            let key = self.key.eval(doc, scope)?.unwrap_or(Cow::Owned(Bson::Null));
            *groups.get_or_insert_with(&key, || 0) += 1;
        }
        let mut entries = groups.into_entries();
        // Stable: equal counts keep first-seen order.
        crate::sorting::sort_by_key(&mut entries, |e| std::cmp::Reverse(e.1));
        Ok(entries
            .into_iter()
            .map(|(key, n)| {
                let mut d = Document::new();
                d.insert("_id", key);
                d.insert("count", crate::expr::sum::count_value(n));
                d
            })
            .collect())
    }
}
