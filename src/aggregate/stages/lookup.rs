//! Stages that join other collections: `$lookup` and `$graphLookup` (`$unionWith`
//! is in `union_with`).
//! Equality joins use a hash index of the foreign collection built once per
//! run, with MongoDB's query semantics (an array matches by any element or
//! as a whole; a missing field matches null).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/lookup/
use crate::aggregate::key::KeyMap;
use crate::aggregate::operand::Operand;
use crate::aggregate::path::FieldPath;
use crate::aggregate::pipeline::{run_stages, Docs, Pipeline, Place};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::query::Filter;
use crate::storage::Database;
use crate::text::shell::{inline, type_name};
use bson::{Bson, Document};
use std::borrow::Cow;

/// Foreign documents indexed by the values an equality query on `path` matches.
struct ForeignIndex {
    keys: KeyMap<Vec<usize>>,
}

impl ForeignIndex {
    fn build(docs: &[Document], path: &FieldPath) -> ForeignIndex {
        let mut keys: KeyMap<Vec<usize>> = KeyMap::new();
        let null = Bson::Null;
        for (i, doc) in docs.iter().enumerate() {
            path.query_keys(doc, &mut |v| {
                let v = v.unwrap_or(&null);
                let list = keys.get_or_insert_with(v, Vec::new);
                if list.last() != Some(&i) {
                    list.push(i);
                }
            });
        }
        ForeignIndex { keys }
    }

    /// Indices of documents matching any of `values`, in natural order.
    fn lookup(&self, values: &[&Bson]) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        for v in values {
            if let Some(list) = self.keys.get(v) {
                out.extend_from_slice(list);
            }
        }
        if values.len() > 1 {
            crate::sorting::sort(&mut out);
            out.dedup();
        }
        out
    }
}

/// Since 8.0 a pipeline starting with `$documents` must not name a collection
/// (the manual's "Namespaces in Subpipelines" for `$lookup` and `$unionWith`;
/// `db.coll.aggregate` too): the `$documents` stage refuses a collection namespace.
pub(crate) fn documents_with_collection() -> Error {
    Error::invalid_namespace(
        "'$documents' can only be run with database or cluster-level aggregation",
    )
}

/// The values of `localField` to join on; missing is null.
fn local_values<'a>(path: &FieldPath, doc: &'a Document) -> Vec<&'a Bson> {
    let mut vals = Vec::new();
    path.visit_leaves(doc, &mut |v| vals.push(v));
    vals
}

const NULL: Bson = Bson::Null;

pub(super) fn foreign_docs<'a>(db: &'a Database, from: &Option<String>) -> &'a [Document] {
    from.as_ref()
        .and_then(|f| db.collection(f))
        .map_or(&[], |c| c.docs())
}

/// `let` variables: compiled in the outer context, visible in the sub-pipeline.
fn compile_let(
    spec: &Bson,
    ctx: &CompileCtx,
    sub: &mut CompileCtx,
) -> Result<Vec<(String, Operand)>> {
    let Bson::Document(d) = spec else {
        return Err(Error::failed_to_parse(format!(
            "$lookup argument 'let: {}' must be an object, is type {}",
            inline(spec),
            type_name(spec)
        )));
    };
    let mut out = Vec::new();
    for (name, v) in d {
        crate::aggregate::operand::validate_let_name(name)?;
        out.push((name.clone(), Operand::compile(v, ctx)?));
        sub.variables.push(name.clone());
    }
    Ok(out)
}

fn bind<'s>(vars: &[(String, Operand)], doc: &Document, scope: &Scope<'s>) -> Result<Scope<'s>> {
    let mut inner = scope.clone();
    for (name, op) in vars {
        let v = op.eval_owned(doc, scope)?.unwrap_or(Bson::Null);
        inner.vars.push((name.clone(), v));
    }
    Ok(inner)
}

