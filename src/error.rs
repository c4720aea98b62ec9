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

/// One constructor per error code the engine raises, named after its codeName
/// (`src/mongo/base/error_codes.yml` in the server), so no call site types a
/// code and its name by hand.
macro_rules! constructors {
    ($($name:ident = $code:literal $code_name:literal;)*) => {
        impl Error {
            $(
                #[doc = concat!("`", $code_name, "` (", stringify!($code), ").")]
                #[cold]
                #[inline(never)]
                pub fn $name(message: impl Into<String>) -> Error {
                    Error::new($code, $code_name, message)
                }
            )*
        }
    };
}

constructors! {
    internal_error = 1 "InternalError";
    bad_value = 2 "BadValue";
    failed_to_parse = 9 "FailedToParse";
    type_mismatch = 14 "TypeMismatch";
    namespace_not_found = 26 "NamespaceNotFound";
    index_not_found = 27 "IndexNotFound";
    path_not_viable = 28 "PathNotViable";
    cannot_backfill_array = 34 "CannotBackfillArray";
    conflicting_update_operators = 40 "ConflictingUpdateOperators";
    cursor_not_found = 43 "CursorNotFound";
    overflow = 15 "Overflow";
    namespace_exists = 48 "NamespaceExists";
    dollar_prefixed_field_name = 52 "DollarPrefixedFieldName";
    invalid_id_field = 53 "InvalidIdField";
    not_single_value_field = 54 "NotSingleValueField";
    empty_field_name = 56 "EmptyFieldName";
    immutable_field = 66 "ImmutableField";
    cannot_create_index = 67 "CannotCreateIndex";
    invalid_options = 72 "InvalidOptions";
    invalid_namespace = 73 "InvalidNamespace";
    index_options_conflict = 85 "IndexOptionsConflict";
    index_key_specs_conflict = 86 "IndexKeySpecsConflict";
    not_exact_value_field = 111 "NotExactValueField";
    command_not_supported = 115 "CommandNotSupported";
    document_validation_failure = 121 "DocumentValidationFailure";
    exceeded_memory_limit = 146 "ExceededMemoryLimit";
    invalid_pipeline_operator = 168 "InvalidPipelineOperator";
    cannot_index_parallel_arrays = 171 "CannotIndexParallelArrays";
    invalid_index_specification_option = 197 "InvalidIndexSpecificationOption";
    query_feature_not_allowed = 224 "QueryFeatureNotAllowed";
    conversion_failure = 241 "ConversionFailure";
    bson_object_too_large = 10334 "BSONObjectTooLarge";
    duplicate_key = 11000 "DuplicateKey";
}

impl Error {
    // The constructors are cold and never inlined: errors are built at a few
    // thousand places, and an inlined `String` conversion at each adds up in
    // the page's wasm (BENCHMARKS.md).
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
        Error::command_not_supported(format!("{what} is not supported in mqlplay"))
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
