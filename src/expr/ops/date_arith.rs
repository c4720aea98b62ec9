//! `$dateAdd`, `$dateSubtract`, `$dateDiff`, `$dateTrunc`: calendar arithmetic
//! in the local time of the `timezone` argument, as MongoDB's
//! date_time_support.cpp does (units of a day and more keep the local
//! wall-clock time; months clamp to the month's last day; diffs count
//! boundaries crossed; truncation bins are aligned to 2000-01-01 local).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/dateDiff/
use super::date::{days_from_civil, days_in_month, Parts, Zone, MS_PER_DAY};
use super::date_ops::{named_args, TzArg};
use crate::error::{Error, Result};
use crate::expr::compile::Compiler;
use crate::expr::eval::{Cx, Node, Special};
use crate::expr::value::{err, nullish, show, tname, Value};
use bson::{Bson, DateTime};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Unit {
    Year,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Millisecond,
}

impl Unit {
    fn name(self) -> &'static str {
        match self {
            Unit::Year => "year",
            Unit::Quarter => "quarter",
            Unit::Month => "month",
            Unit::Week => "week",
            Unit::Day => "day",
            Unit::Hour => "hour",
            Unit::Minute => "minute",
            Unit::Second => "second",
            Unit::Millisecond => "millisecond",
        }
    }
}

fn parse_unit(v: &Value, op: &str) -> Result<Unit> {
    let Some(Bson::String(s)) = v else {
        return Err(err(
            5439013,
            format!("{op} requires 'unit' to be a string, but got {}", tname(v)),
        ));
    };
    Ok(match s.as_str() {
        "year" => Unit::Year,
        "quarter" => Unit::Quarter,
        "month" => Unit::Month,
        "week" => Unit::Week,
        "day" => Unit::Day,
        "hour" => Unit::Hour,
        "minute" => Unit::Minute,
        "second" => Unit::Second,
        "millisecond" => Unit::Millisecond,
        _ => {
            return Err(Error::failed_to_parse(format!(
                "{op} parameter 'unit' value parsing failed :: caused by :: unknown time unit value: {s}"
            )))
        }
    })
}

/// Day of week number, 1 = Monday .. 7 = Sunday.
fn parse_start_of_week(v: &Value, op: &str) -> Result<i64> {
    let Some(Bson::String(s)) = v else {
        return Err(err(
            5439015,
            format!(
                "{op} requires 'startOfWeek' to be a string, but got {}",
                tname(v)
            ),
        ));
    };
    let n = match s.to_ascii_lowercase().as_str() {
        "monday" | "mon" => 1,
        "tuesday" | "tue" => 2,
        "wednesday" | "wed" => 3,
        "thursday" | "thu" => 4,
        "friday" | "fri" => 5,
        "saturday" | "sat" => 6,
        "sunday" | "sun" => 7,
        _ => {
            return Err(err(
                5439016,
                format!(
                "{op} parameter 'startOfWeek' value cannot be recognized as a day of a week: {s}"
            ),
            ))
        }
    };
    Ok(n)
}

fn add_months(y: i64, m: i64, amount: i64) -> (i64, i64) {
    let total = y * 12 + (m - 1) + amount;
    (total.div_euclid(12), total.rem_euclid(12) + 1)
}

/// Largest |amount| per unit (isDateAddAmountValid).
fn amount_valid(amount: i64, unit: Unit) -> bool {
    let max_days: i64 = (u64::MAX / MS_PER_DAY as u64 + 1) as i64;
    let max_years = max_days / 365 + 1;
    let max = match unit {
        Unit::Year => max_years,
        Unit::Quarter => max_years * 4,
        Unit::Month => max_years * 12,
        Unit::Week => max_days / 7,
        Unit::Day => max_days,
        Unit::Hour => max_days * 24,
        Unit::Minute => max_days * 24 * 60,
        Unit::Second => max_days * 24 * 3600,
        Unit::Millisecond => i64::MAX,
    };
    -max < amount && amount < max
}

fn add_overflow() -> Error {
    err(5166406, "dateAdd overflowed")
}

