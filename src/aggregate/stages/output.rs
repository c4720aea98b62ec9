//! `$out` and `$merge`: write the pipeline's result into a collection of the
//! playground's database (visible to later statements). Both are last stages;
//! the pipeline computes everything first, so reading and writing the same
//! collection is safe.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/merge/
use crate::aggregate::key::KeyMap;
use crate::aggregate::operand::Operand;
use crate::aggregate::path::FieldPath;
use crate::aggregate::pipeline::Pipeline;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::storage::{duplicate_id_error, validation, Collection, Database};
use crate::text::shell::{inline, type_name};
use bson::{Bson, Document};

/// Where `$out`/`$merge` write: a collection of the script's database, or
/// of another one (`{db, coll}`; the engine writes there).
#[derive(Clone, Debug)]
pub struct Target {
    pub db: Option<String>,
    pub coll: String,
}

/// `"coll"` or `{db: "name", coll: "coll"}`.
fn target(stage: &str, spec: &Bson) -> Result<Target> {
    let mut db_name = None;
    let name = match spec {
        Bson::String(s) => s.clone(),
        Bson::Document(d) => {
            let mut coll = None;
            for (k, v) in d {
                match (k.as_str(), v) {
                    ("db", Bson::String(db)) => db_name = Some(db.clone()),
                    ("coll", Bson::String(c)) => coll = Some(c.clone()),
                    _ => {
                        return Err(Error::location(
                            40415,
                            format!("BSON field '{stage}.{k}' is an unknown field."),
                        ))
                    }
                }
            }
            coll.ok_or_else(|| {
                Error::location(
                    40414,
                    format!("BSON field '{stage}.coll' is missing but a required field"),
                )
            })?
        }
        other => {
            return Err(Error::location(
                if stage == "$out" { 16990 } else { 51178 },
                format!(
                    "{stage} only supports a string or object argument, but found {}",
                    type_name(other)
                ),
            ))
        }
    };
    let db_shown = db_name.clone().unwrap_or_else(Database::current_name);
    let bad_db = db_name.as_deref().is_some_and(|d| {
        d.is_empty() || d.len() >= 64 || d.contains(['/', '\\', '.', ' ', '"', '$', '\0'])
    });
    if bad_db || name.is_empty() || name.starts_with("system.") || name.contains('$') {
        return Err(Error::invalid_namespace(format!(
            "Invalid {stage} target namespace, {db_shown}.{name}"
        )));
    }
    Ok(Target {
        db: db_name,
        coll: name,
    })
}

/// Give documents an `_id` and check uniqueness before touching the target;
/// each with its BSON size.
fn prepared(db: &Database, docs: Vec<Document>, ns: &str) -> Result<Vec<(Document, usize)>> {
    let mut ids: KeyMap<()> = KeyMap::new();
    let mut out = Vec::with_capacity(docs.len());
    for d in docs {
        let d = db.prepare_insert(d)?;
        // Written documents obey the insert limits (16 MiB, 180 levels).
        let size = Database::check_insert(&d)?;
        let id = d.get("_id").cloned().unwrap_or(Bson::Null);
        if !ids.insert_new(&id, || ()) {
            return Err(duplicate_id_error(ns, &id));
        }
        out.push((d, size));
    }
    Ok(out)
}

#[derive(Clone, Debug)]
pub struct Out {
    coll: String,
    db: Option<String>,
    /// `bypassDocumentValidation` of the aggregate command.
    pub(crate) bypass: bool,
}

impl Out {
    pub fn compile(spec: &Bson) -> Result<Out> {
        let t = target("$out", spec)?;
        Ok(Out {
            coll: t.coll,
            db: t.db,
            bypass: false,
        })
    }

    /// The database named by `{db, coll}`, if any.
    pub fn database(&self) -> Option<&str> {
        self.db.as_deref()
    }

