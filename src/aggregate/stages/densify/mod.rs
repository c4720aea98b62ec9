//! `$densify`: add documents for the missing steps of a numeric or date
//! field. MongoDB desugars it to a `$sort` and a streaming state machine
//! (document_source_densify.cpp) whose exact output we reproduce by running
//! the same machine over the sorted documents.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/densify/
use crate::aggregate::path::FieldPath;
use crate::aggregate::pipeline::Docs;
use crate::aggregate::window::bounds::TimeUnit;
use crate::error::{Error, Result};
use crate::query::sort::SortSpec;
use crate::text::shell::type_name;
use crate::value::{compare, numeric::is_number};
use bson::{Bson, Document};
use std::cmp::Ordering;

mod machine;

#[derive(Clone, Debug)]
enum Bounds {
    Full,
    Partition,
    /// Boxed: two `Bson`s would make every `Bounds` that large.
    Explicit(Box<(Bson, Bson)>),
}

#[derive(Clone, Debug)]
pub struct Densify {
    field: FieldPath,
    partitions: Vec<FieldPath>,
    step: Bson,
    unit: Option<TimeUnit>,
    bounds: Bounds,
    sort: SortSpec,
}

fn missing(what: &str) -> Error {
    Error::location(
        40414,
        format!("BSON field '{what}' is missing but a required field"),
    )
}

