//! Array operators over positional arguments. `$map`/`$filter`/`$reduce`
//! (which bind variables) live in `vars.rs`; `$zip`, `$sortArray` and the N
//! operators in `array_named.rs`.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/#array-expression-operators
use crate::error::{Error, Result};
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node};
use crate::expr::path::Found;
use crate::expr::value::{as_i32_exact, ensure, nullish, num_str, show, tname, truthy, Value};
use crate::value::equal;
use crate::value::numeric::{is_number, printf_g, to_f64};
use bson::{Bson, Document};

/// `$range` results are capped (MongoDB bounds them by its 64MB memory limit).
pub(crate) const MAX_RANGE: usize = 10_000_000;

macro_rules! fixed {
    ($cname:ident, $f:ident, $n:expr) => {
        pub(crate) fn $cname(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
            Ok(call(n, $f, c.exact(n, a, $n)?))
        }
    };
}
fixed!(c_array_elem_at, array_elem_at, 2);
fixed!(c_first_last, first_last, 1);
fixed!(c_in, in_array, 2);
fixed!(c_is_array, is_array, 1);
fixed!(c_size, size, 1);
fixed!(c_reverse, reverse_array, 1);
fixed!(c_object_to_array, object_to_array, 1);
fixed!(c_array_to_object, array_to_object, 1);
fixed!(c_elements_true, elements_true, 1);

pub(crate) fn c_concat_arrays(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, concat_arrays, c.args(a)?))
}
pub(crate) fn c_index_of_array(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, index_of_array, c.ranged(n, a, 2, 4)?))
}
pub(crate) fn c_slice(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, slice, c.ranged(n, a, 2, 3)?))
}
pub(crate) fn c_range(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, range, c.ranged(n, a, 2, 3)?))
}

fn elem_at(name: &str, arity: usize, array: Value, index: Value) -> Result<Value> {
    if nullish(&array) || nullish(&index) {
        return Ok(Some(Bson::Null));
    }
    let Some(Bson::Array(arr)) = array else {
        let which = if arity == 1 {
            "argument"
        } else {
            "first argument"
        };
        return Err(Error::location(
            28689,
            format!(
                "{name}'s {which} must be an array, but is {}",
                tname(&array)
            ),
        ));
    };
    let index = index.unwrap_or(Bson::Null);
    ensure(is_number(&index), 28690, || {
        format!(
            "{name}'s second argument must be a numeric value, but is {}",
            crate::text::shell::type_name(&index)
        )
    })?;
    let Some(i) = as_i32_exact(&index) else {
        return Err(Error::location(
            28691,
            format!(
                "{name}'s second argument must be representable as a 32-bit integer: {}",
                // `%g` of the number as a double, as the server's StringBuilder prints it.
                printf_g(to_f64(&index).unwrap_or(f64::NAN))
            ),
        ));
    };
    let len = arr.len() as i64;
    let i = i64::from(i);
    let pos = if i < 0 { len + i } else { i };
    if pos < 0 || pos >= len {
        return Ok(None);
    }
    Ok(arr.into_iter().nth(pos as usize))
}

fn array_elem_at(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let a = cx.eval(&args[0])?;
    let i = cx.eval(&args[1])?;
    elem_at(name, 2, a, i)
}

fn first_last(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let a = cx.eval(&args[0])?;
    let i = if name == "$first" { 0 } else { -1 };
    elem_at(name, 1, a, Some(Bson::Int32(i)))
}

fn in_array(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval_borrowed(&args[0])?;
    let undefined = Bson::Undefined;
    let needle = v.as_deref().unwrap_or(&undefined);
    // A field path's array (or the values below one) is searched in place.
    let found = match cx.borrow_values(&args[1]) {
        Some(Found::One(Bson::Array(a))) => a.iter().any(|e| equal(e, needle)),
        Some(Found::Many(vs)) => vs.iter().any(|e| equal(e, needle)),
        _ => {
            let arr = cx.eval(&args[1])?;
            let Some(Bson::Array(arr)) = &arr else {
                return Err(Error::location(
                    40081,
                    format!(
                        "$in requires an array as a second argument, found: {}",
                        tname(&arr)
                    ),
                ));
            };
            arr.iter().any(|e| equal(e, needle))
        }
    };
    Ok(Some(Bson::Boolean(found)))
}

