//! Literal syntax → `bson::Bson`: object/array literals, shell constructors
//! (`ObjectId()`, `ISODate()`, `NumberLong()`...), variable references.
use super::ast::{BinOp, Node, NodeKind, Property};
use super::ctors;
use super::extjson::is_wrapper_key;
use super::number::typed_number;
use crate::error::{Error, Result, Span};
use bson::oid::ObjectId;
use bson::{Bson, Document};
use std::collections::HashMap;

/// What lowering needs besides the node.
pub struct LowerCtx<'a> {
    /// Values bound by earlier `const/let/var` statements.
    pub vars: &'a HashMap<String, Bson>,
    /// The run's clock: `new Date()`, `ISODate()`, `Date()` read it.
    pub now: bson::DateTime,
    /// Accept Extended JSON v2 wrappers (`{"$oid": ...}`); true for configurations.
    pub extjson: bool,
    /// Source of fresh ids for `ObjectId()` / `new ObjectId` (and `UUID()`).
    pub new_id: &'a dyn NewId,
    /// The run's time zone for local-time dates (`None`: UTC).
    pub tz: Option<crate::tzdb::Tz>,
}

/// Where `ObjectId()` gets a fresh id: the database's seeded generator, or any
/// `Fn() -> ObjectId` (tests pass a function).
pub trait NewId {
    fn new_id(&self) -> ObjectId;
}

impl<F: Fn() -> ObjectId> NewId for F {
    fn new_id(&self) -> ObjectId {
        self()
    }
}

/// Turn a literal node into a BSON value, or explain why it is not one.
///
/// `undefined` becomes null: the Node.js driver under mongosh serialises
/// undefined as null unless `ignoreUndefined` is set, and it is not by default
/// (https://www.mongodb.com/docs/drivers/node/current/data-formats/bson/undefined-values/).
pub fn lower(node: &Node, ctx: &LowerCtx) -> Result<Bson> {
    lower_inner(node, ctx).map_err(|e| e.at(node.span))
}

fn lower_inner(node: &Node, ctx: &LowerCtx) -> Result<Bson> {
    match &node.kind {
        NodeKind::Value(v) => Ok(v.clone()),
        NodeKind::Undefined => Ok(Bson::Null),
        NodeKind::Object(props) => lower_object(props, node.span, ctx),
        NodeKind::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(lower(item, ctx)?);
                // Each variable named copies its value (`[a, a]` doubles it).
                crate::budget::check_for(crate::budget::KEPT)?;
            }
            Ok(Bson::Array(out))
        }
        NodeKind::Ident(name) => lookup(name, ctx),
        NodeKind::Member {
            object,
            property,
            property_span,
        } => {
            let target = lower(object, ctx)?;
            ctors::property(&target, property).map_err(|e| e.at(*property_span))
        }
        NodeKind::Index { object, index } => {
            let target = lower(object, ctx)?;
            let key = lower(index, ctx)?;
            index_value(&target, &key).map_err(|e| e.at(index.span))
        }
        NodeKind::Call { callee, args } => ctors::call(callee, args, false, ctx),
        NodeKind::New { callee, args } => ctors::call(callee, args, true, ctx),
        NodeKind::Binary { op, left, right } => {
            let l = lower(left, ctx)?;
            let r = lower(right, ctx)?;
            arithmetic(*op, &l, &r)
        }
        NodeKind::Neg(inner) => match lower(inner, ctx)? {
            Bson::Int32(i) => Ok(typed_number(-f64::from(i))),
            Bson::Double(d) => Ok(typed_number(-d)),
            Bson::Int64(i) => i
                .checked_neg()
                .map(Bson::Int64)
                .ok_or_else(|| Error::bad_value("BigInt negation overflows")),
            other => Err(Error::type_mismatch(format!(
                "cannot negate a value of type {:?}",
                other.element_type()
            ))),
        },
    }
}

