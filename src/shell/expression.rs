//! Expressions → syntax nodes: `+ - * / %` by precedence, unary signs
//! (folded into number literals), member, index and call chains, `new`, and
//! the atoms (numbers, strings, regular expressions, names). Object and array
//! literals are in `literal`.
use super::ast::{BinOp, Node, NodeKind};
use super::lexer::Tok;
use super::number::{number_literal, typed_number, NumLit};
use super::parser::Parser;
use super::regex::{bson_regex_options, regex_value};
use crate::error::{Error, Result, Span};
use bson::Bson;

/// Functions (`x => …`, `function`) would mean running the user's JavaScript,
/// which the playground never does; say what to use instead.
fn js_function_error() -> Error {
    Error::command_not_supported(
        "JavaScript functions (arrow functions, `function`, callbacks for forEach/map) are not \
         supported: the playground never runs JavaScript. Use aggregation operators instead \
         (e.g. $project or $addFields with $map, $filter or $reduce)",
    )
}

/// JavaScript keywords that start constructs this reader does not handle.
const UNSUPPORTED_WORDS: &[&str] = &[
    "function",
    "if",
    "for",
    "while",
    "do",
    "switch",
    "return",
    "class",
    "try",
    "throw",
    "async",
    "await",
    "this",
    "typeof",
    "delete",
    "void",
    "yield",
    "import",
    "export",
    "with",
    "break",
    "continue",
    "debugger",
    "super",
    "instanceof",
    "in",
];

impl<'a> Parser<'a> {
    /// An expression. Nesting is counted where recursion happens (brackets,
    /// parentheses, unary signs, `new`, postfix chains), one level each.
    pub(crate) fn expr(&mut self) -> Result<Node> {
        self.binary(0)
    }

    /// `+ -` (level 0) over `* / %` (level 1), left-associative. Each
    /// operator counts as a nesting level until the chain ends, since the
    /// tree it builds is as deep as the chain is long.
    fn binary(&mut self, level: u8) -> Result<Node> {
        let operand = |p: &mut Self| {
            if level == 0 {
                p.binary(1)
            } else {
                p.unary()
            }
        };
        let mut left = operand(self)?;
        let mut levels = 0;
        let r = (|| loop {
            let op = match (&self.tok.tok, level) {
                (Tok::Punct("+"), 0) => BinOp::Add,
                (Tok::Punct("-"), 0) => BinOp::Sub,
                (Tok::Punct("*"), 1) => BinOp::Mul,
                (Tok::Punct("/"), 1) => BinOp::Div,
                (Tok::Punct("%"), 1) => BinOp::Rem,
                _ => return Ok(()),
            };
            let tok = self.bump()?;
            self.enter(tok.span)?;
            levels += 1;
            let right = operand(self)?;
            let span = left.span.to(right.span);
            left = Node {
                kind: NodeKind::Binary {
                    op,
                    left: Box::new(take(&mut left)),
                    right: Box::new(right),
                },
                span,
            };
        })();
        self.depth -= levels;
        r.map(|()| left)
    }

    /// Unary `-`/`+`; signs on number literals fold into the value.
    fn unary(&mut self) -> Result<Node> {
        if !(self.tok.is_punct("-") || self.tok.is_punct("+")) {
            return self.postfix();
        }
        let op = self.bump()?;
        self.enter(op.span)?;
        let operand = self.expr();
        self.depth -= 1;
        fold_sign(op.span, op.is_punct("-"), operand?)
    }

    /// A primary expression followed by `.name`, `[index]` and `(args)`.
    fn postfix(&mut self) -> Result<Node> {
        let mut node = self.primary()?;
        let saved = self.depth;
        let r = self.postfix_ops(&mut node, true);
        self.depth = saved;
        r.map(|()| node)
    }

