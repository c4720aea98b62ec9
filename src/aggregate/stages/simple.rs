//! Small stages: `$limit`, `$skip`, `$replaceRoot`/`$replaceWith`, `$sample`,
//! `$documents`.
use crate::aggregate::operand::Operand;
use crate::context::RunCtx;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use crate::text::shell::{inline, type_name};
use bson::{Bson, Document};

/// `$limit`/`$skip` arguments: MongoDB's parseIntegerElementToNonNegativeLong.
fn non_negative(stage: &str, code: i32, v: &Bson) -> Result<u64> {
    // The server shows the element as BSONElement::toString does: strings in double quotes.
    let shown = match v {
        Bson::String(s) => format!("{stage}: \"{s}\""),
        other => format!("{stage}: {}", inline(other)),
    };
    let err =
        |what: &str| Error::location(code, format!("invalid argument to {stage} stage: {what}"));
    let n = match v {
        Bson::Int32(i) => i64::from(*i),
        Bson::Int64(i) => *i,
        Bson::Double(_) | Bson::Decimal128(_) => {
            let Some(f) = crate::value::numeric::to_f64(v) else {
                return Err(err(&format!("Expected a number in: {shown}")));
            };
            if f.fract() != 0.0 || f.is_nan() {
                return Err(err(&format!("Expected an integer: {shown}")));
            }
            if f.abs() >= 9.223_372_036_854_776e18 {
                return Err(err(&format!(
                    "Cannot represent as a 64-bit integer: {shown}"
                )));
            }
            f as i64
        }
        _ => return Err(err(&format!("Expected a number in: {shown}"))),
    };
    u64::try_from(n).map_err(|_| err(&format!("Expected a non-negative number in: {shown}")))
}

pub fn limit(v: &Bson) -> Result<usize> {
    let n = non_negative("$limit", 5107201, v)?;
    if n == 0 {
        return Err(Error::location(15958, "the limit must be positive"));
    }
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

pub fn skip(v: &Bson) -> Result<usize> {
    let n = non_negative("$skip", 5107200, v)?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

/// `$replaceRoot: {newRoot: <expr>}` and `$replaceWith: <expr>`.
#[derive(Clone, Debug)]
pub struct ReplaceRoot {
    new_root: Operand,
}

impl ReplaceRoot {
    pub fn from_replace_root(spec: &Bson, ctx: &CompileCtx) -> Result<ReplaceRoot> {
        let Bson::Document(d) = spec else {
            return Err(Error::location(
                40229,
                format!(
                    "expected an object as specification for $replaceRoot stage, got {}",
                    type_name(spec)
                ),
            ));
        };
        let mut new_root = None;
        for (k, v) in d {
            if k == "newRoot" {
                new_root = Some(Operand::compile(v, ctx)?);
            } else {
                return Err(Error::location(
                    40415,
                    format!("BSON field '$replaceRoot.{k}' is an unknown field."),
                ));
            }
        }
        let new_root = new_root.ok_or_else(|| {
            Error::location(
                40414,
                "BSON field '$replaceRoot.newRoot' is missing but a required field",
            )
        })?;
        Ok(ReplaceRoot { new_root })
    }

    pub fn from_replace_with(spec: &Bson, ctx: &CompileCtx) -> Result<ReplaceRoot> {
        Ok(ReplaceRoot {
            new_root: Operand::compile(spec, ctx)?,
        })
    }

    pub fn apply(&self, doc: &Document, scope: &Scope) -> Result<Document> {
        match self.new_root.eval(doc, scope)? {
            Some(v) => match v.into_owned() {
                Bson::Document(d) => Ok(d),
                other => Err(Error::location(
                    40228,
                    format!(
                        "'newRoot' expression must evaluate to an object, but resulting value was: {}. Type of resulting value: '{}'. Input document: {}",
                        inline(&other),
                        type_name(&other),
                        inline(&Bson::Document(doc.clone()))
                    ),
                )),
            },
            None => Err(Error::location(
                40228,
                format!(
                    "'newRoot' expression must evaluate to an object, but resulting value was: MISSING. Type of resulting value: 'missing'. Input document: {}",
                    inline(&Bson::Document(doc.clone()))
                ),
            )),
        }
    }
}

/// `$sample: {size: n}`.
pub fn sample_size(spec: &Bson) -> Result<usize> {
    let Bson::Document(d) = spec else {
        return Err(Error::location(
            28745,
            "the $sample stage specification must be an object",
        ));
    };
    let mut size = None;
    for (k, v) in d {
        if k != "size" {
            return Err(Error::location(
                28748,
                format!("unrecognized option to $sample: {k}"),
            ));
        }
        let Some(n) = crate::value::numeric::to_f64(v) else {
            return Err(Error::location(
                28746,
                "size argument to $sample must be a number",
            ));
        };
        // The size is truncated to an integer, which must be at least 1 since
        // 8.1 (0 returned nothing before; the manual: "N >= 1"; server jstests
        // sources/sample/agg_sample.js).
        let n = if n.is_nan() { 0.0 } else { n.trunc() };
        if n < 1.0 {
            return Err(Error::location(
                28747,
                "size argument to $sample must be a positive integer",
            ));
        }
        size = Some(n as usize);
    }
    size.ok_or_else(|| Error::location(28749, "$sample stage must specify a size"))
}

/// `$sample`'s stream of the run's random sequence.
const SAMPLE_STREAM: u64 = 0x5bd1_e995_9e37_79b9;

/// Pick `size` items in random order (a partial Fisher-Yates shuffle).
pub fn sample<T>(mut items: Vec<T>, size: usize, run: &RunCtx) -> Vec<T> {
    let mut rng = run.random(SAMPLE_STREAM);
    let n = items.len();
    let take = size.min(n);
    for i in 0..take {
        let j = i + rng.below(n - i);
        items.swap(i, j);
    }
    items.truncate(take);
    items
}

/// `$documents: <array expression>`.
pub fn documents(spec: &Bson, ctx: &CompileCtx) -> Result<Operand> {
    Operand::compile(spec, ctx)
}

pub fn documents_eval(op: &Operand, scope: &Scope) -> Result<Vec<Document>> {
    let empty = Document::new();
    match op.eval(&empty, scope)?.map(|v| v.into_owned()) {
        Some(Bson::Array(items)) => items
            .into_iter()
            .map(|i| match i {
                Bson::Document(d) => Ok(d),
                other => Err(Error::type_mismatch(format!(
                    "$documents expects an array of objects, found {}",
                    type_name(&other)
                ))),
            })
            .collect(),
        _ => Err(Error::location(5858203, "an array is expected")),
    }
}
