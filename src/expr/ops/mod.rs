//! The operator table: every MongoDB 8.x expression operator name and the
//! function that compiles its arguments. Looked up once per operator at compile time.
mod accumulators;
mod add_state;
mod arithmetic;
mod array;
mod array_named;
mod bindata;
mod boolean;
mod comparison;
mod conditional;
pub(crate) mod date;
mod date_abbr;
mod date_arith;
mod date_ops;
pub(crate) mod date_parse;
mod date_string;
pub(crate) mod decimal;
mod misc;
mod object;
mod reduce_append;
mod regex_ops;
mod set;
mod string;
mod trig;
mod types;
mod vars;

use super::compile::Compiler;
use super::eval::Node;
use crate::error::{Error, Result};
use bson::Bson;

/// Compiles the argument of `{$name: <arg>}`.
pub(crate) type CompileFn = fn(&'static str, &Bson, &mut Compiler) -> Result<Node>;

/// Operators MongoDB has that the playground does not evaluate.
fn unsupported(name: &'static str, _: &Bson, _: &mut Compiler) -> Result<Node> {
    Err(Error::not_supported(format!(
        "the expression operator {name}"
    )))
}

/// `{$meta: "textScore"}`: the score a `$text` match gave the document.
fn c_meta(_: &'static str, arg: &Bson, _: &mut Compiler) -> Result<Node> {
    match arg {
        Bson::String(s) if s == "textScore" => Ok(Node::Var(
            super::eval::VarRef::Root,
            vec![crate::fts::SCORE_FIELD.to_string()],
        )),
        Bson::String(s) if crate::fts::META_NAMES.contains(&s.as_str()) => Err(
            Error::not_supported(format!("the expression {{$meta: \"{s}\"}}")),
        ),
        _ => Err(Error::location(
            17308,
            format!(
                "Unsupported argument to $meta: {}",
                crate::text::shell::inline(arg)
            ),
        )),
    }
}

static OPS: &[(&str, CompileFn)] = &[
    // arithmetic
    ("$abs", arithmetic::c_unary),
    ("$add", arithmetic::c_add),
    ("$ceil", arithmetic::c_unary),
    ("$divide", arithmetic::c_divide),
    ("$exp", arithmetic::c_unary),
    ("$floor", arithmetic::c_unary),
    ("$ln", arithmetic::c_unary),
    ("$log", arithmetic::c_log),
    ("$log10", arithmetic::c_unary),
    ("$mod", arithmetic::c_mod),
    ("$multiply", arithmetic::c_multiply),
    ("$pow", arithmetic::c_pow),
    ("$round", arithmetic::c_round),
    ("$sqrt", arithmetic::c_unary),
    ("$subtract", arithmetic::c_subtract),
    ("$trunc", arithmetic::c_round),
    // comparison
    ("$cmp", comparison::c_cmp),
    ("$eq", comparison::c_cmp),
    ("$gt", comparison::c_cmp),
    ("$gte", comparison::c_cmp),
    ("$lt", comparison::c_cmp),
    ("$lte", comparison::c_cmp),
    ("$ne", comparison::c_cmp),
    // boolean
    ("$and", boolean::c_and),
    ("$not", boolean::c_not),
    ("$or", boolean::c_or),
    // conditional
    ("$cond", conditional::c_cond),
    ("$ifNull", conditional::c_if_null),
    ("$switch", conditional::c_switch),
    // array
    ("$allElementsTrue", array::c_elements_true),
    ("$anyElementTrue", array::c_elements_true),
    ("$arrayElemAt", array::c_array_elem_at),
    ("$arrayToObject", array::c_array_to_object),
    ("$concatArrays", array::c_concat_arrays),
    ("$filter", vars::c_filter),
    ("$first", array::c_first_last),
    ("$firstN", array_named::c_first_last_n),
    ("$in", array::c_in),
    ("$indexOfArray", array::c_index_of_array),
    ("$isArray", array::c_is_array),
    ("$last", array::c_first_last),
    ("$lastN", array_named::c_first_last_n),
    ("$map", vars::c_map),
    ("$maxN", array_named::c_min_max_n),
    ("$minN", array_named::c_min_max_n),
    ("$objectToArray", array::c_object_to_array),
    ("$range", array::c_range),
    ("$reduce", vars::c_reduce),
    ("$reverseArray", array::c_reverse),
    ("$size", array::c_size),
    ("$slice", array::c_slice),
    ("$sortArray", array_named::c_sort_array),
    ("$zip", array_named::c_zip),
    // set
    ("$setDifference", set::c_set_difference),
    ("$setEquals", set::c_set_equals),
    ("$setIntersection", set::c_set_intersection),
    ("$setIsSubset", set::c_set_is_subset),
    ("$setUnion", set::c_set_union),
    // string
    ("$concat", string::c_concat),
    ("$indexOfBytes", string::c_index_of),
    ("$indexOfCP", string::c_index_of),
    ("$ltrim", string::c_trim),
    ("$regexFind", regex_ops::c_regex),
    ("$regexFindAll", regex_ops::c_regex),
    ("$regexMatch", regex_ops::c_regex),
    ("$replaceAll", string::c_replace),
    ("$replaceOne", string::c_replace),
    ("$rtrim", string::c_trim),
    ("$split", string::c_split),
    ("$strcasecmp", string::c_strcasecmp),
    ("$strLenBytes", string::c_str_len),
    ("$strLenCP", string::c_str_len),
    ("$substr", string::c_substr_bytes),
    ("$substrBytes", string::c_substr_bytes),
    ("$substrCP", string::c_substr_cp),
    ("$toLower", string::c_case),
    ("$toUpper", string::c_case),
    ("$trim", string::c_trim),
    // type
    ("$convert", types::c_convert),
    ("$isNumber", types::c_is_number),
    ("$toBool", types::c_to),
    ("$toDate", types::c_to),
    ("$toDecimal", types::c_to),
    ("$toDouble", types::c_to),
    ("$toInt", types::c_to),
    ("$toLong", types::c_to),
    ("$toObjectId", types::c_to),
    ("$toString", types::c_to),
    ("$type", types::c_type),
    // date
    ("$dateAdd", date_ops::c_date_add),
    ("$dateDiff", date_ops::c_date_diff),
    ("$dateFromParts", date_ops::c_date_from_parts),
    ("$dateFromString", date_ops::c_date_from_string),
    ("$dateSubtract", date_ops::c_date_add),
    ("$dateToParts", date_ops::c_date_to_parts),
    ("$dateToString", date_ops::c_date_to_string),
    ("$dateTrunc", date_ops::c_date_trunc),
    ("$dayOfMonth", date_ops::c_part),
    ("$dayOfWeek", date_ops::c_part),
    ("$dayOfYear", date_ops::c_part),
    ("$hour", date_ops::c_part),
    ("$isoDayOfWeek", date_ops::c_part),
    ("$isoWeek", date_ops::c_part),
    ("$isoWeekYear", date_ops::c_part),
    ("$millisecond", date_ops::c_part),
    ("$minute", date_ops::c_part),
    ("$month", date_ops::c_part),
    ("$second", date_ops::c_part),
    ("$week", date_ops::c_part),
    ("$year", date_ops::c_part),
    // object / variables / misc
    ("$binarySize", misc::c_binary_size),
    ("$bsonSize", misc::c_bson_size),
    ("$const", misc::c_literal),
    ("$getField", object::c_get_field),
    ("$let", vars::c_let),
    ("$literal", misc::c_literal),
    ("$mergeObjects", object::c_merge_objects),
    ("$rand", misc::c_rand),
    ("$setField", object::c_set_field),
    ("$unsetField", object::c_set_field),
    // accumulators in expression form
    ("$avg", accumulators::c_accumulator),
    ("$max", accumulators::c_accumulator),
    ("$min", accumulators::c_accumulator),
    ("$stdDevPop", accumulators::c_accumulator),
    ("$stdDevSamp", accumulators::c_accumulator),
    ("$sum", accumulators::c_accumulator),
    ("$median", accumulators::c_percentile),
    ("$percentile", accumulators::c_percentile),
    // MongoDB operators without an implementation here
    ("$acos", trig::c_trig),
    ("$acosh", trig::c_trig),
    ("$asin", trig::c_trig),
    ("$asinh", trig::c_trig),
    ("$atan", trig::c_trig),
    ("$atan2", trig::c_atan2),
    ("$atanh", trig::c_trig),
    ("$bitAnd", trig::c_bit),
    ("$bitNot", trig::c_bit),
    ("$bitOr", trig::c_bit),
    ("$bitXor", trig::c_bit),
    ("$cos", trig::c_trig),
    ("$cosh", trig::c_trig),
    ("$degreesToRadians", trig::c_trig),
    ("$function", unsupported),
    ("$meta", c_meta),
    ("$radiansToDegrees", trig::c_trig),
    ("$sin", trig::c_trig),
    ("$sinh", trig::c_trig),
    ("$tan", trig::c_trig),
    ("$tanh", trig::c_trig),
    ("$toHashedIndexKey", unsupported),
    ("$toUUID", types::c_to),
    ("$tsIncrement", misc::c_ts),
    ("$tsSecond", misc::c_ts),
];

/// The operator's canonical name and compile function.
pub(crate) fn lookup(name: &str) -> Option<(&'static str, CompileFn)> {
    OPS.iter().find(|(n, _)| *n == name).map(|(n, f)| (*n, *f))
}

/// Every operator name (for tests that exercise the whole table).
#[cfg(test)]
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    OPS.iter().map(|(n, _)| *n)
}
