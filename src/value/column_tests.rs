//! Tests of `value::column`.
use super::*;
use bson::doc;
use bson::oid::ObjectId;

#[test]
fn cells_hold_what_a_test_can_use() {
    let oid = ObjectId::from_bytes([7; 12]);
    let docs = vec![
        doc! {"a": 1},
        doc! {"a": 2_i64},
        doc! {"a": 1.5},
        doc! {"a": "x"},
        doc! {"a": "x"},
        doc! {"a": oid},
        doc! {"a": null},
        doc! {"b": 1},
        doc! {"a": [1]},
        doc! {"a": {"b": 1}},
        doc! {"a": true},
        doc! {"a": bson::DateTime::from_millis(-5)},
    ];
    let c = Column::build("a", &docs);
    assert_eq!(
        c.cells(),
        &[
            Cell::Int32(1),
            Cell::Int64(2),
            Cell::Double(1.5),
            Cell::Dict(0),
            Cell::Dict(0),
            Cell::Dict(1),
            Cell::Null,
            Cell::Missing,
            Cell::Other,
            Cell::Other,
            Cell::Bool(true),
            Cell::Date(-5),
        ]
    );
    assert_eq!(
        c.dictionary(),
        &[Bson::String("x".into()), Bson::ObjectId(oid)]
    );
}

