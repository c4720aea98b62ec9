//! Field paths (`"a.b.c"`) as pipeline stages use them: validated once at
//! compile time, then read with the aggregation semantics (an array on the way
//! maps the rest of the path over its elements) or written (intermediate
//! non-documents are replaced by documents, as `MutableDocument` does).
use crate::error::{Error, Result};
use crate::value::path::field;
use bson::{Bson, Document};
use std::borrow::Cow;

#[derive(Clone, Debug, PartialEq)]
pub struct FieldPath {
    parts: Vec<String>,
}

impl FieldPath {
    /// Parse a dotted path (without the leading `$`), with MongoDB's FieldPath checks.
    pub fn parse(path: &str) -> Result<FieldPath> {
        if path.is_empty() {
            return Err(Error::location(
                40352,
                "FieldPath cannot be constructed with empty string",
            ));
        }
        let mut parts = Vec::new();
        for part in path.split('.') {
            if part.is_empty() {
                return Err(Error::location(
                    15998,
                    "FieldPath field names may not be empty strings.",
                ));
            }
            if part.starts_with('$') {
                return Err(Error::location(
                    16410,
                    "FieldPath field names may not start with '$'. Consider using $getField or $setField.",
                ));
            }
            if part.contains('\0') {
                return Err(Error::location(
                    16411,
                    "FieldPath field names may not contain '\0'.",
                ));
            }
            parts.push(part.to_string());
        }
        Ok(FieldPath { parts })
    }

    pub fn parts(&self) -> &[String] {
        &self.parts
    }

    pub fn first(&self) -> &str {
        self.parts.first().map_or("", String::as_str)
    }

    pub fn len(&self) -> usize {
        self.parts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    pub fn dotted(&self) -> String {
        self.parts.join(".")
    }

    /// The field name when the path has one component.
    #[inline(always)]
    pub fn single(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [p] => Some(p),
            _ => None,
        }
    }

    /// The value as a `$a.b` expression sees it; `None` when missing.
    /// Borrowed unless an array on the way forces a new array.
    pub fn get<'a>(&self, doc: &'a Document) -> Option<Cow<'a, Bson>> {
        let (first, rest) = self.parts.split_first()?;
        get_in(field(doc, first)?, rest)
    }

    /// The value reached by plain descent through documents only (no array
    /// mapping); what `$unwind` and `$lookup`'s `as` address.
    pub fn get_plain<'a>(&self, doc: &'a Document) -> Option<&'a Bson> {
        let (first, rest) = self.parts.split_first()?;
        let mut cur = field(doc, first)?;
        for part in rest {
            match cur {
                Bson::Document(d) => cur = field(d, part)?,
                _ => return None,
            }
        }
        Some(cur)
    }

    /// Every value at this path as `$lookup`'s localField sees it
    /// (visitAllValuesAtPath): arrays on the way and at the end are expanded.
    pub fn visit_leaves<'a>(&self, doc: &'a Document, f: &mut impl FnMut(&'a Bson)) {
        if let Some((first, rest)) = self.parts.split_first() {
            if let Some(v) = field(doc, first) {
                leaves(v, rest, f);
            }
        }
    }

    /// The keys an equality query on this path matches a document by: each
    /// value reached (an array both whole and element by element), and null
    /// when the path is missing somewhere.
    pub fn query_keys<'a>(&self, doc: &'a Document, f: &mut impl FnMut(Option<&'a Bson>)) {
        match self.parts.split_first() {
            Some((first, rest)) => match field(doc, first) {
                Some(v) => query_keys(Some(v), rest, f),
                None => f(None),
            },
            None => f(None),
        }
    }

    /// Set the value at this path, creating (or replacing non-document)
    /// intermediate fields; an existing field keeps its position.
    pub fn set(&self, doc: &mut Document, value: Bson) {
        set_in(doc, &self.parts, value);
    }

    /// Set the value as `$addFields` does: a dotted path goes into every element
    /// of an array met on the way, and a scalar on the way becomes a document.
    pub fn set_through_arrays(&self, doc: &mut Document, value: &Bson) {
        set_through(doc, &self.parts, value);
    }

    /// Remove the value at this path (documents only); true if it existed.
    pub fn remove(&self, doc: &mut Document) -> Option<Bson> {
        let (last, init) = self.parts.split_last()?;
        let mut cur = doc;
        for part in init {
            match cur.get_mut(part) {
                Some(Bson::Document(d)) => cur = d,
                _ => return None,
            }
        }
        cur.remove(last)
    }
}

/// The rest of a path read from a value (aggregation semantics).
pub(crate) fn get_in<'a>(v: &'a Bson, rest: &[String]) -> Option<Cow<'a, Bson>> {
    let Some((first, tail)) = rest.split_first() else {
        return Some(Cow::Borrowed(v));
    };
    match v {
        Bson::Document(d) => get_in(field(d, first)?, tail),
        Bson::Array(items) => Some(Cow::Owned(Bson::Array(map_array(items, rest)))),
        _ => None,
    }
}

