//! Operators that bind variables: `$let`, `$map`, `$filter`, `$reduce`.
//! Names are resolved to local slots at compile time (see `Compiler::bind`).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/let/
use crate::error::Result;
use crate::expr::compile::Compiler;
use crate::expr::eval::{Cx, Local, Node, Special};
use crate::expr::value::{as_i32_exact, err, nullish, num_str, show, tname, Value};
use bson::{Bson, Document};
use std::borrow::Cow;
use std::sync::Arc;

/// The elements of an array input: borrowed from the document, or owned
/// (computed), handed out as the loop variable's values.
enum Items<'a> {
    Borrowed(std::slice::Iter<'a, Bson>),
    Owned(std::vec::IntoIter<Bson>),
}

impl<'a> Items<'a> {
    /// `Ok(None)` for a nullish input, `Err` (the input, for the message)
    /// for anything else but an array.
    fn of(input: Option<Cow<'a, Bson>>) -> std::result::Result<Option<Items<'a>>, Value> {
        match input {
            Some(Cow::Borrowed(Bson::Array(a))) => Ok(Some(Items::Borrowed(a.iter()))),
            Some(Cow::Owned(Bson::Array(a))) => Ok(Some(Items::Owned(a.into_iter()))),
            other => {
                let v = other.map(Cow::into_owned);
                if nullish(&v) {
                    Ok(None)
                } else {
                    Err(v)
                }
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Items::Borrowed(i) => i.len(),
            Items::Owned(i) => i.len(),
        }
    }
}

impl<'a> Iterator for Items<'a> {
    type Item = Cow<'a, Bson>;

    fn next(&mut self) -> Option<Cow<'a, Bson>> {
        match self {
            Items::Borrowed(i) => i.next().map(Cow::Borrowed),
            Items::Owned(i) => i.next().map(Cow::Owned),
        }
    }
}

fn object_arg<'b>(a: &'b Bson, code: i32, msg: &str) -> Result<&'b Document> {
    match a {
        Bson::Document(d) => Ok(d),
        _ => Err(err(code, msg)),
    }
}

#[derive(Debug)]
struct Let {
    first_slot: usize,
    vars: Vec<Node>,
    body: Node,
}

impl Special for Let {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        // Every value is computed with only the outer variables in scope.
        let mut values = Vec::with_capacity(self.vars.len());
        for v in &self.vars {
            values.push(cx.eval_borrowed(v)?);
        }
        let saved = cx.locals.len();
        for (i, v) in values.into_iter().enumerate() {
            cx.set_local(self.first_slot + i, v);
        }
        let out = cx.eval(&self.body);
        cx.locals.truncate(saved);
        out
    }
}

pub(crate) fn c_let(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let d = object_arg(a, 16874, "$let only supports an object as its argument")?;
    let (mut vars, mut body) = (None, None);
    for (k, v) in d {
        match k.as_str() {
            "vars" => vars = Some(v),
            "in" => body = Some(v),
            _ => return Err(err(16875, format!("Unrecognized parameter to $let: {k}"))),
        }
    }
    let vars = vars.ok_or_else(|| err(16876, "Missing 'vars' parameter to $let"))?;
    let body = body.ok_or_else(|| err(16877, "Missing 'in' parameter to $let"))?;
    let Bson::Document(vars) = vars else {
        return Err(err(10065, "invalid parameter: expected an object (vars)"));
    };
    let mut nodes = Vec::with_capacity(vars.len());
    for (_, v) in vars {
        nodes.push(c.operand(v)?);
    }
    let first_slot = c.next_slot();
    for (name, _) in vars {
        c.bind(name)?;
    }
    let body = c.operand(body);
    c.unbind(vars.len());
    Ok(Node::Special(Arc::new(Let {
        first_slot,
        vars: nodes,
        body: body?,
    })))
}

