//! Filter documents → the matcher tree. Every operator name is resolved and
//! every argument validated here, with the server's codes and messages
//! (src/mongo/db/matcher/expression_parser.cpp).
//! See https://www.mongodb.com/docs/manual/reference/operator/query/.
use super::conjuncts::Recorder;
use super::matcher::{and, Node, Pred};
use super::ops::array::{compile_all, compile_elem_match, compile_size};
use super::ops::bitwise::Bits;
use super::ops::comparison::{Cmp, CmpOp, InSet};
use super::ops::element::TypeSet;
use super::ops::evaluation::{javascript_error, regex_from_operators, Modulo, RegexPred};
use super::ops::json_schema::Schema;
use super::ops::logical::{compile_not, compile_tree};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Expr};
use crate::value::path::FieldPath;
use bson::{Bson, Document};

/// Where a query document sits: the whole document, or inside `$elemMatch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    Top,
    Sub,
}

pub(crate) struct Parser<'c> {
    pub ctx: &'c CompileCtx,
}

/// Operators valid at the top level of a query document (the server's "pathless" parsers).
const TOP_LEVEL: &[&str] = &[
    "$and",
    "$or",
    "$nor",
    "$expr",
    "$where",
    "$text",
    "$comment",
    "$jsonSchema",
    "$alwaysTrue",
    "$alwaysFalse",
    "$sampleRate",
];

pub(crate) fn is_top_level_operator(name: &str) -> bool {
    TOP_LEVEL.contains(&name)
}

/// `{$gt: 1}` is an operator document; `{a: 1}`, `{}` and DBRefs (`{$ref, $id}`) are values.
pub(crate) fn is_operator_document(v: &Bson) -> bool {
    let Bson::Document(d) = v else {
        return false;
    };
    let Some(first) = d.keys().next() else {
        return false;
    };
    first.starts_with('$') && !(d.contains_key("$ref") && d.contains_key("$id"))
}

