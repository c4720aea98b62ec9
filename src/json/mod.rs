//! JSON text to `serde_json::Value`, accepting and rejecting exactly what
//! `serde_json::from_str::<Value>` does (numbers go through serde_json's own
//! `Number` parser), without serde_json's generic deserializer in the page's
//! wasm. The test compares the two on many texts.
use serde_json::{Map, Number, Value};

/// serde_json's nesting limit: 127 open arrays/objects are accepted, 128 are not.
const MAX_DEPTH: usize = 127;

pub fn parse(text: &str) -> Result<Value, String> {
    let mut p = Parser {
        b: text.as_bytes(),
        s: text,
        at: 0,
    };
    let v = p.value(0)?;
    p.ws();
    if p.at < p.b.len() {
        return Err(p.err("trailing characters"));
    }
    Ok(v)
}

struct Parser<'a> {
    b: &'a [u8],
    s: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        format!("{what} at byte {}", self.at)
    }

    fn ws(&mut self) {
        while matches!(self.b.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        let hit = self.b.get(self.at) == Some(&c);
        if hit {
            self.at += 1;
        }
        hit
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        self.ws();
        let Some(&c) = self.b.get(self.at) else {
            return Err(self.err("EOF while parsing a value"));
        };
        match c {
            b'n' => self.word("null", Value::Null),
            b't' => self.word("true", Value::Bool(true)),
            b'f' => self.word("false", Value::Bool(false)),
            b'"' => self.string().map(Value::String),
            b'-' | b'0'..=b'9' => {
                let start = self.at;
                while matches!(
                    self.b.get(self.at),
                    Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                ) {
                    self.at += 1;
                }
                let token = self.s.get(start..self.at).unwrap_or_default();
                token
                    .parse::<Number>()
                    .map(Value::Number)
                    .map_err(|e| format!("{e} at byte {start}"))
            }
            b'[' | b'{' if depth >= MAX_DEPTH => Err(self.err("recursion limit exceeded")),
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value(depth + 1)?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.err("expected `,` or `]`"));
                        }
                    }
                }
                Ok(Value::Array(items))
            }
            b'{' => {
                self.at += 1;
                let mut map = Map::new();
                if !self.eat(b'}') {
                    loop {
                        self.ws();
                        if self.b.get(self.at) != Some(&b'"') {
                            return Err(self.err("key must be a string"));
                        }
                        let key = self.string()?;
                        if !self.eat(b':') {
                            return Err(self.err("expected `:`"));
                        }
                        let v = self.value(depth + 1)?;
                        map.insert(key, v);
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.err("expected `,` or `}`"));
                        }
                    }
                }
                Ok(Value::Object(map))
            }
            _ => Err(self.err("expected value")),
        }
    }

    fn word(&mut self, w: &str, v: Value) -> Result<Value, String> {
        if self.b.get(self.at..self.at + w.len()) == Some(w.as_bytes()) {
            self.at += w.len();
            Ok(v)
        } else {
            Err(self.err("expected value"))
        }
    }

    /// A string literal (at its opening quote).
    fn string(&mut self) -> Result<String, String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let start = self.at;
            while matches!(self.b.get(self.at), Some(c) if *c != b'"' && *c != b'\\' && *c >= 0x20)
            {
                self.at += 1;
            }
            out.push_str(self.s.get(start..self.at).unwrap_or_default());
            match self.b.get(self.at) {
                None => return Err(self.err("EOF while parsing a string")),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let c = match self.b.get(self.at) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.at += 1;
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if self.b.get(self.at..self.at + 2) != Some(b"\\u") {
                                    return Err(self.err("lone leading surrogate in hex escape"));
                                }
                                self.at += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err("lone leading surrogate in hex escape"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            out.push(
                                char::from_u32(code)
                                    .ok_or_else(|| self.err("unexpected end of hex escape"))?,
                            );
                            continue;
                        }
                        _ => return Err(self.err("invalid escape")),
                    };
                    self.at += 1;
                    out.push(c);
                }
                Some(_) => return Err(self.err("control character found while parsing a string")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self
            .b
            .get(self.at..self.at + 4)
            .ok_or_else(|| self.err("EOF in hex escape"))?;
        let mut n = 0;
        for &d in digits {
            n = n * 16
                + (d as char)
                    .to_digit(16)
                    .ok_or_else(|| self.err("invalid escape"))?;
        }
        self.at += 4;
        Ok(n)
    }
}

/// Compact JSON text, byte for byte `serde_json::to_string(v)` (without
/// serde's serializer in the page's wasm).
pub fn to_string(v: &Value) -> String {
    let mut out = String::new();
    write(&mut out, v);
    out
}

pub fn write(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            use std::fmt::Write as _;
            let _ = write!(out, "{n}");
        }
        Value::String(s) => crate::text::ejson::write_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                crate::text::ejson::write_str(out, k);
                out.push(':');
                write(out, item);
            }
            out.push('}');
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
