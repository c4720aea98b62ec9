//! The compiled tree and its evaluator. Operators were resolved at compile
//! time into function pointers (`Call`) or objects (`Special`); evaluation
//! never looks at operator names.
use super::path;
use super::value::Value;
use super::Scope;
use crate::error::Result;
use bson::{Bson, Document};
use std::borrow::Cow;
use std::fmt::Debug;
use std::sync::Arc;

/// An operator over positional arguments: gets its name (for messages), its
/// unevaluated arguments (so it may short-circuit) and the evaluation context.
pub(crate) type EvalFn = fn(&'static str, &[Node], &mut Cx) -> Result<Value>;

/// Operators with named arguments or their own variables. Not `Debug`: the
/// vtables would keep every operator's derived `Debug` in the page's wasm.
pub(crate) trait Special: Send + Sync {
    fn eval(&self, cx: &mut Cx) -> Result<Value>;

    /// [`Special::eval`], the value borrowed from the document where the
    /// operator answers with a part of it (`$filter` that keeps every element).
    fn eval_borrowed<'a>(&self, cx: &mut Cx<'a>) -> Result<Local<'a>> {
        Ok(self.eval(cx)?.map(Cow::Owned))
    }
}

impl Debug for dyn Special {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Special")
    }
}

/// Where a variable reference reads from.
#[derive(Clone, Debug)]
pub(crate) enum VarRef {
    Root,
    Current,
    /// A slot of `$let`/`$map`/`$filter`/`$reduce`/... (index into `Cx::locals`).
    Local(usize),
    /// A user variable bound in the `Scope` (the `let` option).
    User(String),
    Now,
    /// `$$CLUSTER_TIME`: the run's clock as a timestamp, the value
    /// `$currentDate: {$type: "timestamp"}` stores.
    ClusterTime,
}

#[derive(Clone, Debug)]
pub(crate) enum Node {
    Const(Bson),
    Missing,
    /// A variable and a field path below it (`"$a.b"` is `Current` + `[a, b]`).
    Var(VarRef, Vec<String>),
    /// `{a: <expr>, ...}`; fields evaluating to missing are dropped.
    Object(Vec<(String, Node)>),
    /// `[<expr>, ...]`; missing elements become null.
    Array(Vec<Node>),
    Call(&'static str, EvalFn, Vec<Node>),
    Special(Arc<dyn Special>),
}

/// Evaluation state for one document.
pub(crate) struct Cx<'a> {
    pub root: &'a Document,
    /// `$$CURRENT` when it differs from `$$ROOT`.
    pub current: Option<&'a Bson>,
    pub scope: &'a Scope<'a>,
    /// Local variable slots, pushed and popped by the binding operators: an
    /// element of the document (`$$this` over one of its arrays) is borrowed.
    pub locals: Vec<Local<'a>>,
}

/// A local variable's value: `None` is missing.
pub(crate) type Local<'a> = Option<Cow<'a, Bson>>;

