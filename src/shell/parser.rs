//! Statements → `ast::Script`: the subset of JavaScript that mongosh scripts
//! and Mongo Playground configurations use (declarations, assignments,
//! `show`/`use`, expressions); the parser's state and its token helpers.
//! Expressions are read in `expression`, object and array literals in `literal`.
//!
//! Statements end at `;` or, by automatic semicolon insertion, at a line break
//! when the next token cannot continue the statement: a line starting with
//! `.sort()` (or `(`, `[`, as in JavaScript) continues a pasted chain.
use super::ast::{Node, NodeKind, Script, Stmt, StmtKind};
use super::lexer::{Lexer, Tok, Token};
use crate::error::{Error, Result, Span};
use std::collections::HashMap;

/// Nesting deeper than this is refused (keeps recursion far from the stack limit).
pub const MAX_DEPTH: usize = 200;

/// Parse a whole script (or configuration) into statements.
pub fn parse_script(src: &str) -> Result<Script> {
    let mut p = Parser::new(src)?;
    let mut stmts = Vec::new();
    while p.tok.tok != Tok::Eof {
        if p.tok.is_punct(";") {
            p.bump()?;
            continue;
        }
        p.statement(&mut stmts)?;
    }
    Ok(Script { stmts })
}

/// Parse a single expression filling the whole text (e.g. an `expect:` block).
pub fn parse_expression(src: &str) -> Result<Node> {
    let mut p = Parser::new(src)?;
    let node = p.expr()?;
    if p.tok.is_punct(";") {
        p.bump()?;
    }
    if p.tok.tok != Tok::Eof {
        return Err(p.unexpected());
    }
    Ok(node)
}

