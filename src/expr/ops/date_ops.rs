//! Date operators.
use crate::error::{Error, Result};
use crate::expr::compile::Compiler;
use crate::expr::eval::Node;
use bson::Bson;

macro_rules! stub {
    ($($n:ident),*) => {$(
        pub(crate) fn $n(n: &'static str, _: &Bson, _: &mut Compiler) -> Result<Node> {
            Err(Error::not_supported(n))
        }
    )*};
}
stub!(
    c_date_add,
    c_date_diff,
    c_date_from_parts,
    c_date_from_string,
    c_date_to_parts,
    c_date_to_string,
    c_date_trunc,
    c_part
);