/// `dateAdd()` of MongoDB.
pub(crate) fn date_add(utc_ms: i64, unit: Unit, amount: i64, zone: &Zone) -> Result<i64> {
    if unit == Unit::Millisecond {
        return utc_ms.checked_add(amount).ok_or_else(add_overflow);
    }
    if !amount_valid(amount, unit) {
        return Err(err(
            5976500,
            format!(
                "invalid dateAdd 'amount' parameter value: {amount} {}",
                unit.name()
            ),
        ));
    }
    let p = Parts::of(utc_ms, zone);
    let time_of_day = p.hour * 3_600_000 + p.minute * 60_000 + p.second * 1000 + p.millis;
    let local_days = days_from_civil(p.year, p.month, p.day);
    let months = match unit {
        Unit::Year => amount.checked_mul(12),
        Unit::Quarter => amount.checked_mul(3),
        Unit::Month => Some(amount),
        _ => None,
    };
    let new_local_days = match (unit, months) {
        (_, Some(months)) => {
            let (ry, rm) = add_months(p.year, p.month, months);
            let day = p.day.min(days_in_month(ry, rm));
            days_from_civil(ry, rm, day)
        }
        (Unit::Week, _) => local_days
            .checked_add(amount.checked_mul(7).ok_or_else(add_overflow)?)
            .ok_or_else(add_overflow)?,
        (Unit::Day, _) => local_days.checked_add(amount).ok_or_else(add_overflow)?,
        _ => {
            // Hours and smaller: plain durations on the instant.
            let per = match unit {
                Unit::Hour => 3_600_000,
                Unit::Minute => 60_000,
                _ => 1000,
            };
            return amount
                .checked_mul(per)
                .and_then(|d| utc_ms.checked_add(d))
                .ok_or_else(add_overflow);
        }
    };
    let local = new_local_days
        .checked_mul(MS_PER_DAY)
        .and_then(|d| d.checked_add(time_of_day))
        .ok_or_else(add_overflow)?;
    Ok(zone.local_to_utc(local))
}

fn local_days(p: &Parts) -> i64 {
    days_from_civil(p.year, p.month, p.day)
}

/// (day of week relative to the start of the week: 0 = first day .. 6)
fn week_day(p: &Parts, start_of_week: i64) -> i64 {
    (p.iso_dow() - start_of_week + 7) % 7
}

/// `dateDiff()` of MongoDB: boundaries of `unit` crossed between two instants.
pub(crate) fn date_diff(start: i64, end: i64, unit: Unit, zone: &Zone, sow: i64) -> Result<i64> {
    if unit == Unit::Millisecond {
        return end
            .checked_sub(start)
            .ok_or_else(|| err(5166308, "dateDiff overflowed"));
    }
    let (a, b) = (Parts::of(start, zone), Parts::of(end, zone));
    let days = local_days(&b) - local_days(&a);
    let hours_raw = b.hour - a.hour + days * 24;
    let minutes_raw = b.minute - a.minute + hours_raw * 60;
    Ok(match unit {
        Unit::Year => b.year - a.year,
        Unit::Quarter => (b.month - 1) / 3 - (a.month - 1) / 3 + (b.year - a.year) * 4,
        Unit::Month => b.month - a.month + (b.year - a.year) * 12,
        // C++ division truncates toward zero.
        Unit::Week => (days + week_day(&a, sow) - week_day(&b, sow)) / 7,
        Unit::Day => days,
        Unit::Hour => hours_raw + (a.offset - b.offset) / 3600,
        Unit::Minute => minutes_raw + (a.offset - b.offset) / 60,
        _ => b.second - a.second + minutes_raw * 60 + (a.offset - b.offset),
    })
}

/// `truncateDate()` of MongoDB.
pub(crate) fn date_trunc(date: i64, unit: Unit, bin: i64, zone: &Zone, sow: i64) -> Result<i64> {
    const REF_UTC: i64 = 946_684_800_000; // 2000-01-01T00:00:00Z
    let overflow = || err(5439000, "dateTrunc overflowed");
    let mut ref_ms = REF_UTC - zone.offset_at(REF_UTC) * 1000;
    let mut ref_day = 1;
    if unit == Unit::Week {
        // 2000-01-01 was a Saturday (6); move to the next start of week.
        let ref_dow = (6 - sow + 7) % 7;
        let adjust = (7 - ref_dow) % 7;
        ref_ms += adjust * MS_PER_DAY;
        ref_day += adjust;
    }
    let per_unit = match unit {
        Unit::Millisecond => Some(1),
        Unit::Second => Some(1000),
        Unit::Minute => Some(60_000),
        Unit::Hour => Some(3_600_000),
        _ => None,
    };
    if let Some(per) = per_unit {
        let size = bin
            .checked_mul(per)
            .ok_or_else(|| err(5439002, "dateTrunc overflowed"))?;
        let shifted = date.checked_sub(ref_ms).ok_or_else(overflow)?;
        return date
            .checked_sub(shifted.rem_euclid(size))
            .ok_or_else(|| err(5439001, "dateTrunc overflowed"));
    }
    if bin > 100_000_000_000 {
        return Err(err(5439006, "dateTrunc unsupported binSize value"));
    }
    let r = Parts::of(ref_ms, zone);
    let r = Parts {
        year: 2000,
        month: 1,
        day: ref_day,
        ..r
    };
    let d = Parts::of(date, zone);
    let distance = match unit {
        Unit::Day => local_days(&d) - local_days(&r),
        Unit::Week => (local_days(&d) - local_days(&r) + week_day(&r, sow) - week_day(&d, sow)) / 7,
        Unit::Month => d.month - r.month + (d.year - r.year) * 12,
        Unit::Quarter => (d.month - 1) / 3 - (r.month - 1) / 3 + (d.year - r.year) * 4,
        _ => d.year - r.year,
    };
    let lower = distance - distance.rem_euclid(bin);
    date_add(ref_ms, unit, lower, zone)
}

