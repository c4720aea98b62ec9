//! Unit tests of the expression engine (compile + evaluate directly).
use super::*;
use bson::{bson, doc, Bson};

fn eval_on(spec: Bson, d: Document) -> Result<Option<Bson>> {
    let run = RunCtx::default();
    let scope = Scope::new(&run);
    Expr::compile(&spec, &CompileCtx::default())?.evaluate(&d, &scope)
}

fn ev(spec: Bson) -> Option<Bson> {
    match eval_on(spec.clone(), doc! {}) {
        Ok(v) => v,
        Err(e) => panic!("{spec:?}: {e}"),
    }
}

fn code(spec: Bson) -> i32 {
    match eval_on(spec.clone(), doc! {}) {
        Ok(v) => panic!("{spec:?} gave {v:?}"),
        Err(e) => e.code,
    }
}

#[test]
fn field_paths_through_arrays() {
    let d = doc! {"a": [{"b": 1}, {"b": 2}, {"c": 3}], "x": {"0": 5}, "n": [[{"b": 9}]]};
    assert_eq!(
        eval_on(bson!("$a.b"), d.clone()).ok().flatten(),
        Some(bson!([1, 2]))
    );
    assert_eq!(
        eval_on(bson!("$x.0"), d.clone()).ok().flatten(),
        Some(bson!(5))
    );
    assert_eq!(
        eval_on(bson!("$n.b"), d.clone()).ok().flatten(),
        Some(bson!([]))
    );
    assert_eq!(eval_on(bson!("$nope"), d).ok().flatten(), None);
}

#[test]
fn arithmetic_types() {
    assert_eq!(ev(bson!({"$add": [1, 2]})), Some(bson!(3)));
    assert_eq!(
        ev(bson!({"$add": [2147483647i32, 1]})),
        Some(Bson::Int64(2147483648))
    );
    assert_eq!(
        ev(bson!({"$add": [i64::MAX, 1]})),
        Some(Bson::Double(9.223372036854776e18))
    );
    assert_eq!(ev(bson!({"$add": [1, 1.5]})), Some(bson!(2.5)));
    assert_eq!(ev(bson!({"$add": [1, null]})), Some(Bson::Null));
    assert_eq!(
        ev(bson!({"$multiply": [2147483647i32, 2]})),
        Some(Bson::Int64(4294967294))
    );
    assert_eq!(ev(bson!({"$divide": [1, 2]})), Some(bson!(0.5)));
    assert_eq!(code(bson!({"$divide": [1, 0]})), 2);
    assert_eq!(code(bson!({"$add": ["a", 1]})), 14);
    assert_eq!(ev(bson!({"$mod": [7, 3]})), Some(bson!(1)));
    assert_eq!(ev(bson!({"$pow": [2, 10]})), Some(bson!(1024)));
    assert_eq!(ev(bson!({"$round": [2.5, 0]})), Some(bson!(2.0)));
    assert_eq!(ev(bson!({"$round": [1234, -2]})), Some(bson!(1200)));
    assert_eq!(ev(bson!({"$subtract": [5, 7]})), Some(bson!(-2)));
}

#[test]
fn decimal_arithmetic() {
    let d = |s: &str| Bson::Decimal128(s.parse().unwrap_or_else(|_| panic!("{s}")));
    assert_eq!(ev(bson!({"$add": [d("1.1"), d("2.20")]})), Some(d("3.30")));
    assert_eq!(
        ev(bson!({"$divide": [d("1"), d("3")]})),
        Some(d("0.3333333333333333333333333333333333"))
    );
    assert_eq!(ev(bson!({"$divide": [d("10"), 4]})), Some(d("2.5")));
    assert_eq!(ev(bson!({"$multiply": [d("1.5"), 2]})), Some(d("3.0")));
    assert_eq!(ev(bson!({"$sqrt": d("4")})), Some(d("2")));
}

