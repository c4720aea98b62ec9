//! The mongosh-syntax reader: text → tokens (`lexer`) → spanned syntax tree
//! (`parser`, `ast`) → BSON values (`lower`), plus the formatter (`format`).
pub mod ast;
mod ctors;
mod ctors_binary;
pub mod dates;
mod doc;
mod expression;
pub mod extjson;
pub mod format;
pub mod lexer;
mod literal;
pub mod lower;
pub mod number;
pub mod parser;
mod plain;
mod regex;
mod strings;

pub use ast::{Node, NodeKind, Property, Script, Stmt, StmtKind};
pub use format::format_script;
pub use lower::{lower, LowerCtx, NewId};
pub use parser::{parse_expression, parse_script};
