//! Completion candidates for a place in the script: methods after `db.`,
//! operators and stages where a `$` key may stand, field paths from the
//! collection's documents, `"$field"` paths and `$$` variables in expressions.
use super::catalogue::{self, Kind};
use super::context::{Frame, Open, Place};
use super::methods::{self, Receiver};
use super::texts::{self, Text};
use super::Summary;

/// What a bracket holds, as far as completion cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    None,
    /// Arguments of a method (the frame's method says which).
    Args,
    Filter,
    FilterList,
    FieldOps,
    Pipeline,
    Stage,
    Group,
    Accum,
    Expr,
    /// `$project`/`$set` bodies: new field names, or an operator.
    Fields,
    Update,
    UpdateFields,
    FieldKeys,
    Facet,
    Lookup,
    /// `$setWindowFields`' body: `partitionBy`, `sortBy`, `output`.
    Windows,
    /// `output`'s new field names.
    WindowOutput,
    /// One output field: a window function or accumulator, and `window`.
    WindowFn,
    /// An update's options: `arrayFilters` takes filters on the identifiers.
    Options,
    ArrayFilters,
}

/// One candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub label: String,
    /// CodeMirror's icon type: `keyword`, `function`, `property`, `variable`, `class`, `method`.
    pub icon: &'static str,
    pub detail: Text,
    pub info: String,
    /// The page's key for `info` (see `texts`); empty when `info` is.
    pub info_key: String,
    /// The text inserted, `${}` marking the cursor; `None`: the label.
    pub apply: Option<String>,
}

/// The candidates and the byte range they replace.
#[derive(Clone, Debug, Default)]
pub struct Completion {
    pub from: usize,
    pub to: usize,
    pub candidates: Vec<Candidate>,
}

const FILTER_METHODS: &[&str] = &[
    "find",
    "findOne",
    "count",
    "countDocuments",
    "deleteOne",
    "deleteMany",
    "remove",
    "findOneAndDelete",
    "updateOne",
    "updateMany",
    "update",
    "replaceOne",
    "findOneAndUpdate",
    "findOneAndReplace",
];
const UPDATE_METHODS: &[&str] = &["updateOne", "updateMany", "update", "findOneAndUpdate"];

/// What the value of a frame's current key (or element) holds.
fn child(mode: Mode, f: &Frame, open: Open) -> Mode {
    let key = f.key.as_deref().unwrap_or("");
    match (mode, f.open) {
        (Mode::Args, Open::Paren) => {
            let m = f.method.as_deref().unwrap_or("");
            match (m, f.index, open) {
                (m, 0, Open::Brace) if FILTER_METHODS.contains(&m) => Mode::Filter,
                ("distinct", 1, Open::Brace) => Mode::Filter,
                ("find" | "findOne", 1, Open::Brace) => Mode::FieldKeys,
                (m, 1, Open::Brace) if UPDATE_METHODS.contains(&m) => Mode::Update,
                (m, 1, Open::Bracket) if UPDATE_METHODS.contains(&m) => Mode::Pipeline,
                (m, 2, Open::Brace) if UPDATE_METHODS.contains(&m) => Mode::Options,
                ("aggregate", _, Open::Bracket) => Mode::Pipeline,
                ("aggregate", _, Open::Brace) => Mode::Stage,
                ("sort" | "createIndex" | "projection", _, Open::Brace) => Mode::FieldKeys,
                _ => Mode::None,
            }
        }
        (Mode::Filter, Open::Brace) => match key {
            "$and" | "$or" | "$nor" => Mode::FilterList,
            "$expr" => Mode::Expr,
            k if k.starts_with('$') => Mode::None,
            _ => Mode::FieldOps,
        },
        (Mode::FilterList, Open::Bracket) => Mode::Filter,
        (Mode::FieldOps, Open::Brace) => match key {
            "$elemMatch" => Mode::Filter,
            "$not" => Mode::FieldOps,
            _ => Mode::None,
        },
        (Mode::Pipeline, Open::Bracket) => Mode::Stage,
        (Mode::Stage, Open::Brace) => match key {
            "$match" => Mode::Filter,
            "$group" => Mode::Group,
            "$sort" => Mode::FieldKeys,
            "$facet" => Mode::Facet,
            "$lookup" | "$unionWith" => Mode::Lookup,
            "$setWindowFields" => Mode::Windows,
            "$project" | "$addFields" | "$set" | "$replaceRoot" | "$replaceWith" | "$bucket"
            | "$bucketAuto" | "$redact" | "$sortByCount" | "$unwind" => Mode::Fields,
            _ => Mode::None,
        },
        (Mode::Facet, Open::Brace) => Mode::Pipeline,
        (Mode::Lookup, Open::Brace) => match key {
            "pipeline" => Mode::Pipeline,
            "let" => Mode::Fields,
            _ => Mode::None,
        },
        (Mode::Windows, Open::Brace) => match key {
            "output" => Mode::WindowOutput,
            "sortBy" => Mode::FieldKeys,
            _ => Mode::Expr,
        },
        (Mode::WindowOutput, Open::Brace) => Mode::WindowFn,
        (Mode::WindowFn, Open::Brace) if key == "window" => Mode::None,
        (Mode::WindowFn, Open::Brace) => Mode::Expr,
        (Mode::Group, Open::Brace) if key == "_id" => Mode::Expr,
        (Mode::Group, Open::Brace) => Mode::Accum,
        (Mode::Accum, Open::Brace) => Mode::Expr,
        (Mode::Fields | Mode::Expr, Open::Brace) => {
            if key.starts_with('$') || mode == Mode::Expr {
                Mode::Expr
            } else {
                Mode::Fields
            }
        }
        (Mode::Expr, Open::Bracket) => Mode::Expr,
        (Mode::Update, Open::Brace) => Mode::UpdateFields,
        (Mode::Options, Open::Brace) if key == "arrayFilters" => Mode::ArrayFilters,
        (Mode::ArrayFilters, Open::Bracket) => Mode::ArrayFilters,
        _ => Mode::None,
    }
}

