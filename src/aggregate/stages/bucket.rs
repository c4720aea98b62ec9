//! `$bucket` (fixed boundaries) and `$bucketAuto` (evenly filled buckets).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/bucket/
//! and https://www.mongodb.com/docs/manual/reference/operator/aggregation/bucketAuto/
use super::granularity::Granularity;
use super::group::Outputs;
use crate::aggregate::operand::Operand;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::text::server::server_string;
use crate::text::shell::{inline, type_name};
use crate::value::{compare, type_rank};
use bson::{Bson, Document};
use std::borrow::Cow;
use std::cmp::Ordering;

/// `groupBy` must be a `$path` or an operator expression.
fn group_by(stage: &str, code: i32, v: &Bson, ctx: &CompileCtx) -> Result<Operand> {
    let ok = match v {
        Bson::String(s) => s.starts_with('$'),
        Bson::Document(d) => d.keys().next().is_some_and(|k| k.starts_with('$')),
        _ => false,
    };
    if !ok {
        return Err(Error::location(
            code,
            format!(
                "The {stage} 'groupBy' field must be defined as a $-prefixed path or an expression{}, but found: {}",
                if stage == "$bucket" { "" } else { " object" },
                inline(v)
            ),
        ));
    }
    Operand::compile(v, ctx)
}

/// `output` (default `{count: {$sum: 1}}`).
fn outputs(stage: &str, v: Option<&Bson>, ctx: &CompileCtx) -> Result<Outputs> {
    match v {
        None => Outputs::compile(
            [("count".to_string(), bson::bson!({"$sum": 1}))]
                .iter()
                .map(|(k, v)| (k, v)),
            ctx,
        ),
        Some(Bson::Document(d)) => Outputs::compile(d.iter(), ctx),
        Some(other) => Err(Error::location(
            if stage == "$bucket" { 40196 } else { 40244 },
            format!(
                "The {stage} 'output' field must be an object, but found type: {}",
                type_name(other)
            ),
        )),
    }
}

#[derive(Clone, Debug)]
pub struct Bucket {
    group_by: Operand,
    boundaries: Vec<Bson>,
    default: Option<Bson>,
    outputs: Outputs,
}

impl Bucket {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<Bucket> {
        let Bson::Document(d) = spec else {
            return Err(Error::location(
                40201,
                format!(
                    "Argument to $bucket stage must be an object, but found type: {}.",
                    type_name(spec)
                ),
            ));
        };
        let (mut gb, mut boundaries, mut default, mut output) = (None, None, None, None);
        for (k, v) in d {
            match k.as_str() {
                "groupBy" => gb = Some(group_by("$bucket", 40202, v, ctx)?),
                "boundaries" => boundaries = Some(v),
                "default" => default = Some(v),
                "output" => output = Some(v),
                other => {
                    return Err(Error::location(
                        40197,
                        format!("Unrecognized option to $bucket: {other}."),
                    ))
                }
            }
        }
        let (Some(group_by), Some(boundaries)) = (gb, boundaries) else {
            return Err(Error::location(
                40198,
                "$bucket requires 'groupBy' and 'boundaries' to be specified.",
            ));
        };
        // Boundaries and the default are constant expressions, folded
        // (document_source_bucket.cpp's getExpressionConstant).
        let constant = |v: &Bson| -> Result<Option<Bson>> {
            crate::expr::Expr::compile(v, ctx)?.fold_constant()
        };
        let Bson::Array(items) = boundaries else {
            return Err(Error::location(
                40200,
                format!(
                    "The $bucket 'boundaries' field must be an array, but found type: {}.",
                    type_name(boundaries)
                ),
            ));
        };
        let mut bounds = Vec::with_capacity(items.len());
        for item in items {
            let Some(v) = constant(item)? else {
                return Err(Error::location(
                    40191,
                    format!(
                        "The $bucket 'boundaries' field must be an array of constant values, but found value: {}.",
                        server_string(item)
                    ),
                ));
            };
            bounds.push(v);
        }
        if bounds.len() < 2 {
            return Err(Error::location(
                40192,
                format!(
                    "The $bucket 'boundaries' field must have at least 2 values, but found {} value(s).",
                    bounds.len()
                ),
            ));
        }
        for w in bounds.windows(2) {
            if type_rank(&w[0]) != type_rank(&w[1]) {
                return Err(Error::location(
                    40193,
                    format!(
                        "All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting types {} and {}.",
                        type_name(&w[0]),
                        type_name(&w[1])
                    ),
                ));
            }
        }
        for (i, w) in bounds.windows(2).enumerate() {
            if compare(&w[0], &w[1]) != Ordering::Less {
                return Err(Error::location(
                    40194,
                    format!(
                        "The 'boundaries' option to $bucket must be sorted, but elements {} and {} are not in ascending order ({} is not less than {}).",
                        i,
                        i + 1,
                        server_string(&w[0]),
                        server_string(&w[1])
                    ),
                ));
            }
        }
        let default = match default {
            Some(d) => Some(constant(d)?.ok_or_else(|| {
                Error::location(
                    40195,
                    format!(
                        "The $bucket 'default' field must be a constant expression, but found: {}.",
                        server_string(d)
                    ),
                )
            })?),
            None => None,
        };
        if let (Some(def), Some(first), Some(last)) = (&default, bounds.first(), bounds.last()) {
            let same_type = type_rank(def) == type_rank(first);
            if same_type
                && compare(def, first) != Ordering::Less
                && compare(def, last) == Ordering::Less
            {
                return Err(Error::location(
                    40199,
                    "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.",
                ));
            }
        }
        Ok(Bucket {
            group_by,
            boundaries: bounds,
            default,
            outputs: outputs("$bucket", output, ctx)?,
        })
    }

