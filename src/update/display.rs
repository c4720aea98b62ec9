//! Values written the way the server's `BSONElement::toString` writes them in
//! error messages (`{_id: "x"}`, `a: [ 1, 2 ]`), which differs from mongosh's
//! printing (`'x'`, `Long('1')`).
use bson::Bson;

/// `name: value`, the server's element form.
pub fn elem(name: &str, value: &Bson) -> String {
    format!("{name}: {}", value_str(value))
}

/// One value in the server's form.
pub fn value_str(v: &Bson) -> String {
    match v {
        Bson::Double(x) => double_str(*x),
        Bson::Int32(x) => x.to_string(),
        Bson::Int64(x) => x.to_string(),
        Bson::Decimal128(d) => format!("NumberDecimal(\"{d}\")"),
        Bson::String(s) | Bson::Symbol(s) => format!("{s:?}"),
        Bson::Boolean(b) => b.to_string(),
        Bson::Null => "null".to_string(),
        Bson::Undefined => "undefined".to_string(),
        Bson::ObjectId(o) => format!("ObjectId('{}')", o.to_hex()),
        Bson::DateTime(d) => format!("new Date({})", d.timestamp_millis()),
        Bson::Timestamp(t) => format!("Timestamp({}, {})", t.time, t.increment),
        Bson::RegularExpression(r) => format!("/{}/{}", r.pattern, r.options),
        Bson::Binary(b) => {
            let hex: String = b.bytes.iter().map(|x| format!("{x:02X}")).collect();
            format!("BinData({}, {hex})", u8::from(b.subtype))
        }
        Bson::JavaScriptCode(c) => c.clone(),
        Bson::JavaScriptCodeWithScope(c) => c.code.clone(),
        Bson::DbPointer(_) => "DBRef()".to_string(),
        Bson::MinKey => "MinKey".to_string(),
        Bson::MaxKey => "MaxKey".to_string(),
        Bson::Document(d) if d.is_empty() => "{}".to_string(),
        Bson::Document(d) => {
            let parts: Vec<String> = d.iter().map(|(k, v)| elem(k, v)).collect();
            format!("{{ {} }}", parts.join(", "))
        }
        Bson::Array(a) if a.is_empty() => "[]".to_string(),
        Bson::Array(a) => {
            let parts: Vec<String> = a.iter().map(value_str).collect();
            format!("[ {} ]", parts.join(", "))
        }
    }
}

/// Doubles print with a `.0` when integral, as the server's `appendDoubleNice`.
fn double_str(x: f64) -> String {
    if x.is_nan() {
        "nan.0".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "inf.0" } else { "-inf.0" }.to_string()
    } else if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

/// SafeNum's debug form used in arithmetic overflow messages: `(NumberLong)9`.
pub fn safe_num_str(v: &Bson) -> String {
    match v {
        Bson::Int32(x) => format!("(NumberInt){x}"),
        Bson::Int64(x) => format!("(NumberLong){x}"),
        Bson::Double(x) => format!("(NumberDouble){x}"),
        Bson::Decimal128(d) => format!("(NumberDecimal){d}"),
        other => value_str(other),
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
        assert_eq!(value_str(&bson!({"b": 1.0})), "{ b: 1.0 }");
        assert_eq!(value_str(&bson!({})), "{}");
    }
}
