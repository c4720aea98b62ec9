//! `$dateToString` and `$dateFromString`.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/dateToString/
use super::date::{format_date, validate_to_string_format, Zone};
use super::date_ops::{date_arg, named_args, TzArg};
use super::date_parse::parse_date_string;
use crate::error::{Error, Result};
use crate::expr::compile::Compiler;
use crate::expr::eval::{Cx, Node, Special};
use crate::expr::value::{err, nullish, show, tname, Value};
use crate::text::shell::type_name;
use bson::Bson;
use std::sync::Arc;

#[derive(Debug)]
struct ToString {
    date: Node,
    format: Option<Node>,
    tz: TzArg,
    on_null: Option<Node>,
}

impl Special for ToString {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let d = cx.eval(&self.date)?;
        let mut format = None;
        let mut null_format = false;
        if let Some(f) = &self.format {
            let fv = cx.eval(f)?;
            if nullish(&fv) {
                null_format = true;
            } else if let Some(Bson::String(s)) = fv {
                validate_to_string_format(&s)?;
                format = Some(s);
            } else {
                return Err(err(
                    18533,
                    format!(
                        "$dateToString requires that 'format' be a string, found: {} with value {}",
                        tname(&fv),
                        show(&fv)
                    ),
                ));
            }
        }
        let zone = self.tz.eval(cx)?;
        if nullish(&d) {
            return match &self.on_null {
                Some(n) => cx.eval(n),
                None => Ok(Some(Bson::Null)),
            };
        }
        let Some(zone) = zone else {
            return Ok(Some(Bson::Null));
        };
        if null_format {
            return Ok(Some(Bson::Null));
        }
        let ms = date_arg(d.as_ref().unwrap_or(&Bson::Null))?;
        let fmt = format.unwrap_or_else(|| {
            if zone.is_utc() {
                "%Y-%m-%dT%H:%M:%S.%LZ".to_string()
            } else {
                "%Y-%m-%dT%H:%M:%S.%L".to_string()
            }
        });
        Ok(Some(Bson::String(format_date(&fmt, ms, &zone)?)))
    }
}

pub(crate) fn c_date_to_string(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let mut args = named_args(
        a,
        c,
        &["date", "format", "timezone", "onNull"],
        || {
            err(
                18629,
                "$dateToString only supports an object as its argument",
            )
        },
        |k| {
            err(
                18534,
                format!("Unrecognized argument to $dateToString: {k}"),
            )
        },
    )?;
    let date = args[0]
        .take()
        .ok_or_else(|| err(18628, "Missing 'date' parameter to $dateToString"))?;
    if let Some(Node::Const(Bson::String(f))) = &args[1] {
        validate_to_string_format(f)?;
    }
    Ok(Node::Special(Arc::new(ToString {
        date,
        format: args[1].take(),
        tz: TzArg::compile(args[2].take())?,
        on_null: args[3].take(),
    })))
}

#[derive(Debug)]
struct FromString {
    string: Node,
    format: Option<Node>,
    tz: TzArg,
    tz_given: bool,
    on_null: Option<Node>,
    on_error: Option<Node>,
}

impl FromString {
    fn convert(
        &self,
        cx: &mut Cx,
        s: &Value,
        format: Option<&str>,
        zone: Option<Zone>,
    ) -> Result<Value> {
        let Some(Bson::String(text)) = s else {
            return Err(Error::conversion_failure(format!(
                "$dateFromString requires that 'dateString' be a string, found: {} with value {}",
                tname(s),
                show(s)
            )));
        };
        let Some(zone) = zone else {
            return Ok(Some(Bson::Null));
        };
        let _ = cx;
        let z = if self.tz_given { Some(&zone) } else { None };
        parse_date_string(text, z, format).map(|d| Some(Bson::DateTime(d)))
    }
}

impl Special for FromString {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let s = cx.eval(&self.string)?;
        let mut format: Option<String> = None;
        let mut null_format = false;
        if let Some(f) = &self.format {
            let fv = cx.eval(f)?;
            if nullish(&fv) {
                null_format = true;
            } else if let Some(Bson::String(fs)) = fv {
                super::date::validate_format(&fs, super::date::FROM_STRING_SPECS)?;
                format = Some(fs);
            } else {
                return Err(err(
                    40684,
                    format!(
                        "$dateFromString requires that 'format' be a string, found: {} with value {}",
                        tname(&fv),
                        show(&fv)
                    ),
                ));
            }
        }
        let zone = self.tz.eval(cx)?;
        if nullish(&s) {
            return match &self.on_null {
                Some(n) => cx.eval(n),
                None => Ok(Some(Bson::Null)),
            };
        }
        let result = if null_format && matches!(s, Some(Bson::String(_))) && zone.is_some() {
            Ok(Some(Bson::Null))
        } else {
            self.convert(cx, &s, format.as_deref(), zone)
        };
        match result {
            Err(e) if e.code == 241 => match &self.on_error {
                Some(n) => cx.eval(n),
                None => Err(e),
            },
            other => other,
        }
    }
}

pub(crate) fn c_date_from_string(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let mut args = named_args(
        a,
        c,
        &["dateString", "format", "timezone", "onNull", "onError"],
        || {
            err(
                40540,
                format!(
                    "$dateFromString only supports an object as an argument, found: {}",
                    type_name(a)
                ),
            )
        },
        |k| {
            err(
                40541,
                format!("Unrecognized argument to $dateFromString: {k}"),
            )
        },
    )?;
    let string = args[0]
        .take()
        .ok_or_else(|| err(40542, "Missing 'dateString' parameter to $dateFromString"))?;
    let tz_node = args[2].take();
    Ok(Node::Special(Arc::new(FromString {
        string,
        format: args[1].take(),
        tz_given: tz_node.is_some(),
        tz: TzArg::compile(tz_node)?,
        on_null: args[3].take(),
        on_error: args[4].take(),
    })))
}
