//! `$bit`: and/or/xor on integers.
//! https://www.mongodb.com/docs/manual/reference/operator/update/bit/
use crate::error::{Error, Result};
use crate::text::shell::type_name;
use bson::Bson;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BitOp {
    And,
    Or,
    Xor,
}

/// Parse `{and: 5, or: NumberLong(2)}` into the operations, in order.
pub fn parse(arg: &Bson) -> Result<Vec<(BitOp, Bson)>> {
    let Bson::Document(d) = arg else {
        return Err(Error::bad_value(format!(
            "The $bit modifier is not compatible with a {}. You must pass in an embedded document: {{$bit: {{field: {{and/or/xor: #}}}}",
            type_name(arg)
        )));
    };
    let mut ops = Vec::new();
    for (k, v) in d {
        let op = match k.as_str() {
            "and" => BitOp::And,
            "or" => BitOp::Or,
            "xor" => BitOp::Xor,
            _ => {
                return Err(Error::bad_value(format!(
                    "The $bit modifier only supports 'and', 'or', and 'xor', not '{k}' which is an unknown operator: {{{}}}",
                    crate::text::server::elem(k, v)
                )))
            }
        };
        if !matches!(v, Bson::Int32(_) | Bson::Int64(_)) {
            return Err(Error::bad_value(format!(
                "The $bit modifier field must be an Integer(32/64 bit); a '{}' is not supported here: {{{}}}",
                type_name(v),
                crate::text::server::elem(k, v)
            )));
        }
        ops.push((op, v.clone()));
    }
    if ops.is_empty() {
        return Err(Error::bad_value(
            "You must pass in at least one bitwise operation. The format is: {$bit: {field: {and/or/xor: #}}",
        ));
    }
    Ok(ops)
}

/// Apply the operations to an integer; int32 with int64 widens to int64.
pub fn apply(ops: &[(BitOp, Bson)], start: &Bson) -> Option<Bson> {
    let mut cur = start.clone();
    for (op, operand) in ops {
        cur = match (&cur, operand) {
            (Bson::Int32(a), Bson::Int32(b)) => {
                Bson::Int32(bitop(*op, i64::from(*a), i64::from(*b)) as i32)
            }
            (Bson::Int32(_) | Bson::Int64(_), Bson::Int32(_) | Bson::Int64(_)) => {
                Bson::Int64(bitop(*op, as_i64(&cur)?, as_i64(operand)?))
            }
            _ => return None,
        };
    }
    Some(cur)
}

fn as_i64(v: &Bson) -> Option<i64> {
    match v {
        Bson::Int32(x) => Some(i64::from(*x)),
        Bson::Int64(x) => Some(*x),
        _ => None,
    }
}

fn bitop(op: BitOp, a: i64, b: i64) -> i64 {
    match op {
        BitOp::And => a & b,
        BitOp::Or => a | b,
        BitOp::Xor => a ^ b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    #[test]
    fn bits() {
        let ops = parse(&bson!({"and": 10})).unwrap_or_default();
        assert_eq!(apply(&ops, &bson!(13)), Some(bson!(8)));
        let ops = parse(&bson!({"or": Bson::Int64(5)})).unwrap_or_default();
        assert_eq!(apply(&ops, &bson!(0)), Some(Bson::Int64(5)));
        assert!(parse(&bson!({"and": 1.0})).is_err());
    }
}
