//! The collation a command runs under: its `collation` option (or
//! `cursor.collation()`), else its collection's default. The engine makes it
//! the active collation for the whole command (see `crate::collation`), so
//! the methods' own option readers only accept the field.
use super::{Call, Command, Method, Session};
use crate::collation::Collation;
use crate::error::Result;
use crate::storage::collation::parse;
use bson::Bson;
use std::rc::Rc;

/// Which argument holds the method's options document (the one that may
/// carry `collation`).
fn options_arg(method: Method) -> Option<usize> {
    use Method::*;
    match method {
        Find | FindOne | Distinct | UpdateOne | UpdateMany | ReplaceOne | Update
        | FindOneAndUpdate | FindOneAndReplace => Some(2),
        CountDocuments | Count | DeleteOne | DeleteMany | Remove | FindOneAndDelete | Aggregate => {
            Some(1)
        }
        FindAndModify => Some(0),
        _ => None,
    }
}

/// The `collation` a call names, read and checked (`Some(None)`: simple).
fn named(call: &Call, arg: usize) -> Result<Option<Option<Rc<Collation>>>> {
    let Some(Bson::Document(opts)) = call.arg(arg).map(|a| &a.value) else {
        return Ok(None);
    };
    match opts.get("collation") {
        None => Ok(None),
        Some(v) => parse(v).map(Some).map_err(|e| e.at(call.span)),
    }
}

/// The collation `cmd` runs under.
pub fn of_command(session: &Session, cmd: &Command) -> Result<Option<Rc<Collation>>> {
    // `db.c.explain().find(…)`: the explained command's.
    if cmd.method == Method::Explain {
        if let Some(inner) = Command::decode(cmd.collection, cmd.modifiers) {
            return of_command(session, &inner);
        }
    }
    let mut chosen = match options_arg(cmd.method) {
        Some(i) => named(cmd.call, i)?,
        None => None,
    };
    for m in cmd.modifiers {
        if m.name == "collation" {
            m.max_args(1)?;
            let spec = m.arg(0).map(|a| a.value.clone()).unwrap_or(Bson::Null);
            chosen = Some(parse(&spec).map_err(|e| e.at(m.span))?);
        }
    }
    Ok(match chosen {
        Some(c) => c,
        None => of_collection(session, cmd.collection),
    })
}

/// A collection's default collation (`None`: simple, or no such collection).
pub fn of_collection(session: &Session, name: &str) -> Option<Rc<Collation>> {
    session
        .db
        .collection(name)
        .and_then(|c| c.collation().cloned())
}