fn int_arg(v: &Value) -> Option<i64> {
    v.as_ref().and_then(crate::value::numeric::to_i64_exact)
}

fn date_of(v: &Value) -> Option<i64> {
    v.as_ref().and_then(super::date_ops::coerce_to_date)
}

#[derive(Debug)]
struct DateAdd {
    name: &'static str,
    subtract: bool,
    start: Node,
    unit: Node,
    amount: Node,
    tz: TzArg,
}

impl Special for DateAdd {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let start = cx.eval(&self.start)?;
        if nullish(&start) {
            return Ok(Some(Bson::Null));
        }
        let unit = cx.eval(&self.unit)?;
        if nullish(&unit) {
            return Ok(Some(Bson::Null));
        }
        let unit = parse_unit(&unit, self.name)?;
        let amount = cx.eval(&self.amount)?;
        if nullish(&amount) {
            return Ok(Some(Bson::Null));
        }
        let Some(zone) = self.tz.eval(cx)? else {
            return Ok(Some(Bson::Null));
        };
        let Some(date) = date_of(&start) else {
            return Err(err(
                5166403,
                format!(
                    "{} requires startDate to be convertible to a date",
                    self.name
                ),
            ));
        };
        let Some(mut n) = int_arg(&amount) else {
            return Err(err(
                5166405,
                format!("{} expects integer amount of time units", self.name),
            ));
        };
        if self.subtract {
            n = n.checked_neg().ok_or_else(|| {
                err(
                    6045000,
                    format!("invalid $dateSubtract 'amount' parameter value: {n}"),
                )
            })?;
        }
        Ok(Some(Bson::DateTime(DateTime::from_millis(date_add(
            date, unit, n, &zone,
        )?))))
    }
}

pub(crate) fn c_date_add(name: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let mut args = named_args(
        a,
        c,
        &["startDate", "unit", "amount", "timezone"],
        || err(5166400, format!("{name} expects an object as its argument")),
        |k| err(5166401, format!("Unrecognized argument to {name}: {k}")),
    )?;
    let (Some(start), Some(unit), Some(amount)) = (args[0].take(), args[1].take(), args[2].take())
    else {
        return Err(err(
            5166402,
            format!("{name} requires startDate, unit, and amount to be present"),
        ));
    };
    Ok(Node::Special(Arc::new(DateAdd {
        name,
        subtract: name == "$dateSubtract",
        start,
        unit,
        amount,
        tz: TzArg::compile(args[3].take())?,
    })))
}

#[derive(Debug)]
struct DateDiff {
    start: Node,
    end: Node,
    unit: Node,
    tz: TzArg,
    sow: Option<Node>,
}

/// `startOfWeek` (only read for the week unit); None means null.
fn eval_sow(cx: &mut Cx, sow: &Option<Node>, unit: Unit, op: &str) -> Result<Option<i64>> {
    match sow {
        Some(n) if unit == Unit::Week => {
            let v = cx.eval(n)?;
            if nullish(&v) {
                return Ok(None);
            }
            parse_start_of_week(&v, op).map(Some)
        }
        _ => Ok(Some(7)),
    }
}

fn require_date(v: &Value, op: &str, what: &str) -> Result<i64> {
    date_of(v).ok_or_else(|| {
        err(
            5166307,
            format!("{op} requires '{what}' to be a date, but got {}", tname(v)),
        )
    })
}

