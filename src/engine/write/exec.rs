//! The write core shared by every method: find the target documents, apply
//! an update to each (in place when safe, else on a copy that replaces the
//! stored document whole), upsert, delete.
use super::super::{Collection, Database};
use crate::aggregate::stages::geo_near::{near_index, nearest};
use crate::error::{Error, Result};
use crate::expr::Scope;
use crate::index::scan::column_check;
use crate::query::sort::SortSpec;
use crate::query::Filter;
use crate::update::Update;
use crate::value::size::{doc_size, MAX_DOCUMENT_SIZE};
use bson::{Bson, Document};
use std::cmp::Ordering;

/// What an update did.
#[derive(Debug, Default)]
pub struct Written {
    pub matched: usize,
    pub modified: usize,
    pub upserted: Option<Bson>,
    /// With `keep`: the target before and after the write (after = inserted doc on upsert).
    pub before: Option<Document>,
    pub after: Option<Document>,
    pub position: Option<usize>,
}

/// Where a write applies.
pub struct Target<'a> {
    pub filter: &'a Filter,
    pub sort: Option<&'a SortSpec>,
    pub multi: bool,
    /// The server command that runs the write (`update`, `delete`,
    /// `findAndModify`): errors met while executing it name it.
    pub command: &'static str,
    /// `bypassDocumentValidation`.
    pub bypass: bool,
}

/// MongoDB 8 reports errors raised while the write executes (not while it
/// is parsed) as `Plan executor error during <command> :: caused by :: ...`.
fn executing(command: &'static str) -> impl Fn(Error) -> Error {
    move |mut e| {
        if !e.message.starts_with("Plan executor error") {
            e.message = format!(
                "Plan executor error during {command} :: caused by :: {}",
                e.message
            );
        }
        e
    }
}

/// Indexes (with positional matches) of the documents a write applies to:
/// all matches, or the first in natural or `sort` order. Matching happens
/// before any write, so updated documents are not matched again.
pub fn find_targets(
    c: Option<&Collection>,
    t: &Target,
    scope: &Scope,
) -> Result<Vec<(usize, Option<usize>)>> {
    let docs = c.map_or(&[][..], Collection::docs);
    if t.filter.matches_everything() && t.sort.is_none() && t.filter.near().is_none() {
        let n = if t.multi {
            docs.len()
        } else {
            docs.len().min(1)
        };
        return Ok((0..n).map(|i| (i, None)).collect());
    }
    let mut out = Vec::new();
    if let Some((path, q)) = t.filter.near() {
        // `$near` keeps the matches within its distances, nearest first: a
        // single-document write touches the nearest (geo_update_dedup.js).
        for (i, d) in docs.iter().enumerate() {
            if let Some(pos) = t.filter.matches_at(d, scope)? {
                out.push((i, pos));
            }
        }
        let near = nearest(
            out.iter().filter_map(|m| docs.get(m.0)).enumerate(),
            path,
            q,
        );
        out = near
            .into_iter()
            .filter_map(|(k, _, _)| out.get(k).copied())
            .collect();
        if !t.multi && t.sort.is_none() {
            out.truncate(1);
        }
    } else {
        // Scan columns where there are some, built when every document is read.
        let whole = t.multi || t.sort.is_some();
        let mut columns = column_check(t.filter, c, whole, true);
        for (i, d) in docs.iter().enumerate() {
            let found = match columns.as_mut().and_then(|k| k.decide(i)) {
                Some(hit) => hit.then_some(None),
                None => t.filter.matches_at(d, scope)?,
            };
            if let Some(pos) = found {
                out.push((i, pos));
                if !t.multi && t.sort.is_none() {
                    break;
                }
            }
        }
    }
    if let (Some(sort), false) = (t.sort, t.multi) {
        let key = |i: usize| docs.get(i);
        let best = out
            .iter()
            .copied()
            .reduce(|a, b| match (key(a.0), key(b.0)) {
                (Some(x), Some(y)) if sort.compare(y, x) == Ordering::Less => b,
                _ => a,
            });
        out = best.into_iter().collect();
    }
    Ok(out)
}

