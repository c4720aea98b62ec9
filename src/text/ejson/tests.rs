//! The one-pass writer against bson's own relaxed Extended JSON, byte for byte.
use super::*;
use bson::spec::BinarySubtype;
use bson::{
    doc, oid::ObjectId, Binary, DateTime, Decimal128, JavaScriptCodeWithScope, Regex, Timestamp,
};
use proptest::prelude::*;

/// bson's relaxed Extended JSON, except for dates past 9999: bson clamps those to
/// `"9999-12-31T23:59:59.999999999Z"` (another instant); the specification (and so
/// the writer) gives `{"$numberLong": …}` as for dates before 1970.
fn reference_value(v: &Bson) -> serde_json::Value {
    match v {
        Bson::DateTime(d) if d.timestamp_millis() > MAX_STRING_DATE => {
            serde_json::json!({ "$date": { "$numberLong": d.timestamp_millis().to_string() } })
        }
        Bson::Array(items) => items.iter().map(reference_value).collect(),
        Bson::Document(doc) => serde_json::Value::Object(
            doc.iter()
                .map(|(k, v)| (k.clone(), reference_value(v)))
                .collect(),
        ),
        Bson::JavaScriptCodeWithScope(c) => serde_json::json!({
            "$code": c.code,
            "$scope": reference_value(&Bson::Document(c.scope.clone())),
        }),
        other => other.clone().into_relaxed_extjson(),
    }
}

fn reference(v: &Bson) -> String {
    serde_json::to_string(&reference_value(v)).unwrap_or_default()
}

#[test]
fn bson_clamps_late_dates() {
    // Why reference_value special-cases them: bson writes another instant.
    let late = Bson::DateTime(DateTime::from_millis(MAX_STRING_DATE + 1));
    let bson = serde_json::to_string(&late.into_relaxed_extjson()).unwrap_or_default();
    assert_eq!(bson, r#"{"$date":"9999-12-31T23:59:59.999999999Z"}"#);
}

fn same(v: &Bson) {
    assert_eq!(to_string(v), reference(v), "{v:?}");
}

#[test]
fn edge_values() {
    let doubles = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e21,
        1e20,
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        0.1,
        1e-7,
        123456789012345680.0,
    ];
    for d in doubles {
        same(&Bson::Double(d));
    }
    let dates = [
        0,
        1,
        -1,
        999,
        1000,
        1100,
        1120,
        1_698_335_223_434,
        253_402_300_799_999,
        253_402_300_800_000,
        -62_135_596_800_000,
        i64::MIN,
        i64::MAX,
        951_782_400_000,
        4_107_542_400_000,
    ];
    for ms in dates {
        same(&Bson::DateTime(DateTime::from_millis(ms)));
    }
    for s in [
        "",
        "a\"b\\c",
        "\u{0}\u{1}\u{8}\u{c}\n\r\t\u{1f}\u{7f}",
        "é😀\u{2028}",
    ] {
        same(&Bson::String(s.into()));
        same(&Bson::Document(doc! { s: s }));
    }
    for sub in [0u8, 1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0xff] {
        same(&Bson::Binary(Binary {
            subtype: BinarySubtype::from(sub),
            bytes: vec![0, 1, 2, 250, 251],
        }));
    }
    let others = [
        Bson::RegularExpression(Regex {
            pattern: "a\"b".try_into().unwrap_or_else(|_| unreachable!()),
            options: "xsmi".try_into().unwrap_or_else(|_| unreachable!()),
        }),
        Bson::JavaScriptCode("x\n".into()),
        Bson::JavaScriptCodeWithScope(JavaScriptCodeWithScope {
            code: "c".into(),
            scope: doc! {"a": 1},
        }),
        Bson::Timestamp(Timestamp {
            time: u32::MAX,
            increment: 7,
        }),
        Bson::ObjectId(ObjectId::from_bytes([0xab; 12])),
        Bson::Symbol("s".into()),
        Bson::Decimal128(
            "1.50E+10"
                .parse::<Decimal128>()
                .unwrap_or_else(|_| unreachable!()),
        ),
        Bson::Decimal128(
            "-NaN"
                .parse::<Decimal128>()
                .unwrap_or_else(|_| unreachable!()),
        ),
        Bson::Undefined,
        Bson::MinKey,
        Bson::MaxKey,
        Bson::Null,
        Bson::Boolean(true),
        Bson::Int32(i32::MIN),
        Bson::Int64(i64::MIN),
        Bson::Array(vec![]),
        Bson::Document(doc! {}),
    ];
    for v in others {
        same(&v);
    }
}

