//! A stage's expression argument, compiled once. Plain field paths (`"$qty"`)
//! and constants are resolved here without going through the general
//! evaluator, so the hot loops of `$group`/`$sort`-style stages borrow values
//! from the documents instead of cloning them.
use super::path::FieldPath;
use crate::error::Result;
use crate::expr::{CompileCtx, Expr, Scope};
use bson::{Bson, Document};
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub enum Operand {
    Const(Bson),
    Path(FieldPath),
    Expr(Expr),
}

impl Operand {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<Operand> {
        Ok(match spec {
            Bson::String(s) if s.starts_with("$$") => Operand::Expr(Expr::compile(spec, ctx)?),
            Bson::String(s) if s.starts_with('$') => {
                // The expression parser gives MongoDB's errors for bad paths ("$", "$a.").
                Expr::compile(spec, ctx)?;
                Operand::Path(FieldPath::parse(&s[1..])?)
            }
            Bson::Document(_) | Bson::Array(_) => Operand::Expr(Expr::compile(spec, ctx)?),
            other => Operand::Const(other.clone()),
        })
    }

    /// Evaluate against `doc` (`$$ROOT`); `None` means missing.
    pub fn eval<'a>(&'a self, doc: &'a Document, scope: &Scope) -> Result<Option<Cow<'a, Bson>>> {
        match self {
            Operand::Const(v) => Ok(Some(Cow::Borrowed(v))),
            Operand::Path(p) => Ok(p.get(doc)),
            Operand::Expr(e) => Ok(e.evaluate(doc, scope)?.map(Cow::Owned)),
        }
    }

    /// [`Operand::eval`], borrowing from `doc` what an expression answers
    /// with a part of it (`{$ifNull: ["$a", ...]}` when `a` is set).
    pub fn eval_borrowing<'a>(
        &'a self,
        doc: &'a Document,
        scope: &'a Scope<'a>,
    ) -> Result<Option<Cow<'a, Bson>>> {
        match self {
            Operand::Expr(e) => e.evaluate_borrowed(doc, scope),
            _ => self.eval(doc, scope),
        }
    }

    /// The value when it can be borrowed without evaluation: a constant or a
    /// one-component path (`"$qty"`); `None` when [`Operand::eval`] is needed.
    /// The hot loops take this first: `eval`'s `Result<Option<Cow>>` is
    /// about 90 bytes, copied through memory at every level in wasm.
    #[inline(always)]
    pub fn borrowed<'a>(&'a self, doc: &'a Document) -> Option<Option<&'a Bson>> {
        match self {
            Operand::Const(v) => Some(Some(v)),
            Operand::Path(p) => p.single().map(|name| crate::value::path::field(doc, name)),
            Operand::Expr(_) => None,
        }
    }

    /// Evaluate to an owned value; missing becomes `None`.
    pub fn eval_owned(&self, doc: &Document, scope: &Scope) -> Result<Option<Bson>> {
        Ok(self.eval(doc, scope)?.map(Cow::into_owned))
    }

    pub fn as_const(&self) -> Option<&Bson> {
        match self {
            Operand::Const(v) => Some(v),
            _ => None,
        }
    }
}

/// Check a `let` variable name as MongoDB does for user-written variables
/// (lowercase or non-ASCII first character; letters, digits, `_`): the
/// expression compiler's `$let` binding performs exactly that check.
pub fn validate_let_name(name: &str) -> Result<()> {
    let mut vars = bson::Document::new();
    vars.insert(name, Bson::Null);
    let spec = bson::bson!({ "$let": { "vars": vars, "in": null } });
    Expr::compile(&spec, &CompileCtx::default()).map(|_| ())
}
