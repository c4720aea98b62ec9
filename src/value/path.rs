//! Dotted field paths (`"a.b.0.c"`), split once, and the values MongoDB's
//! query matcher sees along them.
//!
//! The traversal mirrors the server's `BSONElementIterator` (src/mongo/db/matcher/path.cpp):
//! an array met before the end of the path is traversed (each sub-document
//! element continues the path; a numeric component also selects the element at
//! that index), and an array at the end of the path yields its elements and then
//! itself. See https://www.mongodb.com/docs/manual/tutorial/query-arrays/ and
//! https://www.mongodb.com/docs/manual/tutorial/query-embedded-documents/.
use bson::{Bson, Document};
use std::cell::Cell;

/// The most components a field path may have (MongoDB's `FieldPath`:
/// BSONDepth's 200). Paths build trees as deep as they are long
/// (projections, updates), so the bound also keeps those recursions short.
pub const MAX_PATH_PARTS: usize = 200;

/// Refuse a dotted path longer than [`MAX_PATH_PARTS`] as the server's
/// `FieldPath` does (`Overflow`, "FieldPath is too long").
pub fn check_length(dotted: &str) -> crate::error::Result<()> {
    if dotted.bytes().filter(|&b| b == b'.').count() >= MAX_PATH_PARTS {
        return Err(crate::error::Error::overflow("FieldPath is too long"));
    }
    Ok(())
}

/// `doc.get(name)`, faster on the small documents collections usually hold:
/// a linear scan compares key lengths first and touches neither the hash
/// table nor (for keys of another length) the key bytes, which saves the
/// cache misses that dominate a scan over a large collection. It first
/// looks at the positions where earlier lookups found fields
/// ([`prefetch::hot`](super::prefetch::hot)): documents of a collection
/// usually share a field order, so one entry is read instead of all the
/// entries before the field. Entries are read by position
/// ([`entries::of`](super::entries::of)), not through bson's iterator.
pub fn field<'a>(doc: &'a Document, name: &str) -> Option<&'a Bson> {
    field_at(doc, name).map(|(_, v)| v)
}

/// [`field`] and the position where the field was found.
fn field_at<'a>(doc: &'a Document, name: &str) -> Option<(usize, &'a Bson)> {
    const TRACKED: usize = super::prefetch::TRACKED;
    let key = name.as_bytes();
    let entries = super::entries::of(doc);
    let mut m = super::prefetch::hot();
    while m != 0 {
        let p = m.trailing_zeros() as usize;
        m &= m - 1;
        let Some((k, v)) = entries.get_index(p) else {
            break;
        };
        if same_bytes(k.as_bytes(), key) {
            super::prefetch::touch(p);
            return Some((p, v));
        }
    }
    let n = entries.len();
    if n > TRACKED {
        // A wide document: its hash table beats the linear scan.
        let i = super::entries::index_of(doc, name)?;
        return entries.get_index(i).map(|(_, v)| (i, v));
    }
    let mut i = 0;
    while i < n {
        if let Some((k, v)) = entries.get_index(i) {
            if same_bytes(k.as_bytes(), key) {
                super::prefetch::note(i);
                return Some((i, v));
            }
        }
        i += 1;
    }
    None
}

/// Whether dotted path `short` is a strict prefix of `long`, component by
/// component: `a` of `a.b`, not of `ab` or of `a`.
pub fn is_path_prefix(short: &str, long: &str) -> bool {
    long.strip_prefix(short)
        .is_some_and(|rest| rest.starts_with('.'))
}

/// Whether two dotted paths name the same field or one lies inside the other
/// (`a` and `a.b`): what `$set`-style outputs and `$rename` refuse.
pub fn paths_overlap(a: &str, b: &str) -> bool {
    a == b || is_path_prefix(a, b) || is_path_prefix(b, a)
}

/// Byte equality that compares short slices inline, 4 to 16 bytes as two
/// overlapping word loads: keys and the strings filters compare are short,
/// and a call to `memcmp` (a byte loop in wasm) per field costs more than
/// the comparison.
#[inline(always)]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        0..=3 => {
            let mut i = 0;
            while i < n {
                if a[i] != b[i] {
                    return false;
                }
                i += 1;
            }
            true
        }
        _ => a == b,
    }
}

/// `N` bytes of `s` from `at` (zeros past its end, which callers avoid).
#[inline(always)]
pub(super) fn word<const N: usize>(s: &[u8], at: usize) -> [u8; N] {
    s.get(at..at + N)
        .and_then(|w| <[u8; N]>::try_from(w).ok())
        .unwrap_or([0; N])
}

