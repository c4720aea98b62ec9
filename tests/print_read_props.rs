#![cfg(not(target_arch = "wasm32"))]
//! What mqlplay prints (mongosh's shell format) reads back as the same value,
//! for every BSON type: a result can be pasted into a script or a database.
use bson::oid::ObjectId;
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Document};
use mqlplay::shell::{lower, parse_expression, LowerCtx};
use mqlplay::text::shell::print;
use proptest::prelude::*;
use std::collections::HashMap;

fn new_id() -> ObjectId {
    ObjectId::from_bytes([5; 12])
}

fn read(text: &str) -> Result<Bson, String> {
    let vars = HashMap::new();
    let ctx = LowerCtx {
        vars: &vars,
        now: bson::DateTime::from_millis(0),
        extjson: false,
        new_id: &new_id,
        tz: None,
    };
    let node = parse_expression(text).map_err(|e| format!("{text}: {e}"))?;
    lower(&node, &ctx).map_err(|e| format!("{text}: {e}"))
}

/// JavaScript's `Date` range (±8.64e15 ms), where mongosh can show a date.
const JS_DATE_LIMIT: i64 = 8_640_000_000_000_000;

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        any::<i32>().prop_map(Bson::Int32),
        any::<f64>().prop_map(Bson::Double),
        prop_oneof![
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(-0.0),
            Just(0.5),
            Just(1e21),
            Just(5e-324),
        ]
        .prop_map(Bson::Double),
        any::<i64>().prop_map(Bson::Int64),
        any::<String>().prop_map(|s| Bson::String(s.replace('\0', ""))),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        any::<[u8; 12]>().prop_map(|b| Bson::ObjectId(ObjectId::from_bytes(b))),
        (-JS_DATE_LIMIT..=JS_DATE_LIMIT)
            .prop_map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms))),
        (-62_167_219_200_000i64..=253_402_300_799_999)
            .prop_map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms))),
        (any::<i64>(), -40i32..40).prop_map(|(m, e)| {
            let s = format!("{m}E{e}");
            Bson::Decimal128(s.parse().unwrap_or_else(|_| "0".parse().expect("zero")))
        }),
        prop_oneof![
            Just("NaN"),
            Just("Infinity"),
            Just("-Infinity"),
            Just("-0"),
            Just("1.50")
        ]
        .prop_map(|s| Bson::Decimal128(s.parse().expect("decimal"))),
        (
            "[a-zA-Z0-9 .*+?$^]{1,8}",
            prop::sample::subsequence(vec!['i', 'l', 'm', 's', 'u', 'x'], 0..=6)
        )
            .prop_map(|(p, o)| {
                Bson::RegularExpression(bson::Regex {
                    // A literal cannot start with `*` (that is a comment).
                    pattern: format!("^{p}").try_into().expect("no NUL"),
                    options: o
                        .into_iter()
                        .collect::<String>()
                        .try_into()
                        .expect("no NUL"),
                })
            }),
        (any::<u32>(), any::<u32>())
            .prop_map(|(time, increment)| Bson::Timestamp(bson::Timestamp { time, increment })),
        (any::<u8>(), prop::collection::vec(any::<u8>(), 0..40)).prop_map(|(s, bytes)| {
            Bson::Binary(Binary {
                subtype: BinarySubtype::from(s),
                bytes,
            })
        }),
        any::<[u8; 16]>().prop_map(|b| Bson::Binary(Binary {
            subtype: BinarySubtype::Uuid,
            bytes: b.to_vec()
        })),
        "[ -~]{0,12}".prop_map(Bson::JavaScriptCode),
        ("[ -~]{0,12}", any::<i32>()).prop_map(|(code, n)| {
            let mut scope = Document::new();
            scope.insert("n", n);
            Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope { code, scope })
        }),
        Just(Bson::MinKey),
        Just(Bson::MaxKey),
    ]
}

fn value() -> impl Strategy<Value = Bson> {
    scalar().prop_recursive(3, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Bson::Array),
            prop::collection::vec(("[ -~]{0,6}", inner), 0..5).prop_map(|kv| {
                let mut d = Document::new();
                for (k, v) in kv {
                    d.insert(k, v);
                }
                Bson::Document(d)
            }),
        ]
    })
}

/// What a value reads back as. mongosh shows a double as a JavaScript number,
/// and a number literal is an Int32 when it fits one (as the shell's driver
/// writes it): an integral double comes back as an Int32.
fn as_read(v: &Bson) -> Bson {
    match v {
        Bson::Double(d) => mqlplay::shell::number::typed_number(*d),
        Bson::Array(a) => Bson::Array(a.iter().map(as_read).collect()),
        Bson::Document(d) => {
            Bson::Document(d.iter().map(|(k, v)| (k.clone(), as_read(v))).collect())
        }
        other => other.clone(),
    }
}

/// Equal, NaN included (BSON's structural equality says NaN != NaN).
fn same(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Double(x), Bson::Double(y)) => {
            (x.is_nan() && y.is_nan()) || (x == y && x.is_sign_negative() == y.is_sign_negative())
        }
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Bson::Document(x), Bson::Document(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, a), (kb, b))| ka == kb && same(a, b))
        }
        _ => a == b,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    /// print → parse → lower gives the value back.
    #[test]
    fn printed_values_read_back(v in value()) {
        let text = print(&v);
        let got = read(&text).map_err(TestCaseError::fail)?;
        let want = as_read(&v);
        prop_assert!(same(&got, &want), "{text}\n got {got:?}\nwant {want:?}");
    }
}

/// The forms mongosh 2.x prints, one of each.
#[test]
fn mongosh_constructors_read() {
    let bin = |subtype: u8, bytes: &[u8]| {
        Bson::Binary(Binary {
            subtype: BinarySubtype::from(subtype),
            bytes: bytes.to_vec(),
        })
    };
    for (text, want) in [
        ("Binary.createFromBase64('AQID', 0)", bin(0, &[1, 2, 3])),
        ("Binary.createFromBase64('AQID')", bin(0, &[1, 2, 3])),
        (
            "Binary.createFromHexString('010203', 5)",
            bin(5, &[1, 2, 3]),
        ),
        (
            "MD5('0123456789abcdef0123456789abcdef')",
            bin(
                5,
                &[
                    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89,
                    0xab, 0xcd, 0xef,
                ],
            ),
        ),
        ("BinData(0, 'ID==')", bin(0, &[0x20])),
        ("Long('5')", Bson::Int64(5)),
        ("Int32('7')", Bson::Int32(7)),
        ("Double('2.5')", Bson::Double(2.5)),
        (
            "Decimal128('1.50')",
            Bson::Decimal128("1.50".parse().expect("decimal")),
        ),
        (
            "Timestamp({ t: 1, i: 2 })",
            Bson::Timestamp(bson::Timestamp {
                time: 1,
                increment: 2,
            }),
        ),
        (
            "BSONRegExp('a', 'x')",
            Bson::RegularExpression(bson::Regex {
                pattern: "a".to_string().try_into().expect("regex"),
                options: "x".to_string().try_into().expect("regex"),
            }),
        ),
        ("MinKey()", Bson::MinKey),
        ("MaxKey()", Bson::MaxKey),
        ("Code('f()')", Bson::JavaScriptCode("f()".into())),
    ] {
        assert_eq!(read(text), Ok(want), "{text}");
    }
}