impl Densify {
    pub fn compile(spec: &Bson) -> Result<Densify> {
        let Bson::Document(d) = spec else {
            return Err(Error::failed_to_parse(format!(
                "The $densify stage specification must be an object, found {}",
                type_name(spec)
            )));
        };
        let (mut field, mut partitions, mut range) = (None, Vec::new(), None);
        for (k, v) in d {
            match (k.as_str(), v) {
                ("field", Bson::String(s)) => {
                    if s.starts_with('$') {
                        return Err(Error::location(
                            16410,
                            "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
                        ));
                    }
                    field = Some(FieldPath::parse(s)?)
                }
                ("partitionByFields", Bson::Array(items)) => {
                    for i in items {
                        match i {
                            Bson::String(s) if !s.starts_with('$') => partitions.push(FieldPath::parse(s)?),
                            Bson::String(_) => {
                                return Err(Error::location(
                                    16410,
                                    "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
                                ))
                            }
                            other => {
                                return Err(Error::type_mismatch(format!(
                                    "BSON field '$densify.partitionByFields' is the wrong type '{}', expected type 'string'",
                                    type_name(other)
                                )))
                            }
                        }
                    }
                }
                ("range", Bson::Document(r)) => range = Some(r),
                ("field" | "partitionByFields" | "range", other) => {
                    return Err(Error::type_mismatch(format!(
                        "BSON field '$densify.{k}' is the wrong type '{}'",
                        type_name(other)
                    )))
                }
                (other, _) => {
                    return Err(Error::location(
                        40415,
                        format!("BSON field '$densify.{other}' is an unknown field."),
                    ))
                }
            }
        }
        let field = field.ok_or_else(|| missing("$densify.field"))?;
        // The densified field may not be a partition field, nor lie inside or
        // around one (document_source_densify.cpp; the server's
        // densify/libs/parse_util.js checks 8993000 and 9554500).
        let densified = field.dotted();
        for p in partitions.iter().map(FieldPath::dotted) {
            let (p, field) = (&p, &densified);
            if p == field || crate::value::path::is_path_prefix(field, p) {
                return Err(Error::location(
                    8993000,
                    format!("partitionByFields '{p}' cannot include field '{field}' that is being densified."),
                ));
            }
            if crate::value::path::is_path_prefix(p, field) {
                return Err(Error::location(
                    9554500,
                    format!("field '{field}' that is being densified cannot be inside partitionByFields '{p}'."),
                ));
            }
        }
        let range = range.ok_or_else(|| missing("$densify.range"))?;
        let (mut step, mut unit, mut bounds) = (None, None, None);
        for (k, v) in range {
            match k.as_str() {
                "step" => step = Some(v.clone()),
                "unit" => match v {
                    Bson::String(s) => unit = Some(TimeUnit::parse(s)?),
                    other => {
                        return Err(Error::type_mismatch(format!(
                        "BSON field 'range.unit' is the wrong type '{}', expected type 'string'",
                        type_name(other)
                    )))
                    }
                },
                "bounds" => bounds = Some(v),
                other => {
                    return Err(Error::location(
                        40415,
                        format!("BSON field 'range.{other}' is an unknown field."),
                    ))
                }
            }
        }
        let step = step.ok_or_else(|| missing("range.step"))?;
        let bounds = bounds.ok_or_else(|| missing("range.bounds"))?;
        if !is_number(&step) || compare(&step, &Bson::Int32(0)) != Ordering::Greater {
            return Err(Error::location(
                5733401,
                "the step parameter in a range statement must be a strictly positive numeric value",
            ));
        }
        if unit.is_some() && crate::value::numeric::to_i64_exact(&step).is_none() {
            return Err(Error::location(
                6586400,
                "The step parameter in a range satement must be a whole number when densifying a date range",
            ));
        }
        let bounds = match bounds {
            Bson::String(s) if s == "full" => Bounds::Full,
            Bson::String(s) if s == "partition" => Bounds::Partition,
            Bson::String(_) => {
                return Err(Error::location(
                    5946802,
                    "Bounds string must either be 'full' or 'partition'",
                ))
            }
            Bson::Array(items) => {
                if items.len() != 2 {
                    return Err(Error::location(
                        5733403,
                        "A bounding array in a range statement must have exactly two elements",
                    ));
                }
                let (lo, hi) = (&items[0], &items[1]);
                if compare(lo, hi) == Ordering::Greater {
                    return Err(Error::location(
                        5733402,
                        "A bounding array must be an ascending array of either two dates or two numbers",
                    ));
                }
                if is_number(lo) {
                    if unit.is_some() {
                        return Err(Error::location(5733409, "Numeric bounds may not have unit parameter"));
                    }
                    if !is_number(hi) {
                        return Err(Error::location(
                            5733406,
                            "A bounding array must contain either both dates or both numeric types",
                        ));
                    }
                    if std::mem::discriminant(lo) != std::mem::discriminant(hi)
                        || std::mem::discriminant(lo) != std::mem::discriminant(&step)
                    {
                        return Err(Error::location(
                            5876900,
                            "Upper bound, lower bound, and step must all have the same type",
                        ));
                    }
                } else if matches!(lo, Bson::DateTime(_)) {
                    if !matches!(hi, Bson::DateTime(_)) {
                        return Err(Error::location(
                            5733405,
                            "A bounding array must contain either both dates or both numeric types",
                        ));
                    }
                    if unit.is_none() {
                        return Err(Error::location(5733410, "A bounding array of dates must specify a unit"));
                    }
                } else {
                    return Err(Error::location(5946800, "Explicit bounds must be numeric or dates"));
                }
                Bounds::Explicit(Box::new((lo.clone(), hi.clone())))
            }
            _ => {
                return Err(Error::location(
                    5733404,
                    "The bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates",
                ))
            }
        };
        if matches!(bounds, Bounds::Partition) && partitions.is_empty() {
            return Err(Error::location(
                5733408,
                "One cannot specify the bounds as 'partition' without specifying a non-empty array of partitionByFields. You may have meant to specify 'full' bounds.",
            ));
        }
        // The sort MongoDB inserts: partition fields (except for "full"), then the field.
        let mut sort_doc = Document::new();
        if !matches!(bounds, Bounds::Full) {
            for p in &partitions {
                sort_doc.insert(p.dotted(), 1);
            }
        }
        sort_doc.insert(field.dotted(), 1);
        Ok(Densify {
            field,
            partitions,
            step,
            unit,
            bounds,
            sort: SortSpec::compile(&sort_doc)?,
        })
    }

