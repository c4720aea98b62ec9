//! mongosh's output format: Node's `util.inspect` layout (2-space indent,
//! short objects on one line within 80 columns) with the shell's type
//! wrappers: `ObjectId('…')`, `ISODate('…')`, `Long('…')`, `Decimal128('…')`.
use bson::spec::BinarySubtype;
use bson::{Bson, Document};

const BREAK_LENGTH: usize = 80;
/// Node's `compact: 3`: an object is kept on one line only if it nests less than 3 levels.
const COMPACT: usize = 3;

/// Print a value as mongosh prints a result.
pub fn print(value: &Bson) -> String {
    let mut p = Printer { indent: 0 };
    p.value(value).0
}

/// Print a document as mongosh does (what [`print`] gives for `Bson::Document`).
pub fn print_doc(doc: &Document) -> String {
    let mut p = Printer { indent: 0 };
    p.doc(doc).0
}

/// Print borrowed documents as the array [`print`] gives for them, without
/// copying them into one.
pub fn print_docs(docs: &[&Document]) -> String {
    let mut p = Printer { indent: 0 };
    p.array(docs, |p, d| p.doc(d)).0
}

/// Print a value on one line (for error messages: `{ _id: 'x' }`).
pub fn inline(value: &Bson) -> String {
    match value {
        Bson::Document(d) if d.is_empty() => "{}".to_string(),
        Bson::Document(d) => {
            let parts: Vec<String> = d
                .iter()
                .map(|(k, v)| format!("{}: {}", key(k), inline(v)))
                .collect();
            format!("{{ {} }}", parts.join(", "))
        }
        Bson::Array(a) if a.is_empty() => "[]".to_string(),
        Bson::Array(a) => format!(
            "[ {} ]",
            a.iter().map(inline).collect::<Vec<_>>().join(", ")
        ),
        other => scalar(other),
    }
}

/// The type name mongosh/MongoDB use in messages (`$type` names).
pub fn type_name(value: &Bson) -> &'static str {
    match value {
        Bson::Double(_) => "double",
        Bson::String(_) => "string",
        Bson::Document(_) => "object",
        Bson::Array(_) => "array",
        Bson::Binary(_) => "binData",
        Bson::Undefined => "undefined",
        Bson::ObjectId(_) => "objectId",
        Bson::Boolean(_) => "bool",
        Bson::DateTime(_) => "date",
        Bson::Null => "null",
        Bson::RegularExpression(_) => "regex",
        Bson::DbPointer(_) => "dbPointer",
        Bson::JavaScriptCode(_) => "javascript",
        Bson::Symbol(_) => "symbol",
        Bson::JavaScriptCodeWithScope(_) => "javascriptWithScope",
        Bson::Int32(_) => "int",
        Bson::Timestamp(_) => "timestamp",
        Bson::Int64(_) => "long",
        Bson::Decimal128(_) => "decimal",
        Bson::MinKey => "minKey",
        Bson::MaxKey => "maxKey",
    }
}

struct Printer {
    indent: usize,
}

impl Printer {
    /// Returns the text and how many container levels it nests.
    fn value(&mut self, v: &Bson) -> (String, usize) {
        match v {
            Bson::Document(d) if d.is_empty() => ("{}".to_string(), 0),
            Bson::Array(a) if a.is_empty() => ("[]".to_string(), 0),
            Bson::Document(d) => self.doc(d),
            Bson::Array(a) => self.array(a, |p, v| p.value(v)),
            other => (scalar(other), 0),
        }
    }

    fn array<T>(
        &mut self,
        items: &[T],
        each: impl Fn(&mut Self, &T) -> (String, usize),
    ) -> (String, usize) {
        if items.is_empty() {
            return ("[]".to_string(), 0);
        }
        self.indent += 2;
        let mut depth = 0;
        let entries: Vec<String> = items
            .iter()
            .map(|v| {
                let (s, dd) = each(self, v);
                depth = depth.max(dd);
                s
            })
            .collect();
        self.indent -= 2;
        (self.join(entries, '[', ']', depth), depth + 1)
    }

    fn doc(&mut self, d: &Document) -> (String, usize) {
        if d.is_empty() {
            return ("{}".to_string(), 0);
        }
        self.indent += 2;
        let mut depth = 0;
        let entries: Vec<String> = d
            .iter()
            .map(|(k, v)| {
                let (s, dd) = self.value(v);
                depth = depth.max(dd);
                format!("{}: {s}", key(k))
            })
            .collect();
        self.indent -= 2;
        (self.join(entries, '{', '}', depth), depth + 1)
    }

    /// Node's reduceToSingleString: one line when shallow and short enough.
    fn join(&self, entries: Vec<String>, open: char, close: char, depth: usize) -> String {
        let start = entries.len() + self.indent + 1 + 10;
        let total: usize =
            entries.iter().map(|e| e.chars().count()).sum::<usize>() + entries.len() + start;
        if depth < COMPACT && total <= BREAK_LENGTH && !entries.iter().any(|e| e.contains('\n')) {
            return format!("{open} {} {close}", entries.join(", "));
        }
        let pad = " ".repeat(self.indent);
        format!(
            "{open}\n{pad}  {}\n{pad}{close}",
            entries.join(&format!(",\n{pad}  "))
        )
    }
}

/// Keys print bare when they are plain identifiers, quoted otherwise.
fn key(k: &str) -> String {
    let mut chars = k.chars();
    let plain = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        k.to_string()
    } else {
        quote(k)
    }
}