/// A `$near`/`$nearSphere` runs through a geospatial index on its path: the
/// planner's error otherwise, before the write executes (as find answers it).
fn check_near_index(db: &Database, coll: &str, t: &Target) -> Result<()> {
    match (t.filter.near(), db.collection(coll)) {
        (Some((path, q)), Some(c)) => near_index(c, path.dotted(), q).map(drop),
        _ => Ok(()),
    }
}

fn too_large() -> Error {
    Error::bson_object_too_large(format!(
        "Resulting document after update is larger than {MAX_DOCUMENT_SIZE}"
    ))
}

/// Apply `update` to the targets; upsert when nothing matched.
pub fn update(
    db: &mut Database,
    coll: &str,
    t: &Target,
    update: &Update,
    upsert: bool,
    keep: bool,
    scope: &Scope,
) -> Result<Written> {
    check_near_index(db, coll, t)?;
    update_targets(db, coll, t, update, upsert, keep, scope).map_err(executing(t.command))
}

fn update_targets(
    db: &mut Database,
    coll: &str,
    t: &Target,
    update: &Update,
    upsert: bool,
    keep: bool,
    scope: &Scope,
) -> Result<Written> {
    let ns = Database::namespace(coll);
    // Every document (updateMany({}, ...)): counted, not listed.
    let everything = t.filter.matches_everything() && t.sort.is_none() && t.multi;
    let (all, targets) = match db.collection(coll) {
        Some(c) if everything => (c.len(), Vec::new()),
        Some(c) => (0, find_targets(Some(c), t, scope)?),
        None => (0, Vec::new()),
    };
    let mut w = Written::default();
    if all == 0 && targets.is_empty() {
        if upsert {
            let (doc, size) = upsert_document(db, t.filter, update, scope)?;
            crate::storage::validation::check(db.collection(coll), None, &doc, scope, t.bypass)?;
            let id = doc.get("_id").cloned().unwrap_or(Bson::Null);
            if keep {
                w.after = Some(doc.clone());
            }
            db.collection_mut(coll).insert_sized(&ns, doc, size)?;
            w.upserted = Some(id);
        }
        return Ok(w);
    }
    let c = db.collection_mut(coll);
    let bound = size_bound(c, update, everything);
    let plan = Plan::new(c, update, bound);
    for (i, pos) in (0..all).map(|i| (i, None)).chain(targets) {
        // Every document may grow up to 16 MiB: the run's memory budget.
        crate::budget::check()?;
        // The next documents' fields, asked for early (cache misses dominate).
        crate::value::prefetch::scan(c.docs(), i);
        w.matched += 1;
        let (changed, before) = if plan.plain {
            apply_one(c, &ns, (i, pos), update, &plan, scope, keep)?
        } else {
            apply_checked(c, &ns, i, pos, update, scope, t.bypass)?
        };
        if changed {
            w.modified += 1;
        }
        if keep {
            w.before = before;
            w.after = c.docs().get(i).cloned();
            w.position = pos;
        }
    }
    // Each document was updated once, so grew by at most the update's growth.
    if let (Some(b), Some(growth)) = (bound, update.in_place_growth()) {
        c.set_size_bound(Some(b.saturating_add(growth)));
    }
    Ok(w)
}

/// Before an update that adds at most a known number of bytes to each
/// document: no document is larger than this. Known from the collection, or
/// measured here when the update reads every document anyway.
fn size_bound(c: &Collection, update: &Update, everything: bool) -> Option<usize> {
    update.in_place_growth()?;
    if !c.options().is_plain() {
        return None;
    }
    c.size_bound()
        .or_else(|| everything.then(|| c.docs().iter().map(doc_size).max().unwrap_or(0)))
}