    /// Apply postfix operators to `node`; calls only when `calls` (not inside `new X.Y`).
    pub(super) fn postfix_ops(&mut self, node: &mut Node, calls: bool) -> Result<()> {
        loop {
            let start = node.span.start;
            // Each operator nests the tree one level, and the arguments and
            // index below it are read one level deeper: count it first.
            if self.tok.is_punct(".") || self.tok.is_punct("[") || (calls && self.tok.is_punct("("))
            {
                self.enter(Span::new(start, self.tok.span.end))?;
            }
            let kind = if self.tok.is_punct(".") {
                self.bump()?;
                let Tok::Ident(name) = self.tok.tok else {
                    return Err(self.unexpected());
                };
                let prop = self.bump()?;
                let object = Box::new(take(node));
                NodeKind::Member {
                    object,
                    property: name.to_string(),
                    property_span: prop.span,
                }
            } else if self.tok.is_punct("[") {
                self.bump()?;
                let index = self.expr()?;
                self.expect("]", "missing ] in index expression")?;
                NodeKind::Index {
                    object: Box::new(take(node)),
                    index: Box::new(index),
                }
            } else if calls && self.tok.is_punct("(") {
                let args = self.arguments()?;
                NodeKind::Call {
                    callee: Box::new(take(node)),
                    args,
                }
            } else if self.tok.is_punct("?.") {
                return Err(Error::not_supported("optional chaining `?.`").at(self.tok.span));
            } else if self.tok.is_punct("=>") {
                return Err(js_function_error().at(self.tok.span));
            } else {
                return Ok(());
            };
            *node = Node {
                kind,
                span: Span::new(start, self.prev_end),
            };
        }
    }

    /// `( a, b, )` — the current token is `(`.
    fn arguments(&mut self) -> Result<Vec<Node>> {
        self.bump()?;
        let mut args = Vec::new();
        while !self.tok.is_punct(")") {
            if self.tok.is_punct("...") {
                return Err(Error::not_supported("spread arguments").at(self.tok.span));
            }
            args.push(self.expr()?);
            if self.tok.is_punct(",") {
                self.bump()?;
            } else if !self.tok.is_punct(")") {
                let e = self.unexpected();
                return Err(Error::syntax(
                    format!("missing ) after argument list: {}", e.message),
                    e.span.unwrap_or_default(),
                ));
            }
        }
        self.bump()?;
        Ok(args)
    }

    /// A literal, a name, or a bracketed/parenthesised expression. The
    /// recursive cases are dispatched here so that this frame stays small (the
    /// nesting limit must fit in a debug build's test-thread stack).
    fn primary(&mut self) -> Result<Node> {
        match &self.tok.tok {
            Tok::Punct("{") => self.object(),
            Tok::Punct("[") => self.array(),
            Tok::Punct("(") => self.parenthesised(),
            Tok::Ident("new") => self.new_expr(),
            _ => self.atom(),
        }
    }

    /// A token that is a whole expression: number, string, regex, name.
    #[inline(never)]
    fn atom(&mut self) -> Result<Node> {
        let span = self.tok.span;
        let kind = match &self.tok.tok {
            Tok::Num(text) => {
                let value = match number_literal(text) {
                    Some(NumLit::Float(f)) => typed_number(f),
                    Some(NumLit::Big(i)) => Bson::Int64(i),
                    None => return Err(Error::syntax(format!("invalid number '{text}'"), span)),
                };
                self.bump()?;
                NodeKind::Value(value)
            }
            Tok::Str(_) => {
                let s = match self.bump()?.tok {
                    Tok::Str(s) => s.into_owned(),
                    _ => String::new(),
                };
                NodeKind::Value(Bson::String(s))
            }
            Tok::Regex { pattern, flags } => {
                let value =
                    regex_value(pattern, &bson_regex_options(flags)).map_err(|e| e.at(span))?;
                self.bump()?;
                NodeKind::Value(value)
            }
            Tok::Ident(word) => {
                let word = *word;
                let kind = match word {
                    "true" | "false" => NodeKind::Value(Bson::Boolean(word == "true")),
                    "null" => NodeKind::Value(Bson::Null),
                    "undefined" => NodeKind::Undefined,
                    "NaN" => NodeKind::Value(Bson::Double(f64::NAN)),
                    "Infinity" => NodeKind::Value(Bson::Double(f64::INFINITY)),
                    "function" => return Err(js_function_error().at(span)),
                    w if UNSUPPORTED_WORDS.contains(&w) => {
                        return Err(Error::not_supported(format!("JavaScript '{w}'")).at(span));
                    }
                    "const" | "let" | "var" => return Err(self.unexpected()),
                    w => NodeKind::Ident(w.to_string()),
                };
                self.bump()?;
                kind
            }
            _ => return Err(self.unexpected()),
        };
        Ok(Node {
            kind,
            span: Span::new(span.start, self.prev_end),
        })
    }

