//! The hand-written reader against bson's own, on every wrapper with bodies of
//! every shape (valid, invalid, wrong types, extra fields, array forms).
use super::to_bson;
use bson::Bson;
use serde_json::{json, Value};

pub(crate) fn bodies() -> Vec<Value> {
    let mut v: Vec<Value> = [
        "",
        "0",
        "1",
        "-1",
        "+5",
        "2147483647",
        "2147483648",
        "-9223372036854775808",
        "9223372036854775808",
        "1.5",
        "1e400",
        "Infinity",
        "-Infinity",
        "NaN",
        "inf",
        "nan",
        "-0",
        "0.1E-6176",
        "12345678901234567890123456789012345",
        "abc",
        "507f1f77bcf86cd799439011",
        "507F1F77BCF86CD79943901",
        "507f1f77bcf86cd7994390zz",
        "2020-01-01T00:00:00Z",
        "2020-01-01T00:00:00.123+01:00",
        "2020-01-01",
        "2020-01-01t00:00:00z",
        "1969-12-31T23:59:59.999999Z",
        "9999-12-31T23:59:59Z",
        "10000-01-01T00:00:00Z",
        "3b241101-e2bb-4255-8caf-4136c566a962",
        "3b241101e2bb42558caf4136c566a962",
        "{3b241101-e2bb-4255-8caf-4136c566a962}",
        "urn:uuid:3b241101-e2bb-4255-8caf-4136c566a962",
        "AQID",
        "AQI=",
        "AQI",
        "!!",
        "00",
        "0a",
        "0A",
        "80",
        "ff",
        "8",
        "zz",
        "0a0b",
        "é",
        "a\u{0}b",
        "imsx",
        "xsmi",
        "uu",
    ]
    .iter()
    .map(|s| json!(s))
    .collect();
    for n in [
        json!(0),
        json!(1),
        json!(2),
        json!(-1),
        json!(255),
        json!(256),
        json!(4294967295u64),
        json!(4294967296u64),
        json!(1.0),
        json!(1.5),
        json!(-1.5e300),
        json!(i64::MIN),
        json!(i64::MAX),
        json!(u64::MAX),
        json!(true),
        json!(false),
        json!(null),
    ] {
        v.push(n);
    }
    let arrays = [
        json!([]),
        json!(["a"]),
        json!(["a", "i"]),
        json!(["a", "b", "c"]),
        json!([1, 2]),
        json!([1]),
        json!(["AQID", "04"]),
        json!(["AQID", "4"]),
        json!(["5"]),
        json!([5]),
        json!(["507f1f77bcf86cd799439011"]),
        json!(["db.c", ["507f1f77bcf86cd799439011"]]),
        json!(["db.c", {"$oid": "507f1f77bcf86cd799439011"}]),
        json!([4294967295u64, 0]),
        json!([-1, 0]),
        json!([1.0, 2]),
    ];
    v.extend(arrays);
    let objects = [
        json!({}),
        json!({"pattern": "a.c", "options": "mi"}),
        json!({"pattern": "a", "options": "z"}),
        json!({"options": "i", "pattern": "x"}),
        json!({"pattern": "a"}),
        json!({"pattern": "a", "options": "i", "x": 1}),
        json!({"pattern": 1, "options": "i"}),
        json!({"base64": "AQID", "subType": "04"}),
        json!({"base64": "AQID", "subType": "80"}),
        json!({"subType": "00", "base64": ""}),
        json!({"base64": "AQID", "subType": "0"}),
        json!({"base64": "AQID", "subType": 4}),
        json!({"base64": "AQID"}),
        json!({"t": 1, "i": 2}),
        json!({"i": 2, "t": 1}),
        json!({"t": 1}),
        json!({"t": -1, "i": 2}),
        json!({"t": 1.0, "i": 2}),
        json!({"t": 4294967296u64, "i": 0}),
        json!({"t": 1, "i": 2, "x": 3}),
        json!({"$numberLong": "1577836800000"}),
        json!({"$numberLong": "x"}),
        json!({"$numberLong": 5}),
        json!({"$numberLong": "5", "x": 1}),
        json!({"$numberInt": "5"}),
        json!({"$ref": "db.c", "$id": {"$oid": "507f1f77bcf86cd799439011"}}),
        json!({"$ref": "", "$id": ["507f1f77bcf86cd799439011"]}),
        json!({"$ref": "db.c", "$id": "507f1f77bcf86cd799439011"}),
        json!({"$ref": "db.c", "$id": {"$oid": "xyz"}}),
        json!({"$ref": 1, "$id": {"$oid": "507f1f77bcf86cd799439011"}}),
        json!({"$ref": "db.c"}),
        json!({"a": 1, "b": {"$numberLong": "7"}}),
    ];
    v.extend(objects);
    v
}

pub(crate) const KEYS: [&str; 19] = [
    "$oid",
    "$symbol",
    "$regularExpression",
    "$numberInt",
    "$numberLong",
    "$numberDouble",
    "$numberDecimal",
    "$binary",
    "$uuid",
    "$code",
    "$timestamp",
    "$date",
    "$minKey",
    "$maxKey",
    "$dbPointer",
    "$undefined",
    "$scope",
    "$regex",
    "a",
];

fn same(input: Value) {
    let theirs = Bson::try_from(input.clone()).ok();
    let ours = to_bson(input.clone()).ok();
    // Debug text: NaN equals itself there, and types show.
    assert_eq!(format!("{ours:?}"), format!("{theirs:?}"), "{input}");
}

