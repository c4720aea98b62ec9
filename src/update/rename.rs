//! `$rename`: before the tree walk, each source value is taken out of the
//! document (its destination leaf stores it during the walk). Renaming
//! through arrays is refused, as the server does.
//! https://www.mongodb.com/docs/manual/reference/operator/update/rename/
use super::compile::{Rename, Tree};
use super::display::ID_MARK;
use super::ops::Ctx;
use super::path::parse_index;
use crate::error::{Error, Result};
use bson::{Bson, Document};

/// Take every rename source out of `doc` into `ctx.renamed`; true if any existed.
pub fn take_sources(tree: &Tree, doc: &mut Document, ctx: &mut Ctx) -> Result<bool> {
    let mut changed = false;
    ctx.renamed.clear();
    for r in &tree.renames {
        let value = take_one(r, doc)?;
        changed |= value.is_some();
        ctx.renamed.push(value);
    }
    Ok(changed)
}

enum Found {
    Missing,
    /// The element and the name of the nearest array above it, if any.
    At(Option<String>),
}

/// Find the source as the server's findLongestPrefix does: numeric parts
/// index arrays; a part that cannot traverse its element is an error.
fn find_source(doc: &Document, r: &Rename) -> Result<Found> {
    let mut cur: Option<&Bson> = None;
    let mut array_above: Option<String> = None;
    for (i, part) in r.from.iter().enumerate() {
        let next = match cur {
            None => doc.get(part),
            Some(Bson::Document(d)) => d.get(part),
            Some(Bson::Array(a)) if parse_index(part).is_some() => {
                array_above = Some(r.from[i - 1].clone());
                parse_index(part).and_then(|n| a.get(n))
            }
            Some(other) => {
                let prev = &r.from[i - 1];
                return Err(Error::path_not_viable(format!(
                    "cannot use the part ({prev} of {}) to traverse the element ({{{}}})",
                    r.from_dotted,
                    crate::text::server::elem(prev, other)
                )));
            }
        };
        match next {
            Some(v) => cur = Some(v),
            None => return Ok(Found::Missing),
        }
    }
    Ok(match cur {
        Some(_) => Found::At(array_above),
        None => Found::Missing,
    })
}

/// The name of an array on the destination path above the element renamed to.
fn array_on_destination(doc: &Document, r: &Rename) -> Option<String> {
    let mut cur: Option<&Bson> = None;
    let mut name: Option<&str> = None;
    for part in &r.to {
        let next = match cur {
            None => doc.get(part),
            Some(Bson::Document(d)) => d.get(part),
            Some(Bson::Array(_)) => return name.map(str::to_string),
            Some(_) => return None,
        };
        match next {
            Some(v) => {
                cur = Some(v);
                name = Some(part);
            }
            None => {
                // The deepest existing element is the parent of what gets created.
                return match cur {
                    Some(Bson::Array(_)) => name.map(str::to_string),
                    _ => None,
                };
            }
        }
    }
    None
}

fn take_one(r: &Rename, doc: &mut Document) -> Result<Option<Bson>> {
    match find_source(doc, r)? {
        Found::Missing => return Ok(None),
        Found::At(Some(array)) => {
            return Err(Error::bad_value(format!(
                "The source field cannot be an array element, '{}' in doc with {ID_MARK} has an array field called '{array}'",
                r.from_dotted
            )))
        }
        Found::At(None) => {}
    }
    if let Some(array) = array_on_destination(doc, r) {
        return Err(Error::bad_value(format!(
            "The destination field cannot be an array element, '{}' in doc with {ID_MARK} has an array field called '{array}'",
            r.to_dotted
        )));
    }
    if r.from.first().map(String::as_str) == Some("_id") {
        return Err(Error::immutable_field(format!(
            "Unsetting the path '{}' using $rename would modify the immutable field '_id'",
            r.from_dotted
        )));
    }
    // Every ancestor is a document (arrays were refused above).
    let Some((last, parents)) = r.from.split_last() else {
        return Ok(None);
    };
    let mut parent = doc;
    for p in parents {
        parent = match parent.get_mut(p) {
            Some(Bson::Document(d)) => d,
            _ => return Ok(None),
        };
    }
    Ok(parent.remove(last))
}
