//! Parsing a find() projection into its tree, with the server's checks and
//! codes (src/mongo/db/query/projection_parser.cpp).
use super::{PNode, Projection, Tree};
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Expr};
use crate::query::{filter_mentions_field, ElemMatch};
use bson::{Bson, Document};

/// What parsing has seen so far (the server's ParseContext).
#[derive(Default)]
struct ParseState<'q> {
    query: Option<&'q Document>,
    inclusion: Option<bool>,
    id_specified: bool,
    id_included: bool,
    id_excluded: bool,
    has_positional: bool,
    has_elem_match: bool,
    has_slice: bool,
    meta: Vec<String>,
}

/// Parse a find() projection (the server's `projection_ast::parseAndAnalyze`).
pub(super) fn parse(
    spec: &Document,
    query: Option<&Document>,
    ctx: &CompileCtx,
) -> Result<Projection> {
    let mut st = ParseState {
        query,
        ..ParseState::default()
    };
    let mut root = Tree::default();
    for (key, value) in spec {
        st.id_specified |= key == "_id" || key.starts_with("_id.");
        parse_element(&mut st, ctx, &mut root, key, None, value)?;
    }
    let inclusion = match st.inclusion {
        Some(t) => t,
        // Only _id and find operators: the server's computeProjectionType.
        None => {
            if st.has_slice {
                st.id_included
            } else {
                st.has_elem_match || st.id_included
            }
        }
    };
    if inclusion && !st.id_specified {
        root.fields.insert(0, ("_id".to_string(), PNode::Include));
    }
    if !inclusion && st.id_included {
        root.remove("_id");
    }
    Ok(Projection {
        root,
        inclusion,
        meta: st.meta,
    })
}

/// `1`, `true` and any non-zero number include; `0` and `false` exclude.
fn true_value(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Int32(i) => *i != 0,
        Bson::Int64(i) => *i != 0,
        Bson::Double(d) => *d != 0.0,
        Bson::Decimal128(_) => crate::value::numeric::to_f64(v).is_some_and(|d| d != 0.0),
        _ => false,
    }
}

/// Check a projection path (the server's FieldPath rules).
fn check_path(path: &str) -> Result<Vec<&str>> {
    if path.is_empty() {
        return Err(Error::location(
            40352,
            "FieldPath cannot be constructed with empty string",
        ));
    }
    let parts: Vec<&str> = path.split('.').collect();
    for p in &parts {
        if p.is_empty() {
            return Err(Error::location(
                15998,
                "FieldPath field names may not be empty strings.",
            ));
        }
        if p.starts_with('$') {
            return Err(Error::location(
                16410,
                "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
            ));
        }
    }
    Ok(parts)
}

/// Where the first positional `$` is: `a.$` or `a.$.b` (returns the prefix).
fn positional_prefix(path: &str) -> Option<&str> {
    if let Some(i) = path.find(".$.") {
        return Some(&path[..i]);
    }
    path.strip_suffix(".$")
}

fn parse_element(
    st: &mut ParseState,
    ctx: &CompileCtx,
    parent: &mut Tree,
    key: &str,
    parent_path: Option<&str>,
    value: &Bson,
) -> Result<()> {
    let full = match parent_path {
        Some(p) => format!("{p}.{key}"),
        None => key.to_string(),
    };
    let positional = positional_prefix(key);
    match value {
        Bson::Document(sub) => {
            if positional.is_some() {
                return Err(Error::location(
                    31271,
                    "positional projection cannot be used with an expression or sub object",
                ));
            }
            parse_sub_object(st, ctx, parent, key, &full, sub, parent_path.is_none())
        }
        Bson::Boolean(_)
        | Bson::Int32(_)
        | Bson::Int64(_)
        | Bson::Double(_)
        | Bson::Decimal128(_) => {
            if true_value(value) {
                parse_inclusion(st, parent, key, &full, parent_path, positional)
            } else {
                let path = check_path(key)?;
                parent.add(&path, &full, PNode::Exclude)?;
                if key == "_id" && parent_path.is_none() {
                    st.id_excluded = true;
                } else {
                    if st.inclusion == Some(true) {
                        return Err(Error::location(
                            31254,
                            format!("Cannot do exclusion on field {key} in inclusion projection"),
                        ));
                    }
                    st.inclusion = Some(false);
                }
                Ok(())
            }
        }
        _ => {
            if positional.is_some() {
                return Err(Error::location(
                    31308,
                    "positional projection cannot be used with a literal",
                ));
            }
            let path = check_path(key)?;
            let node = literal_or_expression(value, ctx)?;
            parent.add(&path, &full, node)?;
            if st.inclusion == Some(false) {
                return Err(Error::location(
                    31310,
                    format!(
                        "Cannot use an expression {key}: {} in an exclusion projection",
                        crate::text::shell::inline(value)
                    ),
                ));
            }
            st.inclusion = Some(true);
            Ok(())
        }
    }
}