/// `$a.b` over an array: each document element contributes its `b` (missing
/// ones are skipped); other elements, nested arrays included, are dropped
/// (ExpressionFieldPath::evaluatePathArray skips every non-object).
fn map_array(items: &[Bson], rest: &[String]) -> Vec<Bson> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if let Bson::Document(_) = item {
            if let Some(v) = get_in(item, rest) {
                out.push(v.into_owned());
            }
        }
    }
    out
}

fn leaves<'a>(v: &'a Bson, rest: &[String], f: &mut impl FnMut(&'a Bson)) {
    match (rest.split_first(), v) {
        (None, Bson::Array(items)) => items.iter().for_each(f),
        (None, _) => f(v),
        (Some((first, tail)), Bson::Document(d)) => {
            if let Some(x) = field(d, first) {
                leaves(x, tail, f);
            }
        }
        (Some(_), Bson::Array(items)) => {
            for item in items {
                if let Bson::Document(_) = item {
                    leaves(item, rest, f);
                }
            }
        }
        (Some(_), _) => {}
    }
}

fn query_keys<'a>(v: Option<&'a Bson>, rest: &[String], f: &mut impl FnMut(Option<&'a Bson>)) {
    let Some(v) = v else {
        f(None);
        return;
    };
    match (rest.split_first(), v) {
        (None, Bson::Array(items)) => {
            f(Some(v));
            items.iter().for_each(|i| f(Some(i)));
        }
        (None, _) => f(Some(v)),
        (Some((first, tail)), Bson::Document(d)) => query_keys(field(d, first), tail, f),
        (Some(_), Bson::Array(items)) => {
            for item in items {
                if let Bson::Document(_) = item {
                    query_keys(Some(item), rest, f);
                }
            }
        }
        (Some(_), _) => f(None),
    }
}

fn set_through(doc: &mut Document, parts: &[String], value: &Bson) {
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    if rest.is_empty() {
        doc.insert(first.as_str(), value.clone());
        return;
    }
    let cur = doc.get_mut(first).map(std::mem::take);
    doc.insert(first.as_str(), set_in_value(cur, rest, value));
}

fn set_in_value(v: Option<Bson>, rest: &[String], value: &Bson) -> Bson {
    match v {
        Some(Bson::Document(mut d)) => {
            set_through(&mut d, rest, value);
            Bson::Document(d)
        }
        Some(Bson::Array(items)) => Bson::Array(
            items
                .into_iter()
                .map(|i| set_in_value(Some(i), rest, value))
                .collect(),
        ),
        _ => {
            let mut d = Document::new();
            set_through(&mut d, rest, value);
            Bson::Document(d)
        }
    }
}

fn set_in(doc: &mut Document, parts: &[String], value: Bson) {
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    if rest.is_empty() {
        doc.insert(first.as_str(), value);
        return;
    }
    if !matches!(doc.get(first), Some(Bson::Document(_))) {
        doc.insert(first.as_str(), Document::new());
    }
    if let Some(Bson::Document(sub)) = doc.get_mut(first) {
        set_in(sub, rest, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, doc};

    fn p(s: &str) -> FieldPath {
        FieldPath::parse(s).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn reads_through_arrays() {
        let d = doc! {"a": [{"b": 1}, {"c": 2}, {"b": [3]}, 4, [{"b": 5}]]};
        assert_eq!(
            p("a.b").get(&d).map(Cow::into_owned),
            // The nested array [{b: 5}] is skipped, as evaluatePathArray does.
            Some(bson!([1, [3]]))
        );
        assert_eq!(p("x").get(&d), None);
        assert_eq!(p("a.b").get_plain(&d), None);
    }

    #[test]
    fn validates() {
        assert_eq!(FieldPath::parse("a..b").map_err(|e| e.code), Err(15998));
        assert_eq!(FieldPath::parse("a.$b").map_err(|e| e.code), Err(16410));
        assert_eq!(FieldPath::parse("").map_err(|e| e.code), Err(40352));
    }

    #[test]
    fn sets_and_removes() {
        let mut d = doc! {"a": 1, "b": {"c": 1}, "z": 0};
        p("b.d").set(&mut d, bson!(2));
        p("a.x").set(&mut d, bson!(3));
        assert_eq!(d, doc! {"a": {"x": 3}, "b": {"c": 1, "d": 2}, "z": 0});
        assert_eq!(p("b.c").remove(&mut d), Some(bson!(1)));
        assert_eq!(d, doc! {"a": {"x": 3}, "b": {"d": 2}, "z": 0});
    }
}