/// Update one document of a collection with options on a copy, checked
/// against them before it replaces the stored one.
fn apply_checked(
    c: &mut Collection,
    ns: &str,
    i: usize,
    pos: Option<usize>,
    update: &Update,
    scope: &Scope,
    bypass: bool,
) -> Result<(bool, Option<Document>)> {
    let Some(stored) = c.docs().get(i) else {
        return Err(Error::internal_error("document index out of range"));
    };
    let new = if update.has_operators() {
        let mut copy = stored.clone();
        let fits = |d: &Document| {
            if doc_size(d) > MAX_DOCUMENT_SIZE {
                Err(too_large())
            } else {
                Ok(())
            }
        };
        update.apply_stored(&mut copy, pos, scope, fits)?.then(|| {
            let size = doc_size(&copy);
            (copy, size)
        })
    } else {
        update.computed(stored, scope)?
    };
    let Some((new, size)) = new else {
        return Ok((false, Some(stored.clone())));
    };
    if size > MAX_DOCUMENT_SIZE {
        return Err(too_large());
    }
    crate::storage::validation::check_options(c.options(), Some(stored), &new, scope, bypass)?;
    let before = stored.clone();
    c.replace(ns, i, new, size)?;
    Ok((true, Some(before)))
}

/// What one statement's update does to every target, decided once.
struct Plan {
    /// The collection has no options to check a written document against.
    plain: bool,
    /// Operator-style (`{$set: ...}`), not a replacement or a pipeline.
    operators: bool,
    /// The update cannot change `_id` (see `Collection::update_in_place`).
    id_fixed: bool,
    /// See [`Update::in_place_growth`].
    growth: Option<usize>,
    /// Every target fits 16 MiB after the in-place update (see [`size_bound`]).
    all_fit: bool,
}

impl Plan {
    fn new(c: &Collection, update: &Update, bound: Option<usize>) -> Plan {
        let growth = update.in_place_growth();
        Plan {
            plain: c.options().is_plain(),
            operators: update.has_operators(),
            id_fixed: !update.may_touch_id(),
            growth,
            all_fit: matches!((bound, growth), (Some(b), Some(g)) if fits_growth(b, g)),
        }
    }
}

/// A document of `size` bytes that grows by at most `growth` stays within 16 MiB.
fn fits_growth(size: usize, growth: usize) -> bool {
    size.saturating_add(growth) <= MAX_DOCUMENT_SIZE
}

/// Update one stored document (at `i`; `pos`: the positional `$`'s
/// element): whole or not at all.
fn apply_one(
    c: &mut Collection,
    ns: &str,
    (i, pos): (usize, Option<usize>),
    update: &Update,
    plan: &Plan,
    scope: &Scope,
    keep: bool,
) -> Result<(bool, Option<Document>)> {
    let id_fixed = plan.id_fixed;
    if plan.all_fit && !keep {
        // One self-validating leaf that cannot reach `_id`: it fails before
        // writing, so nothing needs saving.
        let changed = c.update_in_place(ns, i, id_fixed, |d| update.apply(d, pos, false, scope))?;
        return Ok((changed, None));
    }
    let Some(stored) = c.docs().get(i) else {
        return Err(Error::internal_error("document index out of range"));
    };
    let before = keep.then(|| stored.clone());
    if !plan.operators {
        // Replacements and pipelines build the new document from the stored
        // one, which stays untouched until it is replaced whole.
        let changed = match update.computed(stored, scope)? {
            Some((new, size)) => {
                if size > MAX_DOCUMENT_SIZE {
                    return Err(too_large());
                }
                c.replace(ns, i, new, size)?;
                true
            }
            None => false,
        };
        return Ok((changed, before));
    }
    if let Some(growth) = plan.growth {
        if plan.all_fit || fits_growth(doc_size(stored), growth) {
            let changed =
                c.update_in_place(ns, i, id_fixed, |d| update.apply(d, pos, false, scope))?;
            return Ok((changed, before));
        }
    }
    let fits = |d: &Document| {
        if doc_size(d) > MAX_DOCUMENT_SIZE {
            Err(too_large())
        } else {
            Ok(())
        }
    };
    let changed = c.update_in_place(ns, i, id_fixed, |d| {
        update.apply_stored(d, pos, scope, fits)
    })?;
    Ok((changed, before))
}