#[derive(Clone, Debug)]
pub struct Lookup {
    from: Option<String>,
    as_field: FieldPath,
    join: Option<(FieldPath, FieldPath)>,
    vars: Vec<(String, Operand)>,
    pipeline: Option<Pipeline>,
}

impl Lookup {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<Lookup> {
        let Bson::Document(d) = spec else {
            return Err(Error::failed_to_parse(
                "the $lookup specification must be an Object",
            ));
        };
        let mut sub_ctx = ctx.clone();
        let (mut from, mut as_field, mut local, mut foreign) = (None, None, None, None);
        let mut vars = Vec::new();
        let mut has_let = false;
        let mut pipeline_spec = None;
        for (k, v) in d {
            match (k.as_str(), v) {
                ("pipeline", Bson::Array(stages)) => pipeline_spec = Some(stages),
                ("pipeline", other) => {
                    return Err(Error::type_mismatch(format!(
                        "'pipeline' option must be specified as an array, got {}",
                        type_name(other)
                    )))
                }
                ("let", _) => {
                    vars = compile_let(v, ctx, &mut sub_ctx)?;
                    has_let = true;
                }
                ("from", Bson::String(s)) => from = Some(s.clone()),
                // The server reads {db, coll} only for some internal namespaces
                // (config.cache.chunks.*, local.oplog.rs), none of them here.
                ("from", Bson::Document(spec)) => {
                    let part = |f: &str| spec.get_str(f).unwrap_or_default().to_string();
                    return Err(Error::failed_to_parse(format!(
                        "$lookup with syntax {{from: {{db:<>, coll:<>}},..}} is not supported for db: {} and coll: {}",
                        part("db"),
                        part("coll")
                    )));
                }
                ("from", other) => {
                    return Err(Error::failed_to_parse(format!(
                        "$lookup 'from' field must be a string, but found {}",
                        type_name(other)
                    )))
                }
                ("as" | "localField" | "foreignField", Bson::String(s)) => match k.as_str() {
                    "as" => as_field = Some(s.clone()),
                    "localField" => local = Some(s.clone()),
                    _ => foreign = Some(s.clone()),
                },
                ("as" | "localField" | "foreignField", other) => {
                    return Err(Error::failed_to_parse(format!(
                        "$lookup argument '{k}: {}' must be a string, found {}",
                        inline(other),
                        type_name(other)
                    )))
                }
                _ => {
                    return Err(Error::failed_to_parse(format!(
                        "unknown argument to $lookup: {k}"
                    )))
                }
            }
        }
        let pipeline = match pipeline_spec {
            Some(stages) => Some(Pipeline::compile_in(stages, &sub_ctx, Place::Lookup)?),
            None => None,
        };
        if from.is_none()
            && !pipeline
                .as_ref()
                .is_some_and(Pipeline::starts_with_documents)
        {
            return Err(Error::failed_to_parse(
                "$lookup stage without explicit collection must have a pipeline with $documents as first stage",
            ));
        }
        if from.is_some()
            && pipeline
                .as_ref()
                .is_some_and(Pipeline::starts_with_documents)
        {
            return Err(documents_with_collection());
        }
        let as_field = match as_field {
            Some(a) if !a.is_empty() => FieldPath::parse(&a)?,
            _ => {
                return Err(Error::failed_to_parse(
                    "must specify 'as' field for a $lookup",
                ))
            }
        };
        let join = match (local, foreign) {
            (Some(l), Some(f)) if !l.is_empty() && !f.is_empty() => {
                Some((FieldPath::parse(&l)?, FieldPath::parse(&f)?))
            }
            (None, None) if pipeline.is_some() => None,
            _ if pipeline.is_some() => {
                return Err(Error::failed_to_parse(
                    "$lookup requires both or neither of 'localField' and 'foreignField' to be specified",
                ))
            }
            _ => {
                return Err(Error::failed_to_parse(
                    "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified",
                ))
            }
        };
        if pipeline.is_none() && has_let {
            return Err(Error::failed_to_parse(
                "$lookup with a 'let' argument must also specify 'pipeline'",
            ));
        }
        Ok(Lookup {
            from,
            as_field,
            join,
            vars,
            pipeline,
        })
    }