impl Parser<'_> {
    /// A query document: an implicit `$and` of its fields.
    pub(crate) fn parse_doc(&self, obj: &Document, level: Level) -> Result<Node> {
        self.parse_recorded(obj, level, None)
    }

    /// A query document, its top-level conjuncts told to `rec` as they are parsed.
    pub(crate) fn parse_recorded(
        &self,
        obj: &Document,
        level: Level,
        mut rec: Option<&mut Recorder>,
    ) -> Result<Node> {
        let mut children = Vec::with_capacity(obj.len());
        for (key, value) in obj {
            if key.starts_with('$') {
                if let Some(r) = rec.as_deref_mut() {
                    r.operator(key, value);
                }
                if let Some(node) = self.top_operator(key, value, level, rec.as_deref_mut())? {
                    children.push(node);
                }
                continue;
            }
            let path = FieldPath::new(key);
            if is_operator_document(value) {
                if let Bson::Document(ops) = value {
                    for pred in self.parse_ops(key, ops)? {
                        children.push(Node::on_path(&path, pred));
                    }
                    if let Some(r) = rec.as_deref_mut() {
                        r.operators(key, ops);
                    }
                }
                continue;
            }
            children.push(Node::on_path(&path, implicit_equality(value)?));
            if let Some(r) = rec.as_deref_mut() {
                r.value(key, value);
            }
        }
        Ok(if children.is_empty() {
            Node::True
        } else {
            and(children)
        })
    }

    fn top_operator(
        &self,
        name: &str,
        arg: &Bson,
        level: Level,
        rec: Option<&mut Recorder>,
    ) -> Result<Option<Node>> {
        Ok(Some(match name {
            "$and" | "$or" | "$nor" => compile_tree(self, name, arg, level, rec)?,
            "$comment" => return Ok(None),
            "$alwaysTrue" | "$alwaysFalse" => {
                if !matches!(arg, Bson::Int32(1) | Bson::Int64(1) | Bson::Double(_))
                    || matches!(arg, Bson::Double(d) if *d != 1.0)
                {
                    return Err(Error::failed_to_parse(format!(
                        "{name} must be an integer value of 1"
                    )));
                }
                if name == "$alwaysTrue" {
                    Node::True
                } else {
                    Node::False
                }
            }
            "$expr" => {
                if level == Level::Sub {
                    return Err(Error::bad_value(
                        "$expr can only be applied to the top-level document",
                    ));
                }
                Node::Expr(Box::new(Expr::compile(arg, self.ctx)?))
            }
            "$where" => return Err(javascript_error("$where")),
            "$jsonSchema" => {
                if level == Level::Sub {
                    return Err(Error::bad_value(
                        "$jsonSchema can only be applied to the top-level document",
                    ));
                }
                let Bson::Document(schema) = arg else {
                    return Err(Error::type_mismatch("$jsonSchema must be an object"));
                };
                Node::Schema(Box::new(Schema::compile(schema)?))
            }
            "$text" => {
                if level == Level::Sub {
                    return Err(Error::bad_value(
                        "$text can only be applied to the top-level document",
                    ));
                }
                Node::Text(Box::new(super::text::TextNode {
                    args: crate::fts::TextArgs::parse(arg)?,
                    search: None,
                }))
            }
            "$sampleRate" => return Err(Error::not_supported("$sampleRate")),
            _ => {
                return Err(Error::bad_value(format!(
                    "unknown top level operator: {name}. If you have a field name that starts with a '$' symbol, consider using $getField or $setField."
                )))
            }
        }))
    }

    /// The operators of `{path: {$op: arg, ...}}`, as predicates on the path's values.
    pub(crate) fn parse_ops(&self, path: &str, ops: &Document) -> Result<Vec<Pred>> {
        let mut preds = Vec::with_capacity(ops.len());
        let mut regex_done = false;
        if ops.keys().any(|k| crate::geo::query::is_near(k)) {
            let near = crate::geo::NearQuery::compile(ops)?;
            return Ok(vec![Pred::Near(Box::new(near))]);
        }
        for (op, arg) in ops {
            if op == "$regex" || op == "$options" {
                if !regex_done {
                    regex_done = true;
                    if let Some(re) = regex_from_operators(ops)? {
                        preds.push(Pred::Regex(Box::new(re)));
                    }
                }
                continue;
            }
            preds.push(self.parse_op(path, op, arg)?);
        }
        Ok(preds)
    }

    fn parse_op(&self, path: &str, op: &str, arg: &Bson) -> Result<Pred> {
        if let Some(cmp) = CmpOp::from_name(op) {
            if cmp != CmpOp::Eq && matches!(arg, Bson::RegularExpression(_)) {
                return Err(Error::bad_value(format!(
                    "Can't have RegEx as arg to predicate over field '{path}'."
                )));
            }
            return Ok(Pred::Cmp(Cmp::new(cmp, arg.clone())?));
        }
        Ok(match op {
            "$ne" => {
                if matches!(arg, Bson::RegularExpression(_)) {
                    return Err(Error::bad_value("Can't have regex as arg to $ne."));
                }
                Pred::Not(vec![Pred::Cmp(Cmp::new(CmpOp::Eq, arg.clone())?)])
            }
            "$in" => Pred::In(InSet::compile("$in", arg)?),
            "$nin" => Pred::Not(vec![Pred::In(InSet::compile("$nin", arg)?)]),
            "$exists" => {
                if exists_truthy(arg) {
                    Pred::Exists
                } else {
                    Pred::Not(vec![Pred::Exists])
                }
            }
            "$type" => Pred::Type(TypeSet::compile(arg, path)?),
            "$mod" => Pred::Mod(Modulo::compile(arg)?),
            "$size" => compile_size(arg)?,
            "$all" => compile_all(self, path, arg)?,
            "$elemMatch" => compile_elem_match(self, arg)?,
            "$not" => compile_not(self, path, arg)?,
            "$bitsAllSet" | "$bitsAllClear" | "$bitsAnySet" | "$bitsAnyClear" => {
                Pred::Bits(Bits::compile(op, arg)?)
            }
            "$geoWithin" | "$within" | "$geoIntersects" => {
                Pred::Geo(Box::new(crate::geo::GeoMatch::compile(op, arg)?))
            }
            "$where" | "$function" => return Err(javascript_error(op)),
            "$text" => return Err(Error::not_supported("$text")),
            _ => return Err(Error::bad_value(format!("unknown operator: {op}"))),
        })
    }
}

/// `{a: 5}` and `{a: /re/}`: equality, or a regex match for a regex value.
pub(crate) fn implicit_equality(value: &Bson) -> Result<Pred> {
    Ok(match value {
        Bson::RegularExpression(re) => Pred::Regex(Box::new(RegexPred::compile(
            re.pattern.as_str(),
            re.options.as_str(),
        )?)),
        v => Pred::Cmp(Cmp::new(CmpOp::Eq, v.clone())?),
    })
}

/// `$exists` takes any value: false, 0, null and undefined mean "does not exist".
fn exists_truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Null | Bson::Undefined => false,
        Bson::Int32(i) => *i != 0,
        Bson::Int64(i) => *i != 0,
        Bson::Double(d) => *d != 0.0,
        Bson::Decimal128(_) => crate::expr::truthy(Some(v)),
        _ => true,
    }
}
