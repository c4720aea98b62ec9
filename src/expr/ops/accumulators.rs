//! Accumulators in expression form: `{$sum: <array expr>}` sums the array's
//! elements; `{$sum: [a, b, c]}` sums the arguments (arrays among several
//! arguments are not expanded).
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/sum/#use-in--project-stage
use crate::error::{Error, Result};
use crate::expr::accum::{max_value, min_value, std_dev, Sum};
use crate::expr::compile::{call, Compiler};
use crate::expr::eval::{Cx, Node};
use crate::expr::value::Value;
use bson::Bson;

pub(crate) fn c_accumulator(n: &'static str, a: &Bson, c: &mut Compiler) -> Result<Node> {
    Ok(call(n, accumulate, c.args(a)?))
}

pub(crate) fn c_percentile(n: &'static str, _: &Bson, _: &mut Compiler) -> Result<Node> {
    Err(Error::not_supported(format!("the expression operator {n}")))
}

fn accumulate(name: &'static str, args: &[Node], cx: &mut Cx) -> Result<Value> {
    let vals: Vec<Value> = cx.eval_all(args)?;
    let items: Vec<Bson> = if vals.len() == 1 {
        match vals.into_iter().next().flatten() {
            Some(Bson::Array(a)) => a,
            Some(v) => vec![v],
            None => Vec::new(),
        }
    } else {
        vals.into_iter().flatten().collect()
    };
    Ok(Some(match name {
        "$sum" | "$avg" => {
            let mut s = Sum::new();
            for v in &items {
                s.add(v);
            }
            if name == "$sum" {
                s.value()
            } else {
                s.average()
            }
        }
        "$min" => min_value(&items),
        "$max" => max_value(&items),
        "$stdDevPop" => std_dev(&items, false),
        _ => std_dev(&items, true),
    }))
}