    /// Buckets come out sorted by `_id` (MongoDB desugars to `$group` + `$sort`).
    pub fn run<'a, I>(&self, docs: I, scope: &Scope) -> Result<Vec<Document>>
    where
        I: IntoIterator<Item = &'a Document>,
    {
        let n = self.boundaries.len() - 1;
        let mut states: Vec<Option<Vec<crate::aggregate::accumulators::State>>> = vec![None; n + 1];
        for doc in docs {
            let v = self
                .group_by
                .eval(doc, scope)?
                .unwrap_or(Cow::Owned(Bson::Null));
            // The bucket whose [lower, upper) holds v: same type as the boundaries.
            let slot = if type_rank(&v) == type_rank(&self.boundaries[0])
                && compare(&v, &self.boundaries[0]) != Ordering::Less
                && compare(&v, &self.boundaries[n]) == Ordering::Less
            {
                let i = self
                    .boundaries
                    .partition_point(|b| compare(b, &v) != Ordering::Greater);
                i.saturating_sub(1)
            } else if let Some(def) = &self.default {
                let _ = def;
                n
            } else {
                return Err(Error::location(
                    40066,
                    "$switch could not find a matching branch for an input, and no default was specified.",
                ));
            };
            let key = if slot == n {
                self.default.clone().unwrap_or(Bson::Null)
            } else {
                self.boundaries[slot].clone()
            };
            let entry = &mut states[slot];
            if entry.is_none() {
                *entry = Some(self.outputs.start(&key, scope)?);
            }
            if let Some(st) = entry {
                self.outputs.add(st, doc, scope)?;
            }
        }
        let mut out: Vec<(Bson, Document)> = Vec::new();
        for (i, st) in states.into_iter().enumerate() {
            let Some(st) = st else { continue };
            let key = if i == n {
                self.default.clone().unwrap_or(Bson::Null)
            } else {
                self.boundaries[i].clone()
            };
            let mut d = Document::new();
            d.insert("_id", key.clone());
            self.outputs.finish(&st, &mut d);
            out.push((key, d));
        }
        crate::sorting::sort_by(&mut out, |a, b| compare(&a.0, &b.0));
        Ok(out.into_iter().map(|(_, d)| d).collect())
    }
}

#[derive(Clone, Debug)]
pub struct BucketAuto {
    group_by: Operand,
    buckets: usize,
    outputs: Outputs,
    granularity: Option<Granularity>,
}