#[test]
fn variables_and_scopes() {
    let e = bson!({"$let": {"vars": {"x": 2, "y": {"$add": [1, 1]}}, "in": {"$multiply": ["$$x", "$$y"]}}});
    assert_eq!(ev(e), Some(bson!(4)));
    let m = bson!({"$map": {"input": [1, 2, 3], "as": "v", "in": {"$add": ["$$v", 1]}}});
    assert_eq!(ev(m), Some(bson!([2, 3, 4])));
    let f = bson!({"$filter": {"input": [1, 2, 3, 4], "cond": {"$gt": ["$$this", 2]}}});
    assert_eq!(ev(f), Some(bson!([3, 4])));
    let r = bson!({"$reduce": {"input": [1, 2, 3], "initialValue": 0, "in": {"$add": ["$$value", "$$this"]}}});
    assert_eq!(ev(r), Some(bson!(6)));
    assert_eq!(code(bson!("$$nope")), 17276);
    let run = RunCtx::default();
    let scope = Scope::new(&run).with_var("lim", bson!(3));
    let ctx = CompileCtx::with_variables(["lim"]);
    let e = Expr::compile(&bson!({"$lt": ["$a", "$$lim"]}), &ctx).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        e.evaluate(&doc! {"a": 1}, &scope).ok().flatten(),
        Some(bson!(true))
    );
    assert_eq!(ev(bson!("$$NOW")), Some(Bson::DateTime(run.now)));
    assert_eq!(ev(bson!({"a": "$$REMOVE", "b": 1})), Some(bson!({"b": 1})));
}

#[test]
fn compile_errors() {
    assert_eq!(code(bson!({"$foo": 1})), 168);
    assert_eq!(code(bson!({"$add": 1, "a": 1})), 15983);
    assert_eq!(code(bson!({"$subtract": [1]})), 16020);
    assert_eq!(code(bson!({"$slice": [1]})), 28667);
}

#[test]
fn comparison_missing_vs_null() {
    assert_eq!(ev(bson!({"$eq": ["$nope", null]})), Some(bson!(false)));
    assert_eq!(ev(bson!({"$lt": ["$nope", null]})), Some(bson!(true)));
    assert_eq!(ev(bson!({"$cmp": [1, 1.0]})), Some(bson!(0)));
}

fn date(s: &str) -> Bson {
    match chrono::DateTime::parse_from_rfc3339(s) {
        Ok(t) => Bson::DateTime(bson::DateTime::from_millis(t.timestamp_millis())),
        Err(e) => panic!("{s}: {e}"),
    }
}