    pub fn run<'a>(
        &'a self,
        docs: Docs<'a>,
        db: &'a Database,
        scope: &Scope,
    ) -> Result<Vec<Document>> {
        let joiner = self.joiner(db);
        let mut out = Vec::with_capacity(docs.len());
        for doc in docs {
            // Each document may get the whole foreign collection: the run's memory budget.
            crate::budget::check()?;
            let results = match &self.pipeline {
                Some(p) => {
                    let sub = joiner.sub_input(&doc, db, scope)?;
                    let rest = p.stages.get(sub.produced..).unwrap_or_default();
                    run_stages(rest, sub.input, db, &sub.scope)?
                }
                None => joiner.matched(&doc),
            };
            let arr = Bson::Array(
                results
                    .into_iter()
                    .map(|d| Bson::Document(d.into_owned()))
                    .collect(),
            );
            let mut d = doc.into_owned();
            self.as_field.set(&mut d, arr);
            out.push(d);
        }
        Ok(out)
    }

    /// The sub-pipeline, if the stage has one.
    pub(crate) fn sub_pipeline(&self) -> Option<&Pipeline> {
        self.pipeline.as_ref()
    }

    /// What joins outer documents to this stage's foreign documents (built
    /// once per run).
    pub(crate) fn joiner<'a>(&'a self, db: &'a Database) -> Joiner<'a> {
        let foreign = foreign_docs(db, &self.from);
        let index = self
            .join
            .as_ref()
            .map(|(_, f)| ForeignIndex::build(foreign, f));
        Joiner {
            lookup: self,
            foreign,
            index,
        }
    }
}

/// A `$lookup` ready to join: its foreign documents and their index.
pub(crate) struct Joiner<'a> {
    lookup: &'a Lookup,
    foreign: &'a [Document],
    index: Option<ForeignIndex>,
}

/// What the sub-pipeline runs over for one outer document.
pub(crate) struct SubInput<'a, 's> {
    /// The documents its first stage receives (after `produced` stages).
    pub input: Docs<'a>,
    /// The run's scope with the `let` variables bound.
    pub scope: Scope<'s>,
    /// Leading stages already run: 1 when a `$documents` produced the
    /// input (the join applied to what it produced), else 0.
    pub produced: usize,
}

impl<'a> Joiner<'a> {
    /// The foreign documents joining `doc` (all of them without a join).
    fn matched(&self, doc: &Document) -> Docs<'a> {
        match (&self.lookup.join, &self.index) {
            (Some((local, _)), Some(index)) => {
                let mut vals = local_values(local, doc);
                if vals.is_empty() {
                    vals.push(&NULL);
                }
                index
                    .lookup(&vals)
                    .into_iter()
                    .filter_map(|i| self.foreign.get(i).map(Cow::Borrowed))
                    .collect()
            }
            _ => self.foreign.iter().map(Cow::Borrowed).collect(),
        }
    }

    /// The sub-pipeline's input for `doc`. A pipeline starting with
    /// `$documents` supplies the foreign documents itself; the join applies
    /// to what it produces.
    pub(crate) fn sub_input<'s>(
        &self,
        doc: &Document,
        db: &'a Database,
        scope: &Scope<'s>,
    ) -> Result<SubInput<'a, 's>> {
        let lookup = self.lookup;
        let inner = bind(&lookup.vars, doc, scope)?;
        let Some(p) = lookup
            .pipeline
            .as_ref()
            .filter(|p| p.starts_with_documents())
        else {
            return Ok(SubInput {
                input: self.matched(doc),
                scope: inner,
                produced: 0,
            });
        };
        let first = p.stages.get(..1).unwrap_or_default();
        let produced: Vec<Document> = run_stages(first, Vec::new(), db, &inner)?
            .into_iter()
            .map(Cow::into_owned)
            .collect();
        let input: Docs = match &lookup.join {
            Some((local, foreign_path)) => {
                let idx = ForeignIndex::build(&produced, foreign_path);
                let mut vals = local_values(local, doc);
                if vals.is_empty() {
                    vals.push(&NULL);
                }
                idx.lookup(&vals)
                    .into_iter()
                    .filter_map(|i| produced.get(i).cloned().map(Cow::Owned))
                    .collect()
            }
            None => produced.into_iter().map(Cow::Owned).collect(),
        };
        Ok(SubInput {
            input,
            scope: inner,
            produced: 1,
        })
    }
}

