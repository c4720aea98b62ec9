//! Array operators with named arguments: `$firstN $lastN $maxN $minN $sortArray $zip`.
use crate::error::{Error, Result};
use crate::expr::compile::Compiler;
use crate::expr::eval::Node;
use bson::Bson;

pub(crate) fn c_first_last_n(n: &'static str, _: &Bson, _: &mut Compiler) -> Result<Node> {
    Err(Error::not_supported(n))
}
pub(crate) fn c_min_max_n(n: &'static str, _: &Bson, _: &mut Compiler) -> Result<Node> {
    Err(Error::not_supported(n))
}
pub(crate) fn c_sort_array(n: &'static str, _: &Bson, _: &mut Compiler) -> Result<Node> {
    Err(Error::not_supported(n))
}
pub(crate) fn c_zip(n: &'static str, _: &Bson, _: &mut Compiler) -> Result<Node> {
    Err(Error::not_supported(n))
}