fn is_array(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    Ok(Some(Bson::Boolean(matches!(
        cx.eval_borrowed(&args[0])?.as_deref(),
        Some(Bson::Array(_))
    ))))
}

fn size(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval_borrowed(&args[0])?;
    if let Some(Bson::Array(a)) = v.as_deref() {
        return Ok(Some(crate::value::numeric::int_or_long(a.len() as i64)));
    }
    Err(Error::location(
        17124,
        format!(
            "The argument to $size must be an array, but was of type: {}",
            tname(&v.map(|v| v.into_owned()))
        ),
    ))
}

fn reverse_array(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    if nullish(&v) {
        return Ok(Some(Bson::Null));
    }
    match v {
        Some(Bson::Array(mut a)) => {
            a.reverse();
            Ok(Some(Bson::Array(a)))
        }
        other => Err(Error::location(
            34435,
            format!(
                "The argument to $reverseArray must be an array, but was of type: {}",
                tname(&other)
            ),
        )),
    }
}

fn concat_arrays(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let mut out = Vec::new();
    Ok(Some(match append_arrays(&mut out, args, cx)? {
        true => Bson::Array(out),
        false => Bson::Null,
    }))
}

/// `$concatArrays`: the arrays `args` evaluate to, appended to `out` in
/// order; `Ok(false)` at the first null or missing one (the answer is null).
pub(crate) fn append_arrays(out: &mut Vec<Bson>, args: &[Node], cx: &mut Cx) -> Result<bool> {
    for a in args {
        let v = cx.eval(a)?;
        if nullish(&v) {
            return Ok(false);
        }
        match v {
            Some(Bson::Array(items)) => out.extend(items),
            other => return Err(not_an_array(&other)),
        }
    }
    Ok(true)
}

pub(crate) fn not_an_array(v: &Value) -> Error {
    Error::location(
        28664,
        format!("$concatArrays only supports arrays, not {}", tname(v)),
    )
}

/// A start/end index argument: integral and non-negative (codes 40096/40097).
pub(crate) fn index_arg(name: &str, what: &str, v: &Value) -> Result<usize> {
    let n = v.as_ref().and_then(as_i32_exact);
    let Some(n) = n else {
        return Err(Error::location(
            40096,
            format!(
                // No space after the name: the server's uassertIfNotIntegralAndNonNegative.
                "{name}requires an integral {what}, found a value of type: {}, with value: {}",
                tname(v),
                show(v)
            ),
        ));
    };
    ensure(n >= 0, 40097, || {
        format!("{name} requires a nonnegative {what}, found: {n}")
    })?;
    Ok(n as usize)
}

fn index_of_array(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let arr = cx.eval(&args[0])?;
    if nullish(&arr) {
        return Ok(Some(Bson::Null));
    }
    let Some(Bson::Array(arr)) = arr else {
        return Err(Error::location(
            40090,
            format!(
                "$indexOfArray requires an array as a first argument, found: {}",
                tname(&arr)
            ),
        ));
    };
    let needle = cx.eval(&args[1])?.unwrap_or(Bson::Undefined);
    let start = match args.get(2) {
        Some(a) => index_arg(name, "starting index", &cx.eval(a)?)?,
        None => 0,
    };
    let end = match args.get(3) {
        Some(a) => index_arg(name, "ending index", &cx.eval(a)?)?.min(arr.len()),
        None => arr.len(),
    };
    for i in start..end {
        if arr.get(i).is_some_and(|e| equal(e, &needle)) {
            return Ok(Some(Bson::Int32(i as i32)));
        }
    }
    Ok(Some(Bson::Int32(-1)))
}

