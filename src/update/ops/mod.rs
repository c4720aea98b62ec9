//! Update operators: what each leaf of the update tree does to the value at
//! its path (existing) or where the path is missing (create).
//! https://www.mongodb.com/docs/manual/reference/operator/update/
pub mod array;
pub mod bit;
pub mod fields;

use super::display::{self, ID_MARK};
use super::path::Trail;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::text::shell::type_name;
use crate::value::compare;
use crate::value::identical::identical;
use crate::value::numeric::is_number;
use crate::value::size::nesting;
use array::{PullMatcher, Push};
use bit::BitOp;
use bson::{Bson, Timestamp};
use fields::Arith;
use std::cmp::Ordering;

/// The update modifiers MongoDB 8.0 knows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OpKind {
    Set,
    SetOnInsert,
    Unset,
    Inc,
    Mul,
    Min,
    Max,
    CurrentDate,
    Rename,
    Push,
    AddToSet,
    Pop,
    Pull,
    PullAll,
    Bit,
}

impl OpKind {
    pub fn from_name(name: &str) -> Option<OpKind> {
        Some(match name {
            "$set" => OpKind::Set,
            "$setOnInsert" => OpKind::SetOnInsert,
            "$unset" => OpKind::Unset,
            "$inc" => OpKind::Inc,
            "$mul" => OpKind::Mul,
            "$min" => OpKind::Min,
            "$max" => OpKind::Max,
            "$currentDate" => OpKind::CurrentDate,
            "$rename" => OpKind::Rename,
            "$push" => OpKind::Push,
            "$addToSet" => OpKind::AddToSet,
            "$pop" => OpKind::Pop,
            "$pull" => OpKind::Pull,
            "$pullAll" => OpKind::PullAll,
            "$bit" => OpKind::Bit,
            _ => return None,
        })
    }
}

/// A compiled leaf operation.
#[derive(Clone, Debug)]
pub enum Op {
    Set(Bson),
    SetOnInsert(Bson),
    Unset,
    Arith(Arith, Bson),
    Min(Bson),
    Max(Bson),
    CurrentDate {
        timestamp: bool,
    },
    /// `$rename` at its destination; the value comes from the pre-pass.
    RenameTo {
        slot: usize,
    },
    /// `$rename` at its source: holds the path for conflict detection only.
    RenameFrom,
    /// Boxed: `$push`'s modifiers would make every leaf operation that large.
    Push(Box<Push>),
    AddToSet(Vec<Bson>),
    Pop {
        front: bool,
    },
    /// Boxed, as `Push`: a compiled condition.
    Pull(Box<PullMatcher>),
    PullAll(Vec<Bson>),
    Bit(Vec<(BitOp, Bson)>),
}

/// What a leaf did to an existing value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Effect {
    NoOp,
    Modified,
    /// Remove the field (`$unset` on a document field).
    Remove,
}

/// Run-time state shared by the leaves of one application.
pub struct Ctx<'a> {
    pub position: Option<usize>,
    pub inserting: bool,
    pub scope: &'a Scope<'a>,
    pub filters: &'a [super::compile::ArrayFilter],
    /// Values taken from `$rename` sources, by rename slot.
    pub renamed: Vec<Option<Bson>>,
}

impl Op {
    /// Compile one `path: argument` of a modifier (not `$rename`).
    pub fn parse(kind: OpKind, path: &str, arg: &Bson, ctx: &CompileCtx) -> Result<Op> {
        Ok(match kind {
            OpKind::Set => Op::Set(arg.clone()),
            OpKind::SetOnInsert => Op::SetOnInsert(arg.clone()),
            OpKind::Unset => Op::Unset,
            OpKind::Inc | OpKind::Mul => {
                let op = if kind == OpKind::Inc {
                    Arith::Add
                } else {
                    Arith::Mul
                };
                if !is_number(arg) {
                    return Err(Error::type_mismatch(format!(
                        "Cannot {} with non-numeric argument: {{{}}}",
                        op.verb(),
                        crate::text::server::elem(path, arg)
                    )));
                }
                Op::Arith(op, arg.clone())
            }
            OpKind::Min => Op::Min(arg.clone()),
            OpKind::Max => Op::Max(arg.clone()),
            OpKind::CurrentDate => Op::CurrentDate {
                timestamp: parse_current_date(arg)?,
            },
            OpKind::Push => Op::Push(Box::new(Push::parse(arg)?)),
            OpKind::AddToSet => Op::AddToSet(array::parse_add_to_set(arg)?),
            OpKind::Pop => {
                let n = array::integer_arg(path, arg)?;
                if n != 1 && n != -1 {
                    return Err(Error::failed_to_parse(format!(
                        "$pop expects 1 or -1, found: {n}"
                    )));
                }
                Op::Pop { front: n == -1 }
            }
            OpKind::Pull => Op::Pull(Box::new(PullMatcher::parse(arg, ctx)?)),
            OpKind::PullAll => match arg {
                Bson::Array(items) => Op::PullAll(items.clone()),
                other => {
                    return Err(Error::bad_value(format!(
                        "$pullAll requires an array argument but was given a {}",
                        type_name(other)
                    )))
                }
            },
            OpKind::Bit => Op::Bit(bit::parse(arg)?),
            OpKind::Rename => Op::RenameFrom,
        })
    }

