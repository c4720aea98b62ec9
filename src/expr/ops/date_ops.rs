//! Date operators reading or building dates: the part extractors (`$year` …
//! `$millisecond`, `$week`, ISO weeks), `$dateToParts`, `$dateFromParts`,
//! `$dateAdd/$dateSubtract/$dateDiff/$dateTrunc` are in `date_arith.rs`,
//! `$dateToString`/`$dateFromString` in `date_string.rs`.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/#date-expression-operators
use super::date::{local_ms_from_parts, Parts, Zone};
pub(crate) use super::date_arith::{c_date_add, c_date_diff, c_date_trunc};
pub(crate) use super::date_string::{c_date_from_string, c_date_to_string};
use crate::error::{Error, Result};
use crate::expr::compile::Compiler;
use crate::expr::eval::{Cx, Node, Special};
use crate::expr::value::{err, nullish, show, tname, Value};
use crate::text::server::server_string;
use crate::text::shell::type_name;
use bson::{Bson, DateTime, Document};
use std::sync::Arc;

/// A `timezone` argument: parsed at compile time when constant.
#[derive(Debug)]
pub(crate) enum TzArg {
    Utc,
    Fixed(Zone),
    Dynamic(Node),
}

impl TzArg {
    pub fn compile(n: Option<Node>) -> Result<TzArg> {
        Ok(match n {
            None => TzArg::Utc,
            Some(Node::Const(Bson::String(s))) => TzArg::Fixed(Zone::parse(&s)?),
            Some(other) => TzArg::Dynamic(other),
        })
    }

    /// The zone, or None when the argument is null/missing (the result is then null).
    pub fn eval(&self, cx: &mut Cx) -> Result<Option<Zone>> {
        match self {
            TzArg::Utc => Ok(Some(Zone::Utc)),
            TzArg::Fixed(z) => Ok(Some(*z)),
            TzArg::Dynamic(n) => {
                let v = cx.eval(n)?;
                if nullish(&v) {
                    return Ok(None);
                }
                match v {
                    Some(Bson::String(s)) => Zone::parse(&s).map(Some),
                    other => Err(err(
                        40517,
                        format!(
                            "timezone must evaluate to a string, found {}",
                            tname(&other)
                        ),
                    )),
                }
            }
        }
    }
}

/// `coerceToDate`: dates, timestamps (seconds) and ObjectIds (creation second).
pub(crate) fn coerce_to_date(v: &Bson) -> Option<i64> {
    match v {
        Bson::DateTime(d) => Some(d.timestamp_millis()),
        Bson::Timestamp(t) => Some(i64::from(t.time) * 1000),
        Bson::ObjectId(o) => Some(o.timestamp().timestamp_millis()),
        _ => None,
    }
}

/// A date argument that must be coercible to a date (code 16006 otherwise).
pub(crate) fn date_arg(v: &Bson) -> Result<i64> {
    coerce_to_date(v).ok_or_else(|| {
        err(
            16006,
            format!("can't convert from BSON type {} to Date", type_name(v)),
        )
    })
}

#[derive(Clone, Copy, Debug)]
enum Part {
    Year,
    Month,
    DayOfMonth,
    DayOfWeek,
    DayOfYear,
    Hour,
    Minute,
    Second,
    Millisecond,
    Week,
    IsoWeek,
    IsoWeekYear,
    IsoDayOfWeek,
}

#[derive(Debug)]
struct PartOp {
    part: Part,
    date: Node,
    tz: TzArg,
}

impl Special for PartOp {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let d = cx.eval(&self.date)?;
        if nullish(&d) {
            return Ok(Some(Bson::Null));
        }
        let ms = date_arg(d.as_ref().unwrap_or(&Bson::Null))?;
        let Some(zone) = self.tz.eval(cx)? else {
            return Ok(Some(Bson::Null));
        };
        let p = Parts::of(ms, &zone);
        let int = |x: i64| Bson::Int32(i32::try_from(x).unwrap_or(i32::MAX));
        Ok(Some(match self.part {
            Part::Year => int(p.year),
            Part::Month => int(p.month),
            Part::DayOfMonth => int(p.day),
            Part::DayOfWeek => int(p.dow + 1),
            Part::DayOfYear => int(p.doy),
            Part::Hour => int(p.hour),
            Part::Minute => int(p.minute),
            Part::Second => int(p.second),
            Part::Millisecond => int(p.millis),
            Part::Week => int(p.week()),
            Part::IsoWeek => int(p.iso_week().1),
            // TimeZone::isoYear returns a long long.
            Part::IsoWeekYear => Bson::Int64(p.iso_week().0),
            Part::IsoDayOfWeek => int(p.iso_dow()),
        }))
    }
}

