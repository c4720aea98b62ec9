//! `$project`, `$addFields`/`$set` and `$unset`: one projection tree, three
//! modes. Semantics follow MongoDB's projection executor: inclusion keeps the
//! input's field order and appends computed fields in spec order; computed
//! fields under a path reached through an array apply to each element, and a
//! non-document on the way is replaced by a document of the computed fields.
//! See https://www.mongodb.com/docs/manual/reference/operator/aggregation/project/
mod apply;
mod column_sum;
mod fused;
mod in_place;
pub use fused::{ColumnSums, Fused};

use crate::aggregate::operand::Operand;
use crate::aggregate::path::FieldPath;
use crate::error::{Error, Result};
use crate::expr::{CompileCtx, Scope};
use apply::{compute, copy_unreplaced, exclude, include, truthy};
use bson::{Bson, Document};
use column_sum::ColumnSum;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Inclusion,
    Exclusion,
    AddFields,
}

#[derive(Clone, Debug)]
enum Node {
    Include,
    Exclude,
    Computed(Operand),
    Sub(Tree),
}

#[derive(Clone, Debug, Default)]
struct Tree {
    fields: Vec<(String, Node)>,
    /// Any computed field in this subtree?
    computed: bool,
}

impl Tree {
    fn get(&self, name: &str) -> Option<&Node> {
        // By position, lengths first (see `apply::include`).
        let mut i = 0;
        while let Some((k, n)) = self.fields.get(i) {
            if k.len() == name.len() && k == name {
                return Some(n);
            }
            i += 1;
        }
        None
    }

    /// Add `node` at `path`, failing on collisions as MongoDB does (31249/31250).
    fn add(&mut self, path: &FieldPath, node: Node) -> Result<()> {
        let full = path.dotted();
        crate::value::path::check_length(&full)?;
        let mut cur = self;
        let parts = path.parts();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            if matches!(node, Node::Computed(_)) {
                cur.computed = true;
            }
            let pos = cur.fields.iter().position(|(k, _)| k == part);
            if last {
                if pos.is_some() {
                    return Err(Error::location(31250, format!("Path collision at {full}")));
                }
                cur.fields.push((part.clone(), node));
                return Ok(());
            }
            let pos = match pos {
                Some(p) => p,
                None => {
                    cur.fields.push((part.clone(), Node::Sub(Tree::default())));
                    cur.fields.len() - 1
                }
            };
            match &mut cur.fields[pos].1 {
                Node::Sub(t) => cur = t,
                _ => {
                    return Err(Error::location(
                        31249,
                        format!(
                            "Path collision at {full} remaining portion {}",
                            parts[i + 1..].join(".")
                        ),
                    ))
                }
            }
        }
        Ok(())
    }
}

/// A compiled `$project`, `$addFields`/`$set` or `$unset`.
#[derive(Clone, Debug)]
pub struct Projection {
    mode: Mode,
    tree: Tree,
    /// Top-level computed fields a scan column can answer.
    sums: Vec<(String, ColumnSum)>,
}

/// MongoDB prefixes a stage's parse errors: `Invalid $project :: caused by :: ...`.
fn context(stage: &str) -> impl Fn(Error) -> Error + '_ {
    move |mut e: Error| {
        e.message = format!("Invalid {stage} :: caused by :: {}", e.message);
        e
    }
}

impl Projection {
    /// `$project: {...}`.
    pub fn project(spec: &Bson, ctx: &CompileCtx) -> Result<Projection> {
        let Bson::Document(spec) = spec else {
            return Err(Error::location(
                15969,
                "$project specification must be an object",
            ));
        };
        if spec.is_empty() {
            return Err(Error::location(
                51272,
                "Invalid $project :: caused by :: projection specification must have at least one field",
            ));
        }
        let mut b = Builder {
            tree: Tree::default(),
            kind: None,
            add_fields: false,
            id_seen: false,
            sums: Vec::new(),
        };
        b.walk(spec, None, ctx).map_err(context("$project"))?;
        let mode = b.kind.unwrap_or(Mode::Exclusion);
        let mut tree = b.tree;
        if mode == Mode::Inclusion && !b.id_seen {
            tree.fields.insert(0, ("_id".to_string(), Node::Include));
        }
        Ok(Projection {
            mode,
            tree,
            sums: b.sums,
        })
    }

    /// `$addFields`/`$set: {...}` (`stage` is the name the user wrote).
    pub fn add_fields(spec: &Bson, stage: &str, ctx: &CompileCtx) -> Result<Projection> {
        let Bson::Document(spec) = spec else {
            return Err(Error::location(
                40272,
                format!(
                    "{stage} specification stage must be an object, got {}",
                    crate::text::shell::type_name(spec)
                ),
            ));
        };
        let mut b = Builder {
            tree: Tree::default(),
            kind: Some(Mode::AddFields),
            add_fields: true,
            id_seen: false,
            sums: Vec::new(),
        };
        b.walk(spec, None, ctx).map_err(context(stage))?;
        Ok(Projection {
            mode: Mode::AddFields,
            tree: b.tree,
            sums: b.sums,
        })
    }

