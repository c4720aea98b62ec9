//! Values written the way the server writes them in messages and explain
//! output (BSONElement::toString): `"abc"`, `5.0`, `inf.0`, `new Date(0)`,
//! `ObjectId('…')`, `/re/i`, `{ a: 1 }` — unlike mongosh's printer.
use bson::Bson;

pub fn server_string(v: &Bson) -> String {
    match v {
        Bson::Double(x) => double(*x),
        Bson::Int32(n) => n.to_string(),
        Bson::Int64(n) => n.to_string(),
        Bson::Decimal128(d) => d.to_string(),
        Bson::String(s) | Bson::Symbol(s) => quoted(s),
        Bson::ObjectId(o) => format!("ObjectId('{}')", o.to_hex()),
        Bson::Boolean(b) => b.to_string(),
        Bson::Null => "null".to_string(),
        Bson::Undefined => "undefined".to_string(),
        Bson::MinKey => "MinKey".to_string(),
        Bson::MaxKey => "MaxKey".to_string(),
        Bson::DateTime(d) => format!("new Date({})", d.timestamp_millis()),
        Bson::Timestamp(t) => format!("Timestamp({}, {})", t.time, t.increment),
        Bson::RegularExpression(r) => format!("/{}/{}", r.pattern.as_str(), r.options.as_str()),
        Bson::Document(d) if d.is_empty() => "{}".to_string(),
        Bson::Document(d) => format!(
            "{{ {} }}",
            d.iter()
                .map(|(k, v)| format!("{k}: {}", server_string(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Bson::Array(a) if a.is_empty() => "[]".to_string(),
        Bson::Array(a) => format!(
            "[ {} ]",
            a.iter().map(server_string).collect::<Vec<_>>().join(", ")
        ),
        Bson::Binary(b) => format!(
            "BinData({}, {})",
            u8::from(b.subtype),
            b.bytes
                .iter()
                .map(|x| format!("{x:02X}"))
                .collect::<String>()
        ),
        other => crate::text::shell::inline(other),
    }
}

fn double(x: f64) -> String {
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

fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    #[test]
    fn formats() {
        assert_eq!(server_string(&bson!("a\"b")), "\"a\\\"b\"");
        assert_eq!(server_string(&bson!(5.0)), "5.0");
        assert_eq!(server_string(&bson!(5.5)), "5.5");
        assert_eq!(server_string(&Bson::Double(f64::INFINITY)), "inf.0");
        assert_eq!(
            server_string(&bson!({"a": [1, "x"]})),
            "{ a: [ 1, \"x\" ] }"
        );
    }
}