/// `{$year: <date>}`, `{$year: [<date>]}` or `{$year: {date, timezone}}`.
pub(crate) fn c_part(name: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let part = match name {
        "$year" => Part::Year,
        "$month" => Part::Month,
        "$dayOfMonth" => Part::DayOfMonth,
        "$dayOfWeek" => Part::DayOfWeek,
        "$dayOfYear" => Part::DayOfYear,
        "$hour" => Part::Hour,
        "$minute" => Part::Minute,
        "$second" => Part::Second,
        "$millisecond" => Part::Millisecond,
        "$week" => Part::Week,
        "$isoWeek" => Part::IsoWeek,
        "$isoWeekYear" => Part::IsoWeekYear,
        _ => Part::IsoDayOfWeek,
    };
    let (date, tz) = match a {
        Bson::Document(d) if d.keys().next().is_some_and(|k| !k.starts_with('$')) => {
            let (mut date, mut tz) = (None, None);
            for (k, v) in d {
                match k.as_str() {
                    "date" => date = Some(c.operand(v)?),
                    "timezone" => tz = Some(c.operand(v)?),
                    _ => {
                        return Err(err(
                            40535,
                            format!("unrecognized option to {name}: \"{k}\""),
                        ))
                    }
                }
            }
            let date = date.ok_or_else(|| {
                err(
                    40539,
                    format!(
                        "missing 'date' argument to {name}, provided: {name}: {}",
                        server_string(a)
                    ),
                )
            })?;
            (date, tz)
        }
        Bson::Array(items) => {
            if items.len() != 1 {
                return Err(err(
                    40536,
                    format!(
                        "{name} accepts exactly one argument if given an array, but was given {}",
                        items.len()
                    ),
                ));
            }
            (c.operand(&items[0])?, None)
        }
        other => (c.operand(other)?, None),
    };
    Ok(Node::Special(Arc::new(PartOp {
        part,
        date,
        tz: TzArg::compile(tz)?,
    })))
}

/// Named arguments of an object-only operator; unknown names are rejected.
pub(crate) fn named_args(
    a: &Bson,
    c: &mut Compiler,
    allowed: &[&str],
    not_object: impl FnOnce() -> Error,
    unknown: impl Fn(&str) -> Error,
) -> Result<Vec<Option<Node>>> {
    let Bson::Document(d) = a else {
        return Err(not_object());
    };
    let mut out: Vec<Option<Node>> = allowed.iter().map(|_| None).collect();
    for (k, v) in d {
        match allowed.iter().position(|n| n == k) {
            Some(i) => out[i] = Some(c.operand(v)?),
            None => return Err(unknown(k)),
        }
    }
    Ok(out)
}

#[derive(Debug)]
struct ToParts {
    date: Node,
    tz: TzArg,
    iso: Option<Node>,
}

impl Special for ToParts {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let d = cx.eval(&self.date)?;
        let Some(zone) = self.tz.eval(cx)? else {
            return Ok(Some(Bson::Null));
        };
        let iso = match &self.iso {
            None => false,
            Some(n) => {
                let v = cx.eval(n)?;
                if nullish(&v) {
                    return Ok(Some(Bson::Null));
                }
                match v {
                    Some(Bson::Boolean(b)) => b,
                    other => {
                        return Err(err(
                            40521,
                            format!("iso8601 must evaluate to a bool, found {}", tname(&other)),
                        ))
                    }
                }
            }
        };
        if nullish(&d) {
            return Ok(Some(Bson::Null));
        }
        let p = Parts::of(date_arg(d.as_ref().unwrap_or(&Bson::Null))?, &zone);
        let i = |x: i64| Bson::Int32(i32::try_from(x).unwrap_or(i32::MAX));
        let mut out = Document::new();
        if iso {
            let (y, w) = p.iso_week();
            out.insert("isoWeekYear", i(y));
            out.insert("isoWeek", i(w));
            out.insert("isoDayOfWeek", i(p.iso_dow()));
        } else {
            out.insert("year", i(p.year));
            out.insert("month", i(p.month));
            out.insert("day", i(p.day));
        }
        out.insert("hour", i(p.hour));
        out.insert("minute", i(p.minute));
        out.insert("second", i(p.second));
        out.insert("millisecond", i(p.millis));
        Ok(Some(Bson::Document(out)))
    }
}

pub(crate) fn c_date_to_parts(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let mut args = named_args(
        a,
        c,
        &["date", "timezone", "iso8601"],
        || {
            err(
                40524,
                "$dateToParts only supports an object as its argument",
            )
        },
        |k| err(40520, format!("Unrecognized argument to $dateToParts: {k}")),
    )?;
    let date = args[0]
        .take()
        .ok_or_else(|| err(40522, "Missing 'date' parameter to $dateToParts"))?;
    Ok(Node::Special(Arc::new(ToParts {
        date,
        tz: TzArg::compile(args[1].take())?,
        iso: args[2].take(),
    })))
}

