//! `$redact`: an expression decides, level by level, whether to keep,
//! prune or descend into each (sub)document.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/redact/
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Expr, Scope};
use crate::text::shell::inline;
use bson::{Bson, Document};

#[derive(Clone, Debug)]
pub struct Redact {
    expr: Expr,
}

// The server binds the variables to plain strings and compares the
// expression's result with them, so a literal "keep" acts as $$KEEP
// (document_source_redact.cpp: keepVal = Value("keep")).
const DESCEND: &str = "descend";
const PRUNE: &str = "prune";
const KEEP: &str = "keep";

enum Action {
    Descend,
    Prune,
    Keep,
}

impl Redact {
    pub fn compile(spec: &Bson, ctx: &CompileCtx) -> Result<Redact> {
        let mut ctx = ctx.clone();
        ctx.variables
            .extend(["DESCEND", "PRUNE", "KEEP"].map(String::from));
        Ok(Redact {
            expr: Expr::compile(spec, &ctx)?,
        })
    }

    /// The redacted document, or `None` when the whole document is pruned.
    pub fn apply(&self, doc: &Document, scope: &Scope) -> Result<Option<Document>> {
        let scope = scope.clone().with_vars(vec![
            ("DESCEND".to_string(), Bson::String(DESCEND.into())),
            ("PRUNE".to_string(), Bson::String(PRUNE.into())),
            ("KEEP".to_string(), Bson::String(KEEP.into())),
        ]);
        self.level(doc, doc, &scope)
    }

    fn action(&self, root: &Document, current: &Document, scope: &Scope) -> Result<Action> {
        let v = self
            .expr
            .evaluate_with_current(root, &Bson::Document(current.clone()), scope)?;
        match v {
            Some(Bson::String(s)) if s == DESCEND => Ok(Action::Descend),
            Some(Bson::String(s)) if s == PRUNE => Ok(Action::Prune),
            Some(Bson::String(s)) if s == KEEP => Ok(Action::Keep),
            other => Err(Error::location(
                17053,
                format!(
                    "$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned {}",
                    // Value::toString: strings in double quotes, missing as MISSING.
                    match &other {
                        None => "MISSING".to_string(),
                        Some(Bson::String(s)) => format!("\"{s}\""),
                        Some(v) => inline(v),
                    }
                ),
            )),
        }
    }

    fn level(
        &self,
        root: &Document,
        current: &Document,
        scope: &Scope,
    ) -> Result<Option<Document>> {
        match self.action(root, current, scope)? {
            Action::Keep => Ok(Some(current.clone())),
            Action::Prune => Ok(None),
            Action::Descend => {
                let mut out = Document::new();
                for (k, v) in current {
                    match v {
                        Bson::Document(sub) => {
                            if let Some(kept) = self.level(root, sub, scope)? {
                                out.insert(k.clone(), kept);
                            }
                        }
                        Bson::Array(items) => {
                            out.insert(k.clone(), Bson::Array(self.array(root, items, scope)?));
                        }
                        other => {
                            out.insert(k.clone(), other.clone());
                        }
                    }
                }
                Ok(Some(out))
            }
        }
    }

    fn array(&self, root: &Document, items: &[Bson], scope: &Scope) -> Result<Vec<Bson>> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Bson::Document(sub) => {
                    if let Some(kept) = self.level(root, sub, scope)? {
                        out.push(Bson::Document(kept));
                    }
                }
                Bson::Array(inner) => out.push(Bson::Array(self.array(root, inner, scope)?)),
                other => out.push(other.clone()),
            }
        }
        Ok(out)
    }
}
