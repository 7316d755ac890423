//! The PTX front end: lexer, parser and AST with source spans.
//!
//! [`parse`] turns PTX text into an [`ast::Module`]; it never panics, and every error names the
//! construct and carries a [`span::Span`] that [`ParseError::render`] turns into `file:line:col`.

pub mod ast;
pub mod span;
