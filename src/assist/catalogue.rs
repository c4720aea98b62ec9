//! The operator catalogue (`operators.tsv`): every operator and stage the
//! engine compiles, with a one-line summary, its syntax, its manual page and
//! the skeleton completion inserts. One data file for completion and hover;
//! `tests.rs` keeps it and the engine's registries in step.
use std::sync::OnceLock;

/// Where an operator may stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A pipeline stage (`$group`).
    Stage,
    /// A top-level query operator (`$and`, `$expr`).
    QueryTop,
    /// A query operator on a field (`{qty: {$gt: 5}}`).
    Query,
    /// An update operator (`$set`).
    Update,
    /// A `$group` accumulator (`$sum`).
    Accumulator,
    /// A window function of `$setWindowFields` (`$rank`); accumulators work there too.
    Window,
    /// An aggregation expression operator (`$concat`).
    Expression,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 7] = [
        Kind::Stage,
        Kind::QueryTop,
        Kind::Query,
        Kind::Update,
        Kind::Accumulator,
        Kind::Window,
        Kind::Expression,
    ];
    fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.id() == s)
    }
    /// The kind as `operators.tsv` writes it.
    pub fn id(self) -> &'static str {
        match self {
            Kind::Stage => "stage",
            Kind::QueryTop => "query-top",
            Kind::Query => "query",
            Kind::Update => "update",
            Kind::Accumulator => "accumulator",
            Kind::Window => "window",
            Kind::Expression => "expression",
        }
    }
    /// The page's key for [`Kind::label`] (both query kinds read the same).
    pub fn label_key(self) -> &'static str {
        match self {
            Kind::Stage => "kind.stage",
            Kind::QueryTop | Kind::Query => "kind.query",
            Kind::Update => "kind.update",
            Kind::Accumulator => "kind.accumulator",
            Kind::Window => "kind.window",
            Kind::Expression => "kind.expression",
        }
    }
    /// How the kind reads next to a candidate.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Stage => "stage",
            Kind::QueryTop | Kind::Query => "query operator",
            Kind::Update => "update operator",
            Kind::Accumulator => "accumulator",
            Kind::Window => "window function",
            Kind::Expression => "expression operator",
        }
    }
}

/// One catalogue line.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: &'static str,
    pub kind: Kind,
    pub summary: &'static str,
    pub syntax: &'static str,
    pub url: &'static str,
    /// What follows `name: ` when a completion is accepted; `${}` marks the cursor.
    pub skeleton: &'static str,
}

const DATA: &str = include_str!("operators.tsv");

/// Every entry, in file order. A malformed line is skipped (the catalogue
/// test reads the file strictly and fails on one).
pub fn entries() -> &'static [Entry] {
    static ALL: OnceLock<Vec<Entry>> = OnceLock::new();
    ALL.get_or_init(|| {
        DATA.lines()
            .filter_map(|l| parse_line(l).ok().flatten())
            .collect()
    })
}

/// A line of the file: `Ok(None)` for comments and blank lines.
pub(crate) fn parse_line(line: &'static str) -> Result<Option<Entry>, String> {
    if line.trim().is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let f: Vec<&'static str> = line.split('\t').collect();
    let [name, kind, summary, syntax, url, skeleton] = f.as_slice() else {
        return Err(format!("expected 6 tab-separated fields: {line}"));
    };
    let kind = Kind::parse(kind).ok_or_else(|| format!("unknown kind {kind:?}: {line}"))?;
    if !name.starts_with('$') || summary.is_empty() || !url.starts_with("https://") {
        return Err(format!("bad entry: {line}"));
    }
    Ok(Some(Entry {
        name,
        kind,
        summary,
        syntax,
        url,
        skeleton,
    }))
}

impl Entry {
    /// The page's key for the summary (`op.stage.$match`): a name may stand in several kinds.
    pub fn summary_key(&self) -> String {
        format!("op.{}.{}", self.kind.id(), self.name)
    }
}

/// The entries of one kind.
pub fn of_kind(kind: Kind) -> impl Iterator<Item = &'static Entry> {
    entries().iter().filter(move |e| e.kind == kind)
}

/// Every entry with this name (`$max` is an accumulator, an expression and an update operator).
pub fn lookup(name: &str) -> impl Iterator<Item = &'static Entry> + '_ {
    entries().iter().filter(move |e| e.name == name)
}
