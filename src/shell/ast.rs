//! The reader's syntax tree. Every node carries its byte span in the source
//! text, so later errors (a bad operator deep inside a filter) can point at it.
use crate::error::Span;
use bson::Bson;

/// A whole script (or database configuration): statements in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// An expression statement: `db.trades.find({})`, `[ ... ]`.
    Expr(Node),
    /// `const|let|var name = value` (also a plain assignment `name = value`, as in `db = {...}`).
    Assign {
        name: String,
        name_span: Span,
        value: Node,
    },
    /// A shell helper line: `show collections`, `use test`.
    Shell {
        command: String,
        arg: Option<String>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// A scalar literal, typed as mongosh types it: strings, booleans, null,
    /// numbers (Int32 when the value converts to a 32-bit integer, else Double),
    /// and regex literals (`/^123_/i` as `Bson::RegularExpression`).
    Value(Bson),
    /// `undefined`
    Undefined,
    /// `{ key: value, ... }`; keys keep their order.
    Object(Vec<Property>),
    /// `[ a, b, ... ]`
    Array(Vec<Node>),
    /// A bare name: `db`, `ObjectId`, a variable.
    Ident(String),
    /// `object.property`
    Member {
        object: Box<Node>,
        property: String,
        property_span: Span,
    },
    /// `object[index]`
    Index { object: Box<Node>, index: Box<Node> },
    /// `callee(args)`
    Call { callee: Box<Node>, args: Vec<Node> },
    /// `new callee(args)`
    New { callee: Box<Node>, args: Vec<Node> },
    /// `-operand` where the operand is not a number literal (numbers are folded).
    Neg(Box<Node>),
    /// `left op right` for `+ - * / %`, folded to a constant when lowered.
    Binary {
        op: BinOp,
        left: Box<Node>,
        right: Box<Node>,
    },
}

/// The arithmetic operators the reader folds (JavaScript's semantics on numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    pub key: String,
    pub key_span: Span,
    pub value: Node,
}

impl Node {
    /// The name of an identifier node.
    pub fn ident(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Ident(name) => Some(name),
            _ => None,
        }
    }
}