/// `$graphLookup`: a breadth-first search over the foreign collection.
/// See https://www.mongodb.com/docs/manual/reference/operator/aggregation/graphLookup/
#[derive(Clone, Debug)]
pub struct GraphLookup {
    from: String,
    start_with: Operand,
    connect_from: FieldPath,
    connect_to: FieldPath,
    as_field: FieldPath,
    max_depth: Option<u64>,
    depth_field: Option<FieldPath>,
    restrict: Option<Filter>,
}

impl GraphLookup {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<GraphLookup> {
        // The server's lite parse checks the spec and `from` before anything else
        // (document_source_graph_lookup.cpp LiteParsed::parse), with FailedToParse.
        let Bson::Document(d) = spec else {
            return Err(Error::failed_to_parse(format!(
                "the $graphLookup stage specification must be an object, but found {}",
                type_name(spec)
            )));
        };
        match d.get("from") {
            None => {
                return Err(Error::failed_to_parse(format!(
                    "missing 'from' option to $graphLookup stage specification: {}",
                    inline(spec)
                )))
            }
            Some(Bson::String(s)) if s.is_empty() => {
                return Err(Error::invalid_namespace(format!(
                    "invalid $graphLookup namespace: {}.",
                    crate::storage::Database::current_name()
                )))
            }
            Some(Bson::String(_)) => {}
            Some(other) => {
                return Err(Error::failed_to_parse(format!(
                    "$graphLookup 'from' field must be a string, but found {}",
                    type_name(other)
                )))
            }
        }
        let (mut from, mut start_with, mut connect_from, mut connect_to, mut as_field) =
            (None, None, None, None, None);
        let (mut max_depth, mut depth_field, mut restrict) = (None, None, None);
        let string = |k: &str, v: &Bson| match v {
            Bson::String(s) => Ok(s.clone()),
            other => Err(Error::location(
                40103,
                format!(
                    "expected string as argument for {k}, found: {}",
                    type_name(other)
                ),
            )),
        };
        for (k, v) in d {
            match k.as_str() {
                "from" => from = Some(string(k, v)?),
                "startWith" => start_with = Some(Operand::compile(v, ctx)?),
                "connectFromField" => connect_from = Some(FieldPath::parse(&string(k, v)?)?),
                "connectToField" => connect_to = Some(FieldPath::parse(&string(k, v)?)?),
                "as" => as_field = Some(FieldPath::parse(&string(k, v)?)?),
                "depthField" => depth_field = Some(FieldPath::parse(&string(k, v)?)?),
                "maxDepth" => {
                    let Some(x) = crate::value::numeric::to_f64(v) else {
                        return Err(Error::location(
                            40100,
                            format!("maxDepth must be numeric, found type: {}", type_name(v)),
                        ));
                    };
                    // The server truncates to a long first (safeNumberLong), then
                    // rejects a negative or a changed value, naming the truncation.
                    let n = if x.is_nan() { 0 } else { x.trunc() as i64 };
                    if n < 0 {
                        return Err(Error::location(
                            40101,
                            format!("maxDepth requires a nonnegative argument, found: {n}"),
                        ));
                    }
                    if n as f64 != x {
                        return Err(Error::location(
                            40102,
                            format!("maxDepth could not be represented as a long long: {n}"),
                        ));
                    }
                    max_depth = Some(n as u64);
                }
                "restrictSearchWithMatch" => match v {
                    Bson::Document(f) => restrict = Some(Filter::compile(f, ctx)?),
                    other => {
                        return Err(Error::location(
                            40185,
                            format!(
                                "restrictSearchWithMatch must be an object, found {}",
                                type_name(other)
                            ),
                        ))
                    }
                },
                other => {
                    return Err(Error::location(
                        40104,
                        format!("Unknown argument to $graphLookup: {other}"),
                    ))
                }
            }
        }
        let missing = || {
            Error::location(
                40105,
                "$graphLookup requires 'from', 'as', 'startWith', 'connectFromField', and 'connectToField' to be specified.",
            )
        };
        Ok(GraphLookup {
            from: from.ok_or_else(missing)?,
            start_with: start_with.ok_or_else(missing)?,
            connect_from: connect_from.ok_or_else(missing)?,
            connect_to: connect_to.ok_or_else(missing)?,
            as_field: as_field.ok_or_else(missing)?,
            max_depth,
            depth_field,
            restrict,
        })
    }

