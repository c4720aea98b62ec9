//! Property tests: `mqlplay::value::compare` is a total order (reflexive,
//! antisymmetric, transitive) over random BSON values, mixed numeric types
//! included, and `equal` agrees with it.
#![cfg(not(target_arch = "wasm32"))]

use bson::{Bson, Decimal128, Document};
use mqlplay::value::{compare, equal};
use proptest::prelude::*;
use std::cmp::Ordering;
use std::str::FromStr;

fn number() -> impl Strategy<Value = Bson> {
    prop_oneof![
        (-5i32..5).prop_map(Bson::Int32),
        any::<i32>().prop_map(Bson::Int32),
        (-5i64..5).prop_map(Bson::Int64),
        prop_oneof![
            Just(i64::MAX),
            Just(i64::MIN),
            Just((1i64 << 53) + 1),
            Just(1i64 << 53)
        ]
        .prop_map(Bson::Int64),
        (-5.0f64..5.0).prop_map(Bson::Double),
        (-5i32..5).prop_map(|i| Bson::Double(f64::from(i))),
        prop_oneof![
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(-0.0),
            Just(9_007_199_254_740_992.0),
            Just(9.3e18)
        ]
        .prop_map(Bson::Double),
        prop_oneof![
            Just("0"),
            Just("-0"),
            Just("1.0"),
            Just("2.5"),
            Just("-3"),
            Just("NaN"),
            Just("Infinity"),
            Just("-Infinity"),
            Just("9007199254740993")
        ]
        .prop_filter_map("decimal", |s| Decimal128::from_str(s)
            .ok()
            .map(Bson::Decimal128)),
    ]
}

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        4 => number(),
        1 => Just(Bson::Null),
        1 => Just(Bson::MinKey),
        1 => Just(Bson::MaxKey),
        1 => any::<bool>().prop_map(Bson::Boolean),
        2 => "[a-c]{0,3}".prop_map(Bson::String),
        1 => (-3i64..3).prop_map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms))),
    ]
}

fn value() -> impl Strategy<Value = Bson> {
    scalar().prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Bson::Array),
            prop::collection::vec(("[ab]", inner), 0..3).prop_map(|fields| {
                let mut d = Document::new();
                for (k, v) in fields {
                    d.insert(k, v);
                }
                Bson::Document(d)
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn reflexive(a in value()) {
        prop_assert_eq!(compare(&a, &a), Ordering::Equal);
        prop_assert!(equal(&a, &a));
    }

    #[test]
    fn antisymmetric(a in value(), b in value()) {
        prop_assert_eq!(compare(&a, &b), compare(&b, &a).reverse());
        prop_assert_eq!(equal(&a, &b), compare(&a, &b) == Ordering::Equal);
    }

    #[test]
    fn transitive(a in value(), b in value(), c in value()) {
        let mut v = [a, b, c];
        v.sort_by(compare);
        prop_assert_ne!(compare(&v[0], &v[1]), Ordering::Greater);
        prop_assert_ne!(compare(&v[1], &v[2]), Ordering::Greater);
        prop_assert_ne!(compare(&v[0], &v[2]), Ordering::Greater);
        if equal(&v[0], &v[1]) && equal(&v[1], &v[2]) {
            prop_assert!(equal(&v[0], &v[2]));
        }
    }

    #[test]
    fn numbers_transitive(a in number(), b in number(), c in number()) {
        let ab = compare(&a, &b);
        let bc = compare(&b, &c);
        if ab != Ordering::Greater && bc != Ordering::Greater {
            prop_assert_ne!(compare(&a, &c), Ordering::Greater);
        }
        if ab == Ordering::Equal && bc == Ordering::Equal {
            prop_assert_eq!(compare(&a, &c), Ordering::Equal);
        }
    }

    #[test]
    fn integers_equal_across_types(i in any::<i32>()) {
        let (a, b, c) = (Bson::Int32(i), Bson::Int64(i64::from(i)), Bson::Double(f64::from(i)));
        prop_assert!(equal(&a, &b));
        prop_assert!(equal(&b, &c));
        prop_assert!(equal(&a, &c));
        let d = Bson::Decimal128(Decimal128::from_str(&i.to_string()).unwrap_or_else(|_| unreachable!()));
        prop_assert!(equal(&a, &d));
    }

    #[test]
    fn integer_order_matches_across_types(i in any::<i64>(), j in any::<i64>()) {
        prop_assert_eq!(compare(&Bson::Int64(i), &Bson::Int64(j)), i.cmp(&j));
        let fj = j as f64;
        // Against a double, the integer compares by exact value.
        let exact = i128::from(i).cmp(&(fj as i128));
        if fj.abs() < 9.2e18 {
            prop_assert_eq!(compare(&Bson::Int64(i), &Bson::Double(fj)), exact);
        }
    }
}
