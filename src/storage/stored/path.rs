//! Field paths over a stored document: the values MongoDB's query matcher
//! sees along a dotted path, read in place. The same traversal as
//! `value::path` over a `Document` (the server's `BSONElementIterator`), and
//! tested against it.
use super::{DocView, RawValue};
use crate::value::path::{FieldPath, LeafArrays, Part};

/// A callback receiving one candidate value (`None` = missing) and the index of
/// the array element it came from; returns true to stop.
pub type RawVisitor<'a, 'f> = dyn FnMut(Option<RawValue<'a>>, Option<usize>) -> bool + 'f;

impl<'a> DocView<'a> {
    /// Visit every value the matcher considers for `path`; true if the visitor stopped.
    pub fn visit_path(
        &self,
        path: &FieldPath,
        leaf: LeafArrays,
        f: &mut RawVisitor<'a, '_>,
    ) -> bool {
        visit_obj(*self, path.parts(), leaf, f)
    }

    /// The value at `path` through embedded documents only; a numeric
    /// component also indexes an array (`"a.0"`). No implicit array traversal.
    pub fn get_path(&self, path: &FieldPath) -> Option<RawValue<'a>> {
        let (first, rest) = path.parts().split_first()?;
        let mut cur = self.get(&first.name)?;
        for part in rest {
            cur = match cur {
                RawValue::Document(d) => d.get(&part.name)?,
                RawValue::Array(a) => a.index(part.index?)?,
                _ => return None,
            };
        }
        Some(cur)
    }
}

/// Walk through embedded documents until the path ends or an array is met.
fn visit_obj<'a>(
    obj: DocView<'a>,
    parts: &[Part],
    leaf: LeafArrays,
    f: &mut RawVisitor<'a, '_>,
) -> bool {
    let mut cur = obj;
    let mut i = 0;
    while let Some(part) = parts.get(i) {
        let last = i + 1 == parts.len();
        match cur.get(&part.name) {
            None => return f(None, None),
            Some(RawValue::Document(d)) if !last => {
                cur = d;
                i += 1;
            }
            Some(v @ RawValue::Array(a)) => return visit_array(v, a, &parts[i + 1..], leaf, f),
            Some(v) => {
                return if last {
                    f(Some(v), None)
                } else {
                    f(None, None)
                }
            }
        }
    }
    f(None, None)
}

/// An array met at `rest` (empty = the end of the path).
fn visit_array<'a>(
    whole: RawValue<'a>,
    arr: DocView<'a>,
    rest: &[Part],
    leaf: LeafArrays,
    f: &mut RawVisitor<'a, '_>,
) -> bool {
    let Some(next) = rest.first() else {
        if leaf == LeafArrays::NoTraversal {
            return f(Some(whole), None);
        }
        for (i, (_, e)) in arr.iter().enumerate() {
            if f(Some(e), Some(i)) {
                return true;
            }
        }
        return leaf == LeafArrays::Traverse && f(Some(whole), None);
    };
    for (i, (_, e)) in arr.iter().enumerate() {
        if let RawValue::Document(d) = e {
            // The element continues the whole remaining path; its values
            // report this element's index (the outermost array offset wins).
            if visit_obj(d, rest, leaf, &mut |v, _| f(v, Some(i))) {
                return true;
            }
        }
        if next.index == Some(i) {
            // `a.0.b`: the component also selects element `i` itself.
            let stop = if rest.len() == 1 {
                match e {
                    RawValue::Array(inner) => visit_array(e, inner, &[], leaf, f),
                    _ => f(Some(e), None),
                }
            } else {
                match e {
                    RawValue::Document(d) => visit_obj(d, &rest[1..], leaf, f),
                    RawValue::Array(inner) => visit_array(e, inner, &rest[1..], leaf, f),
                    _ => false,
                }
            };
            if stop {
                return true;
            }
        }
    }
    false
}