#[derive(Debug)]
struct FromParts {
    /// year, month, day, hour, minute, second, millisecond, isoWeekYear, isoWeek, isoDayOfWeek
    parts: Vec<Option<Node>>,
    tz: TzArg,
}

const PART_NAMES: [&str; 10] = [
    "year",
    "month",
    "day",
    "hour",
    "minute",
    "second",
    "millisecond",
    "isoWeekYear",
    "isoWeek",
    "isoDayOfWeek",
];

impl FromParts {
    /// A part's value: its default when absent, None when null/missing; integral
    /// (40515) and, for the bounded parts, within the int16 range (31034).
    fn part(&self, cx: &mut Cx, i: usize, default: i64, bounded: bool) -> Result<Option<i64>> {
        let Some(n) = &self.parts[i] else {
            return Ok(Some(default));
        };
        let v = cx.eval(n)?;
        if nullish(&v) {
            return Ok(None);
        }
        let name = PART_NAMES[i];
        let Some(x) = v.as_ref().and_then(crate::value::numeric::to_i64_exact) else {
            return Err(err(
                40515,
                format!(
                    "'{name}' must evaluate to an integer, found {} with value {}",
                    tname(&v),
                    show(&v)
                ),
            ));
        };
        if bounded && !(-32768..=32767).contains(&x) {
            return Err(err(
                31034,
                format!("'{name}' must evaluate to a value in the range [-32768, 32767]; value {x} is not in range"),
            ));
        }
        Ok(Some(x))
    }
}

impl Special for FromParts {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let (Some(h), Some(mi), Some(s), Some(ms)) = (
            self.part(cx, 3, 0, true)?,
            self.part(cx, 4, 0, true)?,
            self.part(cx, 5, 0, false)?,
            self.part(cx, 6, 0, false)?,
        ) else {
            return Ok(Some(Bson::Null));
        };
        let Some(zone) = self.tz.eval(cx)? else {
            return Ok(Some(Bson::Null));
        };
        let local = if self.parts[0].is_some() {
            let (Some(y), Some(m), Some(d)) = (
                self.part(cx, 0, 1970, false)?,
                self.part(cx, 1, 1, true)?,
                self.part(cx, 2, 1, true)?,
            ) else {
                return Ok(Some(Bson::Null));
            };
            if !(1..=9999).contains(&y) {
                return Err(err(
                    40523,
                    format!("'year' must evaluate to an integer in the range 1 to 9999, found {y}"),
                ));
            }
            local_ms_from_parts(y, m, d, h, mi, s, ms)
        } else {
            let (Some(y), Some(w), Some(d)) = (
                self.part(cx, 7, 1970, false)?,
                self.part(cx, 8, 1, true)?,
                self.part(cx, 9, 1, true)?,
            ) else {
                return Ok(Some(Bson::Null));
            };
            if !(1..=9999).contains(&y) {
                return Err(err(
                    31095,
                    format!(
                        "'isoWeekYear' must evaluate to an integer in the range 1 to 9999, found {y}"
                    ),
                ));
            }
            let days = super::date::days_from_iso(y, w, d);
            let (cy, cm, cd) = super::date::civil_from_days(days);
            local_ms_from_parts(cy, cm, cd, h, mi, s, ms)
        };
        let local = local.ok_or_else(|| super::date::overflow("$dateFromParts"))?;
        Ok(Some(Bson::DateTime(DateTime::from_millis(
            zone.local_to_utc(local),
        ))))
    }
}

pub(crate) fn c_date_from_parts(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let mut names: Vec<&str> = PART_NAMES.to_vec();
    names.push("timezone");
    let mut args = named_args(
        a,
        c,
        &names,
        || {
            err(
                40519,
                "$dateFromParts only supports an object as its argument",
            )
        },
        |k| {
            err(
                40518,
                format!("Unrecognized argument to $dateFromParts: {k}"),
            )
        },
    )?;
    let tz = args.pop().flatten();
    let has = |i: usize| args[i].is_some();
    if !has(0) && !has(7) {
        return Err(err(
            40516,
            "$dateFromParts requires either 'year' or 'isoWeekYear' to be present",
        ));
    }
    if has(0) && (has(7) || has(8) || has(9)) {
        return Err(err(
            40489,
            "$dateFromParts does not allow mixing natural dates with ISO dates",
        ));
    }
    if has(7) && (has(0) || has(1) || has(2)) {
        return Err(err(
            40525,
            "$dateFromParts does not allow mixing ISO dates with natural dates",
        ));
    }
    Ok(Node::Special(Arc::new(FromParts {
        parts: args,
        tz: TzArg::compile(tz)?,
    })))
}