    /// Whether applying at a missing path would create it.
    pub fn creates(&self, ctx: &Ctx) -> bool {
        match self {
            Op::SetOnInsert(_) => ctx.inserting,
            Op::RenameTo { slot } => ctx.renamed.get(*slot).is_some_and(Option::is_some),
            Op::Unset | Op::RenameFrom | Op::Pop { .. } | Op::Pull(_) | Op::PullAll(_) => false,
            _ => true,
        }
    }

    /// Container levels the written value can add below the leaf (`None`: unknown).
    pub fn nesting_bound(&self) -> Option<usize> {
        match self {
            Op::Set(v) | Op::SetOnInsert(v) | Op::Min(v) | Op::Max(v) => Some(nesting(v)),
            Op::Push(p) => Some(p.nesting()),
            Op::AddToSet(vals) => Some(1 + vals.iter().map(nesting).max().unwrap_or(0)),
            Op::RenameTo { .. } => None,
            _ => Some(0),
        }
    }

    /// Apply to the existing value at `at`. Validates before mutating, so a
    /// failing leaf leaves the value untouched.
    pub fn update(
        &self,
        v: &mut Bson,
        in_array: bool,
        at: &Trail,
        ctx: &mut Ctx,
    ) -> Result<Effect> {
        use Effect::*;
        Ok(match self {
            Op::Set(x) => set(v, x),
            Op::SetOnInsert(x) => {
                if ctx.inserting {
                    set(v, x)
                } else {
                    NoOp
                }
            }
            Op::Unset => {
                if in_array {
                    *v = Bson::Null;
                    Modified
                } else {
                    Remove
                }
            }
            Op::Arith(op, x) => {
                if !is_number(v) {
                    return Err(Error::type_mismatch(format!(
                        "Cannot apply {} to a value of non-numeric type. {{{ID_MARK}}} has the field '{}' of non-numeric type {}",
                        op.modifier(),
                        at.name(),
                        type_name(v)
                    )));
                }
                let Some(r) = fields::arith(*op, v, x) else {
                    return Err(Error::bad_value(format!(
                        "Failed to apply {} operations to current value ({}) for document {{{ID_MARK}}}",
                        op.modifier(),
                        display::safe_num_str(v)
                    )));
                };
                set_owned(v, r)
            }
            Op::Min(x) => {
                if compare(x, v) == Ordering::Less {
                    set(v, x)
                } else {
                    NoOp
                }
            }
            Op::Max(x) => {
                if compare(x, v) == Ordering::Greater {
                    set(v, x)
                } else {
                    NoOp
                }
            }
            Op::CurrentDate { timestamp } => {
                // The server always reports $currentDate as a modification.
                *v = now_value(*timestamp, ctx);
                Modified
            }
            Op::RenameTo { slot } => match ctx.renamed.get_mut(*slot).and_then(Option::take) {
                Some(x) => set_owned(v, x),
                None => NoOp,
            },
            Op::RenameFrom => NoOp,
            Op::Push(p) => match v {
                Bson::Array(a) => {
                    if p.apply(a) {
                        Modified
                    } else {
                        NoOp
                    }
                }
                other => {
                    return Err(Error::bad_value(format!(
                        "The field '{}' must be an array but is of type {} in document {{{ID_MARK}}}",
                        at.dotted(),
                        type_name(other)
                    )))
                }
            },
            Op::AddToSet(vals) => match v {
                Bson::Array(a) => {
                    if array::add_to_set(a, vals) {
                        Modified
                    } else {
                        NoOp
                    }
                }
                other => {
                    return Err(Error::bad_value(format!(
                        "Cannot apply $addToSet to non-array field. Field named '{}' has non-array type {}",
                        at.name(),
                        type_name(other)
                    )))
                }
            },
            Op::Pop { front } => match v {
                Bson::Array(a) if a.is_empty() => NoOp,
                Bson::Array(a) => {
                    if *front {
                        a.remove(0);
                    } else {
                        a.pop();
                    }
                    Modified
                }
                other => {
                    return Err(Error::type_mismatch(format!(
                        "Path '{}' contains an element of non-array type '{}'",
                        at.dotted(),
                        type_name(other)
                    )))
                }
            },
            Op::Pull(m) => match v {
                Bson::Array(a) => {
                    let scope = ctx.scope;
                    if array::cull(a, |e| m.matches(e, scope))? {
                        Modified
                    } else {
                        NoOp
                    }
                }
                _ => return Err(Error::bad_value("Cannot apply $pull to a non-array value")),
            },
            Op::PullAll(vals) => match v {
                Bson::Array(a) => {
                    if array::cull(a, |e| Ok(vals.iter().any(|x| crate::value::equal(e, x))))? {
                        Modified
                    } else {
                        NoOp
                    }
                }
                _ => return Err(Error::bad_value("Cannot apply $pull to a non-array value")),
            },
            Op::Bit(ops) => {
                let r = match v {
                    Bson::Int32(_) | Bson::Int64(_) => bit::apply(ops, v),
                    _ => None,
                };
                let Some(r) = r else {
                    return Err(Error::bad_value(format!(
                        "Cannot apply $bit to a value of non-integral type.{ID_MARK} has the field {} of non-integer type {}",
                        at.name(),
                        type_name(v)
                    )));
                };
                set_owned(v, r)
            }
        })
    }