    /// Replace the target's contents; on error the target is unchanged.
    /// A capped target is refused (document_source_out.cpp); a validated
    /// one keeps its validator, which every document must pass.
    pub fn write(&self, docs: Vec<Document>, db: &mut Database, scope: &Scope) -> Result<()> {
        let ns = Database::namespace(&self.coll);
        if let Some(opts) = db.collection(&self.coll).map(Collection::options) {
            if opts.capped.is_some() {
                return Err(Error::location(
                    17152,
                    format!("namespace '{ns}' is capped so it can't be used for $out"),
                ));
            }
            if opts.timeseries.is_some() {
                return Err(Error::not_supported("$out into a time series collection"));
            }
        }
        let docs = prepared(db, docs, &ns)?;
        if let Some(opts) = db.collection(&self.coll).map(Collection::options) {
            for (d, _) in &docs {
                validation::check_options(opts, None, d, scope, self.bypass)?;
            }
        }
        // $out keeps the target's indexes (https://www.mongodb.com/docs/manual/reference/operator/aggregation/out/).
        let mut fresh = db
            .collection(&self.coll)
            .map_or_else(Collection::default, Collection::emptied);
        for (d, size) in docs {
            fresh.insert_sized(&ns, d, size)?;
        }
        db.set_collection(&self.coll, fresh);
        Ok(())
    }
}

#[derive(Clone, Debug)]
enum WhenMatched {
    Replace,
    KeepExisting,
    Merge,
    Fail,
    Pipeline(Pipeline),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum WhenNotMatched {
    Insert,
    Discard,
    Fail,
}

#[derive(Clone, Debug)]
pub struct Merge {
    coll: String,
    db: Option<String>,
    on: Vec<FieldPath>,
    vars: Vec<(String, Operand)>,
    matched: WhenMatched,
    not_matched: WhenNotMatched,
    /// `bypassDocumentValidation` of the aggregate command.
    pub(crate) bypass: bool,
}

impl Merge {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<Merge> {
        let d = match spec {
            Bson::String(_) => {
                let t = target("$merge", spec)?;
                return Ok(Merge {
                    coll: t.coll,
                    db: t.db,
                    on: vec![id_path()?],
                    vars: Vec::new(),
                    matched: WhenMatched::Merge,
                    not_matched: WhenNotMatched::Insert,
                    bypass: false,
                });
            }
            Bson::Document(d) => d,
            other => {
                return Err(Error::location(
                    51182,
                    format!(
                        "$merge only supports a string or object argument, but found {}",
                        type_name(other)
                    ),
                ))
            }
        };
        let mut into = None;
        let mut on = vec![id_path()?];
        let mut let_spec = None;
        let mut matched_spec = None;
        let mut not_matched = WhenNotMatched::Insert;
        for (k, v) in d {
            match k.as_str() {
                "into" => into = Some(target("$merge", v)?),
                "on" => on = parse_on(v)?,
                "let" => let_spec = Some(v),
                "whenMatched" => matched_spec = Some(v),
                "whenNotMatched" => {
                    not_matched = match v {
                        Bson::String(s) if s == "insert" => WhenNotMatched::Insert,
                        Bson::String(s) if s == "discard" => WhenNotMatched::Discard,
                        Bson::String(s) if s == "fail" => WhenNotMatched::Fail,
                        Bson::String(s) => {
                            return Err(Error::bad_value(format!(
                                "Enumeration value '{s}' for field 'whenNotMatched' is not a valid value."
                            )))
                        }
                        other => {
                            return Err(Error::type_mismatch(format!(
                                "BSON field '$merge.whenNotMatched' is the wrong type '{}', expected type 'string'",
                                type_name(other)
                            )))
                        }
                    }
                }
                other => {
                    return Err(Error::location(
                        40415,
                        format!("BSON field '$merge.{other}' is an unknown field."),
                    ))
                }
            }
        }
        let Target { db, coll } = into.ok_or_else(|| {
            Error::location(
                40414,
                "BSON field '$merge.into' is missing but a required field",
            )
        })?;
        // `let` defaults to {new: "$$ROOT"}; the variables are visible in the
        // whenMatched pipeline, evaluated against the pipeline's result document.
        let mut sub_ctx = ctx.clone();
        let mut vars = Vec::new();
        match let_spec {
            Some(Bson::Document(l)) => {
                for (name, v) in l {
                    crate::aggregate::operand::validate_let_name(name)?;
                    vars.push((name.clone(), Operand::compile(v, ctx)?));
                    sub_ctx.variables.push(name.clone());
                }
            }
            Some(other) => {
                return Err(Error::type_mismatch(format!(
                    "BSON field '$merge.let' is the wrong type '{}', expected type 'object'",
                    type_name(other)
                )))
            }
            None => {
                sub_ctx.variables.push("new".to_string());
            }
        }
        // `new` is always the result document (51273), and an inserting merge
        // defines it even when `let` leaves it out (document_source_merge.cpp).
        if let Some(Bson::Document(l)) = let_spec {
            match l.get("new") {
                Some(Bson::String(s)) if s == "$$ROOT" => {}
                Some(_) => {
                    return Err(Error::location(
                        51273,
                        "'let' may not define a value for the reserved 'new' variable other than '$$ROOT'",
                    ))
                }
                None if not_matched == WhenNotMatched::Insert => {
                    vars.push(("new".to_string(), Operand::compile(&Bson::String("$$ROOT".into()), ctx)?));
                    sub_ctx.variables.push("new".to_string());
                }
                None => {}
            }
        }
        let matched = match matched_spec {
            None => WhenMatched::Merge,
            Some(Bson::String(s)) => match s.as_str() {
                "replace" => WhenMatched::Replace,
                "keepExisting" => WhenMatched::KeepExisting,
                "merge" => WhenMatched::Merge,
                "fail" => WhenMatched::Fail,
                other => {
                    return Err(Error::bad_value(format!(
                        "Enumeration value '{other}' for field 'whenMatched' is not a valid value."
                    )))
                }
            },
            Some(Bson::Array(stages)) => WhenMatched::Pipeline(Pipeline::compile_update(stages, &sub_ctx)?),
            Some(other) => {
                return Err(Error::type_mismatch(format!(
                    "BSON field '$merge.whenMatched' is the wrong type '{}', expected types '[string, array]'",
                    type_name(other)
                )))
            }
        };
        if let_spec.is_some() && !matches!(matched, WhenMatched::Pipeline(_)) {
            return Err(Error::location(
                51199,
                "Cannot use 'let' variables with 'whenMatched: replace' mode",
            ));
        }
        Ok(Merge {
            coll,
            db,
            on,
            vars,
            matched,
            not_matched,
            bypass: false,
        })
    }