/// A JavaScript string literal as Node prints it: single quotes unless the
/// text holds one (then double quotes, then backticks).
pub fn quote(s: &str) -> String {
    let q = if !s.contains('\'') {
        '\''
    } else if !s.contains('"') {
        '"'
    } else if !s.contains('`') && !s.contains("${") {
        '`'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// JavaScript's rendering of a double: `1`, `1.5`, `1e+21`, `NaN`, `-0`.
pub fn js_number(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else if x == 0.0 {
        if x.is_sign_negative() { "-0" } else { "0" }.to_string()
    } else {
        let abs = x.abs();
        if (1e-7..1e21).contains(&abs) {
            // Rust's shortest round-trip form, without exponent in this range.
            let s = format!("{x}");
            s
        } else {
            // Exponent form like JS: 1e+21, 1.5e-7.
            let s = format!("{x:e}");
            match s.split_once('e') {
                Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
                _ => s,
            }
        }
    }
}

fn scalar(v: &Bson) -> String {
    match v {
        Bson::Double(x) => js_number(*x),
        Bson::Int32(x) => x.to_string(),
        Bson::Int64(x) => format!("Long('{x}')"),
        Bson::Decimal128(d) => format!("Decimal128('{d}')"),
        Bson::String(s) => quote(s),
        Bson::Boolean(b) => b.to_string(),
        Bson::Null => "null".to_string(),
        Bson::Undefined => "undefined".to_string(),
        Bson::ObjectId(o) => format!("ObjectId('{}')", o.to_hex()),
        Bson::DateTime(d) => iso_date(*d),
        Bson::Timestamp(t) => format!("Timestamp({{ t: {}, i: {} }})", t.time, t.increment),
        Bson::RegularExpression(r) => regex(r.pattern.as_str(), r.options.as_str()),
        Bson::Binary(b) => {
            if b.subtype == BinarySubtype::Uuid && b.bytes.len() == 16 {
                let h: String = b.bytes.iter().map(|x| format!("{x:02x}")).collect();
                format!(
                    "UUID('{}-{}-{}-{}-{}')",
                    &h[0..8],
                    &h[8..12],
                    &h[12..16],
                    &h[16..20],
                    &h[20..32]
                )
            } else {
                let b64 = crate::base64::encode(crate::base64::Alphabet::Standard, &b.bytes);
                format!("Binary.createFromBase64('{b64}', {})", u8::from(b.subtype))
            }
        }
        Bson::Symbol(s) => format!("Symbol({})", quote(s)),
        Bson::JavaScriptCode(c) => format!("Code({})", quote(c)),
        Bson::JavaScriptCodeWithScope(c) => format!(
            "Code({}, {})",
            quote(&c.code),
            inline(&Bson::Document(c.scope.clone()))
        ),
        Bson::DbPointer(_) => "DBPointer()".to_string(),
        Bson::MinKey => "MinKey()".to_string(),
        Bson::MaxKey => "MaxKey()".to_string(),
        Bson::Document(_) | Bson::Array(_) => inline(v),
    }
}

/// `ISODate('2023-11-02T11:43:10.000Z')`: mongosh always shows three digits of
/// milliseconds; dates outside years 0-9999 print as `new Date(millis)`.
pub fn iso_date(d: bson::DateTime) -> String {
    let millis = d.timestamp_millis();
    match crate::value::calendar::iso_string_4digit(millis) {
        Some(t) => format!("ISODate('{t}')"),
        None => format!("new Date({millis})"),
    }
}

/// A regex as mongosh shows it: a JavaScript literal whose flags are the
/// driver's reading of the BSON options (i, m, and s shown as g: js-bson
/// maps them both ways), or `BSONRegExp(...)` when an option (x, l, u) has
/// no JavaScript flag, so that what is printed reads back the same.
fn regex(pattern: &str, options: &str) -> String {
    if options.chars().all(|c| "ims".contains(c)) {
        let mut flags = String::new();
        for (opt, flag) in [('s', 'g'), ('i', 'i'), ('m', 'm')] {
            if options.contains(opt) {
                flags.push(flag);
            }
        }
        format!("/{pattern}/{flags}")
    } else {
        format!("BSONRegExp({}, {})", quote(pattern), quote(options))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    #[test]
    fn layout() {
        assert_eq!(print(&bson!({"_id": 1, "a": "x"})), "{ _id: 1, a: 'x' }");
        assert_eq!(print(&bson!([{"_id": 1}])), "[ { _id: 1 } ]");
        let long = bson!({"aaaaaaaaaaaaaaaaaaaa": "bbbbbbbbbbbbbbbbbbbbbbbb", "cccccccccccccccccccc": "dddddddddddddddddddddddddd"});
        assert_eq!(
            print(&long),
            "{\n  aaaaaaaaaaaaaaaaaaaa: 'bbbbbbbbbbbbbbbbbbbbbbbb',\n  cccccccccccccccccccc: 'dddddddddddddddddddddddddd'\n}"
        );
        assert_eq!(
            print(&bson!({"$set": 1.5, "it's": 2.0})),
            "{ '$set': 1.5, \"it's\": 2 }"
        );
        assert_eq!(js_number(1e21), "1e+21");
        let date = Bson::DateTime(bson::DateTime::from_millis(1_698_925_390_000));
        assert_eq!(print(&date), "ISODate('2023-11-02T11:43:10.000Z')");
        let date = Bson::DateTime(bson::DateTime::from_millis(1_698_750_962_120));
        assert_eq!(print(&date), "ISODate('2023-10-31T11:16:02.120Z')");
        assert_eq!(
            print(&Bson::DateTime(bson::DateTime::from_millis(
                -62_198_755_200_000 * 2
            ))),
            "new Date(-124397510400000)"
        );
        assert_eq!(print(&Bson::Int64(5)), "Long('5')");
    }
}