/// Strings remembered in one slot (same length and first byte) still
/// get their own entries.
#[test]
fn strings_met_last_keep_their_entries() {
    let docs: Vec<Document> = ["ab", "ac", "ab", "ac", "ad", "ab", "b", "ad"]
        .iter()
        .map(|s| doc! {"a": *s})
        .collect();
    let c = Column::build("a", &docs);
    let entries: Vec<u32> = c
        .cells()
        .iter()
        .map(|cell| match cell {
            Cell::Dict(i) => *i,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(entries, [0, 1, 0, 1, 2, 0, 3, 2]);
    assert_eq!(c.dictionary().len(), 4);
}

#[test]
fn element_cells_are_what_elem_match_tests() {
    let docs = vec![
        doc! {"r": [{"x": 1, "y": "a"}, 7, {"y": "b"}, [{"x": 2}], {"x": [3]}]},
        doc! {"r": {"x": 1}},
        doc! {"s": 1},
        doc! {"r": []},
        doc! {"r": [1.5, {"x": 1}, null]},
    ];
    let x = Column::build_elements("r", Some("x"), &docs, usize::MAX)
        .unwrap_or_else(|| panic!("built"));
    let x_cells = |i| x.values(i).map(|(c, _)| c.to_vec());
    assert_eq!(
        x_cells(0),
        Some(vec![
            Cell::Int32(1),
            Cell::Missing,
            Cell::Other,
            Cell::Other
        ])
    );
    assert_eq!(x_cells(1), Some(vec![]), "not an array");
    assert_eq!(x_cells(2), Some(vec![]), "missing");
    assert_eq!(x_cells(3), Some(vec![]));
    assert_eq!(x_cells(4), Some(vec![Cell::Int32(1)]));
    let y = Column::build_elements("r", Some("y"), &docs, usize::MAX)
        .unwrap_or_else(|| panic!("built"));
    assert_eq!(
        y.values(0).map(|(c, _)| c.len()),
        x.values(0).map(|(c, _)| c.len()),
        "one cell per element tested, whatever the field"
    );
    let all =
        Column::build_elements("r", None, &docs, usize::MAX).unwrap_or_else(|| panic!("built"));
    assert_eq!(
        all.values(4).map(|(c, _)| c.to_vec()),
        Some(vec![Cell::Double(1.5), Cell::Other, Cell::Null])
    );
    assert!(
        Column::build_elements("r", None, &docs, 3).is_none(),
        "too large"
    );
}

/// Documents with what `$elemMatch` meets: document elements, scalars,
/// nested arrays, missing fields, empty arrays, a `r` that is not an
/// array or is missing, a key written twice.
fn elements_docs() -> Vec<Document> {
    let mut twice = Document::new();
    twice.insert("x", 1);
    twice.insert("y", "a");
    twice.insert("x", "b");
    vec![
        doc! {"r": [{"x": 1, "y": "a"}, 7, {"y": "b"}, [{"x": 2}], {"x": [3]}]},
        doc! {"r": {"x": 1}},
        doc! {"s": 1},
        doc! {"r": []},
        doc! {"r": [1.5, {"x": 1}, null, "a", [], {"y": {"z": 1}}]},
        doc! {"r": [Bson::Document(twice), {"y": "b", "x": 2_i64}]},
        doc! {"r": "abc"},
        doc! {"r": [{"x": "b"}, {"x": "a"}, {}, {"x": null}]},
    ]
}

fn rows_of(c: &Column) -> Vec<Option<Vec<Cell>>> {
    (0..c.rows())
        .map(|i| c.values(i).map(|(v, _)| v.to_vec()))
        .collect()
}

/// Each column of a many-field build is the one-field build's.
#[test]
fn one_pass_builds_what_one_field_builds() {
    let docs = elements_docs();
    let fields = [Some("x"), None, Some("y"), Some("x"), Some("z"), Some("")];
    let many = Column::build_elements_many("r", &fields, &docs, usize::MAX, usize::MAX);
    assert_eq!(many.len(), fields.len());
    for (field, built) in fields.iter().zip(&many) {
        let one = Column::build_elements("r", *field, &docs, usize::MAX);
        let (Some(m), Some(o)) = (built, &one) else {
            assert!(built.is_none() && one.is_none(), "{field:?}");
            continue;
        };
        assert_eq!(m.source(), o.source(), "{field:?}");
        assert_eq!(m.rows(), docs.len(), "{field:?}");
        assert_eq!(rows_of(m), rows_of(o), "{field:?}");
        assert_eq!(m.cells(), o.cells(), "{field:?}");
        assert_eq!(m.dictionary(), o.dictionary(), "{field:?}");
        let spans = |c: &Column| (0..c.rows()).map(|i| c.elements(i)).collect::<Vec<_>>();
        assert_eq!(spans(m), spans(o), "{field:?}");
        assert!(m
            .values(0)
            .is_some_and(|(_, inside)| inside.iter().all(|&b| b)));
    }
    let x = many
        .first()
        .and_then(Option::as_ref)
        .unwrap_or_else(|| panic!("x"));
    assert_eq!(
        rows_of(x),
        [
            Some(vec![
                Cell::Int32(1),
                Cell::Missing,
                Cell::Other,
                Cell::Other
            ]),
            Some(vec![]),
            Some(vec![]),
            Some(vec![]),
            Some(vec![Cell::Int32(1), Cell::Other, Cell::Missing]),
            Some(vec![Cell::Dict(0), Cell::Int64(2)]),
            Some(vec![]),
            Some(vec![
                Cell::Dict(0),
                Cell::Dict(1),
                Cell::Missing,
                Cell::Null
            ]),
        ]
        .to_vec()
    );
    let all = many
        .get(1)
        .and_then(Option::as_ref)
        .unwrap_or_else(|| panic!("all"));
    assert_eq!(all.elements(4), Some((5, 6)), "every element, scalars too");
}

/// Past `max_each` a column is dropped; past `max_total` the last
/// asked go first, and the kept ones never hold more.
#[test]
fn one_pass_keeps_the_first_columns_that_fit() {
    let docs = elements_docs();
    let one = |f| Column::build_elements("r", Some(f), &docs, usize::MAX);
    let x_cells = one("x").map_or(0, |c| c.cells().len());
    assert_eq!(x_cells, 13);
    let kept = |max_each, max_total| {
        Column::build_elements_many(
            "r",
            &[Some("x"), Some("y"), None],
            &docs,
            max_each,
            max_total,
        )
        .iter()
        .map(Option::is_some)
        .collect::<Vec<_>>()
    };
    // The value form has 17 cells, each field 13.
    assert_eq!(kept(usize::MAX, 43), [true, true, true]);
    assert_eq!(kept(usize::MAX, 42), [true, true, false]);
    assert_eq!(kept(usize::MAX, 25), [true, false, false], "room for one");
    assert_eq!(kept(usize::MAX, 12), [false, false, false]);
    assert_eq!(kept(16, usize::MAX), [true, true, false]);
    assert_eq!(kept(12, usize::MAX), [false, false, false]);
    let built = Column::build_elements_many("r", &[Some("x"), Some("y")], &docs, 13, 26);
    let total: usize = built.iter().flatten().map(|c| c.cells().len()).sum();
    assert_eq!(total, 26);
}

/// Elements wider than those searched in order: the field is found
/// through the element's hash table, wherever it is.
#[test]
fn wide_elements_give_their_fields() {
    let wide = |at: i32| -> Bson {
        let mut d = Document::new();
        for i in 0..40 {
            if i == at {
                d.insert("x", format!("w{at}"));
            }
            d.insert(format!("f{i}"), i);
        }
        Bson::Document(d)
    };
    let docs = vec![
        doc! {"r": [wide(39), wide(3), {"x": 1}, wide(-1)]},
        doc! {"r": [wide(3), wide(20)]},
    ];
    let x = Column::build_elements("r", Some("x"), &docs, usize::MAX)
        .unwrap_or_else(|| panic!("built"));
    assert_eq!(
        rows_of(&x),
        [
            Some(vec![
                Cell::Dict(0),
                Cell::Dict(1),
                Cell::Int32(1),
                Cell::Missing
            ]),
            Some(vec![Cell::Dict(1), Cell::Dict(2)]),
        ]
        .to_vec()
    );
    assert_eq!(x.dictionary().get(2), Some(&Bson::String("w20".into())));
}