    /// The database named by `into: {db, coll}`, if any.
    pub fn database(&self) -> Option<&str> {
        self.db.as_deref()
    }

    pub fn write(&self, docs: Vec<Document>, db: &mut Database, scope: &Scope) -> Result<()> {
        let ns = Database::namespace(&self.coll);
        if db
            .collection(&self.coll)
            .is_some_and(|c| c.options().timeseries.is_some())
        {
            return Err(Error::not_supported("$merge into a time series collection"));
        }
        let on_id = self.on.len() == 1 && self.on[0].dotted() == "_id";
        // Other `on` fields need a unique, non-partial index on exactly them
        // (ensureFieldsUniqueOrResolveDocumentKey, 51183); a unique geospatial
        // index does not qualify (requires_unique_index.js).
        let supported = on_id
            || db.collection(&self.coll).is_some_and(|c| {
                c.indexes().iter().any(|ix| {
                    ix.spec.unique
                        && ix.spec.partial.is_none()
                        && ix.spec.geo.is_empty()
                        && ix.spec.key.len() == self.on.len()
                        && self.on.iter().all(|p| ix.spec.key.contains_key(p.dotted()))
                })
            });
        if !supported {
            return Err(Error::location(
                51183,
                "Cannot find index to verify that join fields will be unique",
            ));
        }
        // Index of the target by the `on` key.
        let mut target: Collection = db.collection(&self.coll).cloned().unwrap_or_default();
        let mut index: KeyMap<usize> = KeyMap::new();
        for (i, d) in target.docs().iter().enumerate() {
            index.get_or_insert_with(&self.key_of(d).unwrap_or(Bson::Null), || i);
        }
        for doc in docs {
            let doc = if on_id { db.prepare_insert(doc)? } else { doc };
            let Some(key) = self.key_of(&doc) else {
                return Err(Error::location(
                    51132,
                    "$merge write error: 'on' field cannot be missing, null, undefined or an array",
                ));
            };
            match index.get(&key).copied() {
                Some(i) => {
                    let Some(existing) = target.docs().get(i) else { continue };
                    let new = match &self.matched {
                        WhenMatched::KeepExisting => continue,
                        WhenMatched::Fail => {
                            let id = existing.get("_id").cloned().unwrap_or(Bson::Null);
                            let mut e = duplicate_id_error(&ns, &id);
                            e.message = format!(
                                "$merge failed due to a DuplicateKey error :: caused by :: {}",
                                e.message
                            );
                            return Err(e);
                        }
                        WhenMatched::Replace => {
                            let mut d = Document::new();
                            d.insert("_id", existing.get("_id").cloned().unwrap_or(Bson::Null));
                            for (k, v) in doc {
                                if k != "_id" {
                                    d.insert(k, v);
                                }
                            }
                            d
                        }
                        WhenMatched::Merge => {
                            let mut d = existing.clone();
                            for (k, v) in doc {
                                d.insert(k, v);
                            }
                            d
                        }
                        WhenMatched::Pipeline(p) => {
                            let mut inner = scope.clone();
                            if self.vars.is_empty() {
                                inner.vars.push(("new".to_string(), Bson::Document(doc.clone())));
                            }
                            for (name, op) in &self.vars {
                                let v = op.eval_owned(&doc, scope)?.unwrap_or(Bson::Null);
                                inner.vars.push((name.clone(), v));
                            }
                            p.apply_to(existing, &inner)?
                        }
                    };
                    let old_id = existing.get("_id").cloned().unwrap_or(Bson::Null);
                    let new_id = new.get("_id").cloned().unwrap_or(Bson::Null);
                    if !crate::value::equal(&old_id, &new_id) {
                        return Err(Error::immutable_field(
                            "$merge failed to update the matching document, did you attempt to modify the _id or the shard key? :: caused by :: Performing an update on the path '_id' would modify the immutable field '_id'",
                        ));
                    }
                    let new = if new.contains_key("_id") { new } else { db.prepare_insert(new)? };
                    let size = Database::check_insert(&new)?;
                    validation::check_options(
                        target.options(),
                        Some(existing),
                        &new,
                        scope,
                        self.bypass,
                    )?;
                    target.replace(&ns, i, new, size)?;
                }
                None => match self.not_matched {
                    WhenNotMatched::Discard => {}
                    WhenNotMatched::Fail => {
                        return Err(Error::location(
                            13113,
                            "$merge could not find a matching document in the target collection for at least one document in the source collection",
                        ))
                    }
                    WhenNotMatched::Insert => {
                        let doc = db.prepare_insert(doc)?;
                        let size = Database::check_insert(&doc)?;
                        validation::check_options(target.options(), None, &doc, scope, self.bypass)?;
                        let at = target.len();
                        let k = self.key_of(&doc).unwrap_or(Bson::Null);
                        target.insert_sized(&ns, doc, size)?;
                        index.get_or_insert_with(&k, || at);
                    }
                },
            }
        }
        db.set_collection(&self.coll, target);
        Ok(())
    }

