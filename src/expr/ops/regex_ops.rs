//! `$regexFind $regexFindAll $regexMatch`.
use crate::error::{Error, Result};
use crate::expr::compile::Compiler;
use crate::expr::eval::Node;
use bson::Bson;

pub(crate) fn c_regex(n: &'static str, _: &Bson, _: &mut Compiler) -> Result<Node> {
    Err(Error::not_supported(n))
}