/// `{a: "x"}` is the literal "x"; `{a: "$b"}` and arrays holding `$` strings are expressions.
fn literal_or_expression(value: &Bson, ctx: &CompileCtx) -> Result<PNode> {
    fn plain(v: &Bson) -> bool {
        match v {
            Bson::String(s) => !s.starts_with('$'),
            Bson::Array(items) => items.iter().all(plain),
            Bson::Document(_) => false,
            _ => true,
        }
    }
    if plain(value) {
        Ok(PNode::Literal(value.clone()))
    } else {
        Ok(PNode::Expr(Box::new(Expr::compile(value, ctx)?)))
    }
}

fn parse_inclusion(
    st: &mut ParseState,
    parent: &mut Tree,
    key: &str,
    full: &str,
    parent_path: Option<&str>,
    positional: Option<&str>,
) -> Result<()> {
    let top_id = key == "_id" && parent_path.is_none();
    match positional {
        None => {
            let path = check_path(key)?;
            parent.add(&path, full, PNode::Include)?;
            if top_id {
                st.id_included = true;
            }
        }
        Some(prefix) => {
            if st.has_positional {
                return Err(Error::location(
                    31276,
                    "Cannot specify more than one positional projection per query.",
                ));
            }
            if st.has_elem_match {
                return Err(Error::location(
                    31256,
                    "Cannot specify positional operator and $elemMatch.",
                ));
            }
            let Some(query) = st.query else {
                return Err(Error::location(
                    51050,
                    "Projections with a positional operator require a matcher",
                ));
            };
            let first = parent_path
                .unwrap_or(prefix)
                .split('.')
                .next()
                .unwrap_or_default();
            if !filter_mentions_field(query, first) {
                return Err(Error::location(
                    31277,
                    format!("Positional projection '{key}' does not match the query document."),
                ));
            }
            if key.ends_with(".$.") {
                return Err(Error::location(31270, "Path cannot end with '.$.'"));
            }
            let after = &key[prefix.len() + 2..];
            if positional_prefix(after).is_some() || after == "$" || after.starts_with(".$") {
                return Err(Error::location(
                    31287,
                    format!("Cannot use positional operator twice: {key}"),
                ));
            }
            let path = check_path(prefix)?;
            parent.add(&path, full, PNode::Positional)?;
            st.has_positional = true;
        }
    }
    if !top_id {
        if st.inclusion == Some(false) {
            return Err(Error::location(
                31253,
                format!("Cannot do inclusion on field {key} in exclusion projection"),
            ));
        }
        st.inclusion = Some(true);
    }
    Ok(())
}

fn parse_sub_object(
    st: &mut ParseState,
    ctx: &CompileCtx,
    parent: &mut Tree,
    key: &str,
    full: &str,
    sub: &Document,
    top: bool,
) -> Result<()> {
    let path = check_path(key)?;
    if sub.len() == 1 {
        if let Some((op, arg)) = sub.iter().next() {
            if op.starts_with('$') {
                return parse_operator(st, ctx, parent, &path, full, op, arg, sub, top);
            }
        }
    }
    if sub.is_empty() {
        return Err(Error::location(
            51270,
            format!(
                "An empty sub-projection is not a valid value. Found empty object at path {full}"
            ),
        ));
    }
    // A nested projection: `{a: {b: 1}}` is `{"a.b": 1}`.
    let mut tree = Tree::default();
    for (k, v) in sub {
        parse_element(st, ctx, &mut tree, k, Some(full), v)?;
    }
    merge_sub(parent, &path, full, tree)
}

