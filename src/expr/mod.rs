//! The aggregation expression language: compiled once from BSON into a tree,
//! then evaluated per document. The one place where expressions live: `$expr`,
//! pipeline stages and pipeline updates all use it.
//!
//! # Using it
//! ```
//! # use mqlplay::expr::{CompileCtx, Expr, Scope};
//! # use bson::{bson, doc, Bson};
//! let spec = bson!({ "$add": ["$a", 1] });
//! let expr = Expr::compile(&spec, &CompileCtx::default())?;   // names resolved, args checked
//! let run = mqlplay::RunCtx::default();
//! let scope = Scope::new(&run);                               // $$NOW, $rand seed
//! let out: Option<Bson> = expr.evaluate(&doc! { "a": 2 }, &scope)?; // None = missing
//! assert_eq!(out, Some(Bson::Int32(3)));
//! # Ok::<(), mqlplay::Error>(())
//! ```
//! - User variables (the `let` option of `aggregate`/`update`/`find`, `$lookup`'s `let`):
//!   declare their names at compile time with [`CompileCtx::with_variables`] (or push
//!   onto `CompileCtx::variables`), bind their values with [`Scope::with_var`] /
//!   [`Scope::with_vars`]. A name used but not declared is error 17276 at compile time.
//! - `$$CURRENT` different from `$$ROOT` (`$redact`, `$replaceRoot` chains):
//!   [`Expr::evaluate_with_current`].
//! - An object of expressions whose keys must not be operators: [`Expr::compile_object`].
//! - Truthiness as `$cond`/`$match`-`$expr` use it: [`truthy`].
//! - Inspecting a compiled expression: [`Expr::as_constant`], [`Expr::as_field_path`].
//! - Accumulator arithmetic shared with `$group`/`$setWindowFields`: [`accum`]
//!   (`Sum` for `$sum`/`$avg` with MongoDB's result types, `StdDev`, and the helpers
//!   `sum_values`, `avg_values`, `std_dev`, `min_value`, `max_value`).
//! - `$rand` draws from [`Scope::next_random`], seeded from `RunCtx::seed`.
//!
//! Internals: `compile` turns the BSON into an `eval::Node` tree (operator names
//! resolved once through the static table in `ops/mod.rs`; constant subtrees of
//! literals are folded), `eval` walks it (`Call` nodes are function pointers,
//! `Special` nodes are operators with named arguments or variables), `path` reads
//! field paths by borrowing and clones only the value found. Local variables
//! (`$let`, `$map`, `$filter`, `$reduce`) are slots resolved at compile time.
pub mod accum;
mod compile;
mod eval;
pub(crate) mod ops;
mod path;
pub mod sum;
mod value;

use crate::context::{RunCtx, SplitMix64};
use crate::error::Result;
use bson::{Bson, Document};
use std::cell::Cell;

/// `$rand`'s stream of the run's random sequence.
const RAND_STREAM: u64 = 0x9e37_79b9_7f4a_7c15;

pub use value::truthy;

/// A compiled expression.
#[derive(Clone, Debug)]
pub struct Expr {
    node: eval::Node,
}

/// Compile-time context: which user variables (`let`) are in scope.
#[derive(Clone, Debug, Default)]
pub struct CompileCtx {
    pub variables: Vec<String>,
}

impl CompileCtx {
    /// A context declaring these user variables (names without `$$`).
    pub fn with_variables<I, S>(names: I) -> CompileCtx
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        CompileCtx {
            variables: names.into_iter().map(Into::into).collect(),
        }
    }
}

/// Evaluation scope: the run context plus user variable bindings.
#[derive(Clone, Debug)]
pub struct Scope<'a> {
    pub run: &'a RunCtx,
    pub vars: Vec<(String, Bson)>,
    /// `$rand` state: seeded from `run.seed`, advanced on each draw.
    rng: Cell<SplitMix64>,
}

impl<'a> Scope<'a> {
    pub fn new(run: &'a RunCtx) -> Scope<'a> {
        Scope {
            run,
            vars: Vec::new(),
            rng: Cell::new(run.random(RAND_STREAM)),
        }
    }

    /// Bind (or rebind) one user variable.
    pub fn with_var(mut self, name: impl Into<String>, value: Bson) -> Scope<'a> {
        let name = name.into();
        self.vars.retain(|(n, _)| *n != name);
        self.vars.push((name, value));
        self
    }

