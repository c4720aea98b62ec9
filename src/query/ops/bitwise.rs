//! `$bitsAllSet $bitsAnySet $bitsAllClear $bitsAnyClear`.
//! See https://www.mongodb.com/docs/manual/reference/operator/query-bitwise/.
use crate::error::{Error, Result};
use crate::text::shell::inline;
use bson::Bson;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BitOp {
    AllSet,
    AllClear,
    AnySet,
    AnyClear,
}

#[derive(Clone, Debug)]
pub(crate) struct Bits {
    op: BitOp,
    /// Positions above 63 test the sign bit: numbers are sign-extended.
    mask: u64,
    positions: Vec<u32>,
}

impl Bits {
    pub(crate) fn compile(name: &str, arg: &Bson) -> Result<Bits> {
        let op = match name {
            "$bitsAllSet" => BitOp::AllSet,
            "$bitsAllClear" => BitOp::AllClear,
            "$bitsAnySet" => BitOp::AnySet,
            _ => BitOp::AnyClear,
        };
        let mut positions = Vec::new();
        let mut mask = 0u64;
        match arg {
            Bson::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let Some(p) = crate::value::numeric::to_i64_exact(item) else {
                        return Err(Error::bad_value(format!(
                            "bit positions must be an integer but got: {i}: {}",
                            inline(item)
                        )));
                    };
                    if p < 0 {
                        return Err(Error::bad_value(format!(
                            "bit positions must be >= 0 but got: {i}: {}",
                            inline(item)
                        )));
                    }
                    let p = u32::try_from(p).unwrap_or(u32::MAX);
                    mask |= 1u64 << p.min(63);
                    positions.push(p);
                }
            }
            Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
                let Some(m) = crate::value::numeric::to_i64_exact(arg) else {
                    return Err(Error::failed_to_parse(format!(
                        "Expected an integer: {name}: {}",
                        inline(arg)
                    )));
                };
                if m < 0 {
                    return Err(Error::failed_to_parse(format!(
                        "Expected a positive number in: {name}: {}",
                        inline(arg)
                    )));
                }
                mask = m as u64;
                positions = (0..64).filter(|b| mask & (1u64 << b) != 0).collect();
            }
            Bson::Binary(bin) => {
                for (byte, b) in bin.bytes.iter().enumerate() {
                    if *b == 0 {
                        continue;
                    }
                    if byte < 8 {
                        mask |= u64::from(*b) << (byte * 8);
                    } else {
                        mask |= 1u64 << 63;
                    }
                    for bit in 0..8u32 {
                        if b & (1 << bit) != 0 {
                            positions.push(8 * byte as u32 + bit);
                        }
                    }
                }
            }
            _ => {
                return Err(Error::bad_value(format!(
                    "{name} takes an Array, a number, or a BinData but received: {name}: {}",
                    inline(arg)
                )))
            }
        }
        Ok(Bits {
            op,
            mask,
            positions,
        })
    }

    /// The server's match type (for ordering an `$and`, see `matcher::match_type`).
    pub(crate) fn match_type(&self) -> u8 {
        use crate::query::matcher::match_type::*;
        match self.op {
            BitOp::AllSet => BITS_ALL_SET,
            BitOp::AllClear => BITS_ALL_CLEAR,
            BitOp::AnySet => BITS_ANY_SET,
            BitOp::AnyClear => BITS_ANY_CLEAR,
        }
    }

    pub(crate) fn matches(&self, v: &Bson) -> bool {
        let n: i64 = match v {
            Bson::Binary(bin) => return self.test_bytes(&bin.bytes),
            Bson::Int32(i) => i64::from(*i),
            Bson::Int64(i) => *i,
            // Only integral doubles that fit in 64 bits.
            Bson::Double(d) => match crate::value::numeric::to_i64_exact(v) {
                Some(i) if !d.is_nan() => i,
                _ => return false,
            },
            Bson::Decimal128(_) => match crate::value::numeric::to_i64_exact(v) {
                Some(i) => i,
                None => return false,
            },
            _ => return false,
        };
        let n = n as u64;
        match self.op {
            BitOp::AllSet => n & self.mask == self.mask,
            BitOp::AllClear => !n & self.mask == self.mask,
            BitOp::AnySet => n & self.mask != 0,
            BitOp::AnyClear => !n & self.mask != 0,
        }
    }

    /// BinData is zero-extended; bit 0 is the lowest bit of the first byte.
    fn test_bytes(&self, bytes: &[u8]) -> bool {
        let is_set = |p: u32| {
            let byte = (p / 8) as usize;
            bytes.get(byte).is_some_and(|b| b & (1 << (p % 8)) != 0)
        };
        match self.op {
            BitOp::AllSet => self.positions.iter().all(|&p| is_set(p)),
            BitOp::AllClear => self.positions.iter().all(|&p| !is_set(p)),
            BitOp::AnySet => self.positions.iter().any(|&p| is_set(p)),
            BitOp::AnyClear => self.positions.iter().any(|&p| !is_set(p)),
        }
    }
}