/// One component of a dotted path.
#[derive(Clone, Debug)]
pub struct Part {
    pub name: String,
    /// The array index this component names, when it is all digits (`"0"`, `"12"`;
    /// not `"01"`, which never equals an array element's field name).
    pub index: Option<usize>,
    /// Where this component's field was last found in a document: the
    /// documents a path is applied to usually share a field order, so the
    /// next lookup reads that one entry first (a hint: not part of equality).
    at: Cell<u8>,
}

impl PartialEq for Part {
    fn eq(&self, other: &Part) -> bool {
        self.name == other.name
    }
}
impl Eq for Part {}

impl Part {
    pub fn new(name: &str) -> Part {
        let digits = !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit());
        let canonical = digits && (name == "0" || !name.starts_with('0'));
        Part {
            name: name.to_string(),
            index: if canonical { name.parse().ok() } else { None },
            at: Cell::new(0),
        }
    }

    /// `field(doc, name)`, reading the entry where this component was last
    /// found first.
    #[inline(always)]
    pub fn field_in<'a>(&self, doc: &'a Document) -> Option<&'a Bson> {
        let entries = super::entries::of(doc);
        let at = usize::from(self.at.get());
        if let Some((k, v)) = entries.get_index(at) {
            if same_bytes(k.as_bytes(), self.name.as_bytes()) {
                super::prefetch::touch(at);
                return Some(v);
            }
        }
        let (i, found) = field_at(doc, &self.name)?;
        // Remember the position (past 255 fields there is no hint).
        if let Ok(i) = u8::try_from(i) {
            self.at.set(i);
        }
        Some(found)
    }
}

/// A dotted path, split at compile time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldPath {
    dotted: String,
    parts: Vec<Part>,
}

/// What an array at the end of the path yields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafArrays {
    /// Each element (with its index), then the array itself.
    Traverse,
    /// The array itself only (`$size`, `$elemMatch`).
    NoTraversal,
    /// Each element only (sort keys, `distinct`).
    TraverseOmitArray,
}

/// A callback receiving one candidate value (`None` = missing) and the index of
/// the array element it came from (the positional `$` position); returns true to stop.
pub type Visitor<'a, 'f> = dyn FnMut(Option<&'a Bson>, Option<usize>) -> bool + 'f;

/// A document or an array seen as a document with fields "0", "1", ...
#[derive(Clone, Copy)]
enum Obj<'a> {
    Doc(&'a Document),
    Arr(&'a [Bson]),
}

impl<'a> Obj<'a> {
    fn get(self, part: &Part) -> Option<&'a Bson> {
        match self {
            Obj::Doc(d) => part.field_in(d),
            Obj::Arr(a) => part.index.and_then(|i| a.get(i)),
        }
    }
}

impl FieldPath {
    pub fn new(dotted: &str) -> FieldPath {
        FieldPath {
            dotted: dotted.to_string(),
            parts: dotted.split('.').map(Part::new).collect(),
        }
    }

    pub fn dotted(&self) -> &str {
        &self.dotted
    }

    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    pub fn len(&self) -> usize {
        self.parts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dotted.is_empty()
    }

    /// The single field name when the path has no dots.
    #[inline(always)]
    pub fn single(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [p] => Some(&p.name),
            _ => None,
        }
    }

    /// Visit every value the matcher considers for this path; true if the visitor stopped.
    pub fn visit<'a>(&self, doc: &'a Document, leaf: LeafArrays, f: &mut Visitor<'a, '_>) -> bool {
        visit_obj(Obj::Doc(doc), &self.parts, leaf, f)
    }

    /// Like [`FieldPath::visit`], starting from any value: a document or array is
    /// searched, any other value has no fields (an empty path yields the value).
    pub fn visit_value<'a>(
        &self,
        value: &'a Bson,
        leaf: LeafArrays,
        f: &mut Visitor<'a, '_>,
    ) -> bool {
        match value {
            Bson::Document(d) => visit_obj(Obj::Doc(d), &self.parts, leaf, f),
            Bson::Array(a) => visit_obj(Obj::Arr(a), &self.parts, leaf, f),
            _ => f(None, None),
        }
    }

    /// The value at this path through embedded documents only; a numeric
    /// component also indexes an array (`"a.0"`). No implicit array traversal.
    pub fn get<'a>(&self, doc: &'a Document) -> Option<&'a Bson> {
        let (first, rest) = self.parts.split_first()?;
        let mut cur = field(doc, &first.name)?;
        for part in rest {
            cur = match cur {
                Bson::Document(d) => field(d, &part.name)?,
                Bson::Array(a) => a.get(part.index?)?,
                _ => return None,
            };
        }
        Some(cur)
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.dotted)
    }
}