    /// `$unset: "a"` or `$unset: ["a", "b.c"]`.
    pub fn unset(spec: &Bson) -> Result<Projection> {
        let names: Vec<&str> = match spec {
            Bson::String(s) => vec![s.as_str()],
            Bson::Array(items) => {
                if items.is_empty() {
                    return Err(Error::location(
                        31119,
                        "$unset specification must be a string or an array with at least one field",
                    ));
                }
                let mut names = Vec::new();
                for item in items {
                    match item {
                        Bson::String(s) => names.push(s.as_str()),
                        _ => {
                            return Err(Error::location(
                                31120,
                                "$unset specification must be a string or an array containing only string values",
                            ))
                        }
                    }
                }
                names
            }
            _ => {
                return Err(Error::location(
                    31002,
                    "$unset specification must be a string or an array",
                ))
            }
        };
        let mut tree = Tree::default();
        for name in names {
            let path = FieldPath::parse(name).map_err(context("$unset"))?;
            tree.add(&path, Node::Exclude).map_err(context("$unset"))?;
        }
        Ok(Projection {
            mode: Mode::Exclusion,
            tree,
            sums: Vec::new(),
        })
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Project one document.
    pub fn apply(&self, doc: &Document, scope: &Scope) -> Result<Document> {
        match self.mode {
            Mode::Exclusion => {
                let mut out = exclude(&self.tree, doc);
                if self.tree.computed {
                    compute(&self.tree, &mut out, doc, scope)?;
                }
                Ok(out)
            }
            Mode::Inclusion => {
                let mut out = include(&self.tree, doc);
                if self.tree.computed {
                    compute(&self.tree, &mut out, doc, scope)?;
                }
                Ok(out)
            }
            Mode::AddFields => {
                let mut out = copy_unreplaced(&self.tree, doc, &[]);
                compute(&self.tree, &mut out, doc, scope)?;
                Ok(out)
            }
        }
    }
}

struct Builder {
    tree: Tree,
    kind: Option<Mode>,
    add_fields: bool,
    id_seen: bool,
    sums: Vec<(String, ColumnSum)>,
}

impl Builder {
    fn walk(&mut self, spec: &Document, prefix: Option<&str>, ctx: &CompileCtx) -> Result<()> {
        for (key, value) in spec {
            let full = match prefix {
                Some(p) => format!("{p}.{key}"),
                None => key.clone(),
            };
            let path = FieldPath::parse(&full)?;
            if prefix.is_none() && (key == "_id" || key.starts_with("_id.")) {
                self.id_seen = true;
            }
            match value {
                Bson::Document(sub) if sub.keys().next().is_some_and(|k| k.starts_with('$')) => {
                    self.computed(&path, value, ctx)?;
                }
                Bson::Document(sub) if sub.is_empty() => {
                    if self.add_fields {
                        self.computed(&path, value, ctx)?;
                    } else {
                        return Err(Error::location(
                            51270,
                            format!("An empty sub-projection is not a valid value. Found empty object at path {full}"),
                        ));
                    }
                }
                Bson::Document(sub) => self.walk(sub, Some(&full), ctx)?,
                Bson::Boolean(_)
                | Bson::Int32(_)
                | Bson::Int64(_)
                | Bson::Double(_)
                | Bson::Decimal128(_)
                    if !self.add_fields =>
                {
                    if truthy(value) {
                        if self.kind == Some(Mode::Exclusion) {
                            return Err(Error::location(
                                31253,
                                format!(
                                    "Cannot do inclusion on field {full} in exclusion projection"
                                ),
                            ));
                        }
                        self.kind = Some(Mode::Inclusion);
                        self.tree.add(&path, Node::Include)?;
                    } else {
                        if full != "_id" {
                            if self.kind == Some(Mode::Inclusion) {
                                return Err(Error::location(
                                    31254,
                                    format!("Cannot do exclusion on field {full} in inclusion projection"),
                                ));
                            }
                            self.kind = Some(Mode::Exclusion);
                        }
                        self.tree.add(&path, Node::Exclude)?;
                    }
                }
                _ => self.computed(&path, value, ctx)?,
            }
        }
        Ok(())
    }

    fn computed(&mut self, path: &FieldPath, value: &Bson, ctx: &CompileCtx) -> Result<()> {
        // `{$meta: ...}` makes neither an inclusion nor an exclusion.
        let meta = matches!(value, Bson::Document(d) if d.len() == 1 && d.contains_key("$meta"));
        if !self.add_fields && !meta {
            if self.kind == Some(Mode::Exclusion) {
                return Err(Error::location(
                    31252,
                    "Cannot use expression other than $meta in exclusion projection",
                ));
            }
            self.kind = Some(Mode::Inclusion);
        }
        let op = Operand::compile(value, ctx)?;
        self.tree.add(path, Node::Computed(op))?;
        if let ([name], Some(sum)) = (path.parts(), ColumnSum::recognize(value)) {
            self.sums.push((name.clone(), sum));
        }
        Ok(())
    }
}