    /// `( expr )`.
    fn parenthesised(&mut self) -> Result<Node> {
        let open = self.bump()?;
        if self.tok.is_punct(")") {
            return Err(js_function_error().at(open.span.to(self.tok.span)));
        }
        self.enter(open.span)?;
        let inner = self.expr();
        self.depth -= 1;
        let mut inner = inner?;
        if self.tok.is_punct(",") {
            return Err(Error::not_supported("the comma operator").at(self.tok.span));
        }
        self.expect(")", "missing ) in parenthetical")?;
        // Keep the parentheses in the span so errors underline them too.
        inner.span = Span::new(open.span.start, self.prev_end);
        Ok(inner)
    }

    /// `new Callee.path(args)`; `new X` without parentheses has no arguments.
    fn new_expr(&mut self) -> Result<Node> {
        let kw = self.bump()?;
        self.enter(kw.span)?;
        let r = (|| {
            let mut callee = if self.tok.is_ident("new") {
                self.new_expr()?
            } else {
                self.primary()?
            };
            let saved = self.depth;
            let r = self.postfix_ops(&mut callee, false);
            self.depth = saved;
            r?;
            let args = if self.tok.is_punct("(") {
                self.arguments()?
            } else {
                Vec::new()
            };
            Ok(Node {
                kind: NodeKind::New {
                    callee: Box::new(callee),
                    args,
                },
                span: Span::new(kw.span.start, self.prev_end),
            })
        })();
        self.depth -= 1;
        r
    }
}

/// `-x` / `+x`: numbers fold into the literal (typed again, so `-2147483648`
/// is Int32 and `-0` a Double), other operands become `Neg`.
#[inline(never)]
fn fold_sign(op: Span, neg: bool, operand: Node) -> Result<Node> {
    let span = op.to(operand.span);
    let kind = match operand.kind {
        NodeKind::Value(Bson::Int32(i)) => {
            NodeKind::Value(typed_number(if neg { -f64::from(i) } else { f64::from(i) }))
        }
        NodeKind::Value(Bson::Double(d)) => NodeKind::Value(typed_number(if neg { -d } else { d })),
        // BigInt literals (`10n`) are Int64.
        NodeKind::Value(Bson::Int64(i)) if neg => match i.checked_neg() {
            Some(n) => NodeKind::Value(Bson::Int64(n)),
            None => return Err(Error::bad_value("BigInt out of the 64-bit range").at(span)),
        },
        NodeKind::Value(Bson::Int64(i)) => NodeKind::Value(Bson::Int64(i)),
        kind if neg => NodeKind::Neg(Box::new(Node {
            kind,
            span: operand.span,
        })),
        _ => return Err(Error::not_supported("unary + on anything but a number").at(op)),
    };
    Ok(Node { kind, span })
}

fn take(node: &mut Node) -> Node {
    std::mem::replace(
        node,
        Node {
            kind: NodeKind::Undefined,
            span: node.span,
        },
    )
}
