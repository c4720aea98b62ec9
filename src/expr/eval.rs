//! The compiled tree and its evaluator. Operators were resolved at compile
//! time into function pointers (`Call`) or objects (`Special`); evaluation
//! never looks at operator names.
use super::path;
use super::value::Value;
use super::Scope;
use crate::error::Result;
use bson::{Bson, Document};
use std::fmt::Debug;
use std::sync::Arc;

/// An operator over positional arguments: gets its name (for messages), its
/// unevaluated arguments (so it may short-circuit) and the evaluation context.
pub(crate) type EvalFn = fn(&'static str, &[Node], &mut Cx) -> Result<Value>;

/// Operators with named arguments or their own variables. Not `Debug`: the
/// vtables would keep every operator's derived `Debug` in the page's wasm.
pub(crate) trait Special: Send + Sync {
    fn eval(&self, cx: &mut Cx) -> Result<Value>;
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
    /// Local variable slots, pushed and popped by the binding operators.
    pub locals: Vec<Value>,
}

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

    /// Set a slot that is already in scope (loop variables of `$map`/`$filter`/`$reduce`).
    pub fn set_local(&mut self, slot: usize, value: Value) {
        if self.locals.len() <= slot {
            self.locals.resize(slot + 1, None);
        }
        self.locals[slot] = value;
    }
}