#[test]
fn date_parts_and_strings() {
    let d = date("2014-01-01T08:15:39.736Z");
    assert_eq!(ev(bson!({"$year": d.clone()})), Some(bson!(2014)));
    assert_eq!(ev(bson!({"$dayOfYear": d.clone()})), Some(bson!(1)));
    assert_eq!(ev(bson!({"$dayOfWeek": d.clone()})), Some(bson!(4)));
    assert_eq!(ev(bson!({"$week": d.clone()})), Some(bson!(0)));
    assert_eq!(ev(bson!({"$isoWeek": d.clone()})), Some(bson!(1)));
    assert_eq!(
        ev(
            bson!({"$dateToString": {"format": "%Y-%m-%d %H:%M:%S:%L%z", "date": d.clone(), "timezone": "America/New_York"}})
        ),
        Some(bson!("2014-01-01 03:15:39:736-0500"))
    );
    assert_eq!(
        ev(bson!({"$dateToString": {"date": d.clone()}})),
        Some(bson!("2014-01-01T08:15:39.736Z"))
    );
    assert_eq!(
        ev(
            bson!({"$dateFromString": {"dateString": "2017-02-08T12:10:40.787", "timezone": "America/New_York"}})
        ),
        Some(date("2017-02-08T17:10:40.787Z"))
    );
    assert_eq!(
        ev(bson!({"$dateFromString": {"dateString": "15-06-2018", "format": "%d-%m-%Y"}})),
        Some(date("2018-06-15T00:00:00Z"))
    );
    assert_eq!(
        ev(bson!({"$dateFromParts": {"year": 2017, "month": 14, "day": 1}})),
        Some(date("2018-02-01T00:00:00Z"))
    );
    assert_eq!(
        ev(bson!({"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 1, "isoDayOfWeek": 1}})),
        Some(date("2017-01-02T00:00:00Z"))
    );
}

#[test]
fn date_arithmetic() {
    let d = date("2020-10-31T12:10:05Z");
    assert_eq!(
        ev(bson!({"$dateAdd": {"startDate": d.clone(), "unit": "month", "amount": 1}})),
        Some(date("2020-11-30T12:10:05Z"))
    );
    assert_eq!(
        ev(
            bson!({"$dateDiff": {"startDate": date("2020-12-31T23:59:59Z"), "endDate": date("2021-01-01T00:00:01Z"), "unit": "year"}})
        ),
        Some(Bson::Int64(1))
    );
    assert_eq!(
        ev(
            bson!({"$dateTrunc": {"date": date("2021-03-20T11:30:05Z"), "unit": "week", "binSize": 2, "startOfWeek": "monday"}})
        ),
        Some(date("2021-03-15T00:00:00Z"))
    );
    assert_eq!(
        ev(
            bson!({"$dateTrunc": {"date": date("2021-03-20T11:30:05Z"), "unit": "hour", "binSize": 6}})
        ),
        Some(date("2021-03-20T06:00:00Z"))
    );
    assert_eq!(
        ev(
            bson!({"$dateAdd": {"startDate": date("2021-03-13T12:00:00Z"), "unit": "day", "amount": 1, "timezone": "America/New_York"}})
        ),
        Some(date("2021-03-14T11:00:00Z"))
    );
}

#[test]
fn regex_and_strings() {
    let r = ev(bson!({"$regexFind": {"input": "Hello World", "regex": "o(.)"}}));
    assert_eq!(r, Some(bson!({"match": "o ", "idx": 4, "captures": [" "]})));
    let all = ev(bson!({"$regexFindAll": {"input": "aaa", "regex": "a*?"}}));
    assert_eq!(
        all.map(|a| matches!(a, Bson::Array(v) if v.len() == 3)),
        Some(true)
    );
    assert_eq!(
        code(bson!({"$regexMatch": {"input": "a", "regex": "(a)\\1"}})),
        115
    );
    assert_eq!(ev(bson!({"$toString": 1.5})), Some(bson!("1.5")));
    assert_eq!(
        ev(bson!({"$toDecimal": 2.5})).map(|d| d.to_string()),
        Some("2.50000000000000".to_string())
    );
}

#[test]
fn decimal_extremes_do_not_hang_or_panic() {
    let d = |s: &str| Bson::Decimal128(s.parse().unwrap_or_else(|_| panic!("{s}")));
    for e in [
        bson!({"$exp": d("14000")}),
        bson!({"$exp": d("-14000")}),
        bson!({"$ln": d("1E6111")}),
        bson!({"$ln": d("1E-6176")}),
        bson!({"$log10": d("123.456")}),
        bson!({"$pow": [d("1.0001"), 10000]}),
        bson!({"$pow": [d("2"), d("0.5")]}),
        bson!({"$multiply": [d("1E6111"), d("1E6111")]}),
        bson!({"$divide": [d("1E-6176"), d("1E6111")]}),
        bson!({"$mod": [d("1E6111"), 7]}),
        bson!({"$sqrt": d("2")}),
        bson!({"$round": [d("1E6111"), 100]}),
        bson!({"$add": [d("Infinity"), d("-Infinity")]}),
        bson!({"$dateToString": {"date": Bson::DateTime(bson::DateTime::from_millis(i64::MIN)), "format": "%d"}}),
        bson!({"$dateAdd": {"startDate": Bson::DateTime(bson::DateTime::from_millis(i64::MAX)), "unit": "year", "amount": 1000}}),
        bson!({"$dateDiff": {"startDate": Bson::DateTime(bson::DateTime::from_millis(i64::MIN)), "endDate": Bson::DateTime(bson::DateTime::from_millis(i64::MAX)), "unit": "millisecond"}}),
        bson!({"$dateTrunc": {"date": Bson::DateTime(bson::DateTime::from_millis(i64::MIN)), "unit": "year", "binSize": 7}}),
        bson!({"$range": [0, 2147483647, 1]}),
        bson!({"$substrBytes": ["abc", 1, 9223372036854775807i64]}),
    ] {
        let start = std::time::Instant::now();
        let _ = eval_on(e.clone(), doc! {});
        assert!(
            start.elapsed().as_secs() < 2,
            "{e:?} took {:?}",
            start.elapsed()
        );
    }
    let ln = ev(bson!({"$ln": d("10")}));
    assert_eq!(ln, Some(d("2.302585092994045684017991454684364")));
}

#[cfg(not(target_arch = "wasm32"))]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn leaf() -> impl Strategy<Value = Bson> {
        prop_oneof![
            any::<i32>().prop_map(Bson::Int32),
            any::<i64>().prop_map(Bson::Int64),
            any::<f64>().prop_map(Bson::Double),
            Just(Bson::Null),
            Just(Bson::Boolean(true)),
            "[a-z$.%]{0,6}".prop_map(Bson::String),
            prop_oneof![
                Just("$a"),
                Just("$b.c"),
                Just("$$ROOT"),
                Just("$$this"),
                Just("$$value")
            ]
            .prop_map(|s| Bson::String(s.to_string())),
            any::<i64>().prop_map(|m| Bson::DateTime(bson::DateTime::from_millis(m))),
            prop_oneof![
                Just("1.5"),
                Just("-0"),
                Just("1E6111"),
                Just("NaN"),
                Just("-Infinity")
            ]
            .prop_map(|s| Bson::Decimal128(s.parse().unwrap_or_else(|_| unreachable!()))),
        ]
    }

    fn expr() -> impl Strategy<Value = Bson> {
        let names: Vec<&'static str> = crate::expr::ops::names().collect();
        leaf().prop_recursive(3, 24, 4, move |inner| {
            let names = names.clone();
            prop_oneof![
                (
                    proptest::sample::select(names.clone()),
                    proptest::collection::vec(inner.clone(), 0..4)
                )
                    .prop_map(|(n, args)| Bson::Document(doc! {n: Bson::Array(args)})),
                (proptest::sample::select(names), inner.clone())
                    .prop_map(|(n, a)| Bson::Document(doc! {n: a})),
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Bson::Array),
                (inner.clone(), inner).prop_map(|(a, b)| Bson::Document(
                    doc! {"input": a, "in": b.clone(), "cond": b, "as": "x"}
                )),
            ]
        })
    }

    const KEYS: &[&str] = &[
        "input",
        "in",
        "as",
        "cond",
        "limit",
        "vars",
        "initialValue",
        "date",
        "unit",
        "amount",
        "startDate",
        "endDate",
        "format",
        "timezone",
        "n",
        "sortBy",
        "inputs",
        "defaults",
        "useLongestLength",
        "regex",
        "options",
        "find",
        "replacement",
        "field",
        "value",
        "to",
        "onError",
        "onNull",
        "branches",
        "default",
        "if",
        "then",
        "else",
        "chars",
        "p",
        "method",
        "binSize",
        "startOfWeek",
        "dateString",
        "year",
        "month",
        "day",
        "hour",
        "isoWeekYear",
        "iso8601",
    ];

    /// `{$op: {key: expr, ...}}` with named arguments drawn from every operator's vocabulary.
    fn named() -> impl Strategy<Value = Bson> {
        let names: Vec<&'static str> = crate::expr::ops::names().collect();
        (
            proptest::sample::select(names),
            proptest::collection::vec((proptest::sample::select(KEYS.to_vec()), expr()), 0..5),
        )
            .prop_map(|(n, kv)| {
                let mut d = Document::new();
                for (k, v) in kv {
                    d.insert(k, v);
                }
                Bson::Document(doc! {n: d})
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn named_arguments_never_panic(e in named(), a in leaf()) {
            let run = RunCtx::default();
            let scope = Scope::new(&run);
            if let Ok(x) = Expr::compile(&e, &CompileCtx::default()) {
                let _ = x.evaluate(&doc! {"a": a.clone(), "b": {"c": a}}, &scope);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn never_panics(e in expr(), a in leaf()) {
            let run = RunCtx::default();
            let scope = Scope::new(&run);
            if let Ok(x) = Expr::compile(&e, &CompileCtx::default()) {
                let _ = x.evaluate(&doc! {"a": a.clone(), "b": {"c": a.clone()}, "arr": [a]}, &scope);
            }
        }
    }
}

/// Values read in place (a field path's array bound to `$$this`, compared,
/// summed) give what copies of them give.
#[test]
fn borrowed_reads() {
    let d = doc! {
        "t": [{"ts": 1, "c": 10, "in": [{"k": 1}, {"k": 2}]}, {"ts": 5, "c": 20}, 7, {"c": "x"}],
        "o": {"arr": [1, 2, 3], "s": "b"},
        "n": [[{"c": 1}], {"c": 2}],
        "nul": null,
    };
    let on = |spec: Bson| match eval_on(spec.clone(), d.clone()) {
        Ok(v) => v,
        Err(e) => panic!("{spec}: {e}"),
    };
    assert_eq!(
        on(bson!({"$filter": {"input": "$t", "cond": {"$gte": ["$$this.ts", 2]}}})),
        Some(bson!([{"ts": 5, "c": 20}]))
    );
    assert_eq!(
        on(bson!({"$map": {"input": "$o.arr", "in": {"$add": ["$$this", 1]}}})),
        Some(bson!([2, 3, 4]))
    );
    // A path below a borrowed element, through its own array.
    assert_eq!(
        on(bson!({"$map": {"input": "$t", "as": "e", "in": {"$sum": "$$e.in.k"}}})),
        Some(bson!([3, 0, 0, 0]))
    );
    assert_eq!(
        on(
            bson!({"$reduce": {"input": "$o.arr", "initialValue": 0, "in": {"$add": ["$$value", "$$this"]}}})
        ),
        Some(bson!(6))
    );
    assert_eq!(
        on(bson!({"$let": {"vars": {"x": "$o"}, "in": {"$concat": ["$$x.s", "$$x.s"]}}})),
        Some(bson!("bb"))
    );
    assert_eq!(on(bson!({"$sum": "$t.c"})), Some(bson!(30)));
    assert_eq!(on(bson!({"$avg": "$t.c"})), Some(bson!(15.0)));
    assert_eq!(on(bson!({"$max": "$t.c"})), Some(bson!("x")));
    assert_eq!(on(bson!({"$min": "$o.arr"})), Some(bson!(1)));
    assert_eq!(on(bson!({"$sum": "$nope"})), Some(bson!(0)));
    // Two arrays crossed: the values are built (the inner array is no number).
    assert_eq!(on(bson!({"$sum": "$n.c"})), Some(bson!(2)));
    assert_eq!(on(bson!({"$gt": ["$o.s", "a"]})), Some(bson!(true)));
    assert_eq!(on(bson!({"$eq": ["$nope", null]})), Some(bson!(false)));
    assert_eq!(
        on(bson!({"$filter": {"input": "$nul", "cond": true}})),
        Some(Bson::Null)
    );
    assert_eq!(
        eval_on(bson!({"$filter": {"input": "$o", "cond": true}}), d.clone())
            .err()
            .map(|e| e.code),
        Some(28651)
    );
}

#[test]
fn borrowed_array_operands() {
    let d = doc! {"t": [{"ts": 1}, {"ts": 5}, {"x": 2}], "a": [1, "b"], "s": "str"};
    let on = |spec: Bson| eval_on(spec, d.clone()).map_err(|e| e.code);
    assert_eq!(on(bson!({"$in": [5, "$t.ts"]})), Ok(Some(bson!(true))));
    assert_eq!(on(bson!({"$in": [2, "$t.ts"]})), Ok(Some(bson!(false))));
    assert_eq!(on(bson!({"$in": ["b", "$a"]})), Ok(Some(bson!(true))));
    // A missing needle is not the null an array literal holds in its place.
    assert_eq!(
        on(bson!({"$in": ["$nope", ["$nope"]]})),
        Ok(Some(bson!(false)))
    );
    assert_eq!(on(bson!({"$in": [1, "$s"]})), Err(40081));
    assert_eq!(on(bson!({"$in": [1, "$nope"]})), Err(40081));
    assert_eq!(on(bson!({"$size": "$t"})), Ok(Some(bson!(3))));
    assert_eq!(on(bson!({"$size": "$t.ts"})), Ok(Some(bson!(2))));
    assert_eq!(on(bson!({"$size": "$s"})), Err(17124));
    assert_eq!(on(bson!({"$isArray": "$a"})), Ok(Some(bson!(true))));
    assert_eq!(on(bson!({"$isArray": "$s"})), Ok(Some(bson!(false))));
}
