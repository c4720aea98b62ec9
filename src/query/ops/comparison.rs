//! `$eq $ne $gt $gte $lt $lte $in $nin`: comparisons within a type bracket.
//! See https://www.mongodb.com/docs/manual/reference/operator/query-comparison/
//! and https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/.
use super::evaluation::RegexPred;
use crate::error::{Error, Result};
use crate::value::{compare, type_rank};
use bson::Bson;
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Lt,
    Lte,
    Gt,
    Gte,
}

impl CmpOp {
    pub(crate) fn from_name(op: &str) -> Option<CmpOp> {
        Some(match op {
            "$eq" => CmpOp::Eq,
            "$lt" => CmpOp::Lt,
            "$lte" => CmpOp::Lte,
            "$gt" => CmpOp::Gt,
            "$gte" => CmpOp::Gte,
            _ => return None,
        })
    }

    pub(crate) fn accepts(self, ord: Ordering) -> bool {
        match self {
            CmpOp::Eq => ord == Ordering::Equal,
            CmpOp::Lt => ord == Ordering::Less,
            CmpOp::Lte => ord != Ordering::Greater,
            CmpOp::Gt => ord == Ordering::Greater,
            CmpOp::Gte => ord != Ordering::Less,
        }
    }

    /// Equal values satisfy `$eq`, `$lte` and `$gte`.
    fn includes_equal(self) -> bool {
        matches!(self, CmpOp::Eq | CmpOp::Lte | CmpOp::Gte)
    }
}

/// One comparison against a constant, with the constant's type bracket precomputed.
#[derive(Clone, Debug)]
pub(crate) struct Cmp {
    op: CmpOp,
    rhs: Bson,
    rank: u8,
}

impl Cmp {
    /// The operator and the constant (for the scan columns' numeric test).
    pub(crate) fn parts(&self) -> (CmpOp, &Bson) {
        (self.op, &self.rhs)
    }

    pub(crate) fn new(op: CmpOp, rhs: Bson) -> Result<Cmp> {
        if matches!(rhs, Bson::Undefined) {
            return Err(Error::bad_value("cannot compare to undefined"));
        }
        Ok(Cmp {
            op,
            rank: type_rank(&rhs),
            rhs,
        })
    }

    /// The server's match type (for ordering an `$and`, see `matcher::match_type`).
    pub(crate) fn match_type(&self) -> u8 {
        use crate::query::matcher::match_type::*;
        match self.op {
            CmpOp::Eq => EQ,
            CmpOp::Lt => LT,
            CmpOp::Lte => LTE,
            CmpOp::Gt => GT,
            CmpOp::Gte => GTE,
        }
    }

    /// Inlined into the matcher's per-document path (see `Pred::matches`).
    #[inline(always)]
    pub(crate) fn matches(&self, v: Option<&Bson>) -> bool {
        let Some(e) = v else {
            // A missing field equals null (https://www.mongodb.com/docs/manual/tutorial/query-for-null-fields/);
            // MinKey/MaxKey bound every value, missing included.
            return match self.rhs {
                Bson::Null => self.op.includes_equal(),
                Bson::MinKey | Bson::MaxKey => self.key_bound(),
                _ => false,
            };
        };
        // The hot paths first: values of the rhs's own type (one bracket, so
        // no `type_rank` call), without the generic comparison.
        match (self.op, e, &self.rhs) {
            (CmpOp::Eq, Bson::String(a), Bson::String(b)) => {
                return crate::value::path::same_bytes(a.as_bytes(), b.as_bytes())
                    || crate::collation::equal_if_collated(a, b)
            }
            // Integers of one width: no NaN, no cross-type conversion.
            (_, Bson::Int32(a), Bson::Int32(b)) => return self.op.accepts(a.cmp(b)),
            (_, Bson::Int64(a), Bson::Int64(b)) => return self.op.accepts(a.cmp(b)),
            _ => {}
        }
        if type_rank(e) != self.rank {
            // Different brackets never compare, except against MinKey/MaxKey.
            return matches!(self.rhs, Bson::MinKey | Bson::MaxKey) && self.key_bound();
        }
        match (self.op, e, &self.rhs) {
            (CmpOp::Eq, _, _) => compare(e, &self.rhs) == Ordering::Equal,
            _ => {
                // NaN equals NaN but is neither above nor below any number.
                let (ln, rn) = (is_nan(e), is_nan(&self.rhs));
                if ln || rn {
                    return ln && rn && self.op.includes_equal();
                }
                self.op.accepts(compare(e, &self.rhs))
            }
        }
    }

    /// A value of another bracket against MinKey/MaxKey: above MinKey, below MaxKey.
    fn key_bound(&self) -> bool {
        match self.op {
            CmpOp::Lt | CmpOp::Lte => matches!(self.rhs, Bson::MaxKey),
            CmpOp::Gt | CmpOp::Gte => matches!(self.rhs, Bson::MinKey),
            CmpOp::Eq => false,
        }
    }
}

