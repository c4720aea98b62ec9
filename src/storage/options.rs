//! A collection's options: its validator (with `validationLevel` and
//! `validationAction`), capped limits and time-series fields, as
//! `createCollection` and `collMod` set them and `listCollections` reports
//! them. https://www.mongodb.com/docs/manual/reference/command/create/
use crate::error::{Error, Result};
use crate::expr::CompileCtx;
use crate::query::Filter;
use bson::{Bson, Document};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Level {
    #[default]
    Strict,
    Moderate,
    Off,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Action {
    #[default]
    Error,
    Warn,
}

/// A validator as written and compiled.
#[derive(Clone, Debug)]
pub struct Validator {
    pub spec: Document,
    pub filter: Filter,
}

/// A capped collection's limits: bytes (as the server rounds them) and documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capped {
    pub size: i64,
    pub max: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeSeries {
    pub time_field: String,
    pub meta_field: Option<String>,
    pub granularity: &'static str,
    pub bucket_max_span_seconds: i32,
}

#[derive(Clone, Debug, Default)]
pub struct CollectionOptions {
    pub validator: Option<Validator>,
    /// Whether `validationLevel`/`validationAction` were given (reported only then).
    pub level: Option<Level>,
    pub action: Option<Action>,
    pub capped: Option<Capped>,
    pub timeseries: Option<TimeSeries>,
}

fn enum_error(command: &str, field: &str, v: &Bson) -> Error {
    match v {
        Bson::String(s) => Error::bad_value(format!(
            "Enumeration value '{s}' for field '{command}.{field}' is not a valid value."
        )),
        other => Error::type_mismatch(format!(
            "BSON field '{command}.{field}' is the wrong type '{}', expected type 'string'",
            crate::text::shell::type_name(other)
        )),
    }
}

pub fn parse_level(command: &str, v: &Bson) -> Result<Level> {
    match v.as_str() {
        Some("strict") => Ok(Level::Strict),
        Some("moderate") => Ok(Level::Moderate),
        Some("off") => Ok(Level::Off),
        _ => Err(enum_error(command, "validationLevel", v)),
    }
}

pub fn parse_action(command: &str, v: &Bson) -> Result<Action> {
    match v.as_str() {
        Some("error") => Ok(Action::Error),
        Some("warn") => Ok(Action::Warn),
        _ => Err(enum_error(command, "validationAction", v)),
    }
}

/// Compile a `validator` (an object; `$jsonSchema` and query operators).
pub fn parse_validator(command: &str, v: &Bson) -> Result<Validator> {
    let Bson::Document(spec) = v else {
        return Err(Error::type_mismatch(format!(
            "BSON field '{command}.validator' is the wrong type '{}', expected type 'object'",
            crate::text::shell::type_name(v)
        )));
    };
    let filter = Filter::compile(spec, &CompileCtx::default())?;
    Ok(Validator {
        spec: spec.clone(),
        filter,
    })
}

/// A whole number option (`size`, `max`, `bucketMaxSpanSeconds`).
pub fn number(command: &str, field: &str, v: &Bson) -> Result<i64> {
    let n = match v {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Some(*x as i64),
        Bson::Decimal128(_) => v.to_string().parse::<f64>().ok().map(|x| x as i64),
        _ => None,
    };
    n.ok_or_else(|| {
        Error::type_mismatch(format!(
            "BSON field '{command}.{field}' is the wrong type '{}', expected types '[long, int, decimal, double]'",
            crate::text::shell::type_name(v)
        ))
    })
}

/// The server's capped size: at least 4096 bytes, else rounded up to a multiple of 256.
pub fn capped_size(requested: i64) -> i64 {
    if requested <= 4096 {
        4096
    } else {
        (requested + 255) / 256 * 256
    }
}

/// The seconds a bucket spans for each granularity (timeseries.idl).
pub fn bucket_span(granularity: &str) -> Option<i32> {
    match granularity {
        "seconds" => Some(3600),
        "minutes" => Some(86_400),
        "hours" => Some(2_592_000),
        _ => None,
    }
}

pub fn parse_timeseries(v: &Bson) -> Result<TimeSeries> {
    let Bson::Document(d) = v else {
        return Err(Error::type_mismatch(format!(
            "BSON field 'create.timeseries' is the wrong type '{}', expected type 'object'",
            crate::text::shell::type_name(v)
        )));
    };
    let string = |field: &str, v: &Bson| -> Result<String> {
        v.as_str().map(str::to_string).ok_or_else(|| {
            Error::type_mismatch(format!(
                "BSON field 'TimeseriesOptions.{field}' is the wrong type '{}', expected type 'string'",
                crate::text::shell::type_name(v)
            ))
        })
    };
    let (mut time_field, mut meta_field, mut granularity) = (None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "timeField" => time_field = Some(string(k, v)?),
            "metaField" => meta_field = Some(string(k, v)?),
            "granularity" => {
                let g = string(k, v)?;
                let known = ["seconds", "minutes", "hours"];
                let Some(g) = known.into_iter().find(|n| *n == g) else {
                    return Err(Error::bad_value(format!(
                        "Enumeration value '{g}' for field 'TimeseriesOptions.granularity' is not a valid value."
                    )));
                };
                granularity = Some(g);
            }
            "bucketMaxSpanSeconds" | "bucketRoundingSeconds" => {
                return Err(Error::not_supported(format!("the timeseries option '{k}'")))
            }
            other => {
                return Err(Error::location(
                    40415,
                    format!("BSON field 'TimeseriesOptions.{other}' is an unknown field."),
                ))
            }
        }
    }
    let Some(time_field) = time_field else {
        return Err(Error::location(
            40414,
            "BSON field 'TimeseriesOptions.timeField' is missing but a required field",
        ));
    };
    if let Some(meta) = &meta_field {
        if *meta == time_field {
            return Err(Error::invalid_options(
                "The 'metaField' cannot be the same as the 'timeField'",
            ));
        }
        if meta == "_id" {
            return Err(Error::invalid_options("The 'metaField' cannot be \"_id\""));
        }
    }
    for f in std::iter::once(&time_field).chain(meta_field.as_ref()) {
        if f.contains('.') || f.starts_with('$') {
            return Err(Error::invalid_options(format!(
                "The '{}' field cannot contain '.' or start with '$'",
                if *f == time_field {
                    "timeField"
                } else {
                    "metaField"
                }
            )));
        }
    }
    let granularity = granularity.unwrap_or("seconds");
    Ok(TimeSeries {
        time_field,
        meta_field,
        granularity,
        bucket_max_span_seconds: bucket_span(granularity).unwrap_or(3600),
    })
}