impl BucketAuto {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<BucketAuto> {
        let Bson::Document(d) = spec else {
            return Err(Error::location(
                40240,
                format!(
                    "The argument to $bucketAuto must be an object, but found type: {}.",
                    type_name(spec)
                ),
            ));
        };
        let (mut gb, mut buckets, mut output, mut granularity) = (None, None, None, None);
        for (k, v) in d {
            match k.as_str() {
                "groupBy" => gb = Some(group_by("$bucketAuto", 40239, v, ctx)?),
                "buckets" => {
                    // Not a number: 40241; a number that is not an int32: 40242
                    // (document_source_bucket_auto.cpp).
                    if !crate::value::numeric::is_number(v) {
                        return Err(Error::location(
                            40241,
                            format!(
                                "The $bucketAuto 'buckets' field must be a numeric value, but found type: {}",
                                type_name(v)
                            ),
                        ));
                    }
                    let exact = crate::value::numeric::to_i64_exact(v)
                        .and_then(|n| i32::try_from(n).ok());
                    let Some(n) = exact else {
                        return Err(Error::location(
                            40242,
                            format!(
                                "The $bucketAuto 'buckets' field must be representable as a 32-bit integer, but found {}",
                                crate::value::numeric::to_f64(v).unwrap_or(f64::NAN)
                            ),
                        ));
                    };
                    if n <= 0 {
                        return Err(Error::location(
                            40243,
                            format!("The $bucketAuto 'buckets' field must be greater than 0, but found: {n}"),
                        ));
                    }
                    buckets = Some(n as usize);
                }
                "output" => output = Some(v),
                "granularity" => match v {
                    Bson::String(s) => granularity = Some(Granularity::parse(s)?),
                    other => {
                        return Err(Error::location(
                            40261,
                            format!(
                                "The $bucketAuto 'granularity' field must be a string, but found type: {}",
                                type_name(other)
                            ),
                        ))
                    }
                },
                other => {
                    return Err(Error::location(
                        40245,
                        format!("Unrecognized option to $bucketAuto: {other}."),
                    ))
                }
            }
        }
        let (Some(group_by), Some(buckets)) = (gb, buckets) else {
            return Err(Error::location(
                40246,
                "$bucketAuto requires 'groupBy' and 'buckets' to be specified",
            ));
        };
        Ok(BucketAuto {
            group_by,
            buckets,
            outputs: outputs("$bucketAuto", output, ctx)?,
            granularity,
        })
    }

    /// MongoDB's algorithm (document_source_bucket_auto.cpp): sort by key,
    /// fill buckets of round(n / buckets) documents, extend a bucket over equal
    /// keys, and make each bucket's max the next bucket's min.
    pub fn run<'a, I>(&self, docs: I, scope: &Scope) -> Result<Vec<Document>>
    where
        I: IntoIterator<Item = &'a Document>,
    {
        let mut keyed: Vec<(Bson, &Document)> = Vec::new();
        for doc in docs {
            let key = self
                .group_by
                .eval(doc, scope)?
                .map_or(Bson::Null, Cow::into_owned);
            if self.granularity.is_some() {
                Granularity::check(&key)?;
            }
            keyed.push((key, doc));
        }
        crate::sorting::sort_by(&mut keyed, |a, b| compare(&a.0, &b.0));
        let total = keyed.len();
        if total == 0 {
            return Ok(Vec::new());
        }
        let approx = ((total as f64 / self.buckets as f64).round() as usize).max(1);
        let mut out = Vec::new();
        let mut i = 0;
        let mut bucket_num = 0;
        let mut prev_max: Option<Bson> = None;
        let empty = Bson::Null;
        while i < total && bucket_num < self.buckets {
            bucket_num += 1;
            let last_bucket = bucket_num == self.buckets;
            let first_key = keyed[i].0.clone();
            let mut min = first_key.clone();
            if let Some(g) = &self.granularity {
                min = prev_max.clone().unwrap_or_else(|| g.round_down(&first_key));
            }
            let mut states = self.outputs.start(&empty, scope)?;
            let mut max = first_key;
            let mut taken = 0;
            while i < total && (taken < approx || last_bucket) {
                self.outputs.add(&mut states, keyed[i].1, scope)?;
                max = keyed[i].0.clone();
                i += 1;
                taken += 1;
            }
            match &self.granularity {
                Some(g) => {
                    let boundary = g.round_up(&max);
                    while i < total
                        && (compare(&boundary, &keyed[i].0) == Ordering::Greater
                            || compare(&max, &keyed[i].0) == Ordering::Equal)
                    {
                        self.outputs.add(&mut states, keyed[i].1, scope)?;
                        i += 1;
                    }
                    let current = crate::value::numeric::to_f64(&boundary).unwrap_or(0.0);
                    max = if current == 0.0 && i < total {
                        g.round_down(&keyed[i].0)
                    } else {
                        boundary
                    };
                }
                None => {
                    while i < total && compare(&max, &keyed[i].0) == Ordering::Equal {
                        self.outputs.add(&mut states, keyed[i].1, scope)?;
                        i += 1;
                    }
                    if i < total {
                        max = keyed[i].0.clone();
                    }
                }
            }
            prev_max = Some(max.clone());
            let mut d = Document::new();
            let mut id = Document::new();
            id.insert("min", min);
            id.insert("max", max);
            d.insert("_id", id);
            self.outputs.finish(&states, &mut d);
            out.push(d);
        }
        Ok(out)
    }
}