/// Put a nested tree at `path`, merging with a level already there.
fn merge_sub(parent: &mut Tree, path: &[&str], full: &str, tree: Tree) -> Result<()> {
    for (k, node) in tree.fields {
        let mut p: Vec<&str> = path.to_vec();
        p.push(&k);
        let node_full = format!("{full}.{k}");
        match node {
            PNode::Sub(t) => merge_sub(parent, &p, &node_full, t)?,
            n => parent.add(&p, &node_full, n)?,
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn parse_operator(
    st: &mut ParseState,
    ctx: &CompileCtx,
    parent: &mut Tree,
    path: &[&str],
    full: &str,
    op: &str,
    arg: &Bson,
    sub: &Document,
    top: bool,
) -> Result<()> {
    match op {
        "$meta" => match arg {
            Bson::String(s) if s == "textScore" && sub.len() == 1 => {
                // At any depth, as the server's projection parser takes it.
                st.meta.push(full.to_string());
                Ok(())
            }
            Bson::String(s) if crate::fts::META_NAMES.contains(&s.as_str()) => Err(
                Error::not_supported(format!("{{$meta: \"{s}\"}} in projections")),
            ),
            _ => Err(Error::location(
                17308,
                format!(
                    "Unsupported argument to $meta: {}",
                    crate::text::shell::inline(arg)
                ),
            )),
        },
        "$slice" => match find_slice(arg) {
            Ok((skip, limit)) => {
                parent.add(path, full, PNode::Slice { skip, limit })?;
                st.has_slice = true;
                Ok(())
            }
            // Not find's syntax: maybe the aggregation $slice expression
            // (the server tries both and reports both failures).
            Err(find_err) => match Expr::compile(&Bson::Document(sub.clone()), ctx) {
                Ok(expr) => add_expression(st, parent, path, full, PNode::Expr(Box::new(expr))),
                Err(expr_err) => Err(Error {
                    message: format!(
                        "Invalid $slice syntax. The given syntax {} did not match the find() syntax because :: {}: {} :: The given syntax did not match the expression $slice syntax. :: caused by :: {}",
                        crate::text::shell::inline(&Bson::Document(sub.clone())),
                        find_err.code_name,
                        find_err.message,
                        expr_err.message
                    ),
                    ..expr_err
                }),
            },
        },
        "$elemMatch" => {
            if !matches!(arg, Bson::Document(_)) {
                return Err(Error::location(
                    31274,
                    format!(
                        "elemMatch: Invalid argument, object required, but got {}",
                        crate::text::shell::type_name(arg)
                    ),
                ));
            }
            if st.has_positional {
                return Err(Error::location(
                    31255,
                    "Cannot specify positional operator and $elemMatch.",
                ));
            }
            if path.len() != 1 || !top {
                return Err(Error::location(
                    31275,
                    "Cannot use $elemMatch projection on a nested field.",
                ));
            }
            let em = ElemMatch::compile(arg, &CompileCtx::default())?;
            parent.add(path, full, PNode::ElemMatch(Box::new(em)))?;
            st.has_elem_match = true;
            Ok(())
        }
        _ => {
            let expr = Expr::compile(&Bson::Document(sub.clone()), ctx).map_err(|e| {
                if e.code == 168 {
                    Error::location(31325, format!("Unknown expression {op}"))
                } else {
                    e
                }
            })?;
            add_expression(st, parent, path, full, PNode::Expr(Box::new(expr)))
        }
    }
}

fn add_expression(
    st: &mut ParseState,
    parent: &mut Tree,
    path: &[&str],
    full: &str,
    node: PNode,
) -> Result<()> {
    if st.inclusion == Some(false) {
        return Err(Error::location(
            31252,
            "Cannot use expression other than $meta in exclusion projection",
        ));
    }
    st.inclusion = Some(true);
    parent.add(path, full, node)
}

/// find's `$slice: n` or `$slice: [skip, limit]` (limit > 0).
fn find_slice(arg: &Bson) -> Result<(Option<i64>, i64)> {
    let int = |v: &Bson| {
        crate::value::numeric::to_f64(v)
            .map(|f| f.trunc().clamp(i32::MIN as f64, i32::MAX as f64) as i64)
    };
    match arg {
        v if crate::value::numeric::is_number(v) => Ok((None, int(v).unwrap_or(0))),
        Bson::Array(items) => {
            let [skip, limit] = items.as_slice() else {
                return Err(Error::location(
                    31272,
                    "$slice array argument should be of form [skip, limit]",
                ));
            };
            let Some(skip) = int(skip) else {
                return Err(Error::location(
                    31257,
                    format!(
                        "$slice expects the skip argument to be a number, got {}",
                        crate::text::shell::type_name(skip)
                    ),
                ));
            };
            let Some(limit) = int(limit) else {
                return Err(Error::location(
                    31258,
                    format!(
                        "$slice expects the limit argument to be a number, got {}",
                        crate::text::shell::type_name(limit)
                    ),
                ));
            };
            if limit <= 0 {
                return Err(Error::location(
                    31259,
                    format!("$slice limit must be positive, got {limit}"),
                ));
            }
            Ok((Some(skip), limit))
        }
        _ => Err(Error::location(
            31273,
            "$slice only supports numbers and [skip, limit] arrays",
        )),
    }
}