/// The document an upsert inserts: the filter's equality fields (only `_id`
/// for a replacement), the update applied as an insert, `_id` first; with
/// its BSON size.
/// https://www.mongodb.com/docs/manual/reference/method/db.collection.updateOne/#upsert
pub fn upsert_document(
    db: &Database,
    filter: &Filter,
    update: &Update,
    scope: &Scope,
) -> Result<(Document, usize)> {
    let mut doc = if update.is_replacement() {
        filter.upsert_replacement_seed()?
    } else {
        filter.upsert_seed()?
    };
    update.apply(&mut doc, None, true, scope)?;
    // The query's equalities (not only the update) may nest the new document.
    if crate::value::size::doc_levels(&doc) > crate::value::size::MAX_DEPTH {
        return Err(crate::value::size::depth_error());
    }
    let bad = match doc.get("_id") {
        Some(Bson::Array(_)) => Some("array"),
        Some(Bson::RegularExpression(_)) => Some("regex"),
        Some(Bson::Undefined) => Some("undefined"),
        _ => None,
    };
    if let Some(t) = bad {
        return Err(Error::invalid_id_field(format!(
            "The '_id' value cannot be of type {t}"
        )));
    }
    let doc = db.prepare_insert(doc)?;
    let size = doc_size(&doc);
    if size > MAX_DOCUMENT_SIZE {
        return Err(Error::location(
            17420,
            format!("Document to upsert is larger than {MAX_DOCUMENT_SIZE}"),
        ));
    }
    Ok((doc, size))
}

/// Delete the targets; returns them with their positional matches.
pub fn delete(
    db: &mut Database,
    coll: &str,
    t: &Target,
    scope: &Scope,
) -> Result<Vec<(Document, Option<usize>)>> {
    check_near_index(db, coll, t)?;
    delete_targets(db, coll, t, scope).map_err(executing(t.command))
}

fn delete_targets(
    db: &mut Database,
    coll: &str,
    t: &Target,
    scope: &Scope,
) -> Result<Vec<(Document, Option<usize>)>> {
    let Some(c) = db.collection(coll) else {
        return Ok(Vec::new());
    };
    let mut targets = find_targets(Some(c), t, scope)?;
    if targets.is_empty() {
        return Ok(Vec::new());
    }
    crate::sorting::sort_by_key(&mut targets, |(i, _)| *i);
    let indexes: Vec<usize> = targets.iter().map(|(i, _)| *i).collect();
    let removed = db.collection_mut(coll).remove_many(&indexes);
    Ok(removed
        .into_iter()
        .zip(targets)
        .map(|(d, (_, pos))| (d, pos))
        .collect())
}

/// updateOne/updateMany/replaceOne's result, as mongosh prints it.
pub fn update_result(w: &Written) -> Bson {
    let mut d = Document::new();
    d.insert("acknowledged", true);
    d.insert("insertedId", w.upserted.clone().unwrap_or(Bson::Null));
    d.insert("matchedCount", count(w.matched));
    d.insert("modifiedCount", count(w.modified));
    d.insert("upsertedCount", count(usize::from(w.upserted.is_some())));
    Bson::Document(d)
}

pub fn count(n: usize) -> Bson {
    super::super::read::count(n)
}

/// A pipeline update under the page's Stages view: when the probe asks for
/// this pipeline, it reports each stage over the documents the update
/// matches (before it writes) and the update runs the stages left on.
/// Any other update is returned as it is.
pub fn probed_update<'u>(
    probe: &mut Option<super::super::stages_view::StageProbe>,
    db: &Database,
    coll: &str,
    t: &Target,
    update: &'u Bson,
    ctx: &crate::expr::CompileCtx,
    scope: &Scope,
) -> Result<std::borrow::Cow<'u, Bson>> {
    let (Bson::Array(stages), Some(_)) = (update, &probe) else {
        return Ok(std::borrow::Cow::Borrowed(update));
    };
    let c = db.collection(coll);
    let docs = c.map_or(&[][..], Collection::docs);
    let matched: Vec<&Document> = find_targets(c, t, scope)
        .map_err(executing(t.command))?
        .into_iter()
        .filter_map(|(i, _)| docs.get(i))
        .collect();
    Ok(
        match super::super::stages_view::probe_update(probe, matched, stages, db, ctx, scope) {
            Some(on) => std::borrow::Cow::Owned(Bson::Array(on)),
            None => std::borrow::Cow::Borrowed(update),
        },
    )
}