impl CollectionOptions {
    pub fn is_plain(&self) -> bool {
        self.validator.is_none()
            && self.level.is_none()
            && self.action.is_none()
            && self.capped.is_none()
            && self.timeseries.is_none()
    }

    /// The `options` document `listCollections` reports, in the server's field order.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        if let Some(c) = &self.capped {
            d.insert("capped", true);
            d.insert("size", number_value(c.size));
            if let Some(max) = c.max {
                d.insert("max", number_value(max));
            }
        }
        if let Some(v) = &self.validator {
            d.insert("validator", v.spec.clone());
        }
        if let Some(level) = self.level {
            let name = match level {
                Level::Strict => "strict",
                Level::Moderate => "moderate",
                Level::Off => "off",
            };
            d.insert("validationLevel", name);
        }
        if let Some(action) = self.action {
            let name = match action {
                Action::Error => "error",
                Action::Warn => "warn",
            };
            d.insert("validationAction", name);
        }
        if let Some(ts) = &self.timeseries {
            let mut t = Document::new();
            t.insert("timeField", ts.time_field.clone());
            if let Some(m) = &ts.meta_field {
                t.insert("metaField", m.clone());
            }
            t.insert("granularity", ts.granularity);
            t.insert("bucketMaxSpanSeconds", ts.bucket_max_span_seconds);
            d.insert("timeseries", t);
        }
        d
    }
}

/// BSONObjBuilder::appendNumber: an int while it fits in 30 bits, else a long.
fn number_value(n: i64) -> Bson {
    match i32::try_from(n) {
        Ok(small) if n.abs() < 1 << 30 => Bson::Int32(small),
        _ => Bson::Int64(n),
    }
}
