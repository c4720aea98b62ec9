//! Object operators: `$mergeObjects`, `$getField`, `$setField`, `$unsetField`.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/setField/
use crate::error::Result;
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node, Special, VarRef};
use crate::expr::value::{err, nullish, tname, Value};
use crate::text::shell::type_name;
use bson::{Bson, Document};
use std::sync::Arc;

pub(crate) fn c_merge_objects(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, merge_objects, c.args(a)?))
}

/// As the server's `ExpressionFromAccumulator`: one operand that evaluates
/// to an array merges the array's elements; otherwise each operand is one input.
fn merge_objects(_: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let mut out = Document::new();
    if let [only] = args {
        match cx.eval(only)? {
            Some(Bson::Array(items)) => {
                for (i, item) in items.into_iter().enumerate() {
                    merge_into(&mut out, i, Some(item))?;
                }
            }
            v => merge_into(&mut out, 0, v)?,
        }
        return Ok(Some(Bson::Document(out)));
    }
    for (i, a) in args.iter().enumerate() {
        let v = cx.eval(a)?;
        merge_into(&mut out, i, v)?;
    }
    Ok(Some(Bson::Document(out)))
}

fn merge_into(out: &mut Document, i: usize, v: Value) -> Result<()> {
    if nullish(&v) {
        return Ok(());
    }
    match v {
        Some(Bson::Document(d)) => {
            for (k, v) in d {
                out.insert(k, v);
            }
            Ok(())
        }
        other => Err(err(
            40400,
            format!(
                "$mergeObjects requires object inputs, but input {} is of type {}",
                i,
                tname(&other)
            ),
        )),
    }
}

#[derive(Debug)]
struct GetField {
    field: Node,
    input: Node,
}

/// A `field` argument; a field path there is an error (`{$literal: ...}` is meant).
fn field_operand(v: &Bson, c: &mut Compiler, code: i32) -> Result<Node> {
    if let Bson::String(s) = v {
        if let Some(rest) = s.strip_prefix('$') {
            let reference = match rest.strip_prefix('$') {
                Some(var) => format!("${var}"),
                None => format!("$CURRENT.{rest}"),
            };
            return Err(err(
                code,
                format!(
                    "'{reference}' is a field path reference which is not allowed in this context. Did you mean {{$literal: '{reference}'}}?"
                ),
            ));
        }
    }
    c.operand(v)
}

/// The `field` argument: must evaluate to a string.
fn field_name(cx: &mut Cx, n: &Node, op: &str, code: i32) -> Result<String> {
    match cx.eval(n)? {
        Some(Bson::String(s)) => Ok(s),
        other => Err(err(
            code,
            format!(
                "{op} requires 'field' to evaluate to type String, but got {}",
                tname(&other)
            ),
        )),
    }
}

impl Special for GetField {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let field = field_name(cx, &self.field, "$getField", 3041704)?;
        let input = cx.eval(&self.input)?;
        if nullish(&input) {
            return Ok(if input.is_none() {
                None
            } else {
                Some(Bson::Null)
            });
        }
        match input {
            Some(Bson::Document(d)) => Ok(d.get(&field).cloned()),
            other => Err(err(
                3041705,
                format!(
                    "$getField requires 'input' to evaluate to type Object, but got {}",
                    tname(&other)
                ),
            )),
        }
    }
}

pub(crate) fn c_get_field(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let (field, input) = match a {
        Bson::Document(d) if d.keys().next().is_some_and(|k| !k.starts_with('$')) => {
            let (mut field, mut input) = (None, None);
            for (k, v) in d {
                match k.as_str() {
                    "field" => field = Some(field_operand(v, c, 5654600)?),
                    "input" => input = Some(c.operand(v)?),
                    _ => {
                        return Err(err(
                            3041701,
                            format!("$getField found an unknown argument: {k}"),
                        ))
                    }
                }
            }
            let field =
                field.ok_or_else(|| err(3041702, "$getField requires 'field' to be specified"))?;
            (field, input)
        }
        other => (field_operand(other, c, 5654600)?, None),
    };
    match &field {
        Node::Const(Bson::String(_)) | Node::Call(..) | Node::Special(_) => {}
        Node::Const(f) => {
            return Err(err(
                5654602,
                format!(
                    "$getField requires 'field' to evaluate to type String, but got {}",
                    type_name(f)
                ),
            ))
        }
        _ => return Err(err(
            5654601,
            "$getField requires 'field' to evaluate to a constant, but got a non-constant argument",
        )),
    }
    Ok(Node::Special(Arc::new(GetField {
        field,
        input: input.unwrap_or(Node::Var(VarRef::Current, Vec::new())),
    })))
}

#[derive(Debug)]
struct SetField {
    field: String,
    input: Node,
    /// None for `$unsetField` (remove the field).
    value: Option<Node>,
}

impl Special for SetField {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let input = cx.eval(&self.input)?;
        if nullish(&input) {
            return Ok(Some(Bson::Null));
        }
        let Some(Bson::Document(mut d)) = input else {
            return Err(err(
                4161105,
                format!(
                    "{} requires 'input' to evaluate to type Object",
                    if self.value.is_some() {
                        "$setField"
                    } else {
                        "$unsetField"
                    }
                ),
            ));
        };
        let value = match &self.value {
            Some(v) => cx.eval(v)?,
            None => None,
        };
        match value {
            Some(v) => {
                d.insert(self.field.clone(), v);
            }
            None => {
                d.remove(&self.field);
            }
        }
        Ok(Some(Bson::Document(d)))
    }
}

pub(crate) fn c_set_field(name: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let unset = name == "$unsetField";
    let Bson::Document(d) = a else {
        return Err(err(
            4161100,
            format!("{name} only supports an object as its argument"),
        ));
    };
    let (mut field, mut input, mut value) = (None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "field" => field = Some(field_operand(v, c, 4161108)?),
            "input" => input = Some(c.operand(v)?),
            "value" if !unset => value = Some(c.operand(v)?),
            _ => {
                return Err(err(
                    4161101,
                    format!("{name} found an unknown argument: {k}"),
                ))
            }
        }
    }
    let field =
        field.ok_or_else(|| err(4161102, format!("{name} requires 'field' to be specified")))?;
    let input =
        input.ok_or_else(|| err(4161109, format!("{name} requires 'input' to be specified")))?;
    if !unset && value.is_none() {
        return Err(err(
            4161103,
            format!("{name} requires 'value' to be specified"),
        ));
    }
    let field = match field {
        Node::Const(Bson::String(s)) => s,
        Node::Const(other) => {
            return Err(err(
                4161107,
                format!(
                    "{name} requires 'field' to evaluate to type String, but got {}",
                    type_name(&other)
                ),
            ))
        }
        _ => {
            return Err(err(
                4161106,
                // MongoDB names $setField here for $unsetField too.
                "$setField requires 'field' to evaluate to a constant, but got a non-constant argument",
            ));
        }
    };
    Ok(Node::Special(Arc::new(SetField {
        field,
        input,
        value: if unset { None } else { value },
    })))
}