    /// Bind several user variables.
    pub fn with_vars(mut self, vars: Vec<(String, Bson)>) -> Scope<'a> {
        for (n, v) in vars {
            self = self.with_var(n, v);
        }
        self
    }

    /// The value bound to a user variable.
    pub fn var(&self, name: &str) -> Option<&Bson> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// Next pseudo-random double in [0, 1), for `$rand`.
    pub fn next_random(&self) -> f64 {
        let mut rng = self.rng.get();
        let x = rng.next_f64();
        self.rng.set(rng);
        x
    }
}

impl Expr {
    /// Compile an expression from its BSON form.
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<Expr> {
        let mut c = compile::Compiler::new(&ctx.variables);
        Ok(Expr {
            node: c.operand(spec)?,
        })
    }

    /// Compile an object whose fields are expressions (`{a: "$x", b: {$add: ...}}`),
    /// rejecting operator keys as MongoDB does for object literals.
    pub fn compile_object(spec: &Document, ctx: &CompileCtx) -> Result<Expr> {
        let mut c = compile::Compiler::new(&ctx.variables);
        Ok(Expr {
            node: c.object_literal(spec)?,
        })
    }

    /// Evaluate against a document (`$$ROOT` and `$$CURRENT`). `None` means missing.
    pub fn evaluate(&self, doc: &Document, scope: &Scope) -> Result<Option<Bson>> {
        let mut cx = eval::Cx::new(doc, None, scope);
        cx.eval(&self.node)
    }

    /// [`Expr::evaluate`], the value borrowed from `doc` where the expression
    /// answers with a part of it (a field path, `$ifNull` of one).
    pub fn evaluate_borrowed<'a>(
        &self,
        doc: &'a Document,
        scope: &'a Scope<'a>,
    ) -> Result<Option<std::borrow::Cow<'a, Bson>>> {
        let mut cx = eval::Cx::new(doc, None, scope);
        cx.eval_borrowed(&self.node)
    }

    /// Evaluate with `$$ROOT` = `root` and `$$CURRENT` (what `"$a"` reads) = `current`.
    pub fn evaluate_with_current(
        &self,
        root: &Document,
        current: &Bson,
        scope: &Scope,
    ) -> Result<Option<Bson>> {
        let mut cx = eval::Cx::new(root, Some(current), scope);
        cx.eval(&self.node)
    }

    /// The value of an expression that depends on no document, variable or
    /// `$rand`, evaluated now: the server folds such operators when it
    /// optimizes (window bounds, `$shift`'s default). `None` if not constant.
    pub fn fold_constant(&self) -> Result<Option<Bson>> {
        fold_node(&self.node)
    }

    /// The value if the expression is a constant (a literal, `$literal`, or built only of them).
    pub fn as_constant(&self) -> Option<&Bson> {
        match &self.node {
            eval::Node::Const(v) => Some(v),
            _ => None,
        }
    }

    /// Is this a plain field path (`"$a.b"`)? Returns the dotted path.
    pub fn as_field_path(&self) -> Option<String> {
        match &self.node {
            eval::Node::Var(eval::VarRef::Current, p) if !p.is_empty() => Some(p.join(".")),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;

/// [`Expr::fold_constant`] for a compiled node (an operator's argument).
pub(crate) fn fold_node(node: &eval::Node) -> Result<Option<Bson>> {
    fn constant(n: &eval::Node) -> bool {
        match n {
            eval::Node::Const(_) => true,
            eval::Node::Array(items) => items.iter().all(constant),
            eval::Node::Object(fields) => fields.iter().all(|(_, n)| constant(n)),
            eval::Node::Call(name, _, args) => *name != "$rand" && args.iter().all(constant),
            _ => false,
        }
    }
    if !constant(node) {
        return Ok(None);
    }
    let run = RunCtx::new(bson::DateTime::from_millis(0), 0);
    let scope = Scope::new(&run);
    let empty = Document::new();
    let mut cx = eval::Cx::new(&empty, None, &scope);
    Ok(Some(cx.eval(node)?.unwrap_or(Bson::Null)))
}