fn slice(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let arr = cx.eval(&args[0])?;
    let a2 = cx.eval(&args[1])?;
    if nullish(&arr) || nullish(&a2) {
        return Ok(Some(Bson::Null));
    }
    let Some(Bson::Array(arr)) = arr else {
        return Err(Error::location(
            28724,
            format!(
                "First argument to $slice must be an array, but is of type: {}",
                tname(&arr)
            ),
        ));
    };
    let a2 = a2.unwrap_or(Bson::Null);
    ensure(is_number(&a2), 28725, || {
        format!(
            "Second argument to $slice must be a numeric value, but is of type: {}",
            crate::text::shell::type_name(&a2)
        )
    })?;
    let Some(n2) = as_i32_exact(&a2) else {
        return Err(Error::location(
            28726,
            format!(
                "Second argument to $slice can't be represented as a 32-bit integer: {}",
                printf_g(to_f64(&a2).unwrap_or(f64::NAN))
            ),
        ));
    };
    let len = arr.len() as i64;
    let n2 = i64::from(n2);
    let (start, end) = if args.len() == 2 {
        if n2 >= 0 {
            (0, n2.min(len))
        } else {
            ((len + n2).max(0), len)
        }
    } else {
        let start = if n2 < 0 {
            (len + n2).max(0)
        } else {
            n2.min(len)
        };
        let cnt = cx.eval(&args[2])?;
        if nullish(&cnt) {
            return Ok(Some(Bson::Null));
        }
        let cnt = cnt.unwrap_or(Bson::Null);
        ensure(is_number(&cnt), 28727, || {
            format!(
                "Third argument to $slice must be numeric, but is of type: {}",
                crate::text::shell::type_name(&cnt)
            )
        })?;
        let Some(c) = as_i32_exact(&cnt) else {
            return Err(Error::location(
                28728,
                format!(
                    "Third argument to $slice can't be represented as a 32-bit integer: {}",
                    printf_g(to_f64(&cnt).unwrap_or(f64::NAN))
                ),
            ));
        };
        ensure(c > 0, 28729, || {
            format!("Third argument to $slice must be positive: {c}")
        })?;
        (start, (start + i64::from(c)).min(len))
    };
    let out: Vec<Bson> = arr
        .into_iter()
        .skip(start as usize)
        .take((end - start).max(0) as usize)
        .collect();
    Ok(Some(Bson::Array(out)))
}

fn range(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let s = cx.eval(&args[0])?;
    let e = cx.eval(&args[1])?;
    let int_arg = |v: &Value, c_num: i32, c_int: i32, what: &str| -> Result<i32> {
        let b = v.clone().unwrap_or(Bson::Undefined);
        ensure(is_number(&b), c_num, || {
            format!(
                "$range requires a numeric {what}, found value of type:{}{}",
                // The server's step message has no space after the colon.
                if c_num == 34447 { "" } else { " " },
                tname(v)
            )
        })?;
        as_i32_exact(&b).ok_or_else(|| {
            Error::location(
                c_int,
                format!(
                    "$range requires {} {what} that can be represented as a 32-bit integer, found value: {}",
                    if what.starts_with('e') { "an" } else { "a" },
                    num_str(&b)
                ),
            )
        })
    };
    let start = int_arg(&s, 34443, 34444, "starting value")?;
    let end = int_arg(&e, 34445, 34446, "ending value")?;
    let mut step = 1i32;
    if let Some(st) = args.get(2) {
        let v = cx.eval(st)?;
        step = int_arg(&v, 34447, 34448, "step value")?;
        ensure(step != 0, 34449, || {
            "$range requires a non-zero step value".into()
        })?;
    }
    let span = (i64::from(end) - i64::from(start)).abs();
    let count = if (step > 0) == (end > start) && end != start {
        (span + i64::from(step).abs() - 1) / i64::from(step).abs()
    } else {
        0
    };
    if count as u64 > MAX_RANGE as u64 {
        return Err(Error::location(
            5029600,
            format!(
                "$range would produce {count} elements; mqlplay limits $range to {MAX_RANGE} elements"
            ),
        ));
    }
    crate::budget::reserve(crate::budget::bytes_for::<Bson>(count as usize))?;
    let mut out = Vec::with_capacity(count as usize);
    let mut cur = i64::from(start);
    for _ in 0..count {
        out.push(Bson::Int32(cur as i32));
        cur += i64::from(step);
    }
    Ok(Some(Bson::Array(out)))
}