/// `l op r` on numbers, as JavaScript computes it (IEEE doubles; `%` keeps
/// the dividend's sign), typed as mongosh types numbers. A date counts as its
/// milliseconds in `- * / %` (JavaScript's valueOf); `+` on a date would
/// build a string, and strings, BigInts and other values are refused.
fn arithmetic(op: BinOp, l: &Bson, r: &Bson) -> Result<Bson> {
    let sign = match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
    };
    let num = |v: &Bson| match v {
        Bson::Int32(i) => Some(f64::from(*i)),
        Bson::Double(d) => Some(*d),
        Bson::DateTime(d) if op != BinOp::Add => Some(d.timestamp_millis() as f64),
        _ => None,
    };
    let (Some(a), Some(b)) = (num(l), num(r)) else {
        let what = |v: &Bson| match v {
            Bson::DateTime(_) if op == BinOp::Add => {
                "a date (use getTime() or subtract)".to_string()
            }
            Bson::Int64(_) => "a BigInt/NumberLong".to_string(),
            other => format!("a value of type {:?}", other.element_type()),
        };
        let bad = if num(l).is_none() { l } else { r };
        return Err(Error::not_supported(format!(
            "the {sign} operator on {} (only numbers and dates are folded)",
            what(bad)
        )));
    };
    Ok(typed_number(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div => a / b,
        BinOp::Rem => a % b,
    }))
}

/// An identifier used as a value: a variable, or `MinKey`/`MaxKey`.
fn lookup(name: &str, ctx: &LowerCtx) -> Result<Bson> {
    if let Some(v) = ctx.vars.get(name) {
        return Ok(v.clone());
    }
    match name {
        "MinKey" => Ok(Bson::MinKey),
        "MaxKey" => Ok(Bson::MaxKey),
        "db" => Err(Error::not_supported(
            "using a database call as a literal value",
        )),
        _ if ctors::is_shell_global(name) => Err(Error::not_supported(format!("mongosh's {name}"))),
        _ if ctors::is_constructor(name) => Err(Error::failed_to_parse(format!(
            "{name} is a function: call it, as in {name}(...)"
        ))),
        _ => Err(Error::failed_to_parse(format!(
            "ReferenceError: {name} is not defined"
        ))),
    }
}

/// `x[0]`, `x["a"]` on a variable's value.
fn index_value(target: &Bson, key: &Bson) -> Result<Bson> {
    let n = match key {
        Bson::Int32(i) => Some(i64::from(*i)),
        Bson::Int64(i) => Some(*i),
        Bson::Double(d) if d.fract() == 0.0 => Some(*d as i64),
        _ => None,
    };
    match (target, key, n) {
        (Bson::Array(items), _, Some(i)) => Ok(usize::try_from(i)
            .ok()
            .and_then(|i| items.get(i))
            .cloned()
            .unwrap_or(Bson::Null)),
        (_, Bson::String(s), _) => ctors::property(target, s),
        (_, _, Some(i)) => ctors::property(target, &i.to_string()),
        _ => Err(Error::type_mismatch("unsupported index expression")),
    }
}

/// Object literal → document. JavaScript keeps a repeated key at its first
/// position with its last value; `Document::insert` does exactly that.
fn lower_object(props: &[Property], span: Span, ctx: &LowerCtx) -> Result<Bson> {
    if ctx.extjson && props.first().is_some_and(|p| is_wrapper_key(&p.key)) {
        return extjson_wrapper(props, span);
    }
    let mut doc = Document::new();
    for p in props {
        let v = lower(&p.value, ctx)?;
        doc.insert(p.key.as_str(), v);
        crate::budget::check_for(crate::budget::KEPT)?;
    }
    Ok(Bson::Document(doc))
}

/// Convert a wrapper object as the bson crate's Extended JSON reader does.
fn extjson_wrapper(props: &[Property], span: Span) -> Result<Bson> {
    let mut map = serde_json::Map::new();
    for p in props {
        map.insert(p.key.clone(), to_json(&p.value)?);
    }
    super::extjson::to_bson(serde_json::Value::Object(map))
        .map_err(|e| Error::failed_to_parse(format!("invalid Extended JSON: {e}")).at(span))
}

/// An integral double that JSON text would have written as an integer.
fn is_json_integer(d: f64) -> bool {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    d.fract() == 0.0 && (-LIMIT..LIMIT).contains(&d) && !(d == 0.0 && d.is_sign_negative())
}

