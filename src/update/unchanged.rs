//! Whether a replacement or a pipeline left a document as it was: the
//! server's binary equality (`value::identical`), compared from the last
//! field backwards. Updates mostly change a document's end (new fields are
//! appended, arrays grow or change at their end), so a changed document
//! differs early in this walk; an unchanged one is compared whole either way.
use crate::value::entries;
use crate::value::identical::identical;
use bson::{Bson, Document};

/// `identical_docs(old, new)`, from the end.
pub fn unchanged(old: &Document, new: &Document) -> bool {
    let (a, b) = (entries::of(old), entries::of(new));
    a.len() == b.len()
        && a.iter()
            .rev()
            .zip(b.iter().rev())
            .all(|((ka, va), (kb, vb))| same(va, vb) && ka == kb)
}

/// `identical(a, b)`, containers from their end. Recurses as deep as the
/// documents nest, which the stored document's limits bound.
fn same(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => unchanged(x, y),
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().rev().zip(y.iter().rev()).all(|(a, b)| same(a, b))
        }
        _ => identical(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::identical::identical_docs;
    use bson::doc;

    #[test]
    fn agrees_with_identical_docs() {
        let docs = [
            doc! {},
            doc! {"_id": 1, "a": 1},
            doc! {"_id": 1, "a": 1.0},
            doc! {"_id": 1, "a": 1_i64},
            doc! {"a": 1, "_id": 1},
            doc! {"_id": 1, "a": 1, "b": 2},
            doc! {"_id": 1, "b": 2, "a": 1},
            doc! {"_id": 1, "a": f64::NAN},
            doc! {"_id": 1, "a": -0.0},
            doc! {"_id": 1, "a": 0.0},
            doc! {"_id": 1, "t": [{"h": 1, "c": 2}, {"h": 2, "c": 3}]},
            doc! {"_id": 1, "t": [{"h": 1, "c": 2}, {"h": 2, "c": 4}]},
            doc! {"_id": 1, "t": [{"h": 1, "c": 2}, {"c": 3, "h": 2}]},
            doc! {"_id": 1, "t": [{"h": 1, "c": 2}]},
            doc! {"_id": 1, "t": [{"h": 1, "c": 2}, {"h": 2, "c": 3}, null]},
            doc! {"_id": 1, "t": {"x": [1, [2, "s"]]}},
            doc! {"_id": 1, "t": {"x": [1, [2, "z"]]}},
            doc! {"_id": 1, "u": {"x": [1, [2, "s"]]}},
        ];
        for x in &docs {
            for y in &docs {
                assert_eq!(unchanged(x, y), identical_docs(x, y), "{x} vs {y}");
            }
            assert!(unchanged(x, &x.clone()));
        }
    }
}