fn object_to_array(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    if nullish(&v) {
        return Ok(Some(Bson::Null));
    }
    let Some(Bson::Document(d)) = v else {
        return Err(Error::location(
            40390,
            format!(
                "$objectToArray requires a document input, found: {}",
                tname(&v)
            ),
        ));
    };
    let out = d
        .into_iter()
        .map(|(k, v)| {
            let mut kv = Document::new();
            kv.insert("k", k);
            kv.insert("v", v);
            Bson::Document(kv)
        })
        .collect();
    Ok(Some(Bson::Array(out)))
}

fn array_to_object(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    if nullish(&v) {
        return Ok(Some(Bson::Null));
    }
    let Some(Bson::Array(arr)) = v else {
        return Err(Error::location(
            40386,
            format!(
                "$arrayToObject requires an array input, found: {}",
                tname(&v)
            ),
        ));
    };
    let mut out = Document::new();
    let pairs = match arr.first() {
        None => return Ok(Some(Bson::Document(out))),
        Some(Bson::Array(_)) => true,
        Some(Bson::Document(_)) => false,
        Some(other) => {
            return Err(Error::location(
                40398,
                format!(
                    "Unrecognised input type format for $arrayToObject: {}",
                    crate::text::shell::type_name(other)
                ),
            ))
        }
    };
    for e in arr {
        let (k, v) = if pairs {
            let Bson::Array(kv) = e else {
                return Err(Error::location(40396, format!("$arrayToObject requires a consistent input format. Elements mustall be arrays or all be objects. Array was detected, now found: {}", crate::text::shell::type_name(&e))));
            };
            ensure(kv.len() == 2, 40397, || {
                format!(
                    "$arrayToObject requires an array of size 2 arrays,found array of size: {}",
                    kv.len()
                )
            })?;
            let mut it = kv.into_iter();
            let (k, v) = (
                it.next().unwrap_or(Bson::Null),
                it.next().unwrap_or(Bson::Null),
            );
            let Bson::String(k) = k else {
                return Err(Error::location(40395, format!("$arrayToObject requires an array of key-value pairs, where the key must be of type string. Found key type: {}", crate::text::shell::type_name(&k))));
            };
            (k, v)
        } else {
            let Bson::Document(d) = e else {
                return Err(Error::location(40391, format!("$arrayToObject requires a consistent input format. Elements mustall be arrays or all be objects. Object was detected, now found: {}", crate::text::shell::type_name(&e))));
            };
            ensure(d.len() == 2, 40392, || {
                format!(
                    "$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect number of keys:{}",
                    d.len()
                )
            })?;
            let (Some(k), Some(v)) = (d.get("k"), d.get("v")) else {
                return Err(Error::location(40393, format!("$arrayToObject requires an object with keys 'k' and 'v'. Missing either or both keys from: {}", crate::text::server::server_string(&Bson::Document(d.clone())))));
            };
            let Bson::String(k) = k else {
                return Err(Error::location(40394, format!("$arrayToObject requires an object with keys 'k' and 'v', where the value of 'k' must be of type string. Found type: {}", crate::text::shell::type_name(k))));
            };
            (k.clone(), v.clone())
        };
        ensure(!k.contains('\0'), 4940400, || {
            "Key field cannot contain an embedded null byte".into()
        })?;
        out.insert(k, v);
    }
    Ok(Some(Bson::Document(out)))
}

fn elements_true(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let v = cx.eval(&args[0])?;
    let Some(Bson::Array(arr)) = &v else {
        let code = if name == "$allElementsTrue" {
            17040
        } else {
            17041
        };
        return Err(Error::location(
            code,
            format!("{name}'s argument must be an array, but is {}", tname(&v)),
        ));
    };
    let r = if name == "$allElementsTrue" {
        arr.iter().all(|e| truthy(Some(e)))
    } else {
        arr.iter().any(|e| truthy(Some(e)))
    };
    Ok(Some(Bson::Boolean(r)))
}