impl Special for DateDiff {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let s = cx.eval(&self.start)?;
        if nullish(&s) {
            return Ok(Some(Bson::Null));
        }
        let e = cx.eval(&self.end)?;
        if nullish(&e) {
            return Ok(Some(Bson::Null));
        }
        let u = cx.eval(&self.unit)?;
        if nullish(&u) {
            return Ok(Some(Bson::Null));
        }
        let unit = parse_unit(&u, "$dateDiff")?;
        let Some(sow) = eval_sow(cx, &self.sow, unit, "$dateDiff")? else {
            return Ok(Some(Bson::Null));
        };
        let zone = self.tz.eval(cx).map_err(|e| {
            Error::new(
                e.code,
                e.code_name.clone(),
                format!(
                    "$dateDiff parameter 'timezone' value parsing failed :: caused by :: {}",
                    e.message
                ),
            )
        })?;
        let Some(zone) = zone else {
            return Ok(Some(Bson::Null));
        };
        let start = require_date(&s, "$dateDiff", "startDate")?;
        let end = require_date(&e, "$dateDiff", "endDate")?;
        Ok(Some(Bson::Int64(date_diff(start, end, unit, &zone, sow)?)))
    }
}

pub(crate) fn c_date_diff(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let mut args = named_args(
        a,
        c,
        &["startDate", "endDate", "unit", "timezone", "startOfWeek"],
        || err(5166301, "$dateDiff only supports an object as its argument"),
        |k| err(5166302, format!("Unrecognized argument to $dateDiff: {k}")),
    )?;
    let start = args[0]
        .take()
        .ok_or_else(|| err(5166303, "Missing 'startDate' parameter to $dateDiff"))?;
    let end = args[1]
        .take()
        .ok_or_else(|| err(5166304, "Missing 'endDate' parameter to $dateDiff"))?;
    let unit = args[2]
        .take()
        .ok_or_else(|| err(5166305, "Missing 'unit' parameter to $dateDiff"))?;
    Ok(Node::Special(Arc::new(DateDiff {
        start,
        end,
        unit,
        tz: TzArg::compile(args[3].take())?,
        sow: args[4].take(),
    })))
}

#[derive(Debug)]
struct DateTrunc {
    date: Node,
    unit: Node,
    bin: Option<Node>,
    tz: TzArg,
    sow: Option<Node>,
}

impl Special for DateTrunc {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let d = cx.eval(&self.date)?;
        if nullish(&d) {
            return Ok(Some(Bson::Null));
        }
        let mut bin = 1;
        if let Some(b) = &self.bin {
            let v = cx.eval(b)?;
            if nullish(&v) {
                return Ok(Some(Bson::Null));
            }
            let Some(n) = int_arg(&v) else {
                return Err(err(
                    5439017,
                    format!(
                        "$dateTrunc requires 'binSize' to be a 64-bit integer, but got value '{}' of type {}",
                        show(&v).trim_matches('"'),
                        tname(&v)
                    ),
                ));
            };
            if n <= 0 {
                return Err(err(
                    5439018,
                    format!(
                        "$dateTrunc requires 'binSize' to be greater than 0, but got value {n}"
                    ),
                ));
            }
            bin = n;
        }
        let u = cx.eval(&self.unit)?;
        if nullish(&u) {
            return Ok(Some(Bson::Null));
        }
        let unit = parse_unit(&u, "$dateTrunc")?;
        let Some(sow) = eval_sow(cx, &self.sow, unit, "$dateTrunc")? else {
            return Ok(Some(Bson::Null));
        };
        let Some(zone) = self.tz.eval(cx)? else {
            return Ok(Some(Bson::Null));
        };
        let date = require_date(&d, "$dateTrunc", "date")?;
        let out = date_trunc(date, unit, bin, &zone, sow)?;
        Ok(Some(Bson::DateTime(DateTime::from_millis(out))))
    }
}

pub(crate) fn c_date_trunc(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    // Parse-time codes below are MongoDB's ExpressionDateTrunc::parse ones as far as known.
    let mut args = named_args(
        a,
        c,
        &["date", "unit", "binSize", "timezone", "startOfWeek"],
        || {
            err(
                5439007,
                "$dateTrunc only supports an object as its argument",
            )
        },
        |k| err(5439008, format!("Unrecognized argument to $dateTrunc: {k}")),
    )?;
    let date = args[0]
        .take()
        .ok_or_else(|| err(5439009, "Missing 'date' parameter to $dateTrunc"))?;
    let unit = args[1]
        .take()
        .ok_or_else(|| err(5439010, "Missing 'unit' parameter to $dateTrunc"))?;
    Ok(Node::Special(Arc::new(DateTrunc {
        date,
        unit,
        bin: args[2].take(),
        tz: TzArg::compile(args[3].take())?,
        sow: args[4].take(),
    })))
}
