//! V8's date tokenizer (`DateParser::DateStringTokenizer` and its keyword
//! table, `src/date/dateparser.h`): numbers, symbols, words and white space,
//! with one token of look-ahead, for the rules in `v8.rs`.

/// Absent field (V8's `kNone`).
pub(super) const NONE: i32 = i32::MIN;
/// V8 keeps nine significant digits of a number.
pub(super) const MAX_SIGNIFICANT_DIGITS: usize = 9;

#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Kw {
    Month(i32),
    AmPm(i32),
    Zone(i32),
    TimeSeparator,
    Other,
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Tok {
    Number { n: i32, len: usize },
    Symbol(u8),
    Keyword { kw: Kw, len: usize },
    WhiteSpace,
    Unknown,
    End,
}

impl Tok {
    pub(super) fn is_number(self) -> bool {
        matches!(self, Tok::Number { .. })
    }
    pub(super) fn is_fixed(self, want: usize) -> bool {
        matches!(self, Tok::Number { len, .. } if len == want)
    }
    pub(super) fn number(self) -> i32 {
        match self {
            Tok::Number { n, .. } => n,
            _ => NONE,
        }
    }
    pub(super) fn is_sign(self) -> bool {
        matches!(self, Tok::Symbol(b'+' | b'-'))
    }
    pub(super) fn is_keyword_z(self) -> bool {
        matches!(
            self,
            Tok::Keyword {
                kw: Kw::Zone(0),
                len: 1
            }
        )
    }
}

/// The tokenizer with one token of look-ahead.
pub(super) struct Scanner<'a> {
    s: &'a [char],
    i: usize,
    next: Tok,
}

pub(super) fn is_white(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

impl<'a> Scanner<'a> {
    pub(super) fn new(s: &'a [char]) -> Self {
        let mut sc = Scanner {
            s,
            i: 0,
            next: Tok::End,
        };
        sc.next = sc.scan();
        sc
    }
    pub(super) fn ch(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }
    pub(super) fn peek(&self) -> Tok {
        self.next
    }
    pub(super) fn next(&mut self) -> Tok {
        let t = self.next;
        self.next = self.scan();
        t
    }
    pub(super) fn skip_symbol(&mut self, c: u8) -> bool {
        if self.next == Tok::Symbol(c) {
            self.next();
            true
        } else {
            false
        }
    }
    pub(super) fn scan(&mut self) -> Tok {
        let Some(c) = self.ch() else {
            return Tok::End;
        };
        if c.is_ascii_digit() {
            let (mut n, mut len) = (0i32, 0usize);
            while let Some(d) = self
                .ch()
                .and_then(|c| c.to_digit(10).filter(|_| c.is_ascii()))
            {
                if len < MAX_SIGNIFICANT_DIGITS {
                    n = n * 10 + d as i32;
                }
                len += 1;
                self.i += 1;
            }
            return Tok::Number { n, len };
        }
        if matches!(c, ':' | '-' | '+' | '.' | ')') {
            self.i += 1;
            return Tok::Symbol(c as u8);
        }
        if c >= 'A' && !is_white(c) {
            let mut prefix = [0u32; 3];
            let mut len = 0;
            while let Some(c) = self.ch().filter(|&c| c >= 'A' && !is_white(c)) {
                if len < 3 {
                    prefix[len] = u32::from(c.to_ascii_lowercase());
                }
                len += 1;
                self.i += 1;
            }
            return Tok::Keyword {
                kw: keyword(prefix, len),
                len,
            };
        }
        if is_white(c) {
            self.i += 1;
            return Tok::WhiteSpace;
        }
        if c == '(' {
            let mut balance = 0;
            loop {
                match self.ch() {
                    Some(')') => balance -= 1,
                    Some('(') => balance += 1,
                    _ => {}
                }
                self.i += 1;
                if balance <= 0 || self.ch().is_none() {
                    break;
                }
            }
            return Tok::Unknown;
        }
        self.i += 1;
        Tok::Unknown
    }
}

/// V8's keyword table: a word matches on its first three letters; only month
/// names may be longer.
pub(super) fn keyword(p: [u32; 3], len: usize) -> Kw {
    const TABLE: [(&[u8; 3], Kw); 27] = [
        (b"jan", Kw::Month(1)),
        (b"feb", Kw::Month(2)),
        (b"mar", Kw::Month(3)),
        (b"apr", Kw::Month(4)),
        (b"may", Kw::Month(5)),
        (b"jun", Kw::Month(6)),
        (b"jul", Kw::Month(7)),
        (b"aug", Kw::Month(8)),
        (b"sep", Kw::Month(9)),
        (b"oct", Kw::Month(10)),
        (b"nov", Kw::Month(11)),
        (b"dec", Kw::Month(12)),
        (b"am\0", Kw::AmPm(0)),
        (b"pm\0", Kw::AmPm(12)),
        (b"ut\0", Kw::Zone(0)),
        (b"utc", Kw::Zone(0)),
        (b"z\0\0", Kw::Zone(0)),
        (b"gmt", Kw::Zone(0)),
        (b"cdt", Kw::Zone(-5)),
        (b"cst", Kw::Zone(-6)),
        (b"edt", Kw::Zone(-4)),
        (b"est", Kw::Zone(-5)),
        (b"mdt", Kw::Zone(-6)),
        (b"mst", Kw::Zone(-7)),
        (b"pdt", Kw::Zone(-7)),
        (b"pst", Kw::Zone(-8)),
        (b"t\0\0", Kw::TimeSeparator),
    ];
    for (name, kw) in TABLE {
        let same = name.iter().zip(p).all(|(a, b)| u32::from(*a) == b);
        if same && (len <= 3 || matches!(kw, Kw::Month(_))) {
            return kw;
        }
    }
    Kw::Other
}
