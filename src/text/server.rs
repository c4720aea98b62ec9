//! Values written the way the server writes them in messages and explain
//! output (`BSONElement::toString` in bsonelement.cpp): `"abc"`, `5.0`,
//! `inf.0`, `new Date(0)`, `ObjectId('…')`, `/re/i`, `{ a: 1 }` — unlike
//! mongosh's printer (`text::shell`).
use crate::value::numeric::printf_g_digits;
use bson::spec::BinarySubtype;
use bson::Bson;
use std::fmt::Write as _;

/// One value in the server's form.
pub fn server_string(v: &Bson) -> String {
    let mut out = String::new();
    write(&mut out, v);
    out
}

/// `name: value`, the server's element form.
pub fn elem(name: &str, value: &Bson) -> String {
    let mut out = format!("{name}: ");
    write(&mut out, value);
    out
}

fn write(out: &mut String, v: &Bson) {
    match v {
        Bson::Double(x) => {
            // appendDoubleNice: %.16g, then ".0" unless it has '.', 'E' or 'N'.
            let s = printf_g_digits(*x, 16);
            out.push_str(&s);
            if !s.contains(['.', 'E', 'N']) {
                out.push_str(".0");
            }
        }
        Bson::Int32(n) => {
            let _ = write!(out, "{n}");
        }
        Bson::Int64(n) => {
            let _ = write!(out, "{n}");
        }
        Bson::Decimal128(d) => {
            let _ = write!(out, "{d}");
        }
        Bson::String(s) | Bson::Symbol(s) => {
            out.push('"');
            if s.len() > 160 {
                out.push_str(prefix(s, 150));
                out.push_str("...\"");
            } else {
                out.push_str(s);
                out.push('"');
            }
        }
        Bson::JavaScriptCode(code) => {
            if code.len() > 80 {
                out.push_str(prefix(code, 70));
                out.push_str("...");
            } else {
                out.push_str(code);
            }
        }
        Bson::JavaScriptCodeWithScope(c) => {
            let _ = write!(out, "CodeWScope( {}, ", c.code);
            write(out, &Bson::Document(c.scope.clone()));
            out.push(')');
        }
        Bson::ObjectId(o) => {
            let _ = write!(out, "ObjectId('{}')", o.to_hex());
        }
        Bson::Boolean(b) => {
            let _ = write!(out, "{b}");
        }
        Bson::Null => out.push_str("null"),
        Bson::Undefined => out.push_str("undefined"),
        Bson::MinKey => out.push_str("MinKey"),
        Bson::MaxKey => out.push_str("MaxKey"),
        Bson::DateTime(d) => {
            let _ = write!(out, "new Date({})", d.timestamp_millis());
        }
        Bson::Timestamp(t) => {
            let _ = write!(out, "Timestamp({}, {})", t.time, t.increment);
        }
        Bson::RegularExpression(r) => {
            let _ = write!(out, "/{}/{}", r.pattern.as_str(), r.options.as_str());
        }
        Bson::Binary(b) if b.subtype == BinarySubtype::Uuid && b.bytes.len() == 16 => {
            let h: String = b.bytes.iter().map(|x| format!("{x:02x}")).collect();
            let _ = write!(
                out,
                "UUID(\"{}-{}-{}-{}-{}\")",
                &h[0..8],
                &h[8..12],
                &h[12..16],
                &h[16..20],
                &h[20..32]
            );
        }
        Bson::Binary(b) => {
            let _ = write!(out, "BinData({}, ", u8::from(b.subtype));
            let shown = if b.bytes.len() > 80 {
                &b.bytes[..70]
            } else {
                &b.bytes[..]
            };
            for x in shown {
                let _ = write!(out, "{x:02X}");
            }
            out.push_str(if b.bytes.len() > 80 { "...)" } else { ")" });
        }
        Bson::DbPointer(p) => match crate::text::ejson::db_pointer_parts(p) {
            Some((ns, id)) => {
                let _ = write!(out, "DBRef('{ns}',{})", id.to_hex());
            }
            None => out.push_str("DBRef()"),
        },
        Bson::Document(d) if d.is_empty() => out.push_str("{}"),
        Bson::Document(d) => {
            out.push_str("{ ");
            for (i, (k, v)) in d.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(k);
                out.push_str(": ");
                write(out, v);
            }
            out.push_str(" }");
        }
        Bson::Array(a) if a.is_empty() => out.push_str("[]"),
        Bson::Array(a) => {
            out.push_str("[ ");
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(out, v);
            }
            out.push_str(" ]");
        }
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character.
fn prefix(s: &str, max: usize) -> &str {
    let mut end = max.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    #[test]
    fn formats() {
        assert_eq!(server_string(&bson!("a\"b")), "\"a\"b\"");
        assert_eq!(server_string(&bson!(5.0)), "5.0");
        assert_eq!(server_string(&bson!(5.5)), "5.5");
        assert_eq!(server_string(&bson!(0.1 + 0.2)), "0.3");
        assert_eq!(server_string(&bson!(1e16)), "1e+16.0");
        assert_eq!(server_string(&Bson::Double(f64::INFINITY)), "inf.0");
        assert_eq!(server_string(&Bson::Double(f64::NAN)), "nan.0");
        assert_eq!(
            server_string(&bson!({"a": [1, "x"]})),
            "{ a: [ 1, \"x\" ] }"
        );
        assert_eq!(elem("a", &bson!([])), "a: []");
        let long = "é".repeat(100);
        assert!(server_string(&Bson::String(long)).ends_with("...\""));
    }
}