/// Walk through embedded documents until the path ends or an array is met
/// (the server's `getFieldDottedOrArray`).
fn visit_obj<'a>(obj: Obj<'a>, parts: &[Part], leaf: LeafArrays, f: &mut Visitor<'a, '_>) -> bool {
    let mut cur = obj;
    let mut i = 0;
    while let Some(part) = parts.get(i) {
        let last = i + 1 == parts.len();
        match cur.get(part) {
            None => return f(None, None),
            Some(Bson::Document(d)) if !last => {
                cur = Obj::Doc(d);
                i += 1;
            }
            Some(v @ Bson::Array(a)) => return visit_array(v, a, &parts[i + 1..], leaf, f),
            Some(v) => {
                return if last {
                    f(Some(v), None)
                } else {
                    f(None, None)
                }
            }
        }
    }
    // An empty path names nothing.
    f(None, None)
}

/// An array met at `rest` (empty = the end of the path).
fn visit_array<'a>(
    whole: &'a Bson,
    arr: &'a [Bson],
    rest: &[Part],
    leaf: LeafArrays,
    f: &mut Visitor<'a, '_>,
) -> bool {
    let Some(next) = rest.first() else {
        if leaf == LeafArrays::NoTraversal {
            return f(Some(whole), None);
        }
        for (i, e) in arr.iter().enumerate() {
            if f(Some(e), Some(i)) {
                return true;
            }
        }
        return leaf == LeafArrays::Traverse && f(Some(whole), None);
    };
    for (i, e) in arr.iter().enumerate() {
        let offset_match = next.index == Some(i);
        if let Bson::Document(d) = e {
            // The element continues the whole remaining path; its values report
            // this element's index (the outermost array offset wins).
            let stop = if rest.len() == 1 {
                // `history.ticker`: what `visit_obj` would do for one component,
                // without its loop and a second callback per element.
                match next.field_in(d) {
                    Some(v @ Bson::Array(a)) => {
                        visit_array(v, a, &[], leaf, &mut |v, _| f(v, Some(i)))
                    }
                    v => f(v, Some(i)),
                }
            } else {
                visit_obj(Obj::Doc(d), rest, leaf, &mut |v, _| f(v, Some(i)))
            };
            if stop {
                return true;
            }
        }
        if offset_match {
            // `a.0.b`: the component also selects element 0 itself.
            if rest.len() == 1 {
                // The element ends the path: an array there is a leaf array
                // like any other (`{"a.0": 1}` matches `{a: [[1, 2]]}`;
                // distinct("a.0") yields its elements).
                let stop = match e {
                    Bson::Array(inner) => visit_array(e, inner, &[], leaf, f),
                    _ => f(Some(e), None),
                };
                if stop {
                    return true;
                }
            } else {
                let stop = match e {
                    Bson::Document(d) => visit_obj(Obj::Doc(d), &rest[1..], leaf, f),
                    Bson::Array(inner) => visit_array(e, inner, &rest[1..], leaf, f),
                    _ => false,
                };
                if stop {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bytes_is_byte_equality() {
        let words = [
            "", "a", "ab", "abc", "abcd", "abce", "user1", "user2", "rating", "ratinG",
        ];
        let long = [
            "abcdefgh",
            "abcdefgi",
            "abcdefghijklmnop",
            "bbcdefghijklmnop",
            "abcdefghijklmnopq",
        ];
        for a in words.iter().chain(&long) {
            for b in words.iter().chain(&long) {
                assert_eq!(same_bytes(a.as_bytes(), b.as_bytes()), a == b, "{a} {b}");
            }
        }
    }

    use bson::{bson, doc};

    fn values(path: &str, d: &Document, leaf: LeafArrays) -> Vec<(Option<Bson>, Option<usize>)> {
        let mut out = Vec::new();
        FieldPath::new(path).visit(d, leaf, &mut |v, i| {
            out.push((v.cloned(), i));
            false
        });
        out
    }

    #[test]
    fn remembered_positions_are_only_hints() {
        let path = FieldPath::new("b");
        let part = &path.parts()[0];
        let docs = [
            doc! {"a": 1, "b": 2},
            doc! {"b": 3, "a": 4},
            doc! {"x": 0, "a": 1, "b": 5},
            doc! {"a": 1},
            doc! {"a": 1, "c": 9},
        ];
        let got: Vec<_> = docs.iter().map(|d| part.field_in(d).cloned()).collect();
        assert_eq!(
            got,
            vec![Some(bson!(2)), Some(bson!(3)), Some(bson!(5)), None, None]
        );
        // A wide document (found through its hash table) moves the hint too.
        let mut wide = Document::new();
        for i in 0..20 {
            wide.insert(format!("f{i}"), i);
        }
        wide.insert("b", "wide");
        assert_eq!(part.field_in(&wide), Some(&bson!("wide")));
        assert_eq!(part.at.get(), 20);
        assert_eq!(part.field_in(&docs[0]), Some(&bson!(2)));
        // The hint is not part of a path's identity.
        assert_eq!(path, FieldPath::new("b"));
    }

    #[test]
    fn prefixes() {
        assert!(is_path_prefix("a", "a.b"));
        assert!(is_path_prefix("a.b", "a.b.c"));
        assert!(!is_path_prefix("a", "ab"));
        assert!(!is_path_prefix("a", "a"));
        assert!(!is_path_prefix("a.b", "a"));
        assert!(paths_overlap("a", "a") && paths_overlap("a.b", "a") && paths_overlap("a", "a.b"));
        assert!(!paths_overlap("a", "ab") && !paths_overlap("a.b", "a.c"));
    }

    #[test]
    fn plain_and_missing() {
        let d = doc! {"a": {"b": 1}, "c": 2};
        assert_eq!(
            values("a.b", &d, LeafArrays::Traverse),
            vec![(Some(bson!(1)), None)]
        );
        assert_eq!(values("a.x", &d, LeafArrays::Traverse), vec![(None, None)]);
        // A scalar in the middle of the path: missing.
        assert_eq!(values("c.d", &d, LeafArrays::Traverse), vec![(None, None)]);
    }

    #[test]
    fn leaf_array_yields_elements_then_itself() {
        let d = doc! {"a": [1, 2]};
        assert_eq!(
            values("a", &d, LeafArrays::Traverse),
            vec![
                (Some(bson!(1)), Some(0)),
                (Some(bson!(2)), Some(1)),
                (Some(bson!([1, 2])), None)
            ]
        );
        assert_eq!(
            values("a", &d, LeafArrays::NoTraversal),
            vec![(Some(bson!([1, 2])), None)]
        );
    }

    #[test]
    fn arrays_of_documents() {
        let d = doc! {"a": [{"b": 1}, {"c": 1}, 5, {"b": [2, 3]}]};
        assert_eq!(
            values("a.b", &d, LeafArrays::Traverse),
            vec![
                (Some(bson!(1)), Some(0)),
                (None, Some(1)),
                (Some(bson!(2)), Some(3)),
                (Some(bson!(3)), Some(3)),
                (Some(bson!([2, 3])), Some(3)),
            ]
        );
        // Scalars and an empty array produce nothing on a longer path.
        assert!(values("a.b", &doc! {"a": [1, 2]}, LeafArrays::Traverse).is_empty());
        assert!(values("a.b", &doc! {"a": []}, LeafArrays::Traverse).is_empty());
    }

    #[test]
    fn numeric_components() {
        let d = doc! {"a": [10, [20, 21], {"b": 1}]};
        // Element 0, and (as the server does) field "0" of the sub-document: missing.
        assert_eq!(
            values("a.0", &d, LeafArrays::Traverse),
            vec![(Some(bson!(10)), None), (None, Some(2))]
        );
        assert_eq!(
            values("a.1.0", &d, LeafArrays::Traverse),
            vec![(Some(bson!(20)), None), (None, Some(2))]
        );
        // Field "0" of a sub-document, and element 0 of a nested array.
        let d = doc! {"a": [{"0": "x"}]};
        assert_eq!(
            values("a.0", &d, LeafArrays::Traverse),
            vec![(Some(bson!("x")), Some(0)), (Some(bson!({"0": "x"})), None)]
        );
        // "01" is a field name, never an index.
        assert!(Part::new("01").index.is_none());
        assert_eq!(
            FieldPath::new("a.1").get(&doc! {"a": [1, 2]}),
            Some(&bson!(2))
        );
    }
}