/// `as` names the element variable (default `this`).
fn as_name(v: Option<&Bson>) -> Result<String> {
    match v {
        None => Ok("this".to_string()),
        Some(Bson::String(s)) => Ok(s.clone()),
        // MongoDB reads `as` with BSONElement::str(), which is "" for non-strings.
        Some(_) => Ok(String::new()),
    }
}

#[derive(Debug)]
struct Map {
    input: Node,
    slot: usize,
    body: Node,
}

impl Special for Map {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let input = cx.eval_borrowed(&self.input)?;
        let items = match Items::of(input) {
            Ok(Some(items)) => items,
            Ok(None) => return Ok(Some(Bson::Null)),
            Err(input) => {
                return Err(err(
                    16883,
                    format!("input to $map must be an array not {}", tname(&input)),
                ))
            }
        };
        let saved = cx.locals.len();
        let mut out = Vec::with_capacity(items.len());
        let mut result = Ok(());
        for item in items {
            cx.set_local(self.slot, Some(item));
            match cx.eval(&self.body) {
                Ok(v) => out.push(v.unwrap_or(Bson::Null)),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        cx.locals.truncate(saved);
        result.map(|_| Some(Bson::Array(out)))
    }
}

pub(crate) fn c_map(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let d = object_arg(a, 16878, "$map only supports an object as its argument")?;
    let (mut input, mut as_, mut body) = (None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(v),
            "as" => as_ = Some(v),
            "in" => body = Some(v),
            _ => return Err(err(16879, format!("Unrecognized parameter to $map: {k}"))),
        }
    }
    let input = input.ok_or_else(|| err(16880, "Missing 'input' parameter to $map"))?;
    let body = body.ok_or_else(|| err(16882, "Missing 'in' parameter to $map"))?;
    let input = c.operand(input)?;
    let slot = c.bind(&as_name(as_)?)?;
    let body = c.operand(body);
    c.unbind(1);
    Ok(Node::Special(Arc::new(Map {
        input,
        slot,
        body: body?,
    })))
}

#[derive(Debug)]
struct Filter {
    input: Node,
    slot: usize,
    cond: Node,
    limit: Option<Node>,
}

impl Special for Filter {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        Ok(self.run(cx)?.map(Cow::into_owned))
    }

    fn eval_borrowed<'a>(&self, cx: &mut Cx<'a>) -> Result<Local<'a>> {
        self.run(cx)
    }
}

