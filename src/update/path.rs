//! Update paths: field-name ordering, array indexes, and the runtime path
//! taken through a document (kept as a stack-linked list so building it costs
//! nothing until an error message needs it).
use std::cmp::Ordering;

/// The order in which update operators visit fields (MongoDB 5.0+): names
/// starting with a digit (and without a leading zero) compare by length, then
/// bytewise, so numeric names sort numerically; any other pair bytewise. This
/// is the server's `cmpPathsAndArrayIndexes`, a total order.
/// https://www.mongodb.com/docs/manual/reference/operator/update/#behavior
pub fn field_order(a: &str, b: &str) -> Ordering {
    if numeric_like(a) && numeric_like(b) {
        a.len()
            .cmp(&b.len())
            .then_with(|| a.as_bytes().cmp(b.as_bytes()))
    } else {
        a.as_bytes().cmp(b.as_bytes())
    }
}

fn numeric_like(s: &str) -> bool {
    match s.as_bytes() {
        [] => false,
        [b'0', _, ..] => false,
        [first, ..] => first.is_ascii_digit(),
    }
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// A path component used as an array index (`a.3`): digits only.
pub fn parse_index(s: &str) -> Option<usize> {
    if is_digits(s) {
        s.parse().ok()
    } else {
        None
    }
}

/// `$[]` or `$[id]`: the identifier (empty for `$[]`).
pub fn array_filter_id(part: &str) -> Option<&str> {
    if part.len() >= 3 && part.starts_with("$[") && part.ends_with(']') {
        Some(&part[2..part.len() - 1])
    } else {
        None
    }
}

/// `doc.get_mut(name)`, faster on small documents: a linear scan compares
/// key lengths first and touches neither the hash table nor (for keys of
/// another length) the key bytes: the cache misses that dominate an update
/// over a large collection (as `crate::value::path::field` for reads).
#[inline]
pub fn field_mut<'a>(doc: &'a mut bson::Document, name: &str) -> Option<&'a mut bson::Bson> {
    if crate::value::entries::of(doc).len() > 16 {
        return doc.get_mut(name);
    }
    // One pass that finds the key and yields its value: bson's `IterMut`
    // does not pass `nth` on to the map's slice iterator, so reaching a
    // position found first would walk the entries a second time.
    let key = name.as_bytes();
    doc.iter_mut()
        .find(|(k, _)| crate::value::path::same_bytes(k.as_bytes(), key))
        .map(|(_, v)| v)
}

/// One step of the path taken at run time.
#[derive(Clone, Copy, Debug)]
pub enum Seg<'a> {
    Field(&'a str),
    Index(usize),
}

/// The path from the document root to the element being updated.
#[derive(Clone, Copy, Debug)]
pub struct Trail<'a> {
    pub parent: Option<&'a Trail<'a>>,
    pub seg: Option<Seg<'a>>,
}

impl<'a> Trail<'a> {
    pub const ROOT: Trail<'static> = Trail {
        parent: None,
        seg: None,
    };

    pub fn field(&'a self, name: &'a str) -> Trail<'a> {
        Trail {
            parent: Some(self),
            seg: Some(Seg::Field(name)),
        }
    }

    pub fn index(&'a self, i: usize) -> Trail<'a> {
        Trail {
            parent: Some(self),
            seg: Some(Seg::Index(i)),
        }
    }

    pub fn is_root(&self) -> bool {
        self.seg.is_none()
    }

    /// The last component as the server names the element (`a` or `3`).
    pub fn name(&self) -> String {
        match self.seg {
            Some(Seg::Field(f)) => f.to_string(),
            Some(Seg::Index(i)) => i.to_string(),
            None => String::new(),
        }
    }

    /// `a.0.b`
    pub fn dotted(&self) -> String {
        let mut parts = Vec::new();
        let mut cur = Some(self);
        while let Some(t) = cur {
            match t.seg {
                Some(Seg::Field(f)) => parts.push(f.to_string()),
                Some(Seg::Index(i)) => parts.push(i.to_string()),
                None => {}
            }
            cur = t.parent;
        }
        parts.reverse();
        parts.join(".")
    }

    /// `a.0.b` followed by more components.
    pub fn dotted_with(&self, more: &[&str]) -> String {
        let mut s = self.dotted();
        for m in more {
            if !s.is_empty() {
                s.push('.');
            }
            s.push_str(m);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_trail() {
        let mut names = vec!["b", "10", "a", "9", "_id", "B"];
        crate::sorting::sort_by(&mut names, |a, b| field_order(a, b));
        assert_eq!(names, vec!["9", "10", "B", "_id", "a", "b"]);
        assert_eq!(field_order("9", "10"), Ordering::Less);
        let root = Trail::ROOT;
        let a = root.field("a");
        let i = a.index(3);
        assert_eq!(i.dotted(), "a.3");
        assert_eq!(array_filter_id("$[x]"), Some("x"));
        assert_eq!(array_filter_id("$[]"), Some(""));
        assert_eq!(parse_index("12"), Some(12));
        assert_eq!(parse_index("1a"), None);
    }
}