/// The mode of each frame, outermost first.
fn modes(place: &Place) -> Vec<Mode> {
    let mut out: Vec<Mode> = Vec::with_capacity(place.frames.len());
    for (i, f) in place.frames.iter().enumerate() {
        let mode = match i {
            0 if f.open == Open::Paren && f.method.is_some() => Mode::Args,
            0 => Mode::None,
            _ => child(out[i - 1], &place.frames[i - 1], f.open),
        };
        out.push(mode);
    }
    out
}

/// The collection the statement works on (`db.trades.…`).
fn collection(place: &Place) -> Option<&str> {
    let chain = place.frames.first().map_or(&place.chain, |f| &f.chain);
    match chain.as_slice() {
        [db, name, ..] if db == "db" && name != "getCollection" => Some(name),
        _ => None,
    }
}

/// The candidates at `cursor` (a byte offset) in `script`.
pub fn complete(script: &str, cursor: usize, summary: &Summary) -> Completion {
    let place = super::context::place(script, cursor);
    let mut out = Completion {
        from: place.word.from,
        to: cursor,
        candidates: Vec::new(),
    };
    if place.member {
        if place.frames.is_empty() {
            members(&place, script, summary, &mut out.candidates);
        }
        return out;
    }
    let Some(top) = place.frames.last() else {
        return out;
    };
    let modes = modes(&place);
    let mode = modes.last().copied().unwrap_or(Mode::None);
    let fields = collection(&place).map_or(&[][..], |c| summary.fields(c));
    let after = script.get(cursor..).unwrap_or("").trim_start();
    let keyed = after.starts_with(':') || place.word.quoted;
    let c = &mut out.candidates;
    let key_position = top.open == Open::Brace && !top.after_colon;
    if key_position {
        match mode {
            Mode::Filter => {
                operators(Kind::QueryTop, keyed, c);
                field_keys(fields, keyed, true, c);
            }
            Mode::FieldOps => operators(Kind::Query, keyed, c),
            Mode::Stage => operators(Kind::Stage, keyed, c),
            Mode::Group if top.index == 0 => {
                c.push(Candidate {
                    label: "_id".into(),
                    icon: "property",
                    detail: texts::GROUP_KEY,
                    info: texts::GROUP_ID.en.into(),
                    info_key: texts::GROUP_ID.key.into(),
                    apply: (!keyed).then(|| "_id: ${}".into()),
                });
            }
            Mode::Accum => operators(Kind::Accumulator, keyed, c),
            Mode::WindowFn => {
                operators(Kind::Window, keyed, c);
                operators(Kind::Accumulator, keyed, c);
            }
            Mode::Expr => operators(Kind::Expression, keyed, c),
            Mode::Fields => {
                if place.word.text.starts_with('$') {
                    operators(Kind::Expression, keyed, c);
                } else {
                    field_keys(fields, keyed, true, c);
                }
            }
            Mode::Update => operators(Kind::Update, keyed, c),
            Mode::UpdateFields | Mode::FieldKeys => field_keys(fields, keyed, true, c),
            Mode::ArrayFilters => {
                let ids = super::context::array_filter_ids(script);
                field_keys(&ids, keyed, true, c);
            }
            _ => {}
        }
        return out;
    }
    // A value: expressions take "$field" paths and "$$variables" in strings.
    let value_mode = match top.open {
        Open::Brace => child(mode, top, Open::Brace),
        Open::Bracket if mode == Mode::Expr => Mode::Expr,
        _ => Mode::None,
    };
    let expression = matches!(value_mode, Mode::Expr | Mode::Fields | Mode::Accum)
        || (mode == Mode::Group && top.key.as_deref() == Some("_id"));
    if place.word.quoted && expression {
        if place.word.text.starts_with("$$") {
            variables(&place, c);
        } else {
            for f in fields {
                c.push(Candidate {
                    label: format!("${f}"),
                    icon: "property",
                    detail: texts::FIELD_PATH,
                    info: String::new(),
                    info_key: String::new(),
                    apply: None,
                });
            }
            variables(&place, c);
        }
    }
    out
}

