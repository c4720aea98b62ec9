//! The update messages' own value forms: SafeNum's debug form in overflow
//! messages, and the `_id` element filled in once the document is free
//! (values themselves print as `text::server` writes them).
use crate::text::server::{elem, server_string};
use bson::Bson;

/// SafeNum's debug form used in arithmetic overflow messages: `(NumberLong)9`.
pub fn safe_num_str(v: &Bson) -> String {
    match v {
        Bson::Int32(x) => format!("(NumberInt){x}"),
        Bson::Int64(x) => format!("(NumberLong){x}"),
        Bson::Double(x) => format!("(NumberDouble){x}"),
        Bson::Decimal128(d) => format!("(NumberDecimal){d}"),
        other => server_string(other),
    }
}

/// Marker standing for the document's `_id` element in messages built while
/// the document is mutably borrowed; `Update::apply` fills it in.
pub const ID_MARK: &str = "\u{1}_id\u{1}";

/// Replace the `_id` marker with the server's rendering of the `_id` element.
pub fn fill_id(message: &str, id: Option<&Bson>) -> String {
    if !message.contains(ID_MARK) {
        return message.to_string();
    }
    let text = id.map_or_else(|| "no id".to_string(), |v| elem("_id", v));
    message.replace(ID_MARK, &text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    #[test]
    fn server_forms() {
        assert_eq!(elem("a", &bson!([1, 2])), "a: [ 1, 2 ]");
        assert_eq!(elem("_id", &bson!("x")), "_id: \"x\"");
        assert_eq!(server_string(&bson!({"b": 1.0})), "{ b: 1.0 }");
        assert_eq!(server_string(&bson!({})), "{}");
    }
}