    /// The value to store where the path is missing (`None`: leave it missing).
    pub fn create(&self, ctx: &mut Ctx) -> Result<Option<Bson>> {
        Ok(match self {
            Op::Set(x) | Op::Min(x) | Op::Max(x) => Some(x.clone()),
            Op::SetOnInsert(x) => ctx.inserting.then(|| x.clone()),
            Op::Arith(Arith::Add, x) => Some(x.clone()),
            Op::Arith(Arith::Mul, x) => Some(fields::zero_like(x)),
            Op::CurrentDate { timestamp } => Some(now_value(*timestamp, ctx)),
            Op::RenameTo { slot } => ctx.renamed.get_mut(*slot).and_then(Option::take),
            Op::Push(p) => {
                let mut a = Vec::new();
                p.apply(&mut a);
                Some(Bson::Array(a))
            }
            Op::AddToSet(vals) => Some(Bson::Array(vals.clone())),
            Op::Bit(ops) => bit::apply(ops, &Bson::Int32(0)),
            Op::Unset | Op::RenameFrom | Op::Pop { .. } | Op::Pull(_) | Op::PullAll(_) => None,
        })
    }
}

fn set(v: &mut Bson, x: &Bson) -> Effect {
    if identical(v, x) {
        Effect::NoOp
    } else {
        *v = x.clone();
        Effect::Modified
    }
}

fn set_owned(v: &mut Bson, x: Bson) -> Effect {
    // Arithmetic's usual result, compared inline (`identical` is a call
    // per document, then Bson's derived comparison another).
    let same = match (&*v, &x) {
        (Bson::Int32(a), Bson::Int32(b)) => a == b,
        (Bson::Int64(a), Bson::Int64(b)) => a == b,
        _ => identical(v, &x),
    };
    if same {
        Effect::NoOp
    } else {
        *v = x;
        Effect::Modified
    }
}

fn now_value(timestamp: bool, ctx: &Ctx) -> Bson {
    let now = ctx.scope.run.now;
    if timestamp {
        let secs = now.timestamp_millis().div_euclid(1000);
        Bson::Timestamp(Timestamp {
            time: u32::try_from(secs).unwrap_or(0),
            increment: 1,
        })
    } else {
        Bson::DateTime(now)
    }
}

/// `$currentDate: {f: true}` or `{f: {$type: "date" | "timestamp"}}`; true = timestamp.
fn parse_current_date(arg: &Bson) -> Result<bool> {
    match arg {
        Bson::Boolean(_) => Ok(false),
        Bson::Document(d) => {
            let mut found = None;
            for (k, v) in d {
                if k != "$type" {
                    return Err(Error::bad_value(format!(
                        "Unrecognized $currentDate option: {k}"
                    )));
                }
                match v {
                    Bson::String(s) if s == "date" => found = Some(false),
                    Bson::String(s) if s == "timestamp" => found = Some(true),
                    _ => {}
                }
            }
            found.ok_or_else(|| {
                Error::bad_value(
                    "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}",
                )
            })
        }
        other => Err(Error::bad_value(format!(
            "{} is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({{$type: 'timestamp/date'}}).",
            type_name(other)
        ))),
    }
}