fn members(place: &Place, script: &str, summary: &Summary, c: &mut Vec<Candidate>) {
    let on = match place.chain.as_slice() {
        [db] if db == "db" => {
            let mut names: Vec<String> = summary.collections().map(str::to_string).collect();
            for n in super::context::named_collections(script) {
                if !names.contains(&n) && !methods::known(Receiver::Db, &n) && n != place.word.text
                {
                    names.push(n);
                }
            }
            for n in names {
                c.push(Candidate {
                    label: n,
                    icon: "class",
                    detail: texts::COLLECTION,
                    info: String::new(),
                    info_key: String::new(),
                    apply: None,
                });
            }
            Receiver::Db
        }
        [db, _] if db == "db" => Receiver::Collection,
        [db, get, call] if db == "db" && get == "getCollection" && call == "()" => {
            Receiver::Collection
        }
        [db, _, first, call, ..]
            if db == "db" && call == "()" && matches!(first.as_str(), "find" | "aggregate") =>
        {
            Receiver::Cursor
        }
        _ => return,
    };
    for (name, about, skeleton) in methods::list(on) {
        c.push(Candidate {
            label: (*name).to_string(),
            icon: "method",
            detail: texts::METHOD,
            info: (*about).to_string(),
            info_key: texts::method_key(on, name),
            apply: Some(format!("{name}{skeleton}")),
        });
    }
}

fn operators(kind: Kind, keyed: bool, c: &mut Vec<Candidate>) {
    for e in catalogue::of_kind(kind) {
        c.push(Candidate {
            label: e.name.to_string(),
            icon: "keyword",
            detail: Text {
                key: kind.label_key(),
                en: kind.label(),
            },
            info: e.summary.to_string(),
            info_key: e.summary_key(),
            apply: (!keyed).then(|| format!("{}: {}", e.name, e.skeleton)),
        });
    }
}

fn field_keys(fields: &[String], keyed: bool, with_value: bool, c: &mut Vec<Candidate>) {
    for f in fields {
        let plain = f
            .chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '$');
        let key = if plain || keyed {
            f.clone()
        } else {
            format!("\"{f}\"")
        };
        c.push(Candidate {
            label: f.clone(),
            icon: "property",
            detail: texts::FIELD,
            info: String::new(),
            info_key: String::new(),
            apply: Some(if keyed || !with_value {
                key
            } else {
                format!("{key}: ${{}}")
            }),
        });
    }
}

/// `$$` variables in scope at the place.
fn variables(place: &Place, c: &mut Vec<Candidate>) {
    let mut vars: Vec<(String, Text)> = vec![
        ("ROOT".into(), texts::ROOT),
        ("CURRENT".into(), texts::CURRENT),
        ("NOW".into(), texts::NOW),
        ("REMOVE".into(), texts::REMOVE),
    ];
    let frames = &place.frames;
    for (i, f) in frames.iter().enumerate() {
        let inner = frames.get(i + 1);
        match f.key.as_deref() {
            Some("$map" | "$filter") => {
                let named = inner.and_then(|g| g.strings.iter().find(|(k, _)| k == "as"));
                match named {
                    Some((_, name)) => vars.push((name.clone(), texts::ELEMENT_AS)),
                    None => vars.push(("this".into(), texts::ELEMENT)),
                }
            }
            Some("$let" | "$lookup") => {
                for name in inner.map_or(&[][..], |g| g.bound.as_slice()) {
                    vars.push((name.clone(), texts::LET));
                }
            }
            Some("$reduce") => {
                vars.push(("this".into(), texts::ELEMENT));
                vars.push(("value".into(), texts::VALUE));
            }
            Some("$redact") => {
                for (n, about) in [
                    ("DESCEND", texts::DESCEND),
                    ("PRUNE", texts::PRUNE),
                    ("KEEP", texts::KEEP),
                ] {
                    vars.push((n.into(), about));
                }
            }
            _ => {}
        }
    }
    for (name, about) in vars {
        c.push(Candidate {
            label: format!("$${name}"),
            icon: "variable",
            detail: texts::VARIABLE,
            info: about.en.to_string(),
            info_key: about.key.to_string(),
            apply: None,
        });
    }
}
