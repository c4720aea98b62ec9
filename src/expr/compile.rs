//! BSON → expression tree. Mirrors MongoDB's `Expression::parseOperand`:
//! a `$`-string is a field path or variable, an object is an operator
//! (`{$op: args}`) or an object literal, an array is an array literal, anything
//! else is a constant. Operator names are resolved here, once.
use super::eval::{EvalFn, Node, VarRef};
use super::ops;
use super::value::err;
use crate::error::{Error, Result};
use crate::text::server::server_string;
use bson::{Bson, Document};

pub(crate) struct Compiler<'c> {
    /// User variables declared by the caller (`let`), bound by name in the Scope.
    user: &'c [String],
    /// Local variables in scope, innermost last; a name's index is its runtime slot.
    locals: Vec<String>,
}

impl<'c> Compiler<'c> {
    pub fn new(user: &'c [String]) -> Compiler<'c> {
        Compiler {
            user,
            locals: Vec::new(),
        }
    }

    /// Any expression operand.
    pub fn operand(&mut self, v: &Bson) -> Result<Node> {
        match v {
            Bson::String(s) if s.starts_with('$') => self.field_path(s),
            Bson::Document(d) => self.object(d),
            Bson::Array(items) => {
                let nodes = items
                    .iter()
                    .map(|i| self.operand(i))
                    .collect::<Result<Vec<_>>>()?;
                if nodes.iter().all(|n| matches!(n, Node::Const(_))) {
                    let vals = nodes
                        .into_iter()
                        .map(|n| match n {
                            Node::Const(v) => v,
                            _ => Bson::Null,
                        })
                        .collect();
                    return Ok(Node::Const(Bson::Array(vals)));
                }
                Ok(Node::Array(nodes))
            }
            other => Ok(Node::Const(other.clone())),
        }
    }

    /// `{$op: ...}` or an object literal.
    pub fn object(&mut self, d: &Document) -> Result<Node> {
        let Some((first, arg)) = d.iter().next() else {
            return Ok(Node::Const(Bson::Document(Document::new())));
        };
        if !first.starts_with('$') {
            return self.object_literal(d);
        }
        if d.len() != 1 {
            return Err(err(
                15983,
                format!(
                    "An object representing an expression must have exactly one field: {}",
                    server_string(&Bson::Document(d.clone()))
                ),
            ));
        }
        let Some((name, compile)) = ops::lookup(first) else {
            return Err(Error::invalid_pipeline_operator(format!(
                "Unrecognized expression '{first}'"
            )));
        };
        compile(name, arg, self)
    }

    /// An object literal: each field an expression; names validated as MongoDB does.
    pub fn object_literal(&mut self, d: &Document) -> Result<Node> {
        let mut fields: Vec<(String, Node)> = Vec::with_capacity(d.len());
        for (k, v) in d {
            validate_field_name(k)?;
            if fields.iter().any(|(n, _)| n == k) {
                return Err(err(
                    16406,
                    format!(
                        "duplicate field name specified in object literal: {}",
                        server_string(&Bson::Document(d.clone()))
                    ),
                ));
            }
            fields.push((k.clone(), self.operand(v)?));
        }
        if fields.iter().all(|(_, n)| matches!(n, Node::Const(_))) {
            let mut out = Document::new();
            for (k, n) in fields {
                if let Node::Const(v) = n {
                    out.insert(k, v);
                }
            }
            return Ok(Node::Const(Bson::Document(out)));
        }
        Ok(Node::Object(fields))
    }

    /// `"$a.b"` or `"$$var.a.b"`.
    pub fn field_path(&mut self, raw: &str) -> Result<Node> {
        let Some(body) = raw.strip_prefix('$') else {
            return Err(err(
                16873,
                format!("FieldPath '{raw}' doesn't start with $"),
            ));
        };
        if body.is_empty() {
            return Err(err(16872, "'$' by itself is not a valid FieldPath"));
        }
        if body.contains('\0') {
            return Err(err(
                16419,
                "field path must not contain embedded null characters",
            ));
        }
        crate::value::path::check_length(body)?;
        if let Some(var_path) = body.strip_prefix('$') {
            let (name, rest) = match var_path.split_once('.') {
                Some((n, r)) => (n, Some(r)),
                None => (var_path, None),
            };
            validate_var_name(name, false)?;
            let path = match rest {
                Some(r) => split_path(r)?,
                None => Vec::new(),
            };
            return self.variable(name, path);
        }
        let path = split_path(body)?;
        Ok(Node::Var(self.current_ref(), path))
    }

    /// `$$CURRENT` can be rebound by `$let`; field paths follow the innermost binding.
    fn current_ref(&self) -> VarRef {
        match self.locals.iter().rposition(|n| n == "CURRENT") {
            Some(i) => VarRef::Local(i),
            None => VarRef::Current,
        }
    }

    fn variable(&mut self, name: &str, path: Vec<String>) -> Result<Node> {
        if let Some(i) = self.locals.iter().rposition(|n| n == name) {
            return Ok(Node::Var(VarRef::Local(i), path));
        }
        match name {
            "ROOT" => Ok(Node::Var(VarRef::Root, path)),
            "CURRENT" => Ok(Node::Var(VarRef::Current, path)),
            "REMOVE" => Ok(Node::Missing),
            "NOW" => Ok(Node::Var(VarRef::Now, path)),
            "CLUSTER_TIME" => Ok(Node::Var(VarRef::ClusterTime, path)),
            "SEARCH_META" | "USER_ROLES" | "SEARCH_SCORE" => Err(Error::not_supported(format!(
                "the system variable $${name}"
            ))),
            _ if self.user.iter().any(|u| u == name) => {
                Ok(Node::Var(VarRef::User(name.to_string()), path))
            }
            _ => Err(err(17276, format!("Use of undefined variable: {name}"))),
        }
    }

    /// Declare a local variable (validated as a user-writable name); returns its slot.
    pub fn bind(&mut self, name: &str) -> Result<usize> {
        validate_var_name(name, true)?;
        self.locals.push(name.to_string());
        Ok(self.locals.len() - 1)
    }

    /// The slot the next `bind` will return (for binding several names at once).
    pub fn next_slot(&self) -> usize {
        self.locals.len()
    }

    /// Leave the scope of the last `n` bindings.
    pub fn unbind(&mut self, n: usize) {
        let keep = self.locals.len().saturating_sub(n);
        self.locals.truncate(keep);
    }

    /// MongoDB's `parseArguments`: an array is the argument list, anything else one argument.
    pub fn args(&mut self, spec: &Bson) -> Result<Vec<Node>> {
        match spec {
            Bson::Array(items) => items.iter().map(|i| self.operand(i)).collect(),
            other => Ok(vec![self.operand(other)?]),
        }
    }

    /// Exactly `n` arguments (ExpressionFixedArity), code 16020.
    pub fn exact(&mut self, name: &str, spec: &Bson, n: usize) -> Result<Vec<Node>> {
        let args = self.args(spec)?;
        if args.len() != n {
            return Err(err(
                16020,
                format!(
                    "Expression {name} takes exactly {n} arguments. {} were passed in.",
                    args.len()
                ),
            ));
        }
        Ok(args)
    }

    /// Between `min` and `max` arguments (ExpressionRangedArity), code 28667.
    pub fn ranged(&mut self, name: &str, spec: &Bson, min: usize, max: usize) -> Result<Vec<Node>> {
        let args = self.args(spec)?;
        if args.len() < min || args.len() > max {
            return Err(err(
                28667,
                format!(
                    "Expression {name} takes at least {min} arguments, and at most {max}, but {} were passed in.",
                    args.len()
                ),
            ));
        }
        Ok(args)
    }
}

/// A positional operator node.
pub(crate) fn call(name: &'static str, f: EvalFn, args: Vec<Node>) -> Node {
    Node::Call(name, f, args)
}

/// Split and validate a dotted path (FieldPath rules).
pub(crate) fn split_path(p: &str) -> Result<Vec<String>> {
    if p.ends_with('.') {
        return Err(err(40353, "FieldPath must not end with a '.'."));
    }
    p.split('.')
        .map(|c| {
            if c.is_empty() {
                Err(err(15998, "FieldPath field names may not be empty strings."))
            } else if c.starts_with('$') {
                Err(err(
                    16410,
                    "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
                ))
            } else {
                Ok(c.to_string())
            }
        })
        .collect()
}

/// Field names of object literals (FieldPath::uassertValidFieldName).
fn validate_field_name(k: &str) -> Result<()> {
    if k.is_empty() {
        Err(err(
            15998,
            "FieldPath field names may not be empty strings.",
        ))
    } else if k.starts_with('$') {
        Err(err(
            16410,
            "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
        ))
    } else if k.contains('\0') {
        Err(err(16411, "FieldPath field names may not contain '\0'."))
    } else if k.contains('.') {
        Err(err(
            16412,
            "FieldPath field names may not contain '.'. Consider using $getField or $setField.",
        ))
    } else {
        Ok(())
    }
}

/// Variable names (variable_validation.cpp): user-written names start with a
/// lowercase letter (or a non-ASCII byte); read names may also start uppercase
/// (`ROOT`); the rest are letters, digits, `_` or non-ASCII. `CURRENT` may be rebound.
pub(crate) fn validate_var_name(name: &str, write: bool) -> Result<()> {
    if write && name == "CURRENT" {
        return Ok(());
    }
    let Some(first) = name.chars().next() else {
        return Err(err(16866, "empty variable names are not allowed"));
    };
    let first_ok =
        first.is_ascii_lowercase() || !first.is_ascii() || (!write && first.is_ascii_uppercase());
    if !first_ok {
        return Err(err(
            16867,
            format!("'{name}' starts with an invalid character for a user variable name"),
        ));
    }
    if let Some(bad) = name
        .chars()
        .skip(1)
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || !c.is_ascii()))
    {
        return Err(err(
            16868,
            format!("'{name}' contains an invalid character for a variable name: '{bad}'"),
        ));
    }
    Ok(())
}