    pub fn run(&self, mut docs: Docs<'_>) -> Result<Vec<Document>> {
        crate::sorting::sort_by(&mut docs, |a, b| self.sort.compare(a, b));
        let mut m = machine::Machine::new(self);
        for doc in docs {
            // Each document may be preceded by many generated ones: the run's memory budget.
            crate::budget::check()?;
            m.next(doc.into_owned())?;
        }
        m.exhausted()?;
        crate::budget::check()?;
        Ok(m.into_out())
    }

    fn value_of(&self, doc: &Document) -> Result<Option<Bson>> {
        let v = match self.field.get_plain(doc) {
            None | Some(Bson::Null | Bson::Undefined) => return Ok(None),
            Some(v) => v.clone(),
        };
        match (&v, self.unit) {
            (Bson::DateTime(_), Some(_)) => Ok(Some(v)),
            (Bson::DateTime(_), None) => Err(Error::location(
                5733501,
                "Encountered date densify value in collection when step does not have a date unit",
            )),
            (x, None) if is_number(x) => Ok(Some(v)),
            (x, Some(_)) if is_number(x) => Err(Error::location(
                5733506,
                "Encountered non-date densify value in collection when step has a date unit",
            )),
            _ => Err(Error::location(
                5733201,
                format!(
                    "Densify field type must be numeric or a date, found {}",
                    type_name(&v)
                ),
            )),
        }
    }

    fn partition_doc(&self, doc: &Document) -> Document {
        let mut out = Document::new();
        for p in &self.partitions {
            if let Some(v) = p.get_plain(doc) {
                p.set(&mut out, v.clone());
            }
        }
        out
    }

    fn increment(&self, v: &Bson, sign: i64) -> Bson {
        match (v, self.unit) {
            (Bson::DateTime(d), Some(u)) => {
                let n = crate::value::numeric::to_i64_exact(&self.step).unwrap_or(1) * sign;
                u.add(*d, n).map_or(v.clone(), Bson::DateTime)
            }
            _ => add_numbers(v, &self.step, sign),
        }
    }

    fn on_step(&self, v: &Bson, base: &Bson) -> bool {
        match (v, base, self.unit) {
            (Bson::DateTime(a), Bson::DateTime(b), Some(u)) => {
                let step = crate::value::numeric::to_i64_exact(&self.step).unwrap_or(1);
                match u.millis() {
                    Some(ms) => (a.timestamp_millis() - b.timestamp_millis()) % (ms * step) == 0,
                    None => {
                        let mut d = *b;
                        while d.timestamp_millis() < a.timestamp_millis() {
                            match u.add(d, step) {
                                Some(n) => d = n,
                                None => return false,
                            }
                        }
                        d.timestamp_millis() == a.timestamp_millis()
                    }
                }
            }
            _ => {
                let (Some(a), Some(b), Some(s)) = (
                    crate::value::numeric::to_f64(v),
                    crate::value::numeric::to_f64(base),
                    crate::value::numeric::to_f64(&self.step),
                ) else {
                    return false;
                };
                (a - b) % s == 0.0
            }
        }
    }
}

/// `a + sign * b` with `$add`'s result types (int, long, double).
fn add_numbers(a: &Bson, b: &Bson, sign: i64) -> Bson {
    match (a, b) {
        (Bson::Int32(x), Bson::Int32(y)) => {
            let r = i64::from(*x) + sign * i64::from(*y);
            i32::try_from(r).map_or(Bson::Int64(r), Bson::Int32)
        }
        (Bson::Int32(_) | Bson::Int64(_), Bson::Int32(_) | Bson::Int64(_)) => {
            let (x, y) = (
                crate::value::numeric::to_i64_exact(a).unwrap_or(0),
                crate::value::numeric::to_i64_exact(b).unwrap_or(0),
            );
            x.checked_add(sign * y)
                .map_or(Bson::Double(x as f64 + (sign * y) as f64), Bson::Int64)
        }
        _ => Bson::Double(
            crate::value::numeric::to_f64(a).unwrap_or(0.0)
                + sign as f64 * crate::value::numeric::to_f64(b).unwrap_or(0.0),
        ),
    }
}