    pub fn run<'a>(
        &'a self,
        docs: Docs<'a>,
        db: &'a Database,
        scope: &Scope,
    ) -> Result<Vec<Document>> {
        let all = foreign_docs(db, &Some(self.from.clone()));
        // Only documents passing restrictSearchWithMatch take part.
        let mut allowed = Vec::with_capacity(all.len());
        for d in all {
            if let Some(f) = &self.restrict {
                if !f.matches(d, scope)? {
                    continue;
                }
            }
            allowed.push(d);
        }
        // The server matches with {connectToField: {$in: frontier}} plus
        // {connectToField: {$exists: true}} (makeMatchStageFromFrontier): a null
        // in the frontier matches a null field, never a missing one.
        let index = {
            let mut keys: KeyMap<Vec<usize>> = KeyMap::new();
            let mut found: Vec<Option<&Bson>> = Vec::new();
            for (i, doc) in allowed.iter().enumerate() {
                found.clear();
                self.connect_to.query_keys(doc, &mut |v| found.push(v));
                if found.iter().all(Option::is_none) {
                    continue;
                }
                for v in &found {
                    let list = keys.get_or_insert_with(v.unwrap_or(&NULL), Vec::new);
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
            ForeignIndex { keys }
        };
        let mut out = Vec::with_capacity(docs.len());
        for doc in docs {
            crate::budget::check()?;
            let mut frontier: Vec<Bson> = Vec::new();
            // A missing start value looks nothing up.
            if let Some(v) = self.start_with.eval(&doc, scope)? {
                match v.into_owned() {
                    Bson::Array(items) => frontier.extend(items),
                    other => frontier.push(other),
                }
            }
            let mut seen: KeyMap<()> = KeyMap::new();
            let mut found: Vec<Document> = Vec::new();
            let mut depth: u64 = 0;
            while !frontier.is_empty() {
                if self.max_depth.is_some_and(|m| depth > m) {
                    break;
                }
                let refs: Vec<&Bson> = frontier.iter().collect();
                let hits = index.lookup(&refs);
                let mut next = Vec::new();
                for i in hits {
                    let Some(hit) = allowed.get(i) else { continue };
                    let id = hit.get("_id").cloned().unwrap_or(Bson::Null);
                    if !seen.insert_new(&id, || ()) {
                        continue;
                    }
                    self.connect_from
                        .visit_leaves(hit, &mut |v| next.push(v.clone()));
                    let mut d = (*hit).clone();
                    if let Some(df) = &self.depth_field {
                        df.set(&mut d, Bson::Int64(depth as i64));
                    }
                    found.push(d);
                }
                frontier = next;
                depth += 1;
            }
            let mut d = doc.into_owned();
            self.as_field.set(
                &mut d,
                Bson::Array(found.into_iter().map(Bson::Document).collect()),
            );
            out.push(d);
        }
        Ok(out)
    }
}