impl<'a> Cx<'a> {
    pub fn new(root: &'a Document, current: Option<&'a Bson>, scope: &'a Scope<'a>) -> Cx<'a> {
        Cx {
            root,
            current,
            scope,
            locals: Vec::new(),
        }
    }

    pub fn eval(&mut self, node: &Node) -> Result<Value> {
        let value = self.eval_node(node)?;
        // Every value an expression builds passes here: the run's memory budget.
        crate::budget::check()?;
        Ok(value)
    }

    fn eval_node(&mut self, node: &Node) -> Result<Value> {
        match node {
            Node::Const(v) => Ok(Some(v.clone())),
            Node::Missing => Ok(None),
            Node::Var(var, p) => Ok(self.read_var(var, p)),
            Node::Object(fields) => {
                let mut out = Document::new();
                for (k, e) in fields {
                    if let Some(v) = self.eval(e)? {
                        out.insert(k.clone(), v);
                    }
                }
                Ok(Some(Bson::Document(out)))
            }
            Node::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for e in items {
                    out.push(self.eval(e)?.unwrap_or(Bson::Null));
                }
                Ok(Some(Bson::Array(out)))
            }
            Node::Call(name, f, args) => f(name, args, self),
            Node::Special(s) => s.eval(self),
        }
    }

    /// Whether `node` is true (`coerceToBool`): a condition (`$filter`'s
    /// `cond`, `$cond`'s `if`, `$and`'s arguments). A field path is read in
    /// place; the condition's own value is dropped at once, so it is not
    /// weighed against the budget (the values it was built from were).
    pub fn eval_truthy(&mut self, node: &Node) -> Result<bool> {
        match node {
            Node::Var(..) => Ok(super::value::truthy(self.eval_borrowed(node)?.as_deref())),
            _ => Ok(super::value::truthy_v(&self.eval_node(node)?)),
        }
    }

    /// Evaluate every argument, in order.
    pub fn eval_all(&mut self, args: &[Node]) -> Result<Vec<Value>> {
        args.iter().map(|a| self.eval(a)).collect()
    }

    fn read_var(&self, var: &VarRef, p: &[String]) -> Value {
        match var {
            VarRef::Root => path::lookup_doc(self.root, p),
            VarRef::Current => match self.current {
                None => path::lookup_doc(self.root, p),
                Some(c) => path::lookup(c, p),
            },
            VarRef::Local(i) => match self.locals.get(*i) {
                Some(Some(v)) => path::lookup(v, p),
                _ => None,
            },
            VarRef::User(name) => self.scope.var(name).and_then(|v| path::lookup(v, p)),
            VarRef::Now => {
                if p.is_empty() {
                    Some(Bson::DateTime(self.scope.run.now))
                } else {
                    None
                }
            }
            VarRef::ClusterTime => {
                if p.is_empty() {
                    let secs = self.scope.run.now.timestamp_millis().div_euclid(1000);
                    Some(Bson::Timestamp(bson::Timestamp {
                        time: u32::try_from(secs).unwrap_or(0),
                        increment: 1,
                    }))
                } else {
                    None
                }
            }
        }
    }

    /// The value of `node`, borrowed from the document when it is a field
    /// path below `$$ROOT`, `$$CURRENT` or a variable holding a part of the
    /// document, that crosses no array (what `$filter`, `$map`, `$reduce`
    /// and `$let` bind); else evaluated. `None` is missing.
    pub fn eval_borrowed(&mut self, node: &Node) -> Result<Local<'a>> {
        // `$ifNull` answers with one of its arguments: a field path stays borrowed.
        if let Node::Call(name, _, args) = node {
            if *name == "$ifNull" {
                return self.if_null_borrowed(args);
            }
        }
        if let Node::Special(s) = node {
            let value = s.eval_borrowed(self)?;
            crate::budget::check()?;
            return Ok(value);
        }
        if let Node::Var(var, p) = node {
            let base: Option<&'a Bson> = match var {
                VarRef::Root if p.is_empty() => None,
                VarRef::Root => return self.borrow_in_doc(self.root, p, node),
                VarRef::Current => match self.current {
                    None if p.is_empty() => None,
                    None => return self.borrow_in_doc(self.root, p, node),
                    Some(c) => Some(c),
                },
                VarRef::Local(i) => match self.locals.get(*i) {
                    Some(Some(Cow::Borrowed(b))) => Some(*b),
                    _ => None,
                },
                _ => None,
            };
            if let Some(found) = base.and_then(|b| path::borrow(b, p)) {
                return Ok(found.map(Cow::Borrowed));
            }
        }
        Ok(self.eval(node)?.map(Cow::Owned))
    }

    /// [`Cx::eval_borrowed`], and a constant borrowed from the tree (an
    /// operand that is only read: a comparison's string copies nothing).
    #[inline]
    pub fn eval_operand<'n>(&mut self, node: &'n Node) -> Result<Option<Cow<'n, Bson>>>
    where
        'a: 'n,
    {
        match node {
            Node::Const(v) => Ok(Some(Cow::Borrowed(v))),
            _ => self.eval_borrowed(node),
        }
    }

    /// `$ifNull` by reference: the first argument that is not null or
    /// missing, else the last one as it is.
    fn if_null_borrowed(&mut self, args: &[Node]) -> Result<Local<'a>> {
        let last = args.len().saturating_sub(1);
        for (i, a) in args.iter().enumerate() {
            let v = self.eval_borrowed(a)?;
            let nullish = matches!(v.as_deref(), None | Some(Bson::Null | Bson::Undefined));
            if !nullish || i == last {
                return Ok(v);
            }
        }
        Ok(None)
    }

    /// [`path::borrow_values`] for a field path `node` below `$$ROOT`,
    /// `$$CURRENT` or a variable holding a part of the document; `None`
    /// for any other node (evaluate it instead).
    pub fn borrow_values(&self, node: &Node) -> Option<path::Found<'a>> {
        let Node::Var(var, p) = node else {
            return None;
        };
        let base: &'a Bson = match var {
            VarRef::Root => return path::borrow_values_doc(self.root, p),
            VarRef::Current => match self.current {
                None => return path::borrow_values_doc(self.root, p),
                Some(c) => c,
            },
            VarRef::Local(i) => match self.locals.get(*i) {
                Some(Some(Cow::Borrowed(b))) => b,
                _ => return None,
            },
            _ => return None,
        };
        path::borrow_values(base, p)
    }

    /// [`path::visit_values`] for a field path `node`, as [`Cx::borrow_values`]
    /// reads it; `None` for any other node or a path it cannot visit.
    pub fn visit_values(&self, node: &Node, visit: &mut dyn FnMut(&'a Bson)) -> Option<()> {
        let Node::Var(var, p) = node else {
            return None;
        };
        let base: &'a Bson = match var {
            VarRef::Root => return path::visit_values_doc(self.root, p, visit),
            VarRef::Current => match self.current {
                None => return path::visit_values_doc(self.root, p, visit),
                Some(c) => c,
            },
            VarRef::Local(i) => match self.locals.get(*i) {
                Some(Some(Cow::Borrowed(b))) => b,
                _ => return None,
            },
            _ => return None,
        };
        path::visit_values(base, p, visit)
    }

    fn borrow_in_doc(&mut self, doc: &'a Document, p: &[String], node: &Node) -> Result<Local<'a>> {
        match path::borrow_doc(doc, p) {
            Some(found) => Ok(found.map(Cow::Borrowed)),
            None => Ok(self.eval(node)?.map(Cow::Owned)),
        }
    }

    /// Set a slot that is already in scope (loop variables of `$map`/`$filter`/`$reduce`).
    pub fn set_local(&mut self, slot: usize, value: Local<'a>) {
        if self.locals.len() <= slot {
            self.locals.resize(slot + 1, None);
        }
        self.locals[slot] = value;
    }
}
