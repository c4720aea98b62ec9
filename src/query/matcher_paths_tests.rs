//! The matcher's direct readings of short paths (`match_short_path`, and
//! `$elemMatch`'s one-field conditions) against the general traversal, on
//! generated documents: same answer and same positional `$` position.
use super::{match_short_path, match_visiting, Node, Pred, Root};
use crate::expr::CompileCtx;
use crate::query::filter::{Level, Parser};
use bson::{bson, doc, Bson, Document};
use proptest::prelude::*;

/// Field names the filters below use ("0" and "1" also index arrays).
const NAMES: [&str; 4] = ["a", "b", "0", "1"];

fn value() -> impl Strategy<Value = Bson> {
    let leaf = prop_oneof![
        Just(Bson::Int32(1)),
        Just(Bson::Int32(2)),
        Just(Bson::Double(2.0)),
        Just(Bson::Null),
        Just(Bson::String("x".into())),
        Just(Bson::String("y".into())),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Bson::Array),
            proptest::collection::vec((proptest::sample::select(NAMES.to_vec()), inner), 0..4)
                .prop_map(|kv| {
                    let mut d = Document::new();
                    for (k, v) in kv {
                        d.insert(k, v);
                    }
                    Bson::Document(d)
                }),
        ]
    })
}

fn document() -> impl Strategy<Value = Document> {
    proptest::collection::vec((proptest::sample::select(NAMES.to_vec()), value()), 0..4).prop_map(
        |kv| {
            let mut d = Document::new();
            for (k, v) in kv {
                d.insert(k, v);
            }
            d
        },
    )
}

/// Conditions on one- and two-component paths, every kind of predicate the
/// short readings pass values to (arrays at the leaf traversed or not).
fn filters() -> Vec<Document> {
    let mut out = Vec::new();
    for path in ["a", "a.b", "a.0", "a.1", "0.a", "b.b"] {
        for cond in [
            bson!(2),
            bson!(null),
            bson!("x"),
            bson!([1, 2]),
            bson!({"b": 2}),
            bson!({"$gt": 1}),
            bson!({"$in": ["x", 2, null]}),
            bson!({"$in": ["y"]}),
            bson!({"$exists": true}),
            bson!({"$type": "array"}),
            bson!({"$size": 1}),
            bson!({"$all": [1, 2]}),
            bson!({"$elemMatch": {"$gt": 1}}),
            bson!({"$elemMatch": {"b": 2}}),
            bson!({"$elemMatch": {"a": {"$in": ["x", "y"]}, "b": {"$gte": 1}}}),
            bson!({"$elemMatch": {"0": 1}}),
            bson!({"$elemMatch": {"b": null}}),
            bson!({"$all": [{"$elemMatch": {"$gt": 1}}]}),
            bson!({"$all": [{"$elemMatch": {"b": 2}}, {"$elemMatch": {"b": {"$gte": 1}}}]}),
        ] {
            out.push(doc! {path: cond});
        }
    }
    out
}

/// The `Node::Path`s of a compiled filter.
fn paths<'a>(node: &'a Node, out: &mut Vec<&'a Node>) {
    match node {
        Node::Path { .. } => out.push(node),
        Node::And(children) | Node::Or(children) | Node::Nor(children) => {
            children.iter().for_each(|c| paths(c, out))
        }
        Node::Not(child) => paths(child, out),
        _ => {}
    }
}

/// `$elemMatch` on document fields, element by element through the general matcher.
fn elem_match_reference(node: &Node, v: Option<&Bson>) -> Option<usize> {
    let Some(Bson::Array(items)) = v else {
        return None;
    };
    items.iter().position(|e| {
        let root = match e {
            Bson::Document(d) => Root::Doc(d),
            Bson::Array(_) => Root::Value(e),
            _ => return false,
        };
        let mut general = None;
        match node {
            Node::Path { path, pred } => match_visiting(path, pred, root, &mut general),
            _ => node.matches(root, None, &mut general).unwrap_or(false),
        }
    })
}

fn check(doc: &Document, compiled: &[(Document, Node)]) -> Result<(), TestCaseError> {
    for (filter, node) in compiled {
        let mut found = Vec::new();
        paths(node, &mut found);
        for n in found {
            let Node::Path { path, pred } = n else {
                continue;
            };
            let mut general = None;
            let want = match_visiting(path, pred, Root::Doc(doc), &mut general);
            let mut short = None;
            if let Some(got) = match_short_path(pred, path.parts(), doc, &mut short) {
                prop_assert_eq!(got, want, "{} on {}", filter, doc);
                prop_assert_eq!(short, general, "position of {} on {}", filter, doc);
            }
            if let Pred::ElemMatchObject(inner) = pred {
                let v = doc.get("a");
                let mut at = None;
                let got = super::elem_match_object(inner, v, &mut at);
                let want = elem_match_reference(inner, v);
                prop_assert_eq!(got.then_some(at).flatten(), want, "{} on {}", filter, doc);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn short_paths_read_what_the_traversal_yields(doc in document()) {
        let ctx = CompileCtx::default();
        let compiled: Vec<(Document, Node)> = filters()
            .into_iter()
            .filter_map(|f| {
                let node = Parser { ctx: &ctx }.parse_doc(&f, Level::Top).ok()?;
                Some((f, node))
            })
            .collect();
        check(&doc, &compiled)?;
    }
}

#[test]
fn the_filters_compile() {
    let ctx = CompileCtx::default();
    for f in filters() {
        assert!(
            Parser { ctx: &ctx }.parse_doc(&f, Level::Top).is_ok(),
            "{f}"
        );
    }
}