/// Plain JSON inside a wrapper (strings, numbers, booleans, null, nesting).
fn to_json(node: &Node) -> Result<serde_json::Value> {
    use serde_json::Value as J;
    let bad = || {
        Error::failed_to_parse("invalid Extended JSON: expected plain JSON inside the wrapper")
            .at(node.span)
    };
    Ok(match &node.kind {
        NodeKind::Value(Bson::String(s)) => J::String(s.clone()),
        NodeKind::Value(Bson::Int32(i)) => J::from(*i),
        NodeKind::Value(Bson::Int64(i)) => J::from(*i),
        // The reader types numbers as JavaScript does (an integer past int32 is a
        // double); inside a wrapper they are JSON integers again, as in the text
        // (`{"$timestamp": {"t": 4294967295, "i": 1}}`).
        NodeKind::Value(Bson::Double(d)) if is_json_integer(*d) => J::from(*d as i64),
        NodeKind::Value(Bson::Double(d)) => serde_json::Number::from_f64(*d)
            .map(J::Number)
            .ok_or_else(bad)?,
        NodeKind::Value(Bson::Boolean(b)) => J::Bool(*b),
        NodeKind::Value(Bson::Null) => J::Null,
        NodeKind::Object(props) => {
            let mut map = serde_json::Map::new();
            for p in props {
                map.insert(p.key.clone(), to_json(&p.value)?);
            }
            J::Object(map)
        }
        NodeKind::Array(items) => J::Array(items.iter().map(to_json).collect::<Result<_>>()?),
        _ => return Err(bad()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::parser::parse_expression;
    use bson::doc;

    pub(crate) fn fixed_id() -> ObjectId {
        ObjectId::from_bytes([7; 12])
    }

    fn ctx_with<'a>(vars: &'a HashMap<String, Bson>, extjson: bool) -> LowerCtx<'a> {
        LowerCtx {
            vars,
            now: bson::DateTime::from_millis(1_000),
            extjson,
            new_id: &fixed_id,
            tz: None,
        }
    }

    fn val(src: &str) -> Bson {
        let vars = HashMap::from([
            ("x".to_string(), Bson::Int32(5)),
            ("d".to_string(), Bson::Document(doc! {"a": [1, 2]})),
        ]);
        let node = parse_expression(src).expect("parses");
        lower(&node, &ctx_with(&vars, true)).expect("lowers")
    }
    fn lower_err(src: &str) -> Error {
        let vars = HashMap::new();
        let node = parse_expression(src).expect("parses");
        let e = lower(&node, &ctx_with(&vars, false)).expect_err("fails");
        let span = e.span.expect("span");
        assert!(span.end <= src.len());
        e
    }

    #[test]
    fn literals() {
        assert_eq!(
            val("{b: 1, a: [true, null, undefined, 'x'], b: 2}"),
            Bson::Document(doc! {"b": 2, "a": [true, Bson::Null, Bson::Null, "x"]})
        );
        assert_eq!(val("-x"), Bson::Int32(-5));
        assert_eq!(val("d.a[1]"), Bson::Int32(2));
        // As mongosh's driver writes it: g becomes the s option.
        assert_eq!(
            val("/^123_/gi"),
            crate::shell::regex::regex_value("^123_", "is").expect("regex")
        );
    }

    #[test]
    fn extjson() {
        let v = val(
            r#"{"a": {"$oid": "5a934e000102030405000000"}, "b": {"$date": {"$numberLong": "1000"}}, "c": {"$numberLong": "7"}}"#,
        );
        assert_eq!(
            v,
            Bson::Document(doc! {
                "a": ObjectId::parse_str("5a934e000102030405000000").expect("oid"),
                "b": bson::DateTime::from_millis(1000),
                "c": 7i64,
            })
        );
        assert_eq!(
            val(r#"{"$date": "2023-10-26T15:47:03.434Z"}"#),
            Bson::DateTime(bson::DateTime::from_millis(1_698_335_223_434))
        );
        // Without extjson, `$oid` is just a field name.
        let vars = HashMap::new();
        let node = parse_expression(r#"{"$oid": "x"}"#).expect("parses");
        assert_eq!(
            lower(&node, &ctx_with(&vars, false)).expect("ok"),
            Bson::Document(doc! {"$oid": "x"})
        );
    }

    #[test]
    fn errors() {
        let e = lower_err("{a: ObjectId(\"5a934e00010203040500000\")}");
        assert!(
            e.message.contains("24 character hex string"),
            "{}",
            e.message
        );
        assert_eq!(e.span, Some(Span::new(4, 39)));
        assert!(lower_err("[foo]").message.contains("foo is not defined"));
    }
}
