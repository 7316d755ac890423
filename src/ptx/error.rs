//! Parse errors: a message naming the construct being parsed and what was found, with the
//! [`Span`] of the offending token. Rendering to `file:line:col: message` happens only at the
//! boundary, with a [`SourceMap`].

use std::fmt;

use super::span::{SourceMap, Span};

/// The first syntax error found in a PTX text (the parser stops at the first error).
///
/// `message` says what was expected and what was found, e.g. `expected ',' between operands or
/// ';' after instruction 'add', found '%f1'`; `span` covers the offending token (an empty span at
/// the end of the text for "found end of input").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub span: Span,
}

impl ParseError {
    /// An error with `message` at `span`.
    pub fn new(message: impl Into<String>, span: Span) -> ParseError {
        ParseError {
            message: message.into(),
            span,
        }
    }

    /// `NAME:LINE:COL: message`, with 1-based line and byte column of the span's start, e.g.
    /// `kernel.ptx:12:5: expected ';' after instruction 'add', found 'mul'`.
    pub fn render(&self, map: &SourceMap) -> String {
        let (line, col) = map.line_col(self.span.start);
        format!("{}:{}:{}: {}", map.name, line, col, self.message)
    }
}

impl fmt::Display for ParseError {
    /// The message alone, without location (use [`ParseError::render`] for `file:line:col`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}