impl Filter {
    /// The kept elements; the input itself, borrowed, when it is a part of
    /// the document and every element is kept (a window that drops nothing).
    fn run<'a>(&self, cx: &mut Cx<'a>) -> Result<Local<'a>> {
        let input = cx.eval_borrowed(&self.input)?;
        let whole: Option<&'a [Bson]> = match input {
            Some(Cow::Borrowed(Bson::Array(a))) => Some(a),
            _ => None,
        };
        let whole_input = whole.is_some().then(|| input.clone()).flatten();
        let items = match Items::of(input) {
            Ok(Some(items)) => items,
            Ok(None) => return Ok(Some(Cow::Owned(Bson::Null))),
            Err(input) => {
                return Err(err(
                    28651,
                    format!("input to $filter must be an array not {}", tname(&input)),
                ))
            }
        };
        // An empty input is the answer before `limit` is even evaluated
        // (the server's $filter returns it first).
        if items.len() == 0 {
            return Ok(Some(
                whole_input.unwrap_or(Cow::Owned(Bson::Array(Vec::new()))),
            ));
        }
        let limit = self.limit(cx)?;
        let total = items.len();
        let saved = cx.locals.len();
        // Built only once an element is dropped (or the input is computed):
        // until then the kept elements are the input's first `kept`.
        let mut out = whole
            .is_none()
            .then(|| Vec::with_capacity(total.min(limit)));
        let mut kept = 0;
        let mut result = Ok(());
        for (i, item) in items.enumerate() {
            if kept >= limit {
                break;
            }
            // The element moves into its variable's slot and back out, uncopied;
            // an element of the document is borrowed, and copied only when kept.
            // (Slots nested inside `cond` are other slots: this one is intact.)
            cx.set_local(self.slot, Some(item));
            let keep = cx.eval_truthy(&self.cond);
            let item = cx.locals.get_mut(self.slot).and_then(Option::take);
            match keep {
                Ok(true) => {
                    kept += 1;
                    if let Some(out) = &mut out {
                        out.extend(item.map(Cow::into_owned));
                    }
                }
                Ok(false) => {
                    if out.is_none() {
                        out = Some(whole.map_or_else(Vec::new, |a| prefix(a, i)));
                    }
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        cx.locals.truncate(saved);
        result?;
        Ok(Some(match (out, whole_input) {
            (Some(out), _) => Cow::Owned(Bson::Array(out)),
            (None, Some(input)) if kept == total => input,
            (None, _) => Cow::Owned(Bson::Array(
                whole.map_or_else(Vec::new, |a| prefix(a, kept)),
            )),
        }))
    }

    /// `limit`, evaluated: `usize::MAX` when absent or nullish.
    fn limit(&self, cx: &mut Cx) -> Result<usize> {
        let Some(l) = &self.limit else {
            return Ok(usize::MAX);
        };
        let lv = cx.eval(l)?;
        if nullish(&lv) {
            return Ok(usize::MAX);
        }
        let Some(n) = lv.as_ref().and_then(as_i32_exact) else {
            return Err(err(
                327391,
                format!(
                    "$filter: limit must be represented as a 32-bit integral value: {}",
                    lv.as_ref().map_or_else(|| show(&lv), num_str)
                ),
            ));
        };
        if n < 1 {
            return Err(err(
                327392,
                format!("$filter: limit must be greater than 0: {n}"),
            ));
        }
        Ok(n as usize)
    }
}

/// A copy of the first `n` elements.
fn prefix(a: &[Bson], n: usize) -> Vec<Bson> {
    a.get(..n).map_or_else(|| a.to_vec(), <[Bson]>::to_vec)
}

pub(crate) fn c_filter(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let d = object_arg(a, 28646, "$filter only supports an object as its argument")?;
    let (mut input, mut as_, mut cond, mut limit) = (None, None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(v),
            "as" => as_ = Some(v),
            "cond" => cond = Some(v),
            "limit" => limit = Some(v),
            _ => {
                return Err(err(
                    28647,
                    format!("Unrecognized parameter to $filter: {k}"),
                ))
            }
        }
    }
    let input = input.ok_or_else(|| err(28648, "Missing 'input' parameter to $filter"))?;
    let cond = cond.ok_or_else(|| err(28650, "Missing 'cond' parameter to $filter"))?;
    let input = c.operand(input)?;
    let limit = limit.map(|l| c.operand(l)).transpose()?;
    let slot = c.bind(&as_name(as_)?)?;
    let cond = c.operand(cond);
    c.unbind(1);
    Ok(Node::Special(Arc::new(Filter {
        input,
        slot,
        cond: cond?,
        limit,
    })))
}

#[derive(Debug)]
struct Reduce {
    input: Node,
    initial: Node,
    this_slot: usize,
    value_slot: usize,
    body: Node,
    /// `body` appends these to `$$value` (`reduce_append`).
    appended: Option<Vec<Node>>,
}