fn scalar() -> impl Strategy<Value = Bson> {
    prop_oneof![
        any::<f64>().prop_map(Bson::Double),
        any::<u64>().prop_map(|b| Bson::Double(f64::from_bits(b))),
        ".*".prop_map(Bson::String),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        any::<i32>().prop_map(Bson::Int32),
        any::<i64>().prop_map(Bson::Int64),
        any::<i64>().prop_map(|ms| Bson::DateTime(DateTime::from_millis(ms))),
        (-100_000_000_000_000i64..300_000_000_000_000)
            .prop_map(|ms| Bson::DateTime(DateTime::from_millis(ms))),
        (0i64..4_000_000_000).prop_map(|s| Bson::DateTime(DateTime::from_millis(s * 1000))),
        ("[a-z\"]{0,4}", "[imsxlu]{0,4}").prop_filter_map("regex", |(p, o)| {
            Some(Bson::RegularExpression(Regex {
                pattern: p.try_into().ok()?,
                options: o.try_into().ok()?,
            }))
        }),
        ".*".prop_map(Bson::JavaScriptCode),
        ".*".prop_map(Bson::Symbol),
        (any::<u32>(), any::<u32>())
            .prop_map(|(time, increment)| Bson::Timestamp(Timestamp { time, increment })),
        (any::<u8>(), proptest::collection::vec(any::<u8>(), 0..20)).prop_map(|(s, bytes)| {
            Bson::Binary(Binary {
                subtype: BinarySubtype::from(s),
                bytes,
            })
        }),
        any::<[u8; 12]>().prop_map(|b| Bson::ObjectId(ObjectId::from_bytes(b))),
        any::<[u8; 16]>().prop_map(|b| Bson::Decimal128(Decimal128::from_bytes(b))),
        (any::<i32>(), -20i32..20).prop_filter_map("decimal", |(m, e)| {
            format!("{m}E{e}")
                .parse::<Decimal128>()
                .ok()
                .map(Bson::Decimal128)
        }),
        Just(Bson::Undefined),
        Just(Bson::MinKey),
        Just(Bson::MaxKey),
    ]
}

fn value() -> impl Strategy<Value = Bson> {
    scalar().prop_recursive(3, 40, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Bson::Array),
            proptest::collection::vec((".{0,6}", inner.clone()), 0..6)
                .prop_map(|kv| Bson::Document(kv.into_iter().collect())),
            (".*", proptest::collection::vec(("[a-z]{1,3}", inner), 0..3)).prop_map(
                |(code, kv)| {
                    Bson::JavaScriptCodeWithScope(JavaScriptCodeWithScope {
                        code,
                        scope: kv.into_iter().collect(),
                    })
                }
            ),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn matches_bson_relaxed_extjson(v in value()) {
        prop_assert_eq!(to_string(&v), reference(&v));
    }
}

#[test]
fn db_pointers_as_bson_writes_them() {
    for ns in ["db.c", "", "é\"\\\n", "a\u{0}b"] {
        let json = serde_json::json!({"$dbPointer": {"$ref": ns, "$id": {"$oid": "507f1f77bcf86cd799439011"}}});
        let Ok(p) = Bson::try_from(json) else {
            panic!("{ns:?}");
        };
        assert_eq!(
            to_string(&p),
            serde_json::to_string(&p.clone().into_relaxed_extjson()).unwrap_or_default(),
            "{ns:?}"
        );
    }
}