pub(crate) struct Parser<'a> {
    pub(crate) src: &'a str,
    pub(super) lex: Lexer<'a>,
    /// The current (not yet consumed) token.
    pub(crate) tok: Token<'a>,
    /// End of the last consumed token: node spans end here.
    pub(crate) prev_end: usize,
    pub(super) depth: usize,
    /// Buffers reused while reading literals straight into BSON.
    pub(super) scratch: super::literal::Scratch,
    /// Names declared so far, with whether `var` declared them (the only
    /// declaration JavaScript lets a script repeat).
    declared: HashMap<&'a str, bool>,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str) -> Result<Parser<'a>> {
        let mut lex = Lexer::new(src);
        let tok = lex.next_token()?;
        Ok(Parser {
            src,
            lex,
            tok,
            prev_end: 0,
            depth: 0,
            scratch: Default::default(),
            declared: HashMap::new(),
        })
    }

    /// Consume the current token and return it.
    pub(crate) fn bump(&mut self) -> Result<Token<'a>> {
        let next = self.lex.next_token()?;
        // Literals are read straight into values: a huge text stops at the budget.
        crate::budget::check_for(crate::budget::LITERALS).map_err(|e| e.at(next.span))?;
        self.prev_end = self.tok.span.end;
        Ok(std::mem::replace(&mut self.tok, next))
    }

    pub(crate) fn unexpected(&self) -> Error {
        let t = &self.tok;
        if t.tok == Tok::Eof {
            return Error::syntax(
                "Unexpected end of input",
                Span::new(self.src.len(), self.src.len()),
            );
        }
        Error::syntax(format!("Unexpected {}", t.describe(self.src)), t.span)
    }

    pub(super) fn expect(&mut self, p: &str, what: &str) -> Result<Token<'a>> {
        if self.tok.is_punct(p) {
            return self.bump();
        }
        let e = self.unexpected();
        Err(Error::syntax(
            format!("{}: {what}", e.message),
            e.span.unwrap_or_default(),
        ))
    }

    pub(super) fn enter(&mut self, span: Span) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Error::syntax(
                format!("nesting is too deep (more than {MAX_DEPTH} levels)"),
                span,
            ));
        }
        Ok(())
    }

    /// After a statement: `;`, a line break, `}` or the end must follow.
    fn end_statement(&mut self) -> Result<()> {
        if self.tok.is_punct(";") {
            self.bump()?;
            return Ok(());
        }
        if self.tok.tok == Tok::Eof || self.tok.nl_before {
            return Ok(());
        }
        Err(self.unexpected())
    }

    fn statement(&mut self, out: &mut Vec<Stmt>) -> Result<()> {
        let start = self.tok.span.start;
        if let Tok::Ident(word) = self.tok.tok {
            match word {
                "const" | "let" | "var" => return self.declaration(out),
                "show" | "use" => {
                    if let Some(stmt) = self.shell_command(word)? {
                        out.push(stmt);
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
        let expr = self.expr()?;
        let kind = if self.tok.is_punct("=") {
            let NodeKind::Ident(name) = expr.kind else {
                return Err(
                    Error::not_supported("assignment to anything but a plain name")
                        .at(self.tok.span),
                );
            };
            self.bump()?;
            let value = self.expr()?;
            StmtKind::Assign {
                name,
                name_span: expr.span,
                value,
            }
        } else {
            StmtKind::Expr(expr)
        };
        let span = Span::new(start, self.prev_end);
        self.end_statement()?;
        out.push(Stmt { kind, span });
        Ok(())
    }

    /// `const a = 1, b = 2` (one `Assign` per name; `let x` binds undefined).
    fn declaration(&mut self, out: &mut Vec<Stmt>) -> Result<()> {
        let kw = self.bump()?;
        loop {
            let Tok::Ident(name) = self.tok.tok else {
                if self.tok.is_punct("{") || self.tok.is_punct("[") {
                    return Err(
                        Error::not_supported("destructuring declarations").at(self.tok.span)
                    );
                }
                return Err(self.unexpected());
            };
            let name_tok = self.bump()?;
            // `const a = 1; const a = 2` is an early SyntaxError in JavaScript.
            let is_var = kw.is_ident("var");
            match self.declared.insert(name, is_var) {
                Some(was_var) if !(was_var && is_var) => {
                    return Err(Error::syntax(
                        format!("Identifier '{name}' has already been declared"),
                        name_tok.span,
                    ));
                }
                _ => {}
            }
            let value = if self.tok.is_punct("=") {
                self.bump()?;
                self.expr()?
            } else {
                Node {
                    kind: NodeKind::Undefined,
                    span: name_tok.span,
                }
            };
            let span = Span::new(kw.span.start, self.prev_end);
            out.push(Stmt {
                kind: StmtKind::Assign {
                    name: name.to_string(),
                    name_span: name_tok.span,
                    value,
                },
                span,
            });
            if self.tok.is_punct(",") {
                self.bump()?;
                continue;
            }
            return self.end_statement();
        }
    }

    /// `show collections`, `use test`: a helper word followed, on the same
    /// line, by a bare word. Anything else (`use(...)`, `show = 1`) is JavaScript.
    fn shell_command(&mut self, word: &str) -> Result<Option<Stmt>> {
        let start = self.tok.span.start;
        let after = self.tok.span.end;
        let line_end = self.src[after..]
            .find(['\n', '\r', ';'])
            .map_or(self.src.len(), |i| after + i);
        let rest = &self.src[after..line_end];
        let rest = rest.find("//").map_or(rest, |i| &rest[..i]).trim();
        let starts_word = rest
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        if !starts_word || !self.src[after..].starts_with([' ', '\t']) {
            return Ok(None);
        }
        let arg_start = after + self.src[after..].find(rest).unwrap_or(0);
        let end = arg_start + rest.len();
        self.lex.set_pos(end, true);
        self.prev_end = end;
        self.tok = self.lex.next_token()?;
        let stmt = Stmt {
            kind: StmtKind::Shell {
                command: word.to_string(),
                arg: Some(rest.to_string()),
            },
            span: Span::new(start, end),
        };
        self.end_statement()?;
        Ok(Some(stmt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::Bson;

    fn expr(src: &str) -> NodeKind {
        match parse_script(src)
            .expect("parses")
            .stmts
            .into_iter()
            .next()
            .map(|s| s.kind)
        {
            Some(StmtKind::Expr(n)) => n.kind,
            other => panic!("not an expression: {other:?}"),
        }
    }
    fn err(src: &str) -> Error {
        let e = parse_script(src).expect_err("fails");
        let span = e.span.expect("has a span");
        assert!(
            span.start <= span.end && span.end <= src.len(),
            "{src:?}: {span:?}"
        );
        e
    }

    #[test]
    fn numbers_typed_as_mongosh() {
        assert_eq!(expr("1"), NodeKind::Value(Bson::Int32(1)));
        assert_eq!(expr("1.0"), NodeKind::Value(Bson::Int32(1)));
        assert_eq!(expr("1.5"), NodeKind::Value(Bson::Double(1.5)));
        assert_eq!(
            expr("2147483648"),
            NodeKind::Value(Bson::Double(2147483648.0))
        );
        assert_eq!(expr("-2147483648"), NodeKind::Value(Bson::Int32(i32::MIN)));
        assert_eq!(expr("1e20"), NodeKind::Value(Bson::Double(1e20)));
        assert_eq!(expr("0x10"), NodeKind::Value(Bson::Int32(16)));
        assert_eq!(expr("- -3"), NodeKind::Value(Bson::Int32(3)));
        assert_eq!(expr("10n"), NodeKind::Value(Bson::Int64(10)));
        match expr("-0") {
            NodeKind::Value(Bson::Double(d)) => assert!(d == 0.0 && d.is_sign_negative()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn statements_and_asi() {
        let s = parse_script("db.a.find()\n  .sort({a: 1})\n\ndb.b.drop(); show collections\nuse test\nconst x = 1, y\nx = {}")
            .expect("parses");
        assert_eq!(s.stmts.len(), 7);
        assert!(matches!(
            &s.stmts[0].kind,
            StmtKind::Expr(Node {
                kind: NodeKind::Call { .. },
                ..
            })
        ));
        assert_eq!(
            s.stmts[2].kind,
            StmtKind::Shell {
                command: "show".into(),
                arg: Some("collections".into())
            }
        );
        assert_eq!(
            s.stmts[3].kind,
            StmtKind::Shell {
                command: "use".into(),
                arg: Some("test".into())
            }
        );
        assert!(matches!(&s.stmts[6].kind, StmtKind::Assign { name, .. } if name == "x"));
        assert_eq!(
            "db.a.find()\n  .sort({a: 1})",
            &"db.a.find()\n  .sort({a: 1})\n\n"[s.stmts[0].span.start..s.stmts[0].span.end]
        );
    }

    #[test]
    fn objects_and_arrays() {
        let NodeKind::Object(props) = expr("({a: 1, 'b c': 2, 3: 4, $d: [1, 2,], 1.50: 0,})")
        else {
            panic!()
        };
        let keys: Vec<_> = props.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["a", "b c", "3", "$d", "1.5"]);
        assert!(matches!(expr("new Date"), NodeKind::New { args, .. } if args.is_empty()));
        assert!(matches!(
            expr("new Date().getTime()"),
            NodeKind::Call { .. }
        ));
    }

    #[test]
    fn errors_have_spans() {
        assert!(err("db.x.find({a: 1 b: 2})")
            .message
            .contains("missing , or } after property"));
        assert_eq!(err("f(1))").message, "Unexpected token ')'");
        assert!(err("{a}").message.contains("shorthand"));
        assert!(err("[1,,2]").message.contains("holes"));
        assert!(err("db.x.find({").message.contains("missing }"));
        err("'abc");
        err(&"[".repeat(10_000));
        err(&"-".repeat(10_000));
        err(&format!("a{}", ".b".repeat(10_000)));
        err("\u{0}\u{1}\u{2}");
        err("db.x.find() db.y.find()");
    }
}
