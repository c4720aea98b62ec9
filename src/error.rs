//! One error type for the whole engine: MongoDB's code and codeName, a message,
//! and (for errors with a place in the user's text) a byte span. Spans become
//! line/column or UTF-16 offsets only at the edges (CLI, wasm).
use std::borrow::Cow;
use std::fmt;

/// Byte range `[start, end)` into the text the error refers to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// Which text a span points into.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Source {
    #[default]
    Script,
    Database,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub code: i32,
    pub code_name: Cow<'static, str>,
    pub message: String,
    pub span: Option<Span>,
    pub source: Source,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    // The constructors are cold and never inlined: errors are built at a few
    // thousand places, and an inlined `String` conversion at each was about
    // 4.4 KB gzipped of the page's wasm.
    #[cold]
    #[inline(never)]
    pub fn new(
        code: i32,
        code_name: impl Into<Cow<'static, str>>,
        message: impl Into<String>,
    ) -> Error {
        Error {
            code,
            code_name: code_name.into(),
            message: message.into(),
            span: None,
            source: Source::Script,
        }
    }
    /// A syntax error of the reader (mongosh would raise a JavaScript SyntaxError; we use FailedToParse).
    #[cold]
    #[inline(never)]
    pub fn syntax(message: impl Into<String>, span: Span) -> Error {
        Error::failed_to_parse(message).at(span)
    }
    #[cold]
    #[inline(never)]
    pub fn bad_value(message: impl Into<String>) -> Error {
        Error::new(2, "BadValue", message)
    }
    #[cold]
    #[inline(never)]
    pub fn failed_to_parse(message: impl Into<String>) -> Error {
        Error::new(9, "FailedToParse", message)
    }
    #[cold]
    #[inline(never)]
    pub fn type_mismatch(message: impl Into<String>) -> Error {
        Error::new(14, "TypeMismatch", message)
    }
    #[cold]
    #[inline(never)]
    pub fn path_not_viable(message: impl Into<String>) -> Error {
        Error::new(28, "PathNotViable", message)
    }
    #[cold]
    #[inline(never)]
    pub fn conflicting_update_operators(message: impl Into<String>) -> Error {
        Error::new(40, "ConflictingUpdateOperators", message)
    }
    #[cold]
    #[inline(never)]
    pub fn immutable_field(message: impl Into<String>) -> Error {
        Error::new(66, "ImmutableField", message)
    }
    #[cold]
    #[inline(never)]
    pub fn invalid_options(message: impl Into<String>) -> Error {
        Error::new(72, "InvalidOptions", message)
    }
    #[cold]
    #[inline(never)]
    pub fn command_not_supported(message: impl Into<String>) -> Error {
        Error::new(115, "CommandNotSupported", message)
    }
    #[cold]
    #[inline(never)]
    pub fn duplicate_key(message: impl Into<String>) -> Error {
        Error::new(11000, "DuplicateKey", message)
    }
    /// MongoDB's numbered assertions: codeName `Location<code>`.
    #[cold]
    #[inline(never)]
    pub fn location(code: i32, message: impl Into<String>) -> Error {
        Error::new(code, format!("Location{code}"), message)
    }
    /// Something MongoDB supports that the playground does not (yet).
    #[cold]
    #[inline(never)]
    pub fn not_supported(what: impl fmt::Display) -> Error {
        Error::new(
            115,
            "CommandNotSupported",
            format!("{what} is not supported in mqlplay"),
        )
    }
    /// Attach a span if the error has none yet (the innermost place wins).
    #[inline(never)]
    pub fn at(mut self, span: Span) -> Error {
        if self.span.is_none() {
            self.span = Some(span);
        }
        self
    }
    pub fn in_source(mut self, source: Source) -> Error {
        self.source = source;
        self
    }
}

impl fmt::Display for Error {
    /// `(BadValue) message`, as Mongo Playground prints errors.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}) {}", self.code_name, self.message)
    }
}

impl std::error::Error for Error {}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char_boundary(text, offset);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = text[line_start..offset].chars().count() + 1;
    (line, col)
}

/// Number of UTF-16 code units before a byte offset (what JavaScript editors count).
pub fn utf16_offset(text: &str, offset: usize) -> usize {
    let offset = floor_char_boundary(text, offset);
    text[..offset].encode_utf16().count()
}

/// The source line holding `offset` and a caret line under the span.
pub fn excerpt(text: &str, span: Span) -> String {
    let start = floor_char_boundary(text, span.start);
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = &text[line_start..line_end];
    let pad: String = text[line_start..start]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let end = floor_char_boundary(text, span.end.clamp(start, line_end));
    let width = text[start..end].chars().count().max(1);
    format!("{line}\n{pad}{}", "^".repeat(width))
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions() {
        let t = "ab\ncé\nx";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, 6), (2, 3));
        assert_eq!(utf16_offset("😀a", 4), 2);
        assert_eq!(
            excerpt("let x = ;\nmore", Span::new(8, 9)),
            "let x = ;\n        ^"
        );
    }
}