impl Special for Reduce {
    fn eval(&self, cx: &mut Cx) -> Result<Value> {
        let input = cx.eval_borrowed(&self.input)?;
        let items = match Items::of(input) {
            Ok(Some(items)) => items,
            Ok(None) => return Ok(Some(Bson::Null)),
            Err(input) => {
                return Err(err(
                    40080,
                    format!(
                        "$reduce requires that 'input' be an array, found: {}",
                        show(&input)
                    ),
                ))
            }
        };
        let mut acc = cx.eval(&self.initial)?;
        let saved = cx.locals.len();
        let mut result = Ok(());
        if let Some(rest) = &self.appended {
            let mut checked = 0;
            for item in items {
                cx.set_local(self.this_slot, Some(item));
                match super::reduce_append::step(&mut acc, rest, &mut checked, element_too_deep, cx)
                {
                    Ok(true) => {}
                    Ok(false) => {
                        result = Err(too_deep_error());
                        break;
                    }
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            cx.locals.truncate(saved);
            return result.map(|_| acc);
        }
        for item in items {
            cx.set_local(self.this_slot, Some(item));
            cx.set_local(self.value_slot, acc.take().map(Cow::Owned));
            match cx.eval(&self.body) {
                Ok(v) if v.as_ref().is_some_and(too_deep) => {
                    result = Err(too_deep_error());
                    break;
                }
                Ok(v) => acc = v,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        cx.locals.truncate(saved);
        result.map(|_| acc)
    }
}

pub(crate) fn c_reduce(_: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    let Bson::Document(d) = a else {
        return Err(err(
            40075,
            format!(
                "$reduce requires an object as an argument, found: {}",
                tname(&Some(a.clone()))
            ),
        ));
    };
    let (mut input, mut initial, mut body) = (None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(c.operand(v)?),
            "initialValue" => initial = Some(c.operand(v)?),
            "in" => body = Some(v),
            _ => {
                return Err(err(
                    40076,
                    format!("$reduce found an unknown argument: {k}"),
                ))
            }
        }
    }
    let input = input.ok_or_else(|| err(40077, "$reduce requires 'input' to be specified"))?;
    let initial =
        initial.ok_or_else(|| err(40078, "$reduce requires 'initialValue' to be specified"))?;
    let body = body.ok_or_else(|| err(40079, "$reduce requires 'in' to be specified"))?;
    let this_slot = c.bind("this")?;
    let value_slot = c.bind("value")?;
    let body = c.operand(body);
    c.unbind(2);
    let body = body?;
    Ok(Node::Special(Arc::new(Reduce {
        input,
        initial,
        this_slot,
        value_slot,
        appended: super::reduce_append::appended(&body, value_slot),
        body,
    })))
}

/// BSONDepth::kDefaultMaxAllowableDepth. `$reduce` is the one expression that
/// feeds its result back into itself, so only it can nest a value without
/// bound (`in: {a: '$$value'}`); deeper values would overflow the stack of
/// everything that walks them.
const MAX_VALUE_DEPTH: usize = 200;

fn too_deep_error() -> crate::error::Error {
    crate::error::Error::overflow(format!(
        "$reduce built a value nested more than {MAX_VALUE_DEPTH} levels deep, MongoDB's limit for BSON"
    ))
}

/// Whether a value has more than MAX_VALUE_DEPTH levels of non-empty containers.
fn too_deep(v: &Bson) -> bool {
    deeper(v, MAX_VALUE_DEPTH)
}

/// Whether an array holding `e` would be [`too_deep`].
fn element_too_deep(e: &Bson) -> bool {
    nested(e, MAX_VALUE_DEPTH - 1)
}

fn nested(c: &Bson, left: usize) -> bool {
    matches!(c, Bson::Document(_) | Bson::Array(_)) && deeper(c, left)
}

fn deeper(v: &Bson, budget: usize) -> bool {
    match (v, budget.checked_sub(1)) {
        (Bson::Document(d), _) if d.is_empty() => false,
        (Bson::Array(a), _) if a.is_empty() => false,
        (Bson::Document(_) | Bson::Array(_), None) => true,
        (Bson::Document(d), Some(left)) => d.values().any(|c| nested(c, left)),
        (Bson::Array(a), Some(left)) => a.iter().any(|c| nested(c, left)),
        _ => false,
    }
}
