//! The server's "binary equal" test: what decides whether a write modified
//! anything (a byte-equal result is a no-op), unlike MongoDB equality (`order`).
use bson::{Bson, Document};

/// Same type, same value, same field order: what `binaryEqual` means.
pub fn identical(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Double(x), Bson::Double(y)) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        (Bson::Document(x), Bson::Document(y)) => identical_docs(x, y),
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| identical(a, b))
        }
        _ => a == b,
    }
}

pub fn identical_docs(x: &Document, y: &Document) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y.iter())
            .all(|((ka, va), (kb, vb))| ka == kb && identical(va, vb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    #[test]
    fn types_and_order_count() {
        assert!(!identical(&bson!(1), &bson!(1.0)));
        assert!(identical(&bson!({"a": [1]}), &bson!({"a": [1]})));
        assert!(!identical(
            &bson!({"a": 1, "b": 2}),
            &bson!({"b": 2, "a": 1})
        ));
        assert!(identical(&bson!(f64::NAN), &bson!(f64::NAN)));
    }
}
