//! MongoDB's total order over BSON values and the equality derived from it.
//! Used by filters, sort, `$min`/`$max`, `$group` keys and everything else.
//! See https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/
use super::numeric::compare_numbers;
use bson::{Bson, Document};
use std::cmp::Ordering;

/// Canonical type rank: MinKey < undefined < null < numbers < string/symbol
/// < object < array < binData < ObjectId < bool < date < timestamp < regex
/// < DBPointer < code < code with scope < MaxKey (MongoDB's canonicalizeBSONType).
pub fn type_rank(v: &Bson) -> u8 {
    match v {
        Bson::MinKey => 0,
        Bson::Undefined => 1,
        Bson::Null => 2,
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => 3,
        Bson::String(_) | Bson::Symbol(_) => 4,
        Bson::Document(_) => 5,
        Bson::Array(_) => 6,
        Bson::Binary(_) => 7,
        Bson::ObjectId(_) => 8,
        Bson::Boolean(_) => 9,
        Bson::DateTime(_) => 10,
        Bson::Timestamp(_) => 11,
        Bson::RegularExpression(_) => 12,
        Bson::DbPointer(_) => 13,
        Bson::JavaScriptCode(_) => 14,
        Bson::JavaScriptCodeWithScope(_) => 15,
        Bson::MaxKey => 16,
    }
}

/// Total order: by type rank first, then by value within the type; strings
/// by the active collation (`crate::collation`; bytes when simple).
pub fn compare(a: &Bson, b: &Bson) -> Ordering {
    compare_by(a, b, crate::collation::compare_strings)
}

/// The order with strings compared bytewise whatever collation is active:
/// index keys and bounds (an index with a collation stores sort keys).
pub fn compare_binary(a: &Bson, b: &Bson) -> Ordering {
    compare_by(a, b, |x: &str, y: &str| x.as_bytes().cmp(y.as_bytes()))
}

/// How strings compare (generic, so that each order is inlined, not called
/// through a pointer).
trait StrOrder: Fn(&str, &str) -> Ordering + Copy {}
impl<F: Fn(&str, &str) -> Ordering + Copy> StrOrder for F {}

fn compare_by(a: &Bson, b: &Bson, strings: impl StrOrder) -> Ordering {
    let (ra, rb) = (type_rank(a), type_rank(b));
    if ra != rb {
        return ra.cmp(&rb);
    }
    match (a, b) {
        (Bson::String(x) | Bson::Symbol(x), Bson::String(y) | Bson::Symbol(y)) => strings(x, y),
        (Bson::Document(x), Bson::Document(y)) => documents_by(x, y, strings),
        (Bson::Array(x), Bson::Array(y)) => arrays_by(x, y, strings),
        (Bson::Binary(x), Bson::Binary(y)) => x
            .bytes
            .len()
            .cmp(&y.bytes.len())
            .then_with(|| u8::from(x.subtype).cmp(&u8::from(y.subtype)))
            .then_with(|| x.bytes.cmp(&y.bytes)),
        (Bson::ObjectId(x), Bson::ObjectId(y)) => x.bytes().cmp(&y.bytes()),
        (Bson::Boolean(x), Bson::Boolean(y)) => x.cmp(y),
        (Bson::DateTime(x), Bson::DateTime(y)) => x.timestamp_millis().cmp(&y.timestamp_millis()),
        (Bson::Timestamp(x), Bson::Timestamp(y)) => {
            (x.time, x.increment).cmp(&(y.time, y.increment))
        }
        (Bson::RegularExpression(x), Bson::RegularExpression(y)) => x
            .pattern
            .as_str()
            .as_bytes()
            .cmp(y.pattern.as_str().as_bytes())
            .then_with(|| x.options.as_str().cmp(y.options.as_str())),
        (Bson::DbPointer(_), Bson::DbPointer(_)) => Ordering::Equal,
        (Bson::JavaScriptCode(x), Bson::JavaScriptCode(y)) => x.cmp(y),
        (Bson::JavaScriptCodeWithScope(x), Bson::JavaScriptCodeWithScope(y)) => x
            .code
            .cmp(&y.code)
            .then_with(|| documents_by(&x.scope, &y.scope, strings)),
        _ => compare_numbers(a, b).unwrap_or(Ordering::Equal),
    }
}

/// MongoDB equality: numbers by value across types (`1 == 1.0 == NumberLong(1)`),
/// documents field by field in order, arrays element by element.
pub fn equal(a: &Bson, b: &Bson) -> bool {
    compare(a, b) == Ordering::Equal
}

/// Documents compare element by element: type rank, then field name, then value;
/// a document that is a prefix of another is smaller.
pub fn compare_documents(a: &Document, b: &Document) -> Ordering {
    documents_by(a, b, crate::collation::compare_strings)
}

fn documents_by(a: &Document, b: &Document, strings: impl StrOrder) -> Ordering {
    let mut ia = a.iter();
    let mut ib = b.iter();
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some((ka, va)), Some((kb, vb))) => {
                // Field names are compared as bytes under every collation.
                let ord = type_rank(va)
                    .cmp(&type_rank(vb))
                    .then_with(|| ka.as_bytes().cmp(kb.as_bytes()))
                    .then_with(|| compare_by(va, vb, strings));
                if ord != Ordering::Equal {
                    return ord;
                }
            }
        }
    }
}

fn arrays_by(a: &[Bson], b: &[Bson], strings: impl StrOrder) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let ord = compare_by(x, y, strings);
        if ord != Ordering::Equal {
            return ord;
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, doc};

    #[test]
    fn type_order() {
        let ordered = [
            Bson::MinKey,
            Bson::Null,
            bson!(1),
            bson!("a"),
            bson!({}),
            bson!([]),
            Bson::ObjectId(bson::oid::ObjectId::from_bytes([0; 12])),
            bson!(false),
            Bson::DateTime(bson::DateTime::from_millis(0)),
            Bson::MaxKey,
        ];
        for w in ordered.windows(2) {
            assert_eq!(
                compare(&w[0], &w[1]),
                Ordering::Less,
                "{:?} < {:?}",
                w[0],
                w[1]
            );
        }
    }

    #[test]
    fn documents_and_arrays() {
        assert!(equal(&bson!({"a": 1}), &bson!({"a": 1.0})));
        assert!(!equal(&bson!({"a": 1, "b": 2}), &bson!({"b": 2, "a": 1})));
        assert_eq!(
            compare_documents(&doc! {"a": 1}, &doc! {"a": 1, "b": 1}),
            Ordering::Less
        );
        assert_eq!(compare(&bson!([1, 2]), &bson!([1, 3])), Ordering::Less);
        assert_eq!(compare(&bson!("B"), &bson!("a")), Ordering::Less);
    }
}

/// A BSON value ordered by MongoDB's total order, for BTreeMap/BTreeSet keys
/// (`_id` uniqueness, `$group` keys, `distinct`).
#[derive(Clone, Debug)]
pub struct OrdBson(pub Bson);

impl PartialEq for OrdBson {
    fn eq(&self, other: &Self) -> bool {
        equal(&self.0, &other.0)
    }
}
impl Eq for OrdBson {}
impl PartialOrd for OrdBson {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdBson {
    fn cmp(&self, other: &Self) -> Ordering {
        compare(&self.0, &other.0)
    }
}