    /// The `on` fields' values (one value, or an array for several fields);
    /// `None` when one is missing, null or an array.
    fn key_of(&self, doc: &Document) -> Option<Bson> {
        let mut vals = Vec::with_capacity(self.on.len());
        for p in &self.on {
            match p.get_plain(doc) {
                None | Some(Bson::Null | Bson::Undefined | Bson::Array(_)) => return None,
                Some(v) => vals.push(v.clone()),
            }
        }
        if vals.len() == 1 {
            vals.pop()
        } else {
            Some(Bson::Array(vals))
        }
    }
}

fn id_path() -> Result<FieldPath> {
    FieldPath::parse("_id")
}

fn parse_on(v: &Bson) -> Result<Vec<FieldPath>> {
    match v {
        Bson::String(s) => Ok(vec![FieldPath::parse(s)?]),
        Bson::Array(items) if !items.is_empty() => items
            .iter()
            .map(|i| match i {
                Bson::String(s) => FieldPath::parse(s),
                other => Err(Error::location(
                    51134,
                    format!(
                        "Array passed to $merge's \"on\" field must only contain strings, but found {}",
                        type_name(other)
                    ),
                )),
            })
            .collect(),
        Bson::Array(_) => Err(Error::location(
            51187,
            "If explicitly specifying $merge 'on', must include at least one field",
        )),
        other => Err(Error::location(
            51186,
            format!(
                "$merge 'on' field must be either a string or an array of strings, but found {}: {}",
                type_name(other),
                inline(other)
            ),
        )),
    }
}