#[test]
fn every_wrapper_and_body_as_bson_reads_it() {
    let bodies = bodies();
    for key in KEYS {
        for b in &bodies {
            same(json!({ key: b }));
            same(json!([{ key: b }]));
            same(json!({"x": { key: b }}));
        }
    }
    // Two keys: only $code with $scope is a wrapper; anything else errs or is a document.
    for k1 in KEYS {
        for k2 in KEYS {
            for b in [
                json!("x"),
                json!({"a": 1}),
                json!(null),
                json!(1),
                json!({"$oid": "507f1f77bcf86cd799439011"}),
            ] {
                let mut m = serde_json::Map::new();
                m.insert(k1.into(), json!("507f1f77bcf86cd799439011"));
                m.insert(k2.into(), b.clone());
                same(Value::Object(m));
                let mut m = serde_json::Map::new();
                m.insert(k2.into(), b);
                m.insert(k1.into(), json!("507f1f77bcf86cd799439011"));
                same(Value::Object(m));
            }
        }
    }
    for plain in [
        json!(1),
        json!(3_000_000_000u64),
        json!(u64::MAX),
        json!(-2.5),
        json!("s"),
        json!([1, [2]]),
        json!(null),
    ] {
        same(plain);
    }
    same(json!({"$code": "f()", "$scope": {"a": {"$numberLong": "1"}, "b": {"$date": 5}}}));
    same(json!({"$code": "f()", "$scope": {"a": {"$numberLong": 1}}}));
}

#[test]
fn the_comparison_sees_values() {
    let ok = |v: Value| to_bson(v).is_ok();
    assert!(ok(json!({"$date": "2020-01-01T00:00:00Z"})));
    assert!(ok(json!({"$date": {"$numberLong": "5"}})));
    assert!(ok(json!({"$timestamp": [1, 2]})));
    assert!(ok(json!({"$binary": {"base64": "AQID", "subType": "04"}})));
    assert!(ok(
        json!({"$dbPointer": {"$ref": "db.c", "$id": {"$oid": "507f1f77bcf86cd799439011"}}})
    ));
    assert!(ok(
        json!({"$regularExpression": {"pattern": "a", "options": "xi"}})
    ));
    assert!(!ok(json!({"$date": 1.5})));
    assert!(!ok(json!({"$minKey": 1, "x": 1})));
    let n = bodies()
        .into_iter()
        .flat_map(|b| KEYS.map(|k| json!({ k: b.clone() })))
        .filter(|v| to_bson(v.clone()).is_ok())
        .count();
    assert!(n > 150, "{n}");
}

#[test]
fn dates_as_bson_reads_them() {
    let (mut n, mut ok) = (0, 0);
    let dates = [
        "2020-01-01",
        "1970-01-01",
        "1969-12-31",
        "0000-01-01",
        "9999-12-31",
        "2020-02-29",
        "2021-02-29",
        "2020-13-01",
        "2020-00-10",
        "2020-04-31",
        "2020-04-30",
        "2016-12-31",
        "2016-06-30",
        "2016-06-29",
        "2020-1-01",
        "20200-01-01",
    ];
    let seps = ["T", "t", " ", "x", "", "TT", "é"];
    let times = [
        "00:00:00",
        "23:59:59",
        "23:59:60",
        "00:00:60",
        "12:30:60",
        "24:00:00",
        "23:60:00",
        "23:59:61",
        "1:00:00",
        "00:00",
        "00:00:00.1",
        "00:00:00.123456789",
        "00:00:00.1234567891234",
        "00:00:00.",
        "00:00:00.999999",
        "23:59:60.5",
    ];
    let zones = [
        "Z", "z", "+00:00", "-00:00", "+01:00", "-01:30", "+23:59", "+24:00", "-23:59", "+05:60",
        "+0100", "+01", "", "ZZ", "+01:00x", "UTC",
    ];
    for d in dates {
        for (i, sep) in seps.iter().enumerate() {
            for (j, t) in times.iter().enumerate() {
                for (k, z) in zones.iter().enumerate() {
                    if (i + j + k) % 3 != 0 && !(i == 0 && k < 4) {
                        continue;
                    }
                    let s = format!("{d}{sep}{t}{z}");
                    let theirs = bson::DateTime::parse_rfc3339_str(&s)
                        .ok()
                        .map(|d| d.timestamp_millis());
                    assert_eq!(super::rfc3339(s.as_bytes()), theirs, "{s}");
                    n += 1;
                    ok += usize::from(theirs.is_some());
                }
            }
        }
    }
    assert!(n > 3000 && ok > 300, "{n} {ok}");
}

/// Whether every number in `v` survives JavaScript's reading (doubles), as the
/// shell reader reads them: integers past 2^53 do not.
pub(crate) fn exact_in_javascript(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_f64().is_some_and(|f| {
            n.as_i64()
                .is_none_or(|i| i as f64 as i64 == i && f.abs() <= 9_007_199_254_740_992.0)
                && n.as_u64()
                    .is_none_or(|u| u as f64 as u64 == u && f.abs() <= 9_007_199_254_740_992.0)
        }),
        Value::Array(a) => a.iter().all(exact_in_javascript),
        Value::Object(o) => o.values().all(exact_in_javascript),
        _ => true,
    }
}
