//! String and template literals: JavaScript escapes (`\n`, `\xXX`, `\uXXXX`,
//! `\u{...}`, legacy octal, line continuations), decoded once into the token.
use super::lexer::Lexer;
use crate::error::{Error, Result, Span};
use std::borrow::Cow;

impl<'a> Lexer<'a> {
    /// A quoted string; borrows when there is no escape.
    pub(super) fn string(&mut self, start: usize, quote: u8) -> Result<Cow<'a, str>> {
        let mut p = start + 1;
        // Fast path: scan to the closing quote.
        while let Some(&b) = self.bytes.get(p) {
            if b == quote {
                self.pos = p + 1;
                return Ok(Cow::Borrowed(&self.src[start + 1..p]));
            }
            if b == b'\\' || b == b'\n' || b == b'\r' {
                break;
            }
            p += 1;
        }
        let mut out = String::with_capacity(p - start + 16);
        out.push_str(&self.src[start + 1..p]);
        loop {
            let Some(&b) = self.bytes.get(p) else {
                return Err(self.unterminated("string", start, p));
            };
            match b {
                _ if b == quote => {
                    self.pos = p + 1;
                    return Ok(Cow::Owned(out));
                }
                b'\n' | b'\r' => {
                    return Err(self.unterminated("string", start, p));
                }
                b'\\' => p = self.escape(p, &mut out)?,
                _ => {
                    let run = self.bytes[p..]
                        .iter()
                        .position(|&c| c == quote || c == b'\\' || c == b'\n' || c == b'\r');
                    let end = run.map_or(self.bytes.len(), |i| p + i);
                    out.push_str(&self.src[p..end]);
                    p = end;
                }
            }
        }
    }

    /// A template literal without substitutions: a plain string.
    pub(super) fn template(&mut self, start: usize) -> Result<Cow<'a, str>> {
        let mut out = String::new();
        let mut p = start + 1;
        loop {
            let Some(&b) = self.bytes.get(p) else {
                return Err(self.unterminated("template", start, p));
            };
            match b {
                b'`' => {
                    self.pos = p + 1;
                    return Ok(Cow::Owned(out));
                }
                b'\\' => p = self.escape(p, &mut out)?,
                b'$' if self.bytes.get(p + 1) == Some(&b'{') => {
                    self.pos = p + 2;
                    return Err(Error::not_supported("template literal substitution `${}`")
                        .at(Span::new(p, p + 2)));
                }
                // Template literals normalise CRLF and CR to LF.
                b'\r' => {
                    out.push('\n');
                    p += if self.bytes.get(p + 1) == Some(&b'\n') {
                        2
                    } else {
                        1
                    };
                }
                _ => {
                    let run = self.bytes[p..]
                        .iter()
                        .position(|&c| matches!(c, b'`' | b'\\' | b'$' | b'\r'));
                    let end = run.map_or(self.bytes.len(), |i| p + i).max(p + 1);
                    let end = self.ceil_char(end);
                    out.push_str(&self.src[p..end]);
                    p = end;
                }
            }
        }
    }

    /// Decode the escape at `p` (a backslash) into `out`; return the position after it.
    fn escape(&mut self, p: usize, out: &mut String) -> Result<usize> {
        let bytes = self.bytes;
        let Some(&e) = bytes.get(p + 1) else {
            return Err(self.unterminated("string", p, p + 1));
        };
        let simple = match e {
            b'n' => Some('\n'),
            b't' => Some('\t'),
            b'r' => Some('\r'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'v' => Some('\u{b}'),
            b'0' if !bytes.get(p + 2).is_some_and(u8::is_ascii_digit) => Some('\0'),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            return Ok(p + 2);
        }
        match e {
            // Line continuation: the backslash and the line terminator vanish.
            b'\n' => Ok(p + 2),
            b'\r' => Ok(if bytes.get(p + 2) == Some(&b'\n') {
                p + 3
            } else {
                p + 2
            }),
            b'x' => {
                let v = self.hex_digits(p, p + 2, 2)?;
                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                Ok(p + 4)
            }
            b'u' => self.unicode_escape(p, out),
            // Legacy octal escapes (sloppy-mode JavaScript): up to three digits, at most 0o377.
            b'0'..=b'7' => {
                let mut v = 0u32;
                let mut q = p + 1;
                while q < p + 4 && bytes.get(q).is_some_and(|b| (b'0'..=b'7').contains(b)) {
                    let nv = v * 8 + u32::from(bytes[q] - b'0');
                    if nv > 0o377 {
                        break;
                    }
                    v = nv;
                    q += 1;
                }
                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                Ok(q)
            }
            _ => {
                // Any other character escapes to itself (`\'`, `\"`, `\\`, `\a`, `\é`).
                let c = self.src[p + 1..].chars().next().unwrap_or('\u{fffd}');
                if c != '\u{2028}' && c != '\u{2029}' {
                    out.push(c);
                }
                Ok(p + 1 + c.len_utf8())
            }
        }
    }

    fn hex_digits(&mut self, esc: usize, from: usize, n: usize) -> Result<u32> {
        let mut v = 0u32;
        for i in 0..n {
            match self
                .bytes
                .get(from + i)
                .and_then(|b| (*b as char).to_digit(16))
            {
                Some(d) => v = v * 16 + d,
                None => {
                    self.pos = self.ceil_char(from + i + 1);
                    return Err(Error::syntax(
                        "Invalid hexadecimal escape sequence",
                        Span::new(esc, self.pos),
                    ));
                }
            }
        }
        Ok(v)
    }

    /// `\uXXXX` (pairing surrogates) or `\u{X...}`. A lone surrogate becomes
    /// U+FFFD, as the driver's UTF-8 encoding of such a string does.
    fn unicode_escape(&mut self, p: usize, out: &mut String) -> Result<usize> {
        if self.bytes.get(p + 2) == Some(&b'{') {
            let close = self.bytes[p + 3..].iter().take(10).position(|&b| b == b'}');
            let bad = || Error::syntax("Invalid Unicode escape sequence", Span::new(p, p + 3));
            let Some(len) = close.filter(|&l| l > 0) else {
                self.pos = p + 3;
                return Err(bad());
            };
            let digits = &self.src[p + 3..p + 3 + len];
            let v = u32::from_str_radix(digits, 16)
                .ok()
                .filter(|&v| v <= 0x10ffff);
            let Some(v) = v.filter(|_| digits.bytes().all(|b| b.is_ascii_hexdigit())) else {
                self.pos = p + 4 + len;
                return Err(bad());
            };
            out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            return Ok(p + 4 + len);
        }
        let hi = self.hex_digits(p, p + 2, 4)?;
        let mut next = p + 6;
        let c = if (0xd800..0xdc00).contains(&hi)
            && self.bytes.get(next) == Some(&b'\\')
            && self.bytes.get(next + 1) == Some(&b'u')
        {
            let mut probe = self.clone();
            match probe.hex_digits(next, next + 2, 4) {
                Ok(lo) if (0xdc00..0xe000).contains(&lo) => {
                    next += 6;
                    char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00))
                }
                _ => None,
            }
        } else {
            char::from_u32(hi)
        };
        out.push(c.unwrap_or('\u{fffd}'));
        Ok(next)
    }
}