fn is_nan(v: &Bson) -> bool {
    match v {
        Bson::Double(d) => d.is_nan(),
        Bson::Decimal128(d) => {
            matches!(
                crate::value::numeric::decode_decimal(d),
                crate::value::numeric::Dec::NaN
            )
        }
        _ => false,
    }
}

/// `$in`: a sorted set of values plus regexes. A null in the list also matches
/// a missing field, as `{$eq: null}` does.
#[derive(Clone, Debug)]
pub(crate) struct InSet {
    values: Vec<Bson>,
    regexes: Vec<RegexPred>,
    has_null: bool,
}

impl InSet {
    /// `name` is `$in` or `$nin`, for messages.
    pub(crate) fn compile(name: &str, arg: &Bson) -> Result<InSet> {
        let Bson::Array(items) = arg else {
            return Err(Error::bad_value(format!("{name} needs an array")));
        };
        let mut values = Vec::with_capacity(items.len());
        let mut regexes = Vec::new();
        let mut has_null = false;
        for item in items {
            match item {
                Bson::RegularExpression(re) => regexes.push(RegexPred::compile(
                    re.pattern.as_str(),
                    re.options.as_str(),
                )?),
                Bson::Undefined => {
                    return Err(Error::bad_value(
                        "InMatchExpression equality cannot be undefined",
                    ))
                }
                v if crate::query::filter::is_operator_document(v) => {
                    return Err(Error::bad_value(format!("cannot nest $ under {name}")))
                }
                v => {
                    has_null |= matches!(v, Bson::Null);
                    values.push(v.clone());
                }
            }
        }
        crate::sorting::sort_by(&mut values, compare);
        values.dedup_by(|a, b| compare(a, b) == Ordering::Equal);
        Ok(InSet {
            values,
            regexes,
            has_null,
        })
    }

    /// The server's match type once optimized: a one-value `$in` is an
    /// equality and a one-regex `$in` a regex (InMatchExpression::getOptimizer).
    pub(crate) fn match_type(&self) -> u8 {
        use crate::query::matcher::match_type::*;
        match (self.values.len(), self.regexes.len()) {
            (1, 0) => EQ,
            (0, 1) => REGEX,
            _ => MATCH_IN,
        }
    }

    pub(crate) fn matches(&self, v: Option<&Bson>) -> bool {
        let Some(e) = v else {
            return self.has_null;
        };
        if self
            .values
            .binary_search_by(|probe| compare(probe, e))
            .is_ok()
        {
            return true;
        }
        self.regexes.iter().any(|r| r.matches(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    fn cmp(op: CmpOp, rhs: Bson, v: Option<Bson>) -> bool {
        Cmp::new(op, rhs)
            .map(|c| c.matches(v.as_ref()))
            .unwrap_or(false)
    }

    #[test]
    fn type_brackets() {
        assert!(!cmp(CmpOp::Gt, bson!(5), Some(bson!("a"))));
        assert!(cmp(CmpOp::Gt, bson!(5), Some(bson!(5.5))));
        assert!(cmp(CmpOp::Lt, bson!("b"), Some(bson!("a"))));
        assert!(!cmp(CmpOp::Lt, bson!("b"), Some(bson!(1))));
        // null equals missing; $gte/$lte include it, $gt/$lt do not.
        assert!(cmp(CmpOp::Eq, Bson::Null, None));
        assert!(cmp(CmpOp::Gte, Bson::Null, None));
        assert!(!cmp(CmpOp::Gt, Bson::Null, None));
        assert!(!cmp(CmpOp::Eq, Bson::Null, Some(Bson::Undefined)));
        // MinKey/MaxKey bound every bracket.
        assert!(cmp(CmpOp::Lt, Bson::MaxKey, Some(bson!("x"))));
        assert!(cmp(CmpOp::Gt, Bson::MinKey, Some(bson!({}))));
        assert!(!cmp(CmpOp::Eq, Bson::MaxKey, Some(bson!(1))));
        assert!(cmp(CmpOp::Gte, Bson::MaxKey, Some(Bson::MaxKey)));
        // NaN.
        assert!(cmp(CmpOp::Eq, bson!(f64::NAN), Some(bson!(f64::NAN))));
        assert!(!cmp(CmpOp::Lt, bson!(0), Some(bson!(f64::NAN))));
        assert!(cmp(CmpOp::Lte, bson!(f64::NAN), Some(bson!(f64::NAN))));
    }

    #[test]
    fn in_set() {
        let set =
            InSet::compile("$in", &bson!([3, 1, 2.0, null])).unwrap_or_else(|_| unreachable!());
        assert!(set.matches(Some(&bson!(2))));
        assert!(set.matches(None));
        assert!(!set.matches(Some(&bson!("2"))));
        assert!(InSet::compile("$in", &bson!(1)).is_err());
    }
}
